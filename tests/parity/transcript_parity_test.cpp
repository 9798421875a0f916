// The device transcript (stages/common/transcript.hpp) on each executor: the protocol.md 16.2 values for
// Poseidon2, sponge samples and the 8-bit PoW witness computed by the device kernels, and random
// observe/sample/grind sequences that must match, step for step, a naive duplex sponge written here
// from protocol.md 2.5 / 2.6 over the KAT-checked permutation (independent of the host DuplexSponge,
// which the CPU bodies use; style.md item 16) and the host DuplexSponge; also, against the host
// sponge, observes and samples from random states at every absorb and sample position and across
// block boundaries.
//
// The Vulkan kernels exchange state lanes through subgroup shuffles where a subgroup holds 16
// lanes, through shared memory otherwise (kernels/glsl/sponge_coop.glsl). On lavapipe the default
// subgroup size is 8 (shared memory); CTest runs this file a second time with
// LP_NATIVE_VECTOR_WIDTH=512 (subgroups of 16, shuffles) and VKSTARK_EXPECT_SUBGROUP=16, which
// SubgroupSizeIsTheOneExpected checks, so both paths are held to the host sponge.
#include "tests/parity/executor_fixture.hpp"

#include <fmt/format.h>

#include "kernels/basic.hpp"
#include "kernels/glsl/compiler.hpp"
#include "kernels/hash/transcript.hpp"
#include "kernels/hashing.hpp"
#include "kernels/known_answers.hpp"
#include "kernels/transcript.hpp"
#include "stages/common/transcript.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {
template <size_t N>
void expect_values(const std::vector<Fp>& got, const std::array<uint32_t, N>& want, const char* what) {
  ASSERT_EQ(got.size(), N) << what;
  for (size_t i = 0; i < N; ++i) EXPECT_EQ(got[i].value(), want[i]) << what << " index " << i;
}
std::vector<Fp> iota(uint32_t from, uint32_t n) {
  std::vector<Fp> v;
  for (uint32_t i = 0; i < n; ++i) v.push_back(Fp::from_canonical(from + i));
  return v;
}

// A sponge with random state lanes at the given absorb and sample positions (any pair is reachable:
// samples, then observes that do not fill the block).
SpongeState random_state(uint32_t absorb_idx, uint32_t sample_idx, uint64_t seed) {
  auto lanes = field_values(16, seed);
  SpongeState s;
  std::copy(lanes.begin(), lanes.end(), s.state.begin());
  s.absorb_idx = absorb_idx;
  s.sample_idx = sample_idx;
  return s;
}
DuplexSponge host_sponge(const SpongeState& s) { return DuplexSponge::from_state(s.state, s.absorb_idx, s.sample_idx); }

constexpr uint32_t kRate = SPONGE_RATE;
// Observe lengths around the block of 8 (and the prefetch of the next block), with one long run.
constexpr uint32_t kObserveLengths[] = {0, 1, 7, 8, 9, 16, 17, 100};

// protocol.md 2.5 (duplex sponge, overwrite mode, rate 8) and 2.6 (proof of work) as written there,
// over poseidon2_permute; grind tries every candidate from 0 up on a copy.
struct NaiveSponge {
  Poseidon2State state{};
  uint32_t absorb_idx = 0, sample_idx = 0;

  void observe(Fp v) {
    state[absorb_idx] = v;
    absorb_idx += 1;
    if (absorb_idx == 8) {
      poseidon2_permute(state);
      absorb_idx = 0;
      sample_idx = 8;
    }
  }
  Fp sample() {
    if (absorb_idx != 0 || sample_idx == 0) {
      poseidon2_permute(state);
      absorb_idx = 0;
      sample_idx = 8;
    }
    sample_idx -= 1;
    return state[sample_idx];
  }
  uint32_t sample_bits(uint32_t bits) { return sample().value() & ((1u << bits) - 1); }
  bool check_witness(uint32_t bits, Fp w) {
    if (bits == 0) return true;
    observe(w);
    return sample_bits(bits) == 0;
  }
  Fp grind(uint32_t bits) {
    if (bits == 0) return Fp::zero();
    for (uint32_t w = 0;; ++w) {
      NaiveSponge copy = *this;
      if (copy.check_witness(bits, Fp::from_canonical(w))) {
        check_witness(bits, Fp::from_canonical(w));
        return Fp::from_canonical(w);
      }
    }
  }
};
}  // namespace

