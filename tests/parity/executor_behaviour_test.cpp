// What every executor must do with a plan: reproduce its counts in the trace, give the same
// results fused and unfused, run host tasks between submissions, keep Persistent buffers across
// plans, honour transient aliasing, and report misuse clearly.
#include "tests/parity/executor_fixture.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "kernels/basic.hpp"
#include "kernels/elementwise.hpp"

using namespace vkstark;
using namespace vkstark::testing;

class ExecutorBehaviour : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS_AND_STAGING(ExecutorBehaviour);

namespace {
// x[0] = 7; x[i] = x[i-1] for i < K: K dependent dispatches.
Graph chain(uint32_t k, Buffer<uint32_t>* out) {
  Graph g;
  *out = g.output<uint32_t>("x", k);
  g.dispatch<FillU32>("seed", {.out = out->slice(0, 1), .value = 7});
  for (uint32_t i = 1; i < k; ++i) g.dispatch<CopyU32>("step", {.src = out->slice(i - 1, 1), .dst = out->slice(i, 1)});
  return g;
}
void expect_counts_match(const Trace& t, const Plan& p) {
  EXPECT_EQ(t.counters.dispatches, p.counts.dispatches);
  EXPECT_EQ(t.counters.barriers, p.counts.barriers);
  EXPECT_EQ(t.counters.submissions, p.counts.submissions);
  EXPECT_EQ(t.counters.host_syncs, p.counts.host_syncs);
  EXPECT_EQ(t.counters.host_tasks, p.counts.host_tasks);
}
// y[i] = 2 x[i] + i by a host task inside the submission.
void host_double_inside(Graph& g, const Buffer<uint32_t>& x, const Buffer<uint32_t>& y) {
  g.host(
      "double", {host_read(x.all()), host_write(y.all())},
      [x, y](const HostContext& ctx) {
        auto in = ctx.read(x.all());
        auto out = ctx.write(y.all());
        for (size_t i = 0; i < in.size(); ++i) out[i] = 2 * in[i] + uint32_t(i);
      },
      HostPlacement::InSubmission);
}
// The run fails with an ExecutionError naming host task 'checker' and its "bad value".
void expect_checker_failure(PreparedPlan& p, Trace& trace) {
  try {
    p.run(trace);
    FAIL() << "no exception";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("checker"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad value"), std::string::npos) << e.what();
  }
}
}  // namespace

TEST_P(ExecutorBehaviour, FusedChainOfAThousandIsOneSubmissionOneSync999Barriers) {
  Buffer<uint32_t> x;
  Graph g = chain(1000, &x);
  auto p = run(g, [](PreparedPlan&) {});
  EXPECT_EQ(trace.counters.dispatches, 1000u);
  EXPECT_EQ(trace.counters.submissions, 1u);
  EXPECT_EQ(trace.counters.host_syncs, 1u);
  EXPECT_EQ(trace.counters.barriers, 999u);
  EXPECT_EQ(p->download(x), std::vector<uint32_t>(1000, 7));
}

TEST_P(ExecutorBehaviour, UnfusedChainGivesTheSameResultWithOneSyncPerDispatch) {
  Buffer<uint32_t> x;
  Graph g = chain(200, &x);
  auto p = run(g, [](PreparedPlan&) {}, {.fuse = false});
  expect_counts_match(trace, p->plan());
  EXPECT_EQ(trace.counters.submissions, 200u);
  EXPECT_EQ(trace.counters.host_syncs, 200u);
  EXPECT_EQ(p->download(x), std::vector<uint32_t>(200, 7));
}

TEST_P(ExecutorBehaviour, AThousandIndependentDispatchesNeedNoBarrier) {
  Graph g;
  auto x = g.output<uint32_t>("x", 1000);
  for (uint32_t i = 0; i < 1000; ++i) g.dispatch<FillU32>("fill", {.out = x.slice(i, 1), .value = i});
  auto p = run(g, [](PreparedPlan&) {});
  EXPECT_EQ(trace.counters.submissions, 1u);
  EXPECT_EQ(trace.counters.barriers, 0u);
  EXPECT_EQ(trace.counters.host_syncs, 1u);
  auto got = p->download(x);
  for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(got[i], i);
}

TEST_P(ExecutorBehaviour, AHostTaskRunsBetweenSubmissionsOnCurrentData) {
  Graph g;
  auto x = g.output<uint32_t>("x", 16);
  auto y = g.output<uint32_t>("y", 16);
  auto z = g.output<uint32_t>("z", 16);
  g.dispatch<FillU32>("fill", {.out = x, .value = 5});
  g.host("double", {host_read(x.all()), host_write(y.all())}, [&](const HostContext& ctx) {
    auto in = ctx.read(x.all());
    auto out = ctx.write(y.all());
    for (size_t i = 0; i < in.size(); ++i) out[i] = 2 * in[i] + uint32_t(i);
  });
  g.dispatch<CopyU32>("copy", {.src = y, .dst = z});
  auto p = run(g, [](PreparedPlan&) {});
  expect_counts_match(trace, p->plan());
  EXPECT_EQ(trace.counters.submissions, 2u);
  EXPECT_EQ(trace.counters.host_tasks, 1u);
  auto got = p->download(z);
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(got[i], 10 + i);
}

// Two host tasks inside one submission (HostPlacement::InSubmission): one submission and one
// host sync for the run, each task on the data the dispatches before it wrote, its writes read by
// the dispatches after it; a second run with other input (a replay) sees its own data.
TEST_P(ExecutorBehaviour, HostTasksInsideTheSubmissionRunOnCurrentData) {
  Graph g;
  auto u = g.input<uint32_t>("u", 64);
  auto x = g.transient<uint32_t>("x", 64);
  auto y = g.transient<uint32_t>("y", 64);
  auto w = g.transient<uint32_t>("w", 64);
  auto v = g.transient<uint32_t>("v", 64);
  auto z = g.output<uint32_t>("z", 64);
  g.dispatch<CopyU32>("copy u", {.src = u, .dst = x});
  host_double_inside(g, x, y);
  g.dispatch<CopyU32>("copy y", {.src = y, .dst = w});
  g.host(
      "plus one", {host_read(w.all()), host_write(v.all())},
      [&](const HostContext& ctx) {
        auto in = ctx.read(w.all());
        auto out = ctx.write(v.all());
        for (size_t i = 0; i < in.size(); ++i) out[i] = in[i] + 1;
      },
      HostPlacement::InSubmission);
  g.dispatch<CopyU32>("copy v", {.src = v, .dst = z});
  auto p = exec().prepare(compile(g));
  EXPECT_EQ(p->plan().counts.submissions, 1u);
  EXPECT_EQ(p->plan().counts.host_syncs, 1u);
  EXPECT_NE(p->plan().to_text().find("(inside the submission)"), std::string::npos);
  for (uint32_t run = 0; run < 3; ++run) {
    std::vector<uint32_t> in(64);
    for (uint32_t i = 0; i < 64; ++i) in[i] = 1000 * run + 3 * i;
    p->upload(u, in);
    trace = Trace{};
    p->run(trace);
    expect_counts_match(trace, p->plan());
    EXPECT_EQ(trace.counters.submissions, 1u);
    EXPECT_EQ(trace.counters.host_syncs, 1u);
    EXPECT_EQ(trace.counters.host_tasks, 2u);
    auto got = p->download(z);
    for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(got[i], 2 * in[i] + i + 1) << "run " << run << " i " << i;
  }
}

// Device work after a host task inside the submission that touches none of its views runs beside
// it (the Vulkan executor's independent prefix), even where a transient reuses the memory of the
// task's input; what reads the task's output waits for it.
TEST_P(ExecutorBehaviour, WorkIndependentOfAHostTaskInsideRunsBesideIt) {
  Graph g;
  auto x = g.transient<uint32_t>("x", 256);
  auto y = g.transient<uint32_t>("y", 256);
  auto z = g.output<uint32_t>("z", 256);
  auto za = g.output<uint32_t>("za", 256);
  g.dispatch<FillU32>("fill x", {.out = x, .value = 5});
  host_double_inside(g, x, y);
  for (uint32_t k = 0; k < 4; ++k) {  // transients after x's last use: some may take its memory
    auto a = g.transient<uint32_t>(fmt::format("a{}", k), 256);
    g.dispatch<FillU32>("fill a", {.out = a, .value = 9 + k});
    g.dispatch<CopyU32>("copy a", {.src = a, .dst = za});
  }
  g.dispatch<CopyU32>("copy y", {.src = y, .dst = z});
  auto p = exec().prepare(compile(g));
  for (int run = 0; run < 2; ++run) {
    trace = Trace{};
    p->run(trace);
    EXPECT_EQ(trace.counters.submissions, 1u);
    EXPECT_EQ(p->download(za), std::vector<uint32_t>(256, 12));
    auto got = p->download(z);
    for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(got[i], 10 + i) << i;
  }
}

// A host task inside the submission that throws: the device still finishes the submission, the
// error names the task, and the plan runs again.
TEST_P(ExecutorBehaviour, AFailingHostTaskInsideTheSubmissionLeavesThePlanUsable) {
  Graph g;
  auto x = g.transient<uint32_t>("x", 8);
  auto y = g.transient<uint32_t>("y", 8);
  auto z = g.output<uint32_t>("z", 8);
  g.dispatch<FillU32>("fill", {.out = x, .value = 4});
  bool fail = true;
  g.host(
      "checker", {host_read(x.all()), host_write(y.all())},
      [&](const HostContext& ctx) {
        if (fail) throw std::runtime_error("bad value");
        auto in = ctx.read(x.all());
        auto out = ctx.write(y.all());
        for (size_t i = 0; i < in.size(); ++i) out[i] = in[i] * 3;
      },
      HostPlacement::InSubmission);
  g.dispatch<CopyU32>("copy", {.src = y, .dst = z});
  auto p = exec().prepare(compile(g));
  expect_checker_failure(*p, trace);
  fail = false;
  trace = Trace{};
  p->run(trace);
  EXPECT_EQ(trace.counters.submissions, 1u);
  EXPECT_EQ(p->download(z), std::vector<uint32_t>(8, 12));
}

// With no device work before it, a host task asked inside the submission runs split.
TEST_P(ExecutorBehaviour, AHostTaskInsideWithNothingBeforeItRunsSplit) {
  Graph g;
  auto x = g.transient<uint32_t>("x", 8);
  auto z = g.output<uint32_t>("z", 8);
  g.host(
      "first", {host_write(x.all())},
      [&](const HostContext& ctx) {
        auto out = ctx.write(x.all());
        for (size_t i = 0; i < out.size(); ++i) out[i] = uint32_t(i);
      },
      HostPlacement::InSubmission);
  g.dispatch<CopyU32>("copy", {.src = x, .dst = z});
  auto p = run(g, [](PreparedPlan&) {});
  EXPECT_EQ(p->plan().counts.submissions, 1u);
  EXPECT_EQ(p->plan().to_text().find("(inside the submission)"), std::string::npos);
  EXPECT_EQ(trace.counters.host_tasks, 1u);
  auto got = p->download(z);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(got[i], i);
}

TEST_P(ExecutorBehaviour, AFailingHostTaskIsReportedWithItsName) {
  Graph g;
  auto x = g.output<uint32_t>("x", 4);
  g.dispatch<FillU32>("fill", {.out = x, .value = 1});
  g.host("checker", {host_read(x.all())}, [](const HostContext&) { throw std::runtime_error("bad value"); });
  auto p = exec().prepare(compile(g));
  expect_checker_failure(*p, trace);
}

TEST_P(ExecutorBehaviour, AHostTaskMayOnlyTouchWhatItDeclared) {
  Graph g;
  auto x = g.output<uint32_t>("x", 8);
  g.dispatch<FillU32>("fill", {.out = x, .value = 1});
  g.host("sneaky", {host_read(x.slice(0, 4))}, [&](const HostContext& ctx) { (void)ctx.read(x.all()); });
  auto p = exec().prepare(compile(g));
  EXPECT_THROW(p->run(trace), GraphError);
  Graph g2;
  auto y = g2.output<uint32_t>("y", 8);
  g2.dispatch<FillU32>("fill", {.out = y, .value = 1});
  g2.host("writer", {host_read(y.all())}, [&](const HostContext& ctx) { (void)ctx.write(y.all()); });
  auto p2 = exec().prepare(compile(g2));
  EXPECT_THROW(p2->run(trace), GraphError);
}

TEST_P(ExecutorBehaviour, AliasedTransientsKeepTheirValues) {
  Graph g;
  auto a = g.input<Fp>("a", 300);
  std::vector<Buffer<Fp>> t;
  for (int i = 0; i < 6; ++i) t.push_back(g.transient<Fp>(fmt::format("t{}", i), 300));
  auto out = g.output<Fp>("out", 300);
  // t[i+1] = t[i] * a: each transient dies as the next is made, so memory is reused.
  g.dispatch<FpAdd>("start", {.a = a, .b = a, .out = t[0]});
  for (int i = 0; i + 1 < 6; ++i) g.dispatch<FpMul>("step", {.a = t[i], .b = a, .out = t[i + 1]});
  g.dispatch<FpAdd>("end", {.a = t[5], .b = a, .out = out});
  Plan plan = compile(g);
  EXPECT_LT(plan.memory.transient_arena_bytes, 6u * 1200);
  auto va = field_values(300, 9);
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(a, va); });
  auto got = p->download(out);
  for (int i = 0; i < 300; ++i) ASSERT_EQ(got[i], (va[i] + va[i]) * va[i].pow(5) + va[i]);
}

