// Packed Poseidon2 body shared by poseidon2_avx512.cpp and poseidon2_avx2.cpp. Each includes this
// inside an anonymous namespace after defining `Vec` (one u32 per state, Montgomery form) with
// vadd, vmul, LANES and load/store helpers. Everything here has internal linkage, so code compiled
// for one ISA never leaks into another translation unit.

struct Packed {
  Vec v;
  Packed operator+(Packed o) const { return {vadd(v, o.v)}; }
  Packed operator-(Packed o) const { return {vsub(v, o.v)}; }
  Packed operator*(Packed o) const { return {vmul(v, o.v)}; }
  Packed operator+(Fp c) const { return {vadd(v, vbroadcast(c.mont()))}; }
  Packed operator*(Fp c) const { return {vmul(v, vbroadcast(c.mont()))}; }
};

// poseidon2_detail::div_2exp per lane: shifts and subtractions only.
template <int k>
inline Packed div_2exp(Packed x) {
  return {vsub(vsrli(x.v, k), vsub(vslli(vand(x.v, vbroadcast((1u << k) - 1)), 31 - k),
                                   vslli(vand(x.v, vbroadcast((1u << k) - 1)), 27 - k)))};
}

// Transposes LANES states into 16 packed lanes, permutes, transposes back.
size_t permute_all(Poseidon2State* states, size_t n) {
  size_t done = 0;
  for (; done + LANES <= n; done += LANES) {
    alignas(64) uint32_t buf[16][LANES];
    for (size_t s = 0; s < LANES; ++s)
      for (int j = 0; j < 16; ++j) buf[j][s] = states[done + s][j].mont();
    std::array<Packed, 16> x;
    for (int j = 0; j < 16; ++j) x[j].v = vload(buf[j]);
    poseidon2_permute_generic(x);
    for (int j = 0; j < 16; ++j) vstore(buf[j], x[j].v);
    for (size_t s = 0; s < LANES; ++s)
      for (int j = 0; j < 16; ++j) states[done + s][j] = Fp::from_mont(buf[j][s]);
  }
  return done;
}
