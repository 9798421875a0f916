#include "stages/compiler/constraint_kernel.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <vector>

#include "kernels/basic.hpp"
#include "kernels/cpu/parallel.hpp"
#include "kernels/detail/grid.hpp"
#include "kernels/glsl/compiler.hpp"
#include "runtime/error.hpp"
#include "runtime/progress.hpp"
#include "stages/compiler/ext_kernel.hpp"
#include "stages/compiler/ext_program.hpp"

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

// The sum of the partial sums: out[r] = sum_s partials[s * H + r] (H = out.count = grid.x).
struct PartialsSumArgs {
  In<Fp4> partials;
  Out<Fp4> out;
  uint32_t slices = 0;
};

// One invocation per value of out, reading `slices` values of partials at H apart.
std::string partials_sum_problem(const PartialsSumArgs& a) {
  if (a.slices == 0) return "no slices";
  if (a.partials.view.count / a.slices < a.out.view.count)
    return fmt::format("partials has {} values, {} slices of {} need {}", a.partials.view.count, a.slices,
                       a.out.view.count, uint64_t(a.slices) * a.out.view.count);
  return {};
}

// Made once per process.
const std::shared_ptr<const KernelInfo>& partials_sum_kernel() {
  static const std::shared_ptr<const KernelInfo> kernel = make_glsl_kernel(
      {.name = "constraint_partials_sum",
       .abi = kernel_abi<PartialsSumArgs>(),
       .body =
           "#include \"fp4.glsl\"\n"
           "void main() {\n"
           "  const uint r = vks_index_x();\n"
           "  if (r >= pc.grid_x) return;\n"
           "  uvec4 a = partials_[pc.partials_off + r];\n"
           "  for (uint c = 1u; c < pc.slices; ++c) a = fp4_add(a, partials_[pc.partials_off + c * pc.grid_x + r]);\n"
           "  out_[pc.out_off + r] = a;\n"
           "}\n",
       .cpu =
           [](const CpuContext& ctx) {
             const std::span<const Fp4> partials = ctx.view<Fp4>(0);
             const std::span<Fp4> out = ctx.view<Fp4>(1);
             const uint32_t slices = ctx.scalars()[0];
             const uint64_t h = out.size();
             cpu::for_each_chunk(h, [&](uint64_t begin, uint64_t end) {
               for (uint64_t r = begin; r < end; ++r) {
                 Fp4 a = partials[r];
                 for (uint32_t c = 1; c < slices; ++c) a += partials[c * h + r];
                 out[r] = a;
               }
             });
           },
       .grid = over_args<PartialsSumArgs>(
           [](const PartialsSumArgs& a) { return Grid{detail::grid_dim(a.out.view.count)}; }),
       .check = over_args<PartialsSumArgs>(partials_sum_problem)});
  return kernel;
}

}  // namespace

std::vector<ConstraintRange> partition_constraints(const SymbolicDag& dag, uint32_t max_nodes) {
  const size_t n = dag.nodes.size();
  std::vector<ConstraintRange> chunks;
  // stamp[i] == s: node i is already evaluated in chunk s - 1 (the current one when s = size()).
  std::vector<uint32_t> stamp(n, 0), stack, added_nodes;
  // Stamps with `s` the nodes `root` needs that do not have it yet (listed in added_nodes) and
  // returns how many of them are operations.
  auto add_closure = [&](uint32_t root, uint32_t s) {
    uint64_t operations = 0;
    added_nodes.clear();
    stack.assign(1, root);
    while (!stack.empty()) {
      const uint32_t i = stack.back();
      stack.pop_back();
      if (stamp[i] == s) continue;
      stamp[i] = s;
      added_nodes.push_back(i);
      const DagNode& d = dag.nodes[i];
      if (!is_operation(d.kind)) continue;
      ++operations;
      const bool binary = d.kind != NodeKind::Neg;
      if (d.left >= i || (binary && d.right >= i))
        throw InputError(
            fmt::format("DAG node {} reads node {}, which does not come before it", i, d.left >= i ? d.left : d.right));
      stack.push_back(d.left);
      if (binary) stack.push_back(d.right);
    }
    return operations;
  };
  for (uint32_t k = 0; k < dag.constraint_idx.size(); ++k) {
    const uint32_t root = dag.constraint_idx[k];
    if (root >= n) throw InputError(fmt::format("constraint node {} is past the DAG's {} nodes", root, n));
    if (!chunks.empty()) {
      ConstraintRange& c = chunks.back();
      const uint64_t added = add_closure(root, static_cast<uint32_t>(chunks.size()));
      if (c.nodes + added <= max_nodes) {
        c.nodes += added;
        ++c.count;
        continue;
      }
      for (uint32_t i : added_nodes) stamp[i] = 0;  // not this chunk's after all
    }
    chunks.push_back({k, 1, 0});
    chunks.back().nodes = add_closure(root, static_cast<uint32_t>(chunks.size()));
  }
  return chunks;
}

