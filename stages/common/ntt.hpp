// Graph builders for the NTT kernel family (kernels/ntt.hpp): batched DFT / iDFT of Fp and Fp4
// columns with optional zero padding (RS codewords, protocol.md 6.3 step 2 and 11.2), the RS
// message of PLE chunks (6.3 step 1), subset-zeta / Möbius transforms and transposes. Each call
// adds dispatches to the graph in program order; nothing runs until the plan does.
//
// Twiddles: an Ntt of max_log_n reads the Persistent buffer "ntt.twiddles.<max_log_n>"
// (omega_N^t, t < N/2, N = 2^max_log_n). A setup graph writes it once per executor:
//
//   { Graph setup; Ntt(setup, 22).add_setup(); exec.prepare(compile(std::move(setup)))->run(trace); }
//   Graph g; Ntt ntt(g, 22); ntt.forward(msg, 20, 1 << 20, code, 22, 1 << 22, 42);  // any number of plans
//
// Conventions (protocol.md 1.2): DFT(c)[i] = sum_j c_j omega_n^(ij), natural order in and out,
// omega_n = two_adic_generator(log2 n); iDFT includes 1/n. Fp4 columns use the same base-field roots.
//
// Errors: parameters outside what the kernels support throw InputError; views that do not hold
// the columns described, or that overlap where they must not, throw GraphError. Both name the task.
// Lifetime: an Ntt refers to its Graph, which must outlive it. Thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/ntt.hpp"
#include "runtime/executor.hpp"
#include "runtime/graph.hpp"

namespace vkstark {

struct NttOptions {
  // Radix-2 stages per dispatch, 1 .. kNttMaxSharedLogRadix: the stages are split into the fewest
  // passes of at most this many, as even as possible. Passes of up to kNttMaxLogRadix stages run
  // in registers (NttStageFp), longer ones in shared memory (NttStageSharedFp).
  uint32_t max_log_radix = kNttMaxSharedLogRadix;
  // Fp columns whose offsets, strides and buffers are whole runs of four entries take register
  // passes (at most kNttMaxLogRadix stages each, whatever max_log_radix says above that) that load
  // and store 16 bytes at a time (NttStageVecFp). false: the passes above, 4-byte accesses.
  bool vector_access = true;
};

// The rows of a transform's output that an opening reads: rows idx[q] + t query_stride for
// q < idx.count, t < rows_per_query (GatherRows' leaf groups).
struct NttRows {
  View<uint32_t> idx;
  uint32_t rows_per_query = 0;
  uint32_t query_stride = 0;
};

class Ntt {
 public:
  // Declares (or finds) the Persistent twiddle buffer "ntt.twiddles.<max_log_n>". InputError when
  // max_log_n > 27 or the options are out of range.
  Ntt(Graph& g, uint32_t max_log_n, NttOptions options = {});

  // The dispatch that fills the twiddle table; run it (in a setup graph, or first in this one)
  // before any plan that transforms.
  void add_setup();

  [[nodiscard]] Buffer<Fp> twiddles() const { return twiddles_; }
  uint32_t max_log_n() const { return max_log_n_; }
  static std::string twiddle_buffer_name(uint32_t max_log_n);

  // dst[c] = DFT_{2^log_n}(src[c] zero-padded to 2^log_n) for columns c < batch. Source columns
  // hold 2^log_src entries (log_src <= log_n) at src_stride; destination columns 2^log_n entries
  // at dst_stride. src is only read. log_n == 0 copies. Tasks are named "<name>.stage<k>" (or
  // "<name>.stages<a>-<b>" for a pass of several stages) and "<name>.copy".
  void forward(View<Fp> src, uint32_t log_src, uint64_t src_stride, View<Fp> dst, uint32_t log_n, uint64_t dst_stride,
               uint32_t batch, std::string_view name = "ntt.forward");
  void forward(View<Fp4> src, uint32_t log_src, uint64_t src_stride, View<Fp4> dst, uint32_t log_n, uint64_t dst_stride,
               uint32_t batch, std::string_view name = "ntt.forward");
  // forward() where only `rows` of dst are read afterwards: the last register passes, where the
  // groups that lead to those rows are fewer than their groups, skip the others (masks marked on the
  // device from rows.idx: NttMarkRows, NttMarkInputs; tasks "<name>.mark..."). The other rows of dst
  // are left undefined on the device (the CPU executor computes them all); the rows read are those
  // of forward(). Columns that forward() would not pass in registers with 16-byte accesses take
  // forward() as it is.
  void forward_rows(View<Fp> src, uint32_t log_src, uint64_t src_stride, View<Fp> dst, uint32_t log_n,
                    uint64_t dst_stride, uint32_t batch, const NttRows& rows, std::string_view name);
  // dst[c] = iDFT_{2^log_n}(src[c]) (1/n included), columns of 2^log_n entries.
  void inverse(View<Fp> src, uint64_t src_stride, View<Fp> dst, uint32_t log_n, uint64_t dst_stride, uint32_t batch,
               std::string_view name = "ntt.inverse");
  void inverse(View<Fp4> src, uint64_t src_stride, View<Fp4> dst, uint32_t log_n, uint64_t dst_stride, uint32_t batch,
               std::string_view name = "ntt.inverse");

