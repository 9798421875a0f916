// Device profiles (executors/vulkan/device_profile.hpp): every profile well formed and named by its
// driver source; under each, the Vulkan executor's limits and paths are the profile's device's (what
// the profile lowers, it lowers; unified memory and the transfer queue as that device has them),
// kernels run, and what the profile's device lacks is refused at once with a list naming the limit,
// the value and the kernel: vulkan-minimum as a whole, and a kernel whose shared memory is beyond the
// profile's. The subgroup paths are rerouted by rule (wave64 and varying sizes take the shared-memory
// paths). Runs under validation (lavapipe in CI).
#include "executors/vulkan/device_profile.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <bit>
#include <set>
#include <string>
#include <vector>

#include "executors/executors.hpp"
#include "executors/vulkan/vulkan_executor.hpp"
#include "kernels/glsl/compiler.hpp"
#include "runtime/error.hpp"
#include "runtime/graph.hpp"

using namespace vkstark;
using vkstark::vulkan::DeviceProfile;

namespace {

// The profiles a prover runs under (vulkan-minimum is refused).
std::vector<const DeviceProfile*> runnable_profiles() {
  std::vector<const DeviceProfile*> out;
  for (const DeviceProfile& p : vulkan::device_profiles())
    if (p.name != "vulkan-minimum") out.push_back(&p);
  return out;
}

std::unique_ptr<Executor> executor_under(std::string_view profile) {
  VulkanOptions options;
  options.device_profile = std::string(profile);
  return make_vulkan_executor(options);
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// out[i] = a kernel's specialization as the executor gave it: [0] VKS_SUBGROUP_SHUFFLE, [1]
// VKS_SUBGROUP_SIZE, [2] the workgroup size; and `shared_words` words of shared memory.
struct ProbeArgs {
  Out<uint32_t> out;
};

std::shared_ptr<const KernelInfo> probe_kernel(std::string name, uint32_t shared_words) {
  std::string body = "shared uint big_[" + std::to_string(shared_words) + "];\n" + R"glsl(
void main() {
  big_[gl_LocalInvocationID.x] = gl_LocalInvocationID.x;
  barrier();
  if (gl_LocalInvocationID.x == 0u) {
    out_[pc.out_off + 0u] = VKS_SUBGROUP_SHUFFLE;
    out_[pc.out_off + 1u] = VKS_SUBGROUP_SIZE;
    out_[pc.out_off + 2u] = gl_WorkGroupSize.x + big_[1] - 1u;
  }
}
)glsl";
  return make_glsl_kernel({.name = std::move(name),
                           .abi = kernel_abi<ProbeArgs>(),
                           .body = std::move(body),
                           .workgroup_size = 64,
                           .cpu = [](const CpuContext&) {},
                           .grid = [](const RuntimeArgs&) { return Grid{64}; },
                           .check = [](const RuntimeArgs&) { return std::string(); }});
}

// Runs the probe on `exec` and returns its three words.
std::vector<uint32_t> run_probe(Executor& exec, const std::shared_ptr<const KernelInfo>& kernel) {
  Graph g;
  auto out = g.output<uint32_t>("out", 3);
  g.dispatch("probe", kernel, DynamicArgs().view(out.all()), Grid{64});
  auto prepared = exec.prepare(compile(std::move(g)));
  Trace trace;
  prepared->run(trace);
  return prepared->download(out);
}

class DeviceProfiles : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("VKSTARK_DEVICE_PROFILE"); }  // the options below choose
};

}  // namespace