// A transcript from `start` that observes `len` values of a pool from `offset`, then draws
// `samples` samples (0: none).
struct StartCase {
  SpongeState start;
  uint32_t offset = 0, len = 0, samples = 0;
};
// How the samples are drawn: sample(), observe_sample() (the fused kernel), sample_bits().
enum class Draw { Separate, Fused, Bits };

class TranscriptParity : public ExecutorTest {
 protected:
  // Runs every case on the device (one graph, a transcript per case) and on the host sponge, and
  // compares the samples and the final states.
  void run_cases(const std::vector<StartCase>& cases, Draw draw, uint32_t bits = 0) {
    Graph g;
    const uint32_t pool_size = 128;
    auto pool = g.input<Fp>("pool", pool_size);
    auto pool_values = field_values(pool_size, 5);
    auto starts = g.input<SpongeState>("starts", cases.size());
    auto finals = g.output<SpongeState>("finals", cases.size());
    uint32_t total = 0;
    for (const StartCase& c : cases) total += c.samples;
    auto out = g.output<uint32_t>("out", std::max(total, 1u));
    std::vector<uint32_t> want;  // canonical values (Fp samples) or sample_bits
    std::vector<SpongeState> start_values;
    std::vector<DuplexSponge> want_finals;
    uint32_t at = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      const StartCase& c = cases[i];
      ASSERT_LE(c.offset + c.len, pool_size);
      start_values.push_back(c.start);
      DeviceTranscript dev(g, fmt::format("t{}", i), starts.slice(i, 1));
      View<Fp> values = pool.slice(c.offset, c.len);
      View<uint32_t> drawn = out.slice(at, c.samples);
      if (draw == Draw::Fused && c.samples > 0) {
        dev.observe_sample(values, drawn.bitcast<Fp>());
      } else {
        dev.observe(values);
        if (c.samples > 0 && draw != Draw::Bits) dev.sample(drawn.bitcast<Fp>());
        if (c.samples > 0 && draw == Draw::Bits) dev.sample_bits(drawn, bits);
      }
      g.dispatch<CopyU32>(fmt::format("t{}.save", i), {.src = dev.state().all().bitcast<uint32_t>(),
                                                       .dst = finals.slice(i, 1).bitcast<uint32_t>()});
      DuplexSponge host = host_sponge(c.start);
      for (uint32_t j = 0; j < c.len; ++j) host.observe(pool_values[c.offset + j]);
      for (uint32_t j = 0; j < c.samples; ++j)
        want.push_back(draw == Draw::Bits ? host.sample_bits(bits) : host.sample().value());
      want_finals.push_back(host);
      at += c.samples;
    }
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(pool, pool_values);
      pp.upload(starts, start_values);
    });
    const auto got = p->download(out);
    const auto got_finals = p->download(finals);
    at = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      const StartCase& c = cases[i];
      const std::string where = fmt::format("from absorb_idx {} sample_idx {}, observe {}, {} samples",
                                            c.start.absorb_idx, c.start.sample_idx, c.len, c.samples);
      for (uint32_t j = 0; j < c.samples; ++j, ++at)
        EXPECT_EQ(draw == Draw::Bits ? got[at] : Fp::from_mont(got[at]).value(), want[at]) << where << ": sample " << j;
      EXPECT_EQ(host_sponge(got_finals[i]), want_finals[i]) << where << ": final state";
    }
  }
};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(TranscriptParity);

// The reference itself against protocol.md 16.2, so that the checks below rest on the spec.
TEST(NaiveSponge, ReproducesTheKnownAnswers) {
  auto samples = [](NaiveSponge& t, size_t n) {
    std::vector<Fp> v;
    for (size_t i = 0; i < n; ++i) v.push_back(t.sample());
    return v;
  };
  NaiveSponge fresh, t123, t0to7, pow;
  expect_values(samples(fresh, 4), kat::SPONGE_FRESH_4, "fresh, 4 samples");
  for (Fp x : iota(1, 3)) t123.observe(x);
  expect_values(samples(t123, 10), kat::SPONGE_123_10, "observe 1,2,3 then 10 samples");
  for (Fp x : iota(0, 8)) t0to7.observe(x);
  expect_values(samples(t0to7, 2), kat::SPONGE_0_TO_7_2, "observe 0..7 then 2 samples");
  EXPECT_EQ(pow.grind(8).value(), kat::POW8_WITNESS);
  EXPECT_EQ(pow.sample().value(), kat::POW8_NEXT_SAMPLE);
}

