// The scalar-program kernel (kernels/program.hpp) and its builder (stages/common/program.hpp) on each
// executor: every op against the host field arithmetic, cooperative sums of 0 .. 256 entries,
// observe / sample / grind interleavings against the host DuplexSponge step for step, and corrupt
// programs, which stop at the first invalid instruction with the same memory on every executor.
// The references are plain host computations (kernels/field, DuplexSponge), not the interpreter.
#include "tests/parity/executor_fixture.hpp"

#include <fmt/format.h>

#include <functional>

#include "kernels/basic.hpp"
#include "kernels/hash/transcript.hpp"
#include "kernels/program.hpp"
#include "stages/common/device_value.hpp"
#include "stages/common/program.hpp"

using namespace vkstark;
using namespace vkstark::testing;

class ProgramParity : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS_AND_STAGING(ProgramParity);

namespace {
// The builder's register level, which protocol code does not see (it uses DeviceFp4), opened for
// these tests of the builder itself.
struct RegisterBuilder : ProgramBuilder {
  using ProgramBuilder::add;
  using ProgramBuilder::constant;
  using ProgramBuilder::inv;
  using ProgramBuilder::load;
  using ProgramBuilder::load_ext;
  using ProgramBuilder::mul;
  using ProgramBuilder::observe;
  using ProgramBuilder::observe_ext;
  using ProgramBuilder::ProgramBuilder;
  using ProgramBuilder::Reg;
  using ProgramBuilder::release;
  using ProgramBuilder::sample;
  using ProgramBuilder::sample_ext;
  using ProgramBuilder::store;
  using ProgramBuilder::store_ext;
  using ProgramBuilder::sub;
  using ProgramBuilder::sum_ext;
};
using Reg = RegisterBuilder::Reg;

// The device transcript's final state, copied into an Output.
Buffer<SpongeState> save_state(Graph& g, DeviceTranscript& t) {
  auto out = g.output<SpongeState>("final_state", 1);
  g.dispatch<CopyU32>("save", {.src = t.state().all().bitcast<uint32_t>(), .dst = out.all().bitcast<uint32_t>()});
  return out;
}
DuplexSponge sponge_of(const SpongeState& s) { return DuplexSponge::from_state(s.state, s.absorb_idx, s.sample_idx); }
}  // namespace

TEST_P(ProgramParity, EveryArithmeticOpMatchesTheHostField) {
  std::vector<Fp4> ext = ext_values(8, 1);
  ext[3] = Fp4::zero();
  std::vector<Fp> base = field_values(8, 2);
  const Fp4 k = Fp4::from_canonical(7, Fp::P - 1, 0, 123456789);
  Graph g;
  auto x = g.input<Fp4>("x", ext.size());
  auto y = g.input<Fp>("y", base.size());
  auto out_ext = g.output<Fp4>("out_ext", 8);
  auto out_base = g.output<Fp>("out_base", 2);
  DeviceTranscript t(g, "t");
  RegisterBuilder p(g, t, "ops");
  Reg a = p.load_ext(x, 5), b = p.load_ext(x, 7), z = p.load_ext(x, 3), s = p.load(y, 6), c = p.constant(k);
  p.store_ext(out_ext, p.add(a, b), 0);
  p.store_ext(out_ext, p.sub(a, b), 1);
  p.store_ext(out_ext, p.mul(a, b), 2);
  p.store_ext(out_ext, p.inv(a), 3);
  p.store_ext(out_ext, p.inv(z), 4);  // inverse of zero: zero
  p.store_ext(out_ext, p.mul(s, c), 5);
  p.store_ext(out_ext, c, 6);
  p.store_ext(out_ext, s, 7);
  p.store(out_base, p.add(s, s), 0);
  p.store(out_base, a, 1);  // the first coefficient only
  p.emit();
  auto run_ = run(g, [&](PreparedPlan& pp) {
    pp.upload(x, ext);
    pp.upload(y, base);
  });
  const std::vector<Fp4> got = run_->download(out_ext);
  const Fp4 ha = ext[5], hb = ext[7];
  EXPECT_EQ(got[0], ha + hb);
  EXPECT_EQ(got[1], ha - hb);
  EXPECT_EQ(got[2], ha * hb);
  EXPECT_EQ(got[3], ha.inverse());
  EXPECT_EQ(got[3] * ha, Fp4::one());
  EXPECT_EQ(got[4], Fp4::zero());
  EXPECT_EQ(got[5], k * base[6]);
  EXPECT_EQ(got[6], k);
  EXPECT_EQ(got[7], Fp4(base[6]));
  const std::vector<Fp> got_base = run_->download(out_base);
  EXPECT_EQ(got_base[0], base[6] + base[6]);
  EXPECT_EQ(got_base[1], ha.c[0]);
}

