#include "stages/common/ntt.hpp"

#include "runtime/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/basic.hpp"
#include "kernels/field/fp.hpp"
#include "runtime/error.hpp"

namespace vkstark {

namespace {

// The Vulkan grid's y dimension (columns) is limited to 65535 workgroups.
constexpr uint32_t kMaxBatch = 65535;

template <DeviceElement T>
std::string describe(const Graph& g, const View<T>& v) {
  const std::string& buffer = v.buffer < g.buffers().size() ? g.buffers()[v.buffer].name : "<no buffer>";
  return fmt::format("view [{}, {}) of '{}'", v.offset, v.offset + v.count, buffer);
}

template <DeviceElement A, DeviceElement B>
bool overlap(const View<A>& a, const View<B>& b) {
  return a.buffer == b.buffer && a.byte_offset() < b.byte_offset() + b.byte_count() &&
         b.byte_offset() < a.byte_offset() + a.byte_count();
}

// Entries from the first column's start to the last one's end: batch columns of `len` at `stride`.
uint64_t extent(uint64_t len, uint64_t stride, uint32_t batch) { return uint64_t(batch - 1) * stride + len; }

// The columns c < batch of `len` entries at `stride` fit in the view and in 32-bit kernel indices.
template <DeviceElement T>
void check_columns(const Graph& g, std::string_view task, std::string_view what, const View<T>& v, uint64_t len,
                   uint64_t stride, uint32_t batch) {
  if (batch > 1 && stride < len)
    throw GraphError(
        fmt::format("{}: {} columns of {} entries overlap: column stride {} is smaller", task, what, len, stride));
  const uint64_t span = extent(len, stride, batch);
  if (span > v.count)
    throw GraphError(fmt::format("{}: {} needs {} entries ({} columns of {} at stride {}), but its {} has {}", task,
                                 what, span, batch, len, stride, describe(g, v), v.count));
  if (span > std::numeric_limits<uint32_t>::max() || stride > std::numeric_limits<uint32_t>::max())
    throw InputError(fmt::format("{}: {} spans {} entries (column stride {}); kernels index with 32 bits", task, what,
                                 span, stride));
}

void check_batch(std::string_view task, uint32_t batch) {
  if (batch == 0 || batch > kMaxBatch)
    throw InputError(fmt::format("{}: batch of {} columns (must be 1 .. {})", task, batch, kMaxBatch));
}

// `base`, or `base.<k>` for the first k that no buffer of the graph is called yet.
std::string unique_buffer_name(const Graph& g, const std::string& base) {
  auto taken = [&](const std::string& name) {
    return std::any_of(g.buffers().begin(), g.buffers().end(), [&](const BufferDesc& b) { return b.name == name; });
  };
  if (!taken(base)) return base;
  for (uint32_t k = 1;; ++k) {
    std::string name = fmt::format("{}.{}", base, k);
    if (!taken(name)) return name;
  }
}

// Splits `total` radix-2 steps into the fewest passes of at most `max_per_pass`, as even as possible
// (22 stages by 4: 4 4 4 4 3 3).
std::vector<uint32_t> split_passes(uint32_t total, uint32_t max_per_pass) {
  std::vector<uint32_t> passes;
  if (total == 0) return passes;
  const uint32_t count = (total + max_per_pass - 1) / max_per_pass;
  for (uint32_t i = 0; i < count; ++i) passes.push_back(total / count + (i < total % count ? 1 : 0));
  return passes;
}

std::string range_name(std::string_view name, std::string_view unit, uint32_t first, uint32_t count) {
  return count == 1 ? fmt::format("{}.{}{}", name, unit, first)
                    : fmt::format("{}.{}s{}-{}", name, unit, first, first + count - 1);
}

template <class T>
constexpr uint32_t kSharedCapacity = std::is_same_v<T, Fp> ? kNttSharedCapacityFp : kNttSharedCapacityFp4;

// The Args of a shared-memory pass: those of the register pass, and the tile.
template <class KShared, class Args>
typename KShared::Args shared_args(const Args& a, uint32_t log_tile) {
  return {.src = a.src,
          .dst = a.dst,
          .tw = a.tw,
          .src_stride = a.src_stride,
          .dst_stride = a.dst_stride,
          .log_n = a.log_n,
          .stage = a.stage,
          .log_radix = a.log_radix,
          .log_src = a.log_src,
          .log_tw = a.log_tw,
          .inverse = a.inverse,
          .log_tile = log_tile};
}

}  // namespace

bool whole_runs(const Graph& g, const View<Fp>& v, uint64_t stride) {
  return v.offset % 4 == 0 && v.count % 4 == 0 && stride % 4 == 0 && g.buffers()[v.buffer].bytes() % sizeof(Fp4) == 0;
}

// ---------------------------------------------------------------------------------------------
// Ntt

std::string Ntt::twiddle_buffer_name(uint32_t max_log_n) { return fmt::format("ntt.twiddles.{}", max_log_n); }

Ntt::Ntt(Graph& g, uint32_t max_log_n, NttOptions options) : g_(g), max_log_n_(max_log_n), options_(options) {
  if (max_log_n > Fp::TWO_ADICITY)
    throw InputError(
        fmt::format("Ntt: transforms of size 2^{} need roots of unity of that order; BabyBear has them "
                    "up to 2^{}",
                    max_log_n, Fp::TWO_ADICITY));
  if (options.max_log_radix < 1 || options.max_log_radix > kNttMaxSharedLogRadix)
    throw InputError(
        fmt::format("Ntt: max_log_radix {} outside 1 .. {}", options.max_log_radix, kNttMaxSharedLogRadix));
  const std::string name = twiddle_buffer_name(max_log_n);
  const uint64_t count = max_log_n == 0 ? 1 : uint64_t(1) << (max_log_n - 1);
  const bool exists =
      std::any_of(g.buffers().begin(), g.buffers().end(), [&](const BufferDesc& b) { return b.name == name; });
  twiddles_ = exists ? g.find<Fp>(name) : g.persistent<Fp>(name, count);
  if (twiddles_.count() != count || g.buffers()[twiddles_.id()].lifetime != Lifetime::Persistent)
    throw GraphError(
        fmt::format("Ntt: buffer '{}' exists but is not the Persistent table of {} twiddles", name, count));
}

void Ntt::add_setup() {
  g_.dispatch<NttTwiddles>(twiddle_buffer_name(max_log_n_), {.tw = twiddles_, .log_n = max_log_n_});
}

// A register pass of Fp columns as NttStageVecFp (NttStageVec0Fp at stage 0), where the options,
// the columns' alignment and the pass allow it (kernels/ntt.hpp); false: nothing added.
template <class Args>
bool Ntt::vector_pass(const std::string& task, Args a, uint32_t batch, View<uint32_t> mask) {
  if constexpr (!std::is_same_v<Args, NttStageArgs<Fp>>) {
    return false;
  } else {
    a.src = a.src.view.slice(0, extent(uint64_t(1) << a.log_src, a.src_stride, batch));  // the columns exactly
    const bool whole = whole_runs(g_, a.src.view, a.src_stride) && whole_runs(g_, a.dst.view, a.dst_stride);
    const bool pass =
        a.log_n >= a.log_radix + 2 && a.log_src >= 2 && (a.stage >= 2 || (a.stage == 0 && a.log_radix >= 2));
    if (!options_.vector_access || !whole || !pass) return false;
    if (a.stage == 0) {
      g_.dispatch<NttStageVec0Fp>(task, ntt_fp_as_vec(a));
    } else {
      NttStageArgs<Fp4> v = ntt_fp_as_vec(a);
      if (mask.count > 0) v.mask = {mask};
      g_.dispatch<NttStageVecFp>(task, v);
    }
    return true;
  }
}

std::vector<View<uint32_t>> Ntt::row_masks(const std::vector<uint32_t>& passes, uint32_t log_n, const NttRows& rows,
                                           std::string_view name) {
  std::vector<View<uint32_t>> masks(passes.size());
  std::vector<uint32_t> stage(passes.size(), 0);
  for (size_t i = 1; i < passes.size(); ++i) stage[i] = stage[i - 1] + passes[i - 1];
  // From the last pass back, while the groups that lead to the rows are fewer than the pass's
  // groups: `reach` bounds the rows needed at a pass's output (one group each).
  uint64_t reach = rows.idx.count * uint64_t(rows.rows_per_query);
  size_t first = passes.size();
  for (size_t i = passes.size(); i-- > 1;) {
    const uint64_t groups = uint64_t(1) << (log_n - passes[i]);
    if (reach >= groups || stage[i] < 2 || log_n < passes[i] + 2) break;
    first = i;
    reach <<= passes[i];
  }
  if (first == passes.size() || rows.idx.count == 0) return masks;
  for (size_t i = first; i < passes.size(); ++i) {
    const uint64_t words = ((uint64_t(1) << (log_n - passes[i])) + 31) / 32;
    masks[i] = g_.transient<uint32_t>(unique_buffer_name(g_, fmt::format("{}.mask{}", name, i)), words).all();
    g_.dispatch<FillU32>(fmt::format("{}.mask{}.zero", name, i), {.out = masks[i], .value = 0});
  }
  const size_t last = passes.size() - 1;
  g_.dispatch<NttMarkRows>(range_name(std::string(name) + ".mark", "stage", stage[last], passes[last]),
                           {.idx = rows.idx,
                            .mask = masks[last],
                            .rows_per_query = rows.rows_per_query,
                            .query_stride = rows.query_stride,
                            .log_n = log_n,
                            .stage = stage[last],
                            .log_radix = passes[last]});
  for (size_t i = last; i-- > first;)
    g_.dispatch<NttMarkInputs>(range_name(std::string(name) + ".mark", "stage", stage[i], passes[i]),
                               {.next_mask = masks[i + 1],
                                .mask = masks[i],
                                .log_n = log_n,
                                .stage = stage[i],
                                .log_radix = passes[i],
                                .next_log_radix = passes[i + 1]});
  return masks;
}

template <class K, class KShared, class T>
void Ntt::transform(View<T> src, uint32_t log_src, uint64_t src_stride, View<T> dst, uint32_t log_n,
                    uint64_t dst_stride, uint32_t batch, bool inverse, std::string_view name, const NttRows* rows) {
  if (log_n > max_log_n_)
    throw InputError(fmt::format("{}: transform of size 2^{}, but this Ntt's twiddle table serves sizes up to 2^{}",
                                 name, log_n, max_log_n_));
  if (log_src > log_n)
    throw InputError(
        fmt::format("{}: source columns of 2^{} entries do not fit a transform of size 2^{}", name, log_src, log_n));
  check_batch(name, batch);
  const uint64_t n = uint64_t(1) << log_n;
  check_columns(g_, name, "source", src, uint64_t(1) << log_src, src_stride, batch);
  check_columns(g_, name, "destination", dst, n, dst_stride, batch);
  if (overlap(src, dst))
    throw GraphError(fmt::format("{}: source {} and destination {} overlap (the transform is out of place)", name,
                                 describe(g_, src), describe(g_, dst)));
  dst = dst.slice(0, extent(n, dst_stride, batch));  // exactly the columns: the kernels' grids follow from it

  if (log_n == 0) {  // DFT_1 = iDFT_1 = identity
    constexpr uint32_t words = sizeof(T) / sizeof(uint32_t);
    g_.dispatch<NttCopyPad>(fmt::format("{}.copy", name), {.src = src.template bitcast<uint32_t>(),
                                                           .dst = dst.template bitcast<uint32_t>(),
                                                           .src_stride = static_cast<uint32_t>(src_stride * words),
                                                           .dst_stride = static_cast<uint32_t>(dst_stride * words),
                                                           .src_count = words,
                                                           .dst_count = words});
    return;
  }

  // Fp columns in whole runs of four take register passes with 16-byte accesses (NttStageVecFp):
  // on the H200, six of them were faster than three passes in shared memory (docs/decisions.md,
  // 2026-11-29). Other columns take shared passes of up to max_log_radix stages.
  bool vector = false;
  if constexpr (std::is_same_v<T, Fp>)
    vector = options_.vector_access &&
             whole_runs(g_, src.slice(0, extent(uint64_t(1) << log_src, src_stride, batch)), src_stride) &&
             whole_runs(g_, dst, dst_stride);
  const uint32_t max_radix = vector ? std::min(options_.max_log_radix, kNttMaxLogRadix) : options_.max_log_radix;
  // Ping-pong between dst and a compact scratch, so that the last pass lands in dst.
  const std::vector<uint32_t> passes = split_passes(log_n, max_radix);
  View<T> scratch;
  if (passes.size() > 1)
    scratch = g_.transient<T>(unique_buffer_name(g_, fmt::format("{}.scratch", name)), uint64_t(batch) * n).all();
  std::vector<View<uint32_t>> masks(passes.size());
  if (rows != nullptr && vector) masks = row_masks(passes, log_n, *rows, name);
  View<T> in = src;
  uint64_t in_stride = src_stride;
  uint32_t in_log = log_src;
  uint32_t stage = 0;
  for (size_t i = 0; i < passes.size(); ++i) {
    const bool to_dst = (passes.size() - 1 - i) % 2 == 0;
    const View<T> out = to_dst ? dst : scratch;
    const uint64_t out_stride = to_dst ? dst_stride : n;
    const uint32_t r = passes[i];
    const std::string task = range_name(name, "stage", stage, r);
    const typename K::Args args{.src = in,
                                .dst = out,
                                .tw = twiddles_,
                                .src_stride = static_cast<uint32_t>(in_stride),
                                .dst_stride = static_cast<uint32_t>(out_stride),
                                .log_n = log_n,
                                .stage = stage,
                                .log_radix = r,
                                .log_src = in_log,
                                .log_tw = max_log_n_,
                                .inverse = inverse ? 1u : 0u};
    if (r <= kNttMaxLogRadix) {
      if (!vector_pass(task, args, batch, masks[i])) {
        if (masks[i].count > 0) throw GraphError(fmt::format("{}: a masked pass that is not a vector pass", task));
        g_.dispatch<K>(task, args);
      }
    } else {
      // Tiles of consecutive groups: up to 64 bytes of consecutive entries per load and store row,
      // as many as fit the shared memory next to the 2^r entries of each group.
      constexpr uint32_t capacity_log = std::bit_width(kSharedCapacity<T>) - 1;
      constexpr uint32_t max_tile_log = std::bit_width(64 / sizeof(T)) - 1;
      const uint32_t log_tile = std::min({capacity_log - r, log_n - r, max_tile_log});
      g_.dispatch<KShared>(task, shared_args<KShared>(args, log_tile));
    }
    in = out;
    in_stride = out_stride;
    in_log = log_n;
    stage += r;
  }
}

void Ntt::forward(View<Fp> src, uint32_t log_src, uint64_t src_stride, View<Fp> dst, uint32_t log_n,
                  uint64_t dst_stride, uint32_t batch, std::string_view name) {
  transform<NttStageFp, NttStageSharedFp>(src, log_src, src_stride, dst, log_n, dst_stride, batch, false, name);
}
void Ntt::forward_rows(View<Fp> src, uint32_t log_src, uint64_t src_stride, View<Fp> dst, uint32_t log_n,
                       uint64_t dst_stride, uint32_t batch, const NttRows& rows, std::string_view name) {
  transform<NttStageFp, NttStageSharedFp>(src, log_src, src_stride, dst, log_n, dst_stride, batch, false, name, &rows);
}
void Ntt::forward(View<Fp4> src, uint32_t log_src, uint64_t src_stride, View<Fp4> dst, uint32_t log_n,
                  uint64_t dst_stride, uint32_t batch, std::string_view name) {
  transform<NttStageFp4, NttStageSharedFp4>(src, log_src, src_stride, dst, log_n, dst_stride, batch, false, name);
}
void Ntt::inverse(View<Fp> src, uint64_t src_stride, View<Fp> dst, uint32_t log_n, uint64_t dst_stride, uint32_t batch,
                  std::string_view name) {
  transform<NttStageFp, NttStageSharedFp>(src, log_n, src_stride, dst, log_n, dst_stride, batch, true, name);
}
void Ntt::inverse(View<Fp4> src, uint64_t src_stride, View<Fp4> dst, uint32_t log_n, uint64_t dst_stride,
                  uint32_t batch, std::string_view name) {
  transform<NttStageFp4, NttStageSharedFp4>(src, log_n, src_stride, dst, log_n, dst_stride, batch, true, name);
}

// ---------------------------------------------------------------------------------------------
// RS message, subset transforms, transpose

namespace {

void rs_message(Graph& g, View<Fp> data, uint32_t l, uint64_t col_len, uint64_t col_stride, uint32_t batch,
                bool inverse, std::string_view name) {
  if (l > kNttMaxLogChunk)
    throw InputError(fmt::format("{}: chunks of 2^{} entries (l_skip at most {})", name, l, kNttMaxLogChunk));
  check_batch(name, batch);
  if (col_len % (uint64_t(1) << l) != 0)
    throw InputError(fmt::format("{}: column length {} is not a multiple of the chunk length 2^{}", name, col_len, l));
  check_columns(g, name, "data", data, col_len, col_stride, batch);
  const uint64_t chunks = col_len >> l;
  if (chunks == 0) return;
  data = data.slice(0, extent(col_len, col_stride, batch));
  if (l == 4 && whole_runs(g, data, col_stride)) {  // 16-byte copies (NttRsMessageVec)
    g.dispatch<NttRsMessageVec>(std::string(name), {.data = data.bitcast<Fp4>(),
                                                    .col_len = static_cast<uint32_t>(col_len),
                                                    .col_stride = static_cast<uint32_t>(col_stride / 4),
                                                    .inverse = inverse ? 1u : 0u});
    return;
  }
  g.dispatch<NttRsMessage>(std::string(name), {.data = data,
                                               .log_chunk = l,
                                               .col_len = static_cast<uint32_t>(col_len),
                                               .col_stride = static_cast<uint32_t>(col_stride),
                                               .inverse = inverse ? 1u : 0u});
}

template <class K, class T>
void subset_transform(Graph& g, View<T> data, uint32_t log_n, uint64_t col_stride, uint32_t batch, uint32_t bit_lo,
                      uint32_t bit_hi, bool mobius, std::string_view name, uint32_t max_bits) {
  if (max_bits < 1 || max_bits > kNttMaxLogRadix)
    throw InputError(fmt::format("{}: max_bits_per_dispatch {} outside 1 .. {}", name, max_bits, kNttMaxLogRadix));
  if (log_n > 31 || bit_lo > bit_hi || bit_hi > log_n)
    throw InputError(fmt::format("{}: bits [{}, {}) of columns of 2^{} entries", name, bit_lo, bit_hi, log_n));
  check_batch(name, batch);
  check_columns(g, name, "data", data, uint64_t(1) << log_n, col_stride, batch);
  data = data.slice(0, extent(uint64_t(1) << log_n, col_stride, batch));
  uint32_t bit = bit_lo;
  for (uint32_t nb : split_passes(bit_hi - bit_lo, max_bits)) {
    g.dispatch<K>(range_name(name, "bit", bit, nb), {.data = data,
                                                     .log_n = log_n,
                                                     .col_stride = static_cast<uint32_t>(col_stride),
                                                     .bit_lo = bit,
                                                     .num_bits = nb,
                                                     .mobius = mobius ? 1u : 0u});
    bit += nb;
  }
}

}  // namespace

void add_rs_message(Graph& g, View<Fp> data, uint32_t l, uint64_t col_len, uint64_t col_stride, uint32_t batch,
                    std::string_view name) {
  rs_message(g, data, l, col_len, col_stride, batch, false, name);
}
bool add_rs_message_from(Graph& g, View<Fp> src, View<Fp> dst, uint32_t l, uint64_t col_len, uint64_t col_stride,
                         uint32_t batch, std::string_view name) {
  if (l != 4 || col_len % 16 != 0) return false;
  check_batch(name, batch);
  check_columns(g, name, "src", src, col_len, col_stride, batch);
  check_columns(g, name, "dst", dst, col_len, col_stride, batch);
  src = src.slice(0, extent(col_len, col_stride, batch));
  dst = dst.slice(0, extent(col_len, col_stride, batch));
  if (!whole_runs(g, src, col_stride) || !whole_runs(g, dst, col_stride)) return false;
  g.dispatch<NttRsMessageVecFrom>(std::string(name), {.src = src.bitcast<Fp4>(),
                                                      .dst = dst.bitcast<Fp4>(),
                                                      .col_len = static_cast<uint32_t>(col_len),
                                                      .col_stride = static_cast<uint32_t>(col_stride / 4),
                                                      .inverse = 0});
  return true;
}
void add_rs_message_inverse(Graph& g, View<Fp> data, uint32_t l, uint64_t col_len, uint64_t col_stride, uint32_t batch,
                            std::string_view name) {
  rs_message(g, data, l, col_len, col_stride, batch, true, name);
}

void add_subset_zeta(Graph& g, View<Fp> data, uint32_t log_n, uint64_t col_stride, uint32_t batch, uint32_t bit_lo,
                     uint32_t bit_hi, std::string_view name, uint32_t max_bits_per_dispatch) {
  subset_transform<NttZetaFp>(g, data, log_n, col_stride, batch, bit_lo, bit_hi, false, name, max_bits_per_dispatch);
}
void add_subset_zeta(Graph& g, View<Fp4> data, uint32_t log_n, uint64_t col_stride, uint32_t batch, uint32_t bit_lo,
                     uint32_t bit_hi, std::string_view name, uint32_t max_bits_per_dispatch) {
  subset_transform<NttZetaFp4>(g, data, log_n, col_stride, batch, bit_lo, bit_hi, false, name, max_bits_per_dispatch);
}
void add_subset_mobius(Graph& g, View<Fp> data, uint32_t log_n, uint64_t col_stride, uint32_t batch, uint32_t bit_lo,
                       uint32_t bit_hi, std::string_view name, uint32_t max_bits_per_dispatch) {
  subset_transform<NttZetaFp>(g, data, log_n, col_stride, batch, bit_lo, bit_hi, true, name, max_bits_per_dispatch);
}
void add_subset_mobius(Graph& g, View<Fp4> data, uint32_t log_n, uint64_t col_stride, uint32_t batch, uint32_t bit_lo,
                       uint32_t bit_hi, std::string_view name, uint32_t max_bits_per_dispatch) {
  subset_transform<NttZetaFp4>(g, data, log_n, col_stride, batch, bit_lo, bit_hi, true, name, max_bits_per_dispatch);
}

void add_transpose(Graph& g, View<Fp> src, View<Fp> dst, uint32_t rows, uint32_t cols, std::string_view name) {
  const uint64_t count = uint64_t(rows) * cols;
  if (count > std::numeric_limits<uint32_t>::max())
    throw InputError(fmt::format("{}: {} x {} matrix has more than 2^32 - 1 entries", name, rows, cols));
  if (src.count < count || dst.count < count)
    throw GraphError(fmt::format("{}: a {} x {} matrix needs {} entries; source {} and destination {}", name, rows,
                                 cols, count, describe(g, src), describe(g, dst)));
  if (overlap(src.slice(0, count), dst.slice(0, count)))
    throw GraphError(fmt::format("{}: source {} and destination {} overlap (the transpose is out of place)", name,
                                 describe(g, src), describe(g, dst)));
  if (count == 0) return;
  g.dispatch<NttTranspose>(std::string(name),
                           {.src = src.slice(0, count), .dst = dst.slice(0, count), .rows = rows, .cols = cols});
}

void prepare_ntt_twiddles(Executor& exec, uint32_t max_log_n) {
  Graph setup;
  Ntt(setup, max_log_n).add_setup();
  Trace trace;
  exec.prepare(compile(std::move(setup)))->run(trace);
}

}  // namespace vkstark