TEST_P(TranscriptParity, Poseidon2KnownAnswersOnTheDevice) {
  Graph g;
  auto in = g.input<Fp>("in", 32);
  auto out = g.output<Fp>("out", 32);
  g.dispatch<CopyU32>("copy", {.src = in.all().bitcast<uint32_t>(), .dst = out.all().bitcast<uint32_t>()});
  g.dispatch<Poseidon2Permute>("permute", {.states = out});
  std::vector<Fp> v = iota(0, 16);
  v.resize(32, Fp::zero());
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(in, v); });
  auto got = p->download(out);
  expect_values(std::vector<Fp>(got.begin(), got.begin() + 16), kat::PERM_IOTA, "Perm([0..15])");
  expect_values(std::vector<Fp>(got.begin() + 16, got.end()), kat::PERM_ZERO, "Perm(0)");
}

TEST_P(TranscriptParity, SpongeKnownAnswersOnTheDevice) {
  Graph g;
  auto obs = g.input<Fp>("obs", 11);  // 1, 2, 3 then 0..7
  auto fresh = g.output<Fp4>("fresh", 1);
  auto ten = g.output<Fp>("ten", 10);
  auto two = g.output<Fp>("two", 2);
  auto witness = g.output<Fp>("witness", 1);
  auto next = g.output<Fp>("next", 1);
  DeviceTranscript t1(g, "t1"), t2(g, "t2"), t3(g, "t3"), t4(g, "t4");
  t1.sample_ext(fresh);
  t2.observe(obs.slice(0, 3));
  t2.sample(ten);
  t3.observe(obs.slice(3, 8));
  t3.sample(two);
  t4.grind(8, witness);
  t4.sample(next);
  std::vector<Fp> v = iota(1, 3);
  for (Fp x : iota(0, 8)) v.push_back(x);
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(obs, v); });
  const Fp4 fresh_value = p->download(fresh)[0];
  expect_values(std::vector<Fp>(fresh_value.c.begin(), fresh_value.c.end()), kat::SPONGE_FRESH_4, "fresh sample_ext");
  expect_values(p->download(ten), kat::SPONGE_123_10, "observe 1,2,3 then 10 samples");
  expect_values(p->download(two), kat::SPONGE_0_TO_7_2, "observe 0..7 then 2 samples");
  EXPECT_EQ(p->download(witness)[0].value(), kat::POW8_WITNESS);
  EXPECT_EQ(p->download(next)[0].value(), kat::POW8_NEXT_SAMPLE);
}

TEST_P(TranscriptParity, RandomSequencesMatchTheNaiveAndTheHostSponge) {
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 4; ++trial) {
    Graph g;
    NaiveSponge naive;
    DuplexSponge host;
    DeviceTranscript dev(g, "t");
    auto pool = g.input<Fp>("pool", 64);
    auto pool_values = field_values(64, trial);
    struct Expect {
      Buffer<Fp> fp;
      Buffer<uint32_t> bits;
      std::vector<uint32_t> want;
    };
    std::vector<Expect> expects;
    for (int op = 0; op < 24; ++op) {
      int kind = static_cast<int>(rng() % 5);

      if (kind == 0 || kind == 1) {  // observe a random slice (ext-sized or odd)
        uint32_t off = rng() % 32;
        uint32_t n = kind == 0 ? 1 + rng() % 12 : 4 * (1 + rng() % 3);
        dev.observe(pool.slice(off, n));
        for (uint32_t i = 0; i < n; ++i) {
          naive.observe(pool_values[off + i]);
          host.observe(pool_values[off + i]);
        }
      } else if (kind == 2) {  // samples
        uint32_t n = 1 + rng() % 10;
        auto out = g.output<Fp>(fmt::format("s{}", op), n);
        dev.sample(out);
        std::vector<uint32_t> want;
        for (uint32_t i = 0; i < n; ++i) {
          want.push_back(naive.sample().value());
          ASSERT_EQ(host.sample().value(), want.back()) << "host sponge, trial " << trial << " op " << op;
        }
        expects.push_back({out, {}, want});
      } else if (kind == 3) {  // query indices
        uint32_t n = 1 + rng() % 6, bits = 1 + rng() % 30;
        auto out = g.output<uint32_t>(fmt::format("b{}", op), n);
        dev.sample_bits(out, bits);
        std::vector<uint32_t> want;
        for (uint32_t i = 0; i < n; ++i) {
          want.push_back(naive.sample_bits(bits));
          ASSERT_EQ(host.sample_bits(bits), want.back()) << "host sponge, trial " << trial << " op " << op;
        }
        expects.push_back({{}, out, want});
      } else {  // proof of work
        uint32_t bits = rng() % 9;
        auto out = g.output<Fp>(fmt::format("w{}", op), 1);
        dev.grind(bits, out);
        const Fp w = naive.grind(bits);
        ASSERT_EQ(host.grind(bits), w) << "host sponge, trial " << trial << " op " << op;
        expects.push_back({out, {}, {w.value()}});
      }
    }
    auto final_state = g.output<SpongeState>("final", 1);
    g.dispatch<CopyU32>("save",
                        {.src = dev.state().all().bitcast<uint32_t>(), .dst = final_state.all().bitcast<uint32_t>()});
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(pool, pool_values); });
    for (const auto& e : expects) {
      std::vector<uint32_t> got;
      if (e.fp.valid())
        for (Fp x : p->download(e.fp)) got.push_back(x.value());
      else
        got = p->download(e.bits);
      EXPECT_EQ(got, e.want) << "trial " << trial;
    }
    SpongeState s = p->download(final_state)[0];
    EXPECT_EQ(s, (SpongeState{naive.state, naive.absorb_idx, naive.sample_idx})) << "trial " << trial;
    EXPECT_EQ(DuplexSponge::from_state(s.state, s.absorb_idx, s.sample_idx), host) << "trial " << trial;
  }
}

