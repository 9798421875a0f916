#include "stages/batch_constraint/prover.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>

#include "kernels/batch_constraint.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/mle_tables.hpp"
#include "kernels/ntt.hpp"
#include "kernels/transcript.hpp"
#include "kernels/whir.hpp"
#include "stages/batch_constraint/round0.hpp"
#include "stages/common/device_value.hpp"
#include "stages/common/poly.hpp"
#include "stages/common/program.hpp"
#include "stages/compiler/constraint_kernel.hpp"
#include "stages/compiler/ext_kernel.hpp"
#include "stages/pcs/stacked.hpp"

namespace vkstark {

namespace {

// Code words after which a coefficient program is cut (kProgramMaxWords is 2048; one term takes
// well under 48).
constexpr uint64_t kProgramCut = 1800;
// Polynomial evaluation chunk (EvalPolyPartials).
constexpr uint32_t kEvalChunk = 64;
// Where round 1 makes a trace's tables at r_0 again (BatchConstraintInput::remake_tables): in about
// this many row tiles.
constexpr uint64_t kRemadeTiles = 8;

uint32_t n_tilde(uint32_t log_height, uint32_t l) { return log_height > l ? log_height - l : 0; }

// acc += x, where an absent acc is zero (absent values are no registers at all).
void add_to(std::optional<DeviceFp4>& acc, const DeviceFp4& x) { acc = acc ? *acc + x : x; }

// Writes a sequence of independent pieces as programs cut where they grow long: a piece must not
// keep a register across next() (the program may end there).
class ProgramSequence {
 public:
  ProgramSequence(Graph& g, DeviceTranscript& t, std::string name) : g_(g), t_(t), name_(std::move(name)) {}
  ProgramBuilder& next() {
    if (p_ && p_->code().size() > kProgramCut) emit();
    if (!p_) p_.emplace(g_, t_, parts_++ == 0 ? name_ : fmt::format("{}.part{}", name_, parts_ - 1));
    return *p_;
  }
  void emit() {
    if (p_) p_->emit();
    p_.reset();
  }

 private:
  Graph& g_;
  DeviceTranscript& t_;
  std::string name_;
  uint32_t parts_ = 0;
  std::optional<ProgramBuilder> p_;
};

class BatchConstraintProver {
 public:
  BatchConstraintProver(Graph& g, DeviceTranscript& t, const BatchConstraintViews& proof, const SystemParams& params,
                        const BatchConstraintInput& in, const BesideOpenings& beside)
      : g_(g),
        t_(t),
        proof_(proof),
        params_(params),
        in_(in),
        beside_(beside),
        l_(params.l_skip),
        n_(uint64_t(1) << params.l_skip),
        d_(params.max_constraint_degree),
        P_(uint32_t(in.traces.size())) {}

  View<Fp4> run() {
    check();
    std::optional<Graph::SpanScope> span;
    span.emplace(g_.span("round0"));
    std::vector<Round0Trace> r0_traces;
    for (const BatchTrace& tr : in_.traces)
      r0_traces.push_back({tr.vk, tr.parts, tr.log_height, tr.kernels->f.rotated});
    Round0Prover r0(g_, t_, params_, std::move(r0_traces), in_.xi);
    coefficients(r0.lambda());
    for (uint32_t T = 0; T < P_; ++T)
      for (uint32_t c = 1; c <= r0.cosets(T); ++c)
        for (uint32_t b = 0; b < r0.blocks(T); ++b) {
          const Round0Coset co = r0.extend(T, c, b);
          const View<Fp4> outs[kFunctionals] = {co.zerocheck, co.numerator, co.denominator};
          const uint32_t log_m = uint32_t(std::countr_zero(co.points));
          const std::vector<View<Fp>> sources = {co.columns, co.selectors};
          const std::string block = r0.blocks(T) == 1 ? std::string() : fmt::format(".b{}", b);
          for (uint32_t f = 0; f < kFunctionals; ++f) {
            if (!kernels(T).has(Functional(f))) continue;
            eval_constraints(g_, fmt::format("batch_constraint.round0.T{}.coset{}{}.f{}", T, c, block, f),
                             *trace(T).kernels->points[f], kernels(T).points_shape, sources,
                             in_.traces[T].public_values, coeffs_[T][f], outs[f], log_m);
          }
          r0.reduce(T, c, b);
        }
    const Round0Result res =
        r0.finish({proof_.numerator_term_per_air, proof_.denominator_term_per_air, proof_.univariate_round_coeffs});
    mu_powers_ = g_.transient<Fp4>("batch_constraint.mu_powers", 3 * uint64_t(P_)).all();
    g_.dispatch<Fp4Powers>("batch_constraint.mu_powers", {.a = res.mu, .out = mu_powers_});
    after_round0(res);
    span.reset();
    span.emplace(g_.span("mle_rounds"));
    for (uint32_t j = 1; j <= n_max_; ++j) round(j);
    // The column openings into the proof and the transcript (absorbing them is sequential: about
    // a permutation per 8 words whatever the trace's height).
    span.reset();
    span.emplace(g_.span("column_openings"));
    if (beside_.before) beside_.before(r_);
    openings();
    return r_;
  }

 private:
  const BatchTrace& trace(uint32_t T) const { return in_.traces[T]; }
  const AirFunctionals& kernels(uint32_t T) const { return in_.traces[T].kernels->f; }
  uint32_t nt(uint32_t T) const { return n_tilde(in_.traces[T].log_height, l_); }
  uint64_t sources(uint32_t T) const { return kernels(T).columns + 3; }  // tables per trace