namespace {
// One formula for both sides (stages/common/device_value.hpp): host Fp4 values compute it, DeviceFp4 values
// record it as a program. (b c - a)^-1 never meets zero for the values below.
template <class F>
F shared_formula(const F& a, const F& b, const F& c) {
  const F d = b * c - a;
  return d.inverse() * (a + Fp::from_canonical(2) * b) + c * c - Fp4::from_canonical(3, 0, 0, 1) + (Fp::one() - a) * c;
}
}  // namespace

TEST_P(ProgramParity, DeviceValuesComputeWhatTheSameFormulaComputesOnTheHost) {
  const std::vector<Fp4> ext = ext_values(3, 11);
  Graph g;
  auto x = g.input<Fp4>("x", 3);
  auto out = g.output<Fp4>("out", 2);
  DeviceTranscript t(g, "t");
  {
    RegisterBuilder p(g, t, "formula");
    const DeviceFp4 a = load_ext(p, x, 0), b = load_ext(p, x, 1), c = load_ext(p, x, 2);
    store_ext(out, shared_formula(a, b, c), 0);
    // 300 dependent operations with no register released by hand: each intermediate value goes
    // when it is replaced (more than the 32 registers would otherwise be live).
    DeviceFp4 acc = a;
    for (int i = 0; i < 100; ++i) acc = acc * b + c - a;
    store_ext(out, acc, 1);
    p.emit();
  }
  auto r = run(g, [&](PreparedPlan& pp) { pp.upload(x, ext); });
  const std::vector<Fp4> got = r->download(out);
  EXPECT_EQ(got[0], shared_formula(ext[0], ext[1], ext[2]));
  Fp4 acc = ext[0];
  for (int i = 0; i < 100; ++i) acc = acc * ext[1] + ext[2] - ext[0];
  EXPECT_EQ(got[1], acc);
}

TEST_P(ProgramParity, SumsOfZeroToTwoHundredFiftySixEntriesMatchTheHost) {
  const std::vector<Fp4> v = ext_values(600, 3);
  struct Sum {
    uint64_t first, count, stride;
  };
  const std::vector<Sum> sums = {{0, 0, 1},   {0, 1, 1},   {5, 15, 1},  {0, 16, 1},  {3, 17, 1},
                                 {0, 256, 1}, {1, 256, 2}, {599, 1, 7}, {10, 20, 0}, {0, 200, 3}};
  Graph g;
  auto x = g.input<Fp4>("x", v.size());
  auto out = g.output<Fp4>("out", sums.size());
  DeviceTranscript t(g, "t");
  RegisterBuilder p(g, t, "sums");
  for (size_t i = 0; i < sums.size(); ++i) {
    Reg r = p.sum_ext(x, sums[i].first, sums[i].count, sums[i].stride);
    p.store_ext(out, r, i);
    p.release(r);
  }
  p.emit();
  auto got = run(g, [&](PreparedPlan& pp) { pp.upload(x, v); })->download(out);
  for (size_t i = 0; i < sums.size(); ++i) {
    Fp4 want = Fp4::zero();
    for (uint64_t j = 0; j < sums[i].count; ++j) want += v[sums[i].first + j * sums[i].stride];
    EXPECT_EQ(got[i], want) << sums[i].count << " entries from " << sums[i].first << " at stride " << sums[i].stride;
  }
}