TEST_P(TranscriptParity, GrindFindsTheSmallestWitnessFromAnyAbsorbState) {
  for (uint32_t absorbed : {0u, 3u, 7u, 8u}) {
    for (uint32_t bits : {1u, 5u, 6u, 11u}) {  // up to kCoopGrindBits one TranscriptGrindCoop dispatch
      Graph g;
      auto state_in = g.input<SpongeState>("state", 1);
      auto witness = g.output<Fp>("witness", 1);
      auto after = g.output<Fp>("after", 1);
      DeviceTranscript dev(g, "t", state_in);
      dev.grind(bits, witness);
      dev.sample(after);
      NaiveSponge naive;
      DuplexSponge host;
      for (uint32_t i = 0; i < absorbed; ++i) {
        naive.observe(Fp::from_canonical(1000 + i));
        host.observe(Fp::from_canonical(1000 + i));
      }
      SpongeState s{naive.state, naive.absorb_idx, naive.sample_idx};
      auto p = run(g, [&](PreparedPlan& pp) { pp.upload(state_in, std::vector<SpongeState>{s}); });
      const Fp w = naive.grind(bits), next = naive.sample();
      EXPECT_EQ(host.grind(bits), w) << "host sponge";
      EXPECT_EQ(host.sample(), next) << "host sponge";
      EXPECT_EQ(p->download(witness)[0], w) << "absorbed " << absorbed << " bits " << bits;
      EXPECT_EQ(p->download(after)[0], next) << "absorbed " << absorbed << " bits " << bits;
    }
  }
}

// TranscriptGrindCoop alone, for more bits than DeviceTranscript gives it (several rounds of
// candidates, found in a later round), and for none (witness 0, the transcript untouched).
TEST_P(TranscriptParity, CoopGrindIsTheSearchAndTheFinishInOneDispatch) {
  for (uint32_t absorbed : {0u, 5u, 7u}) {
    for (uint32_t bits : {0u, 2u, 8u, 9u}) {
      Graph g;
      auto state_in = g.input<SpongeState>("state", 1);
      auto witness = g.output<Fp>("witness", 1);
      auto after = g.output<Fp>("after", 1);
      DeviceTranscript dev(g, "t", state_in);
      g.dispatch<TranscriptGrindCoop>("grind", {.t = dev.state(), .witness = witness.all(), .bits = bits});
      dev.sample(after);
      NaiveSponge naive;
      for (uint32_t i = 0; i < absorbed; ++i) naive.observe(Fp::from_canonical(2000 + 3 * i));
      SpongeState s{naive.state, naive.absorb_idx, naive.sample_idx};
      auto p = run(g, [&](PreparedPlan& pp) { pp.upload(state_in, std::vector<SpongeState>{s}); });
      const Fp w = bits == 0 ? Fp::zero() : naive.grind(bits), next = naive.sample();
      EXPECT_EQ(p->download(witness)[0], w) << "absorbed " << absorbed << " bits " << bits;
      EXPECT_EQ(p->download(after)[0], next) << "absorbed " << absorbed << " bits " << bits;
    }
  }
}

