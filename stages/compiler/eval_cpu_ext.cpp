// The CPU body of the generated extension-field constraint kernel (stages/compiler/ext_kernel.hpp):
// the chunk's DAG compiled once into its instruction stream (stages/compiler/ext_program.hpp),
// interpreted point by point, in parallel over points. The interpreted kernel's CPU body runs the
// same stream, decoded from its program view.
#include <fmt/format.h>

#include <memory>

#include "runtime/error.hpp"
#include "stages/compiler/constraint_kernel.hpp"
#include "stages/compiler/ext_program.hpp"

namespace vkstark {

std::function<void(const CpuContext&)> ext_constraint_cpu_body(const SymbolicDag& dag, const AirShape& shape) {
  return ext_constraint_cpu_body(dag, schedule_constraints(dag), shape);
}

std::function<void(const CpuContext&)> ext_constraint_cpu_body(const SymbolicDag& dag,
                                                               const ConstraintSchedule& schedule,
                                                               const AirShape& shape) {
  auto program = std::make_shared<const ExtProgram>(compile_ext_program(dag, schedule, shape));
  if (program->parts > kMaxViewArray)
    throw InputError(fmt::format("extension kernel: {} row-view parts, at most {}", program->parts, kMaxViewArray));
  return [program](const CpuContext& ctx) { run_ext_program(*program, ctx); };
}

}  // namespace vkstark