  void check() {
    if (P_ == 0) throw InputError("batch constraint prover: no trace");
    n_max_ = nt(0);
    for (uint32_t T = 0; T < P_; ++T) {
      const BatchTrace& tr = trace(T);
      if (tr.vk == nullptr || tr.kernels == nullptr)
        throw InputError(fmt::format("batch constraint prover: trace {} has no key or no kernels", T));
      if (tr.kernels->f.need_rot != tr.vk->params.need_rot || tr.kernels->f.widths != tr.vk->shape().row_view_widths())
        throw InputError(fmt::format("batch constraint prover: trace {}: kernels made for another AIR", T));
      if (tr.row_start.size() != tr.vk->symbolic_constraints.interactions.size())
        throw InputError(fmt::format("batch constraint prover: trace {}: {} slots for {} interactions", T,
                                     tr.row_start.size(), tr.vk->symbolic_constraints.interactions.size()));
      if (!tr.row_start.empty() && nt(T) > in_.n_logup)
        throw InputError(
            fmt::format("batch constraint prover: trace {} has n~ {} above n_logup {}", T, nt(T), in_.n_logup));
    }
    // The round program holds the d + 2 values of s_j and a few more registers.
    if (d_ + 16 > kProgramRegisters)
      throw InputError(
          fmt::format("batch constraint prover: max_constraint_degree {} is above the {} the round "
                      "program holds",
                      d_, kProgramRegisters - 16));
    const uint64_t rounds = uint64_t(n_max_) * (d_ + 1);
    uint64_t openings = 0;
    for (uint32_t T = 0; T < P_; ++T) openings += kernels(T).columns;
    if (proof_.sumcheck_round_polys.count != rounds || proof_.column_openings.count != openings)
      throw InputError(
          fmt::format("batch constraint prover: proof views of {} round values and {} openings; {} and {} expected",
                      proof_.sumcheck_round_polys.count, proof_.column_openings.count, rounds, openings));
    if (in_.xi.count < l_ + std::max(n_max_, in_.n_logup))
      throw InputError(fmt::format("batch constraint prover: xi has {} coordinates, {} needed", in_.xi.count,
                                   l_ + std::max(n_max_, in_.n_logup)));
  }

  // The functionals' coefficients per trace (functionals.hpp): lambda powers; the numerator's and
  // denominator's from eq3b, beta and norm_T, by programs.
  void coefficients(View<Fp4> lambda) {
    uint32_t max_constraints = 0, max_len = 0;
    for (uint32_t T = 0; T < P_; ++T) {
      max_constraints = std::max(max_constraints, kernels(T).dag(Functional::Zerocheck).num_constraints());
      for (uint32_t len : kernels(T).lengths) max_len = std::max(max_len, len);
    }
    View<Fp4> lambda_powers = g_.transient<Fp4>("batch_constraint.lambda_powers", std::max(max_constraints, 1u)).all();
    g_.dispatch<Fp4Powers>("batch_constraint.lambda_powers", {.a = lambda, .out = lambda_powers});
    View<Fp4> beta_powers;
    coeffs_.resize(P_);
    for (uint32_t T = 0; T < P_; ++T) {
      coeffs_[T][0] = lambda_powers;
      const AirFunctionals& f = kernels(T);
      if (f.lengths.empty()) continue;
      if (beta_powers.count == 0) {
        beta_powers = g_.transient<Fp4>("batch_constraint.beta_powers", max_len + 1).all();
        g_.dispatch<Fp4Powers>("batch_constraint.beta_powers", {.a = in_.beta, .out = beta_powers});
      }
      const uint32_t sigmas = uint32_t(f.lengths.size()), free = in_.n_logup - nt(T);
      View<Fp4> eq3b = g_.transient<Fp4>(fmt::format("batch_constraint.T{}.eq3b", T), sigmas).all();
      {
        ProgramSequence seq(g_, t_, fmt::format("batch_constraint.T{}.eq3b", T));
        for (uint32_t s = 0; s < sigmas; ++s) {
          ProgramBuilder& p = seq.next();
          const uint64_t b = trace(T).row_start[s] >> (l_ + nt(T));
          DeviceFp4 acc = constant(p, Fp4(Fp::one()));
          for (uint32_t k = 0; k < free; ++k) {
            const DeviceFp4 x = load_ext(p, in_.xi, l_ + nt(T) + k);
            acc *= ((b >> k) & 1) != 0 ? x : Fp::one() - x;
          }
          store_ext(eq3b, acc, s);
        }
        seq.emit();
      }
      // norm_T = 2^-max(l - h, 0).
      const uint32_t lift = trace(T).log_height < l_ ? l_ - trace(T).log_height : 0;
      const Fp norm = Fp::from_canonical_unchecked(1u << lift).inverse();
      View<Fp4> num =
          g_.transient<Fp4>(fmt::format("batch_constraint.T{}.numerator_coeffs", T), f.numerator_terms.size()).all();
      View<Fp4> den =
          g_.transient<Fp4>(fmt::format("batch_constraint.T{}.denominator_coeffs", T), f.denominator_terms.size() + 1)
              .all();
      ProgramSequence seq(g_, t_, fmt::format("batch_constraint.T{}.coefficients", T));
      // sum over terms of eq3b[sigma] * weight(term), stored at dst[i].
      auto combination = [&](View<Fp4> dst, uint64_t i, auto&& terms, auto&& weight) {
        ProgramBuilder& p = seq.next();
        DeviceFp4 acc = constant(p, Fp4());
        for (const auto& term : terms) {
          const DeviceFp4 e = load_ext(p, eq3b, term.first);
          acc += e * weight(p, term);
        }
        store_ext(dst, acc, i);
      };
      for (size_t r = 0; r < f.numerator_terms.size(); ++r) {
        std::vector<std::pair<uint32_t, uint32_t>> terms;
        for (uint32_t s : f.numerator_terms[r]) terms.emplace_back(s, 0);
        combination(num, r, terms, [&](ProgramBuilder& p, const auto&) { return constant(p, Fp4(norm)); });
      }
      for (size_t r = 0; r < f.denominator_terms.size(); ++r)
        combination(den, r, f.denominator_terms[r],
                    [&](ProgramBuilder& p, const auto& term) { return load_ext(p, beta_powers, term.second); });
      std::vector<std::pair<uint32_t, uint32_t>> all;
      for (uint32_t s = 0; s < sigmas; ++s) all.emplace_back(s, f.lengths[s]);
      combination(den, f.denominator_terms.size(), all, [&](ProgramBuilder& p, const auto& term) {
        return load_ext(p, beta_powers, term.second) * Fp::from_canonical_unchecked(uint32_t(f.buses[term.first]) + 1);
      });
      seq.emit();
      coeffs_[T][1] = num;
      coeffs_[T][2] = den;
    }
  }