TEST_P(TranscriptParity, ZeroBitGrindWritesZeroAndTouchesNothing) {
  Graph g;
  auto w = g.output<Fp>("w", 1);
  auto s = g.output<Fp4>("s", 1);
  DeviceTranscript dev(g, "t");
  dev.grind(0, w);
  dev.sample_ext(s);
  auto p = run(g, [](PreparedPlan&) {});
  EXPECT_EQ(p->download(w)[0], Fp::zero());
  NaiveSponge naive;
  const Fp4 untouched{naive.sample(), naive.sample(), naive.sample(), naive.sample()};  // sample_ext: protocol.md 1.3
  EXPECT_EQ(p->download(s)[0], untouched);
}

// Every observe length of kObserveLengths from every (absorb_idx, sample_idx) position, each from
// its own random state: the first partial block, whole blocks with the next one prefetched, the
// tail, and observe(nothing).
TEST_P(TranscriptParity, ObserveFromEveryPositionMatchesTheHostSponge) {
  std::vector<StartCase> cases;
  uint64_t seed = 100;
  for (uint32_t len : kObserveLengths)
    for (uint32_t a = 0; a < kRate; ++a)
      for (uint32_t s = 0; s <= kRate; ++s) cases.push_back({random_state(a, s, ++seed), uint32_t(seed % 16), len, 0});
  run_cases(cases, Draw::Separate);
}

// Samples from every position: the remaining squeezed lanes first, then whole permutations.
TEST_P(TranscriptParity, SamplesFromEveryPositionMatchTheHostSponge) {
  std::vector<StartCase> cases;
  uint64_t seed = 200;
  for (uint32_t n : {1u, 3u, 8u, 9u, 17u})
    for (uint32_t a = 0; a < kRate; ++a)
      for (uint32_t s = 0; s <= kRate; ++s) cases.push_back({random_state(a, s, ++seed), 0, 0, n});
  run_cases(cases, Draw::Separate);
  for (uint32_t bits : {1u, 17u, 30u}) run_cases(cases, Draw::Bits, bits);
}

// The fused kernel against the host sponge (observe, then sample) for every observe length from
// every position, with sample counts below, at and above the 8 lanes of one permutation.
TEST_P(TranscriptParity, ObserveSampleFromEveryPositionMatchesTheHostSponge) {
  std::vector<StartCase> cases;
  uint64_t seed = 300;
  const uint32_t counts[] = {1, 4, 8, 9, 2, 17};
  for (uint32_t len : kObserveLengths)
    for (uint32_t a = 0; a < kRate; ++a)
      for (uint32_t s = 0; s <= kRate; ++s, ++seed)
        cases.push_back({random_state(a, s, seed), uint32_t(seed % 16), len, counts[seed % std::size(counts)]});
  run_cases(cases, Draw::Fused);
}

// observe_sample_ext on Fp4 and Digest views draws the same challenges as observe_ext /
// observe_commit followed by sample_ext.
TEST_P(TranscriptParity, ObserveSampleExtMatchesObserveThenSampleExt) {
  Graph g;
  auto in = g.input<Fp>("in", 24);
  auto fused = g.output<Fp4>("fused", 3);
  auto separate = g.output<Fp4>("separate", 3);
  DeviceTranscript a(g, "a"), b(g, "b");
  a.observe_sample_ext(in.slice(0, 8).bitcast<Digest>(), fused.slice(0, 1));
  a.observe_sample_ext(in.slice(8, 12).bitcast<Fp4>(), fused.slice(1, 2));
  b.observe_commit(in.slice(0, 8).bitcast<Digest>());
  b.sample_ext(separate.slice(0, 1));
  b.observe_ext(in.slice(8, 12).bitcast<Fp4>());
  b.sample_ext(separate.slice(1, 2));
  auto values = field_values(24, 9);
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(in, values); });
  DuplexSponge host;
  for (int i = 0; i < 8; ++i) host.observe(values[i]);
  std::vector<Fp4> want{host.sample_ext()};
  for (int i = 8; i < 20; ++i) host.observe(values[i]);
  want.push_back(host.sample_ext());
  want.push_back(host.sample_ext());
  EXPECT_EQ(p->download(fused), want);
  EXPECT_EQ(p->download(separate), want);
}

