#include "stages/verifier.hpp"

#include <fmt/format.h>

#include "stages/batch_constraint/verify.hpp"
#include "stages/gkr/verify.hpp"
#include "stages/pcs/layout.hpp"
#include "stages/phases.hpp"
#include "stages/stacked_reduction/verify.hpp"
#include "stages/whir/verify.hpp"

namespace vkstark {

namespace {

class Verifier {
 public:
  Verifier(const MultiStarkVerifyingKey& vk, const Proof& p) : vk_(vk), p_(p), params_(vk.params) {}

  VerifyResult run() {
    if (VerifyResult v = shape(); !v) return v;
    if (VerifyResult v = trace_heights(); !v) return v;
    for (Phase phase : kProofPhases)  // the prover's list (stages/phases.hpp)
      if (VerifyResult v = verify_phase(phase); !v) return v;
    return VerifyResult::accept();
  }

  VerifyResult verify_phase(Phase phase) {
    switch (phase) {
      case Phase::Preamble:
        preamble();
        return VerifyResult::accept();
      case Phase::Gkr:
        return gkr();
      case Phase::BatchConstraint:
        return batch_constraint();
      case Phase::StackedReduction:
        return stacked_reduction();
      case Phase::Whir:
        return whir();
    }
    return VerifyResult::accept();
  }

 private:
  uint32_t air(uint32_t T) const { return shape_.order[T]; }
  uint32_t height(uint32_t T) const { return p_.trace_vdata[air(T)]->log_height; }

  // protocol.md 13 steps 2, 3, 4 and 6.
  VerifyResult shape() {
    const size_t airs = vk_.per_air.size();
    if (p_.trace_vdata.size() != airs || p_.public_values.size() != airs)
      return VerifyResult::reject(ProofReject::AirCount,
                                  fmt::format("proof shape: {} trace entries and {} public-value lists for {} AIRs",
                                              p_.trace_vdata.size(), p_.public_values.size(), airs));
    std::vector<std::optional<uint32_t>> heights(airs);
    for (size_t a = 0; a < airs; ++a) {
      const StarkVerifyingKey& k = vk_.per_air[a];
      const auto& d = p_.trace_vdata[a];
      if (!d) {
        if (k.is_required)
          return VerifyResult::reject(ProofReject::RequiredAirAbsent,
                                      fmt::format("proof shape: AIR {} is required but absent", a));
        if (!p_.public_values[a].empty())
          return VerifyResult::reject(ProofReject::AbsentAirPublicValues,
                                      fmt::format("proof shape: AIR {} is absent but has public values", a));
        continue;
      }
      if (d->cached_commitments.size() != k.params.width.cached_mains.size())
        return VerifyResult::reject(ProofReject::CachedCommitmentCount,
                                    fmt::format("proof shape: AIR {} has {} cached commitments, its vk {}", a,
                                                d->cached_commitments.size(), k.params.width.cached_mains.size()));
      if (p_.public_values[a].size() != k.params.num_public_values)
        return VerifyResult::reject(ProofReject::PublicValueCount,
                                    fmt::format("proof shape: AIR {} has {} public values, its vk {}", a,
                                                p_.public_values[a].size(), k.params.num_public_values));
      if (d->log_height > params_.log_stacked_height())
        return VerifyResult::reject(ProofReject::TraceTooHigh,
                                    fmt::format("proof shape: AIR {} trace height 2^{} exceeds 2^{}", a, d->log_height,
                                                params_.log_stacked_height()));
      if (k.preprocessed_data && k.preprocessed_data->hypercube_dim + int64_t(params_.l_skip) != d->log_height)
        return VerifyResult::reject(
            ProofReject::PreprocessedHeightMismatch,
            fmt::format("AIR {}: trace height 2^{} is not its preprocessed trace's", a, d->log_height));
      heights[a] = d->log_height;
    }
    try {
      shape_ = proof_shape(vk_, heights);
    } catch (const InputError& e) {
      return VerifyResult::reject(ProofReject::ShapeUnsupported, fmt::format("proof shape: {}", e.what()));
    }
    if (shape_.order.empty()) return VerifyResult::reject(ProofReject::NoTrace, "proof shape: no trace is present");
    if (std::string problem = proof_shape_problem(p_, shape_); !problem.empty())
      return VerifyResult::reject(ProofReject::PartShape, "proof shape: " + problem);
    return VerifyResult::accept();
  }

