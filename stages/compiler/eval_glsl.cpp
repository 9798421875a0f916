// GLSL body of the constraint kernel (stages/compiler/constraint_kernel.hpp), from the DAG.
//
// One invocation per row r; straight-line code over the nodes the constraints reach, in DAG order
// (children first), each constraint folded right after its node (the schedule, schedule.hpp):
//   const uint t12=fp_mul(fp_add(L0(3u),sT),t9);    node 12 = (main column 3 + is_transition) * node 9
//   F(4u,t12)                                       node 12 is constraint 4: acc += lambda^4 * t12
// Base-field values are uints in Montgomery form (fp.glsl).
//
// The accumulator: per coefficient of the Fp4 sum a 64-bit integer (alo, ahi) holding
// V = sum of lambda^k_j * C_k over Montgomery words, V = R^2 * sum mod p. F adds the 32 x 32 -> 64
// products (each below p^2 < 0.88 * 2^62) without reduction; D, after every third F, replaces V by
// lo + hi * (2^32 mod p) (the same residue, below 2^60 + 2^32), so three more products never
// overflow 64 bits. At the end one Montgomery reduction of V (below p * 2^32 after a last D) gives
// R * sum, the Montgomery form of the sum. A term costs one widening multiply and an add with
// carry per coefficient, where fp4_add(a, fp4_scale(lambda^k, C_k)) costs four Montgomery
// products and four modular adds: on the Keccak-f AIR the 3182 folds were more code than its
// 10,221 Mul nodes.
//
// Why this shape, for DAGs of ~40k nodes (the Keccak-f AIR):
// - Each constraint is folded into the accumulator right after its node, so no constraint value
//   stays live to the end (thousands of them would be thousands of registers).
// - An operation used once is written inside its user's expression (at most kMaxInlineDepth deep):
//   it is computed where it is needed, and needs no name (glslang makes a function-scope variable
//   of every name). The others are statements named after their node index (t<i>), so the GLSL
//   reads against node_to_string.
// - Trace reads, public values, selectors and constants are operands, not statements: a read is
//   L<p>(col) (local row) or N<p>(col) (next row), macros over the part's base index, so the driver
//   compiler decides whether to keep a loaded value or load it again (both come from the same
//   read-only buffer). The text is about 20 bytes per node, its SPIR-V about 50 words.
// - Every kSplit operations the code has a branch no invocation takes (`if(pc.grid_y==0u)return;`:
//   a dispatch with grid_y = 0 has no invocations), which the driver cannot fold, so no basic block
//   holds more than about kSplit operations. NIR-based drivers spend time superlinear in the size
//   of a basic block: lavapipe's vkCreateComputePipelines took 93.6 s on an 11k-node DAG as one
//   block, 13.5 s with a block every 100 operations, 11.1 s every 300. The branch costs one uniform
//   compare per block at run time.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "runtime/error.hpp"
#include "runtime/kernel_abi.hpp"
#include "stages/air/eval.hpp"
#include "stages/compiler/constraint_kernel.hpp"
#include "stages/compiler/schedule.hpp"