  // protocol.md 9.4: every source column folded at r_0; c_0 = s_0(r_0), eq_ns[0], eq#_ns[0].
  void after_round0(const Round0Result& res) {
    r_ = g_.transient<Fp4>("batch_constraint.r", n_max_ + 1).all();
    state_ = g_.transient<Fp4>("batch_constraint.state", kState * (n_max_ + 1)).all();

    std::vector<Fp> roots(n_);
    const Fp w = two_adic_generator(l_);
    Fp x = Fp::one();
    for (Fp& e : roots) {
      e = x;
      x *= w;
    }
    r0_weights_ = g_.transient<Fp4>("batch_constraint.r0_weights", n_).all();
    g_.dispatch<EqUniWeights>(
        "batch_constraint.r0_weights",
        {.r = res.r0, .roots = g_.constant<Fp>("batch_constraint.roots", roots), .out = r0_weights_, .log_n = l_});

    uint64_t total = 0;
    for (uint32_t T = 0; T < P_; ++T) {
      final_at_.push_back(total);
      total += sources(T);
    }
    finals_ = g_.transient<Fp4>("batch_constraint.final_tables", total).all();
    tables_.resize(P_);
    remade_.assign(P_, false);
    for (uint32_t T = 0; T < P_; ++T) {
      const uint64_t chunks = uint64_t(1) << nt(T);
      // Tables made again for round 1 (the low-memory mode) where they are large and fold twice.
      remade_[T] = in_.remake_tables && nt(T) >= 2 && sources(T) * chunks * sizeof(Fp4) >= in_.remake_min_bytes;
      // Row tiles of the tables (all the rows where they fit a tile), each folded from its chunks
      // of the trace; a trace of one chunk folds straight into its final tables.
      const uint64_t rows = nt(T) == 0 ? 1 : tile_rows(T, chunks);
      const uint64_t tiles = chunks / rows;
      for (uint64_t i = 0; i < tiles; ++i) {
        if (remade_[T]) {  // round 1 makes them, twice
          tables_[T].emplace_back();
          continue;
        }
        const std::string tile = tiles == 1 ? std::string() : fmt::format(".{}", i);
        const View<Fp4> tables =
            nt(T) == 0
                ? final_tables(T)
                : g_.transient<Fp4>(fmt::format("batch_constraint.T{}.tables.r0{}", T, tile), sources(T) * rows).all();
        fold_r0_tile(T, i, rows, tables, fmt::format("batch_constraint.T{}.fold_r0", T), tile);
        tables_[T].push_back(tables);
      }
    }

    // c_0 = s_0(r_0), eq_ns[0] = eq_D(xi_0, r_0), eq#_ns[0] = eq#(xi[0..l], r_0).
    const uint64_t len = proof_.univariate_round_coeffs.count;
    auto eval = [&](const std::string& name, View<Fp4> coeffs) {
      const uint64_t parts = (coeffs.count + kEvalChunk - 1) / kEvalChunk;
      View<Fp4> partials = g_.transient<Fp4>(name, parts).all();
      g_.dispatch<EvalPolyPartials>(
          name,
          {.coeffs = coeffs, .z = res.r0, .partials = partials, .n = uint32_t(coeffs.count), .chunk = kEvalChunk});
      return partials;
    };
    const View<Fp4> s0 = eval("batch_constraint.s0_at_r0", proof_.univariate_round_coeffs.slice(0, len));
    const View<Fp4> eqs = eval("batch_constraint.eq_sharp_at_r0", res.eq_polys.slice(0, n_));
    const View<Fp4> eqd = eval("batch_constraint.eq_d_at_r0", res.eq_polys.slice(n_, n_));
    ProgramBuilder p(g_, t_, "batch_constraint.after_round0.program");
    const View<Fp4> row = state(0);
    auto sum_to = [&](View<Fp4> partials, uint32_t at) { store_ext(row, sum_ext(p, partials, 0, partials.count), at); };
    sum_to(s0, kClaim);
    sum_to(eqs, kEqSharp);
    sum_to(eqd, kEq);
    store_ext(r_, load_ext(p, res.r0), 0);
    store_ext(row, constant(p, Fp4()), kTail);
    p.emit();
  }

  // Head and new tail traces whose terms one round program sums; beyond, groups of them are summed
  // by programs of their own first (a program runs at most kProgramMaxWords words of code).
  static constexpr size_t kTracesPerRoundProgram = 12;