TEST(DeviceProfile, EveryProfileIsWellFormedAndNamesItsSource) {
  std::set<std::string_view> names;
  ASSERT_GE(vulkan::device_profiles().size(), 6u);
  for (const DeviceProfile& p : vulkan::device_profiles()) {
    SCOPED_TRACE(std::string(p.name));
    EXPECT_TRUE(names.insert(p.name).second) << "two profiles named " << p.name;
    EXPECT_FALSE(p.description.empty());
    EXPECT_FALSE(p.source.empty());
    EXPECT_TRUE(std::has_single_bit(p.min_subgroup_size));
    EXPECT_TRUE(std::has_single_bit(p.max_subgroup_size));
    EXPECT_LE(p.min_subgroup_size, p.max_subgroup_size);
    EXPECT_LE(p.max_subgroup_size, 128u);
    // The Vulkan 1.2 guarantees are the floor of every profile (vulkan-minimum is them).
    EXPECT_GE(p.max_compute_shared_memory_size, 16384u);
    EXPECT_GE(p.max_compute_workgroup_invocations, 128u);
    EXPECT_GE(p.max_compute_workgroup_size[0], 128u);
    for (uint32_t c : p.max_compute_workgroup_count) EXPECT_GE(c, 65535u);
    EXPECT_GE(p.max_push_constants_size, 128u);
    EXPECT_GE(p.max_per_stage_descriptor_storage_buffers, 4u);
    EXPECT_GE(p.max_storage_buffer_range, uint32_t(1) << 27);
    EXPECT_GE(p.max_memory_allocation_size, uint64_t(1) << 30);
    EXPECT_TRUE(p.timeline_semaphore);  // Vulkan 1.2 requires it
    EXPECT_EQ(&vulkan::device_profile(p.name), &p);
  }
  for (std::string_view wanted : {"apple-m", "amd-rdna3", "amd-cdna", "intel-arc", "intel-xe-igpu", "vulkan-minimum"})
    EXPECT_TRUE(names.count(wanted)) << wanted;
  const DeviceProfile& minimum = vulkan::device_profile("vulkan-minimum");
  EXPECT_EQ(minimum.max_push_descriptors, 0u);
  EXPECT_EQ(minimum.max_compute_shared_memory_size, 16384u);
  EXPECT_EQ(minimum.max_push_constants_size, 128u);
  EXPECT_EQ(vulkan::device_profile("amd-cdna").min_subgroup_size, 64u);
  EXPECT_TRUE(vulkan::device_profile("apple-m").portability_subset);
}

TEST(DeviceProfile, AnUnknownNameIsAnInputErrorListingTheProfiles) {
  try {
    (void)vulkan::device_profile("amd-gcn");
    FAIL() << "an unknown profile was accepted";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "amd-gcn")) << e.what();
    EXPECT_TRUE(contains(e.what(), "apple-m")) << e.what();
    EXPECT_TRUE(contains(e.what(), "vulkan-minimum")) << e.what();
  }
  setenv("VKSTARK_DEVICE_PROFILE", "no-such-gpu", 1);
  EXPECT_THROW((void)make_vulkan_executor(), InputError);
  setenv("VKSTARK_DEVICE_PROFILE", "none", 1);
  EXPECT_EQ(vulkan::chosen_device_profile("apple-m"), nullptr);  // the environment wins
  unsetenv("VKSTARK_DEVICE_PROFILE");
  EXPECT_EQ(vulkan::chosen_device_profile(""), nullptr);
  EXPECT_EQ(vulkan::chosen_device_profile("apple-m"), &vulkan::device_profile("apple-m"));
}

TEST_F(DeviceProfiles, UnderEachProfileTheLimitsAreItsDevicesAndKernelsRun) {
  const auto plain = executor_under("");
  const ExecutorLimits own = plain->limits();
  for (const DeviceProfile* p : runnable_profiles()) {
    SCOPED_TRACE(std::string(p->name));
    auto exec = executor_under(p->name);
    const ExecutorLimits l = exec->limits();
    EXPECT_LE(l.max_buffer_bytes, p->max_memory_allocation_size);
    EXPECT_LE(l.max_buffer_bytes, own.max_buffer_bytes);  // lowered only
    EXPECT_LE(l.max_binding_bytes, p->max_storage_buffer_range);
    EXPECT_LE(l.max_workgroup_size, p->max_compute_workgroup_invocations);
    // A discrete device's profile stages its uploads; an integrated one's is unified where the device
    // has the memory for it (lavapipe has).
    if (!p->unified_memory) EXPECT_FALSE(l.unified_memory);
    if (p->unified_memory && own.unified_memory) EXPECT_TRUE(l.unified_memory);
    // Kernels run under it: the probe, with the subgroup path off where the profile's device varies
    // its subgroup size or runs 64 wide (every profile here), on whatever the device's size is.
    const std::vector<uint32_t> got = run_probe(*exec, probe_kernel("profile_probe", 64));
    const bool fixed_tested =
        p->min_subgroup_size == p->max_subgroup_size && (p->min_subgroup_size == 16 || p->min_subgroup_size == 32);
    if (!fixed_tested) EXPECT_EQ(got[0], 0u) << "the subgroup path under " << p->name;
    EXPECT_EQ(got[1], l.subgroup_size);
    EXPECT_EQ(got[2], 64u);
    auto* v = dynamic_cast<VulkanExecutor*>(exec.get());
    ASSERT_NE(v, nullptr);
    EXPECT_TRUE(v->validation_messages().empty());
  }
}