TEST_P(ExecutorBehaviour, PersistentBuffersOutliveTheirPlan) {
  {
    Graph g;
    auto table = g.persistent<uint32_t>("test.table", 64);
    g.dispatch<FillU32>("init", {.out = table, .value = 42});
    auto p = run(g, [](PreparedPlan&) {});
  }
  Graph g;
  auto table = g.persistent<uint32_t>("test.table", 64);
  auto out = g.output<uint32_t>("out", 64);
  g.dispatch<CopyU32>("read", {.src = table, .dst = out});
  auto p = run(g, [](PreparedPlan&) {});
  EXPECT_EQ(p->download(out), std::vector<uint32_t>(64, 42));
}

TEST_P(ExecutorBehaviour, PreparedPlansShareTheirPlanInsteadOfCopyingIt) {
  Buffer<uint32_t> x;
  auto plan = std::make_shared<const Plan>(compile(chain(10, &x)));
  auto p1 = exec().prepare(plan);
  auto p2 = exec().prepare(plan);
  EXPECT_EQ(&p1->plan(), plan.get());
  EXPECT_EQ(&p2->plan(), plan.get());
  p1->run(trace);
  p2->run(trace);
  EXPECT_EQ(p2->download(x), std::vector<uint32_t>(10, 7));
  EXPECT_THROW((void)exec().prepare(std::shared_ptr<const Plan>()), InputError);
}