namespace vkstark {

namespace {

// What the live nodes read, checked against the shape.
struct Reads {
  std::vector<bool> local, next;  // per row-view part
  bool first = false, last = false, transition = false;
};

Reads check_reads(const SymbolicDag& dag, const AirShape& shape, const std::vector<uint8_t>& live) {
  const std::vector<uint32_t> widths = shape.row_view_widths();
  Reads reads{std::vector<bool>(widths.size()), std::vector<bool>(widths.size())};
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    if (!live[i]) continue;
    const DagNode& d = dag.nodes[i];
    switch (d.kind) {
      case NodeKind::Variable: {
        const Variable& v = d.var;
        if (v.entry == EntryKind::Challenge)
          throw InputError("the constraint DAG reads a challenge variable, which vkstark does not support");
        if (v.entry == EntryKind::Public) {
          if (v.index >= shape.num_public_values)
            throw InputError(
                fmt::format("DAG node {} reads public value {}, the AIR has {}", i, v.index, shape.num_public_values));
          break;
        }
        if (v.entry == EntryKind::Preprocessed && shape.preprocessed_width == 0)
          throw InputError(fmt::format("DAG node {} reads the preprocessed part, the AIR has none", i));
        if (v.entry == EntryKind::Main && v.part > shape.num_cached())
          throw InputError(
              fmt::format("DAG node {} reads main part {}, the AIR has {}", i, v.part, shape.num_cached() + 1));
        const uint32_t p = row_view_part(v, shape);
        if (v.index >= widths[p])
          throw InputError(fmt::format("DAG node {} reads column {} of row-view part {}, which has {} columns", i,
                                       v.index, p, widths[p]));
        if (v.offset > 1) throw InputError(fmt::format("DAG node {} reads row offset {} (0 or 1 only)", i, v.offset));
        (v.offset == 0 ? reads.local : reads.next)[p] = true;
        break;
      }
      case NodeKind::IsFirstRow:
        reads.first = true;
        break;
      case NodeKind::IsLastRow:
        reads.last = true;
        break;
      case NodeKind::IsTransition:
        reads.transition = true;
        break;
      default:
        break;
    }
  }
  return reads;
}

using Text = std::back_insert_iterator<fmt::memory_buffer>;

// Operations per basic block (see the top of the file).
constexpr uint32_t kSplit = 256;
// Deepest nesting of inlined operations in one expression (glslang parses expressions recursively).
constexpr uint32_t kMaxInlineDepth = 12;

// Writes the statements of the live nodes in DAG order. Base mode (the constraint kernel): every
// value a uint. Extension mode (the extension kernel, ext_constraint_glsl_body): trace reads are
// uvec4 (interpolated table values), constants and public values uint, and an operation is uint
// when all of its operands are ("base"), else uvec4 (mixed operands: fp4_scale, fp4_add_base).
class Emitter {
 public:
  Emitter(const SymbolicDag& dag, const ConstraintSchedule& schedule, const AirShape& shape, Text out, bool ext = false)
      : dag_(dag),
        shape_(shape),
        out_(out),
        ext_(ext),
        inline_(dag.nodes.size(), false),
        named_read_(dag.nodes.size(), false),
        base_(dag.nodes.size(), true) {
    // An operation used once (by one operation or one fold: the schedule's uses) is written where
    // it is used: it needs no name, and glslang makes a function-scope variable of every name.
    const std::vector<uint8_t>& live = schedule.live;
    const std::vector<uint32_t>& uses = schedule.uses;
    std::vector<uint32_t> depth(dag.nodes.size(), 0);
    for (uint32_t i = 0; i < dag.nodes.size(); ++i) {
      const DagNode& d = dag.nodes[i];
      if (!live[i]) continue;
      if (d.kind == NodeKind::Variable && d.var.entry != EntryKind::Public) {
        base_[i] = !ext_;
        // An interpolated read costs three Fp4 operations: named once when read more than once.
        named_read_[i] = ext_ && uses[i] > 1;
      }
      if (!is_operation(d.kind)) continue;
      base_[i] = base_[d.left] && (d.kind == NodeKind::Neg || base_[d.right]);
      depth[i] = 1 + std::max(inline_[d.left] ? depth[d.left] : 0,
                              d.kind != NodeKind::Neg && inline_[d.right] ? depth[d.right] : 0);
      inline_[i] = uses[i] == 1 && depth[i] < kMaxInlineDepth;
    }
  }

