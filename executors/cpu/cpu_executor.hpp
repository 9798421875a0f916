// The CPU executor: runs any Plan with TBB (architecture.md, "Runtime concepts").
// Kernel bodies are the C++ functions of kernels/cpu/, each parallel inside; dispatches between two
// barriers of a submission are independent and run concurrently; a barrier is a join. Memory is
// host memory laid out exactly as the plan assigns it (transients alias in one arena).
// Lifetime: PreparedPlans must not outlive the executor (Persistent buffers live in the executor).
// Thread-safety: use an executor and its prepared plans from one thread at a time.
#pragma once

#include <memory>

#include "runtime/executor.hpp"

namespace vkstark {

[[nodiscard]] std::unique_ptr<Executor> make_cpu_executor();

}  // namespace vkstark
