// Specifies kernels made at run time (runtime/kernel.hpp make_runtime_kernel, kernels/glsl/compiler.hpp):
// GLSL compiled in process from a generated interface with a view array, dispatched with
// DynamicArgs like any other task, bit-identical on every executor (Vulkan under validation), and
// checked against its ABI when the graph is built.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kernels/basic.hpp"
#include "kernels/glsl/compiler.hpp"
#include "runtime/spirv_interface.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

// out[i] = shift_sum(i) = sum_{k < parts.count} parts[k][i + shift]: a view array, an output, a scalar.
struct SumPartsArgs {
  InArray<Fp, 4> parts;
  Out<Fp> out;
  uint32_t shift = 0;
};

constexpr std::string_view kSumPartsBody = R"glsl(
#include "fp.glsl"
void main() {
  uint i = vks_index_x();
  if (i >= pc.grid_x) return;
  uint acc = 0u;
  for (uint k = 0u; k < pc.parts_count; ++k) acc = fp_add(acc, parts_[k].data[pc.parts_off[k] + i + pc.shift]);
  out_[pc.out_off + i] = acc;
}
)glsl";

// The CPU body reads descriptor slots 0..3 (the array) and 4 (out), and scalar word 0.
void sum_parts_cpu(const CpuContext& ctx) {
  const uint32_t shift = ctx.scalars()[0];
  std::span<Fp> out = ctx.view<Fp>(4);
  for (uint32_t i = 0; i < ctx.grid().x; ++i) {
    Fp acc = Fp::zero();
    for (uint32_t k = 0; k < 4; ++k)
      if (ctx.bindings()[k].used()) acc += ctx.view<Fp>(k)[i + shift];
    out[i] = acc;
  }
}

// Its rules: one invocation per value of out; every part reaches past the grid by `shift`.
Grid sum_parts_grid(const SumPartsArgs& a) { return {uint32_t(a.out.view.count)}; }
std::string sum_parts_problem(const SumPartsArgs& a) {
  for (uint32_t k = 0; k < a.parts.count; ++k)
    if (a.parts.views[k].count < a.out.view.count + a.shift)
      return fmt::format("part {} has {} values, the grid reads {}", k, a.parts.views[k].count,
                         a.out.view.count + a.shift);
  return {};
}
const auto kSumPartsGrid = over_args<SumPartsArgs>(sum_parts_grid);
const auto kSumPartsCheck = over_args<SumPartsArgs>(sum_parts_problem);

std::shared_ptr<const KernelInfo> sum_parts_kernel() {
  return make_glsl_kernel({.name = "test_sum_parts",
                           .abi = kernel_abi<SumPartsArgs>(),
                           .body = std::string(kSumPartsBody),
                           .cpu = sum_parts_cpu,
                           .grid = kSumPartsGrid,
                           .check = kSumPartsCheck});
}

}  // namespace

class RuntimeKernel : public ExecutorTest {};
VKSTARK_INSTANTIATE_FOR_EXECUTORS_AND_STAGING(RuntimeKernel);

TEST_P(RuntimeKernel, SumsAVariableNumberOfParts) {
  auto kernel = sum_parts_kernel();
  for (uint32_t parts : {1u, 2u, 4u}) {
    const uint32_t n = 37, shift = 2;
    Graph g;
    std::vector<Buffer<Fp>> bufs;
    std::vector<View<Fp>> views;
    for (uint32_t k = 0; k < parts; ++k) {
      bufs.push_back(g.input<Fp>(fmt::format("part{}", k), n + shift + k));
      views.push_back(bufs.back().slice(k, n + shift));  // views at different offsets
    }
    auto out = g.output<Fp>("out", n + 1);
    DynamicArgs args;
    args.views<Fp>(views).view(out.slice(1, n)).scalar(shift);
    g.dispatch("sum", kernel, args, Grid{n});
    std::vector<std::vector<Fp>> data;
    for (uint32_t k = 0; k < parts; ++k) data.push_back(field_values(n + shift + k, 100 * parts + k));
    auto p = run(g, [&](PreparedPlan& pp) {
      for (uint32_t k = 0; k < parts; ++k) pp.upload(bufs[k], data[k]);
    });
    auto got = p->download(out);
    for (uint32_t i = 0; i < n; ++i) {
      Fp want = Fp::zero();
      for (uint32_t k = 0; k < parts; ++k) want += data[k][k + i + shift];
      ASSERT_EQ(got[1 + i], want) << "parts=" << parts << " i=" << i;
    }
  }
}