  // Node i: a statement `const uint t<i>=...;` (uvec4 for an extension value) unless it is
  // written where it is used.
  void node(uint32_t i) {
    const DagNode& d = dag_.nodes[i];
    if (named_read_[i]) {
      fmt::format_to(out_, "const uvec4 t{}=", i);
      read(d);
      fmt::format_to(out_, ";\n");
      return;
    }
    if (inline_[i] || !is_operation(d.kind)) return;
    fmt::format_to(out_, "const {} t{}=", base_[i] ? "uint" : "uvec4", i);
    operation(i);
    fmt::format_to(out_, ";\n");
    split();
  }

  // acc += lambda^k * node i. Base mode lazily: F adds the four 64-bit products, and every third
  // term D folds the high words down (see the accumulator at the top of the file). Extension mode:
  // E (an extension value) or B (a base value) adds the product to acc.
  void fold(uint32_t k, uint32_t i) {
    fmt::format_to(out_, "{}({}u,", !ext_ ? 'F' : base_[i] ? 'B' : 'E', k);
    value(i);
    fmt::format_to(out_, ")\n");
    if (!ext_ && ++unfolded_terms_ == 3) {
      fmt::format_to(out_, "D\n");
      unfolded_terms_ = 0;
    }
    ++operations_;
    split();
  }

 private:
  void operation(uint32_t i) {
    const DagNode& d = dag_.nodes[i];
    const char* op = d.kind == NodeKind::Add   ? "add"
                     : d.kind == NodeKind::Sub ? "sub"
                     : d.kind == NodeKind::Mul ? "mul"
                                               : "neg";
    const bool lb = base_[d.left], rb = d.kind == NodeKind::Neg ? lb : base_[d.right];
    ++operations_;
    auto call = [&](const char* f, uint32_t a, uint32_t b, bool neg_a = false, bool neg_b = false) {
      fmt::format_to(out_, "{}(", f);
      if (neg_a) fmt::format_to(out_, "fp4_neg(");
      value(a);
      if (neg_a) *out_++ = ')';
      *out_++ = ',';
      if (neg_b) fmt::format_to(out_, "fp_neg(");
      value(b);
      if (neg_b) *out_++ = ')';
      *out_++ = ')';
    };
    if (lb == rb) {  // both base (fp_) or both extension (fp4_)
      fmt::format_to(out_, "{}_{}(", lb ? "fp" : "fp4", op);
      value(d.left);
      if (d.kind != NodeKind::Neg) {
        *out_++ = ',';
        value(d.right);
      }
      *out_++ = ')';
      return;
    }
    // One extension operand and one base operand.
    const uint32_t e = lb ? d.right : d.left, b = lb ? d.left : d.right;
    switch (d.kind) {
      case NodeKind::Mul:
        return call("fp4_scale", e, b);
      case NodeKind::Add:
        return call("fp4_add_base", e, b);
      default:  // Sub: e - b, or b - e = -e + b
        return lb ? call("fp4_add_base", e, b, true, false) : call("fp4_add_base", e, b, false, true);
    }
  }

  // An extension-mode trace read: the interpolated value of its column (R<p>(col)).
  void read(const DagNode& d) { fmt::format_to(out_, "R{}({}u)", row_view_part(d.var, shape_), d.var.index); }

  // The value of node i as an operand.
  void value(uint32_t i) {
    const DagNode& d = dag_.nodes[i];
    switch (d.kind) {
      case NodeKind::Variable:
        if (d.var.entry == EntryKind::Public)
          fmt::format_to(out_, "PV({}u)", d.var.index);
        else if (named_read_[i])
          fmt::format_to(out_, "t{}", i);
        else if (ext_)
          read(d);
        else
          fmt::format_to(out_, "{}{}({}u)", d.var.offset == 0 ? 'L' : 'N', row_view_part(d.var, shape_), d.var.index);
        return;
      case NodeKind::IsFirstRow:
        fmt::format_to(out_, "sF");
        return;
      case NodeKind::IsLastRow:
        fmt::format_to(out_, "sL");
        return;
      case NodeKind::IsTransition:
        fmt::format_to(out_, "sT");
        return;
      case NodeKind::Constant:
        fmt::format_to(out_, "{}u", d.constant.mont());
        return;
      default:
        if (inline_[i])
          operation(i);
        else
          fmt::format_to(out_, "t{}", i);
    }
  }