  // Step 5: sum over present AIRs of 2^max(h, l) coefficient < threshold (protocol.md 4.5).
  VerifyResult trace_heights() const {
    for (size_t i = 0; i < vk_.trace_height_constraints.size(); ++i) {
      const LinearConstraint& c = vk_.trace_height_constraints[i];
      // Each term is at most 2^24 x 2^32 and the sum stays below the u32 threshold until it fails:
      // no overflow.
      uint64_t sum = 0;
      for (uint32_t a : shape_.order) {
        sum += (uint64_t(1) << std::max(p_.trace_vdata[a]->log_height, params_.l_skip)) * c.coefficients[a];
        if (sum >= c.threshold)
          return VerifyResult::reject(ProofReject::TraceHeightConstraint,
                                      fmt::format("trace height constraint {} fails: the heights are too large", i));
      }
    }
    return VerifyResult::accept();
  }

  // Step 7 (protocol.md 7 steps 1-3): AIR-index order over every AIR; the prover's mirror is
  // observe_preamble (stages/preamble/prover.hpp).
  void preamble() {
    t_.observe_commit(vk_.pre_hash);
    t_.observe_commit(p_.common_main_commit);
    for (size_t a = 0; a < vk_.per_air.size(); ++a) {
      const StarkVerifyingKey& k = vk_.per_air[a];
      const auto& d = p_.trace_vdata[a];
      if (!k.is_required) t_.observe(d ? Fp::one() : Fp());
      if (d) {
        if (k.preprocessed_data)
          t_.observe_commit(k.preprocessed_data->commit);
        else
          t_.observe(Fp::from_canonical_unchecked(d->log_height));
        for (const Digest& c : d->cached_commitments) t_.observe_commit(c);
      }
      for (Fp v : p_.public_values[a]) t_.observe(v);
    }
  }

  // Step 8: LogUp's grinding, alpha, beta, GKR, the extra xi.
  VerifyResult gkr() {
    const GkrProof& gkr = p_.gkr_proof;
    BatchConstraintStatement& st = constraints_;
    if (VerifyResult v = gkr_check_pow_and_challenges(t_, gkr, params_, st.alpha, st.beta); !v) return v;
    if (shape_.gkr.layers == 0) {
      if (gkr.q0_claim != Fp4::one())
        return VerifyResult::reject(GkrReject::Q0ClaimNotOne, "GKR: q0_claim is not 1 without interactions");
      st.p_hat = Fp4();
      st.q_hat = st.alpha;
    } else {
      GkrClaim claim;
      if (VerifyResult v = gkr_verify(t_, gkr, shape_.gkr.layers, claim); !v) return v;
      st.p_hat = claim.p_hat;
      st.q_hat = claim.q_hat;
      st.xi = std::move(claim.xi);
    }
    while (st.xi.size() < params_.l_skip + std::max(shape_.batch.n_max, shape_.logup.n_logup))
      st.xi.push_back(t_.sample_ext());
    return VerifyResult::accept();
  }

  // The batch constraint sumcheck at xi, with GKR's claims.
  VerifyResult batch_constraint() {
    BatchConstraintStatement& st = constraints_;
    st.vk = &vk_;
    st.order = shape_.order;
    for (uint32_t T = 0; T < shape_.order.size(); ++T) {
      st.log_heights.push_back(height(T));
      st.public_values.push_back(p_.public_values[air(T)]);
    }
    st.row_start = shape_.logup.row_start;
    st.n_logup = shape_.logup.n_logup;
    return batch_constraint_verify(t_, p_.batch_constraint_proof, st, r_);
  }