TEST_P(ProgramParity, ObserveAndSampleInterleavingsMatchTheHostTranscript) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 4; ++trial) {
    const std::vector<Fp> pool = field_values(64, 100 + trial);
    Graph g;
    auto in = g.input<Fp>("pool", pool.size());
    auto samples = g.output<Fp4>("samples", 40);
    DeviceTranscript t(g, "t");
    DuplexSponge host;
    host.observe(Fp::from_canonical(9));  // a transcript that is not fresh
    auto nine = g.input<Fp>("nine", 1);
    t.observe(nine);
    RegisterBuilder p(g, t, "interleaving");
    std::vector<Fp4> want;
    for (int step = 0; step < 30; ++step) {
      switch (rng() % 5) {
        case 0: {  // an Fp from a register
          const uint32_t i = rng() % pool.size();
          Reg r = p.load(in, i);
          p.observe(r);
          p.release(r);
          host.observe(pool[i]);
          break;
        }
        case 1: {  // an Fp4 from a register
          const uint32_t i = rng() % 16;
          Reg r = p.load_ext(in.all().bitcast<Fp4>(), i);
          p.observe_ext(r);
          p.release(r);
          for (uint32_t c = 0; c < 4; ++c) host.observe(pool[4 * i + c]);
          break;
        }
        case 2: {  // a range of a view
          const uint32_t off = rng() % 40, n = rng() % 20;
          p.observe(in.slice(off, n));
          for (uint32_t j = 0; j < n; ++j) host.observe(pool[off + j]);
          break;
        }
        case 3: {
          Reg r = p.sample();
          p.store_ext(samples, r, want.size());
          p.release(r);
          want.push_back(Fp4(host.sample()));
          break;
        }
        default: {
          Reg r = p.sample_ext();
          p.store_ext(samples, r, want.size());
          p.release(r);
          want.push_back(host.sample_ext());
          break;
        }
      }
    }
    p.emit();
    auto state = save_state(g, t);
    auto r = run(g, [&](PreparedPlan& pp) {
      pp.upload(in, pool);
      pp.upload(nine, std::vector<Fp>{Fp::from_canonical(9)});
    });
    auto got = r->download(samples);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << "trial " << trial << " sample " << i;
    EXPECT_EQ(sponge_of(r->download(state)[0]), host) << "trial " << trial;
  }
}

// One observe of a long view (the Keccak-f AIR's column openings: 21064 words), then a sample: the
// host sponge's. With no register live it goes to the transcript's observe kernel in dispatches of
// kObserveKernelPiece words between two program parts (lavapipe ends a shader's loops after 65535
// iterations: one interpreter dispatch of 21064 words came out wrong there); with a register live
// it stays in the one interpreter dispatch (2000 words fit that budget).
TEST_P(ProgramParity, ALongObserveMatchesTheHostTranscript) {
  for (uint32_t words : {1000u, 1024u, 1025u, 4096u, 4097u, 21064u, 65536u, 2000u}) {
    const bool hold = words == 2000u;  // a register live across the observe
    const std::vector<Fp> pool = field_values(words, words);
    Graph g;
    auto in = g.input<Fp>("pool", pool.size());
    auto samples = g.output<Fp4>("samples", 2);
    DeviceTranscript t(g, "t");
    DuplexSponge host;
    RegisterBuilder p(g, t, "long");
    Reg held = p.sample_ext();
    const Fp4 held_want = host.sample_ext();
    if (!hold) {
      p.store_ext(samples, held, 1);
      p.release(held);
    }
    p.observe(in.all());
    for (const Fp& v : pool) host.observe(v);
    Reg last = p.sample_ext();
    p.store_ext(samples, last, 0);
    p.release(last);
    if (hold) {
      p.store_ext(samples, held, 1);
      p.release(held);
    }
    p.emit();
    size_t dispatches = 0;
    for (const Task& task : g.tasks()) dispatches += task.name.starts_with("long");
    EXPECT_EQ(dispatches, hold ? 1 : 2 + (words + kObserveKernelPiece - 1) / kObserveKernelPiece) << words;
    auto state = save_state(g, t);
    auto r = run(g, [&](PreparedPlan& pp) { pp.upload(in, pool); });
    const std::vector<Fp4> got = r->download(samples);
    EXPECT_EQ(got[0], host.sample_ext()) << words << " words";
    EXPECT_EQ(got[1], held_want) << words << " words";
    EXPECT_EQ(sponge_of(r->download(state)[0]), host) << words << " words";
  }
}