  void split() {
    if (operations_ < kSplit) return;
    fmt::format_to(out_, "if(pc.grid_y==0u)return;\n");
    operations_ = 0;
  }

  const SymbolicDag& dag_;
  const AirShape& shape_;
  Text out_;
  const bool ext_;
  std::vector<bool> inline_, named_read_, base_;
  uint32_t operations_ = 0;      // since the last split
  uint32_t unfolded_terms_ = 0;  // products added since the last D
};

}  // namespace

std::string constraint_glsl_body(const SymbolicDag& dag, const AirShape& shape) {
  return constraint_glsl_body(dag, schedule_constraints(dag), shape);
}

std::string constraint_glsl_body(const SymbolicDag& dag, const ConstraintSchedule& schedule, const AirShape& shape) {
  const uint32_t nparts = static_cast<uint32_t>(shape.row_view_widths().size());
  if (nparts > kMaxViewArray)
    throw InputError(fmt::format("{} row-view parts, the constraint kernel takes at most {}", nparts, kMaxViewArray));
  check_schedule(dag, schedule);
  const Reads reads = check_reads(dag, shape, schedule.live);

  fmt::memory_buffer buf;
  Text out(buf);
  fmt::format_to(out, "#include \"fp4.glsl\"\n");
  for (uint32_t p = 0; p < nparts; ++p) {
    if (reads.local[p]) fmt::format_to(out, "#define L{0}(c) parts_[{0}].data[l{0}+(c)*h]\n", p);
    if (reads.next[p]) fmt::format_to(out, "#define N{0}(c) parts_[{0}].data[n{0}+(c)*h]\n", p);
  }
  fmt::format_to(out,
                 "#define PV(i) public_values_[pc.public_values_off+(i)]\n"
                 "#define LP(i) lambda_powers_[pc.lambda_powers_off+(i)]\n"
                 "#define F(k,v) {{umulExtended(LP(k),uvec4(v),ph,pl);alo=uaddCarry(alo,pl,cy);ahi+=ph+cy;}}\n"
                 "#define D {{umulExtended(ahi,uvec4(FP_ONE),ph,pl);alo=uaddCarry(alo,pl,cy);ahi=ph+cy;}}\n"
                 "void main() {{\n"
                 "const uint r=vks_index_x();\n"
                 "if(r>=pc.grid_x)return;\n"
                 "const uint h=1u<<pc.log_height;\n"
                 "const uint n=(r+1u)&(h-1u);\n");
  for (uint32_t p = 0; p < nparts; ++p) {
    if (reads.local[p]) fmt::format_to(out, "const uint l{0}=pc.parts_off[{0}]+r;\n", p);
    if (reads.next[p]) fmt::format_to(out, "const uint n{0}=pc.parts_off[{0}]+n;\n", p);
  }
  if (reads.first) fmt::format_to(out, "const uint sF=r==0u?FP_ONE:0u;\n");
  if (reads.last) fmt::format_to(out, "const uint sL=r==h-1u?FP_ONE:0u;\n");
  if (reads.transition) fmt::format_to(out, "const uint sT=r!=h-1u?FP_ONE:0u;\n");
  fmt::format_to(out, "uvec4 alo=uvec4(0u),ahi=uvec4(0u),ph,pl,cy;\n");

  Emitter emit(dag, schedule, shape, out);
  schedule.walk([&](uint32_t i) { emit.node(i); },
                [&](uint32_t, const ConstraintFold& f) { emit.fold(f.constraint, f.node); });
  // The accumulator below p * 2^32 after a last D: one Montgomery reduction per coefficient (the
  // reduction of fp_mul) gives its value in [0, p).
  fmt::format_to(out,
                 "D\n"
                 "umulExtended(alo*FP_MU,uvec4(FP_P),ph,pl);\n"
                 "out_[pc.out_off+r]=fp4_add(out_[pc.out_off+r],ahi-ph+mix(uvec4(0u),uvec4(FP_P),lessThan(ahi,ph)));\n"
                 "}}\n");
  return fmt::to_string(buf);
}