  // Row j of the state: c_j, the tail carried into round j + 1 (times r_j), eq_ns[j], eq#_ns[j].
  static constexpr uint32_t kClaim = 0, kTail = 1, kEq = 2, kEqSharp = 3, kState = 4;
  View<Fp4> state(uint32_t j) const { return state_.slice(uint64_t(kState) * j, kState); }

  View<Fp4> final_tables(uint32_t T) const { return finals_.slice(final_at_[T], sources(T)); }

  // Row tile i (`rows` rows) of trace T's tables at r_0: its source columns (every part, and the
  // part shifted a row where need_rot) and its selectors, each folded from its chunks of the trace.
  void fold_r0_tile(uint32_t T, uint64_t i, uint64_t rows, View<Fp4> tables, const std::string& name,
                    const std::string& tile) {
    const BatchTrace& tr = trace(T);
    const AirFunctionals& f = kernels(T);
    const uint32_t log_rows = uint32_t(std::countr_zero(rows));
    for (uint32_t p = 0; p < tr.parts.size(); ++p)
      for (uint32_t shift = 0; shift < (f.need_rot ? 2u : 1u); ++shift) {
        if (f.widths[p] == 0) continue;
        const uint64_t at = source_column(f.widths, f.need_rot, p, shift == 1, 0);
        const std::vector<TracePart::Segment>& segments = tr.parts[p].segments;
        for (const TracePart::Segment& seg : segments)  // piece by piece, each into its columns
          g_.dispatch<PleFoldColumns>(
              fmt::format("{}.part{}.{}{}{}", name, p, shift == 0 ? "local" : "next", tile,
                          segments.size() == 1 ? std::string() : fmt::format(".c{}", seg.first_column)),
              {.in = seg.data,
               .weights = r0_weights_,
               .out = tables.slice((at + seg.first_column) * rows, uint64_t(seg.columns) * rows),
               .log_height = tr.log_height,
               .log_n = l_,
               .shift = shift,
               .first_chunk = uint32_t(i * rows),
               .log_chunks = log_rows});
      }
    g_.dispatch<PleFoldColumns>(fmt::format("{}.selectors{}", name, tile),
                                {.in = selector_columns(tr.log_height),
                                 .weights = r0_weights_,
                                 .out = tables.slice(f.columns * rows, 3 * rows),
                                 .log_height = tr.log_height,
                                 .log_n = l_,
                                 .shift = 0,
                                 .first_chunk = uint32_t(i * rows),
                                 .log_chunks = log_rows});
  }

  // Row tile i of trace T's tables at r_0 where round j makes them again (remade_): a transient
  // that lives from its folds to the round's read.
  View<Fp4> remade_tile(uint32_t T, uint64_t i, uint32_t j, const char* what) {
    const uint64_t chunks = uint64_t(1) << nt(T), rows = tile_rows(T, chunks);
    const std::string tile = rows == chunks ? std::string() : fmt::format(".{}", i);
    const std::string name = fmt::format("batch_constraint.round{}.T{}.{}", j, T, what);
    const View<Fp4> tables = g_.transient<Fp4>(name + ".tables" + tile, sources(T) * rows).all();
    fold_r0_tile(T, i, rows, tables, name, tile);
    return tables;
  }

  // Rows per row tile of trace T's tables when they have `len` rows: all of them where the tables
  // fit one tile (kMaxTileBytes, one binding; where round 1 makes them again, an eighth of the
  // tables at r_0), else the largest power of two that fits (at least 2: a fold reads pairs of rows).
  uint64_t tile_rows(uint32_t T, uint64_t len) const {
    uint64_t cap = std::min(kMaxTileBytes, g_.memory_limits().max_view_bytes());
    if (remade_[T])
      cap = std::min(cap, std::max<uint64_t>(sources(T) * (uint64_t(sizeof(Fp4)) << nt(T)) / kRemadeTiles, 1));
    const uint64_t row = sources(T) * sizeof(Fp4);
    uint64_t rows = len;
    while (rows > 2 && rows * row > cap) rows /= 2;
    if (rows * row > g_.memory_limits().max_view_bytes())
      throw GraphError(
          fmt::format("batch constraint prover: trace {}: {} rows of its tables ({} columns) do not fit one "
                      "binding ({} bytes)",
                      T, rows, sources(T), g_.memory_limits().max_view_bytes()));
    return rows;
  }

  // is_first, is_last, is_transition of a trace of 2^log_height rows (protocol.md 4.2), one constant
  // per height.
  View<Fp> selector_columns(uint32_t log_height) {
    auto [it, fresh] = selectors_.try_emplace(log_height);
    if (fresh) {
      const uint64_t h = uint64_t(1) << log_height;
      std::vector<Fp> v(3 * h);
      v[0] = Fp::one();
      v[h + h - 1] = Fp::one();
      for (uint64_t r = 0; r + 1 < h; ++r) v[2 * h + r] = Fp::one();
      it->second = g_.constant<Fp>(fmt::format("batch_constraint.selectors.h{}", log_height), v).all();
    }
    return it->second;
  }

  // The functionals of trace T over its tables: out (3 S d Y or 3 values) in functional order;
  // slices S > 0: each functional's values in S unsummed slices (eval_ext_constraints).
  void eval_functionals(uint32_t T, const std::string& name, View<Fp4> tables, uint32_t log_len, uint32_t x_first,
                        View<Fp4> out, uint32_t slices = 0) {
    const AirFunctionals& f = kernels(T);
    const uint64_t per = out.count / kFunctionals, len = uint64_t(1) << log_len;
    const std::vector<View<Fp4>> parts = {tables.slice(0, f.columns * len), tables.slice(f.columns * len, 3 * len)};
    for (uint32_t k = 0; k < kFunctionals; ++k) {
      if (!f.has(Functional(k))) continue;
      eval_ext_constraints(g_, fmt::format("{}.f{}", name, k), *trace(T).kernels->folded[k], f.shape, parts,
                           trace(T).public_values, coeffs_[T][k], out.slice(k * per, per), log_len, x_first, false,
                           kConstraintConcurrentRows, slices);
    }
  }

