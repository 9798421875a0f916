// The body of NttRsMessageVec and NttRsMessageVecFrom (kernels/ntt.hpp), after their ABI: chunks of
// 16 entries of Fp columns bound as uvec4 entries (four consecutive Fp). One invocation per chunk;
// a workgroup copies its consecutive chunks between global and shared memory 16 bytes at a time,
// and each invocation transforms its chunk in registers. The includer defines RS_LOAD(c, e) (entry e
// of column c of the source, in uvec4 entries) and RS_STORE(c, e, v).
#include "ntt.glsl"
#include "rs_message.glsl"

// Four entries per invocation, and a pad entry after every four, so that the eight invocations of
// a quarter subgroup reading their chunks (entries 5 t ..) meet in no memory bank.
shared uvec4 stage4_[WG * 5u];
uint stage4_slot(uint e) { return e + (e >> 2u); }

// j < 16 with its four bits reversed.
const uint REV4[16] = uint[16](0u, 8u, 4u, 12u, 2u, 10u, 6u, 14u, 1u, 9u, 5u, 13u, 3u, 11u, 7u, 15u);

void main() {
  const uint i = vks_index_x();
  const uint c = vks_index_y();
  const bool inverse = pc.inverse != 0u;
  const uint wg = gl_WorkGroupSize.x;
  const uint lid = gl_LocalInvocationID.x;
  // This workgroup's chunks are consecutive: [first, first + wg) (those < grid_x exist). Every
  // invocation takes part in the copies and the barriers.
  const uint first = i - lid;
  const uint chunks = min(wg, pc.grid_x - min(first, pc.grid_x));
  const uint entries = chunks << 2u;
  for (uint e = lid; e < entries; e += wg) stage4_[stage4_slot(e)] = RS_LOAD(c, (first << 2u) + e);
  barrier();
  if (lid < chunks) {
    const uint at = lid << 2u;
    const uvec4 q[4] = uvec4[4](stage4_[stage4_slot(at)], stage4_[stage4_slot(at + 1u)],
                                stage4_[stage4_slot(at + 2u)], stage4_[stage4_slot(at + 3u)]);
    uint v[16];
    uint w[16];  // natural order out
    if (inverse) {  // natural order in, bit-reversed out
      [[unroll]] for (uint j = 0u; j < 16u; ++j) v[j] = q[j >> 2u][j & 3u];
      small_message_inverse(v, 4u);
      [[unroll]] for (uint j = 0u; j < 16u; ++j) w[REV4[j]] = v[j];
    } else {  // bit-reversed order in, natural out
      [[unroll]] for (uint j = 0u; j < 16u; ++j) v[j] = q[REV4[j] >> 2u][REV4[j] & 3u];
      small_message(v, 4u);
      [[unroll]] for (uint j = 0u; j < 16u; ++j) w[j] = v[j];
    }
    [[unroll]] for (uint k = 0u; k < 4u; ++k)
      stage4_[stage4_slot(at + k)] = uvec4(w[4u * k], w[4u * k + 1u], w[4u * k + 2u], w[4u * k + 3u]);
  }
  barrier();
  for (uint e = lid; e < entries; e += wg) RS_STORE(c, (first << 2u) + e, stage4_[stage4_slot(e)]);
}
