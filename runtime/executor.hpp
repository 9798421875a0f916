// Executor: runs any Plan (architecture.md, "Runtime concepts"). Two implementations:
// executors/cpu (TBB) and executors/vulkan. Both reproduce the plan's counts in the Trace and give
// bit-identical results.
//
//   auto exec = make_executor("auto");
//   auto run = exec->prepare(compile(std::move(graph)));  // allocates memory, builds pipelines
//   run->upload(x, std::span<const Fp>(data));
//   run->run(trace);                         // one submission and one wait per plan submission
//   std::vector<Fp> y = run->download(out);
//
// Lifetimes: a PreparedPlan shares its plan (std::shared_ptr<const Plan>: prepare a plan many
// times without copying it; prepare(Plan&&) moves it in, prepare(const Plan&) copies it once) and
// must not outlive its Executor.
// Thread-safety: an Executor and its PreparedPlans are used from one thread at a time.
#pragma once

#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/host_memory.hpp"
#include "runtime/plan.hpp"
#include "runtime/trace.hpp"

namespace vkstark {

// An executor's limits. The memory limits can be lowered for testing (never raised) through the
// environment, read once per process: VKSTARK_MAX_ALLOCATION_BYTES (max_buffer_bytes),
// VKSTARK_MAX_BINDING_BYTES (max_binding_bytes), VKSTARK_DEVICE_MEMORY_BYTES (device_memory_bytes);
// executors enforce the lowered values as they enforce the device's.
struct ExecutorLimits {
  uint32_t max_workgroup_size = 1;  // invocations per workgroup used by default
  uint32_t subgroup_size = 1;
  uint64_t max_buffer_bytes = 0;   // largest single allocation
  uint64_t max_binding_bytes = 0;  // largest range one binding can address
  bool unified_memory = true;      // executor memory is host memory (no staging copies)
  // The memory plans are given on this executor: the largest device-local heap (Vulkan), the
  // machine's physical memory (CPU). Schedulers keep the plans prepared at once within it.
  uint64_t device_memory_bytes = 0;
  // Compiling a large kernel costs much more than running it a while (a CPU implementation of
  // Vulkan): callers may prefer fewer, generic kernels to generated ones.
  bool slow_shader_compiler = false;
  // A run-time kernel costs the same to prepare and runs as well whatever its size (the CPU
  // executor, whose constraint kernels are instruction streams): callers may give one kernel work
  // that a GPU needs split into chunks (compile time, registers).
  bool unbounded_kernels = false;
  // A shader invocation's loop iterations in all before the implementation ends its loops, silently
  // (0: no such limit). llvmpipe's is 65535: long sequential loops (a transcript observing
  // thousands of words) must be split into dispatches there.
  uint64_t max_shader_loop_iterations = 0;
  // The executor runs kernels as SPIR-V (Vulkan). False: it runs their CPU bodies only (the CPU
  // executor), so kernels made at run time for it need no GLSL or SPIR-V (RuntimeKernelDesc::cpu_only).
  bool runs_spirv = true;
};

// The limits above lowered by the environment variables (InputError naming a variable whose value
// is not a whole number of bytes, or is below 4096).
[[nodiscard]] ExecutorLimits apply_limit_overrides(ExecutorLimits limits);
// The limits a plan for this executor is compiled with (PlanOptions::limits).
[[nodiscard]] MemoryLimits memory_limits(const ExecutorLimits& limits);

// Whether a plan fits an executor, before anything is allocated: its arena chunks and dedicated
// buffers within the largest allocation, its views within the largest binding, and all of its
// memory (plan_device_bytes) within device_memory_bytes. DeviceError ("out of device memory: ...")
// with the bytes needed, where they go and the limit, else nothing.
void check_plan_fits(const Plan& plan, const ExecutorLimits& limits, std::string_view device);

class PreparedPlan {
 public:
  virtual ~PreparedPlan() = default;

  const Plan& plan() const { return plan_; }

  // Contents of an Input or Persistent buffer for the next run. InputError on a wrong size or
  // lifetime, or a handle of another graph than the plan's.
  template <DeviceElement T>
  void upload(const Buffer<T>& b, std::span<const T> data) {
    check_transfer(b.graph(), b.id(), type_tag<T>(), data.size(), true);
    upload_bytes(b.id(), std::as_bytes(data));
  }
  template <DeviceElement T>
  void upload(const Buffer<T>& b, const std::vector<T>& data) {
    upload(b, std::span<const T>(data));
  }
  // Elements [offset, offset + data.size()) of a writable Input (Graph::writable_input). InputError
  // for a range outside the buffer or another kind of buffer.
  template <DeviceElement T>
  void upload(const Buffer<T>& b, uint64_t offset, std::span<const T> data) {
    check_range_transfer(b.graph(), b.id(), type_tag<T>(), offset, data.size());
    upload_bytes(b.id(), offset * sizeof(T), std::as_bytes(data));
  }
  // Contents of an Output or Persistent buffer after the last run.
  template <DeviceElement T>
  [[nodiscard]] std::vector<T> download(const Buffer<T>& b) const {
    check_transfer(b.graph(), b.id(), type_tag<T>(), b.count(), false);
    std::vector<T> out(b.count());
    download_bytes(b.id(), std::as_writable_bytes(std::span<T>(out)));
    return out;
  }