  // Unsummed slices for an MLE round's evaluation of trace T at `points` points: the most any of
  // its functionals would use, so that the weighted sums read one layout.
  uint32_t round_slices(uint32_t T, uint64_t points) const {
    uint32_t s = 1;
    for (uint32_t k = 0; k < kFunctionals; ++k)
      if (kernels(T).has(Functional(k))) s = std::max(s, ext_constraint_slices(*trace(T).kernels->folded[k], points));
    return std::min<uint32_t>(s, kZerocheckMaxSlices);
  }

  View<Fp4> eq_weights(uint32_t first, uint32_t m) {
    auto [it, fresh] = eq_by_.try_emplace(std::pair{first, m});
    if (fresh) {
      if (m == 0) {
        it->second =
            g_.constant<Fp4>(fmt::format("batch_constraint.eq.{}.0", first), std::vector<Fp4>{Fp4::one()}).all();
      } else {
        const std::string name = fmt::format("batch_constraint.eq.{}.{}", first, m);
        it->second = g_.transient<Fp4>(name, uint64_t(1) << m).all();
        g_.dispatch<EqTable>(name, {.u = in_.xi.slice(first, m), .out = it->second, .m = m});
      }
    }
    return it->second;
  }

  uint32_t present(uint32_t T) const {
    uint32_t bits = 0;
    for (uint32_t k = 0; k < kFunctionals; ++k)
      if (kernels(T).has(Functional(k))) bits |= 1u << k;
    return bits;
  }

  // A head trace of an MLE round: its rows of partial sums, each kFunctionals * d values (s'_f,T(X)
  // for X = 1..d), from `at` in the round's partials.
  struct RoundHead {
    uint32_t T;
    uint64_t at;  // in `partials`
    uint32_t rows;
  };

  // What round j's programs sum: the new tail traces' functionals at r and the head traces'
  // partial sums.
  struct RoundSums {
    std::vector<uint32_t> new_tail;
    View<Fp4> at_r;  // kFunctionals values per new tail trace
    std::vector<RoundHead> heads;
    View<Fp4> partials;
  };

  // The terms of some traces in one program: head(X) for X = 1..d and the new tail traces' terms.
  // Absent values (no new tail trace, a functional the trace lacks) are no registers at all:
  // nothing multiplies a zero (about half of keccakf's round program did, 2026-11-27).
  struct RoundTerms {
    std::vector<DeviceFp4> head;  // d
    std::optional<DeviceFp4> tail;
  };

  // protocol.md 9.5, round j.
  void round(uint32_t j) {
    RoundSums sums;
    new_tail_functionals(j, sums);
    head_partial_sums(j, sums);
    const View<Fp4> group_sums = term_group_sums(j, sums);
    round_program(j, sums, group_sums);
    fold_tables(j);
  }

  // Traces that became fully folded at r_(j-1): their functionals at r, for the tail (one buffer,
  // so that the program binds one view).
  void new_tail_functionals(uint32_t j, RoundSums& sums) {
    for (uint32_t T = 0; T < P_; ++T)
      if (nt(T) == j - 1 && present(T) != 0) sums.new_tail.push_back(T);
    if (sums.new_tail.empty()) return;
    const std::vector<uint32_t>& new_tail = sums.new_tail;
    sums.at_r =
        g_.transient<Fp4>(fmt::format("batch_constraint.round{}.at_r", j), kFunctionals * new_tail.size()).all();
    for (size_t i = 0; i < new_tail.size(); ++i)
      eval_functionals(new_tail[i], fmt::format("batch_constraint.round{}.T{}.at_r", j, new_tail[i]),
                       final_tables(new_tail[i]), 0, 0, sums.at_r.slice(kFunctionals * i, kFunctionals));
  }

  // Head traces: s'_f,T(X) for X = 1..d as partial sums, one buffer for all; a trace's tables in
  // row tiles give each tile's rows of partial sums (they add up the same).
  void head_partial_sums(uint32_t j, RoundSums& sums) {
    struct Tile {
      uint32_t T, tile;
      uint64_t at;  // in `partials`
      uint32_t rows, slices;
    };
    std::vector<Tile> tiles;
    uint64_t total = 0;
    for (uint32_t T = 0; T < P_; ++T) {
      if (nt(T) < j || present(T) == 0) continue;
      const uint64_t y = (uint64_t(1) << (nt(T) - j)) / tables_[T].size();  // pairs per tile
      RoundHead hd{T, total, 0};
      for (uint32_t i = 0; i < tables_[T].size(); ++i) {
        // The chunks' sums stay in S slices that the weighted sums add up: the round is the
        // evaluation, the weighted sums, the program and the fold (4 dependent dispatches). Partial
        // sums: about 4096 terms each, at most one per block of 64 x.
        const uint32_t slices = round_slices(T, d_ * y);
        const uint32_t rows =
            uint32_t(std::clamp<uint64_t>((y * slices + 4095) / 4096, 1, std::min<uint64_t>(16, (y + 63) / 64)));
        tiles.push_back({T, i, total, rows, slices});
        total += uint64_t(rows) * kFunctionals * d_;
        hd.rows += rows;
      }
      sums.heads.push_back(hd);
    }
    if (total > 0) sums.partials = g_.transient<Fp4>(fmt::format("batch_constraint.round{}.partials", j), total).all();
    for (const Tile& tl : tiles) {
      const uint32_t T = tl.T, n_tiles = uint32_t(tables_[T].size());
      const uint64_t y = (uint64_t(1) << (nt(T) - j)) / n_tiles;
      const uint32_t log_len = uint32_t(std::countr_zero(y)) + 1;
      const std::string name = n_tiles == 1 ? fmt::format("batch_constraint.round{}.T{}", j, T)
                                            : fmt::format("batch_constraint.round{}.T{}.{}", j, T, tl.tile);
      const uint32_t slices = tl.slices;
      View<Fp4> values = g_.transient<Fp4>(name + ".values", uint64_t(kFunctionals) * slices * d_ * y).all();
      eval_functionals(T, name, j == 1 && remade_[T] ? remade_tile(T, tl.tile, j, "made") : tables_[T][tl.tile],
                       log_len, 1, values, slices);
      g_.dispatch<ZerocheckWeightedSums>(name + ".weighted_sums",
                                         {.values = values,
                                          .eq = eq_weights(l_ + j, nt(T) - j).slice(tl.tile * y, y),
                                          .partials = sums.partials.slice(tl.at, uint64_t(tl.rows) * kFunctionals * d_),
                                          .n = d_,
                                          .present = present(T),
                                          .slices = slices});
    }
  }