TEST_P(ExecutorBehaviour, TransfersAreCheckedForSizeAndLifetime) {
  Graph g;
  auto in = g.input<uint32_t>("in", 4);
  auto t = g.transient<uint32_t>("t", 4);
  auto out = g.output<uint32_t>("out", 4);
  g.dispatch<CopyU32>("copy", {.src = in, .dst = t});
  g.dispatch<CopyU32>("copy2", {.src = t, .dst = out});
  auto p = exec().prepare(compile(g));
  try {
    p->run(trace);
    FAIL() << "ran without its input";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'in'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(p->upload(in, std::vector<uint32_t>(3)), InputError);
  EXPECT_THROW((void)p->download(t), InputError);
  EXPECT_THROW(p->upload(out, std::vector<uint32_t>(4)), InputError);
  p->upload(in, std::vector<uint32_t>{1, 2, 3, 4});
  p->run(trace);
  EXPECT_EQ(p->download(out), (std::vector<uint32_t>{1, 2, 3, 4}));
}

TEST_P(ExecutorBehaviour, TransfersRejectHandlesOfAnotherGraph) {
  // Two graphs of the same shape: their handles have the same ids, names, types and sizes.
  auto build = [](Buffer<uint32_t>* in, Buffer<uint32_t>* out) {
    Graph g;
    *in = g.input<uint32_t>("in", 4);
    *out = g.output<uint32_t>("out", 4);
    g.dispatch<CopyU32>("copy", {.src = *in, .dst = *out}, Grid{4});
    return g;
  };
  Buffer<uint32_t> in, out, other_in, other_out;
  Graph g = build(&in, &out);
  (void)build(&other_in, &other_out);
  ASSERT_EQ(other_in.id(), in.id());
  auto p = exec().prepare(compile(std::move(g)));
  EXPECT_THROW(p->upload(other_in, std::vector<uint32_t>(4)), InputError);
  p->upload(in, std::vector<uint32_t>{1, 2, 3, 4});
  p->run(trace);
  try {
    (void)p->download(other_out);
    FAIL() << "downloaded through a handle of another graph";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("another graph"), std::string::npos) << e.what();
  }
  EXPECT_EQ(p->download(out), (std::vector<uint32_t>{1, 2, 3, 4}));
}

