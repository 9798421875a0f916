#include "tests/support/model_batch_prover.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <span>
#include <stdexcept>
#include <string>

#include "stages/air/eval.hpp"

namespace vkstark {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::logic_error("model batch prover: " + what); }
[[noreturn]] void bad_input(const std::string& what) { throw std::invalid_argument("model batch prover: " + what); }
void require(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

Fp fp(uint64_t v) { return Fp::reduce(v); }
Fp4 ext(Fp v) { return Fp4(v); }

// ---------------------------------------------------------------------------------------------
// Univariate and multilinear helpers, from their definitions.

// eq(x, y) = Π_k (x_k y_k + (1 - x_k)(1 - y_k)).
Fp4 eq(std::span<const Fp4> x, std::span<const Fp4> y) {
  if (x.size() != y.size()) fail("eq of points of different lengths");
  Fp4 acc = Fp4::one();
  for (size_t k = 0; k < x.size(); ++k) acc *= x[k] * y[k] + (Fp4::one() - x[k]) * (Fp4::one() - y[k]);
  return acc;
}

// The boolean point bits_n(v), little-endian.
std::vector<Fp4> bits(uint64_t v, uint32_t n) {
  std::vector<Fp4> b(n);
  for (uint32_t k = 0; k < n; ++k) b[k] = ((v >> k) & 1) ? Fp4::one() : Fp4::zero();
  return b;
}

// Lagrange basis of the subgroup of order 2^log_n at its k-th element ω^k, evaluated at z:
// L_k(z) = (1/n) Σ_{j<n} (z ω^{-k})^j (1 at ω^k, 0 at the other elements, degree < n).
Fp4 lagrange_subgroup(uint32_t log_n, uint64_t k, Fp4 z) {
  const uint64_t n = uint64_t(1) << log_n;
  const Fp w_inv_k = two_adic_generator(log_n).inverse().pow(k);
  const Fp4 u = z * w_inv_k;
  Fp4 acc, p = Fp4::one();
  for (uint64_t j = 0; j < n; ++j) {
    acc += p;
    p *= u;
  }
  return acc * fp(n).inverse();
}

// eq_D(x, y) = (1/N)(1 + Σ_{j=1}^{N-1} x^j y^{N-j}) (protocol.md 5.1, closed form).
Fp4 eq_D(uint32_t l, Fp4 x, Fp4 y) {
  const uint64_t n = uint64_t(1) << l;
  Fp4 acc = Fp4::one();
  for (uint64_t j = 1; j < n; ++j) acc += x.pow(j) * y.pow(n - j);
  return acc * fp(n).inverse();
}

// eq♯(ξ[0..l], Z) = Σ_k eq(ξ[0..l], bits_l(k)) L_k(Z) (protocol.md 5.2).
Fp4 eq_sharp(uint32_t l, std::span<const Fp4> xi_low, Fp4 z) {
  Fp4 acc;
  for (uint64_t k = 0; k < (uint64_t(1) << l); ++k) acc += eq(xi_low, bits(k, l)) * lagrange_subgroup(l, k, z);
  return acc;
}

Fp4 horner(std::span<const Fp4> coeffs, Fp4 z) {
  Fp4 acc;
  for (size_t i = coeffs.size(); i-- > 0;) acc = acc * z + coeffs[i];
  return acc;
}

// Monomial coefficients of the polynomial of degree < points.size() through (points[i], values[i]),
// by Gaussian elimination on the Vandermonde matrix (over Fp; the values are Fp4).
std::vector<Fp4> interpolate_monomial(std::span<const Fp> points, std::span<const Fp4> values) {
  const size_t m = points.size();
  std::vector<std::vector<Fp>> a(m, std::vector<Fp>(m));
  std::vector<Fp4> b(values.begin(), values.end());
  for (size_t i = 0; i < m; ++i) {
    Fp p = Fp::one();
    for (size_t j = 0; j < m; ++j) {
      a[i][j] = p;
      p *= points[i];
    }
  }
  for (size_t col = 0; col < m; ++col) {
    size_t piv = col;
    while (piv < m && a[piv][col].is_zero()) ++piv;
    if (piv == m) fail("interpolation points are not distinct");
    std::swap(a[piv], a[col]);
    std::swap(b[piv], b[col]);
    const Fp inv = a[col][col].inverse();
    for (size_t j = 0; j < m; ++j) a[col][j] *= inv;
    b[col] *= inv;
    for (size_t i = 0; i < m; ++i) {
      if (i == col || a[i][col].is_zero()) continue;
      const Fp f = a[i][col];
      for (size_t j = 0; j < m; ++j) a[i][j] -= f * a[col][j];
      b[i] -= b[col] * f;
    }
  }
  return b;
}

// The polynomial through (0, v_0), (1, v_1), ..., (k, v_k) at r (Lagrange on the integers).
Fp4 interpolate_integers(std::span<const Fp4> v, Fp4 r) {
  Fp4 acc;
  for (size_t i = 0; i < v.size(); ++i) {
    Fp4 num = Fp4::one();
    Fp den = Fp::one();
    for (size_t j = 0; j < v.size(); ++j) {
      if (j == i) continue;
      num *= r - fp(j);
      den *= fp(i) - fp(j);
    }
    acc += v[i] * num * den.inverse();
  }
  return acc;
}

// ---------------------------------------------------------------------------------------------
// One trace, lifted (protocol.md 5.4) to 2^(l + ñ) rows, as plain columns: the local and the
// rotated (next row of the original trace, cyclically) view of every column of every part in
// row-view order, and the three selector columns.

struct TraceModel {
  const AirProvingKey* apk = nullptr;
  bool need_rot = false;
  uint32_t log_h = 0;                                    // log2 of the original height H
  int32_t n = 0;                                         // n_T = log_h - l
  uint32_t nt = 0;                                       // ñ_T
  uint64_t len = 0;                                      // 2^(l + ñ)
  std::vector<std::vector<std::vector<Fp>>> local, rot;  // [row-view part][col][lifted row]
  std::array<std::vector<Fp>, 3> sel;                    // is_first, is_last, is_transition
  std::vector<Fp4> eq3b;                                 // per interaction sigma
  Fp norm;                                               // 1 / 2^max(-n, 0)
  std::span<const Fp> pvs;
};

// The values of every column of a trace at one point.
class PointRow final : public RowSource<Fp4> {
 public:
  std::array<Fp4, 3> sel;
  std::vector<std::vector<Fp4>> local, rot;
  std::span<const Fp> pvs;

  Fp4 selector(NodeKind kind) const override {
    switch (kind) {
      case NodeKind::IsFirstRow:
        return sel[0];
      case NodeKind::IsLastRow:
        return sel[1];
      case NodeKind::IsTransition:
        return sel[2];
      default:
        fail("selector() asked for a non-selector node");
    }
  }
  Fp4 value(uint32_t part, uint32_t offset, uint32_t col) const override {
    return (offset == 0 ? local : rot).at(part).at(col);
  }
  Fp public_value(uint32_t i) const override { return pvs[i]; }
};

// The batched polynomial's three parts of one trace at one point, without μ and without the
// front-loading factor: p = E♯·norm·N_T, q = E♯·Q_T, zc = E·C_T (protocol.md 9.2).
struct Parts {
  Fp4 p, q, zc;
  Parts& operator+=(const Parts& o) {
    p += o.p;
    q += o.q;
    zc += o.zc;
    return *this;
  }
};

class Model {
 public:
  explicit Model(const ModelBatchInput& in);

  uint32_t l() const { return l_; }
  uint32_t d() const { return d_; }
  uint32_t P() const { return uint32_t(traces_.size()); }
  uint32_t n_max() const { return n_max_; }
  const TraceModel& trace(uint32_t T) const { return traces_[T]; }

  // The PLE of every view column of T at (z, x[0..ñ_T]): Σ_i L_{i mod N}(z) eq(bits(i >> l), x) col[i].
  PointRow row_at(uint32_t T, Fp4 z, std::span<const Fp4> x) const;
  Parts parts_at(uint32_t T, Fp4 z, std::span<const Fp4> x) const;
  // parts_at times Π_{k > ñ_T} X_k, at (z, x) with x of length n_max (protocol.md 9.2).
  Parts front_loaded_parts(uint32_t T, Fp4 z, std::span<const Fp4> x) const;
  // Σ_{y ∈ H_free} of front_loaded_parts at (z, prefix ‖ y), for each trace.
  std::vector<Parts> sum_parts(Fp4 z, std::span<const Fp4> prefix) const;
  // S = Σ_T μ^{2T} p_T + μ^{2T+1} q_T + μ^{2P+T} zc_T.
  Fp4 batch(std::span<const Parts> per_trace, Fp4 mu) const;

  std::vector<Fp4> lambda_powers;

 private:
  const ModelBatchInput& in_;
  uint32_t l_ = 0, d_ = 0, n_max_ = 0;
  std::vector<TraceModel> traces_;
};

Model::Model(const ModelBatchInput& in) : in_(in) {
  if (in.pk == nullptr) bad_input("no proving key");
  const ProvingKey& pk = *in.pk;
  l_ = pk.params().l_skip;
  d_ = pk.params().max_constraint_degree;
  const size_t P = in.order.size();
  if (in.parts.size() != P || in.public_values.size() != P || in.row_start.size() != P)
    bad_input(fmt::format("order has {} traces, parts {}, public values {}, row_start {}", P, in.parts.size(),
                          in.public_values.size(), in.row_start.size()));
  for (size_t T = 0; T < P; ++T) {
    const uint32_t a = in.order[T];
    if (a >= pk.per_air.size()) bad_input(fmt::format("trace {}: AIR index {} out of range", T, a));
    TraceModel tm;
    tm.apk = &pk.per_air[a];
    const AirShape& shape = tm.apk->shape;
    const SymbolicDag& dag = tm.apk->dag;
    tm.need_rot = pk.vk.per_air[a].params.need_rot;
    if (pk.vk.per_air[a].max_constraint_degree > d_) bad_input(fmt::format("trace {}: AIR degree above d", T));
    const auto& parts = in.parts[T];
    check_trace_shape(tm.apk->name, shape, parts, in.public_values[T]);
    const uint32_t H = parts.front().height;
    tm.log_h = uint32_t(std::countr_zero(H));
    tm.n = int32_t(tm.log_h) - int32_t(l_);
    tm.nt = uint32_t(std::max(tm.n, 0));
    tm.len = uint64_t(1) << (l_ + tm.nt);
    tm.norm = fp(uint64_t(1) << std::max(-tm.n, 0)).inverse();
    tm.pvs = in.public_values[T];
    if (T > 0 && tm.log_h > traces_.back().log_h) bad_input("traces are not sorted by height, descending");
    // Lifted row i reads original row i mod H; its next row is (i mod H + 1) mod H.
    tm.local.resize(parts.size());
    tm.rot.resize(parts.size());
    for (size_t p = 0; p < parts.size(); ++p) {
      for (uint32_t c = 0; c < parts[p].width; ++c) {
        std::vector<Fp> loc(tm.len), nxt(tm.len);
        for (uint64_t i = 0; i < tm.len; ++i) {
          loc[i] = parts[p].at(uint32_t(i % H), c);
          nxt[i] = parts[p].at(uint32_t((i % H + 1) % H), c);
        }
        tm.local[p].push_back(std::move(loc));
        tm.rot[p].push_back(std::move(nxt));
      }
    }
    for (auto& s : tm.sel) s.resize(tm.len);
    for (uint64_t i = 0; i < tm.len; ++i) {
      tm.sel[0][i] = i % H == 0 ? Fp::one() : Fp::zero();
      tm.sel[1][i] = i % H == H - 1 ? Fp::one() : Fp::zero();
      tm.sel[2][i] = Fp::one() - tm.sel[1][i];
    }
    if (in.row_start[T].size() != dag.interactions.size())
      bad_input(fmt::format("trace {}: {} row_starts for {} interactions", T, in.row_start[T].size(),
                            dag.interactions.size()));
    traces_.push_back(std::move(tm));
  }
  n_max_ = traces_.empty() ? 0 : traces_.front().nt;
  const uint32_t n_global = std::max(n_max_, in.n_logup);
  if (in.xi.size() != l_ + n_global)
    bad_input(fmt::format("xi has {} coordinates, l_skip + max(n_max, n_logup) = {}", in.xi.size(), l_ + n_global));
  // eq3b[T][σ] = eq(ξ[l+ñ .. l+n_logup], bits(row_start >> (l + ñ))) (protocol.md 9.1).
  for (TraceModel& tm : traces_) {
    const size_t T = &tm - traces_.data();
    for (uint64_t rs : in.row_start[T]) {
      if (tm.apk->dag.interactions.empty()) break;
      if (in.n_logup < tm.nt) bad_input("n_logup below a trace's ñ");
      if (rs % tm.len != 0) bad_input(fmt::format("trace {}: row_start {} not aligned to {}", T, rs, tm.len));
      const uint32_t nb = in.n_logup - tm.nt;
      const std::span<const Fp4> xs(in.xi.data() + l_ + tm.nt, nb);
      tm.eq3b.push_back(eq(xs, bits(rs >> (l_ + tm.nt), nb)));
    }
  }
  uint32_t max_constraints = 0;
  for (const TraceModel& tm : traces_) max_constraints = std::max(max_constraints, tm.apk->dag.num_constraints());
  lambda_powers.resize(max_constraints);
}

PointRow Model::row_at(uint32_t T, Fp4 z, std::span<const Fp4> x) const {
  const TraceModel& tm = traces_[T];
  if (x.size() != tm.nt) fail("row_at: point of the wrong dimension");
  const uint64_t N = uint64_t(1) << l_;
  std::vector<Fp4> lz(N);
  for (uint64_t k = 0; k < N; ++k) lz[k] = lagrange_subgroup(l_, k, z);
  std::vector<Fp4> w(tm.len);
  for (uint64_t i = 0; i < tm.len; ++i) w[i] = lz[i % N] * eq(x, bits(i >> l_, tm.nt));
  auto eval = [&](const std::vector<Fp>& col) {
    Fp4 acc;
    for (uint64_t i = 0; i < tm.len; ++i) acc += w[i] * col[i];
    return acc;
  };
  PointRow row;
  for (size_t s = 0; s < 3; ++s) row.sel[s] = eval(tm.sel[s]);
  row.local.resize(tm.local.size());
  row.rot.resize(tm.rot.size());
  for (size_t p = 0; p < tm.local.size(); ++p) {
    for (const auto& col : tm.local[p]) row.local[p].push_back(eval(col));
    for (const auto& col : tm.rot[p]) row.rot[p].push_back(eval(col));
  }
  row.pvs = tm.pvs;
  return row;
}

Parts Model::parts_at(uint32_t T, Fp4 z, std::span<const Fp4> x) const {
  const TraceModel& tm = traces_[T];
  const SymbolicDag& dag = tm.apk->dag;
  const PointRow row = row_at(T, z, x);
  std::vector<Fp4> values;
  eval_nodes<Fp4>(dag, tm.apk->shape, row, values);
  const Fp4 C = fold_constraints<Fp4>(dag, values, lambda_powers);
  Fp4 Nsum, Qsum;
  for (size_t s = 0; s < dag.interactions.size(); ++s) {
    const DagInteraction& it = dag.interactions[s];
    Fp4 h, bp = Fp4::one();
    for (uint32_t m : it.message) {
      h += bp * values[m];
      bp *= in_.beta;
    }
    h += bp * fp(uint64_t(it.bus) + 1);
    Nsum += tm.eq3b[s] * values[it.count];
    Qsum += tm.eq3b[s] * h;
  }
  const std::span<const Fp4> xi(in_.xi);
  const Fp4 eq_cube = eq(xi.subspan(l_, tm.nt), x);
  const Fp4 e_sharp = eq_sharp(l_, xi.subspan(0, l_), z) * eq_cube;
  const Fp4 e = eq_D(l_, xi[0], z) * eq_cube;
  return {e_sharp * tm.norm * Nsum, e_sharp * Qsum, e * C};
}

Parts Model::front_loaded_parts(uint32_t T, Fp4 z, std::span<const Fp4> x) const {
  const TraceModel& tm = traces_[T];
  if (x.size() != n_max_) fail("front_loaded_parts: point of the wrong dimension");
  Fp4 factor = Fp4::one();
  for (uint32_t k = tm.nt; k < n_max_; ++k) factor *= x[k];
  if (factor.is_zero()) return {};  // the term vanishes; skip the evaluation
  Parts pt = parts_at(T, z, x.subspan(0, tm.nt));
  return {pt.p * factor, pt.q * factor, pt.zc * factor};
}

std::vector<Parts> Model::sum_parts(Fp4 z, std::span<const Fp4> prefix) const {
  if (prefix.size() > n_max_) fail("sum_parts: prefix longer than n_max");
  const uint32_t free = n_max_ - uint32_t(prefix.size());
  std::vector<Parts> acc(P());
  std::vector<Fp4> x(prefix.begin(), prefix.end());
  x.resize(n_max_);
  for (uint64_t y = 0; y < (uint64_t(1) << free); ++y) {
    const std::vector<Fp4> yb = bits(y, free);
    std::copy(yb.begin(), yb.end(), x.begin() + prefix.size());
    for (uint32_t T = 0; T < P(); ++T) acc[T] += front_loaded_parts(T, z, x);
  }
  return acc;
}

Fp4 Model::batch(std::span<const Parts> per_trace, Fp4 mu) const {
  Fp4 acc;
  const uint64_t Pn = P();
  for (uint64_t T = 0; T < Pn; ++T)
    acc += mu.pow(2 * T) * per_trace[T].p + mu.pow(2 * T + 1) * per_trace[T].q + mu.pow(2 * Pn + T) * per_trace[T].zc;
  return acc;
}

// N Σ_{j ≡ 0 mod N} c_j (protocol.md 5.7).
Fp4 sum_over_D_from_coeffs(std::span<const Fp4> coeffs, uint32_t l) {
  const uint64_t N = uint64_t(1) << l;
  Fp4 acc;
  for (uint64_t j = 0; j < coeffs.size(); j += N) acc += coeffs[j];
  return acc * fp(N);
}

// The opening of a lifted column by 9.4/9.6's route, independent of Model::row_at: fold each chunk
// of N rows at r_0 by the barycentric-free Lagrange sum, then fold the MLE table at r_1, r_2, ....
Fp4 fold_opening(const std::vector<Fp>& col, uint32_t l, std::span<const Fp4> r) {
  const uint64_t N = uint64_t(1) << l;
  std::vector<Fp4> t(col.size() / N);
  const Fp w = two_adic_generator(l);
  for (uint64_t b = 0; b < t.size(); ++b) {
    // Interpolate the chunk's values on D to coefficients (naive inverse DFT), evaluate at r_0.
    std::vector<Fp4> coeffs(N);
    for (uint64_t j = 0; j < N; ++j) {
      Fp4 c;
      for (uint64_t k = 0; k < N; ++k) c += ext(col[b * N + k] * w.pow(j * k).inverse());
      coeffs[j] = c * fp(N).inverse();
    }
    t[b] = horner(coeffs, r[0]);
  }
  for (size_t j = 1; j < r.size(); ++j) {
    std::vector<Fp4> next(t.size() / 2);
    for (size_t y = 0; y < next.size(); ++y) next[y] = t[2 * y] + r[j] * (t[2 * y + 1] - t[2 * y]);
    t = std::move(next);
  }
  if (t.size() != 1) fail("fold_opening: table not folded to one value");
  return t[0];
}

// For n < 0: the original column's interpolant on the subgroup of order H at r_0^(2^-n) (5.4).
Fp4 small_domain_opening(std::span<const Fp> original, uint32_t log_h, uint32_t l, Fp4 r0) {
  const Fp4 u = r0.pow(uint64_t(1) << (l - log_h));
  Fp4 acc;
  for (uint64_t i = 0; i < original.size(); ++i) acc += lagrange_subgroup(log_h, i, u) * original[i];
  return acc;
}

}  // namespace

