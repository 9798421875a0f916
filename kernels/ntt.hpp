// NTT kernel family (protocol.md 1.2, 6.3, 11.2, 14.1): twiddle table, batched Stockham radix-2^r
// passes over Fp and Fp4 columns (base-field roots), zero-padded copies, the RS message of PLE
// chunks, subset-zeta / Möbius passes and the row-major <-> column-major transpose. The graph
// builder that strings these together is stages/common/ntt.hpp; the host reference is kernels/field/dft.hpp.
//
// Columns: a batch of grid.y columns, column c of a view starting at element c * <stride> of it; the
// view of the columns a kernel writes holds exactly them (the last column ends the view), so the
// view gives grid.y. Every kernel is a pure function of its inputs, so CPU and GLSL bodies give
// identical bits.
#pragma once

#include "kernels/detail/grid.hpp"
#include "kernels/types.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// The largest radix of one NttStageFp pass: 2^kNttMaxLogRadix elements per invocation, in registers.
inline constexpr uint32_t kNttMaxLogRadix = 4;
// The largest radix of one NttStageSharedFp pass: 2^kNttMaxSharedLogRadix elements per group,
// transformed by a workgroup in shared memory.
inline constexpr uint32_t kNttMaxSharedLogRadix = 8;
// Shared-memory capacity of the shared passes, in elements: 8 KiB of Fp, 16 KiB of Fp4 (every
// Vulkan device has at least 16 KiB). A pass holds 2^(log_radix + log_tile) elements.
inline constexpr uint32_t kNttSharedCapacityFp = 2048;
inline constexpr uint32_t kNttSharedCapacityFp4 = 1024;
// A shared pass launches grid.x = tiles * <kernel>::workgroup_size invocations: one workgroup per
// tile when the device grants the preferred size. The kernels are correct for any workgroup size:
// a workgroup loops over tiles, and workgroups beyond the last tile do nothing.

