#include "runtime/spirv_interface.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <vector>

namespace vkstark {

namespace {

// The few SPIR-V opcodes, decorations and storage classes the check reads (SPIR-V spec 3.x).
enum Op : uint32_t {
  kOpName = 5,
  kOpMemberName = 6,
  kOpCapability = 17,
  kOpTypeBool = 20,
  kOpTypeInt = 21,
  kOpTypeFloat = 22,
  kOpTypeVector = 23,
  kOpTypeArray = 28,
  kOpTypeRuntimeArray = 29,
  kOpTypeStruct = 30,
  kOpTypePointer = 32,
  kOpConstantTrue = 41,
  kOpConstantFalse = 42,
  kOpConstant = 43,
  kOpConstantComposite = 44,
  kOpSpecConstantTrue = 48,
  kOpSpecConstantFalse = 49,
  kOpSpecConstant = 50,
  kOpSpecConstantComposite = 51,
  kOpSpecConstantOp = 52,
  kOpVariable = 59,
  kOpDecorate = 71,
  kOpMemberDecorate = 72,
};
enum Decoration : uint32_t {
  kSpecId = 1,
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
enum StorageClass : uint32_t { kUniform = 2, kWorkgroup = 4, kPushConstant = 9, kStorageBuffer = 12 };

struct Module {
  std::map<uint32_t, std::vector<uint32_t>> types;              // id -> the type instruction's words (opcode first)
  std::map<uint32_t, uint32_t> constants;                       // id -> 32-bit value
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> pointers;   // id -> (storage class, pointee)
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> variables;  // id -> (pointer type, storage class)
  std::map<uint32_t, std::map<uint32_t, std::vector<uint32_t>>> decorations;  // id -> decoration -> literals
  std::map<std::pair<uint32_t, uint32_t>, std::map<uint32_t, uint32_t>> member_decorations;
  std::map<std::pair<uint32_t, uint32_t>, std::string> member_names;
  std::vector<uint32_t> capabilities;
  // Constants that are not plain 32-bit OpConstant, and every specialization constant: id -> the
  // instruction's words (opcode first), evaluated on demand (spirv_needs).
  std::map<uint32_t, std::vector<uint32_t>> other_constants;

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
      case kOpCapability:
        if (count >= 2) m.capabilities.push_back(w[1]);
        break;
      case kOpConstantTrue:
      case kOpConstantFalse:
      case kOpConstantComposite:
      case kOpSpecConstantTrue:
      case kOpSpecConstantFalse:
      case kOpSpecConstant:
      case kOpSpecConstantComposite:
      case kOpSpecConstantOp:
        if (count >= 3) m.other_constants[w[2]] = {w.begin(), w.end()};
        break;
      case kOpTypeBool:
      case kOpTypeStruct:
        if (count >= 2) m.types[w[1]] = {w.begin(), w.end()};
        break;
      case kOpTypeFloat:
      case kOpTypeRuntimeArray:
        if (count >= 3) m.types[w[1]] = {w.begin(), w.end()};
        break;
      case kOpTypeInt:
      case kOpTypeVector:
      case kOpTypeArray:
        if (count >= 4) m.types[w[1]] = {w.begin(), w.end()};
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
std::optional<uint32_t> type_bytes(const Module& m, uint32_t id, int depth = 0) {
  auto it = m.types.find(id);
  if (it == m.types.end() || depth > 16) return std::nullopt;  // (a type made of itself)
  const std::vector<uint32_t>& t = it->second;
  switch (t[0] & 0xFFFF) {
    case kOpTypeInt:
      return t[2] / 8;
    case kOpTypeVector: {
      auto c = type_bytes(m, t[2], depth + 1);
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

// The value of a constant or specialization constant under `spec` (SpecId -> value; a spec constant
// not in it keeps its default): scalars as one value, composites as their constituents. Nullopt for
// what it cannot evaluate (an operation outside the integer and logical ones a size is made of).
class ConstantEvaluator {
 public:
  ConstantEvaluator(const Module& m, std::span<const std::pair<uint32_t, uint32_t>> spec) : m_(m), spec_(spec) {}

  std::optional<std::vector<uint64_t>> value(uint32_t id, int depth = 0) {
    if (auto c = m_.constants.find(id); c != m_.constants.end()) return std::vector<uint64_t>{c->second};
    // Each id once (a module may share constants many times over), and none deeper than 64 or wider
    // than 256 values (hostile words must not cost exponential time or memory).
    if (auto done = memo_.find(id); done != memo_.end()) return done->second;
    if (depth > 64) return std::nullopt;
    auto v = evaluate(id, depth);
    if (v && v->size() > 256) v.reset();
    memo_[id] = v;
    return v;
  }

  std::optional<uint64_t> scalar(uint32_t id) {
    auto v = value(id);
    if (!v || v->size() != 1) return std::nullopt;
    return (*v)[0];
  }

 private:
  std::optional<std::vector<uint64_t>> evaluate(uint32_t id, int depth) {
    auto it = m_.other_constants.find(id);
    if (it == m_.other_constants.end()) return std::nullopt;
    const std::vector<uint32_t>& w = it->second;
    switch (w[0] & 0xFFFF) {
      case kOpConstantTrue:
        return std::vector<uint64_t>{1};
      case kOpConstantFalse:
        return std::vector<uint64_t>{0};
      case kOpSpecConstantTrue:
      case kOpSpecConstantFalse:
      case kOpSpecConstant: {
        const uint64_t fallback = (w[0] & 0xFFFF) == kOpSpecConstant       ? (w.size() > 3 ? w[3] : 0)
                                  : (w[0] & 0xFFFF) == kOpSpecConstantTrue ? 1
                                                                           : 0;
        if (auto sid = m_.literal(id, kSpecId))
          for (const auto& [k, v] : spec_)
            if (k == *sid) return std::vector<uint64_t>{v};
        return std::vector<uint64_t>{fallback};
      }
      case kOpConstantComposite:
      case kOpSpecConstantComposite: {
        std::vector<uint64_t> out;
        for (size_t i = 3; i < w.size(); ++i) {
          auto part = value(w[i], depth + 1);
          if (!part || out.size() + part->size() > 256) return std::nullopt;
          out.insert(out.end(), part->begin(), part->end());
        }
        return out;
      }
      case kOpSpecConstantOp:
        return operation(w, depth);
      default:
        return std::nullopt;
    }
  }

  std::optional<std::vector<uint64_t>> operation(const std::vector<uint32_t>& w, int depth) {
    if (w.size() < 5) return std::nullopt;
    const uint32_t op = w[3];
    if (op == 81) {  // OpCompositeExtract: composite, then literal indices (one level: vectors)
      auto c = value(w[4], depth + 1);
      if (!c || w.size() != 6 || w[5] >= c->size()) return std::nullopt;
      return std::vector<uint64_t>{(*c)[w[5]]};
    }
    std::vector<uint64_t> a;
    for (size_t i = 4; i < w.size(); ++i) {
      auto v = value(w[i], depth + 1);
      if (!v || v->size() != 1) return std::nullopt;
      a.push_back((*v)[0]);
    }
    const uint32_t bits = type_bits(w[1]);
    const uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    auto signed_of = [&](uint64_t x) { return bits >= 64 || !(x >> (bits - 1) & 1) ? int64_t(x) : int64_t(x | ~mask); };
    auto one = [&](uint64_t r) { return std::optional<std::vector<uint64_t>>(std::vector<uint64_t>{r & mask}); };
    const uint64_t x = a[0], y = a.size() > 1 ? a[1] : 0;
    switch (op) {
      case 126:
        return one(uint64_t(0) - x);  // OpSNegate (two's complement)
      case 200:
        return one(~x);  // OpNot
      case 113:
      case 114:
        return one(x);  // OpUConvert, OpSConvert
      case 168:
        return one(x == 0);  // OpLogicalNot
      default:
        break;
    }
    if (a.size() == 3 && op == 169) return one(x ? a[1] : a[2]);  // OpSelect
    if (a.size() != 2) return std::nullopt;
    switch (op) {
      case 128:
        return one(x + y);  // OpIAdd
      case 130:
        return one(x - y);  // OpISub
      case 132:
        return one(x * y);  // OpIMul
      case 134:
        if (y == 0) return std::nullopt;
        return one(x / y);  // OpUDiv
      case 135:             // OpSDiv (the one overflowing quotient refused)
        if (y == 0 || (signed_of(y) == -1 && signed_of(x) == std::numeric_limits<int64_t>::min())) return std::nullopt;
        return one(uint64_t(signed_of(x) / signed_of(y)));
      case 137:
        if (y == 0) return std::nullopt;
        return one(x % y);  // OpUMod
      case 194:
        return one(y >= 64 ? 0 : x >> y);  // OpShiftRightLogical
      case 195:
        return one(uint64_t(signed_of(x) >> std::min<uint64_t>(y, 63)));  // OpShiftRightArithmetic
      case 196:
        return one(y >= 64 ? 0 : x << y);  // OpShiftLeftLogical
      case 197:
        return one(x | y);  // OpBitwiseOr
      case 198:
        return one(x ^ y);  // OpBitwiseXor
      case 199:
        return one(x & y);  // OpBitwiseAnd
      case 164:
        return one((x != 0) == (y != 0));  // OpLogicalEqual
      case 165:
        return one((x != 0) != (y != 0));  // OpLogicalNotEqual
      case 166:
        return one(x || y);  // OpLogicalOr
      case 167:
        return one(x && y);  // OpLogicalAnd
      case 170:
        return one(x == y);  // OpIEqual
      case 171:
        return one(x != y);  // OpINotEqual
      case 172:
        return one(x > y);  // OpUGreaterThan
      case 173:
        return one(signed_of(x) > signed_of(y));  // OpSGreaterThan
      case 174:
        return one(x >= y);  // OpUGreaterThanEqual
      case 175:
        return one(signed_of(x) >= signed_of(y));  // OpSGreaterThanEqual
      case 176:
        return one(x < y);  // OpULessThan
      case 177:
        return one(signed_of(x) < signed_of(y));  // OpSLessThan
      case 178:
        return one(x <= y);  // OpULessThanEqual
      case 179:
        return one(signed_of(x) <= signed_of(y));  // OpSLessThanEqual
      default:
        return std::nullopt;
    }
  }

  uint32_t type_bits(uint32_t type) const {
    auto t = m_.types.find(type);
    if (t == m_.types.end()) return 32;
    const uint32_t op = t->second[0] & 0xFFFF;
    const uint32_t bits = op == kOpTypeInt ? t->second[2] : op == kOpTypeBool ? 1 : 32;
    return std::clamp<uint32_t>(bits, 1, 64);
  }

  const Module& m_;
  std::span<const std::pair<uint32_t, uint32_t>> spec_;
  std::map<uint32_t, std::optional<std::vector<uint64_t>>> memo_;
};

// Bytes of a Workgroup variable's type: natural sizes, array lengths evaluated (they may be
// specialization constants: the workgroup size).
std::optional<uint64_t> workgroup_bytes(const Module& m, ConstantEvaluator& eval, uint32_t id, int depth = 0) {
  auto it = m.types.find(id);
  if (it == m.types.end() || depth > 16) return std::nullopt;
  const std::vector<uint32_t>& t = it->second;
  switch (t[0] & 0xFFFF) {
    case kOpTypeBool:
      return 4;
    case kOpTypeInt:
    case kOpTypeFloat:
      return t.size() > 2 ? std::optional<uint64_t>(t[2] / 8) : std::nullopt;
    case kOpTypeVector: {
      auto c = workgroup_bytes(m, eval, t[2], depth + 1);
      return c ? std::optional<uint64_t>(*c * t[3]) : std::nullopt;
    }
    case kOpTypeArray: {
      auto e = workgroup_bytes(m, eval, t[2], depth + 1);
      auto len = eval.scalar(t[3]);
      return e && len ? std::optional<uint64_t>(*e * *len) : std::nullopt;
    }
    case kOpTypeStruct: {
      uint64_t sum = 0;
      for (size_t k = 2; k < t.size(); ++k) {
        auto b = workgroup_bytes(m, eval, t[k], depth + 1);
        if (!b) return std::nullopt;
        sum += *b;
      }
      return sum;
    }
    default:
      return std::nullopt;
  }
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

namespace vkstark {

SpirvNeeds spirv_needs(std::span<const uint32_t> spirv, std::span<const std::pair<uint32_t, uint32_t>> spec) {
  SpirvNeeds out;
  std::optional<Module> m = parse(spirv, out.error);
  if (!m) return out;
  for (uint32_t c : m->capabilities) {
    out.int64 |= c == 11;                                                       // Int64
    out.int16 |= c == 22;                                                       // Int16
    out.int8 |= c == 39;                                                        // Int8
    out.float64 |= c == 10;                                                     // Float64
    out.subgroup_basic |= c >= 61 && c <= 68;                                   // GroupNonUniform*
    out.subgroup_shuffle |= c == 65 || c == 66;                                 // GroupNonUniformShuffle(Relative)
    out.subgroup_other |= c == 62 || c == 63 || c == 64 || c == 67 || c == 68;  // vote, arithmetic, ballot...
  }
  ConstantEvaluator eval(*m, spec);
  for (const auto& [var, v] : m->variables) {
    const auto& [pointer, storage] = v;
    auto p = m->pointers.find(pointer);
    if (p == m->pointers.end()) continue;
    const uint32_t pointee = p->second.second;
    if (storage == kWorkgroup) {
      auto bytes = workgroup_bytes(*m, eval, pointee);
      if (!bytes) {
        out.error = fmt::format("the size of workgroup variable %{} could not be evaluated", var);
        continue;
      }
      out.shared_bytes += *bytes;
    } else if (storage == kStorageBuffer || (storage == kUniform && m->has(pointee, kBufferBlock))) {
      uint32_t count = 1;
      if (auto t = m->types.find(pointee); t != m->types.end() && (t->second[0] & 0xFFFF) == kOpTypeArray)
        count = static_cast<uint32_t>(eval.scalar(t->second[3]).value_or(1));
      out.storage_buffers += count;
    } else if (storage == kPushConstant) {
      auto bt = m->types.find(pointee);
      if (bt == m->types.end()) continue;
      for (uint32_t k = 0; k + 2 < bt->second.size(); ++k) {
        auto offset = m->member_decorations.find({pointee, k});
        auto size = type_bytes(*m, bt->second[2 + k]);
        if (offset != m->member_decorations.end() && offset->second.count(kOffset) && size)
          out.push_constant_bytes = std::max(out.push_constant_bytes, offset->second.at(kOffset) + *size);
      }
    }
  }
  return out;
}

}  // namespace vkstark