Fp4 model_sum_over_D(const std::vector<Fp4>& coeffs, uint32_t l) {
  const Fp w = two_adic_generator(l);
  Fp4 acc;
  for (uint64_t k = 0; k < (uint64_t(1) << l); ++k) acc += horner(coeffs, ext(w.pow(k)));
  return acc;
}

ModelBatchOutput model_batch_prove(DuplexSponge& t, const ModelBatchInput& in) {
  Model m(in);
  const uint32_t l = m.l(), d = m.d(), P = m.P(), n_max = m.n_max();
  const uint64_t N = uint64_t(1) << l;
  const uint64_t num_coeffs = (d + 1) * (N - 1) + 1;
  ModelBatchOutput out;

  out.lambda = t.sample_ext();
  m.lambda_powers = powers(out.lambda, m.lambda_powers.size());

  // Round 0 per trace (9.3): each s_{·,T}(z) = Σ_{x ∈ H_{n_max}} front-loaded part at (z, x), at
  // num_coeffs distinct points (none in D, although any would do), interpolated to coefficients.
  std::vector<Fp> points(num_coeffs);
  for (uint64_t i = 0; i < num_coeffs; ++i) points[i] = fp(1000 + 7 * i);
  std::vector<std::vector<Fp4>> vp(P, std::vector<Fp4>(num_coeffs)), vq = vp, vzc = vp;
  for (uint64_t i = 0; i < num_coeffs; ++i) {
    const std::vector<Parts> s = m.sum_parts(ext(points[i]), {});
    for (uint32_t T = 0; T < P; ++T) {
      vp[T][i] = s[T].p;
      vq[T][i] = s[T].q;
      vzc[T][i] = s[T].zc;
    }
  }
  for (uint32_t T = 0; T < P; ++T) {
    out.s_p.push_back(interpolate_monomial(points, vp[T]));
    out.s_q.push_back(interpolate_monomial(points, vq[T]));
    out.s_zc.push_back(interpolate_monomial(points, vzc[T]));
  }

  // sum_p[T], sum_q[T] from the coefficients (5.7), checked against the direct sum of the parts over
  // D x H_{n_max} (front-loaded, so = the sum over D x H_ñ).
  std::vector<Parts> direct(P);
  const Fp w = two_adic_generator(l);
  for (uint64_t k = 0; k < N; ++k) {
    const std::vector<Parts> s = m.sum_parts(ext(w.pow(k)), {});
    for (uint32_t T = 0; T < P; ++T) direct[T] += s[T];
  }
  for (uint32_t T = 0; T < P; ++T) {
    const Fp4 sp = sum_over_D_from_coeffs(out.s_p[T], l), sq = sum_over_D_from_coeffs(out.s_q[T], l);
    require(sp == direct[T].p, fmt::format("trace {}: sum_p from s_p's coefficients differs from the direct sum", T));
    require(sq == direct[T].q, fmt::format("trace {}: sum_q from s_q's coefficients differs from the direct sum", T));
    require(sum_over_D_from_coeffs(out.s_zc[T], l) == direct[T].zc,
            fmt::format("trace {}: the zerocheck sum from s_zc's coefficients differs from the direct sum", T));
    if (!in.allow_violations)
      require(direct[T].zc.is_zero(), fmt::format("trace {}: the zerocheck part does not sum to 0 over D x H "
                                                  "(a violated constraint; set allow_violations to go on)",
                                                  T));
    out.proof.numerator_term_per_air.push_back(sp);
    out.proof.denominator_term_per_air.push_back(sq);
    t.observe_ext(sp);
    t.observe_ext(sq);
  }

  out.mu = t.sample_ext();
  const Fp4 mu = out.mu;
  std::vector<Fp4> s0(num_coeffs);
  for (uint32_t T = 0; T < P; ++T)
    for (uint64_t i = 0; i < num_coeffs; ++i)
      s0[i] += mu.pow(2 * T) * out.s_p[T][i] + mu.pow(2 * T + 1) * out.s_q[T][i] +
               mu.pow(2 * uint64_t(P) + T) * out.s_zc[T][i];
  {
    Fp4 expect;
    for (uint32_t T = 0; T < P; ++T)
      expect += mu.pow(2 * T) * out.proof.numerator_term_per_air[T] +
                mu.pow(2 * T + 1) * out.proof.denominator_term_per_air[T] + mu.pow(2 * uint64_t(P) + T) * direct[T].zc;
    require(model_sum_over_D(s0, l) == expect, "Σ_{z∈D} s_0(z) differs from Σ_T μ^{2T} sum_p + μ^{2T+1} sum_q");
  }
  out.proof.univariate_round_coeffs = s0;
  for (const Fp4& c : s0) t.observe_ext(c);
  const Fp4 r0 = t.sample_ext();
  out.r.push_back(r0);
  out.claims.push_back(horner(s0, r0));
  require(out.claims[0] == m.batch(m.sum_parts(r0, {}), mu), "s_0(r_0) differs from Σ_x S(r_0, x)");

  // MLE rounds (9.5): s_j(X) = Σ_{y ∈ H_{n_max - j}} S(r_0, r_1..r_{j-1}, X, y) at X = 0..d+1.
  for (uint32_t j = 1; j <= n_max; ++j) {
    std::vector<Fp4> prefix(out.r.begin() + 1, out.r.end());
    prefix.push_back(Fp4());
    std::vector<Fp4> vals(d + 2);
    for (uint32_t X = 0; X <= d + 1; ++X) {
      prefix.back() = ext(fp(X));
      vals[X] = m.batch(m.sum_parts(r0, prefix), mu);
    }
    require(vals[0] + vals[1] == out.claims[j - 1], fmt::format("round {}: s_j(0) + s_j(1) != c_{{j-1}}", j));
    std::vector<Fp4> msg(vals.begin() + 1, vals.end());
    for (const Fp4& v : msg) t.observe_ext(v);
    out.proof.sumcheck_round_polys.push_back(std::move(msg));
    const Fp4 rj = t.sample_ext();
    out.r.push_back(rj);
    out.claims.push_back(interpolate_integers(vals, rj));
    prefix.back() = rj;
    require(out.claims[j] == m.batch(m.sum_parts(r0, prefix), mu),
            fmt::format("round {}: s_j(r_j) interpolated from 0..d+1 differs from the direct sum (degree > d+1?)", j));
  }

  // Column openings (9.6, 12.1): parts [common, preprocessed?, cached...], [open, rot] per column
  // when need_rot; common parts of all traces observed first, then the other parts per trace.
  out.proof.column_openings.resize(P);
  for (uint32_t T = 0; T < P; ++T) {
    const TraceModel& tm = m.trace(T);
    const std::span<const Fp4> rs(out.r.data(), tm.nt + 1);
    const PointRow row = m.row_at(T, r0, rs.subspan(1));
    const uint32_t num_parts = uint32_t(tm.local.size());
    const uint32_t pre = tm.apk->shape.preprocessed_width > 0 ? 1 : 0;
    std::vector<uint32_t> proof_parts{num_parts - 1};  // row-view index of each proof part
    if (pre) proof_parts.push_back(0);
    for (uint32_t c = 0; c < tm.apk->shape.num_cached(); ++c) proof_parts.push_back(pre + c);
    for (uint32_t rv : proof_parts) {
      std::vector<Fp4> opened;
      for (size_t c = 0; c < tm.local[rv].size(); ++c) {
        const Fp4 o = row.local[rv][c], ro = row.rot[rv][c];
        require(o == fold_opening(tm.local[rv][c], l, rs) && ro == fold_opening(tm.rot[rv][c], l, rs),
                fmt::format("trace {}: opening of part {} column {} differs from the folded table", T, rv, c));
        if (tm.n < 0) {
          const TraceMatrix& orig = in.parts[T][rv];
          std::vector<Fp> c_orig(orig.height), c_rot(orig.height);
          for (uint32_t i = 0; i < orig.height; ++i) {
            c_orig[i] = orig.at(i, uint32_t(c));
            c_rot[i] = orig.at((i + 1) % orig.height, uint32_t(c));
          }
          require(
              o == small_domain_opening(c_orig, tm.log_h, l, r0) && ro == small_domain_opening(c_rot, tm.log_h, l, r0),
              fmt::format("trace {}: lifted opening differs from the small-domain one", T));
        }
        opened.push_back(o);
        if (tm.need_rot) opened.push_back(ro);
      }
      out.proof.column_openings[T].push_back(std::move(opened));
    }
  }
  auto observe_part = [&](uint32_t T, size_t part) {
    const std::vector<Fp4>& v = out.proof.column_openings[T][part];
    if (m.trace(T).need_rot) {
      for (const Fp4& x : v) t.observe_ext(x);
    } else {
      for (const Fp4& x : v) {
        t.observe_ext(x);
        t.observe_ext(Fp4::zero());
      }
    }
  };
  for (uint32_t T = 0; T < P; ++T) observe_part(T, 0);
  for (uint32_t T = 0; T < P; ++T)
    for (size_t part = 1; part < out.proof.column_openings[T].size(); ++part) observe_part(T, part);
  return out;
}

