// The operations of packed_avx512.inl (see there) on one lane, portable: what the CPU kernels'
// SimdLevel::Scalar bodies are written with. Include inside an anonymous namespace.

using Vec = uint32_t;
constexpr uint32_t LANES = 1;

inline Vec vbroadcast(uint32_t x) { return x; }
inline Vec vload(const uint32_t* p) { return *p; }
inline Vec vloadu(const uint32_t* p) { return *p; }
inline void vstore(uint32_t* p, Vec v) { *p = v; }
inline void vstoreu(uint32_t* p, Vec v) { *p = v; }
inline void vstream(uint32_t* p, Vec v) { *p = v; }
inline void vstream_fence() {}
inline Vec vadd(Vec a, Vec b) { return (Fp::from_mont(a) + Fp::from_mont(b)).mont(); }
inline Vec vsub(Vec a, Vec b) { return (Fp::from_mont(a) - Fp::from_mont(b)).mont(); }
inline Vec vand(Vec a, Vec b) { return a & b; }
inline Vec vsrli(Vec a, int k) { return a >> k; }
inline Vec vslli(Vec a, int k) { return a << k; }
inline Vec vneg(Vec a) { return (-Fp::from_mont(a)).mont(); }
inline Vec vmul(Vec a, Vec b) { return (Fp::from_mont(a) * Fp::from_mont(b)).mont(); }
inline void vmul_acc_wide(uint64_t* acc, Vec a, Vec b) { *acc += uint64_t(a) * b; }
inline void wide_reduce(uint64_t* acc) { *acc = (*acc >> 32) * Fp::R_MOD_P + (*acc & 0xffffffff); }

#include "kernels/field/detail/packed_wide.inl"