std::string ext_constraint_glsl_body(const SymbolicDag& dag, const AirShape& shape) {
  return ext_constraint_glsl_body(dag, schedule_constraints(dag), shape);
}

std::string ext_constraint_glsl_body(const SymbolicDag& dag, const ConstraintSchedule& schedule,
                                     const AirShape& shape) {
  const uint32_t nparts = static_cast<uint32_t>(shape.row_view_widths().size());
  if (nparts > kMaxViewArray)
    throw InputError(fmt::format("{} row-view parts, the extension kernel takes at most {}", nparts, kMaxViewArray));
  check_schedule(dag, schedule);
  const Reads reads = check_reads(dag, shape, schedule.live);
  if (reads.first || reads.last || reads.transition)
    throw InputError("the DAG has a selector node: the extension kernel reads selectors as table columns");
  for (uint32_t p = 0; p < nparts; ++p)
    if (reads.next[p])
      throw InputError(
          fmt::format("the DAG reads the next row of part {}: the extension kernel reads local tables "
                      "only",
                      p));

  fmt::memory_buffer buf;
  Text out(buf);
  // R<p>(c): column c of part p at the invocation's point, t[2y] (X = 0: t[2y + 1] is not read) or
  // t[2y] + X (t[2y + 1] - t[2y]).
  fmt::format_to(out,
                 "#include \"fp4.glsl\"\n"
                 "uint gx;\n"
                 "uvec4 ip(uvec4 a,uvec4 b){{return fp4_add(a,fp4_scale(fp4_sub(b,a),gx));}}\n");
  for (uint32_t p = 0; p < nparts; ++p)
    if (reads.local[p])
      fmt::format_to(out,
                     "#define R{0}(c) (gx==0u?parts_[{0}].data[a{0}+(c)*len]:ip(parts_[{0}].data[a{0}+(c)*len],"
                     "parts_[{0}].data[a{0}+(c)*len+1u]))\n",
                     p);
  fmt::format_to(out,
                 "#define PV(i) public_values_[pc.public_values_off+(i)]\n"
                 "#define LP(i) coeffs_[pc.coeffs_off+(i)]\n"
                 "#define E(k,v) acc=fp4_add(acc,fp4_mul(LP(k),v));\n"
                 "#define B(k,v) acc=fp4_add(acc,fp4_scale(LP(k),v));\n"
                 "void main() {{\n"
                 "const uint o=vks_index_x();\n"
                 "if(o>=pc.grid_x)return;\n"
                 "const uint len=1u<<pc.log_len;\n"
                 "const uint ylog=pc.log_len==0u?0u:pc.log_len-1u;\n"
                 "const uint y=o&((1u<<ylog)-1u);\n"
                 "gx=fp_from_canonical(pc.x_first+(o>>ylog));\n");
  for (uint32_t p = 0; p < nparts; ++p)
    if (reads.local[p]) fmt::format_to(out, "const uint a{0}=pc.parts_off[{0}]+2u*y;\n", p);
  fmt::format_to(out, "uvec4 acc=uvec4(0u);\n");
  Emitter emit(dag, schedule, shape, out, /*ext=*/true);
  schedule.walk([&](uint32_t i) { emit.node(i); },
                [&](uint32_t, const ConstraintFold& f) { emit.fold(f.constraint, f.node); });
  fmt::format_to(out,
                 "out_[pc.out_off+o]=fp4_add(out_[pc.out_off+o],acc);\n"
                 "}}\n");
  return fmt::to_string(buf);
}

}  // namespace vkstark
