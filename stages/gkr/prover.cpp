#include "stages/gkr/prover.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "kernels/gkr.hpp"
#include "kernels/whir.hpp"
#include "stages/common/device_value.hpp"
#include "stages/common/program.hpp"

namespace vkstark {

namespace {

// t(0) + r (t(1) - t(0)): a table of two entries folded at r.
DeviceFp4 fold(const DeviceFp4& t0, const DeviceFp4& t1, const DeviceFp4& r) { return t0 + r * (t1 - t0); }

// The state of one GKR run while the graph is built.
class GkrProver {
 public:
  GkrProver(Graph& g, DeviceTranscript& t, const GkrProofViews& proof, uint32_t n_tot)
      : g_(g), t_(t), proof_(proof), n_(n_tot), xi_(n_tot + 1), lambda_(n_tot + 1) {}

  View<Fp4> run(View<Fp4> p_leaves, View<Fp4> q_leaves) {
    leaves_p_ = p_leaves;
    leaves_q_ = q_leaves;
    return run();
  }
  // The leaves made by `make` a tile of `tile` leaves at a time, whenever read (remade_).
  View<Fp4> run(const GkrLeaves& make, uint64_t tile) {
    make_ = make;
    tile_ = tile;
    return run();
  }

 private:
  View<Fp4> run() {
    build_tree();
    prove_layer1();
    for (uint32_t j = 2; j <= n_; ++j) prove_layer(j);
    return xi_[n_];
  }

  bool remade() const { return bool(make_); }
  // Layers made again whenever read (the two below the tree) rather than kept.
  bool remade_layer(uint32_t j) const { return remade() && j + 2 > n_; }
  // Sub-rounds of layer j that make it again from the leaves (0: none): three of the input layer
  // (kept from the fold at rho_1 on, a quarter of it), two of the layer above (from rho_0 on).
  uint32_t remade_rounds(uint32_t j) const { return !remade_layer(j) ? 0 : j == n_ ? 3 : 2; }
  uint64_t tiles() const { return (uint64_t(1) << n_) / tile_; }
  // Layer j's tables (protocol.md 8.3): p_j at [0, 2^j); layer n_tot is the input layer.
  View<Fp4> layer_p(uint32_t j) const {
    if (remade_layer(j)) throw GraphError(fmt::format("GKR: layer {} is made again where read, not kept", j));
    return j == n_ ? leaves_p_ : tree_p_.slice(uint64_t(1) << j, uint64_t(1) << j);
  }
  View<Fp4> layer_q(uint32_t j) const {
    if (remade_layer(j)) throw GraphError(fmt::format("GKR: layer {} is made again where read, not kept", j));
    return j == n_ ? leaves_q_ : tree_q_.slice(uint64_t(1) << j, uint64_t(1) << j);
  }
  // Tile t of layer j (n_tot or n_tot - 1) made again: the leaves of tile t, and for layer
  // n_tot - 1 their parents. Transients named after `step`.
  std::pair<View<Fp4>, View<Fp4>> layer_tile(uint32_t j, uint64_t t, const std::string& step);
  // The eq table of sub-round s of layer j, `pairs` entries.
  View<Fp4> eq_table(uint32_t s, uint64_t pairs) const {
    const View<Fp4>& e = !split_eq_ ? eq_ : s == 0 ? eq_ : s == 1 ? eq1_ : eq2_;
    return e.slice(pairs - 1, pairs);
  }

  void build_tree();
  void prove_layer1();
  void prove_layer(uint32_t j);
  void prove_sub_round(uint32_t j, uint32_t s);
  void round_program(uint32_t j, uint32_t s, View<Fp4> partials, uint32_t parts);
  void end_layer(ProgramBuilder& p, uint32_t j, const DeviceFp4& p0, const DeviceFp4& q0, const DeviceFp4& p1,
                 const DeviceFp4& q1);
  void begin_layer(ProgramBuilder& p, uint32_t j);