namespace {
// Several sponges in one workgroup (kernels/glsl/sponge_coop.glsl, P2C_GROUPS): group g of 16
// invocations advances its own state t[g]: observe(values[g len .. (g + 1) len)), then `samples`
// samples into out[g samples ..]. The groups run the same control flow (equal absorb_idx and
// sample_idx).
constexpr uint32_t kGroups = 4;
struct GroupSpongeArgs {
  InOut<SpongeState> t;
  In<Fp> values;
  Out<Fp> out;
  uint32_t len = 0;
  uint32_t samples = 0;
};
constexpr std::string_view kGroupSpongeBody = R"glsl(
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "sponge_coop.glsl"
void main() {
  if (gl_WorkGroupSize.x != 16u * P2C_GROUPS || gl_WorkGroupID.x + gl_WorkGroupID.y + gl_WorkGroupID.z != 0u) return;
  const uint g = p2c_group();
  CoopSponge sp;
  COOP_SPONGE_LOAD(sp, t_, (pc.t_off + g) * 18u);
  COOP_SPONGE_OBSERVE(sp, values_, pc.values_off + g * pc.len, pc.len);
  for (uint i = 0u; i < pc.samples;) {
    uint k;
    const uint m = coop_sponge_squeeze(sp, pc.samples - i, k);
    if (k < m) out_[pc.out_off + g * pc.samples + i + k] = sp.x;
    i += m;
  }
  COOP_SPONGE_STORE(sp, t_, (pc.t_off + g) * 18u);
}
)glsl";

void group_sponge_cpu(const CpuContext& ctx) {
  auto t = ctx.view<SpongeState>(0);
  auto values = ctx.view<Fp>(1);
  auto out = ctx.view<Fp>(2);
  const uint32_t len = ctx.scalars()[0], samples = ctx.scalars()[1];
  for (uint32_t g = 0; g < kGroups; ++g) {
    DuplexSponge s = host_sponge(t[g]);
    for (uint32_t i = 0; i < len; ++i) s.observe(values[g * len + i]);
    for (uint32_t i = 0; i < samples; ++i) out[g * samples + i] = s.sample();
    t[g] = {s.state(), s.absorb_idx(), s.sample_idx()};
  }
}

// One workgroup: 16 invocations per sponge state.
Grid group_sponge_grid(const GroupSpongeArgs& a) { return {uint32_t(16 * a.t.view.count)}; }
std::string group_sponge_problem(const GroupSpongeArgs& a) {
  if (a.t.view.count != kGroups) return fmt::format("{} states, the body has {} groups", a.t.view.count, kGroups);
  if (a.values.view.count != uint64_t(kGroups) * a.len || a.out.view.count != uint64_t(kGroups) * a.samples)
    return "values or out is not len or samples per group";
  return {};
}
}  // namespace

// The cooperative sponge with four groups of 16 in one workgroup, each its own sponge: every group
// matches the host sponge from its own start, on the shared-memory path (groups side by side in
// shared memory) and on the subgroup path (several groups per subgroup, or one per subgroup).
TEST_P(TranscriptParity, GroupsOfSixteenInOneWorkgroupAreIndependentSponges) {
  auto kernel = make_glsl_kernel({.name = "test_group_sponge",
                                  .abi = kernel_abi<GroupSpongeArgs>(),
                                  .constants = {sponge_coop_groups(16 * kGroups)},
                                  .body = std::string(kGroupSpongeBody),
                                  .workgroup_size = 16 * kGroups,
                                  .cpu = group_sponge_cpu,
                                  .grid = over_args<GroupSpongeArgs>(group_sponge_grid),
                                  .check = over_args<GroupSpongeArgs>(group_sponge_problem)});
  uint64_t seed = 400;
  for (uint32_t len : {0u, 3u, 8u, 17u}) {
    for (uint32_t a : {0u, 5u}) {
      const uint32_t s = (a + len) % (kRate + 1), samples = 1 + len % 9;
      Graph g;
      auto starts = g.input<SpongeState>("starts", kGroups);
      auto values = g.input<Fp>("values", std::max(kGroups * len, 1u));
      auto state = g.output<SpongeState>("state", kGroups);
      auto out = g.output<Fp>("out", kGroups * samples);
      g.dispatch<CopyU32>("init", {.src = starts.all().bitcast<uint32_t>(), .dst = state.all().bitcast<uint32_t>()});
      DynamicArgs args;
      args.view(state.all()).view(values.slice(0, kGroups * len)).view(out.all()).scalar(len).scalar(samples);
      g.dispatch("groups", kernel, args, Grid{16 * kGroups});
      std::vector<SpongeState> start_values;
      for (uint32_t k = 0; k < kGroups; ++k) start_values.push_back(random_state(a, s, ++seed));
      auto value_data = field_values(std::max(kGroups * len, 1u), ++seed);
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(starts, start_values);
        pp.upload(values, value_data);
      });
      auto got = p->download(out);
      auto got_state = p->download(state);
      for (uint32_t k = 0; k < kGroups; ++k) {
        DuplexSponge host = host_sponge(start_values[k]);
        for (uint32_t i = 0; i < len; ++i) host.observe(value_data[k * len + i]);
        for (uint32_t i = 0; i < samples; ++i)
          EXPECT_EQ(got[k * samples + i], host.sample()) << "group " << k << " observe " << len << " sample " << i;
        EXPECT_EQ(host_sponge(got_state[k]), host) << "group " << k << " observe " << len << " from absorb_idx " << a;
      }
    }
  }
}

