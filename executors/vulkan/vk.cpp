#include "executors/vulkan/vk.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <link.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

#include "runtime/error.hpp"

namespace vkstark::vulkan {

namespace {

// The loader stays open for the life of the process: closing it under live layers is unsafe, and
// it costs nothing to keep.
PFN_vkGetInstanceProcAddr open_loader() {
  static std::once_flag once;
  static PFN_vkGetInstanceProcAddr proc = nullptr;
  static std::string error;
  std::call_once(once, [] {
    void* lib = nullptr;
    for (const char* name : {"libvulkan.so.1", "libvulkan.so"}) {
      lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (lib) break;
      const char* e = dlerror();
      error = e ? e : "dlopen failed";
    }
    if (!lib) return;
    proc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
    if (!proc) error = "libvulkan has no vkGetInstanceProcAddr";
  });
  if (!proc) throw DeviceError(fmt::format("no Vulkan loader: cannot open libvulkan.so.1 ({})", error));
  return proc;
}

template <class F>
void load(F& slot, PFN_vkVoidFunction f, const char* name, bool required) {
  slot = reinterpret_cast<F>(f);
  if (!slot && required) throw DeviceError(fmt::format("the Vulkan loader has no {}", name));
}

// NVIDIA's driver fails to initialise once the loader has unloaded and reloaded it a few dozen
// times in one process (seen on an H100: vkCreateInstance then finds "no drivers"). One instance
// kept for the life of the process keeps the drivers loaded, so that executors can be made and
// destroyed any number of times. It is never used for anything else.
void keep_drivers_loaded(const VkFunctions& fn) {
  static std::once_flag once;
  std::call_once(once, [&] {
    auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
    app.apiVersion = VK_API_VERSION_1_2;
    auto info = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
    info.pApplicationInfo = &app;
    static VkInstance anchor = VK_NULL_HANDLE;
    if (fn.vkCreateInstance(&info, nullptr, &anchor) != VK_SUCCESS) anchor = VK_NULL_HANDLE;
  });
}

struct ExitGuard {
  std::mutex mutex;
  std::map<const void*, std::function<void()>> work;
  int registered_objects = -1;  // loaded shared objects when the guard was last registered
  std::atomic<bool> ran = false;
};
ExitGuard& exit_guard() {
  static ExitGuard* guard = new ExitGuard;  // never destroyed: exit handlers use it
  return *guard;
}

void run_exit_guard() {
  ExitGuard& g = exit_guard();
  if (g.ran.exchange(true)) return;
  std::lock_guard lock(g.mutex);
  for (auto& [owner, work] : g.work) {
    try {
      work();
    } catch (...) {  // nothing may escape an exit handler
    }
  }
}

int loaded_objects() {
  int n = 0;
  dl_iterate_phdr([](dl_phdr_info*, size_t, void* count) { return ++*static_cast<int*>(count), 0; }, &n);
  return n;
}

}  // namespace

void arm_exit_guard(bool after_first_run) {
  ExitGuard& g = exit_guard();
  std::lock_guard lock(g.mutex);
  // A handler registered later runs earlier. Registering again only when the driver has loaded more
  // libraries since keeps the handler after theirs without growing the list at every prepare.
  const int n = loaded_objects();
  if (n == g.registered_objects && !after_first_run) return;
  g.registered_objects = n;
  std::atexit(run_exit_guard);
}

bool exit_guard_ran() { return exit_guard().ran.load(); }

void register_exit_work(const void* owner, std::function<void()> work) {
  ExitGuard& g = exit_guard();
  std::lock_guard lock(g.mutex);
  g.work[owner] = std::move(work);
}

void unregister_exit_work(const void* owner) {
  ExitGuard& g = exit_guard();
  std::lock_guard lock(g.mutex);
  g.work.erase(owner);
}

void VkFunctions::load_global() {
  vkGetInstanceProcAddr = open_loader();
#define VKSTARK_VK_LOAD(name) load(name, vkGetInstanceProcAddr(nullptr, #name), #name, true);
  VKSTARK_VK_GLOBAL_FUNCTIONS(VKSTARK_VK_LOAD)
#undef VKSTARK_VK_LOAD
  keep_drivers_loaded(*this);
}

void VkFunctions::load_instance(VkInstance instance, bool debug_utils) {
#define VKSTARK_VK_LOAD(name) load(name, vkGetInstanceProcAddr(instance, #name), #name, true);
  VKSTARK_VK_INSTANCE_FUNCTIONS(VKSTARK_VK_LOAD)
#undef VKSTARK_VK_LOAD
  if (!debug_utils) return;
#define VKSTARK_VK_LOAD(name) load(name, vkGetInstanceProcAddr(instance, #name), #name, false);
  VKSTARK_VK_DEBUG_FUNCTIONS(VKSTARK_VK_LOAD)
#undef VKSTARK_VK_LOAD
}

void VkFunctions::load_device(VkDevice device, bool pipeline_statistics) {
#define VKSTARK_VK_LOAD(name) load(name, vkGetDeviceProcAddr(device, #name), #name, true);
  VKSTARK_VK_DEVICE_FUNCTIONS(VKSTARK_VK_LOAD)
#undef VKSTARK_VK_LOAD
  if (!pipeline_statistics) return;
#define VKSTARK_VK_LOAD(name) load(name, vkGetDeviceProcAddr(device, #name), #name, false);
  VKSTARK_VK_PIPELINE_STATISTICS_FUNCTIONS(VKSTARK_VK_LOAD)
#undef VKSTARK_VK_LOAD
}

std::string_view vk_result_name(VkResult result) {
  switch (result) {
#define VKSTARK_VK_RESULT(name) \
  case name:                    \
    return #name;
    VKSTARK_VK_RESULT(VK_SUCCESS)
    VKSTARK_VK_RESULT(VK_NOT_READY)
    VKSTARK_VK_RESULT(VK_TIMEOUT)
    VKSTARK_VK_RESULT(VK_EVENT_SET)
    VKSTARK_VK_RESULT(VK_EVENT_RESET)
    VKSTARK_VK_RESULT(VK_INCOMPLETE)
    VKSTARK_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    VKSTARK_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    VKSTARK_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    VKSTARK_VK_RESULT(VK_ERROR_DEVICE_LOST)
    VKSTARK_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    VKSTARK_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    VKSTARK_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    VKSTARK_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    VKSTARK_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    VKSTARK_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    VKSTARK_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    VKSTARK_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    VKSTARK_VK_RESULT(VK_ERROR_UNKNOWN)
    VKSTARK_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    VKSTARK_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    VKSTARK_VK_RESULT(VK_ERROR_FRAGMENTATION)
    VKSTARK_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    VKSTARK_VK_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
    VKSTARK_VK_RESULT(VK_ERROR_VALIDATION_FAILED_EXT)
#undef VKSTARK_VK_RESULT
    default:
      break;
  }
  thread_local std::string unknown;
  unknown = fmt::format("VkResult({})", static_cast<int>(result));
  return unknown;
}

void vk_check(VkResult result, std::string_view operation) {
  if (result == VK_ERROR_DEVICE_LOST) throw DeviceLost(fmt::format("{}: {}", operation, vk_result_name(result)));
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY)
    throw OutOfDeviceMemory(fmt::format("{}: {}", operation, vk_result_name(result)));
  if (result < 0) throw DeviceError(fmt::format("{}: {}", operation, vk_result_name(result)));
}

void vk_check_alloc(VkResult result, std::string_view what, uint64_t bytes) {
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
    throw OutOfDeviceMemory(fmt::format("out of device memory: {} bytes for {} (vkAllocateMemory: {})", bytes, what,
                                        vk_result_name(result)));
  vk_check(result, fmt::format("vkAllocateMemory ({} bytes for {})", bytes, what));
}

}  // namespace vkstark::vulkan