  // Step 9: the claims in commitment order (protocol.md 10.1): the common main (traces sorted),
  // then per trace its preprocessed and cached parts; a zero rotated claim without need_rot.
  VerifyResult stacked_reduction() {
    StackedClaims c;
    c.r = r_;
    const auto& openings = p_.batch_constraint_proof.column_openings;
    auto add_claims = [&](uint32_t T, size_t part) {
      const bool rot = vk_.per_air[air(T)].params.need_rot;
      const auto& v = openings[T][part];
      for (size_t i = 0; i < v.size(); i += rot ? 2 : 1) {
        c.claims.push_back(v[i]);
        c.claims.push_back(rot ? v[i + 1] : Fp4());
      }
    };
    std::vector<MatrixShape> common;
    std::vector<bool> common_rot;
    for (uint32_t T = 0; T < shape_.order.size(); ++T) {
      common.push_back({vk_.per_air[air(T)].params.width.common_main, height(T)});
      common_rot.push_back(vk_.per_air[air(T)].params.need_rot);
      add_claims(T, 0);
    }
    c.layouts.emplace_back(common, params_.l_skip, params_.n_stack);
    c.need_rot.push_back(common_rot);
    for (uint32_t T = 0; T < shape_.order.size(); ++T) {
      const StarkVerifyingKey& k = vk_.per_air[air(T)];
      std::vector<uint32_t> widths;
      if (k.params.width.preprocessed) widths.push_back(*k.params.width.preprocessed);
      widths.insert(widths.end(), k.params.width.cached_mains.begin(), k.params.width.cached_mains.end());
      for (size_t part = 0; part < widths.size(); ++part) {
        c.layouts.emplace_back(std::vector<MatrixShape>{{widths[part], height(T)}}, params_.l_skip, params_.n_stack);
        c.need_rot.push_back({k.params.need_rot});
        add_claims(T, part + 1);
      }
    }
    return stacked_reduction_verify(t_, p_.stacking_proof, params_, c, u_);
  }

  // Step 10: WHIR on every commitment at u_cube.
  VerifyResult whir() {
    WhirStatement st;
    st.roots.push_back(p_.common_main_commit);
    for (uint32_t T = 0; T < shape_.order.size(); ++T) {
      const StarkVerifyingKey& k = vk_.per_air[air(T)];
      if (k.preprocessed_data) st.roots.push_back(k.preprocessed_data->commit);
      for (const Digest& d : p_.trace_vdata[air(T)]->cached_commitments) st.roots.push_back(d);
    }
    st.widths = shape_.stacking.widths;
    Fp4 power = u_[0];
    for (uint32_t i = 0; i < params_.l_skip; ++i) {
      st.u_cube.push_back(power);
      power = power.square();
    }
    st.u_cube.insert(st.u_cube.end(), u_.begin() + 1, u_.end());
    for (const auto& c : p_.stacking_proof.stacking_openings) st.openings.insert(st.openings.end(), c.begin(), c.end());
    return whir_verify(t_, p_.whir_proof, params_, st);
  }

  const MultiStarkVerifyingKey& vk_;
  const Proof& p_;
  const SystemParams& params_;
  DuplexSponge t_;
  ProofShape shape_;
  BatchConstraintStatement constraints_;  // LogUp GKR's claims and xi, for the constraint sumcheck
  std::vector<Fp4> r_, u_;
};

}  // namespace

VerifyResult verify(const MultiStarkVerifyingKey& vk, const Proof& proof) {
  vk.params.validate();
  return Verifier(vk, proof).run();
}

VerifyResult verify_bytes(const MultiStarkVerifyingKey& vk, std::span<const uint8_t> bytes) {
  vk.params.validate();
  Proof proof;
  try {
    proof = decode_proof(bytes, vk);
  } catch (const DecodeError& e) {
    return VerifyResult::reject(e.code(), e.what());
  }
  return verify(vk, proof);
}

}  // namespace vkstark