// tw[t] = omega_N^t for t < grid.x = tw.count = max(1, N/2), N = 2^log_n <= 2^27
// (omega_N = two_adic_generator(log_n)). One table of the largest size serves every transform of
// size 2^k <= N: omega_{2^k} = omega_N^(N/2^k); the exponents N/2 .. N-1 are -tw[e - N/2].
struct NttTwiddles {
  static constexpr std::string_view name = "ntt_twiddles";
  struct Args {
    Out<Fp> tw;
    uint32_t log_n = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.tw.view.count)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// One Stockham autosort pass of a DFT of size n = 2^log_n (decimation in frequency, natural order
// in and out, out of place): radix-2 stages [stage, stage + log_radix) at once. With s = 2^stage,
// R = 2^log_radix and m = n / (s R), invocation i < grid.x = n / R (q = i mod s, p = i / s) of
// column c = grid.y index reads a_j = src[c][i + j n/R], j < R, and writes
//   dst[c][q + s (R p + k)] = omega_{n/s}^(p k) * sum_j a_j omega_R^(j k),   k < R.
// Inverse passes use omega^-1; the pass that ends at stage log_n then multiplies by n^-1.
// Zero padding: source rows at or beyond 2^log_src read as 0 (log_src <= log_n; the first pass of a
// zero-padded transform reads the short source columns directly).
// Twiddles: tw is the NttTwiddles table of 2^log_tw (log_tw >= log_n).
// Columns: dst holds exactly grid.y columns of n entries, dst_stride apart; src, grid.y columns of
// (at least) 2^log_src entries, src_stride apart.
// Args of a Stockham pass on columns of T (Fp or Fp4); the twiddles are base-field roots.
template <class T>
struct NttStageArgs {
  In<T> src;
  Out<T> dst;
  In<Fp> tw;
  uint32_t src_stride = 0;
  uint32_t dst_stride = 0;
  uint32_t log_n = 0;
  uint32_t stage = 0;
  uint32_t log_radix = 1;  // 1 .. kNttMaxLogRadix (shared passes: 2 .. kNttMaxSharedLogRadix)
  uint32_t log_src = 0;
  uint32_t log_tw = 0;
  uint32_t inverse = 0;  // 0 | 1
  // NttStageVecFp only (the others refuse one): a bitmap over the pass's groups (bit g of word g / 32);
  // its invocations whose four groups are all clear do nothing, their outputs are left as they were.
  // For the rows that openings read of a codeword made again (Ntt::forward_rows, NttMarkRows).
  InArray<uint32_t, 1> mask{};
};

// The grid of a register pass: n / R groups of each column.
template <class T>
Grid ntt_stage_grid(const NttStageArgs<T>& a) {
  const uint32_t lr = a.log_radix <= a.log_n ? a.log_radix : a.log_n;
  return {detail::grid_dim(detail::pow2(a.log_n - lr)),
          detail::column_count(a.dst.view.count, detail::pow2(a.log_n), a.dst_stride)};
}
// What is wrong with a Stockham pass of radix 2^min_log_radix .. 2^max_log_radix ("" if nothing).
template <class T>
std::string ntt_stage_problem(const NttStageArgs<T>& a, uint32_t min_log_radix, uint32_t max_log_radix);

struct NttStageFp {
  static constexpr std::string_view name = "ntt_stage_fp";
  using Args = NttStageArgs<Fp>;
  static Grid grid(const Args& a) { return ntt_stage_grid(a); }
  static std::string check(const Args& a) { return ntt_stage_problem(a, 1, kNttMaxLogRadix); }
  static void cpu(const Args& a, const CpuContext& ctx);
};

// NttStageFp on extension-field columns (base-field roots of unity): WHIR codewords.
struct NttStageFp4 {
  static constexpr std::string_view name = "ntt_stage_fp4";
  using Args = NttStageArgs<Fp4>;
  static Grid grid(const Args& a) { return ntt_stage_grid(a); }
  static std::string check(const Args& a) { return ntt_stage_problem(a, 1, kNttMaxLogRadix); }
  static void cpu(const Args& a, const CpuContext& ctx);
};

// NttStageFp with a radix R = 2^log_radix of 2^2 .. 2^kNttMaxSharedLogRadix: the same map,
// computed by workgroups that each take a tile of 2^log_tile consecutive groups i (so that loads and
// stores touch runs of 2^log_tile consecutive entries) and do the R-point DFTs as two radix <= 16
// register sub-passes that exchange through shared memory (2^(log_radix + log_tile) entries).
// grid.x = tiles * workgroup_size with tiles = n / 2^(log_radix + log_tile); the CPU body computes
// the same map.
// Args of a shared-memory Stockham pass: NttStageArgs plus the tile size.
template <class T>
struct NttStageSharedArgs {
  In<T> src;
  Out<T> dst;
  In<Fp> tw;
  uint32_t src_stride = 0;
  uint32_t dst_stride = 0;
  uint32_t log_n = 0;
  uint32_t stage = 0;
  uint32_t log_radix = 2;  // 2 .. kNttMaxSharedLogRadix
  uint32_t log_src = 0;
  uint32_t log_tw = 0;
  uint32_t inverse = 0;
  uint32_t log_tile = 0;  // 2^(log_radix + log_tile) <= the kernel's shared capacity
};

// The grid of a shared pass: one workgroup of the kernel's preferred size per tile, per column.
template <class T>
Grid ntt_shared_grid(const NttStageSharedArgs<T>& a, uint32_t workgroup_size) {
  const uint64_t tile_log = uint64_t(a.log_radix) + a.log_tile;
  const uint64_t tiles = tile_log <= a.log_n ? detail::pow2(a.log_n - tile_log) : 0;
  return {detail::grid_dim(tiles * workgroup_size),
          detail::column_count(a.dst.view.count, detail::pow2(a.log_n), a.dst_stride)};
}
// What is wrong with a shared pass whose tiles of 2^(log_radix + log_tile) entries must fit
// `capacity` entries of shared memory ("" if nothing).
template <class T>
std::string ntt_shared_problem(const NttStageSharedArgs<T>& a, uint32_t capacity);

struct NttStageSharedFp {
  static constexpr std::string_view name = "ntt_stage_shared_fp";
  static constexpr uint32_t workgroup_size = 128;  // 2048 entries: 16 per invocation and sub-pass
  static constexpr KernelConstant constants[] = {{"NTT_SHARED_CAPACITY", kNttSharedCapacityFp}};
  using Args = NttStageSharedArgs<Fp>;
  static Grid grid(const Args& a) { return ntt_shared_grid(a, workgroup_size); }
  static std::string check(const Args& a) { return ntt_shared_problem(a, kNttSharedCapacityFp); }
  static void cpu(const Args& a, const CpuContext& ctx);
};

struct NttStageSharedFp4 {
  static constexpr std::string_view name = "ntt_stage_shared_fp4";
  static constexpr uint32_t workgroup_size = 64;  // 1024 entries: 16 per invocation and sub-pass
  static constexpr KernelConstant constants[] = {{"NTT_SHARED_CAPACITY", kNttSharedCapacityFp4}};
  using Args = NttStageSharedArgs<Fp4>;
  static Grid grid(const Args& a) { return ntt_shared_grid(a, workgroup_size); }
  static std::string check(const Args& a) { return ntt_shared_problem(a, kNttSharedCapacityFp4); }
  static void cpu(const Args& a, const CpuContext& ctx);
};

// NttStageFp with 16-byte global accesses: the same map on Fp columns bound as entries of four
// consecutive Fp (the Fp4-typed views are those columns bitcast; src_stride and dst_stride count
// such entries; log_n, stage and log_src count Fp). Invocation i4 < grid.x = n / (4 R) does the
// groups 4 i4 .. 4 i4 + 3, one in each lane of a uvec4: a row of the four is one read, and their
// outputs at one k are one write (stage >= 2); at stage 0 (NttStageVec0Fp) each group's R
// consecutive outputs are R/4 entries. On the H200, 4-byte accesses move 1.97 TB/s and 16-byte
// ones 4.10 (kernel_bench). Needs at least 4 groups (log_n - log_radix >= 2), sources of at least
// 4 rows (log_src >= 2), and stage 0 with log_radix >= 2, or stage >= 2.
// ntt_vec_as_fp: the base-field view of its arguments (for its check, grid and CPU body);
// ntt_fp_as_vec: the other way (views in whole runs of four, strides multiples of 4).
NttStageArgs<Fp> ntt_vec_as_fp(const NttStageArgs<Fp4>& a);
NttStageArgs<Fp4> ntt_fp_as_vec(const NttStageArgs<Fp>& a);

struct NttStageVecFp {  // stage >= 2
  static constexpr std::string_view name = "ntt_stage_vec_fp";
  using Args = NttStageArgs<Fp4>;
  static Grid grid(const Args& a);
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// NttStageVecFp at stage 0: a workgroup stages its outputs in shared memory (16 entries of 16
// bytes an invocation, 16 KiB) and stores them as one run. A kernel of its own, so that the passes
// at later stages pay neither its registers nor its shared memory.
struct NttStageVec0Fp {
  static constexpr std::string_view name = "ntt_stage_vec0_fp";
  static constexpr uint32_t workgroup_size = 64;
  static constexpr KernelConstant constants[] = {{"NTT_VEC_OUT_CAPACITY", workgroup_size * 16}};
  using Args = NttStageArgs<Fp4>;
  static Grid grid(const Args& a) { return NttStageVecFp::grid(a); }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// The marks of a masked transform (NttStageArgs::mask). A pass of radix R = 2^log_radix at `stage`
// (s = 2^stage) of a transform of size n = 2^log_n has n / R groups; group g reads rows
// g + j n / R (j < R) of its source and writes rows x = (g mod s) + s k + s R (g div s) (k < R), so
// output row x comes from group (x mod s) + s (x div (s R)).
//
// NttMarkRows: sets in `mask` the groups of pass (stage, log_radix) that write rows
// idx[q] + t query_stride, for q < idx.count, t < rows_per_query (grid.x = idx.count rows_per_query):
// the rows of an opening's leaf groups (GatherRows).
struct NttMarkRows {
  static constexpr std::string_view name = "ntt_mark_rows";
  struct Args {
    In<uint32_t> idx;
    InOut<uint32_t> mask;
    uint32_t rows_per_query = 0;
    uint32_t query_stride = 0;
    uint32_t log_n = 0;
    uint32_t stage = 0;
    uint32_t log_radix = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.idx.view.count * a.rows_per_query)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// NttMarkInputs: sets in `mask` the groups of pass (stage, log_radix) that write the rows that the
// groups marked in `next_mask` of the next pass (stage + log_radix, next_log_radix) read. grid.x =
// the next pass's groups, 2^(log_n - next_log_radix).
struct NttMarkInputs {
  static constexpr std::string_view name = "ntt_mark_inputs";
  struct Args {
    In<uint32_t> next_mask;
    InOut<uint32_t> mask;
    uint32_t log_n = 0;
    uint32_t stage = 0;
    uint32_t log_radix = 0;
    uint32_t next_log_radix = 0;
  };
  static Grid grid(const Args& a) {
    return {a.next_log_radix <= a.log_n ? detail::grid_dim(detail::pow2(a.log_n - a.next_log_radix)) : 0u};
  }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// Zero-padded strided copy of 32-bit words: for i < grid.x = dst_count (the destination column
// length) and column c = grid.y index, dst[c * dst_stride + i] = i < src_count ? src[c * src_stride + i] : 0.
// Fp and Fp4 columns go through bitcast<uint32_t>() views (Fp4: lengths and strides times 4).
struct NttCopyPad {
  static constexpr std::string_view name = "ntt_copy_pad";
  struct Args {
    In<uint32_t> src;
    Out<uint32_t> dst;
    uint32_t src_stride = 0;
    uint32_t dst_stride = 0;
    uint32_t src_count = 0;  // (not src_len: GLSL names each view's length <view>_len)
    uint32_t dst_count = 0;
  };
  static Grid grid(const Args& a) {
    return {a.dst_count, detail::column_count(a.dst.view.count, a.dst_count, a.dst_stride)};
  }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// RS message of PLE chunks (protocol.md 6.3 step 1), in place: for chunk i < grid.x =
// col_len / 2^log_chunk of column c = grid.y index, the 2^log_chunk entries at
// data[c * col_stride + i 2^log_chunk ...] become subset-zeta(iDFT_{2^log_chunk}(chunk)) over the
// log_chunk index bits. inverse = 1 computes the inverse map: subset-Möbius then DFT.
// log_chunk <= kNttMaxLogChunk; col_len is a multiple of 2^log_chunk.
inline constexpr uint32_t kNttMaxLogChunk = 10;
struct NttRsMessage {
  static constexpr std::string_view name = "ntt_rs_message";
  static constexpr uint32_t workgroup_size = 128;  // the GLSL body stages up to 128 chunks of 16
  static constexpr KernelConstant constants[] = {{"WG", workgroup_size}};
  struct Args {
    InOut<Fp> data;
    uint32_t log_chunk = 0;
    uint32_t col_len = 0;
    uint32_t col_stride = 0;
    uint32_t inverse = 0;
  };
  static Grid grid(const Args& a) {
    const uint32_t chunks = a.log_chunk < 32 ? a.col_len >> a.log_chunk : 0;
    return {chunks, detail::column_count(a.data.view.count, a.col_len, a.col_stride)};
  }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// NttRsMessage for chunks of 16 entries (log_chunk = 4, the l_skip of the keccakf and zkVM
// parameters) of Fp columns bound as entries of four consecutive Fp: the Fp4-typed view is those
// columns bitcast, col_stride counts such entries, col_len counts Fp. A workgroup copies its chunks
// between global and shared memory 16 bytes at a time (NttRsMessage: 4), then each invocation
// transforms its chunk in registers. The same map; grid.x = col_len / 16 chunks.
struct NttRsMessageVec {
  static constexpr std::string_view name = "ntt_rs_message_vec";
  static constexpr uint32_t workgroup_size = 128;  // 128 chunks: 10 KiB of shared memory with the pads
  static constexpr KernelConstant constants[] = {{"WG", workgroup_size}};
  struct Args {
    InOut<Fp4> data;
    uint32_t col_len = 0;
    uint32_t col_stride = 0;
    uint32_t inverse = 0;
  };
  // Its NttRsMessage arguments (for the grid, the check and the CPU body).
  static NttRsMessage::Args as_fp(const Args& a) {
    return {.data = a.data.view.bitcast<Fp>(),
            .log_chunk = 4,
            .col_len = a.col_len,
            .col_stride = a.col_stride * 4,
            .inverse = a.inverse};
  }
  static Grid grid(const Args& a) { return NttRsMessage::grid(as_fp(a)); }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx) { NttRsMessage::cpu(as_fp(a), ctx); }
};

// NttRsMessageVec from `src` into `dst` (columns at the same col_stride, in uvec4 entries), leaving
// the source as it was: what a copy and NttRsMessageVec on the copy give, with one read and one
// write of the columns instead of two each. src and dst must not overlap.
struct NttRsMessageVecFrom {
  static constexpr std::string_view name = "ntt_rs_message_vec_from";
  static constexpr uint32_t workgroup_size = 128;
  static constexpr KernelConstant constants[] = {{"WG", workgroup_size}};
  struct Args {
    In<Fp4> src;
    Out<Fp4> dst;
    uint32_t col_len = 0;
    uint32_t col_stride = 0;
    uint32_t inverse = 0;
  };
  // Its NttRsMessageVec arguments on dst (for the grid and the check).
  static NttRsMessageVec::Args on_dst(const Args& a) {
    return {.data = a.dst.view, .col_len = a.col_len, .col_stride = a.col_stride, .inverse = a.inverse};
  }
  static Grid grid(const Args& a) { return NttRsMessageVec::grid(on_dst(a)); }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// Subset-zeta (mobius = 0) or Möbius (mobius = 1) transform over the index bits
// [bit_lo, bit_lo + num_bits) of columns of 2^log_n entries, in place. Invocation g < grid.x =
// 2^(log_n - num_bits) of column c = grid.y index owns the 2^num_bits entries whose other index
// bits spell g, and applies, bit by bit, a[v] += a[v - 2^b] (Möbius: -=) for v with bit b set.
// 1 <= num_bits <= kNttMaxLogRadix, bit_lo + num_bits <= log_n.
template <class T>
struct NttZetaArgs {
  InOut<T> data;
  uint32_t log_n = 0;
  uint32_t col_stride = 0;
  uint32_t bit_lo = 0;
  uint32_t num_bits = 1;
  uint32_t mobius = 0;
};

template <class T>
Grid ntt_zeta_grid(const NttZetaArgs<T>& a) {
  const uint32_t nb = a.num_bits <= a.log_n ? a.num_bits : a.log_n;
  return {detail::grid_dim(detail::pow2(a.log_n - nb)),
          detail::column_count(a.data.view.count, detail::pow2(a.log_n), a.col_stride)};
}
template <class T>
std::string ntt_zeta_problem(const NttZetaArgs<T>& a);

struct NttZetaFp {
  static constexpr std::string_view name = "ntt_zeta_fp";
  using Args = NttZetaArgs<Fp>;
  static Grid grid(const Args& a) { return ntt_zeta_grid(a); }
  static std::string check(const Args& a) { return ntt_zeta_problem(a); }
  static void cpu(const Args& a, const CpuContext& ctx);
};

struct NttZetaFp4 {
  static constexpr std::string_view name = "ntt_zeta_fp4";
  using Args = NttZetaArgs<Fp4>;
  static Grid grid(const Args& a) { return ntt_zeta_grid(a); }
  static std::string check(const Args& a) { return ntt_zeta_problem(a); }
  static void cpu(const Args& a, const CpuContext& ctx);
};

// Row-major (rows x cols) -> column-major: dst[c * rows + r] = src[r * cols + c], for
// i = c * rows + r < grid.x = rows * cols = src.count = dst.count. Column-major -> row-major is the
// same kernel with rows and cols swapped.
struct NttTranspose {
  static constexpr std::string_view name = "ntt_transpose";
  struct Args {
    In<Fp> src;
    Out<Fp> dst;
    uint32_t rows = 0;
    uint32_t cols = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(uint64_t(a.rows) * a.cols)}; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