  // The terms of traces [h0, h1) of sums.heads and [t0, t1) of sums.new_tail in program q, round j.
  RoundTerms round_terms(ProgramBuilder& q, uint32_t j, const RoundSums& sums, size_t h0, size_t h1, size_t t0,
                         size_t t1) {
    const View<Fp4> prev = state(j - 1);
    const DeviceFp4 eq_prev = load_ext(q, prev, kEq), eqs_prev = load_ext(q, prev, kEqSharp);
    // mu^(2P+T) eq C + eq# (mu^(2T) N' + mu^(2T+1) Q), the values from `load` (the trace's
    // functionals only; present(T) != 0 for every trace here).
    auto term = [&](uint32_t T, auto&& load) {
      std::optional<DeviceFp4> out, lg;
      if (kernels(T).has(Functional(0))) {
        const DeviceFp4 c = load(0);
        out = c * load_ext(q, mu_powers_, 2 * uint64_t(P_) + T) * eq_prev;
      }
      for (uint32_t f = 1; f <= 2; ++f)
        if (kernels(T).has(Functional(f))) {
          const DeviceFp4 v = load(f);
          add_to(lg, v * load_ext(q, mu_powers_, 2 * uint64_t(T) + f - 1));
        }
      if (lg) add_to(out, *lg * eqs_prev);
      return *out;
    };
    RoundTerms out;
    for (size_t i = t0; i < t1; ++i)
      add_to(out.tail,
             term(sums.new_tail[i], [&](uint32_t f) { return load_ext(q, sums.at_r, kFunctionals * i + f); }));
    for (uint32_t X = 1; X <= d_; ++X) {
      std::optional<DeviceFp4> h;
      for (size_t k = h0; k < h1; ++k) {
        const RoundHead& hd = sums.heads[k];
        add_to(h, term(hd.T, [&](uint32_t f) {
                 return sum_ext(q, sums.partials, hd.at + uint64_t(f) * d_ + (X - 1), hd.rows,
                                uint64_t(kFunctionals) * d_);
               }));
      }
      out.head.push_back(h ? *h : constant(q, Fp4()));
    }
    return out;
  }

  // Groups of term traces (heads, then new tail traces) summed by programs of their own before the
  // round's program (0: the round's program sums them all).
  size_t term_groups(const RoundSums& sums) const {
    const size_t term_traces = sums.heads.size() + sums.new_tail.size();
    return term_traces <= kTracesPerRoundProgram ? 0
                                                 : (term_traces + kTracesPerRoundProgram - 1) / kTracesPerRoundProgram;
  }

  // Many traces: their terms summed by groups of programs first (one program's code is bounded),
  // into a buffer the round's program adds up (d + 1 values per group: head(X), then the tail).
  View<Fp4> term_group_sums(uint32_t j, const RoundSums& sums) {
    const size_t term_traces = sums.heads.size() + sums.new_tail.size(), groups = term_groups(sums);
    View<Fp4> group_sums;
    if (groups == 0) return group_sums;
    group_sums = g_.transient<Fp4>(fmt::format("batch_constraint.round{}.terms", j), groups * (d_ + 1)).all();
    for (size_t gi = 0; gi < groups; ++gi) {
      // Traces [gi K, (gi + 1) K) of heads then new_tail.
      const size_t heads = sums.heads.size();
      const size_t a = gi * kTracesPerRoundProgram, b = std::min(term_traces, a + kTracesPerRoundProgram);
      const size_t h0 = std::min(a, heads), h1 = std::min(b, heads);
      const size_t t0 = a > heads ? a - heads : 0, t1 = b > heads ? b - heads : 0;
      ProgramBuilder q(g_, t_, fmt::format("batch_constraint.round{}.terms.{}", j, gi));
      {
        const RoundTerms terms = round_terms(q, j, sums, h0, h1, t0, t1);
        for (uint32_t X = 1; X <= d_; ++X) store_ext(group_sums, terms.head[X - 1], gi * (d_ + 1) + (X - 1));
        store_ext(group_sums, terms.tail ? *terms.tail : constant(q, Fp4()), gi * (d_ + 1) + d_);
      }
      q.emit();
    }
    return group_sums;
  }