TEST_P(RuntimeKernel, OutlivesItsMakerInsideAPlan) {
  Graph g;
  auto in = g.input<Fp>("in", 8);
  auto out = g.output<Fp>("out", 8);
  {
    auto kernel = sum_parts_kernel();  // the graph shares ownership; the maker lets go
    g.dispatch("sum", kernel, DynamicArgs().views<Fp>({in.all()}).view(out.all()).scalar(0), Grid{8});
  }
  auto data = field_values(8, 7);
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(in, data); });
  EXPECT_EQ(p->download(out), data);
}

// A kernel made for executors that run CPU bodies only (GlslKernelDesc::spirv false, as a
// StarkProver of the CPU executor makes its generated kernels): no GLSL compiled, no SPIR-V. It runs
// there; an executor that runs SPIR-V refuses it by name.
TEST_P(RuntimeKernel, ACpuOnlyKernelRunsWhereCpuBodiesRunAndIsRefusedElsewhere) {
  auto kernel = make_glsl_kernel({.name = "test_sum_parts_cpu_only",
                                  .abi = kernel_abi<SumPartsArgs>(),
                                  .body = "this is not GLSL",
                                  .cpu = sum_parts_cpu,
                                  .grid = kSumPartsGrid,
                                  .check = kSumPartsCheck,
                                  .spirv = false});
  ASSERT_TRUE(kernel);
  EXPECT_TRUE(kernel->cpu_only);
  EXPECT_TRUE(kernel->spirv.empty());
  Graph g;
  auto in = g.input<Fp>("in", 8);
  auto out = g.output<Fp>("out", 8);
  g.dispatch("sum", kernel, DynamicArgs().views<Fp>({in.all()}).view(out.all()).scalar(0), Grid{8});
  auto data = field_values(8, 9);
  if (!exec().limits().runs_spirv) {
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(in, data); });
    EXPECT_EQ(p->download(out), data);
    return;
  }
  try {
    (void)run(g, [&](PreparedPlan& pp) { pp.upload(in, data); });
    ADD_FAILURE() << "a CPU-only kernel ran on " << GetParam();
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("test_sum_parts_cpu_only was made without SPIR-V"), std::string::npos)
        << e.what();
  }
}

TEST(RuntimeKernelArgs, ACpuOnlyKernelWithSpirvIsRefused) {
  const auto spirv = sum_parts_kernel()->spirv;
  EXPECT_THROW((void)make_runtime_kernel({.name = "both",
                                          .abi = kernel_abi<SumPartsArgs>(),
                                          .spirv = spirv,
                                          .cpu = sum_parts_cpu,
                                          .grid = kSumPartsGrid,
                                          .check = kSumPartsCheck,
                                          .cpu_only = true}),
               GraphError);
}

TEST(RuntimeKernelArgs, MismatchesWithTheAbiAreGraphErrors) {
  auto kernel = sum_parts_kernel();
  Graph g;
  auto x = g.input<Fp>("x", 8);
  auto y = g.input<Fp4>("y", 8);
  auto out = g.output<Fp>("out", 8);
  auto expect = [&](const DynamicArgs& args, const std::string& part) {
    try {
      g.dispatch("bad", kernel, args, Grid{8});
      FAIL() << "no GraphError for " << part;
    } catch (const GraphError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad"), std::string::npos) << e.what();
    }
  };
  expect(DynamicArgs().view(x.all()).view(out.all()).scalar(0), "view array");
  expect(DynamicArgs().views<Fp>({x, x, x, x, x}).view(out.all()).scalar(0), "at most 4");
  expect(DynamicArgs().views<Fp>({x.all()}).view(y.all()).scalar(0), "holds Fp4");
  expect(DynamicArgs().views<Fp>({x.all()}).view(out.all()), "scalar words");
  expect(DynamicArgs().views<Fp>({x.all()}), "view arguments");
}

