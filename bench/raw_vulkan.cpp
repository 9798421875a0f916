#include "bench/raw_vulkan.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>

#include "bench/bench_util.hpp"
#include "bench/raw_copy.h"  // generated from bench/raw_copy.comp: raw_copy_spv
#include "runtime/error.hpp"

namespace vkstark::bench {

using vulkan::vk_check;
using vulkan::vk_struct;

namespace {

constexpr uint32_t kSeed = 7;               // raw_copy.comp writes it to element 0 of the chain
constexpr uint32_t kCleared = 0xFFFFFFFFu;  // the check clears to it first, so a skipped dispatch shows

bool validation_asked() {
  const char* v = std::getenv("VKSTARK_VALIDATE");
  return v && *v && std::string_view(v) != "0";
}

void barrier(const vulkan::VkFunctions& fn, VkCommandBuffer cb, VkPipelineStageFlags src_stage,
             VkAccessFlags src_access, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, src_access, dst_access};
  fn.vkCmdPipelineBarrier(cb, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

constexpr VkPipelineStageFlags kCompute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
constexpr VkPipelineStageFlags kTransfer = VK_PIPELINE_STAGE_TRANSFER_BIT;

}  // namespace

RawVulkan::RawVulkan(const std::string& device_name, uint32_t k) : k_(k) {
  if (k == 0) throw InputError("raw Vulkan baseline: K must be at least 1");
  try {
    create_instance(validation_asked());
    create_device(device_name);
    create_buffer(
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, x_, x_memory_);
    create_buffer(VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, staging_,
                  staging_memory_);
    void* mapped = nullptr;
    vk_check(fn_.vkMapMemory(device_, staging_memory_, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory");
    staged_ = static_cast<const uint32_t*>(mapped);
    create_pipeline();
    create_commands();
    record_clear_and_readback();
    throw_if_messages("raw Vulkan baseline setup");
  } catch (...) {
    destroy();
    throw;
  }
}

RawVulkan::~RawVulkan() { destroy(); }

void RawVulkan::destroy() noexcept {
  if (device_ && fn_.vkDeviceWaitIdle) {  // null if load_device failed; vkDestroyDevice loads before it
    fn_.vkDeviceWaitIdle(device_);
    if (fence_) fn_.vkDestroyFence(device_, fence_, nullptr);
    if (command_pool_) fn_.vkDestroyCommandPool(device_, command_pool_, nullptr);
    if (descriptor_pool_) fn_.vkDestroyDescriptorPool(device_, descriptor_pool_, nullptr);
    if (pipeline_) fn_.vkDestroyPipeline(device_, pipeline_, nullptr);
    if (layout_) fn_.vkDestroyPipelineLayout(device_, layout_, nullptr);
    if (set_layout_) fn_.vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
    for (VkBuffer b : {x_, staging_})
      if (b) fn_.vkDestroyBuffer(device_, b, nullptr);
    for (VkDeviceMemory m : {x_memory_, staging_memory_})
      if (m) fn_.vkFreeMemory(device_, m, nullptr);
    fn_.vkDestroyDevice(device_, nullptr);
    device_ = VK_NULL_HANDLE;
  }
  if (messenger_) fn_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  messenger_ = VK_NULL_HANDLE;
  if (instance_ && fn_.vkDestroyInstance) fn_.vkDestroyInstance(instance_, nullptr);
  instance_ = VK_NULL_HANDLE;
}

void RawVulkan::create_instance(bool validate) {
  fn_.load_global();
  auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "runtime_bench raw baseline";
  app.apiVersion = VK_API_VERSION_1_2;
  // The same checks the executor runs under VKSTARK_VALIDATE=1, so both sides of the ratio are
  // held to the same synchronization rules.
  const char* layer = "VK_LAYER_KHRONOS_validation";
  const char* extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
  VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  auto features = vk_struct<VkValidationFeaturesEXT>(VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT);
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = &sync;
  auto messenger =
      vk_struct<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
  messenger.pNext = &features;
  messenger.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger.pfnUserCallback = on_message;
  messenger.pUserData = &messages_;
  auto info = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.pNext = validate ? &messenger : nullptr;  // also catches messages of instance creation
  info.pApplicationInfo = &app;
  info.enabledLayerCount = validate ? 1 : 0;
  info.ppEnabledLayerNames = &layer;
  info.enabledExtensionCount = validate ? 2 : 0;
  info.ppEnabledExtensionNames = extensions;
  vk_check(fn_.vkCreateInstance(&info, nullptr, &instance_),
           validate ? "vkCreateInstance (raw baseline, with VK_LAYER_KHRONOS_validation)" : "vkCreateInstance");
  fn_.load_instance(instance_, validate);
  if (!validate) return;
  messenger.pNext = nullptr;  // the validation features belong to the instance only
  vk_check(fn_.vkCreateDebugUtilsMessengerEXT(instance_, &messenger, nullptr, &messenger_),
           "vkCreateDebugUtilsMessengerEXT");
}

void RawVulkan::create_device(const std::string& device_name) {
  uint32_t n = 0;
  vk_check(fn_.vkEnumeratePhysicalDevices(instance_, &n, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(n);
  vk_check(fn_.vkEnumeratePhysicalDevices(instance_, &n, devices.data()), "vkEnumeratePhysicalDevices");
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties props;
    fn_.vkGetPhysicalDeviceProperties(d, &props);
    if (device_name == props.deviceName) {  // the first of identical GPUs, as the executor's default
      physical_ = d;
      break;
    }
  }
  if (!physical_) throw DeviceError(fmt::format("raw Vulkan baseline: no device named '{}'", device_name));
  fn_.vkGetPhysicalDeviceQueueFamilyProperties(physical_, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  fn_.vkGetPhysicalDeviceQueueFamilyProperties(physical_, &n, families.data());
  while (queue_family_ < n && !(families[queue_family_].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++queue_family_;
  if (queue_family_ == n) throw DeviceError(fmt::format("raw Vulkan baseline: '{}' has no compute queue", device_name));

  float priority = 1.0f;
  auto queue = vk_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  queue.queueFamilyIndex = queue_family_;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  auto info = vk_struct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  // Unused here, but load_device() fills the executor's whole table, which has vkCmdPushDescriptorSetKHR;
  // the device has the extension, since the executor runs on it.
  const char* push_descriptor = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
  info.enabledExtensionCount = 1;
  info.ppEnabledExtensionNames = &push_descriptor;
  vk_check(fn_.vkCreateDevice(physical_, &info, nullptr, &device_), "vkCreateDevice");
  fn_.load_device(device_);
  fn_.vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
}

void RawVulkan::create_buffer(VkBufferUsageFlags usage, VkMemoryPropertyFlags want, VkBuffer& buffer,
                              VkDeviceMemory& memory) {
  auto info = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = uint64_t{k_} * sizeof(uint32_t);
  info.usage = usage;
  vk_check(fn_.vkCreateBuffer(device_, &info, nullptr, &buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  fn_.vkGetBufferMemoryRequirements(device_, buffer, &req);
  VkPhysicalDeviceMemoryProperties props;
  fn_.vkGetPhysicalDeviceMemoryProperties(physical_, &props);
  uint32_t type = 0;
  while (type < props.memoryTypeCount &&
         !((req.memoryTypeBits >> type & 1) && (props.memoryTypes[type].propertyFlags & want) == want))
    ++type;
  if (type == props.memoryTypeCount)
    throw DeviceError(fmt::format("raw Vulkan baseline: no memory type with flags {:#x} for a buffer", want));
  auto alloc = vk_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = type;
  vulkan::vk_check_alloc(fn_.vkAllocateMemory(device_, &alloc, nullptr, &memory), "raw baseline buffer", req.size);
  vk_check(fn_.vkBindBufferMemory(device_, buffer, memory, 0), "vkBindBufferMemory");
}

void RawVulkan::create_pipeline() {
  VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  auto set_info = vk_struct<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  set_info.bindingCount = 1;
  set_info.pBindings = &binding;
  vk_check(fn_.vkCreateDescriptorSetLayout(device_, &set_info, nullptr, &set_layout_), "vkCreateDescriptorSetLayout");
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 2 * sizeof(uint32_t)};
  auto layout_info = vk_struct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout_;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push;
  vk_check(fn_.vkCreatePipelineLayout(device_, &layout_info, nullptr, &layout_), "vkCreatePipelineLayout");

  auto module_info = vk_struct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  module_info.codeSize = sizeof(raw_copy_spv);
  module_info.pCode = raw_copy_spv;
  VkShaderModule module = VK_NULL_HANDLE;
  vk_check(fn_.vkCreateShaderModule(device_, &module_info, nullptr, &module), "vkCreateShaderModule");
  auto info = vk_struct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  info.stage = vk_struct<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.layout = layout_;
  VkResult created = fn_.vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline_);
  fn_.vkDestroyShaderModule(device_, module, nullptr);
  vk_check(created, "vkCreateComputePipelines");

  // One set for the whole buffer, written once: the dispatches differ only in push constants.
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
  auto pool_info = vk_struct<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &size;
  vk_check(fn_.vkCreateDescriptorPool(device_, &pool_info, nullptr, &descriptor_pool_), "vkCreateDescriptorPool");
  auto alloc = vk_struct<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
  alloc.descriptorPool = descriptor_pool_;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &set_layout_;
  vk_check(fn_.vkAllocateDescriptorSets(device_, &alloc, &set_), "vkAllocateDescriptorSets");
  VkDescriptorBufferInfo whole{x_, 0, VK_WHOLE_SIZE};
  auto write = vk_struct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
  write.dstSet = set_;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  write.pBufferInfo = &whole;
  fn_.vkUpdateDescriptorSets(device_, 1, &write, 0, nullptr);
}

void RawVulkan::create_commands() {
  auto pool_info = vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;  // shape_cb_ is recorded once per shape
  pool_info.queueFamilyIndex = queue_family_;
  vk_check(fn_.vkCreateCommandPool(device_, &pool_info, nullptr, &command_pool_), "vkCreateCommandPool");
  VkCommandBuffer cbs[3];
  auto alloc = vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  alloc.commandPool = command_pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 3;
  vk_check(fn_.vkAllocateCommandBuffers(device_, &alloc, cbs), "vkAllocateCommandBuffers");
  shape_cb_ = cbs[0];
  clear_cb_ = cbs[1];
  readback_cb_ = cbs[2];
  auto fence_info = vk_struct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  vk_check(fn_.vkCreateFence(device_, &fence_info, nullptr, &fence_), "vkCreateFence");
}

// The check brackets a shape's command buffer with these two: clear x (after any earlier
// dispatch), then copy it to the mapped staging buffer for the host.
void RawVulkan::record_clear_and_readback() {
  auto begin = vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  const VkDeviceSize bytes = uint64_t{k_} * sizeof(uint32_t);
  vk_check(fn_.vkBeginCommandBuffer(clear_cb_, &begin), "vkBeginCommandBuffer");
  barrier(fn_, clear_cb_, kCompute | kTransfer, VK_ACCESS_SHADER_WRITE_BIT, kTransfer, VK_ACCESS_TRANSFER_WRITE_BIT);
  fn_.vkCmdFillBuffer(clear_cb_, x_, 0, bytes, kCleared);
  barrier(fn_, clear_cb_, kTransfer, VK_ACCESS_TRANSFER_WRITE_BIT, kCompute,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  vk_check(fn_.vkEndCommandBuffer(clear_cb_), "vkEndCommandBuffer");

  vk_check(fn_.vkBeginCommandBuffer(readback_cb_, &begin), "vkBeginCommandBuffer");
  barrier(fn_, readback_cb_, kCompute | kTransfer, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, kTransfer,
          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  VkBufferCopy region{0, 0, bytes};
  fn_.vkCmdCopyBuffer(readback_cb_, x_, staging_, 1, &region);
  barrier(fn_, readback_cb_, kTransfer, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
          VK_ACCESS_HOST_READ_BIT);
  vk_check(fn_.vkEndCommandBuffer(readback_cb_), "vkEndCommandBuffer");
}

// The shape as a hand-written program records it: pipeline and set bound once, then per dispatch
// only push constants (and, in the chain, the one barrier the dependency needs).
double RawVulkan::record(RawShape shape) {
  auto start = std::chrono::steady_clock::now();
  auto begin = vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  vk_check(fn_.vkBeginCommandBuffer(shape_cb_, &begin), "vkBeginCommandBuffer");
  fn_.vkCmdBindPipeline(shape_cb_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  fn_.vkCmdBindDescriptorSets(shape_cb_, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set_, 0, nullptr);
  for (uint32_t i = 0; i < k_; ++i) {
    if (shape == RawShape::chain && i > 0)
      barrier(fn_, shape_cb_, kCompute, VK_ACCESS_SHADER_WRITE_BIT, kCompute,
              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    const uint32_t push[2] = {i, static_cast<uint32_t>(shape)};
    fn_.vkCmdPushConstants(shape_cb_, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    fn_.vkCmdDispatch(shape_cb_, 1, 1, 1);
  }
  vk_check(fn_.vkEndCommandBuffer(shape_cb_), "vkEndCommandBuffer");
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void RawVulkan::check(RawShape shape) {
  submit_and_wait({clear_cb_, shape_cb_, readback_cb_});
  throw_if_messages("raw Vulkan baseline check");  // a reported hazard explains a wrong value best
  const bool chain = shape == RawShape::chain;
  for (uint32_t i = 0; i < k_; ++i) {
    uint32_t expected = chain ? kSeed : i;
    if (staged_[i] != expected)
      throw DeviceError(fmt::format("raw Vulkan baseline ({}): x[{}] = {:#x}, expected {:#x}",
                                    chain ? "chain" : "independent", i, staged_[i], expected));
  }
}

// Host wall time of the submission and its fence wait (ms); the fence reset is outside it.
double RawVulkan::submit_and_wait(std::initializer_list<VkCommandBuffer> cbs) {
  auto info = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  info.commandBufferCount = static_cast<uint32_t>(cbs.size());
  info.pCommandBuffers = cbs.begin();
  auto start = std::chrono::steady_clock::now();
  vk_check(fn_.vkQueueSubmit(queue_, 1, &info, fence_), "vkQueueSubmit");
  vk_check(fn_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  vk_check(fn_.vkResetFences(device_, 1, &fence_), "vkResetFences");
  return ms;
}

RawTiming RawVulkan::measure(RawShape shape, int runs) {
  RawTiming t;
  t.record_ms = record(shape);
  check(shape);
  submit_and_wait({shape_cb_});  // warm-up
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) times.push_back(submit_and_wait({shape_cb_}));
  t.median_ms = median(times);
  throw_if_messages(shape == RawShape::chain ? "raw Vulkan baseline (chain)" : "raw Vulkan baseline (independent)");
  return t;
}

VkBool32 VKAPI_CALL RawVulkan::on_message(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  try {
    auto* messages = static_cast<Messages*>(user);
    std::lock_guard lock(messages->mutex);
    messages->text.emplace_back(data && data->pMessage ? data->pMessage : "(no text)");
  } catch (...) {  // a C callback must not throw
  }
  return VK_FALSE;
}

void RawVulkan::throw_if_messages(std::string_view operation) {
  std::lock_guard lock(messages_.mutex);
  if (messages_.text.empty()) return;
  throw DeviceError(fmt::format("{}: the Vulkan validation layer reported {} message(s), the first:\n  {}", operation,
                                messages_.text.size(), messages_.text.front()));
}

}  // namespace vkstark::bench
