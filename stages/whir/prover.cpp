#include "stages/whir/prover.hpp"

#include <fmt/format.h>

#include "kernels/basic.hpp"
#include "kernels/whir.hpp"
#include "stages/common/device_value.hpp"
#include "stages/common/program.hpp"
#include "stages/common/reduce.hpp"

namespace vkstark {

namespace {

// The state of one WHIR run while the graph is built.
class WhirProver {
 public:
  WhirProver(Graph& g, Ntt& ntt, DeviceTranscript& t, const ProofLayout& layout, const WhirRegions& r,
             const WhirShape& s, const SystemParams& p)
      : g_(g), ntt_(ntt), t_(t), layout_(layout), r_(r), s_(s), p_(p) {}

  void run(const WhirOpening& in);

 private:
  View<Fp4> challenge(const std::string& name) {
    View<Fp4> c = g_.transient<Fp4>(name, 1).all();
    t_.sample_ext(c);
    return c;
  }
  template <class T>
  auto proof(const T& field) const {
    return r_.view(layout_, field);
  }
  const WhirProof& fields() const { return r_.proto(); }
  void batch_and_weights(const WhirOpening& in);
  void sumcheck_round(uint32_t round, uint32_t s);
  void commit_or_finish(uint32_t round, const WhirOpening& in);
  void queries(uint32_t round, const WhirOpening& in);