std::pair<Fp4, Fp4> model_logup_input_at(const ModelBatchInput& in, Fp4 alpha) {
  if (in.pk == nullptr) bad_input("no proving key");
  const uint32_t l = in.pk->params().l_skip;
  const uint32_t n_tot = l + in.n_logup;
  if (in.xi.size() < n_tot) bad_input("xi shorter than l_skip + n_logup");
  const uint64_t leaves = uint64_t(1) << n_tot;
  std::vector<Fp4> p(leaves), q(leaves, alpha);
  std::vector<bool> used(leaves, false);
  for (size_t T = 0; T < in.order.size(); ++T) {
    const AirProvingKey& apk = in.pk->per_air[in.order[T]];
    const SymbolicDag& dag = apk.dag;
    TraceRows rows(in.parts[T], in.public_values[T]);
    const uint32_t H = rows.height();
    const uint32_t log_h = uint32_t(std::countr_zero(H));
    const uint64_t slot = uint64_t(1) << std::max(log_h, l);
    const Fp norm = fp(uint64_t(1) << (std::max(log_h, l) - log_h)).inverse();
    std::vector<Fp> values;
    for (uint32_t i = 0; i < H; ++i) {
      rows.set_row(i);
      eval_nodes<Fp>(dag, apk.shape, rows, values);
      for (size_t s = 0; s < dag.interactions.size(); ++s) {
        const DagInteraction& it = dag.interactions[s];
        Fp4 h, bp = Fp4::one();
        for (uint32_t msg : it.message) {
          h += bp * values[msg];
          bp *= in.beta;
        }
        h += bp * fp(uint64_t(it.bus) + 1);
        // Lifted rows t ≡ i mod H of the slot repeat this row.
        for (uint64_t tt = i; tt < slot; tt += H) {
          const uint64_t idx = in.row_start[T][s] + tt;
          if (idx >= leaves || used[idx]) bad_input("interaction slots overlap or overflow the input layer");
          used[idx] = true;
          p[idx] = ext(values[it.count] * norm);
          q[idx] = alpha + h;
        }
      }
    }
  }
  const std::span<const Fp4> xs(in.xi.data(), n_tot);
  Fp4 p_hat, q_hat;
  for (uint64_t idx = 0; idx < leaves; ++idx) {
    const Fp4 e = eq(xs, bits(idx, n_tot));
    p_hat += e * p[idx];
    q_hat += e * q[idx];
  }
  return {p_hat, q_hat};
}

}  // namespace vkstark
