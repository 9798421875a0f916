#include "stages/air/constraint_kernel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "kernels/glsl/compiler.hpp"
#include "runtime/error.hpp"

namespace vkstark {

namespace {

// Invocations per workgroup: a fixed preference, so that a device gets one pipeline of the kernel
// for every height (without one, small grids would get smaller workgroups, each a pipeline of its
// own, and a large DAG costs the driver seconds per pipeline). 64 keeps a workgroup small where the
// kernel needs many registers per invocation.
constexpr uint32_t kWorkgroupSize = 64;

// "<air>_constraints" with every character outside [A-Za-z0-9_] made '_', no "__" (reserved in
// GLSL), not starting with a digit.
std::string kernel_name(const std::string& air) {
  std::string name;
  for (char c : air + "_constraints") {
    const bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    const char x = ok ? c : '_';
    if (x == '_' && (name.empty() || name.back() == '_')) continue;
    name += x;
  }
  if (name[0] >= '0' && name[0] <= '9') name = "air_" + name;
  return name;
}

// The deleter of the shared_ptr make_constraint_kernel returns. It owns the KernelInfo and carries
// what eval_constraints checks the dispatch against; std::get_deleter finds it, and finds nothing
// for any other kernel, so the contract's KernelInfo handle needs no field for it.
struct ConstraintKernelData {
  std::shared_ptr<const KernelInfo> info;
  std::vector<uint32_t> widths;  // row-view parts
  uint32_t num_public_values = 0;
  uint32_t num_constraints = 0;
  void operator()(const KernelInfo*) { info.reset(); }
};

}  // namespace

std::shared_ptr<const KernelInfo> make_constraint_kernel(const std::string& air, const SymbolicDag& dag,
                                                         const AirShape& shape) {
  const size_t nparts = shape.row_view_widths().size();
  if (nparts > kMaxViewArray)
    throw InputError(
        fmt::format("AIR {}: {} trace parts (preprocessed, cached and common), the constraint kernel "
                    "takes at most {}",
                    air, nparts, kMaxViewArray));
  std::string body;
  try {
    body = constraint_glsl_body(dag, shape);
  } catch (const InputError& e) {
    throw InputError(fmt::format("AIR {}: {}", air, e.what()));
  }
  std::shared_ptr<const KernelInfo> info = make_glsl_kernel({.name = kernel_name(air),
                                                             .abi = kernel_abi<ConstraintKernelArgs>(),
                                                             .body = std::move(body),
                                                             .workgroup_size = kWorkgroupSize,
                                                             .cpu = constraint_cpu_body(dag, shape)});
  const KernelInfo* raw = info.get();
  return std::shared_ptr<const KernelInfo>(raw, ConstraintKernelData{std::move(info), shape.row_view_widths(),
                                                                     shape.num_public_values, dag.num_constraints()});
}

void eval_constraints(Graph& g, const std::string& name, const std::shared_ptr<const KernelInfo>& kernel,
                      const AirShape& shape, std::span<const View<Fp>> parts, View<Fp> public_values,
                      View<Fp4> lambda_powers, View<Fp4> out, uint32_t log_height) {
  auto fail = [&](const std::string& what) {
    throw GraphError(fmt::format("task '{}' (kernel {}): {}", name, kernel ? kernel->name : "none", what));
  };
  const ConstraintKernelData* data = kernel ? std::get_deleter<ConstraintKernelData>(kernel) : nullptr;
  if (!data) fail("not a constraint kernel (make one with make_constraint_kernel)");
  const std::vector<uint32_t> widths = shape.row_view_widths();
  if (widths != data->widths || shape.num_public_values != data->num_public_values)
    fail("the AIR shape given is not the one the kernel was made for");
  // Row indices and every element index of a part (column * H + row) are 32-bit in the kernel.
  if (log_height > 31) fail(fmt::format("log_height {} (at most 31)", log_height));
  const uint64_t h = uint64_t(1) << log_height;
  if (parts.size() != widths.size())
    fail(fmt::format("{} trace parts, the AIR has {} (preprocessed, cached, common)", parts.size(), widths.size()));
  for (size_t p = 0; p < parts.size(); ++p) {
    const uint64_t want = uint64_t(widths[p]) << log_height;
    if (parts[p].count != want)
      fail(fmt::format("trace part {} has {} values, not width {} x height {} = {}", p, parts[p].count, widths[p], h,
                       want));
    if (want >= (uint64_t(1) << 32)) fail(fmt::format("trace part {} has {} values, 2^32 or more", p, want));
  }
  if (public_values.count != shape.num_public_values)
    fail(fmt::format("{} public values, the AIR has {}", public_values.count, shape.num_public_values));
  if (lambda_powers.count < data->num_constraints)
    fail(fmt::format("{} lambda powers, the AIR has {} constraints", lambda_powers.count, data->num_constraints));
  if (out.count != h) fail(fmt::format("out has {} values, the trace height is {}", out.count, h));
  if (public_values.buffer == kNoBuffer) {
    // No public values and no buffer for them: a zero-count view of a buffer the task reads anyway
    // (an executor binds a placeholder for a zero-count view; the kernel reads no public value).
    auto part = std::find_if(parts.begin(), parts.end(), [](const View<Fp>& p) { return p.buffer != kNoBuffer; });
    public_values = part != parts.end() ? part->slice(0, 0) : lambda_powers.bitcast<Fp>().slice(0, 0);
  }
  DynamicArgs args;
  args.views<Fp>(parts).view(public_values).view(lambda_powers).view(out).scalar(log_height);
  g.dispatch(name, kernel, args, Grid{static_cast<uint32_t>(h)});
}

}  // namespace vkstark
