// Specifies the kernel ABI (runtime/kernel_abi.hpp): a kernel's interface follows from its C++ Args
// alone, names included; its GLSL declarations are generated from it; names GLSL cannot declare are
// rejected, naming the member. And every compiled kernel (kernels/registry.hpp) has its SPIR-V
// embedded and an ABI that validates.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "kernels/glsl/compiler.hpp"
#include "kernels/glsl/shaders.hpp"
#include "kernels/registry.hpp"
#include "runtime/kernel.hpp"
#include "runtime/spirv_interface.hpp"

using namespace vkstark;

namespace {

struct SmallArgs {
  In<Fp> src;
  InArray<Fp4, 3> parts;
  InOut<Digest> acc;
  uint32_t n = 0;
  std::array<uint32_t, 2> pair{};
};

struct WriteOnlyArgs {
  Out<uint32_t> out;
};

struct ReservedWordArgs {
  Out<Fp> out;
  uint32_t half = 0;
};

struct ClashingArgs {
  In<Fp> data;
  uint32_t data_len = 0;  // the view already generates pc.data_len
};

struct RuntimeNameArgs {
  Out<Fp> out;
  uint32_t grid_x = 0;
};

struct TooManyWordsArgs {
  Out<Fp> out;
  std::array<uint32_t, 30> many{};  // 2 + 2 + 30 words = 136 bytes
};

// Runs abi.validate, expects a GraphError whose message contains every string in `parts`.
void expect_rejected(const KernelAbi& abi, std::initializer_list<std::string> parts) {
  try {
    abi.validate("test_kernel");
    FAIL() << "validate accepted it";
  } catch (const GraphError& e) {
    const std::string msg = e.what();
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

}  // namespace

TEST(KernelAbi, FollowsFromTheArgsMembersAndTheirNames) {
  const KernelAbi abi = kernel_abi<SmallArgs>();
  ASSERT_EQ(abi.views.size(), 3u);
  EXPECT_EQ(abi.views[0].name, "src");
  EXPECT_EQ(abi.views[0].type, type_tag<Fp>());
  EXPECT_EQ(abi.views[0].access, Access::Read);
  EXPECT_EQ(abi.views[0].array, 0u);
  EXPECT_EQ(abi.views[1].name, "parts");
  EXPECT_EQ(abi.views[1].type, type_tag<Fp4>());
  EXPECT_EQ(abi.views[1].access, Access::Read);
  EXPECT_EQ(abi.views[1].array, 3u);
  EXPECT_EQ(abi.views[2].name, "acc");
  EXPECT_EQ(abi.views[2].type, type_tag<Digest>());
  EXPECT_EQ(abi.views[2].access, Access::ReadWrite);
  EXPECT_EQ(abi.views[2].array, 0u);
  ASSERT_EQ(abi.scalars.size(), 2u);
  EXPECT_EQ(abi.scalars[0].name, "n");
  EXPECT_EQ(abi.scalars[0].words, 1u);
  EXPECT_EQ(abi.scalars[1].name, "pair");
  EXPECT_EQ(abi.scalars[1].words, 2u);
  EXPECT_EQ(abi.slots(), 1u + 3u + 1u);
  // grid (2) + src (2) + parts (3 offsets, 3 lengths, count) + acc (2) + n + pair[2]
  EXPECT_EQ(abi.push_words(), 2u + 2u + 7u + 2u + 1u + 2u);
  EXPECT_EQ(abi.scalar_words(), 3u);
  EXPECT_NO_THROW(abi.validate("test_kernel"));
}

TEST(KernelAbi, GeneratesTheGlslInterface) {
  EXPECT_EQ(glsl_declarations(kernel_abi<SmallArgs>(), "test_kernel"),
            "// The interface of kernel test_kernel, generated from its Args (runtime/kernel_abi.hpp). Do not edit.\n"
            "#include \"runtime.glsl\"\n"
            "layout(set = 0, binding = 0) readonly buffer VksBinding0 { uint src_[]; };\n"
            "layout(set = 0, binding = 1) readonly buffer VksBinding1 { uvec4 data[]; } parts_[3];\n"
            "layout(set = 0, binding = 2) buffer VksBinding2 { uvec4 acc_[]; };\n"
            "layout(push_constant) uniform VksPush {\n"
            "  uint grid_x;\n"
            "  uint grid_y;\n"
            "  uint src_off;\n"
            "  uint src_len;\n"
            "  uint parts_off[3];\n"
            "  uint parts_len[3];\n"
            "  uint parts_count;\n"
            "  uint acc_off;\n"
            "  uint acc_len;\n"
            "  uint n;\n"
            "  uint pair[2];\n"
            "} pc;\n");
}

// A kernel's named constants (KernelConstant) follow its interface, values from C++.
TEST(KernelAbi, WritesTheKernelsConstantsAfterItsInterface) {
  static constexpr std::array<uint32_t, 3> kTable = {1, 20, 300};
  const KernelConstant constants[] = {{"LANES", 64}, {"TABLE", 0, kTable}};
  const std::string glsl = glsl_declarations(kernel_abi<WriteOnlyArgs>(), "k", constants);
  const std::string tail = "} pc;\nconst uint LANES = 64u;\nconst uint TABLE[3] = uint[3](1u, 20u, 300u);\n";
  ASSERT_GE(glsl.size(), tail.size());
  EXPECT_EQ(glsl.substr(glsl.size() - tail.size()), tail) << glsl;
}

TEST(KernelAbi, RejectsConstantsNotUpperCaseReservedOrTwice) {
  auto expect = [](std::initializer_list<KernelConstant> constants, const std::string& part) {
    try {
      (void)glsl_declarations(kernel_abi<WriteOnlyArgs>(), "test_kernel",
                              std::span<const KernelConstant>(constants.begin(), constants.size()));
      FAIL() << "accepted: " << part;
    } catch (const GraphError& e) {
      EXPECT_NE(std::string(e.what()).find("kernel test_kernel: constant '" + part + "'"), std::string::npos)
          << e.what();
    }
  };
  expect({{"lanes", 64}}, "lanes");
  expect({{"VKS_LANES", 64}}, "VKS_LANES");
  expect({{"2LANES", 64}}, "2LANES");
  expect({{"LANES", 64}, {"LANES", 32}}, "LANES");
}

// Each compiled kernel's constants are its C++ values: the workgroup-sized ones match its
// workgroup_size (a body that assumes LANES == gl_WorkGroupSize.x would otherwise do nothing).
TEST(KernelAbi, WorkgroupConstantsAreTheKernelsWorkgroupSize) {
  EXPECT_EQ(SumcheckProductPartials::constants[0].value, SumcheckProductPartials::workgroup_size);
  EXPECT_EQ(StackedFoldPartials::constants[0].value, StackedFoldPartials::workgroup_size);
  EXPECT_EQ(ZerocheckWeightedSums::constants[0].value, ZerocheckWeightedSums::workgroup_size);
  EXPECT_EQ(GkrFractionLayers::constants[0].value, GkrFractionLayers::workgroup_size);
  EXPECT_EQ(GkrSumcheckPartials::constants[0].value, GkrSumcheckPartials::workgroup_size);
  EXPECT_EQ(GkrFoldSumcheckPartials::constants[0].value, GkrFoldSumcheckPartials::workgroup_size);
  EXPECT_EQ(MobiusEqTable::constants[0].value, MobiusEqTable::workgroup_size);
  EXPECT_EQ(uint32_t(1) << MobiusEqTable::constants[1].value, MobiusEqTable::workgroup_size);
  EXPECT_EQ(uint32_t(1) << EqPowAccumulate::constants[1].value, EqPowAccumulate::workgroup_size);
  EXPECT_EQ(16 * MerkleCompressLevels::constants[0].value, MerkleCompressLevels::workgroup_size);
  EXPECT_EQ(16 * TranscriptGrindCoop::constants[0].value, TranscriptGrindCoop::workgroup_size);
  EXPECT_EQ(16 * ScalarProgram::constants[0].value, ScalarProgram::workgroup_size);
}

TEST(KernelAbi, AWriteOnlyViewIsDeclaredWriteonly) {
  const std::string glsl = glsl_declarations(kernel_abi<WriteOnlyArgs>(), "k");
  EXPECT_NE(glsl.find("layout(set = 0, binding = 0) writeonly buffer VksBinding0 { uint out_[]; };"), std::string::npos)
      << glsl;
}

TEST(KernelAbi, RejectsAScalarNamedLikeAGlslReservedWord) {
  expect_rejected(kernel_abi<ReservedWordArgs>(), {"test_kernel", "'half'", "reserved word"});
}

TEST(KernelAbi, RejectsTwoMembersThatGenerateTheSameName) {
  expect_rejected(kernel_abi<ClashingArgs>(), {"test_kernel", "data_len", "generated twice"});
}

TEST(KernelAbi, RejectsAScalarNamedLikeTheRuntimesOwnNames) {
  expect_rejected(kernel_abi<RuntimeNameArgs>(), {"test_kernel", "grid_x"});
}

TEST(KernelAbi, RejectsMorePushConstantsThanEveryDeviceHas) {
  expect_rejected(kernel_abi<TooManyWordsArgs>(), {"test_kernel", "136 bytes"});
}

// Every kernel the registry lists: its ABI validates, its GLSL body was compiled and embedded, and
// the SPIR-V's interface is its ABI.
TEST(KernelRegistry, EveryKernelHasAValidAbiAndEmbeddedSpirv) {
  std::set<std::string_view> embedded;
  for (const vulkan::EmbeddedShader& s : vulkan::embedded_shaders()) embedded.insert(s.name);
  size_t kernels = 0;
  auto check = [&]<class K>() {
    ++kernels;
    SCOPED_TRACE(std::string(K::name));
    EXPECT_NO_THROW((void)kernel_info<K>());
    const auto* shader = [&]() -> const vulkan::EmbeddedShader* {
      for (const vulkan::EmbeddedShader& s : vulkan::embedded_shaders())
        if (s.name == K::name) return &s;
      return nullptr;
    }();
    ASSERT_NE(shader, nullptr) << "no embedded SPIR-V for kernel " << K::name;
    ASSERT_GE(shader->words.size(), 5u);
    EXPECT_EQ(shader->words[0], 0x07230203u) << "not SPIR-V";
    // The compiled shader declares exactly the interface its Args give (bindings, access, push block).
    EXPECT_EQ(spirv_interface_mismatch(shader->words, kernel_info<K>().abi), "");
    // Reading gl_NumWorkGroups costs a small dispatch about half again on an H100 (runtime.glsl).
    EXPECT_FALSE(spirv_reads_num_workgroups(shader->words)) << K::name << " reads gl_NumWorkGroups";
    embedded.erase(K::name);
  };
#define VKSTARK_CHECK_KERNEL(K) check.template operator()<K>();
  VKSTARK_KERNELS(VKSTARK_CHECK_KERNEL)
#undef VKSTARK_CHECK_KERNEL
  EXPECT_EQ(kernels, vulkan::embedded_shaders().size());
  EXPECT_TRUE(embedded.empty()) << "embedded shaders without a kernel in kernels/registry.hpp: " << *embedded.begin();
}

// What each kernel asks of a device, read from its SPIR-V (spirv_needs): every size evaluates at the
// workgroup the executor gives it, the descriptors are its ABI's slots, the push block fits its ABI.
// VKSTARK_PRINT_NEEDS=1 prints the table (docs/decisions.md, device profiles).
TEST(KernelRegistry, EveryKernelsDeviceNeedsAreReadFromItsSpirv) {
  const bool print = std::getenv("VKSTARK_PRINT_NEEDS") != nullptr;
  auto check = [&]<class K>() {
    SCOPED_TRACE(std::string(K::name));
    const KernelInfo& info = kernel_info<K>();
    for (const vulkan::EmbeddedShader& s : vulkan::embedded_shaders()) {
      if (s.name != K::name) continue;
      EXPECT_LE(info.workgroup_size, kMaxFixedWorkgroupSize);  // what the Vulkan executor asks of a device
      const uint32_t wg = info.workgroup_size ? info.workgroup_size : 256;
      const std::pair<uint32_t, uint32_t> spec[] = {{0, wg}, {1, 32}, {2, 1}};
      const SpirvNeeds n = spirv_needs(s.words, spec);
      EXPECT_EQ(n.error, "");
      EXPECT_EQ(n.storage_buffers, info.abi.slots());
      EXPECT_LE(n.push_constant_bytes, info.abi.push_words() * 4);
      if (print)
        std::printf("%-28s wg %4u shared %6llu buffers %2u push %3u%s%s%s\n", s.name.data(), wg,
                    static_cast<unsigned long long>(n.shared_bytes), n.storage_buffers, n.push_constant_bytes,
                    n.int64 ? " int64" : "", n.int16 ? " int16" : "", n.subgroup_shuffle ? " shuffle" : "");
    }
  };
#define VKSTARK_CHECK_KERNEL(K) check.template operator()<K>();
  VKSTARK_KERNELS(VKSTARK_CHECK_KERNEL)
#undef VKSTARK_CHECK_KERNEL
}

// Shared arrays sized by specialization constants (the workgroup size, and expressions of it)
// evaluate under the specialization; capabilities are read.
TEST(SpirvNeeds, SharedMemoryFollowsTheSpecialization) {
  const std::vector<uint32_t> words = compile_glsl(
      "#version 460\n"
      "#extension GL_KHR_shader_subgroup_shuffle : enable\n"
      "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : enable\n"
      "layout(local_size_x_id = 0) in;\n"
      "layout(constant_id = 1) const uint SG = 32;\n"
      "const uint TWICE = gl_WorkGroupSize.x * 2u + (SG >> 2u);\n"
      "shared uvec4 a_[gl_WorkGroupSize.x];\n"
      "shared uint b_[TWICE];\n"
      "shared uint64_t c_[3];\n"
      "layout(set = 0, binding = 0) buffer A { uint x_[]; };\n"
      "layout(push_constant) uniform P { uint k; uint j; } pc;\n"
      "void main() { a_[gl_LocalInvocationID.x] = uvec4(pc.k); b_[gl_LocalInvocationID.x] = pc.j;\n"
      "  c_[0] = uint64_t(pc.k); barrier();\n"
      "  x_[gl_LocalInvocationID.x] = subgroupShuffle(a_[gl_LocalInvocationID.x].x + b_[gl_LocalInvocationID.x], 0u) + "
      "uint(c_[0]); }\n",
      "spirv_needs_test");
  const std::pair<uint32_t, uint32_t> at64[] = {{0, 64}, {1, 16}}, at256[] = {{0, 256}};
  const SpirvNeeds a = spirv_needs(words, at64), b = spirv_needs(words, at256);
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.shared_bytes, 64 * 16u + (128 + 4) * 4u + 24u);
  EXPECT_EQ(b.shared_bytes, 256 * 16u + (512 + 8) * 4u + 24u);  // SpecId 1 keeps its default, 32
  EXPECT_EQ(a.storage_buffers, 1u);
  EXPECT_EQ(a.push_constant_bytes, 8u);
  EXPECT_TRUE(a.int64);
  EXPECT_TRUE(a.subgroup_shuffle);
  EXPECT_FALSE(a.int16);
}

TEST(SpirvNeeds, NotSpirvIsAnError) {
  const uint32_t words[] = {1, 2, 3, 4, 5, 6};
  EXPECT_NE(spirv_needs(words).error, "");
}

// A kernel states the grid its views and scalars imply; the exceptions are deliberate.
TEST(KernelRegistry, EveryKernelButTheGrindSearchStatesItsGrid) {
  std::set<std::string_view> without_grid;
  auto check = [&]<class K>() {
    if constexpr (!requires(const typename K::Args& a) { K::grid(a); }) without_grid.insert(K::name);
  };
#define VKSTARK_CHECK_KERNEL(K) check.template operator()<K>();
  VKSTARK_KERNELS(VKSTARK_CHECK_KERNEL)
#undef VKSTARK_CHECK_KERNEL
  // The number of searching invocations is a free parallelism choice (kernels/transcript.hpp).
  EXPECT_EQ(without_grid, std::set<std::string_view>{TranscriptGrindSearch::name});
}
