#include "runtime/spirv_interface.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <vector>

namespace vkstark {

namespace {

// The few SPIR-V opcodes, decorations and storage classes the check reads (SPIR-V spec 3.x).
enum Op : uint32_t {
  kOpName = 5,
  kOpMemberName = 6,
  kOpTypeInt = 21,
  kOpTypeVector = 23,
  kOpTypeArray = 28,
  kOpTypeRuntimeArray = 29,
  kOpTypeStruct = 30,
  kOpTypePointer = 32,
  kOpConstant = 43,
  kOpVariable = 59,
  kOpDecorate = 71,
  kOpMemberDecorate = 72,
};
enum Decoration : uint32_t {
  kBufferBlock = 3,
  kArrayStride = 6,
  kNonWritable = 24,
  kNonReadable = 25,
  kBinding = 33,
  kDescriptorSet = 34,
  kOffset = 35,
  kBuiltIn = 11,
};
constexpr uint32_t kBuiltInNumWorkgroups = 24;
enum StorageClass : uint32_t { kUniform = 2, kPushConstant = 9, kStorageBuffer = 12 };

struct Module {
  std::map<uint32_t, std::vector<uint32_t>> types;              // id -> the type instruction's words (opcode first)
  std::map<uint32_t, uint32_t> constants;                       // id -> 32-bit value
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> pointers;   // id -> (storage class, pointee)
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> variables;  // id -> (pointer type, storage class)
  std::map<uint32_t, std::map<uint32_t, std::vector<uint32_t>>> decorations;  // id -> decoration -> literals
  std::map<std::pair<uint32_t, uint32_t>, std::map<uint32_t, uint32_t>> member_decorations;
  std::map<std::pair<uint32_t, uint32_t>, std::string> member_names;