// The code is copied into shared memory of kProgramMaxWords words before it runs: a program of
// nearly that length runs to its end (its last instructions are the ones checked).
TEST_P(ProgramParity, AProgramOfNearlyTheMaximumLengthRunsToItsEnd) {
  // Below kObserveKernelWords: the whole pool goes through the interpreter too.
  static_assert(kObserveKernelWords - 1 >= 50 + 5);
  const std::vector<Fp> pool = field_values(kObserveKernelWords - 1, 77);
  Graph g;
  auto in = g.input<Fp>("pool", pool.size());
  auto out = g.output<Fp4>("out", 1);
  DeviceTranscript t(g, "t");
  DuplexSponge host;
  RegisterBuilder p(g, t, "long");
  p.observe(in.all());  // binds the whole pool: the slices below share its slot
  for (const Fp& v : pool) host.observe(v);
  uint32_t i = 0;
  while (p.code().size() + 3 + 3 <= kProgramMaxWords) {  // observe_in: 3 words; sample + store_ext: 3
    const uint32_t off = (7 * i) % 50, n = 1 + i % 5;
    p.observe(in.slice(off, n));
    for (uint32_t j = 0; j < n; ++j) host.observe(pool[off + j]);
    ++i;
  }
  Reg r = p.sample();
  p.store_ext(out, r, 0);
  EXPECT_GE(p.code().size(), kProgramMaxWords - 3);
  EXPECT_THROW(p.observe(in.slice(0, 1)), GraphError);  // one more instruction would not fit
  p.emit();
  auto r2 = run(g, [&](PreparedPlan& pp) { pp.upload(in, pool); });
  EXPECT_EQ(r2->download(out)[0], Fp4(host.sample()));
}

TEST_P(ProgramParity, AGrindSplitsTheProgramAndKeepsTheTranscriptOrder) {
  for (uint32_t bits : {0u, 3u, 7u}) {
    const std::vector<Fp4> v = ext_values(4, 7);
    Graph g;
    auto x = g.input<Fp4>("x", v.size());
    auto out = g.output<Fp4>("out", 2);
    auto witness = g.output<Fp>("witness", 1);
    DeviceTranscript t(g, "t");
    RegisterBuilder p(g, t, "split");
    Reg s = p.sum_ext(x, 0, 4);
    p.store_ext(out, s, 0);
    p.observe_ext(s);
    p.grind(bits, witness);
    p.store_ext(out, p.sample_ext(), 1);
    p.emit();
    auto state = save_state(g, t);
    auto r = run(g, [&](PreparedPlan& pp) { pp.upload(x, v); });
    DuplexSponge host;
    const Fp4 sum = v[0] + v[1] + v[2] + v[3];
    host.observe_ext(sum);
    const Fp w = host.grind(bits);
    const Fp4 alpha = host.sample_ext();
    auto got = r->download(out);
    EXPECT_EQ(got[0], sum) << "bits " << bits;
    EXPECT_EQ(got[1], alpha) << "bits " << bits;
    EXPECT_EQ(r->download(witness)[0], w) << "bits " << bits;
    EXPECT_EQ(sponge_of(r->download(state)[0]), host) << "bits " << bits;
  }
}

