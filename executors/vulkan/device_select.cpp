// Physical-device selection: discrete > integrated > virtual > CPU, or the device named by
// VulkanOptions::device / VKSTARK_VULKAN_DEVICE (an index or a case-insensitive name substring).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "executors/vulkan/context.hpp"
#include "runtime/error.hpp"

namespace vkstark::vulkan {

namespace {

std::string_view type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "CPU";
    default:
      return "other";
  }
}

int rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

bool has_push_descriptor(const VkFunctions& fn, VkPhysicalDevice d) {
  uint32_t n = 0;
  vk_check(fn.vkEnumerateDeviceExtensionProperties(d, nullptr, &n, nullptr), "vkEnumerateDeviceExtensionProperties");
  std::vector<VkExtensionProperties> exts(n);
  vk_check(fn.vkEnumerateDeviceExtensionProperties(d, nullptr, &n, exts.data()),
           "vkEnumerateDeviceExtensionProperties");
  return std::any_of(exts.begin(), exts.begin() + n, [](const VkExtensionProperties& e) {
    return std::string_view(e.extensionName) == VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
  });
}

void find_compute_queue(const VkFunctions& fn, PhysicalDeviceInfo& info) {
  uint32_t n = 0;
  fn.vkGetPhysicalDeviceQueueFamilyProperties(info.handle, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  fn.vkGetPhysicalDeviceQueueFamilyProperties(info.handle, &n, families.data());
  for (uint32_t i = 0; i < n; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || families[i].queueCount == 0) continue;
    bool better = info.queue_family < 0 || (info.timestamp_valid_bits == 0 && families[i].timestampValidBits > 0);
    if (!better) continue;
    info.queue_family = static_cast<int32_t>(i);
    info.timestamp_valid_bits = families[i].timestampValidBits;
    info.queue_count = families[i].queueCount;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const VkQueueFlags f = families[i].queueFlags;
    if (!(f & VK_QUEUE_TRANSFER_BIT) || (f & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT)) ||
        families[i].queueCount == 0)
      continue;
    if (info.transfer_family >= 0 && info.transfer_timestamp_bits >= families[i].timestampValidBits) continue;
    info.transfer_family = static_cast<int32_t>(i);
    info.transfer_timestamp_bits = families[i].timestampValidBits;
  }
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool matches_one(const PhysicalDeviceInfo& d, std::string_view wanted) {
  bool digits =
      !wanted.empty() && std::all_of(wanted.begin(), wanted.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) return std::to_string(d.index) == wanted;
  return lower(d.properties.deviceName).find(lower(wanted)) != std::string::npos;
}

std::string device_list(const std::vector<PhysicalDeviceInfo>& devices) {
  if (devices.empty()) return "the loader sees no Vulkan device";
  std::string out = "devices:";
  for (const PhysicalDeviceInfo& d : devices) out += "\n  " + d.describe();
  return out;
}

}  // namespace

// `wanted`: one index or name substring, a comma-separated list of them, or "all".
bool device_matches(const PhysicalDeviceInfo& d, std::string_view wanted) {
  if (lower(wanted) == "all") return true;
  size_t begin = 0;
  while (begin <= wanted.size()) {
    size_t end = std::min(wanted.find(',', begin), wanted.size());
    std::string_view one = wanted.substr(begin, end - begin);
    if (!one.empty() && matches_one(d, one)) return true;
    begin = end + 1;
  }
  return false;
}

std::string PhysicalDeviceInfo::describe() const {
  std::string s =
      fmt::format("{}: {} ({}, Vulkan {}.{})", index, properties.deviceName, type_name(properties.deviceType),
                  VK_API_VERSION_MAJOR(properties.apiVersion), VK_API_VERSION_MINOR(properties.apiVersion));
  if (!problem.empty()) s += " - not usable: " + problem;
  return s;
}

std::vector<PhysicalDeviceInfo> describe_devices(const VkFunctions& fn, VkInstance instance) {
  uint32_t n = 0;
  vk_check(fn.vkEnumeratePhysicalDevices(instance, &n, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> handles(n);
  vk_check(fn.vkEnumeratePhysicalDevices(instance, &n, handles.data()), "vkEnumeratePhysicalDevices");
  std::vector<PhysicalDeviceInfo> out;
  for (uint32_t i = 0; i < n; ++i) {
    PhysicalDeviceInfo d;
    d.handle = handles[i];
    d.index = i;
    fn.vkGetPhysicalDeviceProperties(d.handle, &d.properties);
    find_compute_queue(fn, d);
    if (d.properties.apiVersion < VK_API_VERSION_1_2)
      d.problem = "Vulkan 1.2 is required";
    else if (!has_push_descriptor(fn, d.handle))
      d.problem = "no " VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
    else if (d.queue_family < 0)
      d.problem = "no compute queue";
    out.push_back(std::move(d));
  }
  return out;
}

const PhysicalDeviceInfo& choose_device(const std::vector<PhysicalDeviceInfo>& devices, const VulkanOptions& options) {
  std::string wanted = options.device;
  std::string source = "VulkanOptions::device";
  if (wanted.empty()) {
    const char* env = std::getenv("VKSTARK_VULKAN_DEVICE");
    if (env) wanted = env;
    source = "VKSTARK_VULKAN_DEVICE";
  }
  const PhysicalDeviceInfo* best = nullptr;
  bool any_match = false;
  for (const PhysicalDeviceInfo& d : devices) {
    if (!wanted.empty() && !device_matches(d, wanted)) continue;
    any_match = true;
    bool cpu_refused = !options.allow_cpu_device && d.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    if (!d.problem.empty() || cpu_refused) continue;
    if (!best || rank(d.properties.deviceType) < rank(best->properties.deviceType)) best = &d;
  }
  if (best) return *best;
  if (!wanted.empty() && !any_match)
    throw DeviceError(fmt::format("no Vulkan device matches {}='{}'; {}", source, wanted, device_list(devices)));
  std::string why = options.allow_cpu_device ? "" : " (CPU implementations such as lavapipe are not used here)";
  std::string which = wanted.empty() ? std::string() : fmt::format(" matching {}='{}'", source, wanted);
  throw DeviceError(fmt::format("no usable Vulkan device{}{}; {}", which, why, device_list(devices)));
}

}  // namespace vkstark::vulkan
