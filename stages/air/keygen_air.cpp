// keygen's host half (stages/air/keygen.hpp): each AIR's checks, its symbolic constraints and DAG,
// its verifying key entry. No executor: the fuzz target of AIRs given as data runs it too.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <map>
#include <unordered_set>

#include "runtime/error.hpp"
#include "runtime/kernel_abi.hpp"
#include "stages/air/keygen.hpp"

namespace vkstark {

namespace {

// ------------------------------------------------------------------------------------------------
// Checks of one AIR, in the order air_keygen runs them: the shape and preprocessed trace before
// eval() runs; then what eval() emitted (the reference's order where it has the check: something to
// prove, empty messages, degree); the variables last, on the DAG.

[[noreturn]] void reject(const std::string& air, const std::string& what) {
  throw InputError(fmt::format("AIR {}: {}", air, what));
}

void check_shape(const std::string& air, const AirShape& s) {
  if (s.common_width == 0)
    reject(air, fmt::format("the common main width is 0 (every AIR needs a common main part){}",
                            s.num_cached() > 0 ? fmt::format(", even with {} cached parts", s.num_cached()) : ""));
  for (uint32_t i = 0; i < s.num_cached(); ++i)
    if (s.cached_widths[i] == 0) reject(air, fmt::format("cached part {} has width 0 (nothing to commit)", i));
  const uint64_t parts = uint64_t(s.preprocessed_width > 0) + s.num_cached() + 1;
  if (parts > kMaxViewArray)
    reject(air, fmt::format("{} trace parts ({} preprocessed, {} cached, 1 common main), more than the {} a constraint "
                            "kernel reads",
                            parts, s.preprocessed_width > 0 ? 1 : 0, s.num_cached(), kMaxViewArray));
}

void check_preprocessed_trace(const std::string& air, const AirShape& s, const std::optional<TraceMatrix>& t,
                              const SystemParams& params) {
  if (s.preprocessed_width == 0) {
    if (t)
      reject(air,
             "preprocessed_trace() returns a trace but the shape declares no preprocessed part "
             "(preprocessed_width 0)");
    return;
  }
  if (!t)
    reject(air, fmt::format("the shape declares a preprocessed part of width {} but preprocessed_trace() returns none",
                            s.preprocessed_width));
  if (t->width != s.preprocessed_width)
    reject(air,
           fmt::format("the preprocessed trace has {} columns, the shape declares {}", t->width, s.preprocessed_width));
  if (!std::has_single_bit(t->height))
    reject(air, fmt::format("the preprocessed trace height {} is not a power of two", t->height));
  if (t->values.size() != uint64_t(t->width) * t->height)
    reject(air, fmt::format("the preprocessed trace holds {} values, not {} columns x {} rows", t->values.size(),
                            t->width, t->height));
  const uint32_t log_height = std::countr_zero(t->height);
  if (log_height > params.log_stacked_height())
    reject(air, fmt::format("the preprocessed trace height 2^{} exceeds the stacked height 2^(l_skip + n_stack) = 2^{}",
                            log_height, params.log_stacked_height()));
}

void check_interactions(const std::string& air, const SymbolicAir& s, const SystemParams& params) {
  const uint32_t log_max = params.logup.log_max_message_length;
  std::map<uint16_t, uint64_t> weight_per_bus;  // the AIR's coefficient in the bus's trace-height constraint
  for (size_t i = 0; i < s.interactions.size(); ++i) {
    const InteractionExpr& in = s.interactions[i];
    if (in.message.empty()) reject(air, fmt::format("interaction {} (bus {}) has an empty message", i, in.bus));
    // The bus index is hashed as one more message field: length + 1 <= 2^log_max_message_length.
    if (log_max < 64 && in.message.size() + 1 > (uint64_t(1) << log_max))
      reject(air, fmt::format("interaction {} (bus {}) has a message of {} fields; with the bus, {} > 2^{} "
                              "(params.logup.log_max_message_length)",
                              i, in.bus, in.message.size(), in.message.size() + 1, log_max));
    if ((weight_per_bus[in.bus] += in.count_weight) > UINT32_MAX)
      reject(air, fmt::format("the count weights of its interactions on bus {} sum to more than 2^32 - 1 at "
                              "interaction {}, the largest trace-height coefficient (protocol.md 4.5)",
                              in.bus, i));
  }
}

void check_degrees(const std::string& air, const SymbolicAir& s, const SystemParams& params) {
  const uint32_t max = params.max_constraint_degree;
  for (size_t c = 0; c < s.constraints.size(); ++c)
    if (s.constraints[c].degree() > max)
      reject(air, fmt::format("constraint {} has degree {}, above params.max_constraint_degree = {}: {}", c,
                              s.constraints[c].degree(), max, to_string(s.constraints[c])));
  for (size_t i = 0; i < s.interactions.size(); ++i) {
    const InteractionExpr& in = s.interactions[i];
    for (size_t f = 0; f < in.message.size(); ++f)
      if (in.message[f].degree() > max)
        reject(air, fmt::format("interaction {} (bus {}) message field {} has degree {}, above "
                                "params.max_constraint_degree = {}: {}",
                                i, in.bus, f, in.message[f].degree(), max, to_string(in.message[f])));
    if (in.count.degree() > max)
      reject(air,
             fmt::format("interaction {} (bus {}) count has degree {}, above params.max_constraint_degree = {}: {}", i,
                         in.bus, in.count.degree(), max, to_string(in.count)));
  }
  // The vk stores an AIR's degree in a u8.
  const uint32_t degree = max_constraint_degree(s);
  if (degree > UINT8_MAX) reject(air, fmt::format("constraint degree {} does not fit the verifying key's u8", degree));
}

// The first constraint (emission order), then interaction field, whose expression reads `v`.
std::string user_of(const Variable& v, const SymbolicAir& s) {
  std::unordered_set<const ExprNode*> seen;
  auto reads = [&](const Expr& root) {
    std::vector<const ExprNode*> stack{root.id()};
    while (!stack.empty()) {
      const ExprNode* n = stack.back();
      stack.pop_back();
      if (!n || !seen.insert(n).second) continue;
      if (n->kind == NodeKind::Variable && n->var == v) return true;
      stack.push_back(n->left.get());
      stack.push_back(n->right.get());
    }
    return false;
  };
  for (size_t c = 0; c < s.constraints.size(); ++c)
    if (reads(s.constraints[c])) return fmt::format("constraint {} ({})", c, to_string(s.constraints[c]));
  for (size_t i = 0; i < s.interactions.size(); ++i) {
    const InteractionExpr& in = s.interactions[i];
    for (size_t f = 0; f < in.message.size(); ++f)
      if (reads(in.message[f]))
        return fmt::format("interaction {} (bus {}) message field {} ({})", i, in.bus, f, to_string(in.message[f]));
    if (reads(in.count)) return fmt::format("interaction {} (bus {}) count ({})", i, in.bus, to_string(in.count));
  }
  return "a DAG node";
}

// Every variable node of the DAG (those of simplified-away subexpressions too: they are in the vk)
// against the shape; the builder's Window already rejects reads past a width, hand-built variables
// reach only this check.
void check_variables(const std::string& air, const SymbolicAir& s, const SymbolicDag& dag) {
  for (const DagNode& n : dag.nodes) {
    if (n.kind != NodeKind::Variable) continue;
    const std::string problem = variable_problem(n.var, s.shape);
    if (!problem.empty()) reject(air, fmt::format("{} reads {}: {}", user_of(n.var, s), to_string(n.var), problem));
  }
}

}  // namespace

StarkVerifyingKey verifying_key_entry(const AirProvingKey& pk) {
  const SymbolicAir& s = pk.symbolic;
  const SymbolicDag& dag = pk.dag;
  // An AIR given as data (Air::given_key): its degree and is_required stand as they are.
  const StarkVerifyingKey* given = pk.air ? pk.air->given_key() : nullptr;
  StarkVerifyingKey k;
  TraceWidth& w = k.params.width;
  if (s.shape.preprocessed_width > 0) w.preprocessed = s.shape.preprocessed_width;
  w.cached_mains = s.shape.cached_widths;
  w.common_main = s.shape.common_width;
  k.params.num_public_values = s.shape.num_public_values;
  k.params.need_rot = dag.need_rot();
  k.symbolic_constraints = dag;
  k.max_constraint_degree = given ? given->max_constraint_degree : static_cast<uint8_t>(max_constraint_degree(s));
  k.is_required = given ? given->is_required : false;
  k.unused_variables = find_unused_variables(dag, w, k.params.need_rot);
  return k;
}

AirProvingKey keygen_air(const std::shared_ptr<const Air>& air, const SystemParams& params) {
  if (!air) throw InputError("keygen: an AIR is null");
  AirProvingKey pk;
  pk.air = air;
  pk.name = air->name();
  pk.shape = air->shape();
  check_shape(pk.name, pk.shape);
  pk.preprocessed_trace = air->preprocessed_trace();
  check_preprocessed_trace(pk.name, pk.shape, pk.preprocessed_trace, params);
  pk.symbolic = symbolic_air(*air);
  const SymbolicAir& s = pk.symbolic;
  if (s.constraints.empty() && s.interactions.empty()) reject(pk.name, "no constraints and no interactions");
  check_interactions(pk.name, s, params);
  check_degrees(pk.name, s, params);
  if (const StarkVerifyingKey* given = air->given_key()) {
    // The DAG as the key has it (with the nodes simplification left unused): the same vk bytes.
    pk.dag = given->symbolic_constraints;
    if (given->max_constraint_degree > params.max_constraint_degree)
      reject(pk.name, fmt::format("its verifying key entry has degree {}, above params.max_constraint_degree = {}",
                                  given->max_constraint_degree, params.max_constraint_degree));
  } else {
    pk.dag = build_dag(s);
  }
  check_variables(pk.name, s, pk.dag);
  return pk;
}

void KeyAirMatch::check(uint32_t a, const std::shared_ptr<const Air>& air) {
  const AirProvingKey& entry = pk_.per_air.at(a);
  if (!air)
    throw InputError(
        fmt::format("AIR {} (AIR {} of the proving key): its AirWithTraces has no AIR (air is null); "
                    "set it to the AIR the key was made from",
                    entry.name, a));
  if (air == entry.air) return;
  if (air->name() != entry.name)
    throw InputError(
        fmt::format("AIR {} of the proving key is {}, its traces are given for AIR {}", a, entry.name, air->name()));
  std::lock_guard lock(mutex_);
  std::vector<std::weak_ptr<const Air>>& seen = matched_[a];
  std::erase_if(seen, [](const std::weak_ptr<const Air>& w) { return w.expired(); });
  for (const std::weak_ptr<const Air>& w : seen)
    if (w.lock() == air) return;
  const auto refuse = [&](const std::string& what) {
    throw InputError(fmt::format(
        "AIR {} (AIR {} of the proving key): the AIR given with its traces has the name of the key's but {}: "
        "it is not the AIR the key was made from (make the key from this AIR, or give the key's)",
        entry.name, a, what));
  };
  const AirShape shape = air->shape();
  if (shape.row_view_widths() != entry.shape.row_view_widths())
    refuse(fmt::format("other widths ({} against the key's {})", fmt::join(shape.row_view_widths(), ", "),
                       fmt::join(entry.shape.row_view_widths(), ", ")));
  if (shape.num_public_values != entry.shape.num_public_values)
    refuse(fmt::format("{} public values (the key's: {})", shape.num_public_values, entry.shape.num_public_values));
  // An AIR given as data carries its DAG as its key has it (keygen_air takes it so); else its DAG.
  const StarkVerifyingKey* given = air->given_key();
  const SymbolicDag dag = given ? given->symbolic_constraints : build_dag(symbolic_air(*air));
  if (dag != entry.dag)
    refuse(fmt::format("other constraints ({} constraints, {} interactions, {} nodes; the key's: {}, {}, {})",
                       dag.constraint_idx.size(), dag.interactions.size(), dag.nodes.size(),
                       entry.dag.constraint_idx.size(), entry.dag.interactions.size(), entry.dag.nodes.size()));
  seen.push_back(air);
}

}  // namespace vkstark