TEST_P(ExecutorBehaviour, SpansCountTheirTasksAndTrace) {
  Graph g;
  auto x = g.output<uint32_t>("x", 64);
  {
    auto outer = g.span("outer");
    g.dispatch<FillU32>("a", {.out = x.slice(0, 32), .value = 1});
    {
      auto inner = g.span("inner");
      g.dispatch<FillU32>("b", {.out = x.slice(32, 32), .value = 2});
      g.dispatch<CopyU32>("c", {.src = x.slice(32, 32), .dst = x.slice(0, 32)});
    }
  }
  auto p = run(g, [](PreparedPlan&) {});
  ASSERT_EQ(trace.spans.size(), 3u);
  EXPECT_EQ(trace.spans[0].path, "run");
  EXPECT_EQ(trace.spans[1].path, "outer");
  EXPECT_EQ(trace.spans[2].path, "outer/inner");
  EXPECT_EQ(trace.spans[0].dispatches, 3u);
  EXPECT_EQ(trace.spans[1].dispatches, 3u);
  EXPECT_EQ(trace.spans[2].dispatches, 2u);
  EXPECT_EQ(trace.spans[2].barriers, 1u);
  EXPECT_EQ(trace.spans[1].submissions, 1u);
  for (const auto& s : trace.spans) {
    EXPECT_GE(s.host_ms, 0.0) << s.path;
    EXPECT_GE(s.device_ms, 0.0) << s.path;
  }
  std::ostringstream json, chrome, summary;
  write_json(trace, json);
  write_chrome_trace(trace, chrome);
  write_summary(trace, summary);
  EXPECT_NE(json.str().find("\"executor\": \"" + std::string(exec().name()) + "\""), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"path\": \"outer/inner\""), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"host_syncs\": 1"), std::string::npos) << json.str();
  EXPECT_NE(chrome.str().find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(chrome.str().find("\"name\": \"inner\""), std::string::npos);
  EXPECT_NE(summary.str().find("inner"), std::string::npos);

  // Two runs in one Chrome trace: the second, named by its top span, starts after the first ends.
  Trace second;
  p->run(second);
  second.spans[0].name = "second run";
  const std::vector<Trace> runs = {trace, second};
  std::ostringstream both;
  write_chrome_trace(runs, both);
  const std::string text = both.str();
  const size_t at = text.find("\"name\": \"second run\"");
  ASSERT_NE(at, std::string::npos) << text;
  const size_t ts = text.find("\"ts\": ", at);
  ASSERT_NE(ts, std::string::npos);
  EXPECT_GE(std::stod(text.substr(ts + 6)), 1000 * trace.spans[0].host_ms) << text;
  size_t events = 0;
  for (size_t i = text.find("\"ph\": \"X\""); i != std::string::npos; i = text.find("\"ph\": \"X\"", i + 1)) ++events;
  EXPECT_EQ(events, 2 * 2 * trace.spans.size()) << text;  // host and device events of each span, twice
}