// Corrupt programs, dispatched directly: const r0 = 5; store out0[0] = r0; observe r0; <bad>;
// const r1 = 7; store out0[1] = r1; observe r1. Every executor stops at <bad>: out0[0] = 5, out0[1]
// keeps its fill, the transcript has observed 5 only.
TEST_P(ProgramParity, CorruptProgramsStopAtTheFirstInvalidInstructionOnEveryExecutor) {
  using enum ProgramOp;
  const uint32_t five = Fp::from_canonical(5).value(), seven = 7;
  const std::vector<std::pair<const char*, std::vector<uint32_t>>> bad = {
      {"op 0", {0}},
      {"op 16", {program_word(ProgramOp(16))}},
      {"op 255", {0xFFu}},
      {"register 32", {program_word(Add, 32, 0, 0)}},
      {"source register 200", {program_word(Mul, 1, 200, 0)}},
      {"in slot 1 of 1", {program_word(Load, 2, 1), 0}},
      {"out slot 4", {program_word(Store, 0, 4), 0}},
      {"unused field set", {program_word(Observe, 0, 3)}},
      {"const >= p", {program_word(Const, 1), 1, 2, Fp::P, 4}},
      {"load past the view", {program_word(Load, 1, 0), 8}},
      {"load_ext past the view", {program_word(LoadExt, 1, 0), 2}},
      {"store past the view", {program_word(Store, 0, 0), 2}},
      {"store_ext past the view", {program_word(StoreExt, 0, 0), 0}},
      {"sum past the view", {program_word(SumExt, 1, 0), 1, 2, 1}},
      {"observe_in past the view", {program_word(ObserveIn, 0, 0), 4, 5}},
      {"immediates past the end", {program_word(Const, 1), 1, 2}},
  };
  const std::vector<uint32_t> in_words = {8};
  const std::vector<uint64_t> in_counts = {8}, out_counts = {2};
  for (const auto& [what, words] : bad) {
    std::vector<uint32_t> code = {program_word(Const, 0),  5, 0, 0, 0, program_word(Store, 0, 0), 0,
                                  program_word(Observe, 0)};
    const size_t bad_at = code.size();
    code.insert(code.end(), words.begin(), words.end());
    if (std::string_view(what) != "immediates past the end")
      code.insert(code.end(),
                  {program_word(Const, 1), seven, 0, 0, 0, program_word(Store, 1, 0), 1, program_word(Observe, 1)});
    const std::string problem = program_problem(code, in_counts, out_counts);
    EXPECT_NE(problem.find(fmt::format("word {}:", bad_at)), std::string::npos) << what << ": " << problem;

    Graph g;
    auto in = g.input<uint32_t>("in", in_words[0]);
    auto out = g.output<uint32_t>("out", 2);
    DeviceTranscript t(g, "t");
    g.dispatch<FillU32>("fill", {.out = out, .value = 0xABCDu});
    ScalarProgram::Args a;
    a.code = g.constant<uint32_t>("code", code);
    a.t = t.state();
    a.in.push_back(in.all());
    a.out.push_back(out.all());
    g.dispatch<ScalarProgram>("corrupt", a);
    auto state = save_state(g, t);
    auto r = run(g, [&](PreparedPlan& pp) { pp.upload(in, std::vector<uint32_t>(8, 1)); });
    const std::vector<uint32_t> got = r->download(out);
    EXPECT_EQ(got[0], Fp::from_canonical(5).mont()) << what;
    EXPECT_EQ(got[1], 0xABCDu) << what;
    DuplexSponge host;
    host.observe(Fp::from_canonical(five));
    EXPECT_EQ(sponge_of(r->download(state)[0]), host) << what;
  }
}

