// The end of a lazy sum of packed_*.inl (vmul_acc_wide, wide_reduce), shared by every level:
// included by each packed_*.inl.

// The canonical Montgomery word of a lazy sum s < 2^64 of Montgomery products, sum a_i b_i R^-1:
// s reduced as wide_reduce does (< 2^60 + 2^32 < p 2^32, the same residue), then times R^-1.
inline uint32_t wide_value(uint64_t s) { return Fp::mont_reduce((s >> 32) * Fp::R_MOD_P + (s & 0xffffffff)); }