TEST_P(ExecutorBehaviour, ReadingAPersistentNobodyWroteIsAnError) {
  Graph g;
  auto table = g.persistent<uint32_t>("test.never_written", 8);
  auto out = g.output<uint32_t>("out", 8);
  g.dispatch<CopyU32>("read", {.src = table, .dst = out});
  auto p = exec().prepare(compile(g));
  try {
    p->run(trace);
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("test.never_written"), std::string::npos) << e.what();
  }
  p->upload(table, std::vector<uint32_t>(8, 3));  // an upload fills it
  p->run(trace);
  EXPECT_EQ(p->download(out), std::vector<uint32_t>(8, 3));
}

TEST_P(ExecutorBehaviour, AFailedRunLeavesItsPersistentsUnwritten) {
  {
    Graph setup;
    auto table = setup.persistent<uint32_t>("test.failed_setup", 8);
    setup.dispatch<FillU32>("init", {.out = table, .value = 42}, Grid{8});
    setup.host("check", {host_read(table.all())}, [](const HostContext&) { throw std::runtime_error("bad table"); });
    auto p = exec().prepare(compile(std::move(setup)));
    EXPECT_THROW(p->run(trace), ExecutionError);
  }
  Graph g;
  auto table = g.persistent<uint32_t>("test.failed_setup", 8);
  auto out = g.output<uint32_t>("out", 8);
  g.dispatch<CopyU32>("read", {.src = table, .dst = out}, Grid{8});
  auto p = exec().prepare(compile(std::move(g)));
  try {
    p->run(trace);
    FAIL() << "read a Persistent that only a failed run wrote";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'test.failed_setup' is read before anything wrote it"), std::string::npos)
        << e.what();
  }
}