TEST(ProgramBuilder, MisuseIsAGraphErrorNamingTheProgram) {
  Graph g;
  DeviceTranscript t(g, "t");
  auto x = g.input<Fp4>("x", 4);
  auto y = g.output<Fp4>("y", 4);
  {
    RegisterBuilder p(g, t, "released");
    Reg r = p.load_ext(x, 0);
    p.release(r);
    EXPECT_THROW(p.observe_ext(r), GraphError);
  }
  {
    RegisterBuilder p(g, t, "too_many_registers");
    std::vector<Reg> regs;
    for (uint32_t i = 0; i < kProgramRegisters; ++i) regs.push_back(p.constant(Fp::one()));
    EXPECT_THROW((void)p.constant(Fp::one()), GraphError);
    p.release(regs[7]);
    EXPECT_EQ(p.constant(Fp::one()).index, 7u);  // released registers are reused
  }
  {
    RegisterBuilder p(g, t, "too_many_views");
    (void)p.load_ext(x, 0);
    for (uint32_t i = 1; i < kProgramInViews; ++i) (void)p.load_ext(g.input<Fp4>(fmt::format("in{}", i), 1), 0);
    (void)p.load_ext(x.slice(1, 2), 1);  // a view inside one bound already shares its slot
    (void)p.load_ext(x.slice(2, 1), 0);
    EXPECT_EQ(p.code().size(), 16u);
    EXPECT_EQ(p.code()[13], 2u);  // entry 1 of x[1..3) is entry 2 of x
    EXPECT_THROW((void)p.load_ext(g.input<Fp4>("in6", 1), 0), GraphError);
  }
  {
    RegisterBuilder p(g, t, "out_of_range");
    EXPECT_THROW((void)p.load_ext(x, 4), GraphError);
    EXPECT_THROW((void)p.sum_ext(x, 1, 4), GraphError);
    EXPECT_NO_THROW((void)p.sum_ext(x, 4, 0));
    Reg r = p.constant(Fp::one());
    EXPECT_THROW(p.store_ext(y, r, 4), GraphError);
  }
  {
    RegisterBuilder p(g, t, "lost_at_grind");
    Reg r = p.load_ext(x, 0);
    p.observe_ext(r);
    auto w = g.output<Fp>("w", 1);
    p.grind(2, w);
    EXPECT_THROW(p.observe_ext(r), GraphError);
    p.emit();
    EXPECT_THROW(p.emit(), GraphError);
  }
  {
    RegisterBuilder p(g, t, "empty");
    EXPECT_THROW(p.emit(), GraphError);
  }
  try {
    RegisterBuilder p(g, t, "whir.sumcheck7.program");
    (void)p.load_ext(x, 9);
    FAIL() << "no GraphError";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("whir.sumcheck7.program"), std::string::npos) << e.what();
  }
}