// Under VKSTARK_EXPECT_SUBGROUP=N (set by CTest for the second run of this file, with
// LP_NATIVE_VECTOR_WIDTH=512 on lavapipe), the Vulkan device has subgroups of N invocations, so the
// transcript kernels really take the path that N selects. Without the variable there is nothing to
// hold it to.
TEST(TranscriptSubgroupPath, SubgroupSizeIsTheOneExpected) {
  const char* expect = std::getenv("VKSTARK_EXPECT_SUBGROUP");
  if (expect == nullptr) return;
  EXPECT_EQ(executor("vulkan").limits().subgroup_size, uint32_t(std::stoul(expect)))
      << "device " << executor("vulkan").device_name();
}

TEST(DeviceTranscript, RejectsMoreBitsThanASampleHolds) {
  Graph g;
  DeviceTranscript dev(g, "t");
  auto out = g.output<uint32_t>("out", 1);
  auto w = g.output<Fp>("w", 1);
  EXPECT_THROW(dev.sample_bits(out, 31), InputError);
  EXPECT_THROW(dev.grind(31, w), InputError);
}

// MerkleCompressLevels shares its permutation with the transcript kernels (sponge_coop.glsl), so it
// is held here, on both exchange paths. The top layers of a tree in one dispatch: every layer's digests equal the
// host's compressions, for blocks that fill a workgroup's 8 groups, blocks smaller than that, several workgroups (256
// inputs) and a last workgroup with idle groups (2 and 4 inputs).
TEST_P(TranscriptParity, MerkleCompressLevelsAreTheLayersOneByOne) {
  for (uint32_t n : {2u, 4u, 16u, 64u, 256u}) {
    for (uint32_t levels = 1; levels <= MerkleCompressLevels::max_levels && (1u << levels) <= n; ++levels) {
      const uint32_t m = n / 2, out_n = 2 * m - (m >> (levels - 1));
      Graph g;
      auto leaves = g.input<Digest>("leaves", n);
      auto out = g.output<Digest>("out", out_n);
      g.dispatch<MerkleCompressLevels>("levels", {.in = leaves, .out = out, .levels = levels});
      auto flat = field_values(8 * n, n + levels);
      std::vector<Digest> v(n);
      for (size_t i = 0; i < v.size(); ++i) std::copy(flat.begin() + 8 * i, flat.begin() + 8 * i + 8, v[i].begin());
      auto p = run(g, [&](PreparedPlan& pp) { pp.upload(leaves, v); });
      auto got = p->download(out);
      std::vector<Digest> want, layer = v;
      for (uint32_t j = 0; j < levels; ++j) {
        std::vector<Digest> next(layer.size() / 2);
        for (size_t i = 0; i < next.size(); ++i) next[i] = compress(layer[2 * i], layer[2 * i + 1]);
        want.insert(want.end(), next.begin(), next.end());
        layer = std::move(next);
      }
      ASSERT_EQ(want.size(), got.size());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(got[i], want[i]) << "n " << n << " levels " << levels << " digest " << i;
    }
  }
}