  // Runs the plan once, adding what happened to `trace`. Throws ExecutionError (a kernel body or
  // host task failed: names the task), DeviceError, or InputError (an Input was never uploaded).
  virtual void run(Trace& trace) = 0;

  // A run in two halves, so that one thread can keep several plans of one executor in flight:
  // start() returns once the work is handed to the device where the executor can (the Vulkan
  // executor: when the plan's last segment is a submission, it is submitted, not waited for;
  // plans prepared on a device with several queues are spread over them), wait() completes the
  // run (the sync, counters, spans). Until wait(), the plan takes no other call (Vulkan: GraphError) and
  // `trace` must stay alive. The CPU executor runs everything in start(). run() = start() + wait().
  virtual void start(Trace& trace) { run(trace); }
  virtual void wait() {}

 protected:
  explicit PreparedPlan(std::shared_ptr<const Plan> plan) : shared_plan_(std::move(plan)), plan_(*shared_plan_) {}
  void upload_bytes(BufferId id, std::span<const std::byte> bytes) { upload_bytes(id, 0, bytes); }
  // Bytes [byte_offset, byte_offset + bytes.size()) of the buffer (checked by the caller).
  virtual void upload_bytes(BufferId id, uint64_t byte_offset, std::span<const std::byte> bytes) = 0;
  virtual void download_bytes(BufferId id, std::span<std::byte> bytes) const = 0;
  void check_transfer(GraphId graph, BufferId id, TypeTag type, uint64_t count, bool up, bool range = false) const;
  void check_range_transfer(GraphId graph, BufferId id, TypeTag type, uint64_t offset, uint64_t count) const;

 private:
  std::shared_ptr<const Plan> shared_plan_;  // never null; declared before plan_

 protected:
  const Plan& plan_;  // *shared_plan_
};

// Executors keep Persistent buffers by name across plans. GraphError if `desc` declares the
// Persistent buffer that exists as `count` x `type` with another element type or count (the same
// message on every executor).
void check_persistent_declaration(const BufferDesc& desc, TypeTag type, uint64_t count);

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string_view name() const = 0;  // "cpu" | "vulkan"
  virtual std::string device_name() const = 0;
  virtual ExecutorLimits limits() const = 0;

  // Memory and pipelines for `plan`, which the PreparedPlan shares. InputError if it is null;
  // DeviceError, before anything is allocated, when it does not fit (check_plan_fits).
  [[nodiscard]] std::unique_ptr<PreparedPlan> prepare(std::shared_ptr<const Plan> plan);
  [[nodiscard]] std::unique_ptr<PreparedPlan> prepare(Plan&& plan) {
    return prepare(std::make_shared<const Plan>(std::move(plan)));
  }
  // Copies the plan once (for callers that keep using it; prefer one of the above).
  [[nodiscard]] std::unique_ptr<PreparedPlan> prepare(const Plan& plan) {
    return prepare(std::make_shared<const Plan>(plan));
  }

  // Compiles ahead what prepare() of a plan dispatching `kernels` would compile (Vulkan: their
  // pipelines, as dispatched with grids wider than a subgroup, kept and added to the pipeline
  // cache), so that such a prepare() finds them made. Thread-safe with prepare() and runs on other
  // threads: a prover compiles in the background while it proves. Returns early, leaving the rest,
  // when the TBB task group it runs in is cancelled. Executors that compile nothing (the CPU's) do
  // nothing. DeviceError as prepare().
  virtual void compile_kernels(std::span<const KernelInfo* const> kernels) { (void)kernels; }
  // Whether prepare() of a plan dispatching `kernels` would compile none of them: made already, or
  // held by the caches (Vulkan: then made now from the pipeline cache; false where the device
  // cannot make a pipeline from the cache alone). Thread-safe as compile_kernels.
  [[nodiscard]] virtual bool kernels_ready(std::span<const KernelInfo* const> kernels) {
    (void)kernels;
    return true;
  }

  // What the executor could still allocate now, as its driver reports it, for the check before a
  // prepare (nullopt: not known; then only the device's size is checked). Vulkan with
  // VK_EXT_memory_budget: per heap, the driver's budget for this process less what the process holds
  // (other prepared plans, persistent buffers, host memory for uploads), taken by the heap's memory
  // of the plan (device_bytes) and its staging (host_bytes: host-visible memory the uploads and
  // downloads go through; 0 with unified memory).
  struct MemoryAvailable {
    uint64_t device_bytes = ~uint64_t(0);
    uint64_t host_bytes = ~uint64_t(0);
  };
  [[nodiscard]] virtual std::optional<MemoryAvailable> memory_available() const { return std::nullopt; }
  // The host-visible staging memory a plan takes when prepared on this executor (its Inputs' and
  // Outputs' staging copies; 0 where there is none).
  [[nodiscard]] virtual uint64_t staging_bytes(const Plan& plan) const {
    (void)plan;
    return 0;
  }

  // Host memory that uploads to this executor's plans read in place (runtime/host_memory.hpp): for
  // data the host makes to upload, e.g. a batch's traces, kept and reused from job to job. It must
  // not outlive the executor. Thread-safe. DeviceError when there is no memory for it.
  [[nodiscard]] virtual std::shared_ptr<HostMemory> host_memory(uint64_t bytes) { return anonymous_host_memory(bytes); }

 protected:
  // `plan` is not null.
  virtual std::unique_ptr<PreparedPlan> do_prepare(std::shared_ptr<const Plan> plan) = 0;
};

}  // namespace vkstark