TEST_P(ExecutorBehaviour, RedeclaringAPersistentWithAnotherTypeOrCountIsAGraphError) {
  {
    Graph g;
    auto table = g.persistent<uint32_t>("test.redeclared", 8);
    g.dispatch<FillU32>("init", {.out = table, .value = 1}, Grid{8});
    run(g, [](PreparedPlan&) {});
  }
  auto expect_error = [&](Graph g, const std::string& declared) {
    try {
      (void)exec().prepare(compile(std::move(g)));
      FAIL() << "prepared a plan that redeclares a Persistent as " << declared;
    } catch (const GraphError& e) {
      EXPECT_EQ(std::string(e.what()),
                "Persistent buffer 'test.redeclared' already exists on this executor as 8 x u32; "
                "this plan declares " +
                    declared);
    }
  };
  Graph more;
  auto longer = more.persistent<uint32_t>("test.redeclared", 16);
  more.dispatch<FillU32>("init", {.out = longer, .value = 1}, Grid{16});
  expect_error(std::move(more), "16 x u32");
  Graph retyped;
  auto as_fp = retyped.persistent<Fp>("test.redeclared", 8);
  retyped.dispatch<FillU32>("init", {.out = as_fp.all().bitcast<uint32_t>(), .value = 1}, Grid{8});
  expect_error(std::move(retyped), "8 x Fp");
}

TEST_P(ExecutorBehaviour, ProfiledRunsTimeEveryTask) {
  Graph g;
  auto x = g.output<uint32_t>("x", 4096);
  g.dispatch<FillU32>("fill", {.out = x, .value = 1});
  g.dispatch<CopyU32>("copy", {.src = x.slice(0, 2048), .dst = x.slice(2048, 2048)});
  trace.profile_tasks = true;
  auto p = run(g, [](PreparedPlan&) {});
  ASSERT_EQ(trace.tasks.size(), 2u);
  EXPECT_EQ(trace.tasks[0].kernel, "fill_u32");
  EXPECT_EQ(trace.tasks[1].name, "copy");
  for (const TraceTask& t : trace.tasks) EXPECT_GE(t.device_ms, 0.0);
  std::ostringstream summary, json;
  write_summary(trace, summary);
  write_json(trace, json);
  EXPECT_NE(summary.str().find("kernel (profiled)"), std::string::npos) << summary.str();
  EXPECT_NE(summary.str().find("task (profiled)"), std::string::npos) << summary.str();
  EXPECT_NE(json.str().find("\"tasks\""), std::string::npos);
}

