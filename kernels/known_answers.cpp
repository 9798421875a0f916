#include "kernels/known_answers.hpp"

#include "kernels/field/fp4.hpp"
#include "kernels/hash/hash.hpp"
#include "kernels/hash/transcript.hpp"

namespace vkstark::kat {

namespace {
template <class R>
std::vector<uint32_t> canon(const R& range) {
  std::vector<uint32_t> out;
  for (const auto& x : range) out.push_back(x.value());
  return out;
}
std::vector<uint32_t> canon(const Fp4& a) { return canon(a.c); }
template <size_t N>
std::vector<uint32_t> vec(const std::array<uint32_t, N>& a) {
  return {a.begin(), a.end()};
}
std::vector<Fp> iota(uint32_t from, uint32_t to_inclusive) {
  std::vector<Fp> v;
  for (uint32_t i = from; i <= to_inclusive; ++i) v.push_back(Fp::from_canonical(i));
  return v;
}
}  // namespace

std::vector<Check> host_checks() {
  std::vector<Check> out;
  auto add = [&](std::string name, std::vector<uint32_t> expected, std::vector<uint32_t> computed) {
    out.push_back({std::move(name), std::move(expected), std::move(computed)});
  };

  Fp4 a = Fp4::from_canonical(1, 2, 3, 4), b = Fp4::from_canonical(5, 6, 7, 8);
  add("EF (1,2,3,4)*(5,6,7,8)", vec(EF_PRODUCT), canon(a * b));
  add("EF (1,2,3,4)^-1", vec(EF_INVERSE), canon(a.inverse()));

  Poseidon2State s;
  for (uint32_t i = 0; i < 16; ++i) s[i] = Fp::from_canonical(i);
  add("Poseidon2 Perm([0..15])", vec(PERM_IOTA), canon(poseidon2(s)));
  add("Poseidon2 Perm([0]*16)", vec(PERM_ZERO), canon(poseidon2(Poseidon2State{})));

  add("hash_slice([])", std::vector<uint32_t>(8, 0), canon(hash_slice(std::span<const Fp>())));
  add("hash_slice([1])", vec(HASH_SLICE_1), canon(hash_slice(iota(1, 1))));
  add("hash_slice([1..8])", vec(HASH_SLICE_1_TO_8), canon(hash_slice(iota(1, 8))));
  add("hash_slice([1..9])", vec(HASH_SLICE_1_TO_9), canon(hash_slice(iota(1, 9))));
  add("hash_slice([0..15])", vec(HASH_SLICE_0_TO_15), canon(hash_slice(iota(0, 15))));

  Digest l, r;
  for (uint32_t i = 0; i < 8; ++i) {
    l[i] = Fp::from_canonical(i);
    r[i] = Fp::from_canonical(8 + i);
  }
  add("compress([0..7], [8..15])", std::vector<uint32_t>(PERM_IOTA.begin(), PERM_IOTA.begin() + 8),
      canon(compress(l, r)));

  {
    DuplexSponge t;
    add("sponge: fresh, sample_ext", vec(SPONGE_FRESH_4), canon(t.sample_ext()));
  }
  {
    DuplexSponge t;
    for (Fp v : iota(1, 3)) t.observe(v);
    std::vector<Fp> got;
    for (int i = 0; i < 10; ++i) got.push_back(t.sample());
    add("sponge: observe 1,2,3 then 10 samples", vec(SPONGE_123_10), canon(got));
  }
  {
    DuplexSponge t;
    for (Fp v : iota(0, 7)) t.observe(v);
    std::vector<Fp> got{t.sample(), t.sample()};
    add("sponge: observe 0..7 then 2 samples", vec(SPONGE_0_TO_7_2), canon(got));
  }
  {
    DuplexSponge t;
    Fp w = t.grind(8);
    add("PoW: smallest 8-bit witness, next sample", {POW8_WITNESS, POW8_NEXT_SAMPLE}, {w.value(), t.sample().value()});
  }
  return out;
}

}  // namespace vkstark::kat