  // Round j's program: s_j from the terms (or the groups' sums) into the proof and the transcript,
  // r_j, and state row j.
  void round_program(uint32_t j, const RoundSums& sums, View<Fp4> group_sums) {
    const View<Fp4> prev = state(j - 1), row = state(j);
    const size_t groups = term_groups(sums);
    ProgramBuilder p(g_, t_, fmt::format("batch_constraint.round{}.program", j));
    // Every instruction of this program is on the proof's critical path (about 0.4 us each on an
    // H100), so it is written for few instructions (docs/decisions.md 2026-11-27).
    // tail_j = tail_(j-1) r_(j-1) (carried in the state) + the new tail traces' terms; head(X),
    // X = 1..d.
    DeviceFp4 tail = load_ext(p, prev, kTail);
    std::vector<DeviceFp4> s(d_ + 2);
    if (groups == 0) {
      RoundTerms terms = round_terms(p, j, sums, 0, sums.heads.size(), 0, sums.new_tail.size());
      if (terms.tail) tail += *terms.tail;
      for (uint32_t X = 1; X <= d_; ++X) s[X] = std::move(terms.head[X - 1]);
    } else {
      tail += sum_ext(p, group_sums, d_, groups, d_ + 1);
      for (uint32_t X = 1; X <= d_; ++X) s[X] = sum_ext(p, group_sums, X - 1, groups, d_ + 1);
    }
    const DeviceFp4 xi = load_ext(p, in_.xi, l_ + j - 1);
    const DeviceFp4 one_minus_xi = Fp::one() - xi;
    s[0] = (load_ext(p, prev, kClaim) - xi * s[1] - tail) * one_minus_xi.inverse();
    s[d_ + 1] = extrapolate_next<DeviceFp4>(std::span(s).first(d_ + 1));
    // s_j(X) = ((1 - xi) + (2 xi - 1) X) head(X) + tail X for X = 1..d+1, observed; then s_j(0) =
    // c - s_j(1) in place of head(0). The factor (xi at X = 1) and X tail grow by a step per X.
    const DeviceFp4 slope = xi - one_minus_xi;  // 2 xi - 1
    {
      std::optional<DeviceFp4> factor, xt;
      for (uint32_t X = 1; X <= d_ + 1; ++X) {
        if (X > 1) {
          factor = (factor ? *factor : xi) + slope;
          xt = (xt ? *xt : tail) + tail;
        }
        s[X] = (factor ? *factor : xi) * s[X] + (xt ? *xt : tail);
        store_ext(proof_.sumcheck_round_polys, s[X], uint64_t(j - 1) * (d_ + 1) + (X - 1));
        observe_ext(s[X]);
      }
    }
    s[0] = load_ext(p, prev, kClaim) - s[1];
    const DeviceFp4 r = sample_ext(p);
    store_ext(r_, r, j);
    store_ext(row, eval_uniform<DeviceFp4>(s, r), kClaim);  // c_j = s_j(r_j)
    // eq_ns[j] = eq_ns[j-1] eq(xi, r_j), eq(xi, r) = (2 xi - 1) r + (1 - xi); likewise eq#_ns; the
    // tail carried: tail_j r_j.
    const DeviceFp4 e = slope * r + one_minus_xi;
    store_ext(row, load_ext(p, prev, kEq) * e, kEq);
    store_ext(row, load_ext(p, prev, kEqSharp) * e, kEqSharp);
    store_ext(row, tail * r, kTail);
    p.emit();
  }

  // Fold the head traces' tables at r_j, tile by tile; tiles whose folds fit one tile together
  // become one table again (so that the last fold leaves one row per column).
  void fold_tables(uint32_t j) {
    for (uint32_t T = 0; T < P_; ++T) {
      if (nt(T) < j) continue;
      const uint64_t len = uint64_t(1) << (nt(T) - j), n_tiles = tables_[T].size(), rows = len / n_tiles;
      std::vector<View<Fp4>> next;
      for (uint64_t i = 0; i < n_tiles; ++i) {
        const std::string tile = n_tiles == 1 ? std::string() : fmt::format(".{}", i);
        View<Fp4> dst = nt(T) == j ? final_tables(T)
                                   : g_.transient<Fp4>(fmt::format("batch_constraint.T{}.tables.r{}{}", T, j, tile),
                                                       sources(T) * rows)
                                         .all();
        g_.dispatch<FoldPairsFp4>(fmt::format("batch_constraint.round{}.T{}.fold{}", j, T, tile),
                                  {.src = j == 1 && remade_[T] ? remade_tile(T, i, j, "made_again") : tables_[T][i],
                                   .alpha = r_.slice(j, 1),
                                   .dst = dst});
        next.push_back(dst);
      }
      // Merged once they fit one tile, or at the latest once the tiles are single rows. Only the
      // binding bounds that last merge: the low mode's smaller tiles (tile_rows' remade cap) are for
      // the round-1 tables made again, not for what their folds leave.
      if (n_tiles > 1 && (tile_rows(T, len) == len || rows == 1)) {
        if (rows == 1 && sources(T) * len * sizeof(Fp4) > g_.memory_limits().max_view_bytes())
          throw GraphError(
              fmt::format("batch constraint prover: trace {}: the folded tables ({} columns x {} rows) "
                          "do not fit one binding ({} bytes)",
                          T, sources(T), len, g_.memory_limits().max_view_bytes()));
        const View<Fp4> merged =
            nt(T) == j
                ? final_tables(T)
                : g_.transient<Fp4>(fmt::format("batch_constraint.T{}.tables.r{}", T, j), sources(T) * len).all();
        for (uint64_t i = 0; i < n_tiles; ++i)
          g_.dispatch<NttCopyPad>(fmt::format("batch_constraint.round{}.T{}.merge.{}", j, T, i),
                                  {.src = next[i].bitcast<uint32_t>(),
                                   .dst = merged.slice(i * rows, (sources(T) - 1) * len + rows).bitcast<uint32_t>(),
                                   .src_stride = uint32_t(4 * rows),
                                   .dst_stride = uint32_t(4 * len),
                                   .src_count = uint32_t(4 * rows),
                                   .dst_count = uint32_t(4 * rows)});
        next = {merged};
      }
      tables_[T] = next;
    }
  }