  bool has(uint32_t id, uint32_t decoration) const {
    auto it = decorations.find(id);
    return it != decorations.end() && it->second.count(decoration);
  }
  std::optional<uint32_t> literal(uint32_t id, uint32_t decoration) const {
    auto it = decorations.find(id);
    if (it == decorations.end()) return std::nullopt;
    auto d = it->second.find(decoration);
    if (d == it->second.end() || d->second.empty()) return std::nullopt;
    return d->second[0];
  }
  bool member_has(uint32_t id, uint32_t member, uint32_t decoration) const {
    auto it = member_decorations.find({id, member});
    return it != member_decorations.end() && it->second.count(decoration);
  }
};

std::string literal_string(std::span<const uint32_t> words) {
  std::string s;
  for (uint32_t w : words)
    for (int b = 0; b < 4; ++b) {
      char c = static_cast<char>((w >> (8 * b)) & 0xFF);
      if (c == '\0') return s;
      s += c;
    }
  return s;
}

std::optional<Module> parse(std::span<const uint32_t> spirv, std::string& error) {
  if (spirv.size() < 5 || spirv[0] != 0x07230203) {
    error = "not SPIR-V (no magic number)";
    return std::nullopt;
  }
  Module m;
  for (size_t i = 5; i < spirv.size();) {
    const uint32_t count = spirv[i] >> 16, op = spirv[i] & 0xFFFF;
    if (count == 0 || i + count > spirv.size()) {
      error = fmt::format("malformed instruction at word {}", i);
      return std::nullopt;
    }
    std::span<const uint32_t> w = spirv.subspan(i, count);
    switch (op) {
      case kOpMemberName:
        if (count >= 4) m.member_names[{w[1], w[2]}] = literal_string(w.subspan(3));
        break;
      case kOpTypeInt:
      case kOpTypeVector:
      case kOpTypeArray:
      case kOpTypeRuntimeArray:
      case kOpTypeStruct:
        if (count >= 2) m.types[w[1]] = {w.begin(), w.end()};
        break;
      case kOpTypePointer:
        if (count >= 4) m.pointers[w[1]] = {w[2], w[3]};
        break;
      case kOpConstant:
        if (count >= 4) m.constants[w[2]] = w[3];
        break;
      case kOpVariable:
        if (count >= 4) m.variables[w[2]] = {w[1], w[3]};
        break;
      case kOpDecorate:
        if (count >= 3) m.decorations[w[1]][w[2]] = {w.begin() + 3, w.end()};
        break;
      case kOpMemberDecorate:
        if (count >= 4) m.member_decorations[{w[1], w[2]}][w[3]] = count >= 5 ? w[4] : 0;
        break;
      default:
        break;
    }
    i += count;
  }
  return m;
}

// Bytes of a type as laid out in a push block (uint/int, vectors, arrays with their stride).
std::optional<uint32_t> type_bytes(const Module& m, uint32_t id) {
  auto it = m.types.find(id);
  if (it == m.types.end()) return std::nullopt;
  const std::vector<uint32_t>& t = it->second;
  switch (t[0] & 0xFFFF) {
    case kOpTypeInt:
      return t[2] / 8;
    case kOpTypeVector: {
      auto c = type_bytes(m, t[2]);
      return c ? std::optional<uint32_t>(*c * t[3]) : std::nullopt;
    }
    case kOpTypeArray: {
      auto stride = m.literal(id, kArrayStride);
      auto len = m.constants.find(t[3]);
      if (!stride || len == m.constants.end()) return std::nullopt;
      return *stride * len->second;
    }
    default:
      return std::nullopt;
  }
}

std::string check_buffer(const Module& m, const KernelAbi& abi, uint32_t var, uint32_t pointee) {
  auto binding = m.literal(var, kBinding);
  auto set = m.literal(var, kDescriptorSet);
  if (!binding || set.value_or(0) != 0)
    return fmt::format("a storage buffer outside descriptor set 0 (set {})", set.value_or(0));
  if (*binding >= abi.views.size())
    return fmt::format("storage buffer at binding {}, the interface has {} views", *binding, abi.views.size());
  const ViewParam& view = abi.views[*binding];
  uint32_t block = pointee, count = 0;
  if (auto t = m.types.find(pointee); t != m.types.end() && (t->second[0] & 0xFFFF) == kOpTypeArray) {
    auto len = m.constants.find(t->second[3]);
    count = len == m.constants.end() ? 0 : len->second;
    block = t->second[2];
  }
  if (count != view.array)
    return fmt::format("binding {} ('{}') has {} descriptors, the interface {}", *binding, view.name, count ? count : 1,
                       view.slots());
  auto bt = m.types.find(block);
  if (bt == m.types.end() || (bt->second[0] & 0xFFFF) != kOpTypeStruct || bt->second.size() < 3)
    return fmt::format("binding {} ('{}') is not a buffer block", *binding, view.name);
  const uint32_t member_type = bt->second[2];
  if (auto stride = m.literal(member_type, kArrayStride); stride && (*stride == 0 || view.type.size % *stride != 0))
    return fmt::format("binding {} ('{}') has array stride {}, which does not divide {} ({} bytes)", *binding,
                       view.name, *stride, view.type.name, view.type.size);
  const bool non_writable = m.member_has(block, 0, kNonWritable) || m.has(var, kNonWritable);
  const bool non_readable = m.member_has(block, 0, kNonReadable) || m.has(var, kNonReadable);
  if (view.access == Access::Read && !non_writable)
    return fmt::format("binding {} ('{}') is read-only in the interface but writable in the shader (readonly missing)",
                       *binding, view.name);
  if (view.access == Access::Write && !non_readable)
    return fmt::format(
        "binding {} ('{}') is write-only in the interface but readable in the shader (writeonly missing)", *binding,
        view.name);
  return {};
}

std::string check_push(const Module& m, const KernelAbi& abi, uint32_t block) {
  auto bt = m.types.find(block);
  if (bt == m.types.end() || (bt->second[0] & 0xFFFF) != kOpTypeStruct)
    return "the push-constant block is not a struct";
  const std::vector<PushMember> want = push_members(abi);
  uint32_t bytes = 0;
  for (uint32_t k = 0; k + 2 < bt->second.size(); ++k) {
    auto offset = m.member_decorations.find({block, k});
    auto size = type_bytes(m, bt->second[2 + k]);
    if (offset == m.member_decorations.end() || !offset->second.count(kOffset) || !size)
      return fmt::format("push-constant member {} has no offset or size", k);
    bytes = std::max(bytes, offset->second.at(kOffset) + *size);
    auto name = m.member_names.find({block, k});
    if (name != m.member_names.end() && !name->second.empty() && (k >= want.size() || name->second != want[k].name))
      return fmt::format("push-constant member {} is '{}', the interface has '{}'", k, name->second,
                         k < want.size() ? want[k].name : std::string("nothing"));
  }
  if (bytes > abi.push_words() * 4)
    return fmt::format("the push-constant block has {} bytes, the interface pushes {}", bytes, abi.push_words() * 4);
  return {};
}

}  // namespace

std::string spirv_interface_mismatch(std::span<const uint32_t> spirv, const KernelAbi& abi) {
  std::string error;
  std::optional<Module> m = parse(spirv, error);
  if (!m) return error;
  for (const auto& [var, v] : m->variables) {
    const auto& [pointer, storage] = v;
    auto p = m->pointers.find(pointer);
    if (p == m->pointers.end()) continue;
    const uint32_t pointee = p->second.second;
    if (storage == kStorageBuffer || (storage == kUniform && m->has(pointee, kBufferBlock))) {
      if (std::string e = check_buffer(*m, abi, var, pointee); !e.empty()) return e;
    } else if (storage == kUniform) {
      return "the shader declares a uniform buffer; kernels take storage buffers and push constants only";
    } else if (storage == kPushConstant) {
      if (std::string e = check_push(*m, abi, pointee); !e.empty()) return e;
    }
  }
  return {};
}

bool spirv_reads_num_workgroups(std::span<const uint32_t> spirv) {
  std::string error;
  const std::optional<Module> m = parse(spirv, error);
  if (!m) return false;
  for (const auto& [id, decorations] : m->decorations) {
    auto it = decorations.find(kBuiltIn);
    if (it != decorations.end() && !it->second.empty() && it->second[0] == kBuiltInNumWorkgroups) return true;
  }
  return false;
}

}  // namespace vkstark