TEST_P(ExecutorBehaviour, ConstantsHoldTheirValuesInEveryRunAndRefuseUploads) {
  Graph g;
  std::vector<uint32_t> table = {3, 1, 4, 1, 5, 9, 2, 6};
  auto c = g.constant<uint32_t>("table", table);
  auto out = g.output<uint32_t>("out", 8);
  g.dispatch<CopyU32>("copy", {.src = c, .dst = out}, Grid{8});
  auto p = run(g, [](PreparedPlan&) {});
  EXPECT_EQ(p->download(out), table);
  p->run(trace);  // a second run without uploads sees the same contents
  EXPECT_EQ(p->download(out), table);
  EXPECT_THROW(p->upload(c, table), InputError);
}

TEST(Constants, AreReadOnlyForTasks) {
  Graph g;
  auto c = g.constant<uint32_t>("table", std::vector<uint32_t>{1, 2});
  try {
    g.dispatch<FillU32>("fill", {.out = c, .value = 0}, Grid{2});
    FAIL() << "no GraphError";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("Constant buffer 'table'"), std::string::npos) << e.what();
  }
}

// Plans in flight together (PreparedPlan::start, then wait in another order): each gives what it
// gives alone, including plans of more than one submission (a host task between them) and after
// uploads; on Vulkan a running plan refuses uploads, downloads and a second start.
TEST_P(ExecutorBehaviour, PlansStartedTogetherGiveTheirOwnResults) {
  std::vector<std::unique_ptr<PreparedPlan>> plans;
  std::vector<Buffer<uint32_t>> outs, ins;
  for (uint32_t k = 0; k < 5; ++k) {
    Graph g;
    auto in = g.input<uint32_t>("in", 64);
    auto out = g.output<uint32_t>("out", 64);
    g.dispatch<CopyU32>("copy", {.src = in, .dst = out}, Grid{64});
    if (k % 2 == 1) {  // a host task, then another submission
      auto mid = g.transient<uint32_t>("mid", 64);
      g.host("touch", {host_read(out.all())}, [](const HostContext&) {});
      g.dispatch<CopyU32>("again", {.src = out, .dst = mid}, Grid{64});
      g.dispatch<CopyU32>("back", {.src = mid, .dst = out}, Grid{64});
    }
    plans.push_back(exec().prepare(compile(std::move(g))));
    ins.push_back(in);
    outs.push_back(out);
  }
  std::vector<Trace> traces(plans.size());
  for (uint32_t round = 0; round < 2; ++round) {
    for (uint32_t k = 0; k < plans.size(); ++k) {
      std::vector<uint32_t> data(64);
      for (uint32_t i = 0; i < 64; ++i) data[i] = 1000 * round + 100 * k + i;
      plans[k]->upload(ins[k], data);
      plans[k]->start(traces[k]);
    }
    if (GetParam() != "cpu") {
      EXPECT_THROW(plans[0]->upload(ins[0], std::vector<uint32_t>(64)), GraphError);
      EXPECT_THROW((void)plans[0]->download(outs[0]), GraphError);
      EXPECT_THROW(plans[0]->start(traces[0]), GraphError);
    }
    for (uint32_t k = uint32_t(plans.size()); k-- > 0;) {
      plans[k]->wait();
      const std::vector<uint32_t> got = plans[k]->download(outs[k]);
      for (uint32_t i = 0; i < 64; ++i)
        ASSERT_EQ(got[i], 1000 * round + 100 * k + i) << "plan " << k << " round " << round;
    }
  }
  plans[0]->wait();  // nothing in flight: no effect
}

