#include "executors/vulkan/device_profile.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "runtime/error.hpp"

namespace vkstark::vulkan {

namespace {

// One file a profile, each value beside the driver source it comes from.
const DeviceProfile kProfiles[] = {
#include "executors/vulkan/profiles/amd_cdna.inc"
#include "executors/vulkan/profiles/amd_rdna3.inc"
#include "executors/vulkan/profiles/apple_m.inc"
#include "executors/vulkan/profiles/intel_arc.inc"
#include "executors/vulkan/profiles/intel_xe_igpu.inc"
#include "executors/vulkan/profiles/vulkan_minimum.inc"
};

}  // namespace

std::span<const DeviceProfile> device_profiles() { return kProfiles; }

const DeviceProfile& device_profile(std::string_view name) {
  std::string names;
  for (const DeviceProfile& p : kProfiles) {
    if (p.name == name) return p;
    names += names.empty() ? "" : ", ";
    names += p.name;
  }
  throw InputError(
      fmt::format("no device profile '{}' (VKSTARK_DEVICE_PROFILE or VulkanOptions::device_profile); "
                  "the profiles: {}, or none",
                  name, names));
}

const DeviceProfile* chosen_device_profile(std::string_view option) {
  const char* env = std::getenv("VKSTARK_DEVICE_PROFILE");
  std::string_view name = env != nullptr && *env != '\0' ? std::string_view(env) : option;
  if (name.empty() || name == "none") return nullptr;
  return &device_profile(name);
}

}  // namespace vkstark::vulkan