namespace {

// The chunks of a kernel of either field (make_constraint_kernel, make_ext_constraint_kernel):
// `k`'s fields but the chunks' kernels, and the chunks' ranges. InputError naming the AIR.
void init_chunked(ConstraintKernel& k, const std::string& air, const std::string& name, const SymbolicDag& dag,
                  const AirShape& shape, uint32_t chunk_nodes) {
  const size_t nparts = shape.row_view_widths().size();
  if (nparts > kMaxViewArray)
    throw InputError(
        fmt::format("AIR {}: {} trace parts (preprocessed, cached and common), the constraint kernel "
                    "takes at most {}",
                    air, nparts, kMaxViewArray));
  k.name = name;
  k.widths = shape.row_view_widths();
  k.num_public_values = shape.num_public_values;
  k.num_constraints = dag.num_constraints();
  std::vector<ConstraintRange> ranges;
  try {
    ranges = partition_constraints(dag, std::max<uint32_t>(chunk_nodes, 1));
  } catch (const InputError& e) {
    throw InputError(fmt::format("AIR {}: {}", air, e.what()));
  }
  if (ranges.empty()) ranges.push_back({});  // no constraints: one chunk writing zeros
  k.chunks.resize(ranges.size());
  for (size_t c = 0; c < ranges.size(); ++c) k.chunks[c].range = ranges[c];
}

// Calls make(c, sub) for every chunk c in parallel, sub = the chunk's constraints over the nodes up
// to its last one (the others are not read). The error reported is the first chunk's, whatever the
// timing; an InputError names the AIR.
template <class Make>
void for_each_chunk_dag(const ConstraintKernel& k, const std::string& air, const SymbolicDag& dag, Make make) {
  std::vector<std::exception_ptr> errors(k.chunks.size());
  tbb::parallel_for(size_t{0}, k.chunks.size(), [&](size_t c) {
    try {
      const ConstraintRange& r = k.chunks[c].range;
      SymbolicDag sub;
      const size_t end = r.count == 0 ? 0 : dag.constraint_idx[r.first + r.count - 1] + 1;
      sub.nodes.assign(dag.nodes.begin(), dag.nodes.begin() + end);
      sub.constraint_idx.assign(dag.constraint_idx.begin() + r.first, dag.constraint_idx.begin() + r.first + r.count);
      try {
        make(c, sub);
      } catch (const InputError& e) {
        throw InputError(fmt::format("AIR {}: {}", air, e.what()));
      }
    } catch (...) {
      errors[c] = std::current_exception();
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

// A chunk's GLSL body and CPU body, each from the chunk's DAG and its schedule.
using GlslLowering = std::string (*)(const SymbolicDag&, const ConstraintSchedule&, const AirShape&);
using CpuLowering = std::function<void(const CpuContext&)> (*)(const SymbolicDag&, const ConstraintSchedule&,
                                                               const AirShape&);

// Generated chunks: one run-time kernel each, compiled in parallel.
// Null when `gen.cached_only` and some chunk's SPIR-V is not cached.
// glsl(dag, schedule, shape), cpu(dag, schedule, shape): a chunk's bodies, from one schedule.
// `grid`: the chunks' grid rule; check(shape, n): the check of a chunk of n constraints.
template <class K, class Glsl, class Cpu, class GridRule, class Check>
std::shared_ptr<K> make_chunked(const std::string& air, const std::string& name, const SymbolicDag& dag,
                                const AirShape& shape, uint32_t chunk_nodes, const KernelAbi& abi, Glsl glsl, Cpu cpu,
                                GridRule grid, Check check, KernelGeneration gen = {}) {
  auto k = std::make_shared<K>();
  init_chunked(*k, air, name, dag, shape, chunk_nodes);
  const size_t nchunks = k->chunks.size();
  // Counted for a front end's progress line (runtime/progress.hpp): compiled to SPIR-V, or read
  // from the SPIR-V cache.
  constexpr std::string_view kWhat = "generating kernels";
  std::atomic<uint64_t> generated{0};
  std::atomic<bool> missing{false};
  if (!gen.quiet) report_progress(kWhat, 0, nchunks);
  for_each_chunk_dag(*k, air, dag, [&](size_t c, const SymbolicDag& sub) {
    if (missing.load(std::memory_order_relaxed)) return;
    const ConstraintSchedule schedule = schedule_constraints(sub);  // both bodies walk it
    std::string body = gen.spirv ? glsl(sub, schedule, shape) : std::string();
    std::function<void(const CpuContext&)> cpu_body = cpu(sub, schedule, shape);
    k->chunks[c].kernel = make_glsl_kernel({.name = nchunks == 1 ? k->name : fmt::format("{}_{}", k->name, c),
                                            .abi = abi,
                                            .body = std::move(body),
                                            .workgroup_size = kWorkgroupSize,
                                            .cpu = std::move(cpu_body),
                                            .grid = grid,
                                            .check = check(shape, k->chunks[c].range.count),
                                            .cached_only = gen.cached_only,
                                            .spirv = gen.spirv});
    if (!k->chunks[c].kernel) missing = true;
    if (!gen.quiet) report_progress(kWhat, generated.fetch_add(1, std::memory_order_relaxed) + 1, nchunks);
  });
  // A chunk without a kernel: not cached (gen.cached_only), or skipped by a cancelled task group.
  for (const auto& chunk : k->chunks)
    if (!chunk.kernel) return nullptr;
  return k;
}

// The chunks' dispatches into `out` (points values): one after the other into `out` itself when the
// points fill a GPU or with `accumulate`, else S = min(chunks, concurrent / points) at a time into
// slices of a transient buffer, summed at the end (see eval_constraints).
uint64_t auto_slices(const ConstraintKernel& kernel, uint64_t points, uint64_t concurrent) {
  return std::min<uint64_t>(kernel.chunks.size(), std::max<uint64_t>(1, concurrent / std::max<uint64_t>(points, 1)));
}

// `fixed` > 0: `out` is `fixed` unsummed slices (eval_ext_constraints' `slices`).
template <class Dispatch>
void dispatch_chunks(Graph& g, const std::string& name, const ConstraintKernel& kernel, View<Fp4> out,
                     uint64_t concurrent, bool accumulate, Dispatch dispatch, uint32_t fixed = 0) {
  const uint64_t nchunks = kernel.chunks.size();
  if (fixed > 0) {
    const uint64_t points = out.count / fixed;
    g.dispatch<FillU32>(name + ".zero", {.out = out.bitcast<uint32_t>(), .value = 0});
    for (uint64_t c = 0; c < nchunks; ++c)
      dispatch(nchunks == 1 ? name : fmt::format("{}.{}", name, c), kernel.chunks[c],
               out.slice((c % fixed) * points, points));
    return;
  }
  const uint64_t points = out.count;
  const uint64_t slots = accumulate ? 1 : auto_slices(kernel, points, concurrent);
  if (slots == 1) {
    if (!accumulate) g.dispatch<FillU32>(name + ".zero", {.out = out.bitcast<uint32_t>(), .value = 0});
    if (nchunks == 1) return dispatch(name, kernel.chunks[0], out);
    for (uint64_t c = 0; c < nchunks; ++c) dispatch(fmt::format("{}.{}", name, c), kernel.chunks[c], out);
    return;
  }
  // Chunk c adds into slice c mod S: no hazard among S consecutive chunks, so they run side by side.
  auto partials = g.transient<Fp4>(fmt::format("{}.partials.{}", name, g.tasks().size()), slots * points);
  g.dispatch<FillU32>(name + ".zero", {.out = partials.all().bitcast<uint32_t>(), .value = 0});
  for (uint64_t c = 0; c < nchunks; ++c)
    dispatch(fmt::format("{}.{}", name, c), kernel.chunks[c], partials.slice((c % slots) * points, points));
  DynamicArgs args;
  args.view(partials.all()).view(out).scalar(static_cast<uint32_t>(slots));
  g.dispatch(name + ".sum", partials_sum_kernel(), args, Grid{static_cast<uint32_t>(points)});
}

// An AIR without public values and no buffer for them: a zero-count view of a buffer the task
// reads anyway (an executor binds some valid buffer range for a zero-count view).
template <class T>
View<Fp> public_values_or_empty(View<Fp> pvs, std::span<const View<T>> parts, View<Fp4> coeffs) {
  if (pvs.buffer != kNoBuffer) return pvs;
  auto part = std::find_if(parts.begin(), parts.end(), [](const View<T>& p) { return p.buffer != kNoBuffer; });
  return part != parts.end() ? part->template bitcast<Fp>().slice(0, 0) : coeffs.bitcast<Fp>().slice(0, 0);
}

// Chunk c's program: a Constant buffer named after the kernel, the chunk and the words' hash, made
// at its first use in `g`; a zero-count view of `coeffs` for an empty program (no buffer is empty).
View<uint32_t> program_view(Graph& g, const ExtConstraintKernel& kernel, size_t c, View<Fp4> coeffs) {
  const std::vector<uint32_t>& words = kernel.programs[c];
  if (words.empty()) return coeffs.bitcast<uint32_t>().slice(0, 0);
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the words
  for (uint32_t w : words) h = (h ^ w) * 0x100000001b3ull;
  const std::string name = fmt::format("{}.program.{}.{:016x}", kernel.name, c, h);
  if (!g.has(name)) return g.constant<uint32_t>(name, words).all();
  const Buffer<uint32_t> b = g.find<uint32_t>(name);
  const BufferDesc& d = g.buffers()[b.id()];
  if (!d.data || d.data->size() != words.size() * sizeof(uint32_t) ||
      std::memcmp(d.data->data(), words.data(), d.data->size()) != 0)
    throw GraphError(
        fmt::format("buffer '{}' exists and does not hold the program of chunk {} of kernel {}", name, c, kernel.name));
  return b.all();
}

// A Constant buffer "<prefix>.<hash of the words>" holding `words`, made at its first use in `g`
// and shared by later calls (as program_view).
View<uint32_t> words_view(Graph& g, const std::string& prefix, const std::vector<uint32_t>& words,
                          const std::string& kernel) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the words
  for (uint32_t w : words) h = (h ^ w) * 0x100000001b3ull;
  const std::string name = fmt::format("{}.{:016x}", prefix, h);
  if (!g.has(name)) return g.constant<uint32_t>(name, words).all();
  const Buffer<uint32_t> b = g.find<uint32_t>(name);
  const BufferDesc& d = g.buffers()[b.id()];
  if (!d.data || d.data->size() != words.size() * sizeof(uint32_t) ||
      std::memcmp(d.data->data(), words.data(), d.data->size()) != 0)
    throw GraphError(fmt::format("buffer '{}' exists and does not hold the programs of kernel {}", name, kernel));
  return b.all();
}

// The fused programs' buffer.
View<uint32_t> fused_view(Graph& g, const ExtConstraintKernel& kernel) {
  return words_view(g, kernel.name + ".programs", kernel.fused, kernel.name);
}

// eval_ext_constraints for a Fused kernel (arguments checked): one dispatch of S slices, S as the
// chunked modes choose it (so the slices the caller reads are the same), summed into `out` when the
// caller takes a sum and S > 1.
void eval_fused(Graph& g, const std::string& name, const ExtConstraintKernel& kernel, std::span<const View<Fp4>> parts,
                View<Fp> public_values, View<Fp4> coeffs, View<Fp4> out, uint32_t log_len, uint32_t x_first,
                bool accumulate, uint64_t concurrent, uint32_t fixed) {
  if (kernel.fused.size() < 3 * kernel.chunks.size())
    throw GraphError(fmt::format("task '{}' (kernel {}): no fused programs", name, kernel.name));
  const View<uint32_t> programs = fused_view(g, kernel);
  auto dispatch = [&](const std::string& task, View<Fp4> dst, uint64_t points, uint64_t slices, bool add) {
    DynamicArgs args;
    args.views<Fp4>(parts).view(public_values).view(coeffs).view(dst).view(programs);
    args.scalar(log_len).scalar(x_first).scalar(uint32_t(kernel.chunks.size())).scalar(uint32_t(slices));
    g.dispatch(task, ext_fused_kernel(add), args, Grid{uint32_t(points), uint32_t(slices)});
  };
  if (fixed > 0) return dispatch(name, out, out.count / fixed, fixed, false);
  const uint64_t points = out.count;
  const uint64_t slices = accumulate ? 1 : auto_slices(kernel, points, concurrent);
  if (slices == 1) return dispatch(name, out, points, 1, accumulate);
  auto partials = g.transient<Fp4>(fmt::format("{}.partials.{}", name, g.tasks().size()), slices * points);
  dispatch(name, partials.all(), points, slices, false);
  DynamicArgs args;
  args.view(partials.all()).view(out).scalar(static_cast<uint32_t>(slices));
  g.dispatch(name + ".sum", partials_sum_kernel(), args, Grid{static_cast<uint32_t>(points)});
}

}  // namespace

std::string constraint_parts_problem(std::span<const uint64_t> counts, uint32_t log_len, uint32_t max_log_len,
                                     std::span<const uint32_t> widths) {
  if (log_len > max_log_len) return fmt::format("log length {} (at most {})", log_len, max_log_len);
  if (!widths.empty() && counts.size() != widths.size())
    return fmt::format("{} parts, the AIR has {} (preprocessed, cached, common)", counts.size(), widths.size());
  const uint64_t len = uint64_t(1) << log_len;
  for (size_t p = 0; p < counts.size(); ++p) {
    if (counts[p] >= (uint64_t(1) << 32)) return fmt::format("part {} has {} values, 2^32 or more", p, counts[p]);
    if (!widths.empty() && counts[p] != (uint64_t(widths[p]) << log_len))
      return fmt::format("part {} has {} values, not width {} x {} = {}", p, counts[p], widths[p], len,
                         uint64_t(widths[p]) << log_len);
    if (counts[p] % len != 0) return fmt::format("part {} has {} values, not whole columns of {}", p, counts[p], len);
  }
  return {};
}

std::string ext_points_problem(uint32_t log_len, uint32_t x_first, uint64_t points) {
  if (points == 0 || points >= (uint64_t(1) << 32)) return fmt::format("{} points", points);
  if (log_len > 30) return fmt::format("log_len {} (at most 30)", log_len);
  const uint64_t y = log_len == 0 ? 1 : (uint64_t(1) << log_len) / 2;
  if (x_first + (points - 1) / y >= (uint64_t(1) << 31))
    return fmt::format("points up to X = {}, at most 2^31 - 1", x_first + (points - 1) / y);
  return {};
}

Grid constraint_chunk_grid(const ConstraintKernelArgs& a) { return {detail::grid_dim(a.out.view.count)}; }

std::function<std::string(const RuntimeArgs&)> constraint_chunk_check(const AirShape& shape, uint32_t constraints) {
  return over_args<ConstraintKernelArgs>([widths = shape.row_view_widths(), pvs = shape.num_public_values,
                                          constraints](const ConstraintKernelArgs& a) {
    // Row indices and every element index of a part (column * H + row) are 32-bit in the kernel.
    if (std::string p = constraint_parts_problem(view_counts(a.parts), a.log_height, 31, widths); !p.empty()) return p;
    if (a.out.view.count != (uint64_t(1) << a.log_height))
      return fmt::format("out has {} values, the trace height is {}", a.out.view.count, uint64_t(1) << a.log_height);
    if (a.public_values.view.count != pvs)
      return fmt::format("{} public values, the AIR has {}", a.public_values.view.count, pvs);
    if (a.lambda_powers.view.count < constraints)
      return fmt::format("{} lambda powers, the chunk has {} constraints", a.lambda_powers.view.count, constraints);
    return std::string();
  });
}

Grid ext_constraint_chunk_grid(const ExtConstraintKernelArgs& a) { return {detail::grid_dim(a.out.view.count)}; }

std::function<std::string(const RuntimeArgs&)> ext_constraint_chunk_check(const AirShape& shape, uint32_t constraints) {
  return over_args<ExtConstraintKernelArgs>(
      [widths = shape.row_view_widths(), pvs = shape.num_public_values, constraints](const ExtConstraintKernelArgs& a) {
        if (std::string p = constraint_parts_problem(view_counts(a.parts), a.log_len, 30, widths); !p.empty()) return p;
        if (std::string p = ext_points_problem(a.log_len, a.x_first, a.out.view.count); !p.empty()) return p;
        if (a.public_values.view.count != pvs)
          return fmt::format("{} public values, the AIR has {}", a.public_values.view.count, pvs);
        if (a.coeffs.view.count < constraints)
          return fmt::format("{} coefficients, the chunk has {} roots", a.coeffs.view.count, constraints);
        return std::string();
      });
}

std::shared_ptr<const ConstraintKernel> make_constraint_kernel(const std::string& air, const SymbolicDag& dag,
                                                               const AirShape& shape, uint32_t chunk_nodes,
                                                               bool interpreted, KernelGeneration gen) {
  if (!interpreted)
    return make_chunked<ConstraintKernel>(
        air, kernel_name(air), dag, shape, chunk_nodes, kernel_abi<ConstraintKernelArgs>(),
        GlslLowering(constraint_glsl_body), CpuLowering(constraint_cpu_body),
        over_args<ConstraintKernelArgs>(constraint_chunk_grid), constraint_chunk_check, gen);
  auto k = std::make_shared<ConstraintKernel>();
  init_chunked(*k, air, kernel_name(air), dag, shape, chunk_nodes);
  std::vector<std::vector<uint32_t>> programs(k->chunks.size());
  for_each_chunk_dag(*k, air, dag, [&](size_t c, const SymbolicDag& sub) {
    const ExtProgram p = compile_ext_program(sub, shape);
    if (p.slots > kExtInterpreterSlots)
      throw InputError(
          fmt::format("constraint chunk {} (constraints {} to {}) needs {} value slots, the interpreter holds {}", c,
                      k->chunks[c].range.first, k->chunks[c].range.first + k->chunks[c].range.count, p.slots,
                      kExtInterpreterSlots));
    programs[c] = encode_ext_program(p);
    k->chunks[c].kernel = base_fused_kernel();
  });
  std::vector<uint32_t> first_roots;
  for (const ConstraintKernel::Chunk& c : k->chunks) first_roots.push_back(c.range.first);
  k->base_fused = encode_fused_programs(programs, first_roots);
  return k;
}

std::shared_ptr<const ExtConstraintKernel> make_ext_constraint_kernel(const std::string& air, const SymbolicDag& dag,
                                                                      const AirShape& shape, uint32_t chunk_nodes,
                                                                      ExtKernelMode mode, KernelGeneration gen) {
  const std::string name = kernel_name(air + "_ext");
  if (mode == ExtKernelMode::Generated) {
    auto k = make_chunked<ExtConstraintKernel>(
        air, name, dag, shape, chunk_nodes, kernel_abi<ExtConstraintKernelArgs>(),
        GlslLowering(ext_constraint_glsl_body), CpuLowering(ext_constraint_cpu_body),
        over_args<ExtConstraintKernelArgs>(ext_constraint_chunk_grid), ext_constraint_chunk_check, gen);
    k->mode = mode;
    return k;
  }
  auto k = std::make_shared<ExtConstraintKernel>();
  init_chunked(*k, air, name, dag, shape, chunk_nodes);
  k->mode = mode;
  k->programs.resize(k->chunks.size());
  k->program_slots.resize(k->chunks.size());
  for_each_chunk_dag(*k, air, dag, [&](size_t c, const SymbolicDag& sub) {
    const ExtProgram p = compile_ext_program(sub, shape);
    if (p.slots > kExtInterpreterSlots)
      throw InputError(fmt::format(
          "constraint chunk {} (constraints {} to {}) needs {} value slots, the extension interpreter holds {}", c,
          k->chunks[c].range.first, k->chunks[c].range.first + k->chunks[c].range.count, p.slots,
          kExtInterpreterSlots));
    k->programs[c] = encode_ext_program(p);
    k->program_slots[c] = p.slots;
    k->chunks[c].kernel = mode == ExtKernelMode::Fused ? ext_fused_kernel() : ext_interpreter_kernel();
  });
  if (mode == ExtKernelMode::Fused) {
    std::vector<uint32_t> first_roots;
    for (const ConstraintKernel::Chunk& c : k->chunks) first_roots.push_back(c.range.first);
    k->fused = encode_fused_programs(k->programs, first_roots);
  }
  return k;
}

void eval_constraints(Graph& g, const std::string& name, const ConstraintKernel& kernel, const AirShape& shape,
                      std::span<const View<Fp>> parts, View<Fp> public_values, View<Fp4> lambda_powers, View<Fp4> out,
                      uint32_t log_height, uint64_t concurrent_rows) {
  auto fail = [&](const std::string& what) {
    throw GraphError(fmt::format("task '{}' (kernel {}): {}", name, kernel.name, what));
  };
  const std::vector<uint32_t> widths = shape.row_view_widths();
  if (widths != kernel.widths || shape.num_public_values != kernel.num_public_values)
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
  if (lambda_powers.count < kernel.num_constraints)
    fail(fmt::format("{} lambda powers, the AIR has {} constraints", lambda_powers.count, kernel.num_constraints));
  if (out.count != h) fail(fmt::format("out has {} values, the trace height is {}", out.count, h));
  public_values = public_values_or_empty(public_values, parts, lambda_powers);
  if (!kernel.base_fused.empty()) {
    // Interpreted: one dispatch of S slices (S as the generated chunks would run side by side),
    // summed into `out` when S > 1.
    const View<uint32_t> programs = words_view(g, kernel.name + ".programs", kernel.base_fused, kernel.name);
    const uint64_t slices = auto_slices(kernel, h, concurrent_rows);
    View<Fp4> dst = out;
    std::optional<Buffer<Fp4>> partials;
    if (slices > 1) {
      partials = g.transient<Fp4>(fmt::format("{}.partials.{}", name, g.tasks().size()), slices * h);
      dst = partials->all();
    }
    DynamicArgs args;
    args.views<Fp>(parts).view(public_values).view(lambda_powers).view(dst).view(programs);
    args.scalar(log_height).scalar(uint32_t(kernel.chunks.size()));
    g.dispatch(name, base_fused_kernel(), args, Grid{uint32_t(h), uint32_t(slices)});
    if (slices > 1) {
      DynamicArgs sum;
      sum.view(partials->all()).view(out).scalar(static_cast<uint32_t>(slices));
      g.dispatch(name + ".sum", partials_sum_kernel(), sum, Grid{static_cast<uint32_t>(h)});
    }
    return;
  }
  dispatch_chunks(g, name, kernel, out, concurrent_rows, /*accumulate=*/false,
                  [&](const std::string& task, const ConstraintKernel::Chunk& chunk, View<Fp4> sum) {
                    DynamicArgs args;
                    args.views<Fp>(parts)
                        .view(public_values)
                        .view(lambda_powers.slice(chunk.range.first, chunk.range.count))
                        .view(sum)
                        .scalar(log_height);
                    g.dispatch(task, chunk.kernel, args, Grid{static_cast<uint32_t>(h)});
                  });
}

uint32_t ext_constraint_slices(const ExtConstraintKernel& kernel, uint64_t points, uint64_t concurrent_points) {
  return uint32_t(auto_slices(kernel, points, concurrent_points));
}

void eval_ext_constraints(Graph& g, const std::string& name, const ExtConstraintKernel& kernel, const AirShape& shape,
                          std::span<const View<Fp4>> parts, View<Fp> public_values, View<Fp4> coeffs, View<Fp4> out,
                          uint32_t log_len, uint32_t x_first, bool accumulate, uint64_t concurrent_points,
                          uint32_t slices) {
  auto fail = [&](const std::string& what) {
    throw GraphError(fmt::format("task '{}' (kernel {}): {}", name, kernel.name, what));
  };
  const std::vector<uint32_t> widths = shape.row_view_widths();
  if (widths != kernel.widths || shape.num_public_values != kernel.num_public_values)
    fail("the AIR shape given is not the one the kernel was made for");
  if (log_len > 30) fail(fmt::format("log_len {} (at most 30)", log_len));
  const uint64_t len = uint64_t(1) << log_len, y = log_len == 0 ? 1 : len / 2;
  if (parts.size() != widths.size())
    fail(fmt::format("{} table parts, the AIR has {} (preprocessed, cached, common)", parts.size(), widths.size()));
  for (size_t p = 0; p < parts.size(); ++p) {
    const uint64_t want = uint64_t(widths[p]) << log_len;
    if (parts[p].count != want)
      fail(fmt::format("table part {} has {} values, not width {} x length {} = {}", p, parts[p].count, widths[p], len,
                       want));
    if (want >= (uint64_t(1) << 32)) fail(fmt::format("table part {} has {} values, 2^32 or more", p, want));
  }
  if (public_values.count != shape.num_public_values)
    fail(fmt::format("{} public values, the AIR has {}", public_values.count, shape.num_public_values));
  if (coeffs.count < kernel.num_constraints)
    fail(fmt::format("{} coefficients, the kernel has {} roots", coeffs.count, kernel.num_constraints));
  if (slices > 0 && (accumulate || out.count % slices != 0))
    fail(fmt::format("{} values in {} unsummed slices{}", out.count, slices, accumulate ? ", accumulating" : ""));
  const uint64_t points = slices > 0 ? out.count / slices : out.count;
  if (points == 0 || points >= (uint64_t(1) << 32)) fail(fmt::format("out has {} points", points));
  if (x_first + (points - 1) / y >= (uint64_t(1) << 31))
    fail(fmt::format("points up to X = {}, at most 2^31 - 1", x_first + (points - 1) / y));
  public_values = public_values_or_empty(public_values, parts, coeffs);
  if (kernel.mode == ExtKernelMode::Fused)
    return eval_fused(g, name, kernel, parts, public_values, coeffs, out, log_len, x_first, accumulate,
                      concurrent_points, slices);
  const bool interpreted = kernel.mode == ExtKernelMode::Interpreted;
  if (interpreted && kernel.programs.size() != kernel.chunks.size())
    fail(fmt::format("{} programs for {} chunks", kernel.programs.size(), kernel.chunks.size()));
  dispatch_chunks(
      g, name, kernel, out, concurrent_points, accumulate,
      [&](const std::string& task, const ConstraintKernel::Chunk& chunk, View<Fp4> sum) {
        DynamicArgs args;
        args.views<Fp4>(parts).view(public_values).view(coeffs.slice(chunk.range.first, chunk.range.count)).view(sum);
        if (interpreted) {
          const size_t c = size_t(&chunk - kernel.chunks.data());
          args.view(program_view(g, kernel, c, coeffs));
        }
        args.scalar(log_len).scalar(x_first);
        g.dispatch(task, chunk.kernel, args, Grid{static_cast<uint32_t>(sum.count)});
      },
      slices);
}

}  // namespace vkstark
