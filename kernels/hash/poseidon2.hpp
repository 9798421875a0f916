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

// Internal layer M_I = 1 1^T + diag(V).
template <class T>
inline void internal_layer(std::array<T, 16>& x) {
  T sum = x[0];
  for (int i = 1; i < 16; ++i) sum = sum + x[i];
  for (int i = 0; i < 16; ++i) x[i] = sum + x[i] * Fp::from_mont(DIAG[i]);
}

}  // namespace poseidon2_detail

// The permutation, in place, for any lane type T with T+T, T*T and T*Fp, T+Fp.
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