  Graph& g_;
  Ntt& ntt_;
  DeviceTranscript& t_;
  const ProofLayout& layout_;
  const WhirRegions& r_;
  const WhirShape& s_;
  const SystemParams& p_;
  View<Fp4> f_, w_;  // current folded f (evaluations) and weights, 2^m_cur each
  uint32_t m_cur_ = 0, log_rs_ = 0;
  View<Fp4> g_coeffs_, z0_;
  MerkleTree tree_, prev_tree_;  // this round's codeword tree, and the one queried now
  View<Fp4> codeword_, prev_codeword_;
};

void WhirProver::batch_and_weights(const WhirOpening& in) {
  const uint64_t n = uint64_t(1) << s_.m;
  t_.grind(p_.whir.mu_pow_bits, proof(fields().mu_pow_witness));
  View<Fp4> mu = challenge("whir.mu");
  // f = zeta(sum_idx mu^idx message_idx): hypercube evaluations of the batched f-hat (11.2).
  f_ = g_.transient<Fp4>("whir.f", n).all();
  g_.dispatch<FillU32>("whir.f.zero", {.out = f_.bitcast<uint32_t>(), .value = 0});
  uint32_t power = 0;
  for (const StackedCommitment* c : in.commitments)
    if (c->traces_kept) throw GraphError("WHIR: a commitment still holds its traces (finish_message first)");
  for (const StackedCommitment* c : in.commitments)
    for (uint32_t t = 0; t < c->tiles(); ++t) {
      const uint32_t width = c->tile_width(t);
      const std::string name = c->tiles() == 1 ? std::string("whir.batch") : fmt::format("whir.batch.{}", t);
      const View<Fp> matrix = c->message[t].slice(0, uint64_t(width) * n);
      if (whole_runs(g_, matrix, n))  // 16-byte loads (BatchColumnsExtVec)
        g_.dispatch<BatchColumnsExtVec>(name, {.matrix = matrix.bitcast<Fp4>(),
                                               .mu = mu,
                                               .acc = f_,
                                               .width = width,
                                               .col_stride = uint32_t(n / 4),
                                               .first_power = power});
      else
        g_.dispatch<BatchColumnsExt>(
            name,
            {.matrix = matrix, .mu = mu, .acc = f_, .width = width, .col_stride = uint32_t(n), .first_power = power});
      power += width;
    }
  add_subset_zeta(g_, f_, s_.m, n, 1, 0, s_.m, "whir.f.zeta");
  w_ = g_.transient<Fp4>("whir.w", n).all();
  g_.dispatch<MobiusEqTable>("whir.w.init", {.u = in.u_cube, .out = w_, .m = s_.m});
}

// One WHIR sumcheck round (protocol.md 11.2) in three dependent dispatches (without folding
// grinding): the partial sums of s(1), s(2); one scalar program that sums them, writes them into the
// proof, observes them and samples alpha (split around the grind kernels when folding_pow_bits > 0);
// the fold of f and w at alpha.
void WhirProver::sumcheck_round(uint32_t round, uint32_t s) {
  const uint32_t idx = round * s_.k + s;
  const uint64_t half = uint64_t(1) << (m_cur_ - 1);
  const std::string name = fmt::format("whir.sumcheck{}", idx);
  const uint32_t parts = sumcheck_partial_count(half);
  View<Fp4> partials = g_.transient<Fp4>(name + ".partials", 2ull * parts).all();
  g_.dispatch<SumcheckProductPartials>(name, {.f = f_, .w = w_, .partials = partials, .pairs = uint32_t(half)});
  View<Fp4> evals = proof(fields().sumcheck_polys).slice(2ull * idx, 2);
  View<Fp4> alpha = g_.transient<Fp4>(fmt::format("whir.alpha{}", idx), 1).all();
  ProgramBuilder program(g_, t_, name + ".program");
  for (uint32_t x = 0; x < 2; ++x) {  // s(1), then s(2)
    const DeviceFp4 v = sum_ext(program, partials, x, parts, 2);
    store_ext(evals, v, x);
    observe_ext(v);
  }
  program.grind(p_.whir.folding_pow_bits, proof(fields().folding_pow_witnesses).slice(idx, 1));
  store_ext(alpha, sample_ext(program));
  program.emit();
  View<Fp4> f = g_.transient<Fp4>(name + ".f", half).all(), w = g_.transient<Fp4>(name + ".w", half).all();
  g_.dispatch<FoldPairs2Fp4>(name + ".fold", {.f = f_, .w = w_, .alpha = alpha, .f_dst = f, .w_dst = w});
  f_ = f;
  w_ = w;
  --m_cur_;
}

void WhirProver::commit_or_finish(uint32_t round, const WhirOpening& in) {
  const uint64_t n = uint64_t(1) << m_cur_;
  const std::string name = fmt::format("whir.round{}", round);
  // g = Möbius(f): the coefficients of the folded polynomial.
  g_coeffs_ = g_.transient<Fp4>(name + ".g", n).all();
  g_.dispatch<CopyU32>(name + ".g.copy", {.src = f_.bitcast<uint32_t>(), .dst = g_coeffs_.bitcast<uint32_t>()});
  add_subset_mobius(g_, g_coeffs_, m_cur_, n, 1, 0, m_cur_, name + ".g.mobius");
  if (round + 1 == s_.rounds()) {
    View<Fp4> final_poly = proof(fields().final_poly);
    g_.dispatch<CopyU32>(name + ".final_poly",
                         {.src = g_coeffs_.bitcast<uint32_t>(), .dst = final_poly.bitcast<uint32_t>()});
    // The same values, beside the copy into the proof.
    if (in.final_poly_on_host && 4 * g_coeffs_.count >= kWhirHostObserveMinWords)
      t_.observe_on_host(name + ".final_poly.observe_on_host", g_coeffs_.bitcast<Fp>());
    else
      t_.observe_ext(g_coeffs_);
    return;
  }
  // Codeword of g on 2^(log_rs - 1) points, and its Merkle tree (EF rows of width 1).
  const uint32_t log_cw = log_rs_ - 1;
  codeword_ = g_.transient<Fp4>(name + ".codeword", uint64_t(1) << log_cw).all();
  ntt_.forward(g_coeffs_, m_cur_, n, codeword_, log_cw, uint64_t(1) << log_cw, 1, name + ".encode");
  MatrixView ef_matrix{codeword_.bitcast<Fp>(), 4, log_cw, 4, 1};
  tree_ = build_merkle_tree(g_, name + ".tree", ef_matrix, s_.k);
  View<Digest> root = proof(fields().codeword_commits).slice(round, 1);
  g_.dispatch<CopyU32>(name + ".root", {.src = tree_.root().bitcast<uint32_t>(), .dst = root.bitcast<uint32_t>()});
  // observe_commit(root), z0 = sample_ext(): one program, beside the copy into the proof.
  z0_ = g_.transient<Fp4>(name + ".z0", 1).all();
  {
    ProgramBuilder z0(g_, t_, name + ".z0");
    z0.observe_commit(tree_.root());
    store_ext(z0_, sample_ext(z0));
    z0.emit();
  }
  // y0 = g(z0): partial sums of chunks, reduced to at most kProgramSumTerms, summed, written and
  // observed by one program.
  const uint32_t chunk = 64, parts = uint32_t((n + chunk - 1) / chunk);
  View<Fp4> partials = g_.transient<Fp4>(name + ".ood.partials", parts).all();
  g_.dispatch<EvalPolyPartials>(
      name + ".ood", {.coeffs = g_coeffs_, .z = z0_, .partials = partials, .n = uint32_t(n), .chunk = chunk});
  const ReducedPartials rest = add_partial_reduce(g_, name + ".ood", partials, parts, 1, kProgramSumTerms);
  ProgramBuilder ood(g_, t_, name + ".ood.program");
  {
    const DeviceFp4 y0 = sum_ext(ood, rest.values, 0, rest.count);
    store_ext(proof(fields().ood_values).slice(round, 1), y0);
    observe_ext(y0);
  }
  ood.emit();
}

void WhirProver::queries(uint32_t round, const WhirOpening& in) {
  const std::string name = fmt::format("whir.round{}", round);
  const uint32_t q = s_.num_queries[round];
  t_.grind(p_.whir.query_phase_pow_bits, proof(fields().query_phase_pow_witnesses).slice(round, 1));
  View<uint32_t> idx = g_.transient<uint32_t>(name + ".queries", std::max(q, 1u)).all().slice(0, q);
  if (q > 0) t_.sample_bits(idx, log_rs_ - s_.k);
  if (round == 0) {
    for (size_t c = 0; c < in.commitments.size(); ++c) {
      const StackedCommitment& sc = *in.commitments[c];
      open_stacked(g_, ntt_, fmt::format("{}.open{}", name, c), sc, idx, proof(fields().initial_round_opened_rows[c]),
                   proof(fields().initial_round_merkle_proofs[c]));
    }
  } else {
    MatrixView ef_matrix{prev_codeword_.bitcast<Fp>(), 4, prev_tree_.log_rows, 4, 1};
    open_merkle(g_, name + ".open", prev_tree_, ef_matrix, idx,
                proof(fields().codeword_opened_values[round - 1]).bitcast<Fp>(),
                proof(fields().codeword_merkle_proofs[round - 1]));
  }
  View<Fp4> gamma = challenge(name + ".gamma");
  if (round + 1 < s_.rounds()) {
    // w += gamma g-at-z0 weight + sum_q gamma^(q+2) weight at z_q = gen(log_rs - k)^idx_q.
    View<Fp4> points = g_.transient<Fp4>(name + ".points", 1ull + q).all();
    g_.dispatch<CopyU32>(name + ".points.z0",
                         {.src = z0_.bitcast<uint32_t>(), .dst = points.slice(0, 1).bitcast<uint32_t>()});
    if (q > 0)
      g_.dispatch<QueryPoints>(name + ".points",
                               {.idx = idx, .points = points.slice(1, q), .log_domain = log_rs_ - s_.k});
    g_.dispatch<EqPowAccumulate>(name + ".w.update", {.w = w_, .points = points, .gamma = gamma, .m = m_cur_});
  }
}

void WhirProver::run(const WhirOpening& in) {
  m_cur_ = s_.m;
  log_rs_ = s_.m + s_.log_blowup;
  batch_and_weights(in);
  for (uint32_t round = 0; round < s_.rounds(); ++round) {
    for (uint32_t s = 0; s < s_.k; ++s) sumcheck_round(round, s);
    commit_or_finish(round, in);
    queries(round, in);
    prev_tree_ = tree_;
    prev_codeword_ = codeword_;
    --log_rs_;
  }
}

}  // namespace

void whir_prove(Graph& g, Ntt& ntt, DeviceTranscript& transcript, const ProofLayout& layout, const WhirRegions& regions,
                const WhirShape& shape, const SystemParams& params, const WhirOpening& in) {
  params.validate();
  if (in.commitments.size() != shape.commitment_widths.size())
    throw InputError(fmt::format("WHIR: {} commitments but the shape has {}", in.commitments.size(),
                                 shape.commitment_widths.size()));
  if (in.u_cube.count != shape.m)
    throw InputError(fmt::format("WHIR: the opening point has {} coordinates, {} expected", in.u_cube.count, shape.m));
  if (shape.sumcheck_rounds() > shape.m)
    throw InputError(fmt::format("WHIR: {} sumcheck rounds exceed the {} variables", shape.sumcheck_rounds(), shape.m));
  auto span = g.span("whir");
  WhirProver(g, ntt, transcript, layout, regions, shape, params).run(in);
}

}  // namespace vkstark
