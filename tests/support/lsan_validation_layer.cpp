// Linked into every test executable. Sanitizer builds: the Khronos validation layer (1.3.239)
// leaks a few objects per instance. The loader unloads the layer at vkDestroyInstance, after which
// LeakSanitizer cannot name the frames; keeping the layer loaded lets the suppression below name
// it, so leaks anywhere else still fail.
#include <dlfcn.h>

extern "C" const char* __lsan_default_suppressions() { return "leak:libVkLayer_khronos_validation.so\n"; }

namespace {
[[maybe_unused]] const bool kValidationLayerStaysLoaded =
    dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE) != nullptr;
}  // namespace