  Graph& g_;
  DeviceTranscript& t_;
  const GkrProofViews& proof_;
  const uint32_t n_;
  View<Fp4> leaves_p_, leaves_q_;
  GkrLeaves make_;     // where the leaves are made again
  uint64_t tile_ = 0;  // leaves per tile where they are
  // Layers 1 .. n_tot - 1 (1 .. n_tot - 2 where the leaves are made again) at their tree positions
  // [2^j, 2^(j+1)).
  Buffer<Fp4> tree_p_, tree_q_;
  std::vector<View<Fp4>> xi_;      // xi_[j] = xi^(j) = [mu_j, rho_0, ..., rho_(j-2)]
  std::vector<View<Fp4>> lambda_;  // lambda_[j], j >= 2
  // The layer being proved: its eq tables, eq products c_s, and the current sub-round's tables.
  View<Fp4> eq_, eq_acc_, table_p_, table_q_;
  // A layer made again has its eq tables in three transients, each freed after its last reader:
  // eq_ for sub-round 0, eq1_ for sub-round 1, eq2_ for the rest.
  bool split_eq_ = false;
  View<Fp4> eq1_, eq2_;
};

std::pair<View<Fp4>, View<Fp4>> GkrProver::layer_tile(uint32_t j, uint64_t t, const std::string& step) {
  const std::string tile = fmt::format("{}.tile{}", step, t);
  const View<Fp4> p = g_.transient<Fp4>(tile + ".leaves.p", tile_).all(),
                  q = g_.transient<Fp4>(tile + ".leaves.q", tile_).all();
  make_(t * tile_, p, q, "." + tile);
  if (j == n_) return {p, q};
  const View<Fp4> pp = g_.transient<Fp4>(tile + ".parents.p", tile_ / 2).all(),
                  pq = g_.transient<Fp4>(tile + ".parents.q", tile_ / 2).all();
  g_.dispatch<GkrFractionLayers>(tile + ".parents", {.p_in = p, .q_in = q, .p_out = pp, .q_out = pq, .layers = 1});
  return {pp, pq};
}

// The fraction tree (8.3): layers n_tot - 1 .. 1, up to kGkrMaxFusedLayers per dispatch. Where the
// leaves are made again: layer n_tot - 2 a tile at a time from the leaves' tiles (through their
// parents, dropped), then the rest from it.
void GkrProver::build_tree() {
  if (n_ < 2) return;
  const uint64_t size = uint64_t(1) << (remade() ? n_ - 1 : n_);
  tree_p_ = g_.transient<Fp4>("gkr.tree.p", size);
  tree_q_ = g_.transient<Fp4>("gkr.tree.q", size);
  uint32_t top = n_;  // the layer whose parents come next
  if (remade()) {
    const uint64_t quarter = tile_ / 4, first = uint64_t(1) << (n_ - 2);
    for (uint64_t t = 0; t < tiles(); ++t) {
      const auto [p, q] = layer_tile(n_ - 1, t, "gkr.tree");
      g_.dispatch<GkrFractionLayers>(fmt::format("gkr.tree.tile{}.layer{}", t, n_ - 2),
                                     {.p_in = p,
                                      .q_in = q,
                                      .p_out = tree_p_.slice(first + t * quarter, quarter),
                                      .q_out = tree_q_.slice(first + t * quarter, quarter),
                                      .layers = 1});
    }
    top = n_ - 2;
  }
  for (uint32_t j = top; j > 1;) {
    const uint32_t k = std::min(kGkrMaxFusedLayers, j - 1), low = j - k;
    const uint64_t first = uint64_t(1) << low, end = uint64_t(1) << j;
    g_.dispatch<GkrFractionLayers>(fmt::format("gkr.tree.layers{}-{}", j - 1, low),
                                   {.p_in = layer_p(j),
                                    .q_in = layer_q(j),
                                    .p_out = tree_p_.slice(first, end - first),
                                    .q_out = tree_q_.slice(first, end - first),
                                    .layers = k});
    j = low;
  }
}

// Root and layer 1 (8.4): observe q_0 = q_1(0) q_1(1), the layer-1 claims, mu_1; one program.
void GkrProver::prove_layer1() {
  ProgramBuilder p(g_, t_, "gkr.layer1.program");
  const View<Fp4> lp = layer_p(1), lq = layer_q(1);
  const DeviceFp4 q0 = load_ext(p, lq, 0), q1 = load_ext(p, lq, 1);
  {
    const DeviceFp4 root_q = q0 * q1;
    store_ext(proof_.q0_claim, root_q);
    observe_ext(root_q);  // p_0 is never observed
  }
  xi_[1] = g_.transient<Fp4>("gkr.layer1.xi", 1).all();
  end_layer(p, 1, load_ext(p, lp, 0), q0, load_ext(p, lp, 1), q1);
  p.emit();
}

// Layer j >= 2 (8.4): the sumcheck of sum_y eq(xi^(j-1), y) (A E + C B + lambda_j B E)(y) over
// j - 1 variables, then the layer's claims and mu_j. lambda_j was sampled by the program that
// ended layer j - 1 (begin_layer), the same place in the transcript.
void GkrProver::prove_layer(uint32_t j) {
  const std::string name = fmt::format("gkr.layer{}", j);
  xi_[j] = g_.transient<Fp4>(name + ".xi", j).all();
  // The eq tables of every sub-round: sub-round s weighs pair y' with eq over the coordinates of
  // xi^(j-1) after s (kernels/gkr.hpp); its own coordinate and the bound ones are scalars (the
  // program's l_s(X) and c_s).
  eq_ = g_.transient<Fp4>(name + ".eq", (uint64_t(1) << (j - 1)) - 1).all();
  g_.dispatch<EqSuffixTables>(name + ".eq", {.u = xi_[j - 1].slice(1, j - 2), .out = eq_, .n = j - 2});
  split_eq_ = remade_layer(j);  // (j >= 3 there: n_tot >= 4)
  if (split_eq_) {
    // Sub-round s reads the table over the coordinates after s: the same values in smaller tables.
    eq1_ = g_.transient<Fp4>(name + ".eq1", (uint64_t(1) << (j - 2)) - 1).all();
    g_.dispatch<EqSuffixTables>(name + ".eq1", {.u = xi_[j - 1].slice(2, j - 3), .out = eq1_, .n = j - 3});
    if (j >= 4) {
      eq2_ = g_.transient<Fp4>(name + ".eq2", (uint64_t(1) << (j - 3)) - 1).all();
      g_.dispatch<EqSuffixTables>(name + ".eq2", {.u = xi_[j - 1].slice(3, j - 4), .out = eq2_, .n = j - 4});
    }
  }
  if (j > 2) eq_acc_ = g_.transient<Fp4>(name + ".eq_acc", j - 1).all();  // c_s at s = 1 .. j - 2
  if (!remade_layer(j)) {
    table_p_ = layer_p(j);
    table_q_ = layer_q(j);
  }
  for (uint32_t s = 0; s + 1 < j; ++s) prove_sub_round(j, s);
}

// Sub-round s of layer j in two dependent dispatches: the partial sums of the round polynomial
// (fused with the fold at rho_(s-1) for s > 0), then one program (round_program).
void GkrProver::prove_sub_round(uint32_t j, uint32_t s) {
  const std::string name = fmt::format("gkr.layer{}.round{}", j, s);
  const uint64_t pairs = uint64_t(1) << (j - 2 - s);
  const View<Fp4> eq = eq_table(s, pairs);
  if (s < remade_rounds(j)) {
    // The first sub-rounds of a layer made again: the layer a tile at a time, folded at the
    // challenges so far (rho_0 .. rho_(s-2) into scratch tables), then the tile's partials and, from
    // sub-round 1, its fold at rho_(s-1): kept after the last of these sub-rounds, else dropped. The
    // tiles' partials one after another.
    const uint64_t k = tiles(), tile_pairs = pairs / k;
    const uint32_t tile_parts = sumcheck_partial_count(tile_pairs), parts = uint32_t(k * tile_parts);
    const View<Fp4> partials = g_.transient<Fp4>(name + ".partials", 3ull * parts).all();
    const bool keep = s > 0 && s + 1 == remade_rounds(j);
    View<Fp4> p_dst, q_dst;
    if (keep) {
      p_dst = g_.transient<Fp4>(name + ".p", 4 * pairs).all();
      q_dst = g_.transient<Fp4>(name + ".q", 4 * pairs).all();
    }
    for (uint64_t t = 0; t < k; ++t) {
      const std::string tile = fmt::format("{}.tile{}", name, t);
      auto [p, q] = layer_tile(j, t, name);
      for (uint32_t f = 1; f < s; ++f) {  // the fold at rho_(f-1), sub-round f's partials discarded
        const uint64_t fold_pairs = (pairs << (s - f)) / k;
        const View<Fp4> fp = g_.transient<Fp4>(fmt::format("{}.fold{}.p", tile, f), 4 * fold_pairs).all(),
                        fq = g_.transient<Fp4>(fmt::format("{}.fold{}.q", tile, f), 4 * fold_pairs).all(),
                        scratch = g_.transient<Fp4>(fmt::format("{}.fold{}.partials", tile, f),
                                                    3ull * sumcheck_partial_count(fold_pairs))
                                      .all();
        // The partials are not read: any eq values of the right count do (this sub-round's table,
        // alive anyway, rather than keep sub-round f's).
        g_.dispatch<GkrFoldSumcheckPartials>(fmt::format("{}.fold{}", tile, f), {.p = p,
                                                                                 .q = q,
                                                                                 .rho = xi_[j].slice(f, 1),
                                                                                 .eq = eq.slice(0, fold_pairs),
                                                                                 .lambda = lambda_[j],
                                                                                 .p_dst = fp,
                                                                                 .q_dst = fq,
                                                                                 .partials = scratch,
                                                                                 .pairs = uint32_t(fold_pairs)});
        p = fp;
        q = fq;
      }
      const View<Fp4> out = partials.slice(3 * t * tile_parts, 3ull * tile_parts),
                      e = eq.slice(t * tile_pairs, tile_pairs);
      if (s == 0) {
        g_.dispatch<GkrSumcheckPartials>(
            tile + ".partials",
            {.p = p, .q = q, .eq = e, .lambda = lambda_[j], .partials = out, .pairs = uint32_t(tile_pairs)});
        continue;
      }
      const View<Fp4> dp = keep ? p_dst.slice(4 * t * tile_pairs, 4 * tile_pairs)
                                : g_.transient<Fp4>(tile + ".p", 4 * tile_pairs).all(),
                      dq = keep ? q_dst.slice(4 * t * tile_pairs, 4 * tile_pairs)
                                : g_.transient<Fp4>(tile + ".q", 4 * tile_pairs).all();
      g_.dispatch<GkrFoldSumcheckPartials>(tile + ".partials", {.p = p,
                                                                .q = q,
                                                                .rho = xi_[j].slice(s, 1),
                                                                .eq = e,
                                                                .lambda = lambda_[j],
                                                                .p_dst = dp,
                                                                .q_dst = dq,
                                                                .partials = out,
                                                                .pairs = uint32_t(tile_pairs)});
    }
    if (keep) {
      table_p_ = p_dst;
      table_q_ = q_dst;
    }
    round_program(j, s, partials, parts);
    return;
  }
  const uint32_t parts = sumcheck_partial_count(pairs);
  const View<Fp4> partials = g_.transient<Fp4>(name + ".partials", 3ull * parts).all();
  if (s == 0) {
    g_.dispatch<GkrSumcheckPartials>(
        name + ".partials",
        {.p = table_p_, .q = table_q_, .eq = eq, .lambda = lambda_[j], .partials = partials, .pairs = uint32_t(pairs)});
  } else {
    const View<Fp4> p_dst = g_.transient<Fp4>(name + ".p", 4 * pairs).all();
    const View<Fp4> q_dst = g_.transient<Fp4>(name + ".q", 4 * pairs).all();
    g_.dispatch<GkrFoldSumcheckPartials>(name + ".partials", {.p = table_p_,
                                                              .q = table_q_,
                                                              .rho = xi_[j].slice(s, 1),  // rho_(s-1)
                                                              .eq = eq,
                                                              .lambda = lambda_[j],
                                                              .p_dst = p_dst,
                                                              .q_dst = q_dst,
                                                              .partials = partials,
                                                              .pairs = uint32_t(pairs)});
    table_p_ = p_dst;
    table_q_ = q_dst;
  }
  round_program(j, s, partials, parts);
}

// s(x) = c_s l_s(x) g(x) for x = 1, 2, 3, with g the sum of the partials, l_s(X) = eq(xi_s, X) and
// c_s = prod_(k<s) eq(xi_k, rho_k) (xi = xi^(j-1)): written into the proof, observed; then rho_s
// sampled. The last sub-round folds the two-entry tables at rho_s into the layer's claims and ends
// the layer.
void GkrProver::round_program(uint32_t j, uint32_t s, View<Fp4> partials, uint32_t parts) {
  ProgramBuilder p(g_, t_, fmt::format("gkr.layer{}.round{}.program", j, s));
  DeviceFp4 rho;
  {
    const DeviceFp4 xi = load_ext(p, xi_[j - 1], s), one = constant(p, Fp4::one());
    const DeviceFp4 c = s == 0 ? one : load_ext(p, eq_acc_.slice(s, 1));
    // l_s(1) = xi, l_s(2) = 3 xi - 1 and l_s(3) = l_s(2) + 2 xi - 1.
    const DeviceFp4 xi2 = xi + xi, l2 = xi2 + xi - one;
    const DeviceFp4 l[3] = {xi, l2, l2 + (xi2 - one)};
    const View<Fp4> evals = proof_.sumcheck_polys.slice(3 * ((uint64_t(j) - 1) * (j - 2) / 2 + s), 3);
    for (uint32_t x = 0; x < 3; ++x) {
      const DeviceFp4 v = c * (l[x] * sum_ext(p, partials, x, parts, 3));
      store_ext(evals, v, x);
      observe_ext(v);
    }
    rho = sample_ext(p);
    store_ext(xi_[j], rho, 1 + s);
    if (s + 2 < j) {
      // c_(s+1) = c_s eq(xi_s, rho_s) = c_s (1 - xi_s - rho_s + 2 xi_s rho_s).
      const DeviceFp4 xr = xi * rho;
      store_ext(eq_acc_.slice(s + 1, 1), c * (one - xi - rho + (xr + xr)));
      p.emit();
      return;
    }
  }
  // The last pair of each table, (A(0), C(0), A(1), C(1)) and (B(0), E(0), B(1), E(1)), at rho.
  DeviceFp4 tp[4], tq[4];
  for (uint32_t k = 0; k < 4; ++k) {
    tp[k] = load_ext(p, table_p_, k);
    tq[k] = load_ext(p, table_q_, k);
  }
  end_layer(p, j, fold(tp[0], tp[2], rho), fold(tq[0], tq[2], rho), fold(tp[1], tp[3], rho), fold(tq[1], tq[3], rho));
  p.emit();
}

// The end of layer j's part of the transcript: its claims P0 = p_j(0, .), Q0, P1, Q1 at the
// layer's point written (encoding order p0, p1, q0, q1) and observed (p0, q0, p1, q1), mu_j
// sampled into xi^(j)[0]; then the start of layer j + 1.
void GkrProver::end_layer(ProgramBuilder& p, uint32_t j, const DeviceFp4& p0, const DeviceFp4& q0, const DeviceFp4& p1,
                          const DeviceFp4& q1) {
  const View<Fp4> claims = proof_.claims_per_layer.slice(4 * (uint64_t(j) - 1), 4);
  store_ext(claims, p0, 0);
  store_ext(claims, p1, 1);
  store_ext(claims, q0, 2);
  store_ext(claims, q1, 3);
  for (const DeviceFp4* r : {&p0, &q0, &p1, &q1}) observe_ext(*r);
  store_ext(xi_[j], sample_ext(p), 0);
  if (j < n_) begin_layer(p, j + 1);
}

// The start of layer j: lambda_j = sample_ext(), before its sumcheck.
void GkrProver::begin_layer(ProgramBuilder& p, uint32_t j) {
  lambda_[j] = g_.transient<Fp4>(fmt::format("gkr.layer{}.lambda", j), 1).all();
  store_ext(lambda_[j], sample_ext(p));
}

void expect_count(const char* what, uint64_t got, uint64_t want) {
  if (got != want) throw InputError(fmt::format("GKR: {} has {} elements, {} expected", what, got, want));
}

void check_views(const GkrProofViews& proof, uint32_t n_tot) {
  expect_count("q0_claim view", proof.q0_claim.count, 1);
  expect_count("claims_per_layer view", proof.claims_per_layer.count, 4ull * n_tot);
  expect_count("sumcheck_polys view", proof.sumcheck_polys.count, 3ull * n_tot * (n_tot - 1) / 2);
}

}  // namespace

GkrChallenges gkr_grind_and_challenges(Graph& g, DeviceTranscript& transcript, const GkrProofViews& proof,
                                       const SystemParams& params) {
  params.validate();
  if (proof.logup_pow_witness.count != 1)
    throw InputError(
        fmt::format("GKR: logup_pow_witness view has {} elements, 1 expected", proof.logup_pow_witness.count));
  GkrChallenges c{g.transient<Fp4>("gkr.alpha", 1).all(), g.transient<Fp4>("gkr.beta", 1).all()};
  ProgramBuilder p(g, transcript, "gkr.logup_pow");
  p.grind(params.logup.pow_bits, proof.logup_pow_witness);
  store_ext(c.alpha, sample_ext(p));
  store_ext(c.beta, sample_ext(p));
  p.emit();
  return c;
}

View<Fp4> gkr_prove(Graph& g, DeviceTranscript& transcript, const GkrProofViews& proof, View<Fp4> p_leaves,
                    View<Fp4> q_leaves, uint32_t n_tot) {
  if (n_tot == 0 || n_tot > kGkrMaxProverLayers)
    throw InputError(fmt::format("GKR: n_tot = {}, 1 .. {} supported", n_tot, kGkrMaxProverLayers));
  const uint64_t leaves = uint64_t(1) << n_tot;
  expect_count("p_leaves", p_leaves.count, leaves);
  expect_count("q_leaves", q_leaves.count, leaves);
  check_views(proof, n_tot);
  return GkrProver(g, transcript, proof, n_tot).run(p_leaves, q_leaves);
}

View<Fp4> gkr_prove_remade(Graph& g, DeviceTranscript& transcript, const GkrProofViews& proof, const GkrLeaves& make,
                           uint64_t tile_leaves, uint32_t n_tot) {
  if (n_tot < 4 || n_tot > kGkrMaxProverLayers)
    throw InputError(
        fmt::format("GKR with the leaves made again: n_tot = {}, 4 .. {} supported", n_tot, kGkrMaxProverLayers));
  if (!std::has_single_bit(tile_leaves) || tile_leaves < 16 || tile_leaves >= (uint64_t(1) << n_tot))
    throw InputError(
        fmt::format("GKR with the leaves made again: tiles of {} leaves (a power of two from 16, below "
                    "the 2^{} leaves)",
                    tile_leaves, n_tot));
  if (!make) throw InputError("GKR with the leaves made again: nothing makes them");
  check_views(proof, n_tot);
  return GkrProver(g, transcript, proof, n_tot).run(make, tile_leaves);
}

GkrRegions reserve_gkr_regions(ProofLayout& layout, const GkrShape& shape) {
  return GkrRegions::reserve(layout, [shape](auto& v, GkrProof& p) { gkr_fields(v, p, &shape); });
}

}  // namespace vkstark