  // protocol.md 9.6: the fully folded tables in proof order and, with a zero after each claim
  // when need_rot is false, in transcript order (common parts of all traces first).
  void openings() {
    std::vector<uint32_t> proof_idx, observe_idx;
    std::vector<std::vector<std::vector<uint32_t>>> parts(P_);  // [T][proof part]: observation words
    for (uint32_t T = 0; T < P_; ++T) {
      const AirFunctionals& f = kernels(T);
      const uint32_t nparts = uint32_t(f.widths.size());
      std::vector<uint32_t> order{nparts - 1};  // common, preprocessed?, cached...
      for (uint32_t q = 0; q + 1 < nparts; ++q) order.push_back(q);
      for (uint32_t rv : order) {
        std::vector<uint32_t>& obs = parts[T].emplace_back();
        for (uint32_t c = 0; c < f.widths[rv]; ++c) {
          const uint32_t local = uint32_t(final_at_[T]) + source_column(f.widths, f.need_rot, rv, false, c);
          proof_idx.push_back(local);
          obs.push_back(local);
          if (f.need_rot) {
            const uint32_t next = uint32_t(final_at_[T]) + source_column(f.widths, f.need_rot, rv, true, c);
            proof_idx.push_back(next);
            obs.push_back(next);
          } else {
            obs.push_back(kGatherZero);
          }
        }
      }
    }
    for (uint32_t T = 0; T < P_; ++T) observe_idx.insert(observe_idx.end(), parts[T][0].begin(), parts[T][0].end());
    for (uint32_t T = 0; T < P_; ++T)
      for (size_t q = 1; q < parts[T].size(); ++q)
        observe_idx.insert(observe_idx.end(), parts[T][q].begin(), parts[T][q].end());
    if (proof_idx.size() > 0)
      g_.dispatch<Fp4Gather>("batch_constraint.openings",
                             {.in = finals_,
                              .idx = g_.constant<uint32_t>("batch_constraint.openings.idx", proof_idx).all(),
                              .out = proof_.column_openings});
    if (observe_idx.empty()) {
      if (beside_.beside) beside_.beside();
      return;
    }
    View<Fp4> obs = g_.transient<Fp4>("batch_constraint.openings.observed", observe_idx.size()).all();
    g_.dispatch<Fp4Gather>("batch_constraint.openings.observed",
                           {.in = finals_,
                            .idx = g_.constant<uint32_t>("batch_constraint.openings.observed.idx", observe_idx).all(),
                            .out = obs});
    // The transcript's observe kernel directly (the round programs' register file is not needed).
    const View<Fp> words = obs.bitcast<Fp>();
    if (in_.observe_on_host) {
      {
        // Its own span: device time from the device's handing over to its resumption (the
        // host's whole turn), host time the absorption itself.
        auto sponge = g_.span("host_sponge");
        t_.observe_on_host("batch_constraint.openings.observe_on_host", words);
      }
      // The work beside it: the executor runs it while the host absorbs (it touches none of the
      // task's views: VulkanPreparedPlan's independent prefix).
      if (beside_.beside) beside_.beside();
      return;
    }
    const uint64_t piece = in_.observe_piece_words == 0 ? words.count : in_.observe_piece_words;
    {
      auto sponge = g_.span("device_sponge");  // where the sponge ran, in the trace (or host_sponge)
      for (uint64_t first = 0, i = 0; first < words.count; first += piece, ++i)
        g_.dispatch<TranscriptObserve>(
            fmt::format("batch_constraint.openings.observe{}", i),
            {.t = t_.state(), .values = words.slice(first, std::min(piece, words.count - first))});
    }
    // No barrier between the (last) observe dispatch and this work: they run concurrently.
    if (beside_.beside) beside_.beside();
  }

  Graph& g_;
  DeviceTranscript& t_;
  const BatchConstraintViews& proof_;
  const SystemParams& params_;
  const BatchConstraintInput& in_;
  const BesideOpenings& beside_;
  const uint32_t l_;
  const uint64_t n_;
  const uint32_t d_;
  const uint32_t P_;
  uint32_t n_max_ = 0;
  std::vector<std::array<View<Fp4>, kFunctionals>> coeffs_;
  View<Fp4> mu_powers_, r_, state_, finals_;
  std::vector<uint64_t> final_at_;
  std::vector<std::vector<View<Fp4>>> tables_;  // per trace: its tables' row tiles
  std::vector<bool> remade_;                    // per trace: round 1 makes its tables at r_0 again
  View<Fp4> r0_weights_;
  std::map<uint32_t, View<Fp>> selectors_;
  std::map<std::pair<uint32_t, uint32_t>, View<Fp4>> eq_by_;
};

}  // namespace

View<Fp4> batch_constraint_prove(Graph& g, DeviceTranscript& transcript, const BatchConstraintViews& proof,
                                 const SystemParams& params, const BatchConstraintInput& in,
                                 const BesideOpenings& beside) {
  params.validate();
  return BatchConstraintProver(g, transcript, proof, params, in, beside).run();
}

}  // namespace vkstark
