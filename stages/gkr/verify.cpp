#include "stages/gkr/verify.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "stages/common/poly.hpp"

namespace vkstark {

namespace {

// What the verifier carries from one layer to the next (8.5): the claimed p_j and q_j MLEs at
// the layer's point xi^(j).
struct LayerState {
  Fp4 numer, denom;
  std::vector<Fp4> point;
};

// The parent of the layer's two claims: (P0 Q1 + P1 Q0, Q0 Q1).
Fp4 parent_p(const GkrLayerClaims& c) { return c.p_xi_0 * c.q_xi_1 + c.p_xi_1 * c.q_xi_0; }
Fp4 parent_q(const GkrLayerClaims& c) { return c.q_xi_0 * c.q_xi_1; }

// The start of layer j: lambda_j = sample_ext(), before its sumcheck.
Fp4 begin_layer(DuplexSponge& t) { return t.sample_ext(); }

// The end of layer j's part of the transcript, once its claims are observed (p0, q0, p1, q1) and
// checked: mu_j sampled; the claims at [mu_j] ++ rho become the next layer's.
void end_layer(DuplexSponge& t, const GkrLayerClaims& c, std::vector<Fp4> rho, LayerState& st) {
  const Fp4 mu = t.sample_ext();
  st.numer = c.p_xi_0 + mu * (c.p_xi_1 - c.p_xi_0);
  st.denom = c.q_xi_0 + mu * (c.q_xi_1 - c.q_xi_0);
  st.point.assign(1, mu);
  st.point.insert(st.point.end(), rho.begin(), rho.end());
}

void observe_claims(DuplexSponge& t, const GkrLayerClaims& c) {
  t.observe_ext(c.p_xi_0);
  t.observe_ext(c.q_xi_0);
  t.observe_ext(c.p_xi_1);
  t.observe_ext(c.q_xi_1);
}

// Root and layer 1: observe q_0 and the layer-1 claims, which must add up to (0, q_0).
VerifyResult verify_layer1(DuplexSponge& t, const GkrProof& proof, LayerState& st) {
  t.observe_ext(proof.q0_claim);
  const GkrLayerClaims& c = proof.claims_per_layer[0];
  observe_claims(t, c);
  if (!parent_p(c).is_zero())
    return VerifyResult::reject(GkrReject::RootNumeratorNotZero,
                                "GKR layer 1: the root numerator p_0 = P0 Q1 + P1 Q0 is not zero");
  if (parent_q(c) != proof.q0_claim)
    return VerifyResult::reject(GkrReject::RootDenominatorMismatch, "GKR layer 1: Q0 Q1 differs from q0_claim");
  end_layer(t, c, {}, st);
  return VerifyResult::accept();
}

// Sub-round s of a layer: observe s(1), s(2), s(3), rho_s = sample_ext(); the claim becomes s(rho_s)
// with s(0) = claim - s(1), and the eq product takes eq(xi_s, rho_s).
void verify_sub_round(DuplexSponge& t, const std::array<Fp4, 3>& s, const Fp4& xi, Fp4& claim, Fp4& eq_acc,
                      std::vector<Fp4>& rho) {
  for (const Fp4& v : s) t.observe_ext(v);
  const Fp4 r = t.sample_ext();
  claim = interpolate_cubic(claim - s[0], s[0], s[1], s[2], r);
  eq_acc *= xi * r + (Fp4::one() - xi) * (Fp4::one() - r);
  rho.push_back(r);
}

// Layer j >= 2: the sumcheck reduces (p_(j-1) + lambda q_(j-1)) at xi^(j-1) to the layer's claims.
VerifyResult verify_layer(DuplexSponge& t, const GkrProof& proof, uint32_t j, LayerState& st) {
  const Fp4 lambda = begin_layer(t);
  Fp4 claim = st.numer + lambda * st.denom, eq_acc = Fp4::one();
  std::vector<Fp4> rho;
  for (uint32_t s = 0; s + 1 < j; ++s)
    verify_sub_round(t, proof.sumcheck_polys[j - 2][s], st.point[s], claim, eq_acc, rho);
  const GkrLayerClaims& c = proof.claims_per_layer[j - 1];
  observe_claims(t, c);
  if (claim != (parent_p(c) + lambda * parent_q(c)) * eq_acc)
    return VerifyResult::reject(
        GkrReject::LayerClaimMismatch,
        fmt::format("GKR layer {}: the sumcheck's last claim does not match the layer's claims (sub-rounds 0 .. {})", j,
                    j - 2));
  end_layer(t, c, std::move(rho), st);
  return VerifyResult::accept();
}

}  // namespace

VerifyResult gkr_check_pow_and_challenges(DuplexSponge& t, const GkrProof& proof, const SystemParams& params,
                                          Fp4& alpha, Fp4& beta) {
  params.validate();  // the caller's: InputError naming the field; from here on only the proof can fail
  if (!t.check_witness(params.logup.pow_bits, proof.logup_pow_witness))
    return VerifyResult::reject(GkrReject::LogupPow, "GKR: logup_pow_witness fails proof of work");
  alpha = t.sample_ext();
  beta = t.sample_ext();
  return VerifyResult::accept();
}

VerifyResult gkr_verify(DuplexSponge& t, const GkrProof& proof, uint32_t n_tot, GkrClaim& out) {
  if (n_tot == 0 || n_tot > kMaxGkrLayers)
    throw InputError(fmt::format("GKR verifier: n_tot = {}, 1 .. {} expected", n_tot, kMaxGkrLayers));
  const GkrShape shape{n_tot};
  ProofShapeCheck check;
  gkr_fields(check, const_cast<GkrProof&>(proof), &shape);  // the check only reads
  if (!check.ok()) return VerifyResult::reject(GkrReject::Shape, "GKR proof shape: " + check.problem());
  LayerState st;
  if (VerifyResult r = verify_layer1(t, proof, st); !r) return r;
  for (uint32_t j = 2; j <= n_tot; ++j)
    if (VerifyResult r = verify_layer(t, proof, j, st); !r) return r;
  out = {st.numer, st.denom, std::move(st.point)};
  return VerifyResult::accept();
}

}  // namespace vkstark
