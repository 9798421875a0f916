// The device transcript (stages/transcript.hpp) on each executor: the protocol.md 16.2 values for
// Poseidon2, sponge samples and the 8-bit PoW witness computed by the device kernels, and random
// observe/sample/grind sequences that must match, step for step, a naive duplex sponge written here
// from protocol.md 2.5 / 2.6 over the KAT-checked permutation (independent of the host DuplexSponge,
// which the CPU bodies use; style.md item 16) and the host DuplexSponge.
#include "tests/parity/executor_fixture.hpp"

#include <fmt/format.h>

#include "kernels/basic.hpp"
#include "kernels/hash/transcript.hpp"
#include "kernels/hashing.hpp"
#include "kernels/known_answers.hpp"
#include "stages/transcript.hpp"

using namespace vkstark;
using namespace vkstark::testing;

class TranscriptParity : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(TranscriptParity);

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
    for (uint32_t bits : {1u, 6u, 11u}) {
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

TEST(DeviceTranscript, RejectsMoreBitsThanASampleHolds) {
  Graph g;
  DeviceTranscript dev(g, "t");
  auto out = g.output<uint32_t>("out", 1);
  auto w = g.output<Fp>("w", 1);
  EXPECT_THROW(dev.sample_bits(out, 31), InputError);
  EXPECT_THROW(dev.grind(31, w), InputError);
}
