#include "stages/batch_constraint/round0.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "kernels/basic.hpp"
#include "kernels/batch_constraint.hpp"
#include "kernels/whir.hpp"
#include "stages/common/device_value.hpp"
#include "stages/common/program.hpp"

namespace vkstark {

namespace {

// Partial sums per value and coset that ZerocheckWeightedSums writes: one per 2^12 chunks (64
// lanes of 64 terms), at most 16, so that ZerocheckInterpolate adds few of them per value.
uint32_t weighted_sum_rows(uint64_t chunks) { return uint32_t(std::clamp<uint64_t>((chunks + 4095) / 4096, 1, 16)); }

// Traces per sums program: 16 code words each, well inside kProgramMaxWords.
constexpr uint32_t kSumsPerProgram = 100;

Fp coset_shift(uint32_t c) { return Fp::from_canonical_unchecked(Fp::GENERATOR).pow(c); }

uint32_t row_view_parts(const StarkVerifyingKey& vk) {
  return (vk.params.width.preprocessed ? 1u : 0u) + uint32_t(vk.params.width.cached_mains.size()) + 1u;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Host constants

std::vector<Fp> coset_extension_weights(uint32_t l, uint32_t c) {
  const uint64_t n = uint64_t(1) << l;
  const Fp w = two_adic_generator(l), s = coset_shift(c);
  // L_i(z) = (z^N - 1) / (N (z omega^-i - 1)); at z = s omega^k it depends on (k - i) mod N only.
  std::vector<Fp> den(n);
  Fp wj = Fp::one();
  for (uint64_t j = 0; j < n; ++j) {
    den[j] = Fp::from_canonical_unchecked(uint32_t(n)) * (s * wj - Fp::one());
    wj *= w;
  }
  batch_inverse(den);
  const Fp num = s.pow(n) - Fp::one();
  std::vector<Fp> out(n * n);
  for (uint64_t k = 0; k < n; ++k)
    for (uint64_t i = 0; i < n; ++i) out[k * n + i] = num * den[(k - i) & (n - 1)];
  return out;
}

std::vector<Fp> coset_extension_fft(uint32_t l, uint32_t c) {
  if (l != ZerocheckCosetExtend::kFftLogN) return {};
  const Fp w = two_adic_generator(l), w_inv = w.inverse(), s = coset_shift(c);
  const Fp n_inv = Fp::from_canonical_unchecked(1u << l).inverse();
  std::vector<Fp> out(ZerocheckCosetExtend::kFftTable);
  Fp a = Fp::one(), b = Fp::one(), sj = n_inv;
  for (uint32_t j = 0; j < 8; ++j, a *= w, b *= w_inv) {
    out[j] = a;
    out[8 + j] = b;
  }
  for (uint32_t j = 0; j < 16; ++j, sj *= s) out[16 + j] = sj;
  return out;
}

std::vector<Fp> coset_interpolation_matrix(uint32_t l, uint32_t cosets) {
  const uint64_t n = uint64_t(1) << l, C = cosets, kk = C * n;
  if (C == 0) throw InputError("coset_interpolation_matrix: no coset");
  // The inverse of V[c][t] = y_c^t, y_c = g^(cN) (c = 1..C), by Gauss-Jordan elimination.
  std::vector<std::vector<Fp>> v(C, std::vector<Fp>(2 * C));
  for (uint64_t c = 0; c < C; ++c) {
    const Fp y = coset_shift(uint32_t(c + 1)).pow(n);
    Fp p = Fp::one();
    for (uint64_t t = 0; t < C; ++t) {
      v[c][t] = p;
      p *= y;
    }
    v[c][C + c] = Fp::one();
  }
  for (uint64_t col = 0; col < C; ++col) {
    uint64_t piv = col;
    while (piv < C && v[piv][col].is_zero()) ++piv;
    if (piv == C) throw InputError("coset_interpolation_matrix: the coset nodes are not distinct");
    std::swap(v[piv], v[col]);
    const Fp inv = v[col][col].inverse();
    for (Fp& e : v[col]) e *= inv;
    for (uint64_t r = 0; r < C; ++r) {
      if (r == col || v[r][col].is_zero()) continue;
      const Fp f = v[r][col];
      for (uint64_t j = 0; j < 2 * C; ++j) v[r][j] -= f * v[col][j];
    }
  }
  // vinv[t][c] = v[t][C + c]; A[r + N t][c N + k] = vinv[t][c] g^(-(c+1) r) omega^(-k r) / N.
  const Fp n_inv = Fp::from_canonical_unchecked(uint32_t(n)).inverse();
  const Fp w_inv = two_adic_generator(l).inverse();
  std::vector<Fp> w_pow(n);  // omega^-j
  Fp x = Fp::one();
  for (Fp& e : w_pow) {
    e = x;
    x *= w_inv;
  }
  std::vector<Fp> twist(C * n);  // g^(-(c+1) r) / N
  for (uint64_t c = 0; c < C; ++c) {
    const Fp g_inv = coset_shift(uint32_t(c + 1)).inverse();
    Fp p = n_inv;
    for (uint64_t r = 0; r < n; ++r) {
      twist[c * n + r] = p;
      p *= g_inv;
    }
  }
  std::vector<Fp> a(kk * kk);
  for (uint64_t t = 0; t < C; ++t)
    for (uint64_t r = 0; r < n; ++r) {
      Fp* row = a.data() + (r + n * t) * kk;
      for (uint64_t c = 0; c < C; ++c) {
        const Fp f = v[t][C + c] * twist[c * n + r];
        for (uint64_t k = 0; k < n; ++k) row[c * n + k] = f * w_pow[(k * r) & (n - 1)];
      }
    }
  return a;
}

uint64_t round0_min_block_bytes() {
  const char* v = std::getenv("VKSTARK_ROUND0_BLOCK_BYTES");
  if (v == nullptr) return kRound0MinBlockBytes;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (end == v || *end != '\0' || n < (1ull << 20) || n > (1ull << 40))
    throw InputError(
        fmt::format("VKSTARK_ROUND0_BLOCK_BYTES='{}': expected a whole number of bytes in [2^20, 2^40]", v));
  return n;
}

std::vector<Fp> coset_selectors(uint32_t l, uint32_t log_height, uint32_t c) {
  return coset_selectors(l, log_height, c, 0, log_height > l ? log_height - l : 0);
}

std::vector<Fp> coset_selectors(uint32_t l, uint32_t log_height, uint32_t c, uint64_t first_chunk,
                                uint32_t log_chunks) {
  const uint64_t n = uint64_t(1) << l, h = uint64_t(1) << log_height;
  const uint64_t chunks = log_height > l ? h >> l : 1, b = uint64_t(1) << log_chunks, m = n * b;
  if (first_chunk + b > chunks)
    throw InputError(
        fmt::format("coset_selectors: chunks [{}, {}) past the trace's {}", first_chunk, first_chunk + b, chunks));
  const std::vector<Fp> w = coset_extension_weights(l, c);
  std::vector<Fp> out(3 * m);
  // Only the chunks holding row 0 (chunk 0) and row H - 1 (the last chunk) have a nonzero is_first
  // or is_last; lifted rows repeat with period H.
  std::vector<uint64_t> xs{0};
  if (chunks > 1) xs.push_back(chunks - 1);
  for (uint64_t x : xs) {
    if (x < first_chunk || x >= first_chunk + b) continue;
    for (uint64_t s = 0; s < 2; ++s)
      for (uint64_t k = 0; k < n; ++k) {
        Fp acc;
        for (uint64_t i = 0; i < n; ++i) {
          const uint64_t row = (x * n + i) & (h - 1);
          if (row == (s == 0 ? 0 : h - 1)) acc += w[k * n + i];
        }
        out[s * m + k * b + (x - first_chunk)] = acc;
      }
  }
  for (uint64_t p = 0; p < m; ++p) out[2 * m + p] = Fp::one() - out[m + p];
  return out;
}

// ---------------------------------------------------------------------------------------------
// The builder

Round0Prover::Round0Prover(Graph& g, DeviceTranscript& transcript, const SystemParams& params,
                           std::vector<Round0Trace> traces, View<Fp4> xi)
    : g_(g), t_(transcript), params_(params), l_(params.l_skip), n_(uint64_t(1) << params.l_skip), xi_(xi) {
  params.validate();
  for (Round0Trace& tr : traces) {
    TraceState& s = traces_.emplace_back();
    s.in = std::move(tr);
  }
  check_traces();
  sample_lambda();
  eq_tables();
}

std::string Round0Prover::name(uint32_t T, const std::string& step) const {
  return fmt::format("batch_constraint.round0.T{}.{}", T, step);
}

void Round0Prover::check_traces() {
  if (traces_.empty()) throw InputError("round 0: no trace");
  uint32_t prev = ~0u;
  for (uint32_t T = 0; T < traces_.size(); ++T) {
    TraceState& s = traces_[T];
    const Round0Trace& in = s.in;
    if (in.vk == nullptr) throw InputError(fmt::format("round 0: trace {} has no verifying key", T));
    const StarkVerifyingKey& vk = *in.vk;
    if (in.log_height > prev) throw InputError(fmt::format("round 0: trace {} is taller than trace {}", T, T - 1));
    prev = in.log_height;
    if (in.log_height > params_.l_skip + params_.n_stack)
      throw InputError(fmt::format("round 0: trace {} has 2^{} rows, above l_skip + n_stack", T, in.log_height));
    if (vk.max_constraint_degree > params_.max_constraint_degree)
      throw InputError(fmt::format("round 0: trace {} has degree {}, above the params' {}", T, vk.max_constraint_degree,
                                   params_.max_constraint_degree));
    const AirShape shape = vk.shape();
    if (in.parts.size() != row_view_parts(vk))
      throw InputError(
          fmt::format("round 0: trace {} has {} parts, its key {}", T, in.parts.size(), row_view_parts(vk)));
    std::vector<uint32_t> widths;
    if (vk.params.width.preprocessed) widths.push_back(*vk.params.width.preprocessed);
    for (uint32_t w : vk.params.width.cached_mains) widths.push_back(w);
    widths.push_back(vk.params.width.common_main);
    for (size_t p = 0; p < widths.size(); ++p)
      if (in.parts[p].width != widths[p] || in.parts[p].log_height != in.log_height)
        throw InputError(
            fmt::format("round 0: trace {} part {} has {} columns of 2^{} rows, {} columns of 2^{} rows "
                        "expected",
                        T, p, in.parts[p].width, in.parts[p].log_height, widths[p], in.log_height));
    const SymbolicDag& dag = vk.symbolic_constraints;
    s.degree = vk.max_constraint_degree;
    // The quotient q needs (d_T - 1) N points, s'_p and s'_q d_T (N - 1) + 1: without interactions
    // (s'_p = s'_q = 0) one coset fewer gives the same polynomials (keccakf: 2 cosets, not 3).
    s.cosets = std::max<uint32_t>(dag.interactions.empty() && s.degree > 1 ? s.degree - 1 : s.degree, 1);
    s.n_tilde = in.log_height > l_ ? in.log_height - l_ : 0;
    s.chunks = uint64_t(1) << s.n_tilde;
    s.present = (dag.constraint_idx.empty() ? 0u : 1u) | (dag.interactions.empty() ? 0u : 6u);
    // Blocks of 2^log_block chunks: the largest whose extension fits the budget (a quarter of the
    // trace, at least kRound0MinBlockBytes, at most one binding).
    uint64_t trace_bytes = 0;
    for (const TracePart& p : in.parts) trace_bytes += p.bytes();
    if (in.rotated.size() != widths.size())
      throw InputError(fmt::format("round 0: trace {} has rotated columns for {} parts, {} expected", T,
                                   in.rotated.size(), widths.size()));
    uint64_t ext_columns = 0;
    for (size_t p = 0; p < widths.size(); ++p) ext_columns += widths[p] + in.rotated[p].size();
    const uint64_t ext_per_chunk = ext_columns * sizeof(Fp) * n_;
    const uint64_t budget =
        std::min(std::max(trace_bytes / 4, round0_min_block_bytes()), g_.memory_limits().max_view_bytes());
    s.log_block = s.n_tilde;
    while (s.log_block > 0 && (ext_per_chunk << s.log_block) > budget) --s.log_block;
    if (ext_per_chunk > g_.memory_limits().max_view_bytes())
      throw GraphError(
          fmt::format("round 0: trace {}: the extension of one chunk of its rows ({} bytes) is larger "
                      "than one binding may be ({} bytes)",
                      T, ext_per_chunk, g_.memory_limits().max_view_bytes()));
    s.blocks = uint32_t(s.chunks >> s.log_block);
    s.block_rows = weighted_sum_rows(uint64_t(1) << s.log_block);
    s.rows = s.blocks * s.block_rows;
    s.extended.assign(size_t(s.cosets) * s.blocks, 0);
    s.reduced.assign(size_t(s.cosets) * s.blocks, 0);
    s.values.resize(size_t(s.cosets) * s.blocks);
  }
  const uint32_t n_max = traces_.front().n_tilde;
  if (xi_.count < l_ + n_max)
    throw InputError(fmt::format("round 0: xi has {} coordinates, l_skip + n_max = {} needed", xi_.count, l_ + n_max));
}

// lambda first (protocol.md 7 step 5): the constraint coefficients are its powers.
void Round0Prover::sample_lambda() {
  lambda_ = g_.transient<Fp4>("batch_constraint.round0.lambda", 1).all();
  ProgramBuilder p(g_, t_, "batch_constraint.round0.lambda");
  store_ext(lambda_, sample_ext(p));
  p.emit();
}

// What needs xi alone: eq(xi[l..l+n], x) for every lifted n of a trace, and the coefficients of
// eq#(xi[0..l], Z) and eq_D(xi_0, Z).
void Round0Prover::eq_tables() {
  for (TraceState& s : traces_) {
    auto [it, fresh] = eq_by_n_.try_emplace(s.n_tilde);
    if (fresh) {
      const uint32_t m = s.n_tilde;
      if (m == 0) {
        it->second = g_.constant<Fp4>("batch_constraint.round0.eq_x.n0", std::vector<Fp4>{Fp4::one()}).all();
      } else {
        it->second = g_.transient<Fp4>(fmt::format("batch_constraint.round0.eq_x.n{}", m), uint64_t(1) << m).all();
        g_.dispatch<EqTable>(fmt::format("batch_constraint.round0.eq_x.n{}", m),
                             {.u = xi_.slice(l_, m), .out = it->second, .m = m});
      }
    }
    s.eq_x = it->second;
  }
  std::vector<Fp> inv_roots(n_);
  const Fp w_inv = two_adic_generator(l_).inverse();
  Fp x = Fp::one();
  for (Fp& e : inv_roots) {
    e = x;
    x *= w_inv;
  }
  eq_polys_ = g_.transient<Fp4>("batch_constraint.round0.eq_polys", 2 * n_).all();
  g_.dispatch<ZerocheckEqPolys>("batch_constraint.round0.eq_polys",
                                {.xi = xi_.slice(0, l_),
                                 .inv_roots = g_.constant<Fp>("batch_constraint.round0.inv_roots", inv_roots),
                                 .out = eq_polys_,
                                 .log_n = l_});
}

uint32_t Round0Prover::cosets(uint32_t T) const { return traces_.at(T).cosets; }
uint32_t Round0Prover::blocks(uint32_t T) const { return traces_.at(T).blocks; }
uint64_t Round0Prover::points(uint32_t T) const { return n_ << traces_.at(T).log_block; }

Round0Coset Round0Prover::extend(uint32_t T, uint32_t c, uint32_t b) {
  if (finished_) throw GraphError("round 0: extend after finish");
  if (T >= traces_.size() || c == 0 || c > traces_[T].cosets || b >= traces_[T].blocks)
    throw GraphError(fmt::format("round 0: no block {} of coset {} of trace {}", b, c, T));
  TraceState& s = traces_[T];
  const size_t at_cb = size_t(c - 1) * s.blocks + b;
  if (s.extended[at_cb])
    throw GraphError(fmt::format("round 0: block {} of coset {} of trace {} extended twice", b, c, T));
  s.extended[at_cb] = 1;
  const Round0Trace& in = s.in;
  const bool rot = in.vk->params.need_rot;
  const uint64_t m = n_ << s.log_block, first = uint64_t(b) << s.log_block;
  uint64_t cells = 0;  // extension values: the local columns, the next rows of the rotated ones
  for (uint32_t p = 0; p < in.parts.size(); ++p) cells += in.parts[p].width + in.rotated[p].size();
  cells *= m;
  const std::string coset = fmt::format("coset{}", c), block = s.blocks == 1 ? std::string() : fmt::format(".b{}", b);
  Buffer<Fp> ext = g_.transient<Fp>(name(T, coset + block + ".extension"), cells);
  auto [w, fresh] = weights_.try_emplace(c);
  if (fresh)
    w->second =
        g_.constant<Fp>(fmt::format("batch_constraint.round0.weights.coset{}", c), coset_extension_weights(l_, c));
  auto [fft, fft_fresh] = fft_.try_emplace(c);
  if (fft_fresh) {
    const std::vector<Fp> table = coset_extension_fft(l_, c);
    fft->second =
        table.empty() ? w->second : g_.constant<Fp>(fmt::format("batch_constraint.round0.fft.coset{}", c), table);
  }
  const View<Fp> fft_view = l_ == ZerocheckCosetExtend::kFftLogN ? fft->second.all() : fft->second.slice(0, 0);

  Round0Coset out;
  out.columns = ext.all();
  out.trace = T;
  out.coset = c;
  out.block = b;
  out.first_chunk = first;
  out.points = m;
  uint64_t at = 0;
  for (uint32_t p = 0; p < in.parts.size(); ++p) {
    const TracePart& part = in.parts[p];
    const std::string part_name = fmt::format("extend.part{}", p);
    const auto dispatch = [&](const std::string& step, const TracePart::Segment& seg, uint64_t first_col, uint64_t cols,
                              uint32_t shift, View<Fp> dst) {
      g_.dispatch<ZerocheckCosetExtend>(
          name(T, step), {.in = seg.data.slice((first_col - seg.first_column) << in.log_height, cols << in.log_height),
                          .weights = w->second,
                          .fft = fft_view,
                          .out = dst,
                          .log_height = in.log_height,
                          .log_n = l_,
                          .shift = shift,
                          .first_chunk = uint32_t(first),
                          .log_chunks = s.log_block});
    };
    // The local columns; a part in several pieces is extended piece by piece, each into its columns.
    const View<Fp> local = ext.slice(at, part.width * m);
    at += part.width * m;
    out.local.push_back(local);
    for (const TracePart::Segment& seg : part.segments)
      dispatch(fmt::format("{}.local.{}{}{}", part_name, coset, block,
                           part.segments.size() == 1 ? std::string() : fmt::format(".c{}", seg.first_column)),
               seg, seg.first_column, seg.columns, 0, local.slice(seg.first_column * m, uint64_t(seg.columns) * m));
    if (!rot) {
      out.next.push_back({});
      continue;
    }
    // The next rows of the rotated columns, a dispatch per run of consecutive ones within a piece.
    const std::vector<uint32_t>& r = in.rotated[p];
    const View<Fp> next = ext.slice(at, r.size() * m);
    at += r.size() * m;
    out.next.push_back(next);
    for (size_t i = 0; i < r.size();) {
      const TracePart::Segment* seg = nullptr;
      for (const TracePart::Segment& sg : part.segments)
        if (r[i] >= sg.first_column && r[i] < sg.first_column + sg.columns) seg = &sg;
      if (seg == nullptr) throw GraphError(fmt::format("round 0: trace {} part {} has no column {}", T, p, r[i]));
      size_t j = i + 1;
      while (j < r.size() && r[j] == r[j - 1] + 1 && r[j] < seg->first_column + seg->columns) ++j;
      dispatch(fmt::format("{}.next.{}{}.c{}", part_name, coset, block, r[i]), *seg, r[i], j - i, 1,
               next.slice(i * m, (j - i) * m));
      i = j;
    }
  }
  // Blocks away from row 0 and row H - 1 share one selector constant.
  const bool edge = b == 0 || b + 1 == s.blocks;
  const uint64_t sel_first = edge ? first : 1;
  auto [sel, sel_fresh] = selectors_.try_emplace(std::tuple{in.log_height, c, sel_first, s.log_block});
  if (sel_fresh)
    sel->second =
        g_.constant<Fp>(s.blocks == 1 ? fmt::format("batch_constraint.round0.selectors.h{}.coset{}", in.log_height, c)
                                      : fmt::format("batch_constraint.round0.selectors.h{}.coset{}.x{}.b{}",
                                                    in.log_height, c, sel_first, s.log_block),
                        coset_selectors(l_, in.log_height, c, sel_first, s.log_block));
  out.selectors = sel->second.all();
  const View<Fp4> values = g_.transient<Fp4>(name(T, coset + block + ".values"), 3 * m).all();
  s.values[at_cb] = values;
  if (s.present & 1) out.zerocheck = values.slice(0, m);
  if (s.present & 2) out.numerator = values.slice(m, m);
  if (s.present & 4) out.denominator = values.slice(2 * m, m);
  return out;
}

void Round0Prover::reduce(uint32_t T, uint32_t c, uint32_t b) {
  if (finished_) throw GraphError("round 0: reduce after finish");
  if (T >= traces_.size() || c == 0 || c > traces_[T].cosets || b >= traces_[T].blocks ||
      !traces_[T].extended[size_t(c - 1) * traces_[T].blocks + b])
    throw GraphError(fmt::format("round 0: reduce of block {} of coset {} of trace {} before its extend", b, c, T));
  TraceState& s = traces_[T];
  const size_t at_cb = size_t(c - 1) * s.blocks + b;
  if (s.reduced[at_cb])
    throw GraphError(fmt::format("round 0: block {} of coset {} of trace {} reduced twice", b, c, T));
  s.reduced[at_cb] = 1;
  const uint64_t group = 3 * n_ * s.block_rows;  // one block's partial sums
  if (s.partials.count == 0)
    s.partials = g_.transient<Fp4>(name(T, "partials"), uint64_t(s.cosets) * s.blocks * group).all();
  const View<Fp4> dst = s.partials.slice(at_cb * group, group);
  const std::string step =
      name(T, fmt::format("coset{}.weighted_sums{}", c, s.blocks == 1 ? std::string() : fmt::format(".b{}", b)));
  if (s.present == 0) {  // nothing to sum: the trace's polynomials are 0
    g_.dispatch<FillU32>(step, {.out = dst.bitcast<uint32_t>(), .value = 0});
    return;
  }
  g_.dispatch<ZerocheckWeightedSums>(step, {.values = s.values[at_cb],
                                            .eq = s.eq_x.slice(uint64_t(b) << s.log_block, uint64_t(1) << s.log_block),
                                            .partials = dst,
                                            .n = uint32_t(n_),
                                            .present = s.present});
}

// The polynomials of degree < C N through each functional's C N weighted sums: the zerocheck's
// divided by z^N - 1 (= g^(cN) - 1 on coset c: the quotient q). The numerator's values carry norm_T
// already (its coefficients, stages/batch_constraint/functionals.hpp).
void Round0Prover::interpolate(uint32_t T, View<Fp4> coeffs) {
  TraceState& s = traces_[T];
  auto [mat, fresh] = matrices_.try_emplace(s.cosets);
  if (fresh)
    mat->second = g_.constant<Fp>(fmt::format("batch_constraint.round0.interpolation.cosets{}", s.cosets),
                                  coset_interpolation_matrix(l_, s.cosets));
  std::vector<Fp> scale(3 * s.cosets);
  for (uint32_t c = 1; c <= s.cosets; ++c) {
    scale[c - 1] = (coset_shift(c).pow(n_) - Fp::one()).inverse();
    scale[s.cosets + c - 1] = Fp::one();
    scale[2 * s.cosets + c - 1] = Fp::one();
  }
  g_.dispatch<ZerocheckInterpolate>(name(T, "interpolate"), {.partials = s.partials,
                                                             .matrix = mat->second,
                                                             .scale = g_.constant<Fp>(name(T, "scale"), scale),
                                                             .coeffs = coeffs,
                                                             .log_n = l_,
                                                             .rows = s.rows});
}

// sum_p[T] = N sum_{j = 0 mod N} s_p,T[j], likewise sum_q[T] (protocol.md 5.7): written into the
// proof, observed p_T, q_T trace by trace (16.1 item 9); then mu.
void Round0Prover::sums_and_mu(const Round0ProofViews& proof, View<Fp4> polys) {
  const uint64_t len = polys.count / (3 * traces_.size()), terms = (len - 1) / n_ + 1;
  mu_ = g_.transient<Fp4>("batch_constraint.round0.mu", 1).all();
  const uint32_t P = uint32_t(traces_.size());
  for (uint32_t first = 0; first < P; first += kSumsPerProgram) {
    ProgramBuilder p(g_, t_,
                     first == 0 ? "batch_constraint.round0.sums.program"
                                : fmt::format("batch_constraint.round0.sums.program.part{}", first / kSumsPerProgram));
    const DeviceFp4 n = constant(p, Fp4(Fp::from_canonical_unchecked(uint32_t(n_))));
    for (uint32_t T = first; T < std::min(P, first + kSumsPerProgram); ++T)
      for (uint32_t f = 0; f < 2; ++f) {  // sum_p[T], then sum_q[T]
        const DeviceFp4 v = sum_ext(p, polys, (3 * uint64_t(T) + f) * len, terms, n_) * n;
        store_ext(f == 0 ? proof.numerator_term_per_air : proof.denominator_term_per_air, v, T);
        observe_ext(v);
      }
    if (first + kSumsPerProgram >= P) store_ext(mu_, sample_ext(p));
    p.emit();
  }
}

// s_0 = sum_T mu^(2T) s_p,T + mu^(2T+1) s_q,T + mu^(2P+T) s_zc,T into the proof; observe all of its
// coefficients (16.1 item 11), r_0.
void Round0Prover::round0(const Round0ProofViews& proof, View<Fp4> polys) {
  g_.dispatch<ZerocheckBatchRound0>("batch_constraint.round0.s0",
                                    {.polys = polys, .mu = mu_, .coeffs = proof.univariate_round_coeffs});
  r0_ = g_.transient<Fp4>("batch_constraint.round0.r0", 1).all();
  ProgramBuilder p(g_, t_, "batch_constraint.round0.s0.program");
  p.observe_ext(proof.univariate_round_coeffs);
  store_ext(r0_, sample_ext(p));
  p.emit();
}

Round0Result Round0Prover::finish(const Round0ProofViews& proof) {
  if (finished_) throw GraphError("round 0: finish called twice");
  for (uint32_t T = 0; T < traces_.size(); ++T)
    for (size_t i = 0; i < traces_[T].reduced.size(); ++i)
      if (!traces_[T].reduced[i])
        throw GraphError(fmt::format("round 0: finish before block {} of coset {} of trace {} was reduced",
                                     i % traces_[T].blocks, i / traces_[T].blocks + 1, T));
  finished_ = true;
  const uint64_t P = traces_.size(), len = (params_.max_constraint_degree + 1ull) * (n_ - 1) + 1;
  if (proof.numerator_term_per_air.count != P || proof.denominator_term_per_air.count != P ||
      proof.univariate_round_coeffs.count != len)
    throw InputError(fmt::format("round 0: proof views of {}, {}, {} entries; {}, {}, {} expected",
                                 proof.numerator_term_per_air.count, proof.denominator_term_per_air.count,
                                 proof.univariate_round_coeffs.count, P, P, len));
  const View<Fp4> polys = g_.transient<Fp4>("batch_constraint.round0.polys", 3 * P * len).all();
  for (uint32_t T = 0; T < P; ++T) {
    TraceState& s = traces_[T];
    const View<Fp4> coeffs = g_.transient<Fp4>(name(T, "coeffs"), 3 * s.cosets * n_).all();
    interpolate(T, coeffs);
    g_.dispatch<ZerocheckRound0Polys>(name(T, "polys"), {.coeffs = coeffs,
                                                         .eq_polys = eq_polys_,
                                                         .polys = polys.slice(3 * T * len, 3 * len),
                                                         .log_n = l_,
                                                         .trace_degree = s.degree});
  }
  sums_and_mu(proof, polys);
  round0(proof, polys);
  return {mu_, r0_, eq_polys_, polys, len};
}

}  // namespace vkstark
