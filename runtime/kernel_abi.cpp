#include "runtime/kernel_abi.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <set>

#include "runtime/error.hpp"
#include "runtime/kernel.hpp"
#include "runtime/spirv_interface.hpp"

namespace vkstark {

namespace {

// GLSL 4.60 keywords and reserved words (GLSL spec 3.6) that an Args member could plausibly be named.
constexpr std::string_view kGlslReserved[] = {
    "active",    "asm",       "atomic_uint", "attribute", "bool",      "break",    "buffer",        "bvec2",
    "bvec3",     "bvec4",     "case",        "cast",      "centroid",  "class",    "coherent",      "common",
    "const",     "continue",  "default",     "discard",   "dmat2",     "dmat3",    "dmat4",         "do",
    "double",    "dvec2",     "dvec3",       "dvec4",     "else",      "enum",     "extern",        "external",
    "false",     "filter",    "fixed",       "flat",      "float",     "for",      "fvec2",         "fvec3",
    "fvec4",     "goto",      "half",        "highp",     "hvec2",     "hvec3",    "hvec4",         "if",
    "image1D",   "image2D",   "image3D",     "in",        "inline",    "inout",    "input",         "int",
    "interface", "invariant", "ivec2",       "ivec3",     "ivec4",     "layout",   "long",          "lowp",
    "mat2",      "mat3",      "mat4",        "mediump",   "namespace", "noinline", "noperspective", "out",
    "output",    "partition", "patch",       "precise",   "precision", "public",   "readonly",      "resource",
    "restrict",  "return",    "sample",      "sampler",   "shared",    "short",    "sizeof",        "smooth",
    "static",    "struct",    "subroutine",  "superp",    "switch",    "template", "this",          "true",
    "typedef",   "uint",      "uniform",     "union",     "unsigned",  "using",    "uvec2",         "uvec3",
    "uvec4",     "varying",   "vec2",        "vec3",      "vec4"};

bool is_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
}

uint32_t glsl_type_bytes(std::string_view glsl) {
  if (glsl == "uint" || glsl == "int") return 4;
  if (glsl == "uvec2" || glsl == "ivec2") return 8;
  if (glsl == "uvec4" || glsl == "ivec4") return 16;
  return 0;
}

std::string_view access_qualifier(Access a) {
  switch (a) {
    case Access::Read:
      return "readonly ";
    case Access::Write:
      return "writeonly ";
    case Access::ReadWrite:
      break;
  }
  return "";
}

}  // namespace

uint32_t KernelAbi::slots() const {
  uint32_t n = 0;
  for (const ViewParam& v : views) n += v.slots();
  return n;
}

uint32_t KernelAbi::push_words() const {
  uint32_t n = kPushHeaderWords;
  for (const ViewParam& v : views) n += v.array == 0 ? 2 : 2 * v.array + 1;
  for (const ScalarParam& s : scalars) n += s.words;
  return n;
}

uint32_t KernelAbi::scalar_words() const {
  uint32_t n = 0;
  for (const ScalarParam& s : scalars) n += s.words;
  return n;
}

std::vector<PushMember> push_members(const KernelAbi& abi) {
  std::vector<PushMember> out = {{"grid_x", 0, ""}, {"grid_y", 0, ""}};
  for (const ViewParam& v : abi.views) {
    out.push_back({v.name + "_off", v.array, v.name});
    out.push_back({v.name + "_len", v.array, v.name});
    if (v.array > 0) out.push_back({v.name + "_count", 0, v.name});
  }
  for (const ScalarParam& s : abi.scalars) out.push_back({s.name, s.words == 1 ? 0 : s.words, s.name});
  return out;
}