// Without a profile the subgroup path is on exactly where the size is 16 or 32 (lavapipe at
// LP_NATIVE_VECTOR_WIDTH=512, NVIDIA); at 4, 8 (lavapipe's default) and 64 the kernels take their
// shared-memory paths.
TEST_F(DeviceProfiles, TheSubgroupPathIsChosenByRule) {
  auto exec = executor_under("");
  const uint32_t size = exec->limits().subgroup_size;
  const std::vector<uint32_t> got = run_probe(*exec, probe_kernel("profile_probe", 64));
  EXPECT_EQ(got[1], size);
  // (lavapipe's and NVIDIA's subgroup sizes are fixed: min = max.)
  EXPECT_EQ(got[0], size == 16 || size == 32 ? 1u : 0u) << "subgroups of " << size;
  // wave64 (amd-cdna) on any device: the shared-memory paths.
  auto cdna = executor_under("amd-cdna");
  EXPECT_EQ(run_probe(*cdna, probe_kernel("profile_probe", 64))[0], 0u);
}

TEST_F(DeviceProfiles, VulkanMinimumIsRefusedAtOnceWithWhatItLacks) {
  try {
    (void)executor_under("vulkan-minimum");
    FAIL() << "an executor was made under vulkan-minimum";
  } catch (const DeviceError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "under device profile vulkan-minimum cannot run vkstark: it lacks")) << what;
    EXPECT_TRUE(contains(what, "VK_KHR_push_descriptor (maxPushDescriptors 0)")) << what;
    EXPECT_TRUE(contains(what,
                         "maxComputeWorkGroupInvocations / maxComputeWorkGroupSize[0] 128: kernels run fixed "
                         "workgroups of up to 256 invocations"))
        << what;
    EXPECT_TRUE(contains(what, "maxComputeSharedMemorySize 16384: kernel zerocheck_coset_extend declares 17408 bytes"))
        << what;
    EXPECT_TRUE(contains(what, "maxPerStageDescriptorStorageBuffers 4, maxDescriptorSetStorageBuffers ")) << what;
    EXPECT_TRUE(contains(what, "): kernel scalar_program binds 12")) << what;
    EXPECT_TRUE(contains(what, "basic and shuffle subgroup operations")) << what;
  }
  // The same through the environment, and `auto` does not fall back to the CPU under a profile.
  setenv("VKSTARK_DEVICE_PROFILE", "vulkan-minimum", 1);
  EXPECT_THROW((void)make_vulkan_executor(), DeviceError);
  EXPECT_THROW((void)make_executor("auto"), DeviceError);
  unsetenv("VKSTARK_DEVICE_PROFILE");
}

// A kernel that assumes more shared memory than the profile's device has is refused when its plan
// is prepared, naming the kernel, the limit and the bytes; one within it runs.
TEST_F(DeviceProfiles, AKernelBeyondTheProfilesSharedMemoryIsRefusedNotRunWrong) {
  auto apple = executor_under("apple-m");  // 32 KiB of shared memory
  EXPECT_EQ(run_probe(*apple, probe_kernel("profile_probe_24k", 6144))[2], 64u);
  try {
    (void)run_probe(*apple, probe_kernel("profile_probe_40k", 10240));
    FAIL() << "a kernel with 40 KiB of shared memory ran under apple-m";
  } catch (const DeviceError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "kernel profile_probe_40k cannot run")) << what;
    EXPECT_TRUE(contains(what, "under device profile apple-m")) << what;
    EXPECT_TRUE(contains(what, "maxComputeSharedMemorySize 32768: kernel profile_probe_40k declares 40960 bytes"))
        << what;
  }
}
