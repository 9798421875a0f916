#include "executors/vulkan/vulkan_executor.hpp"

#include <fmt/format.h>

#include "executors/vulkan/context.hpp"
#include "executors/vulkan/persistents.hpp"
#include "executors/vulkan/pipelines.hpp"
#include "executors/vulkan/prepared_plan.hpp"
#include "runtime/error.hpp"

namespace vkstark {

namespace {

class VulkanExecutorImpl final : public VulkanExecutor {
 public:
  explicit VulkanExecutorImpl(const VulkanOptions& options)
      : ctx_(std::make_unique<vulkan::Context>(options)),
        pipelines_(std::make_unique<vulkan::Pipelines>(*ctx_)),
        persistents_(std::make_unique<vulkan::Persistents>(*ctx_)) {
    ctx_->messages.throw_if_new(0, "creating the Vulkan executor");
  }
  ~VulkanExecutorImpl() override {
    if (!vulkan::exit_guard_ran()) ctx_->fn.vkDeviceWaitIdle(ctx_->device);
    persistents_.reset();
    pipelines_.reset();  // saves the pipeline cache
  }
  VulkanExecutorImpl(const VulkanExecutorImpl&) = delete;
  VulkanExecutorImpl& operator=(const VulkanExecutorImpl&) = delete;

  std::string_view name() const override { return "vulkan"; }
  std::string device_name() const override { return ctx_->device_name(); }

  ExecutorLimits limits() const override {
    ExecutorLimits l;
    l.max_workgroup_size = ctx_->workgroup_size(0);
    l.subgroup_size = ctx_->subgroup_size;
    l.max_buffer_bytes = ctx_->max_allocation_bytes;
    l.max_binding_bytes = ctx_->limits().maxStorageBufferRange;
    l.unified_memory = ctx_->unified;
    l.slow_shader_compiler = ctx_->properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    return l;
  }

  std::unique_ptr<PreparedPlan> do_prepare(std::shared_ptr<const Plan> plan) override {
    size_t mark = ctx_->messages.size();
    // Plans take the queues in turn: plans in flight together (start()) overlap where there are several.
    VkQueue queue = ctx_->queues[next_queue_++ % ctx_->queues.size()];
    auto prepared =
        std::make_unique<vulkan::VulkanPreparedPlan>(std::move(plan), *ctx_, *pipelines_, *persistents_, queue);
    ctx_->messages.throw_if_new(mark, "prepare");
    return prepared;
  }

  std::vector<std::string> validation_messages() const override { return ctx_->messages.all(); }
  bool validation_enabled() const override { return ctx_->validation; }

 private:
  std::unique_ptr<vulkan::Context> ctx_;  // declared first: destroyed last
  std::unique_ptr<vulkan::Pipelines> pipelines_;
  std::unique_ptr<vulkan::Persistents> persistents_;
  size_t next_queue_ = 0;  // the queue the next prepared plan takes
};

}  // namespace

std::unique_ptr<Executor> make_vulkan_executor(const VulkanOptions& options) {
  return std::make_unique<VulkanExecutorImpl>(options);
}

std::vector<std::string> list_vulkan_devices() {
  using namespace vulkan;
  VkFunctions fn;
  try {
    fn.load_global();
  } catch (const DeviceError&) {
    return {};
  }
  auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.apiVersion = VK_API_VERSION_1_2;
  auto info = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (fn.vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) return {};
  std::vector<std::string> names;
  try {
    fn.load_instance(instance, false);
    for (const PhysicalDeviceInfo& d : describe_devices(fn, instance)) names.emplace_back(d.properties.deviceName);
  } catch (const DeviceError&) {
  }
  if (fn.vkDestroyInstance) fn.vkDestroyInstance(instance, nullptr);
  return names;
}

}  // namespace vkstark
