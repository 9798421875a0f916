// The check() statics of the kernels (runtime/kernel.hpp): what the GLSL and the CPU body of each
// kernel assume about its scalars and the sizes of its views, for the grid its grid() states.
// Graph::dispatch calls them when the graph is built, so neither body is ever run with Args it
// would misread, and both executors reject the same dispatches. Each returns the first problem
// found, naming the Args members, or "" when the Args are fine.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string>

#include "kernels/basic.hpp"
#include "kernels/batch_constraint.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/gkr.hpp"
#include "kernels/hash/transcript.hpp"
#include "kernels/hashing.hpp"
#include "kernels/merkle.hpp"
#include "kernels/mle.hpp"
#include "kernels/mle_tables.hpp"
#include "kernels/ntt.hpp"
#include "kernels/pcs.hpp"
#include "kernels/program.hpp"
#include "kernels/stacked_reduction.hpp"
#include "kernels/transcript.hpp"
#include "kernels/whir.hpp"

namespace vkstark {

namespace {

constexpr uint64_t kU32Max = std::numeric_limits<uint32_t>::max();

// "" when view `name` holds exactly `want` elements.
template <class P>
std::string count_is(const P& p, std::string_view name, uint64_t want) {
  if (p.view.count == want) return {};
  return fmt::format("{} has {} elements, {} expected", name, p.view.count, want);
}

// "" when view `name` holds at least `want` elements.
template <class P>
std::string count_at_least(const P& p, std::string_view name, uint64_t want) {
  if (p.view.count >= want) return {};
  return fmt::format("{} has {} elements, at least {} needed", name, p.view.count, want);
}

// "" when a grid dimension of n invocations fits 32 bits.
std::string grid_fits(uint64_t n, std::string_view what) {
  if (n <= kU32Max) return {};
  return fmt::format("{} = {} invocations exceed 2^32 - 1", what, n);
}

// The first non-empty problem.
template <class... S>
std::string first_of(S&&... problems) {
  std::string out;
  ((out.empty() ? void(out = std::forward<S>(problems)) : void()), ...);
  return out;
}

// "" when `view` holds exactly whole columns of `len` entries, `stride` apart.
template <class P>
std::string whole_columns(const P& p, std::string_view name, uint64_t len, uint64_t stride) {
  if (detail::column_count(p.view.count, len, stride) != 0) return {};
  if (stride < len && p.view.count > len)
    return fmt::format("{}: columns of {} entries at stride {} overlap", name, len, stride);
  return fmt::format("{} has {} elements: not whole columns of {} entries at stride {} (the last column ends the view)",
                     name, p.view.count, len, stride);
}

// The extent of `columns` columns of `len` entries, `stride` apart (0 columns: 0).
uint64_t columns_extent(uint64_t columns, uint64_t len, uint64_t stride) {
  return columns == 0 ? 0 : (columns - 1) * stride + len;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// basic.hpp, elementwise.hpp

std::string CopyU32::check(const Args& a) {
  return first_of(grid_fits(a.dst.view.count, "dst.count"), count_is(a.src, "src", a.dst.view.count));
}

namespace {
template <class Args>
std::string binary_problem(const Args& a) {
  return first_of(grid_fits(a.out.view.count, "out.count"), count_is(a.a, "a", a.out.view.count),
                  count_is(a.b, "b", a.out.view.count));
}
template <class Args>
std::string scale_problem(const Args& a) {
  return first_of(grid_fits(a.out.view.count, "out.count"), count_is(a.a, "a", a.out.view.count),
                  count_is(a.c, "c", 1));
}
}  // namespace

std::string FpAdd::check(const Args& a) { return binary_problem(a); }
std::string FpMul::check(const Args& a) { return binary_problem(a); }
std::string FpScale::check(const Args& a) { return scale_problem(a); }
std::string Fp4Add::check(const Args& a) { return binary_problem(a); }
std::string Fp4Mul::check(const Args& a) { return binary_problem(a); }
std::string Fp4Scale::check(const Args& a) { return scale_problem(a); }
std::string Fp4Repeat::check(const Args& a) {
  if (a.a.view.count == 0 && a.out.view.count > 0) return "a is empty: nothing to repeat";
  return grid_fits(a.out.view.count, "out.count");
}

std::string Fp4Powers::check(const Args& a) {
  if (a.out.view.count > 0 && a.a.view.count != 1)
    return fmt::format("a has {} elements, the base is one", a.a.view.count);
  return grid_fits(a.out.view.count, "out.count");
}

std::string Fp4Gather::check(const Args& a) {
  return first_of(count_is(a.idx, "idx", a.out.view.count), grid_fits(a.out.view.count, "out.count"));
}

// ---------------------------------------------------------------------------------------------
// hashing.hpp, merkle.hpp

std::string Poseidon2Permute::check(const Args& a) {
  if (a.states.view.count % 16 != 0)
    return fmt::format("states has {} elements, not a whole number of 16-element states", a.states.view.count);
  return grid_fits(a.states.view.count / 16, "states.count / 16");
}

std::string HashRows::check(const Args& a) {
  const uint64_t rows = a.out.view.count;
  if (std::string p = grid_fits(rows, "out.count"); !p.empty()) return p;
  if (rows == 0 || a.width == 0) return {};
  return count_at_least(a.matrix, "matrix", (rows - 1) * a.row_stride + uint64_t(a.width - 1) * a.col_stride + 1);
}

std::string HashRowsAbsorb::check(const Args& a) {
  if (a.state.view.count % 16 != 0)
    return fmt::format("state has {} elements, not a whole number of 16-element sponge states", a.state.view.count);
  const uint64_t rows = a.state.view.count / 16;
  if (std::string p = grid_fits(rows, "state.count / 16"); !p.empty()) return p;
  if (a.last > 1) return fmt::format("last is {}, 0 or 1 expected", a.last);
  if (std::string p = count_is(a.out, "out", a.last ? rows : 0); !p.empty()) return p;
  if (rows == 0 || a.width == 0) return {};
  return count_at_least(a.matrix, "matrix", (rows - 1) * a.row_stride + uint64_t(a.width - 1) * a.col_stride + 1);
}

std::string MerkleCompressLayer::check(const Args& a) {
  if (a.stride == 0) return "stride 0: layers are combined at stride >= 1";
  if (a.out.view.count % a.stride != 0)
    return fmt::format("out has {} digests, not a multiple of stride {}", a.out.view.count, a.stride);
  return first_of(grid_fits(a.out.view.count, "out.count"), count_is(a.in, "in", 2 * a.out.view.count));
}

std::string MerkleCompressLevels::check(const Args& a) {
  if (a.levels == 0 || a.levels > max_levels)
    return fmt::format("levels {}: between 1 and {} layers in one dispatch", a.levels, max_levels);
  const uint64_t n = a.in.view.count, block = uint64_t(1) << a.levels;
  if (n == 0 || n % block != 0)
    return fmt::format("in has {} digests, not a positive multiple of 2^levels = {}", n, block);
  const uint64_t m = n / 2;  // the first layer's digests; the others halve it
  return first_of(grid_fits(8 * n, "8 * in.count"), count_is(a.out, "out", 2 * m - (m >> (a.levels - 1))));
}

std::string GatherRows::check(const Args& a) {
  if (a.rows_per_query == 0) return "rows_per_query 0: a query opens at least one row";
  const uint64_t rows = a.idx.view.count * a.rows_per_query;
  if (a.out_stride == 0)
    return first_of(grid_fits(rows, "idx.count * rows_per_query"), count_is(a.out, "out", rows * a.width));
  if (a.out_stride < a.width) return fmt::format("out_stride {} is below width {}", a.out_stride, a.width);
  return first_of(grid_fits(rows, "idx.count * rows_per_query"),
                  rows == 0 ? std::string() : count_at_least(a.out, "out", (rows - 1) * a.out_stride + a.width));
}

std::string GatherPaths::check(const Args& a) {
  return first_of(grid_fits(a.idx.view.count, "idx.count"), count_is(a.out, "out", a.idx.view.count * a.depth));
}

// ---------------------------------------------------------------------------------------------
// mle.hpp

std::string MleEvalColumnsPartials::check(const Args& a) {
  if (a.rows == 0) return "rows 0: columns have at least one row";
  if (std::string p = whole_columns(a.matrix, "matrix", a.rows, a.col_stride); !p.empty()) return p;
  const uint64_t columns = detail::column_count(a.matrix.view.count, a.rows, a.col_stride);
  if (a.partials.view.count == 0 || a.partials.view.count % columns != 0)
    return fmt::format("partials has {} elements, not a positive multiple of the {} columns", a.partials.view.count,
                       columns);
  return first_of(grid_fits(a.partials.view.count / columns, "partials per column"),
                  count_at_least(a.eq, "eq", a.rows));
}

// ---------------------------------------------------------------------------------------------
// ntt.hpp

std::string NttTwiddles::check(const Args& a) {
  if (a.log_n > Fp::TWO_ADICITY)
    return fmt::format("log_n {}: BabyBear has roots of unity of order up to 2^{}", a.log_n, Fp::TWO_ADICITY);
  return count_is(a.tw, "tw", a.log_n == 0 ? 1 : uint64_t(1) << (a.log_n - 1));
}

namespace {
// The part of a Stockham pass's check shared by the register and the shared passes.
template <class Args>
std::string stockham_problem(const Args& a, uint32_t min_log_radix, uint32_t max_log_radix) {
  if (a.log_radix < min_log_radix || a.log_radix > max_log_radix)
    return fmt::format("log_radix {} outside {} .. {}", a.log_radix, min_log_radix, max_log_radix);
  if (a.log_tw > Fp::TWO_ADICITY)
    return fmt::format("log_tw {}: BabyBear has roots of unity of order up to 2^{}", a.log_tw, Fp::TWO_ADICITY);
  if (a.log_n > a.log_tw || a.log_src > a.log_n || a.stage + a.log_radix > a.log_n)
    return fmt::format("a pass of stages [{}, {}) of a 2^{} transform (source 2^{}, twiddles 2^{}) is not one", a.stage,
                       a.stage + a.log_radix, a.log_n, a.log_src, a.log_tw);
  const uint64_t n = uint64_t(1) << a.log_n;
  if (std::string p = whole_columns(a.dst, "dst", n, a.dst_stride); !p.empty()) return p;
  const uint64_t columns = detail::column_count(a.dst.view.count, n, a.dst_stride);
  return first_of(count_at_least(a.src, "src", columns_extent(columns, uint64_t(1) << a.log_src, a.src_stride)),
                  count_at_least(a.tw, "tw", a.log_tw == 0 ? 1 : uint64_t(1) << (a.log_tw - 1)),
                  grid_fits(a.dst.view.count, "dst.count"));
}
}  // namespace

template <class T>
std::string ntt_stage_problem(const NttStageArgs<T>& a, uint32_t min_log_radix, uint32_t max_log_radix) {
  if (a.mask.count != 0) return "a mask: only NttStageVecFp's passes take one";
  return stockham_problem(a, min_log_radix, max_log_radix);
}
template std::string ntt_stage_problem(const NttStageArgs<Fp>&, uint32_t, uint32_t);
template std::string ntt_stage_problem(const NttStageArgs<Fp4>&, uint32_t, uint32_t);

template <class T>
std::string ntt_shared_problem(const NttStageSharedArgs<T>& a, uint32_t capacity) {
  if (std::string p = stockham_problem(a, 2, kNttMaxSharedLogRadix); !p.empty()) return p;
  if (a.log_tile > a.log_n - a.log_radix || (uint64_t(1) << (a.log_radix + a.log_tile)) > capacity)
    return fmt::format(
        "tiles of 2^{} groups of 2^{} entries do not fit a 2^{} transform and {} entries of shared memory", a.log_tile,
        a.log_radix, a.log_n, capacity);
  return {};
}
template std::string ntt_shared_problem(const NttStageSharedArgs<Fp>&, uint32_t);
template std::string ntt_shared_problem(const NttStageSharedArgs<Fp4>&, uint32_t);

namespace {
// The same pass over the same bytes with Fp or uvec4 entries (strides times or divided by 4), without
// a mask (the CPU bodies compute every group; NttStageVecFp's caller sets its mask).
template <class To, class From>
NttStageArgs<To> ntt_rebind(const NttStageArgs<From>& a) {
  const auto stride = [](uint32_t s) { return uint32_t(uint64_t(s) * sizeof(From) / sizeof(To)); };
  return {.src = a.src.view.template bitcast<To>(),
          .dst = a.dst.view.template bitcast<To>(),
          .tw = a.tw,
          .src_stride = stride(a.src_stride),
          .dst_stride = stride(a.dst_stride),
          .log_n = a.log_n,
          .stage = a.stage,
          .log_radix = a.log_radix,
          .log_src = a.log_src,
          .log_tw = a.log_tw,
          .inverse = a.inverse};
}
}  // namespace

NttStageArgs<Fp> ntt_vec_as_fp(const NttStageArgs<Fp4>& a) { return ntt_rebind<Fp>(a); }
NttStageArgs<Fp4> ntt_fp_as_vec(const NttStageArgs<Fp>& a) { return ntt_rebind<Fp4>(a); }

Grid NttStageVecFp::grid(const Args& a) {
  const Grid g = ntt_stage_grid(ntt_vec_as_fp(a));
  return {g.x / 4, g.y};
}

namespace {
// What both vector passes need beyond a register pass's rules.
std::string ntt_vec_problem(const NttStageArgs<Fp4>& a) {
  if (std::string p = ntt_stage_problem(ntt_vec_as_fp(a), 1, kNttMaxLogRadix); !p.empty()) return p;
  if (a.log_n < a.log_radix + 2)
    return fmt::format("2^{} groups: the vector pass takes 4 at a time", a.log_n - a.log_radix);
  if (a.log_src < 2) return fmt::format("log_src {}: the vector pass reads sources of at least 4 rows", a.log_src);
  if (a.src_stride >= (1u << 30) || a.dst_stride >= (1u << 30)) return "column strides of 2^30 entries or more";
  return {};
}
}  // namespace

namespace {
// A pass (stage, log_radix) of a transform of 2^log_n: what is wrong, or "".
std::string ntt_pass_problem(uint32_t log_n, uint32_t stage, uint32_t log_radix) {
  if (log_n > 31) return fmt::format("log_n {} above 31", log_n);
  if (log_radix < 1 || uint64_t(stage) + log_radix > log_n)
    return fmt::format("pass of radix 2^{} at stage {} of a transform of 2^{}", log_radix, stage, log_n);
  return {};
}
std::string ntt_mask_words(const View<uint32_t>& mask, uint32_t log_n, uint32_t log_radix) {
  const uint64_t words = (detail::pow2(log_n - log_radix) + 31) / 32;
  if (mask.count < words)
    return fmt::format("mask has {} words, {} needed for 2^{} groups", mask.count, words, log_n - log_radix);
  return {};
}
}  // namespace

// (ntt_vec_problem checks the pass without its mask: the rebinding to Fp entries drops it.)
std::string NttStageVecFp::check(const Args& a) {
  if (a.stage < 2) return fmt::format("stage {}: this vector pass is for stage 2 and above", a.stage);
  if (std::string p = ntt_vec_problem(a); !p.empty()) return p;
  return a.mask.count == 0 ? std::string() : ntt_mask_words(a.mask.views[0], a.log_n, a.log_radix);
}

std::string NttMarkRows::check(const Args& a) {
  if (std::string p = ntt_pass_problem(a.log_n, a.stage, a.log_radix); !p.empty()) return p;
  if (a.rows_per_query == 0) return "rows_per_query 0";
  if (uint64_t(a.rows_per_query - 1) * a.query_stride >= detail::pow2(a.log_n))
    return fmt::format("{} rows {} apart do not fit a transform of 2^{}", a.rows_per_query, a.query_stride, a.log_n);
  return first_of(ntt_mask_words(a.mask.view, a.log_n, a.log_radix),
                  grid_fits(a.idx.view.count * a.rows_per_query, "idx.count x rows_per_query"));
}

std::string NttMarkInputs::check(const Args& a) {
  if (std::string p = ntt_pass_problem(a.log_n, a.stage, a.log_radix); !p.empty()) return p;
  if (std::string p = ntt_pass_problem(a.log_n, a.stage + a.log_radix, a.next_log_radix); !p.empty())
    return "the next " + p;
  return first_of(ntt_mask_words(a.mask.view, a.log_n, a.log_radix),
                  ntt_mask_words(a.next_mask.view, a.log_n, a.next_log_radix));
}

std::string NttStageVec0Fp::check(const Args& a) {
  if (a.stage != 0) return fmt::format("stage {}: this vector pass is the one at stage 0", a.stage);
  if (a.mask.count != 0) return "a mask: the stage-0 pass takes none";
  if (a.log_radix < 2) return fmt::format("radix 2^{}: the stage-0 vector pass takes radix 4 or more", a.log_radix);
  return ntt_vec_problem(a);
}

std::string NttCopyPad::check(const Args& a) {
  if (a.dst_count == 0) return "dst_count 0: destination columns have at least one entry";
  if (std::string p = whole_columns(a.dst, "dst", a.dst_count, a.dst_stride); !p.empty()) return p;
  const uint64_t columns = detail::column_count(a.dst.view.count, a.dst_count, a.dst_stride);
  const uint64_t copied = std::min(a.src_count, a.dst_count);
  return first_of(count_at_least(a.src, "src", columns_extent(columns, copied, a.src_stride)),
                  grid_fits(a.dst.view.count, "dst.count"));
}

std::string NttRsMessage::check(const Args& a) {
  if (a.log_chunk > kNttMaxLogChunk) return fmt::format("log_chunk {} above {}", a.log_chunk, kNttMaxLogChunk);
  if (a.col_len == 0 || a.col_len % (1u << a.log_chunk) != 0)
    return fmt::format("col_len {} is not a positive multiple of the chunk length 2^{}", a.col_len, a.log_chunk);
  return first_of(whole_columns(a.data, "data", a.col_len, a.col_stride), grid_fits(a.data.view.count, "data.count"));
}

std::string NttRsMessageVec::check(const Args& a) {
  if (a.col_stride >= (1u << 30)) return fmt::format("col_stride {} entries of four: 2^30 or more", a.col_stride);
  return NttRsMessage::check(as_fp(a));
}

std::string NttRsMessageVecFrom::check(const Args& a) {
  if (a.src.view.count != a.dst.view.count)
    return fmt::format("src has {} entries and dst {}: the same columns expected", a.src.view.count, a.dst.view.count);
  if (a.src.view.buffer == a.dst.view.buffer && a.src.view.offset < a.dst.view.offset + a.dst.view.count &&
      a.dst.view.offset < a.src.view.offset + a.src.view.count)
    return "src and dst overlap (NttRsMessageVec works in place)";
  return NttRsMessageVec::check(on_dst(a));
}

template <class T>
std::string ntt_zeta_problem(const NttZetaArgs<T>& a) {
  if (a.num_bits < 1 || a.num_bits > kNttMaxLogRadix)
    return fmt::format("num_bits {} outside 1 .. {}", a.num_bits, kNttMaxLogRadix);
  if (a.log_n > 31 || uint64_t(a.bit_lo) + a.num_bits > a.log_n)
    return fmt::format("bits [{}, {}) of columns of 2^{} entries", a.bit_lo, uint64_t(a.bit_lo) + a.num_bits, a.log_n);
  return first_of(whole_columns(a.data, "data", uint64_t(1) << a.log_n, a.col_stride),
                  grid_fits(a.data.view.count, "data.count"));
}
template std::string ntt_zeta_problem(const NttZetaArgs<Fp>&);
template std::string ntt_zeta_problem(const NttZetaArgs<Fp4>&);

std::string NttTranspose::check(const Args& a) {
  const uint64_t count = uint64_t(a.rows) * a.cols;
  return first_of(grid_fits(count, "rows * cols"), count_is(a.src, "src", count), count_is(a.dst, "dst", count));
}

// ---------------------------------------------------------------------------------------------
// pcs.hpp

std::string StackColumns::check(const Args& a) {
  if (a.log_stride > a.log_slice || a.log_slice - a.log_stride > 31)
    return fmt::format("log_slice {} and log_stride {} give no trace height 2^(log_slice - log_stride) < 2^32",
                       a.log_slice, a.log_stride);
  if (a.log_stacked_height > 31) return fmt::format("log_stacked_height {} above 31", a.log_stacked_height);
  const uint64_t height = uint64_t(1) << (a.log_slice - a.log_stride);
  const uint64_t columns = a.src.view.count / height;
  if (a.src.view.count % height != 0)
    return fmt::format("src has {} elements, not whole columns of 2^{} rows", a.src.view.count,
                       a.log_slice - a.log_stride);
  if (columns == 0) return {};
  // Positions grow with the row and the column; with stacked columns apart by at least their
  // height, so do the destination indices: the last entry lands furthest.
  const uint64_t stacked = uint64_t(1) << a.log_stacked_height;
  const uint64_t last = a.start_row + ((columns - 1) << a.log_slice) + ((height - 1) << a.log_stride);
  const uint64_t last_col = a.start_col + (last >> a.log_stacked_height);
  if (last_col > 0 && a.dst_col_stride < stacked)
    return fmt::format("dst_col_stride {} is below the stacked height 2^{}", a.dst_col_stride, a.log_stacked_height);
  return first_of(grid_fits(columns, "src.count / height"),
                  count_at_least(a.dst, "dst", last_col * a.dst_col_stride + (last & (stacked - 1)) + 1));
}

// ---------------------------------------------------------------------------------------------
// transcript.hpp

namespace {
std::string bits_problem(uint32_t bits) {
  if (bits <= DuplexSponge::MAX_SAMPLE_BITS) return {};
  return fmt::format("bits {}: at most {} bits can be drawn from one BabyBear sample", bits,
                     DuplexSponge::MAX_SAMPLE_BITS);
}
template <class P>
std::string one_state(const P& t) {
  return count_is(t, "t", 1);
}
}  // namespace

std::string TranscriptObserve::check(const Args& a) { return one_state(a.t); }
std::string TranscriptSample::check(const Args& a) { return one_state(a.t); }
std::string TranscriptObserveSample::check(const Args& a) { return one_state(a.t); }
std::string TranscriptSampleBits::check(const Args& a) { return first_of(one_state(a.t), bits_problem(a.bits)); }
std::string TranscriptGrindSearch::check(const Args& a) {
  return first_of(one_state(a.t), count_is(a.best, "best", 1), bits_problem(a.bits));
}
std::string TranscriptGrindFinish::check(const Args& a) {
  return first_of(one_state(a.t), count_is(a.best, "best", 1), count_is(a.witness, "witness", 1), bits_problem(a.bits));
}

std::string TranscriptGrindCoop::check(const Args& a) {
  return first_of(one_state(a.t), count_is(a.witness, "witness", 1), bits_problem(a.bits));
}

// ---------------------------------------------------------------------------------------------
// program.hpp

// The code's words are not visible here (they are a buffer's contents): ProgramBuilder validates
// them (program_problem) before it dispatches, and both bodies stop at an invalid instruction.
std::string ScalarProgram::check(const Args& a) {
  if (a.code.view.count == 0) return "code is empty: a program has at least one instruction";
  if (a.code.view.count > kProgramMaxWords)
    return fmt::format("code has {} words, above the {} of one dispatch", a.code.view.count, kProgramMaxWords);
  if (std::string p = first_of(one_state(a.t), grid_fits(a.code.view.count, "code.count")); !p.empty()) return p;
  for (uint32_t k = 0; k < a.in.count; ++k)
    if (a.in.views[k].count > kU32Max)
      return fmt::format("in[{}] has {} words, above 2^32 - 1", k, a.in.views[k].count);
  for (uint32_t k = 0; k < a.out.count; ++k)
    if (a.out.views[k].count > kU32Max)
      return fmt::format("out[{}] has {} words, above 2^32 - 1", k, a.out.views[k].count);
  return {};
}

// ---------------------------------------------------------------------------------------------
// whir.hpp

std::string BatchColumnsExt::check(const Args& a) {
  const uint64_t n = a.acc.view.count;
  return first_of(grid_fits(n, "acc.count"), count_is(a.mu, "mu", 1),
                  a.width == 0 || n == 0
                      ? std::string()
                      : count_at_least(a.matrix, "matrix", uint64_t(a.width - 1) * a.col_stride + n));
}

std::string BatchColumnsExtVec::check(const Args& a) {
  if (a.acc.view.count % 4 != 0) return fmt::format("acc.count {} is not a multiple of 4", a.acc.view.count);
  if (a.col_stride >= (1u << 30)) return fmt::format("col_stride {} entries of four: 2^30 or more", a.col_stride);
  return BatchColumnsExt::check(as_fp(a));
}

namespace {
template <class Args>
std::string table_problem(const Args& a, std::string_view out_name, uint64_t out_count) {
  if (a.m > 31) return fmt::format("m {} above 31", a.m);
  if (out_count != uint64_t(1) << a.m)
    return fmt::format("{} has {} elements, 2^m = {} expected", out_name, out_count, uint64_t(1) << a.m);
  return {};
}
}  // namespace

std::string MobiusEqTable::check(const Args& a) {
  return first_of(table_problem(a, "out", a.out.view.count), count_at_least(a.u, "u", a.m));
}
std::string EqTable::check(const Args& a) {
  return first_of(table_problem(a, "out", a.out.view.count), count_at_least(a.u, "u", a.m));
}

std::string UCube::check(const Args& a) {
  if (a.u.view.count == 0) return count_is(a.cube, "cube", 0);
  return count_is(a.cube, "cube", a.l_skip + a.u.view.count - 1);
}

std::string SumcheckProductPartials::check(const Args& a) {
  if (a.partials.view.count % 2 != 0)
    return fmt::format("partials has {} elements, not pairs of sums", a.partials.view.count);
  const uint64_t parts = a.partials.view.count / 2;
  if (parts == 0 || parts > kSumcheckMaxPartials)
    return fmt::format("partials holds {} pairs of sums, 1 .. {} expected", parts, kSumcheckMaxPartials);
  return first_of(count_at_least(a.f, "f", 2 * uint64_t(a.pairs)), count_at_least(a.w, "w", 2 * uint64_t(a.pairs)));
}

std::string ReduceFp4::check(const Args& a) {
  if (a.width == 0) return "width 0: at least one value per group";
  if (a.out.view.count % a.width != 0)
    return fmt::format("out has {} elements, not whole groups of width {}", a.out.view.count, a.width);
  return first_of(grid_fits(a.out.view.count, "out.count"), count_at_least(a.in, "in", uint64_t(a.n) * a.width));
}

std::string FoldPairsFp4::check(const Args& a) {
  return first_of(grid_fits(a.dst.view.count, "dst.count"), count_is(a.src, "src", 2 * a.dst.view.count),
                  count_is(a.alpha, "alpha", 1));
}

std::string FoldPairs2Fp4::check(const Args& a) {
  const uint64_t n = a.f_dst.view.count;
  return first_of(grid_fits(n, "f_dst.count"), count_is(a.w_dst, "w_dst", n), count_is(a.f, "f", 2 * n),
                  count_is(a.w, "w", 2 * n), count_is(a.alpha, "alpha", 1));
}

std::string EvalPolyPartials::check(const Args& a) {
  return first_of(grid_fits(a.partials.view.count, "partials.count"), count_at_least(a.coeffs, "coeffs", a.n),
                  count_is(a.z, "z", 1));
}

std::string QueryPoints::check(const Args& a) {
  if (a.log_domain > Fp::TWO_ADICITY)
    return fmt::format("log_domain {}: BabyBear has roots of unity of order up to 2^{}", a.log_domain, Fp::TWO_ADICITY);
  return first_of(grid_fits(a.points.view.count, "points.count"), count_is(a.idx, "idx", a.points.view.count));
}

std::string EqPowAccumulate::check(const Args& a) {
  return first_of(table_problem(a, "w", a.w.view.count), count_is(a.gamma, "gamma", 1));
}

// ---------------------------------------------------------------------------------------------
// gkr.hpp

std::string GkrFractionLayers::check(const Args& a) {
  const uint64_t n = a.p_in.view.count / 2;
  if (a.p_in.view.count % 2 != 0 || n == 0 || (n & (n - 1)) != 0 || n > (uint64_t(1) << 30))
    return fmt::format("p_in has {} elements, 2n nodes with n a power of two in 1 .. 2^30 expected", a.p_in.view.count);
  if (a.layers == 0 || a.layers > kGkrMaxFusedLayers)
    return fmt::format("layers {}: 1 .. {} layers per dispatch", a.layers, kGkrMaxFusedLayers);
  if ((n >> (a.layers - 1)) == 0)
    return fmt::format("layers {} above a layer of {} nodes: the last layer would be empty", a.layers, 2 * n);
  const uint64_t out = 2 * n - (n >> (a.layers - 1));
  return first_of(count_is(a.q_in, "q_in", 2 * n), count_is(a.p_out, "p_out", out), count_is(a.q_out, "q_out", out));
}

std::string EqSuffixTables::check(const Args& a) {
  if (a.n > 30) return fmt::format("n {} above 30", a.n);
  return first_of(count_is(a.u, "u", a.n), count_is(a.out, "out", (uint64_t(2) << a.n) - 1));
}

namespace {
// The pairs and partials shared by the two GKR partials kernels; `per_pair` entries of p and q.
template <class Args>
std::string gkr_partials_problem(const Args& a, uint64_t per_pair) {
  if (a.partials.view.count % 3 != 0)
    return fmt::format("partials has {} elements, not triples of sums", a.partials.view.count);
  const uint64_t parts = a.partials.view.count / 3;
  if (parts == 0 || parts > kSumcheckMaxPartials)
    return fmt::format("partials holds {} triples of sums, 1 .. {} expected", parts, kSumcheckMaxPartials);
  if (a.pairs > (1u << 28)) return fmt::format("pairs {} above 2^28", a.pairs);
  return first_of(count_is(a.p, "p", per_pair * a.pairs), count_is(a.q, "q", per_pair * a.pairs),
                  count_is(a.eq, "eq", a.pairs), count_is(a.lambda, "lambda", 1));
}
}  // namespace

std::string GkrSumcheckPartials::check(const Args& a) { return gkr_partials_problem(a, 4); }

std::string GkrFoldSumcheckPartials::check(const Args& a) {
  return first_of(gkr_partials_problem(a, 8), count_is(a.rho, "rho", 1),
                  count_is(a.p_dst, "p_dst", 4 * uint64_t(a.pairs)), count_is(a.q_dst, "q_dst", 4 * uint64_t(a.pairs)));
}

// ---------------------------------------------------------------------------------------------
// stacked_reduction.hpp

namespace {
// "" when l_skip is in the supported range (protocol.md 3: 0 .. 10).
std::string l_skip_problem(uint32_t l_skip) {
  if (l_skip <= 10) return {};
  return fmt::format("l_skip {} above 10", l_skip);
}
// "" when a view's entries can be indexed with 32-bit offsets, as the GLSL bodies do, with room for
// their strided loops to step past the end without wrapping (2^31 entries at most).
template <class P>
std::string indexable(const P& p, std::string_view name) {
  if (p.view.count <= (uint64_t(1) << 31)) return {};
  return fmt::format("{} has {} elements, more than 2^31", name, p.view.count);
}
}  // namespace

std::string StackedSliceWeights::check(const Args& a) {
  return first_of(count_is(a.lambda, "lambda", 1), indexable(a.weights, "weights"),
                  count_is(a.weights, "weights", 2 * a.rot.view.count));
}

std::string StackedRound0SliceSums::check(const Args& a) {
  if (auto p = l_skip_problem(a.l_skip); !p.empty()) return p;
  if (a.log_chunks > 24) return fmt::format("log_chunks {} above 24", a.log_chunks);
  if (a.log_parts > a.log_chunks)
    return fmt::format("log_parts {} above log_chunks {}: more parts than chunks", a.log_parts, a.log_chunks);
  const uint64_t group = uint64_t(2) << (a.l_skip + a.log_parts);
  if (a.sums.view.count == 0 || a.sums.view.count % group != 0)
    return fmt::format("sums has {} elements, not whole slices of 2 * 2^(l_skip + log_parts) = {}", a.sums.view.count,
                       group);
  if (auto p = indexable(a.sums, "sums"); !p.empty()) return p;
  const uint64_t slices = a.sums.view.count / group;
  return first_of(count_is(a.eq, "eq", uint64_t(1) << a.log_chunks),
                  count_is(a.trace, "trace", slices << (a.log_chunks + a.l_skip)), indexable(a.trace, "trace"),
                  grid_fits(a.sums.view.count / 2, "sums.count / 2"));
}

std::string StackedRound0Weigh::check(const Args& a) {
  if (auto p = l_skip_problem(a.l_skip); !p.empty()) return p;
  if (a.log_parts > 24) return fmt::format("log_parts {} above 24", a.log_parts);
  const uint64_t n = uint64_t(1) << a.l_skip, group = 2 * n << a.log_parts;
  if (a.sums.view.count == 0 || a.sums.view.count % group != 0)
    return fmt::format("sums has {} elements, not whole slices of 2 * 2^(l_skip + log_parts) = {}", a.sums.view.count,
                       group);
  if (a.partials.view.count == 0 || a.partials.view.count % (3 * n) != 0)
    return fmt::format("partials has {} elements, not whole groups of 3 * 2^l_skip = {}", a.partials.view.count, 3 * n);
  return first_of(count_is(a.weights, "weights", 2 * (a.sums.view.count / group)), indexable(a.sums, "sums"),
                  indexable(a.partials, "partials"));
}

std::string StackedRound0Sums::check(const Args& a) {
  if (auto p = l_skip_problem(a.l_skip); !p.empty()) return p;
  const uint64_t three_n = 3 * (uint64_t(1) << a.l_skip);
  if (a.partials.view.count == 0 || a.partials.view.count % three_n != 0)
    return fmt::format("partials has {} elements, not whole groups of 3 * 2^l_skip = {}", a.partials.view.count,
                       three_n);
  return first_of(count_is(a.sums, "sums", three_n), indexable(a.partials, "partials"));
}

std::string StackedRound0Poly::check(const Args& a) {
  if (auto p = l_skip_problem(a.l_skip); !p.empty()) return p;
  const uint64_t n = uint64_t(1) << a.l_skip;
  if (a.classes.view.count == 0) return "classes is empty: at least one trace height";
  return first_of(count_at_least(a.r, "r", 1), count_is(a.sums, "sums", 3 * n * a.classes.view.count),
                  count_is(a.coeffs, "coeffs", 2 * n - 1), indexable(a.sums, "sums"));
}

std::string StackedFoldWeights::check(const Args& a) {
  if (auto p = l_skip_problem(a.l_skip); !p.empty()) return p;
  return first_of(count_is(a.z, "z", 1), count_is(a.out, "out", uint64_t(1) << a.l_skip));
}

std::string StackedFoldChunks::check(const Args& a) {
  if (a.weights.view.count == 0) return "weights is empty";
  return first_of(grid_fits(a.out.view.count, "out.count"), indexable(a.message, "message"),
                  count_is(a.message, "message", a.out.view.count * a.weights.view.count));
}

std::string StackedSliceCoeffs::check(const Args& a) {
  if (auto p = l_skip_problem(a.l_skip); !p.empty()) return p;
  const uint64_t pairs = 2 * a.log_heights.view.count;
  return first_of(count_at_least(a.r, "r", 1), count_at_least(a.u, "u", 1), count_is(a.weights, "weights", pairs),
                  count_is(a.coeffs, "coeffs", pairs), indexable(a.coeffs, "coeffs"));
}

std::string StackedKernelTable::check(const Args& a) {
  if (a.log_chunks > 24) return fmt::format("log_chunks {} above 24", a.log_chunks);
  if (a.coeffs.view.count % 2 != 0)
    return fmt::format("coeffs has {} elements, not one pair per slice", a.coeffs.view.count);
  return first_of(count_is(a.eq, "eq", uint64_t(1) << a.log_chunks),
                  count_is(a.table, "table", a.coeffs.view.count / 2 << a.log_chunks),
                  grid_fits(a.table.view.count, "table.count"));
}

std::string StackedFoldPartials::check(const Args& a) {
  if (a.partials.view.count % 2 != 0)
    return fmt::format("partials has {} elements, not pairs of sums", a.partials.view.count);
  const uint64_t parts = a.partials.view.count / 2;
  if (parts == 0 || parts > kSumcheckMaxPartials)
    return fmt::format("partials holds {} pairs of sums, 1 .. {} expected", parts, kSumcheckMaxPartials);
  if (a.pairs > (1u << 28)) return fmt::format("pairs {} above 2^28", a.pairs);
  const uint64_t half = 2 * uint64_t(a.pairs);
  return first_of(count_is(a.f, "f", 2 * half), count_is(a.w, "w", 2 * half), count_is(a.f_dst, "f_dst", half),
                  count_is(a.w_dst, "w_dst", half), count_is(a.alpha, "alpha", 1));
}

// ---------------------------------------------------------------------------------------------
// mle_tables.hpp

std::string EqUniWeights::check(const Args& a) {
  if (a.log_n > 27) return fmt::format("log_n {} above 27 (the two-adicity)", a.log_n);
  return first_of(count_is(a.r, "r", 1), count_is(a.out, "out", uint64_t(1) << a.log_n),
                  count_is(a.roots, "roots", uint64_t(1) << a.log_n));
}

std::string PleFoldColumns::check(const Args& a) {
  if (a.log_height > 30 || a.log_n > 27)
    return fmt::format("log_height {} or log_n {} too large", a.log_height, a.log_n);
  if (a.shift > 1) return fmt::format("shift {} is not 0 or 1", a.shift);
  const uint64_t h = uint64_t(1) << a.log_height;
  const uint64_t all = a.log_height > a.log_n ? h >> a.log_n : 1;
  if (a.log_chunks > 30 || (uint64_t(1) << a.log_chunks) > all || a.first_chunk + (uint64_t(1) << a.log_chunks) > all)
    return fmt::format("chunks [{}, {} + 2^{}) are not among the trace's {}", a.first_chunk, a.first_chunk,
                       a.log_chunks, all);
  const uint64_t chunks = uint64_t(1) << a.log_chunks;
  if (a.out.view.count % chunks != 0)
    return fmt::format("out has {} values, not whole columns of {} chunks", a.out.view.count, chunks);
  return first_of(grid_fits(a.out.view.count, "out.count"), count_is(a.weights, "weights", uint64_t(1) << a.log_n),
                  count_is(a.in, "in", a.out.view.count / chunks * h), indexable(a.in, "in"));
}

// ---------------------------------------------------------------------------------------------
// batch_constraint.hpp

namespace {
// N = 2^log_n: the extension's N x N weights and the interpolation's C N x C N matrix are dense.
std::string zerocheck_log_n_problem(uint32_t log_n) {
  if (log_n <= 10) return {};
  return fmt::format("log_n {} above 10 (l_skip's range)", log_n);
}
}  // namespace

std::string ZerocheckCosetExtend::check(const Args& a) {
  if (auto p = zerocheck_log_n_problem(a.log_n); !p.empty()) return p;
  if (a.log_height > 30) return fmt::format("log_height {} above 30", a.log_height);
  if (a.shift > 1) return fmt::format("shift {} is not 0 or 1", a.shift);
  const uint64_t h = uint64_t(1) << a.log_height, n = uint64_t(1) << a.log_n;
  const uint64_t chunks = std::max<uint64_t>(h >> a.log_n, 1);
  if (a.log_chunks > 30 || (uint64_t(1) << a.log_chunks) > chunks ||
      a.first_chunk + (uint64_t(1) << a.log_chunks) > chunks)
    return fmt::format("chunks [{}, {} + 2^{}) are not among the trace's {}", a.first_chunk, a.first_chunk,
                       a.log_chunks, chunks);
  const uint64_t m = n << a.log_chunks;  // N B points per column
  if (a.out.view.count % m != 0)
    return fmt::format("out has {} values, not whole columns of N B = {} points", a.out.view.count, m);
  if (a.fft.view.count != 0 &&
      (a.log_n != ZerocheckCosetExtend::kFftLogN || a.fft.view.count != ZerocheckCosetExtend::kFftTable))
    return fmt::format("fft has {} elements: {} for N = 16, else none", a.fft.view.count,
                       ZerocheckCosetExtend::kFftTable);
  return first_of(indexable(a.out, "out"), count_is(a.weights, "weights", n * n),
                  count_is(a.in, "in", a.out.view.count / m * h), indexable(a.in, "in"));
}

std::string ZerocheckWeightedSums::check(const Args& a) {
  if (a.n == 0 || a.n > 1024) return fmt::format("n {} is not in 1..1024", a.n);
  if (a.present >= (1u << kZerocheckFunctionals))
    return fmt::format("present {:#x} names a functional past the {}", a.present, kZerocheckFunctionals);
  const uint64_t group = uint64_t(kZerocheckFunctionals) * a.n;
  if (a.partials.view.count == 0 || a.partials.view.count % group != 0)
    return fmt::format("partials has {} elements, not whole groups of 3 N = {} (at least one)", a.partials.view.count,
                       group);
  if (a.partials.view.count / group > 1024)
    return fmt::format("partials holds {} sums per value, at most 1024", a.partials.view.count / group);
  if (a.eq.view.count == 0) return "eq is empty: one weight per chunk, at least one";
  if (a.slices == 0 || a.slices > kZerocheckMaxSlices)
    return fmt::format("slices {} is not in 1..{}", a.slices, kZerocheckMaxSlices);
  return first_of(count_is(a.values, "values", a.eq.view.count * group * a.slices), indexable(a.values, "values"));
}

std::string ZerocheckInterpolate::check(const Args& a) {
  if (auto p = zerocheck_log_n_problem(a.log_n); !p.empty()) return p;
  if (a.scale.view.count == 0 || a.scale.view.count % kZerocheckFunctionals != 0)
    return fmt::format("scale has {} elements, not one per functional and coset (at least one coset)",
                       a.scale.view.count);
  if (a.rows == 0) return "rows 0: at least one partial sum per value";
  const uint64_t cosets = a.scale.view.count / kZerocheckFunctionals, kk = cosets << a.log_n;
  if (kk > 8192) return fmt::format("{} points (cosets x N), at most 8192", kk);
  return first_of(count_is(a.coeffs, "coeffs", kZerocheckFunctionals * kk), count_is(a.matrix, "matrix", kk * kk),
                  count_is(a.partials, "partials", cosets * a.rows * (uint64_t(kZerocheckFunctionals) << a.log_n)),
                  indexable(a.partials, "partials"));
}

std::string ZerocheckRound0Polys::check(const Args& a) {
  if (auto p = zerocheck_log_n_problem(a.log_n); !p.empty()) return p;
  if (a.trace_degree > 255) return fmt::format("trace_degree {} above 255 (the vk's u8)", a.trace_degree);
  const uint64_t n = uint64_t(1) << a.log_n;
  if (a.coeffs.view.count == 0 || a.coeffs.view.count % (kZerocheckFunctionals * n) != 0)
    return fmt::format("coeffs has {} elements, not 3 polynomials of whole cosets of N = {} values",
                       a.coeffs.view.count, n);
  if (a.polys.view.count == 0 || a.polys.view.count % kZerocheckFunctionals != 0)
    return fmt::format("polys has {} elements, not 3 polynomials (at least one coefficient)", a.polys.view.count);
  return first_of(count_is(a.eq_polys, "eq_polys", 2 * n), indexable(a.polys, "polys"));
}

std::string ZerocheckEqPolys::check(const Args& a) {
  if (auto p = zerocheck_log_n_problem(a.log_n); !p.empty()) return p;
  const uint64_t n = uint64_t(1) << a.log_n;
  return first_of(count_at_least(a.xi, "xi", a.log_n), count_is(a.inv_roots, "inv_roots", n),
                  count_is(a.out, "out", 2 * n));
}

std::string ZerocheckBatchRound0::check(const Args& a) {
  const uint64_t len = a.coeffs.view.count;
  if (len == 0) return "coeffs is empty";
  if (a.polys.view.count == 0 || a.polys.view.count % (3 * len) != 0)
    return fmt::format("polys has {} elements, not 3 polynomials of {} coefficients per trace (at least one trace)",
                       a.polys.view.count, len);
  return first_of(count_is(a.mu, "mu", 1), indexable(a.polys, "polys"));
}

}  // namespace vkstark