void KernelAbi::validate(std::string_view kernel) const {
  auto fail = [&](const std::string& what) { throw GraphError(fmt::format("kernel {}: {}", kernel, what)); };
  std::set<std::string, std::less<>> names = {"grid_x", "grid_y"};  // every name the GLSL declarations introduce
  auto claim = [&](const std::string& name, std::string_view member) {
    if (!is_identifier(member)) fail(fmt::format("'{}' is not a GLSL identifier", member));
    if (std::find(std::begin(kGlslReserved), std::end(kGlslReserved), name) != std::end(kGlslReserved))
      fail(fmt::format("member '{}' is a GLSL reserved word: rename it in the kernel's Args", member));
    if (name.rfind("gl_", 0) == 0 || name.rfind("vks_", 0) == 0 || name.find("__") != std::string::npos ||
        name == "pc" || name == "main")
      fail(fmt::format("the name '{}' (from member '{}') is reserved by GLSL or the runtime", name, member));
    if (name == "grid_x" || name == "grid_y")
      fail(fmt::format("the name '{}' (from member '{}') is reserved by the runtime", name, member));
    if (!names.insert(name).second)
      fail(fmt::format("the name '{}' (from member '{}') is generated twice: rename a member", name, member));
  };
  for (const ViewParam& v : views) {
    claim(v.name + "_", v.name);
    if (v.array > kMaxViewArray)
      fail(fmt::format("view array '{}' has {} views, at most {}", v.name, v.array, kMaxViewArray));
    const uint32_t unit = glsl_type_bytes(v.type.glsl);
    if (unit == 0 || v.type.size % unit != 0)
      fail(fmt::format("view '{}': element type {} ({} bytes) cannot be declared as GLSL {}", v.name, v.type.name,
                       v.type.size, v.type.glsl));
  }
  for (const ScalarParam& s : scalars)
    if (s.words == 0) fail(fmt::format("scalar '{}' has no words", s.name));
  for (const PushMember& m : push_members(*this))
    if (!m.param.empty()) claim(m.name, m.param);
  if (push_words() * 4 > kMaxPushBytes)
    fail(fmt::format("{} bytes of push constants (max {}): pass fewer views or scalars", push_words() * 4,
                     kMaxPushBytes));
}

void pack_push_constants(const KernelAbi& abi, Grid grid, std::span<const Binding> slots,
                         std::span<const uint32_t> slot_first, std::span<const uint32_t> scalars,
                         std::vector<uint32_t>& out) {
  out.push_back(grid.x);
  out.push_back(grid.y);
  size_t s = 0;
  for (const ViewParam& v : abi.views) {
    if (v.array == 0) {
      out.push_back(slot_first[s]);
      out.push_back(static_cast<uint32_t>(slots[s].count));
      ++s;
      continue;
    }
    uint32_t used = 0;
    for (uint32_t i = 0; i < v.array; ++i) out.push_back(slot_first[s + i]);
    for (uint32_t i = 0; i < v.array; ++i) {
      out.push_back(static_cast<uint32_t>(slots[s + i].count));
      used += slots[s + i].used();
    }
    out.push_back(used);
    s += v.array;
  }
  out.insert(out.end(), scalars.begin(), scalars.end());
}

std::string glsl_declarations(const KernelAbi& abi, std::string_view kernel,
                              std::span<const KernelConstant> constants) {
  std::string out = fmt::format(
      "// The interface of kernel {}, generated from its Args (runtime/kernel_abi.hpp). Do not edit.\n"
      "#include \"runtime.glsl\"\n",
      kernel);
  uint32_t binding = 0;
  for (const ViewParam& v : abi.views) {
    if (v.array == 0)
      out += fmt::format("layout(set = 0, binding = {0}) {1}buffer VksBinding{0} {{ {2} {3}_[]; }};\n", binding,
                         access_qualifier(v.access), v.type.glsl, v.name);
    else
      out += fmt::format("layout(set = 0, binding = {0}) {1}buffer VksBinding{0} {{ {2} data[]; }} {3}_[{4}];\n",
                         binding, access_qualifier(v.access), v.type.glsl, v.name, v.array);
    ++binding;
  }
  out += "layout(push_constant) uniform VksPush {\n";
  for (const PushMember& m : push_members(abi))
    out += m.count == 0 ? fmt::format("  uint {};\n", m.name) : fmt::format("  uint {}[{}];\n", m.name, m.count);
  out += "} pc;\n";
  std::set<std::string_view> names;
  for (const KernelConstant& c : constants) {
    const bool upper = !c.name.empty() && c.name[0] >= 'A' && c.name[0] <= 'Z' &&
                       std::all_of(c.name.begin(), c.name.end(), [](char ch) {
                         return ch == '_' || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
                       });
    if (!upper || c.name.rfind("VKS_", 0) == 0 || c.name.find("__") != std::string_view::npos)
      throw GraphError(
          fmt::format("kernel {}: constant '{}' is not an upper-case GLSL name of the kernel's own "
                      "([A-Z][A-Z0-9_]*, not VKS_...)",
                      kernel, c.name));
    if (!names.insert(c.name).second)
      throw GraphError(fmt::format("kernel {}: constant '{}' is declared twice", kernel, c.name));
    if (c.table.empty()) {
      out += fmt::format("const uint {} = {}u;\n", c.name, c.value);
    } else {
      out += fmt::format("const uint {0}[{1}] = uint[{1}](", c.name, c.table.size());
      for (size_t i = 0; i < c.table.size(); ++i) out += fmt::format("{}{}u", i == 0 ? "" : ", ", c.table[i]);
      out += ");\n";
    }
  }
  return out;
}

