// Linked into every test executable. Sanitizer builds: the Khronos validation layer (1.3.239)
// leaks a few objects per instance. The loader unloads the layer at vkDestroyInstance, after which
// LeakSanitizer cannot name the frames; keeping the layer loaded lets the suppression below name
// it, so leaks anywhere else still fail.
//
// Drivers: an executor alive when the process exits leaves its Vulkan objects to the end of the
// process (the exit guard, executors/vulkan/vk.hpp: NVIDIA's driver tears itself down in exit
// handlers of its own), so the driver's allocations for them are never freed. lavapipe's show
// frames of libvulkan_lvp.so, or only of the code it generated (unknown to LeakSanitizer).
#include <dlfcn.h>

extern "C" const char* __lsan_default_suppressions() {
  return "leak:libVkLayer_khronos_validation.so\n"
         "leak:libvulkan_lvp.so\n"
         "leak:<unknown module>\n";
}

namespace {
[[maybe_unused]] const bool kValidationLayerStaysLoaded =
    dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE) != nullptr;
}  // namespace
