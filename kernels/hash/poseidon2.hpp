// Poseidon2 over BabyBear, width 16, x^7 S-box, 8 full + 13 partial rounds, Plonky3's default
// constants (protocol.md 2.1). Pure functions; thread-safe.
//
// The permutation is written once, generic over the lane type `T`: `Fp` gives the scalar
// permutation; a packed type (several states side by side, kernels/hash/packed.hpp) gives the batch
// permutation the CPU kernels use. kernels/glsl/poseidon2.glsl is the GLSL twin, with the same
// round structure and the same constants (kernels/hash/poseidon2_constants.h).
#pragma once

#include <array>
#include <cstdint>

#include "kernels/field/fp.hpp"
#include "kernels/hash/poseidon2_constants.h"

namespace vkstark {

inline constexpr int POSEIDON2_WIDTH = 16;
inline constexpr int POSEIDON2_HALF_FULL_ROUNDS = 4;
inline constexpr int POSEIDON2_PARTIAL_ROUNDS = 13;

namespace poseidon2_detail {

inline constexpr uint32_t RC_EXT_INIT[64] = {VKSTARK_P2_RC_EXTERNAL_INITIAL};
inline constexpr uint32_t RC_EXT_TERM[64] = {VKSTARK_P2_RC_EXTERNAL_TERMINAL};
inline constexpr uint32_t RC_INT[13] = {VKSTARK_P2_RC_INTERNAL};
inline constexpr uint32_t DIAG[16] = {VKSTARK_P2_INTERNAL_DIAG};

template <class T>
inline T sbox(T x) {
  T x2 = x * x;
  T x3 = x2 * x;
  T x4 = x2 * x2;
  return x4 * x3;
}

// The 4x4 block [[2,3,1,1],[1,2,3,1],[1,1,2,3],[3,1,1,2]] with 7 additions and 2 doublings.
template <class T>
inline void apply_mat4(T* x) {
  T t01 = x[0] + x[1];
  T t23 = x[2] + x[3];
  T t0123 = t01 + t23;
  T t01123 = t0123 + x[1];
  T t01233 = t0123 + x[3];
  T x0 = x[0], x2 = x[2];
  x[3] = t01233 + (x0 + x0);
  x[1] = t01123 + (x2 + x2);
  x[0] = t01123 + t01;
  x[2] = t01233 + t23;
}

// External layer M_E = circ(2M, M, M, M): M on each chunk of 4, then add the column sums.
template <class T>
inline void external_layer(std::array<T, 16>& x) {
  for (int c = 0; c < 4; ++c) apply_mat4(&x[4 * c]);
  for (int k = 0; k < 4; ++k) {
    T s = x[k] + x[4 + k] + x[8 + k] + x[12 + k];
    for (int c = 0; c < 4; ++c) x[4 * c + k] = x[4 * c + k] + s;
  }
}

// x 2^-k for 0 < k <= 27, on the Montgomery word (the map is linear): with p = 15 2^27 + 1,
// 2^-k = -15 2^(27-k), so for x = y 2^k + lo (lo < 2^k): x 2^-k = y - lo (2^(31-k) - 2^(27-k)),
// both terms below p. Packed lane types have their own div_2exp (found by argument lookup).
template <int k>
inline Fp div_2exp(Fp x) {
  static_assert(k > 0 && k <= 27);
  const uint32_t lo = x.mont() & ((1u << k) - 1);
  return Fp::from_mont(x.mont() >> k) - Fp::from_mont((lo << (31 - k)) - (lo << (27 - k)));
}

// Internal layer M_I = 1 1^T + diag(V), V = DIAG = [-2, 1, 2, 1/2, 3, 4, -1/2, -3, -4, 1/2^8, 1/4,
// 1/8, 1/2^27, -1/2^8, -1/16, -1/2^27] (Plonky3's BabyBear width 16; static_asserts below): the
// products by V as additions and div_2exp, no multiplication.
template <class T>
inline void internal_layer(std::array<T, 16>& x) {
  T sum = x[0];
  for (int i = 1; i < 16; ++i) sum = sum + x[i];
  const T x0d = x[0] + x[0], x4d = x[4] + x[4], x5d = x[5] + x[5], x7d = x[7] + x[7], x8d = x[8] + x[8];
  x[0] = sum - x0d;
  x[1] = sum + x[1];
  x[2] = sum + (x[2] + x[2]);
  x[3] = sum + div_2exp<1>(x[3]);
  x[4] = sum + (x4d + x[4]);
  x[5] = sum + (x5d + x5d);
  x[6] = sum - div_2exp<1>(x[6]);
  x[7] = sum - (x7d + x[7]);
  x[8] = sum - (x8d + x8d);
  x[9] = sum + div_2exp<8>(x[9]);
  x[10] = sum + div_2exp<2>(x[10]);
  x[11] = sum + div_2exp<3>(x[11]);
  x[12] = sum + div_2exp<27>(x[12]);
  x[13] = sum - div_2exp<8>(x[13]);
  x[14] = sum - div_2exp<4>(x[14]);
  x[15] = sum - div_2exp<27>(x[15]);
}

// The diagonal internal_layer hard-codes, against the constants (canonical values).
consteval uint32_t diag_value(int i) { return Fp::from_mont(DIAG[i]).value(); }
consteval uint32_t inv_2exp(int k) { return Fp::P - ((Fp::P - 1) >> k); }  // 2^-k
static_assert(diag_value(0) == Fp::P - 2 && diag_value(1) == 1 && diag_value(2) == 2 && diag_value(3) == inv_2exp(1));
static_assert(diag_value(4) == 3 && diag_value(5) == 4 && diag_value(6) == Fp::P - inv_2exp(1));
static_assert(diag_value(7) == Fp::P - 3 && diag_value(8) == Fp::P - 4 && diag_value(9) == inv_2exp(8));
static_assert(diag_value(10) == inv_2exp(2) && diag_value(11) == inv_2exp(3) && diag_value(12) == inv_2exp(27));
static_assert(diag_value(13) == Fp::P - inv_2exp(8) && diag_value(14) == Fp::P - inv_2exp(4));
static_assert(diag_value(15) == Fp::P - inv_2exp(27));

}  // namespace poseidon2_detail

// The permutation, in place, for any lane type T with T+T, T-T, T*T, T+Fp and div_2exp<k>(T).
template <class T>
inline void poseidon2_permute_generic(std::array<T, 16>& x) {
  using namespace poseidon2_detail;
  external_layer(x);
  for (int r = 0; r < POSEIDON2_HALF_FULL_ROUNDS; ++r) {
    for (int i = 0; i < 16; ++i) x[i] = sbox(x[i] + Fp::from_mont(RC_EXT_INIT[16 * r + i]));
    external_layer(x);
  }
  for (int r = 0; r < POSEIDON2_PARTIAL_ROUNDS; ++r) {
    x[0] = sbox(x[0] + Fp::from_mont(RC_INT[r]));
    internal_layer(x);
  }
  for (int r = 0; r < POSEIDON2_HALF_FULL_ROUNDS; ++r) {
    for (int i = 0; i < 16; ++i) x[i] = sbox(x[i] + Fp::from_mont(RC_EXT_TERM[16 * r + i]));
    external_layer(x);
  }
}

using Poseidon2State = std::array<Fp, 16>;

inline void poseidon2_permute(Poseidon2State& state) { poseidon2_permute_generic(state); }
inline Poseidon2State poseidon2(Poseidon2State state) {
  poseidon2_permute(state);
  return state;
}

}  // namespace vkstark
