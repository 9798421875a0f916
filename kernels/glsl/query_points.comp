#version 460
#extension GL_GOOGLE_include_directive : require
#include "abi/query_points.glsl"
#include "fp4.glsl"
// QueryPoints (kernels/whir.hpp): points[q] = two_adic_generator(log_domain)^idx[q], as an Fp4.

// two_adic_generator(k) of protocol.md 1.2 (canonical).
const uint TWO_ADIC_GENERATORS[28] = uint[28](
    1u, 2013265920u, 1728404513u, 1592366214u, 196396260u, 760005850u, 1721589904u, 397765732u, 1732600167u,
    1753498361u, 341742893u, 1340477990u, 1282623253u, 298008106u, 1657000625u, 2009781145u, 1421947380u,
    1286330022u, 1559589183u, 1049899240u, 195061667u, 414040701u, 570250684u, 1267047229u, 1003846038u,
    1149491290u, 975630072u, 440564289u);

void main() {
  uint q = vks_index_x();
  if (q >= pc.grid_x) return;
  uint g = fp_from_canonical(TWO_ADIC_GENERATORS[min(pc.log_domain, 27u)]);
  points_[pc.points_off + q] = uvec4(fp_pow(g, idx_[pc.idx_off + q]), 0u, 0u, 0u);
}
