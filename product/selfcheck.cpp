#include "product/selfcheck.hpp"

#include "kernels/basic.hpp"
#include "kernels/hashing.hpp"
#include "stages/common/transcript.hpp"

namespace vkstark {

namespace {
std::vector<uint32_t> canon(std::span<const Fp> v) {
  std::vector<uint32_t> out;
  for (Fp x : v) out.push_back(x.value());
  return out;
}
template <size_t N>
std::vector<uint32_t> vec(const std::array<uint32_t, N>& a) {
  return {a.begin(), a.end()};
}
}  // namespace

std::vector<kat::Check> device_known_answer_checks(Executor& exec, Trace* trace) {
  Graph g;
  auto input = g.input<Fp>("input", 16 + 11);  // [0..15] for the permutation; 1, 2, 3, 0..7 to observe
  auto perms = g.output<Fp>("perms", 32);
  g.dispatch<FillU32>("zero", {.out = perms.slice(16, 16).bitcast<uint32_t>(), .value = 0});
  g.dispatch<CopyU32>("iota",
                      {.src = input.slice(0, 16).bitcast<uint32_t>(), .dst = perms.slice(0, 16).bitcast<uint32_t>()});
  g.dispatch<Poseidon2Permute>("permute", {.states = perms});
  auto fresh = g.output<Fp>("fresh", 4);
  auto ten = g.output<Fp>("ten", 10);
  auto two = g.output<Fp>("two", 2);
  auto pow = g.output<Fp>("pow", 2);
  DeviceTranscript t1(g, "t1"), t2(g, "t2"), t3(g, "t3"), t4(g, "t4");
  t1.sample(fresh);
  t2.observe(input.slice(16, 3));
  t2.sample(ten);
  t3.observe(input.slice(19, 8));
  t3.sample(two);
  t4.grind(8, pow.slice(0, 1));
  t4.sample(pow.slice(1, 1));
  auto p = exec.prepare(compile(std::move(g)));
  std::vector<Fp> in;
  for (uint32_t i = 0; i < 16; ++i) in.push_back(Fp::from_canonical(i));
  for (uint32_t v : {1, 2, 3}) in.push_back(Fp::from_canonical(v));
  for (uint32_t i = 0; i < 8; ++i) in.push_back(Fp::from_canonical(i));
  p->upload(input, in);
  Trace local;
  p->run(trace ? *trace : local);
  auto perm = p->download(perms);
  std::vector<kat::Check> out;
  out.push_back({"device Poseidon2 Perm([0..15])", vec(kat::PERM_IOTA), canon(std::span(perm).subspan(0, 16))});
  out.push_back({"device Poseidon2 Perm([0]*16)", vec(kat::PERM_ZERO), canon(std::span(perm).subspan(16, 16))});
  out.push_back({"device sponge: fresh, sample_ext", vec(kat::SPONGE_FRESH_4), canon(p->download(fresh))});
  out.push_back({"device sponge: observe 1,2,3 then 10 samples", vec(kat::SPONGE_123_10), canon(p->download(ten))});
  out.push_back({"device sponge: observe 0..7 then 2 samples", vec(kat::SPONGE_0_TO_7_2), canon(p->download(two))});
  out.push_back({"device PoW: smallest 8-bit witness, next sample",
                 {kat::POW8_WITNESS, kat::POW8_NEXT_SAMPLE},
                 canon(p->download(pow))});
  return out;
}

}  // namespace vkstark