 private:
  template <class K, class KShared, class T>
  void transform(View<T> src, uint32_t log_src, uint64_t src_stride, View<T> dst, uint32_t log_n, uint64_t dst_stride,
                 uint32_t batch, bool inverse, std::string_view name, const NttRows* rows = nullptr);

  template <class Args>
  bool vector_pass(const std::string& task, Args a, uint32_t batch, View<uint32_t> mask = {});
  // The masks of the passes (an empty view: unmasked) for `rows` of a transform of 2^log_n in
  // `passes`, with their marking dispatched.
  std::vector<View<uint32_t>> row_masks(const std::vector<uint32_t>& passes, uint32_t log_n, const NttRows& rows,
                                        std::string_view name);

  Graph& g_;
  uint32_t max_log_n_;
  NttOptions options_;
  Buffer<Fp> twiddles_;
};

// The columns of a view (sliced to them) at `stride` are whole runs of four entries in a buffer of
// whole runs: they can be bound as uvec4 entries (NttStageVecFp, NttRsMessageVec, BatchColumnsExtVec).
[[nodiscard]] bool whole_runs(const Graph& g, const View<Fp>& v, uint64_t stride);

// Runs the setup graph that fills the twiddle table for transforms up to 2^max_log_n on `exec`
// (Persistent: once per executor; repeating it is harmless).
void prepare_ntt_twiddles(Executor& exec, uint32_t max_log_n);

// RS message (protocol.md 6.3 step 1, eval_to_coeff_rs_message), in place: every chunk of 2^l
// entries of columns c < batch (col_len entries at col_stride, col_len a multiple of 2^l) becomes
// subset-zeta(iDFT_{2^l}(chunk)). l <= kNttMaxLogChunk. One dispatch, named `name`.
void add_rs_message(Graph& g, View<Fp> data, uint32_t l, uint64_t col_len, uint64_t col_stride, uint32_t batch,
                    std::string_view name = "rs_message");
// The same map from `src` into `dst` (columns at the same col_len and col_stride), leaving src as it
// was, in one pass (NttRsMessageVecFrom) where l = 4 and both are whole runs of four (whole_runs);
// false, with nothing added, otherwise (the caller copies and works in place).
[[nodiscard]] bool add_rs_message_from(Graph& g, View<Fp> src, View<Fp> dst, uint32_t l, uint64_t col_len,
                                       uint64_t col_stride, uint32_t batch, std::string_view name);
// Its inverse (per chunk: subset-Möbius, then DFT_{2^l}).
void add_rs_message_inverse(Graph& g, View<Fp> data, uint32_t l, uint64_t col_len, uint64_t col_stride, uint32_t batch,
                            std::string_view name = "rs_message_inverse");

// Subset-zeta (coefficients -> hypercube evaluations) over the index bits [bit_lo, bit_hi) of
// columns of 2^log_n entries, in place: for each bit b, a[v] += a[v - 2^b] for v with bit b set.
// The Möbius transform is its inverse (-=). Up to max_bits_per_dispatch (<= kNttMaxLogRadix) bits
// per dispatch; tasks "<name>.bit<b>" or "<name>.bits<a>-<b>". bit_lo == bit_hi adds nothing.
void add_subset_zeta(Graph& g, View<Fp> data, uint32_t log_n, uint64_t col_stride, uint32_t batch, uint32_t bit_lo,
                     uint32_t bit_hi, std::string_view name = "subset_zeta",
                     uint32_t max_bits_per_dispatch = kNttMaxLogRadix);
void add_subset_zeta(Graph& g, View<Fp4> data, uint32_t log_n, uint64_t col_stride, uint32_t batch, uint32_t bit_lo,
                     uint32_t bit_hi, std::string_view name = "subset_zeta",
                     uint32_t max_bits_per_dispatch = kNttMaxLogRadix);
void add_subset_mobius(Graph& g, View<Fp> data, uint32_t log_n, uint64_t col_stride, uint32_t batch, uint32_t bit_lo,
                       uint32_t bit_hi, std::string_view name = "subset_mobius",
                       uint32_t max_bits_per_dispatch = kNttMaxLogRadix);
void add_subset_mobius(Graph& g, View<Fp4> data, uint32_t log_n, uint64_t col_stride, uint32_t batch, uint32_t bit_lo,
                       uint32_t bit_hi, std::string_view name = "subset_mobius",
                       uint32_t max_bits_per_dispatch = kNttMaxLogRadix);

// Row-major (rows x cols) in src -> column-major in dst: dst[c * rows + r] = src[r * cols + c].
// Column-major -> row-major: swap rows and cols. src and dst must not overlap.
void add_transpose(Graph& g, View<Fp> src, View<Fp> dst, uint32_t rows, uint32_t cols,
                   std::string_view name = "transpose");

}  // namespace vkstark