TEST(DeviceFp4, MisuseIsAGraphErrorNamingTheProgram) {
  Graph g;
  auto x = g.input<Fp4>("x", 1);
  auto w = g.output<Fp>("w", 1);
  DeviceTranscript t(g, "t");
  auto expect_error = [](const std::function<void()>& f, const std::string& what) {
    try {
      f();
      ADD_FAILURE() << "no GraphError, expected one saying " << what;
    } catch (const GraphError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  RegisterBuilder p(g, t, "first"), q(g, t, "second");
  const DeviceFp4 a = load_ext(p, x), b = load_ext(q, x);
  expect_error([&] { (void)(a + b); }, "scalar programs 'first' and 'second'");
  expect_error([&] { (void)(DeviceFp4() * a); }, "an empty DeviceFp4");
  // A grind with bits > 0 splits the program: values made before it are gone.
  p.grind(3, w.all());
  expect_error([&] { store_ext(g.output<Fp4>("o", 1).all(), a); },
               "scalar program 'first': a value used after a grind");
  const DeviceFp4 c = load_ext(p, x);  // a fresh value in the new part works
  observe_ext(c);
  p.emit();
  expect_error([&] { observe_ext(c); }, "after a grind split the program or after emit");
  store_ext(g.output<Fp4>("o2", 1).all(), b * b);
  q.emit();
}  // every value's release here does nothing: its program part has ended

TEST(ProgramBuilder, WritesTheEncodingOfProgramHpp) {
  Graph g;
  DeviceTranscript t(g, "t");
  auto x = g.input<Fp4>("x", 8);
  auto y = g.output<Fp4>("y", 2);
  RegisterBuilder p(g, t, "encoding");
  Reg s = p.sum_ext(x.slice(2, 6), 1, 2, 3);  // entries 3 and 6 of x: slot 0 is x[2..8)
  Reg c = p.constant(Fp4::from_canonical(1, 2, 3, Fp::P - 1));
  p.store_ext(y, p.mul(s, c), 1);
  p.observe_ext(s);
  p.release(s);
  (void)p.sample_ext();  // takes the lowest free register: r0
  using enum ProgramOp;
  const std::vector<uint32_t> want = {program_word(SumExt, 0, 0),
                                      1,
                                      2,
                                      3,
                                      program_word(Const, 1),
                                      1,
                                      2,
                                      3,
                                      Fp::P - 1,
                                      program_word(Mul, 2, 0, 1),
                                      program_word(StoreExt, 2, 0),
                                      1,
                                      program_word(ObserveExt, 0),
                                      program_word(SampleExt, 0)};
  EXPECT_EQ(p.code(), want);
  EXPECT_EQ(program_listing(p.code()),
            "    0: sum_ext r0, in0, 1, 2, 3\n"
            "    4: const r1, 1, 2, 3, 2013265920\n"
            "    9: mul r2, r0, r1\n"
            "   10: store_ext r2, out0, 1\n"
            "   12: observe_ext r0\n"
            "   13: sample_ext r0\n");
}

TEST(ProgramBuilder, ReadingARangeItWritesIsAGraphError) {
  Graph g;
  DeviceTranscript t(g, "t");
  auto x = g.output<Fp4>("x", 4);
  g.dispatch<FillU32>("fill", {.out = x.all().bitcast<uint32_t>(), .value = 0});
  RegisterBuilder p(g, t, "aliasing");
  Reg r = p.load_ext(x.slice(0, 2), 1);
  EXPECT_THROW(p.store_ext(x.slice(1, 2), r, 0), GraphError);
  EXPECT_NO_THROW(p.store_ext(x.slice(2, 2), r, 0));
}

TEST(ScalarProgramKernel, ChecksItsViewsWhenTheGraphIsBuilt) {
  Graph g;
  DeviceTranscript t(g, "t");
  auto two = g.transient<SpongeState>("two", 2);
  g.dispatch<FillU32>("fill", {.out = two.all().bitcast<uint32_t>(), .value = 0});
  const std::vector<uint32_t> words = {program_word(ProgramOp::Sample, 0)};
  ScalarProgram::Args a;
  a.code = g.constant<uint32_t>("code", words);
  a.t = two.all();
  EXPECT_THROW(g.dispatch<ScalarProgram>("two_states", a), GraphError);
  EXPECT_THROW(
      {
        ScalarProgram::Args empty;
        empty.code = g.constant<uint32_t>("empty", std::vector<uint32_t>{});
        empty.t = t.state();
        g.dispatch<ScalarProgram>("empty_code", empty);
      },
      GraphError);
  try {
    ScalarProgram::Args long_code;
    long_code.code =
        g.constant<uint32_t>("long", std::vector<uint32_t>(kProgramMaxWords + 1, program_word(ProgramOp::Sample, 0)));
    long_code.t = t.state();
    g.dispatch<ScalarProgram>("long_code", long_code);
    ADD_FAILURE() << "code above kProgramMaxWords was accepted";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("2049 words"), std::string::npos) << e.what();
  }
}