// A run-time kernel is held to its grid rule and check as a compiled kernel to K::grid and
// K::check: the same GraphError, naming the task and the kernel.
TEST(RuntimeKernelArgs, AGridOtherThanItsRuleGivesIsRefused) {
  auto kernel = sum_parts_kernel();
  Graph g;
  auto x = g.input<Fp>("x", 12);
  auto out = g.output<Fp>("out", 8);
  const DynamicArgs args = DynamicArgs().views<Fp>({x.all()}).view(out.all()).scalar(2);
  for (Grid bad : {Grid{9}, Grid{7}, Grid{8, 2}}) {
    try {
      g.dispatch("sum.bad_grid", kernel, args, bad);
      FAIL() << "no GraphError for grid " << bad.x << "x" << bad.y;
    } catch (const GraphError& e) {
      EXPECT_NE(std::string(e.what()).find("task 'sum.bad_grid' (kernel test_sum_parts)"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("need grid 8x1"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(g.tasks().empty());
  g.dispatch("sum.good", kernel, args, Grid{8});
  EXPECT_EQ(g.tasks().size(), 1u);
}

// A view shorter than the grid reads: refused by the check before any executor sees it.
TEST(RuntimeKernelArgs, ArgumentsItsCheckRejectsAreRefused) {
  auto kernel = sum_parts_kernel();
  Graph g;
  auto x = g.input<Fp>("x", 12);
  auto out = g.output<Fp>("out", 8);
  try {
    g.dispatch("sum.short", kernel, DynamicArgs().views<Fp>({x.all(), x.slice(0, 9)}).view(out.all()).scalar(2),
               Grid{8});
    FAIL() << "no GraphError";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("task 'sum.short' (kernel test_sum_parts): part 1 has 9 values, the grid "
                                         "reads 10"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(g.tasks().empty());
}

// Rules over Args that are not the kernel's interface cannot read it: a GraphError, not garbage.
TEST(RuntimeKernelArgs, RulesOverOtherArgsAreAGraphError) {
  struct OtherArgs {
    In<Fp> a;
    Out<Fp> out;
  };
  auto kernel = make_glsl_kernel(
      {.name = "test_other_rules",
       .abi = kernel_abi<SumPartsArgs>(),
       .body = std::string(kSumPartsBody),
       .cpu = sum_parts_cpu,
       .grid = over_args<OtherArgs>([](const OtherArgs& a) { return Grid{uint32_t(a.out.view.count)}; }),
       .check = kSumPartsCheck});
  Graph g;
  auto x = g.input<Fp>("x", 8);
  auto out = g.output<Fp>("out", 8);
  try {
    g.dispatch("other", kernel, DynamicArgs().views<Fp>({x.all()}).view(out.all()).scalar(0), Grid{8});
    FAIL() << "no GraphError";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("task 'other' (kernel test_other_rules)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not its interface"), std::string::npos) << e.what();
  }
}

TEST(RuntimeKernelArgs, AKernelWithoutAGridRuleOrACheckIsRefused) {
  GlslKernelDesc desc{.name = "test_no_rules",
                      .abi = kernel_abi<SumPartsArgs>(),
                      .body = std::string(kSumPartsBody),
                      .cpu = sum_parts_cpu,
                      .grid = kSumPartsGrid,
                      .check = kSumPartsCheck};
  GlslKernelDesc no_grid = desc, no_check = desc;
  no_grid.grid = nullptr;
  no_check.check = nullptr;
  for (const auto& [d, what] : {std::pair{no_grid, "no grid rule"}, std::pair{no_check, "no check"}}) {
    try {
      (void)make_glsl_kernel(d);
      FAIL() << "no GraphError: " << what;
    } catch (const GraphError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("run-time kernel test_no_rules: ") + what), std::string::npos)
          << e.what();
    }
  }
  RuntimeKernelDesc raw{.name = "test_no_rules",
                        .abi = kernel_abi<SumPartsArgs>(),
                        .spirv = sum_parts_kernel()->spirv,
                        .cpu = sum_parts_cpu,
                        .grid = kSumPartsGrid,
                        .check = nullptr};
  EXPECT_THROW((void)make_runtime_kernel(raw), GraphError);
  raw.check = kSumPartsCheck;
  EXPECT_NO_THROW((void)make_runtime_kernel(raw));
}

// DynamicArgs carry no Args for a compiled kernel's body.
TEST(RuntimeKernelArgs, ACompiledKernelIsNotDispatchedWithDynamicArgs) {
  Graph g;
  auto out = g.output<uint32_t>("out", 8);
  const auto fill = std::shared_ptr<const KernelInfo>(std::shared_ptr<const KernelInfo>(), &kernel_info<FillU32>());
  EXPECT_THROW(g.dispatch("fill", fill, DynamicArgs().view(out.all()).scalar(0), Grid{8}), GraphError);
}

TEST(RuntimeKernelArgs, GlslThatDoesNotCompileIsAGraphErrorWithTheLog) {
  try {
    (void)make_glsl_kernel({.name = "broken",
                            .abi = kernel_abi<SumPartsArgs>(),
                            .body = "void main() { undefined_thing(); }\n",
                            .cpu = sum_parts_cpu,
                            .grid = kSumPartsGrid,
                            .check = kSumPartsCheck});
    FAIL() << "no GraphError";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("broken"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("undefined_thing"), std::string::npos) << e.what();
  }
}

TEST(RuntimeKernelArgs, WordsThatAreNotSpirvAreRejected) {
  EXPECT_THROW((void)make_runtime_kernel({.name = "junk",
                                          .abi = kernel_abi<SumPartsArgs>(),
                                          .spirv = {1, 2, 3, 4, 5, 6},
                                          .cpu = sum_parts_cpu,
                                          .grid = kSumPartsGrid,
                                          .check = kSumPartsCheck}),
               GraphError);
}

// SPIR-V whose interface differs from the declared one is refused when the kernel is made: here a
// view the ABI reads only is declared writable, so the scheduler would not see the shader's writes.
TEST(RuntimeKernelArgs, SpirvThatDoesNotMatchTheInterfaceIsRefused) {
  const std::string source = R"glsl(#version 460
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { uint a_[]; } parts_[4];
layout(set = 0, binding = 1) writeonly buffer B { uint out_[]; };
layout(push_constant) uniform P { uint grid_x; uint grid_y; } pc;
void main() { parts_[0].a_[0] = 1u; out_[0] = 2u; }
)glsl";
  try {
    (void)make_runtime_kernel({.name = "writes_its_input",
                               .abi = kernel_abi<SumPartsArgs>(),
                               .spirv = compile_glsl(source, "writes_its_input"),
                               .cpu = sum_parts_cpu,
                               .grid = kSumPartsGrid,
                               .check = kSumPartsCheck});
    FAIL() << "no GraphError";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("binding 0 ('parts') is read-only"), std::string::npos) << e.what();
  }
}

// gl_NumWorkGroups costs a dispatch on NVIDIA; the check sees it, and runtime.glsl's helpers avoid it.
TEST(RuntimeKernelArgs, ReadingNumWorkGroupsIsSeenInTheSpirv) {
  const std::string reads = R"glsl(#version 460
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { uint a_[]; };
void main() { a_[gl_WorkGroupID.x] = gl_NumWorkGroups.x; }
)glsl";
  const std::string avoids = R"glsl(#version 460
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer A { uint a_[]; };
void main() { a_[gl_WorkGroupID.x] = gl_WorkGroupID.y; }
)glsl";
  EXPECT_TRUE(spirv_reads_num_workgroups(compile_glsl(reads, "reads")));
  EXPECT_FALSE(spirv_reads_num_workgroups(compile_glsl(avoids, "avoids")));
  EXPECT_FALSE(spirv_reads_num_workgroups(std::vector<uint32_t>{1, 2, 3}));
}