std::shared_ptr<const KernelInfo> make_runtime_kernel(RuntimeKernelDesc desc) {
  constexpr uint32_t kSpirvMagic = 0x07230203;
  if (desc.name.empty()) throw GraphError("a run-time kernel needs a name");
  desc.abi.validate(desc.name);
  if (desc.cpu_only && !desc.spirv.empty())
    throw GraphError(fmt::format("run-time kernel {}: CPU only, yet it has SPIR-V", desc.name));
  if (!desc.cpu_only && (desc.spirv.size() < 5 || desc.spirv[0] != kSpirvMagic))
    throw GraphError(fmt::format("run-time kernel {}: its code is not SPIR-V (no magic number)", desc.name));
  if (!desc.cpu) throw GraphError(fmt::format("run-time kernel {}: no CPU body", desc.name));
  // Without them a dispatch could pass views shorter than its grid covers and be refused by no
  // executor, or by one only (a CPU body's own bounds check).
  if (!desc.grid || !desc.check)
    throw GraphError(
        fmt::format("run-time kernel {}: no {} (RuntimeKernelDesc: the grid its views need and what "
                    "is wrong with them, as K::grid and K::check of a compiled kernel)",
                    desc.name, !desc.grid ? "grid rule" : "check"));
  if (std::string e = desc.cpu_only ? std::string() : spirv_interface_mismatch(desc.spirv, desc.abi); !e.empty())
    throw GraphError(fmt::format("run-time kernel {}: its SPIR-V does not match its interface: {}", desc.name, e));
  if (!desc.cpu_only && spirv_reads_num_workgroups(desc.spirv))
    spdlog::warn(
        "run-time kernel {} reads gl_NumWorkGroups: about 0.13 us more per dispatch on NVIDIA GPUs "
        "(vks_group_x / vks_launched_groups_x in runtime.glsl do without it)",
        desc.name);
  auto info = std::make_shared<KernelInfo>();
  info->name = std::move(desc.name);
  info->abi = std::move(desc.abi);
  info->workgroup_size = desc.workgroup_size;
  info->spirv = std::move(desc.spirv);
  info->spirv_hash = spirv_content_hash(info->spirv);
  info->runtime = true;
  info->cpu_only = desc.cpu_only;
  info->cpu = [body = std::move(desc.cpu)](const void*, const CpuContext& ctx) { body(ctx); };
  info->runtime_grid = std::move(desc.grid);
  info->runtime_check = std::move(desc.check);
  return info;
}

uint64_t spirv_content_hash(std::span<const uint32_t> words) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ words.size();
  for (uint32_t w : words) {
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  return h;
}

const Binding& CpuContext::checked_slot(uint32_t slot, TypeTag type) const {
  std::span<const Binding> b = bindings();
  if (slot >= b.size())
    throw ExecutionError(fmt::format("task '{}': descriptor slot {} of {}", task_name(), slot, b.size()));
  if (b[slot].type != type)
    throw ExecutionError(
        fmt::format("task '{}': slot {} holds {}, read as {}", task_name(), slot, b[slot].type.name, type.name));
  return b[slot];
}

}  // namespace vkstark