// A plan compiled for small allocations (its arena in several chunks) with its Inputs in the arena
// computes what the plan without limits computes; an arena Input is uploaded again for every run.
TEST_P(ExecutorBehaviour, ChunkedArenaAndArenaInputsKeepTheirValues) {
  Graph g;
  auto a = g.input<Fp>("a", 1000), b = g.input<Fp>("b", 1000);
  std::vector<Buffer<Fp>> t;
  for (int i = 0; i < 5; ++i) t.push_back(g.transient<Fp>(fmt::format("t{}", i), 1000));
  auto out = g.output<Fp>("out", 1000);
  g.dispatch<FpMul>("ab", {.a = a, .b = b, .out = t[0]});  // a and b die here
  g.dispatch<FpAdd>("t1", {.a = t[0], .b = t[0], .out = t[1]});
  g.dispatch<FpMul>("t2", {.a = t[1], .b = t[0], .out = t[2]});
  g.dispatch<FpAdd>("t3", {.a = t[2], .b = t[1], .out = t[3]});
  g.dispatch<FpMul>("t4", {.a = t[3], .b = t[2], .out = t[4]});
  g.dispatch<FpAdd>("out", {.a = t[4], .b = t[0], .out = out});
  PlanOptions options;
  options.inputs_in_arena = true;
  options.limits.max_allocation_bytes = 8192;  // two 4000-byte buffers per chunk
  const Plan plan = compile(g, options);
  ASSERT_GE(plan.memory.arena_chunks.size(), 2u);
  ASSERT_TRUE(plan.memory.placement[a.id()].in_arena());
  const auto va = field_values(1000, 21), vb = field_values(1000, 22);
  auto p = exec().prepare(plan);
  for (int r = 0; r < 2; ++r) {
    p->upload(a, va);
    p->upload(b, vb);
    p->run(trace);
    const auto got = p->download(out);
    for (int i = 0; i < 1000; ++i) {
      const Fp t0 = va[i] * vb[i], t1 = t0 + t0, t2 = t1 * t0, t3 = t2 + t1, t4 = t3 * t2;
      ASSERT_EQ(got[i], t4 + t0) << "run " << r << " entry " << i;
    }
  }
  p->upload(a, va);
  try {
    p->run(trace);
    FAIL() << "ran without b";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'b' was not uploaded again"), std::string::npos) << e.what();
  }
}

// Under VKSTARK_MAX_ALLOCATION_BYTES / VKSTARK_MAX_BINDING_BYTES (CTest's lowered_limits. run), the
// executor reports the lowered limits and refuses, before allocating, a plan that exceeds them:
// a buffer larger than one allocation, a view larger than one binding. A plan compiled for them
// runs. Without the variables: nothing to check beyond the limits being set.
TEST_P(ExecutorBehaviour, LoweredLimitsAreReportedAndEnforced) {
  const ExecutorLimits lim = exec().limits();
  EXPECT_GT(lim.max_buffer_bytes, 0u);
  EXPECT_GT(lim.max_binding_bytes, 0u);
  const char* alloc = std::getenv("VKSTARK_MAX_ALLOCATION_BYTES");
  const char* binding = std::getenv("VKSTARK_MAX_BINDING_BYTES");
  if (alloc == nullptr || binding == nullptr) return;
  EXPECT_LE(lim.max_buffer_bytes, std::stoull(alloc));
  EXPECT_LE(lim.max_binding_bytes, std::stoull(binding));
  const uint64_t n = lim.max_buffer_bytes / 4 + 1;  // one word more than one allocation
  {
    Graph g;
    auto in = g.input<uint32_t>("big", n);
    auto out = g.output<uint32_t>("out", 1);
    g.dispatch<CopyU32>("one", {.src = in.slice(0, 1), .dst = out});
    EXPECT_THROW((void)exec().prepare(compile(g)), DeviceError);
  }
  {
    Graph g;
    const uint64_t words = lim.max_binding_bytes / 4 + 64;  // a view past one binding, in one allocation
    auto in = g.input<uint32_t>("in", words);
    auto out = g.output<uint32_t>("out", words);
    g.dispatch<CopyU32>("whole", {.src = in, .dst = out});
    try {
      (void)exec().prepare(compile(g));
      FAIL() << "a view past one binding was prepared";
    } catch (const DeviceError& e) {
      EXPECT_NE(std::string(e.what()).find("task 'whole'"), std::string::npos) << e.what();
    }
    Graph h;
    h.set_memory_limits(memory_limits(lim));
    auto in2 = h.input<uint32_t>("in", words);
    auto out2 = h.output<uint32_t>("out", words);
    EXPECT_THROW(h.dispatch<CopyU32>("whole", {.src = in2, .dst = out2}); (void)compile(h), GraphError);
  }
}
