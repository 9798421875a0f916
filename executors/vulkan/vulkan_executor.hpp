// The Vulkan compute executor (architecture.md, "Runtime concepts"): runs any Plan on one Vulkan
// device with one command buffer and one fence wait per plan submission.
//
//   auto exec = make_vulkan_executor({.validate = true});
//   auto run = exec->prepare(plan);   // memory, pipelines, command buffers
//   run->upload(x, data); run->run(trace); auto y = run->download(out);
//
// Lifetime: the executor owns the device, the pipelines and every Persistent buffer (keyed by name,
// so they survive across prepare()/run() of different plans); its PreparedPlans must not outlive it.
// Thread-safety: an executor and its prepared plans are used from one thread at a time
// (thread-compatible); validation_messages() may be called from any thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/executor.hpp"

namespace vkstark {

struct VulkanOptions {
  // "" = the best device (discrete > integrated > virtual > CPU), or VKSTARK_VULKAN_DEVICE when set;
  // else a device index or a case-insensitive substring of its name. A list ("0,1") or "all" (the
  // forms make_executors takes) gives the best device among those it names.
  std::string device;
  // Khronos validation with synchronization validation; also on when VKSTARK_VALIDATE=1. Any
  // warning or error it reports makes prepare()/run()/download() throw DeviceError.
  bool validate = false;
  // make_executor("auto") passes false: lavapipe and other CPU implementations are not GPUs.
  bool allow_cpu_device = true;
  // Testing: use the discrete-GPU memory path (device-local buffers, staging copies) even where
  // the device has unified memory, so that path runs under validation on lavapipe.
  bool force_staging = false;
  // Where a run's uploads go (staging path): "auto" (the default), a queue of the device's family for
  // transfers only (its copy engines) where it has one, in a submission of its own that the run
  // waits for, so that uploads overlap the device's work on other proofs; else with the run.
  // "off": with the run always. "same": a submission of its own on a queue of the compute family
  // (the same path where no device has a transfer family: tests). VKSTARK_TRANSFER_QUEUE overrides.
  std::string transfer_queue = "auto";
  // Queues of the compute family that prepared plans take in turn (up to 4, and the device's count):
  // plans in flight together on different queues run concurrently on the device; on one queue, one
  // after the other, each plan's uploads overlapping the one before it on the transfer queue.
  // One is the faster for batches of keccakf proofs on an H100 (docs/decisions.md, issue 27).
  // VKSTARK_COMPUTE_QUEUES overrides.
  uint32_t compute_queues = 1;
  // A device profile (executors/vulkan/device_profile.hpp: apple-m, amd-rdna3, amd-cdna, intel-arc,
  // intel-xe-igpu, vulkan-minimum): every limit and feature the executor reads is capped to that
  // device's values, so that its paths run here. "" or "none": the device as it is.
  // VKSTARK_DEVICE_PROFILE overrides.
  std::string device_profile;
};

// The Vulkan executor's interface beyond Executor (dynamic_cast an Executor to reach it).
class VulkanExecutor : public Executor {
 public:
  // Warnings and errors reported by the validation layer so far, oldest first (thread-safe).
  virtual std::vector<std::string> validation_messages() const = 0;
  virtual bool validation_enabled() const = 0;
};

// Throws DeviceError naming why no executor could be made: no loader, no device, no device matching
// the override, a device without VK_KHR_push_descriptor or a compute queue, no validation layer...
[[nodiscard]] std::unique_ptr<Executor> make_vulkan_executor(const VulkanOptions& options = {});

// The physical devices the loader sees, in index order (empty when there is no loader).
struct VulkanDeviceSummary {
  uint32_t index = 0;
  std::string name;
  bool cpu = false;       // a CPU implementation of Vulkan (lavapipe)
  std::string problem;    // why the executor cannot use it; empty if it can
  std::string described;  // "0: NVIDIA H100 (discrete GPU, Vulkan 1.3)" and the problem, for messages
};
std::vector<VulkanDeviceSummary> describe_vulkan_devices();
// The indices of the usable devices `wanted` names ("all", or a comma-separated list of indices
// and case-insensitive name substrings), CPU implementations only with allow_cpu_device. DeviceError
// when an entry names no device, a named device is unusable, or none is left; InputError for an
// empty entry.
std::vector<uint32_t> select_vulkan_devices(std::string_view wanted, bool allow_cpu_device);
// Their names, for messages and --list-devices.
std::vector<std::string> list_vulkan_devices();

}  // namespace vkstark
