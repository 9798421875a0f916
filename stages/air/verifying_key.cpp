#include "stages/air/verifying_key.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "runtime/kernel_abi.hpp"
#include "stages/encoding/codec.hpp"

namespace vkstark {

AirShape StarkVerifyingParams::shape() const {
  AirShape s;
  s.preprocessed_width = width.preprocessed.value_or(0);
  s.cached_widths = width.cached_mains;
  s.common_width = width.common_main;
  s.num_public_values = num_public_values;
  return s;
}

bool LinearConstraint::is_implied_by(const LinearConstraint& other) const {
  if (threshold < other.threshold) return false;
  for (size_t i = 0; i < coefficients.size() && i < other.coefficients.size(); ++i)
    if (coefficients[i] > other.coefficients[i]) return false;
  return true;
}

std::vector<Variable> find_unused_variables(const SymbolicDag& dag, const TraceWidth& width, bool need_rot) {
  using Seen = std::vector<std::array<bool, 2>>;  // per column: offset 0, offset 1
  Seen preprocessed(width.preprocessed.value_or(0));
  std::vector<Seen> main;
  for (uint32_t w : width.cached_mains) main.emplace_back(w);
  main.emplace_back(width.common_main);
  for (const DagNode& n : dag.nodes) {
    if (n.kind != NodeKind::Variable || n.var.offset > 1) continue;
    const Variable& v = n.var;
    // Variables outside the widths are rejected by keygen and the decoder; they mark nothing here.
    if (v.entry == EntryKind::Preprocessed && v.index < preprocessed.size()) preprocessed[v.index][v.offset] = true;
    if (v.entry == EntryKind::Main && v.part < main.size() && v.index < main[v.part].size())
      main[v.part][v.index][v.offset] = true;
  }
  std::vector<Variable> unused;
  auto collect = [&](const Seen& seen, EntryKind entry, uint32_t part) {
    for (uint32_t col = 0; col < seen.size(); ++col)
      for (uint32_t offset = 0; offset < 2; ++offset)
        if (!seen[col][offset] && (offset == 0 || need_rot)) unused.push_back({entry, part, offset, col});
  };
  collect(preprocessed, EntryKind::Preprocessed, 0);
  for (uint32_t p = 0; p < main.size(); ++p) collect(main[p], EntryKind::Main, p);
  return unused;
}

namespace {

// A trace-height constraint with its non-zero coefficients only, (AIR, coefficient) by AIR
// ascending: a vk decoder may not allocate buses x AIRs coefficients for constraints that the
// minimisation drops.
struct SparseConstraint {
  std::vector<std::pair<uint32_t, uint32_t>> coefficients;
  uint32_t threshold = 0;

  uint32_t at(uint32_t air) const {
    auto it = std::lower_bound(coefficients.begin(), coefficients.end(), std::pair<uint32_t, uint32_t>{air, 0});
    return it != coefficients.end() && it->first == air ? it->second : 0;
  }
  bool is_implied_by(const SparseConstraint& other) const {
    if (threshold < other.threshold) return false;
    return std::all_of(coefficients.begin(), coefficients.end(),
                       [&](const auto& c) { return c.second <= other.at(c.first); });
  }
};

// protocol.md 4.5, as the reference's generate_pk: per bus (ascending) then the global one, then
// minimised in that order.
std::vector<SparseConstraint> sparse_trace_height_constraints(std::span<const StarkVerifyingKey> per_air,
                                                              const SystemParams& params) {
  std::map<uint16_t, std::map<uint32_t, uint64_t>> per_bus;  // bus -> AIR -> sum of count weights
  SparseConstraint global{{}, params.logup.max_interaction_count};
  for (uint32_t air = 0; air < per_air.size(); ++air) {
    const auto& interactions = per_air[air].symbolic_constraints.interactions;
    if (interactions.empty()) continue;
    if (interactions.size() > UINT32_MAX)
      throw InputError(
          fmt::format("AIR {}: {} interactions do not fit a u32 trace-height coefficient", air, interactions.size()));
    global.coefficients.emplace_back(air, static_cast<uint32_t>(interactions.size()));
    for (const DagInteraction& in : interactions) {
      uint64_t& sum = per_bus[in.bus][air];
      sum += in.count_weight;
      if (sum > UINT32_MAX)
        throw InputError(
            fmt::format("AIR {}: the count weights of its interactions on bus {} sum to more than a u32 "
                        "(the trace-height constraint of the bus cannot hold them)",
                        air, in.bus));
    }
  }
  std::vector<SparseConstraint> all;
  for (const auto& [bus, sums] : per_bus) {
    SparseConstraint c{{}, Fp::P};
    for (const auto& [air, sum] : sums)
      if (sum != 0) c.coefficients.emplace_back(air, static_cast<uint32_t>(sum));
    all.push_back(std::move(c));
  }
  all.push_back(std::move(global));
  std::vector<SparseConstraint> kept;
  for (SparseConstraint& c : all) {
    if (std::any_of(kept.begin(), kept.end(), [&](const SparseConstraint& k) { return c.is_implied_by(k); })) continue;
    std::erase_if(kept, [&](const SparseConstraint& k) { return k.is_implied_by(c); });
    kept.push_back(std::move(c));
  }
  return kept;
}

}  // namespace

std::vector<LinearConstraint> compute_trace_height_constraints(std::span<const StarkVerifyingKey> per_air,
                                                               const SystemParams& params) {
  std::vector<LinearConstraint> out;
  for (const SparseConstraint& s : sparse_trace_height_constraints(per_air, params)) {
    LinearConstraint c{std::vector<uint32_t>(per_air.size(), 0), s.threshold};
    for (const auto& [air, v] : s.coefficients) c.coefficients[air] = v;
    out.push_back(std::move(c));
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Postcard encoding (protocol.md 4.6): structs field by field in declaration order, unsigned
// integers as varints, isize zig-zag, u8 and bool one byte, Option a tag byte, Vec a varint length,
// digests without a length, enums a varint variant index then the variant's fields, field
// elements the varint of their Montgomery form.

namespace {

void put_params(ByteWriter& w, const SystemParams& p) {
  w.varint(p.l_skip);
  w.varint(p.n_stack);
  w.varint(p.w_stack);
  w.varint(p.log_blowup);
  w.varint(p.whir.k);
  w.varint(p.whir.rounds.size());
  for (const WhirRound& r : p.whir.rounds) w.varint(r.num_queries);
  w.varint(p.whir.mu_pow_bits);
  w.varint(p.whir.query_phase_pow_bits);
  w.varint(p.whir.folding_pow_bits);
  const WhirProximity& prox = p.whir.proximity;
  w.varint(static_cast<uint64_t>(prox.kind));  // UniqueDecoding 0, SplitUniqueList 1, ListDecoding 2
  if (prox.kind == WhirProximity::Kind::SplitUniqueList) {
    w.varint(prox.m);
    w.varint(prox.list_start_round);
  } else if (prox.kind == WhirProximity::Kind::ListDecoding) {
    w.varint(prox.m);
  }
  w.varint(p.logup.max_interaction_count);
  w.varint(p.logup.log_max_message_length);
  w.varint(p.logup.pow_bits);
  w.varint(p.max_constraint_degree);
}

void put_variable(ByteWriter& w, const Variable& v) {
  w.varint(static_cast<uint64_t>(v.entry));  // Entry: Preprocessed{offset}, Main{part_index, offset}, Public, Challenge
  if (v.entry == EntryKind::Preprocessed) {
    w.varint(v.offset);
  } else if (v.entry == EntryKind::Main) {
    w.varint(v.part);
    w.varint(v.offset);
  }
  w.varint(v.index);  // then SymbolicVariable's PhantomData: nothing
}

void put_node(ByteWriter& w, const DagNode& n) {
  w.varint(static_cast<uint64_t>(n.kind));
  switch (n.kind) {
    case NodeKind::Variable:
      put_variable(w, n.var);
      break;
    case NodeKind::IsFirstRow:
    case NodeKind::IsLastRow:
    case NodeKind::IsTransition:
      break;
    case NodeKind::Constant:
      w.varint(n.constant.mont());
      break;
    case NodeKind::Neg:
      w.varint(n.left);
      w.varint(n.degree);
      break;
    case NodeKind::Add:
    case NodeKind::Sub:
    case NodeKind::Mul:
      w.varint(n.left);
      w.varint(n.right);
      w.varint(n.degree);
      break;
  }
}

void put_air(ByteWriter& w, const StarkVerifyingKey& k) {
  w.u8(k.preprocessed_data.has_value());
  if (k.preprocessed_data) {
    for (Fp c : k.preprocessed_data->commit) w.varint(c.mont());
    w.zigzag(k.preprocessed_data->hypercube_dim);
    w.varint(k.preprocessed_data->stacking_width);
  }
  const TraceWidth& width = k.params.width;
  w.u8(width.preprocessed.has_value());
  if (width.preprocessed) w.varint(*width.preprocessed);
  w.varint(width.cached_mains.size());
  for (uint32_t c : width.cached_mains) w.varint(c);
  w.varint(width.common_main);
  w.varint(k.params.num_public_values);
  w.u8(k.params.need_rot);
  const SymbolicDag& dag = k.symbolic_constraints;
  w.varint(dag.nodes.size());
  for (const DagNode& n : dag.nodes) put_node(w, n);
  w.varint(dag.constraint_idx.size());
  for (uint32_t i : dag.constraint_idx) w.varint(i);
  w.varint(dag.interactions.size());
  for (const DagInteraction& in : dag.interactions) {
    w.varint(in.message.size());
    for (uint32_t m : in.message) w.varint(m);
    w.varint(in.count);
    w.varint(in.bus);
    w.varint(in.count_weight);
  }
  w.u8(k.max_constraint_degree);
  w.u8(k.is_required);
  w.varint(k.unused_variables.size());
  for (const Variable& v : k.unused_variables) put_variable(w, v);
}

}  // namespace

std::vector<uint8_t> encode_vk_postcard(const MultiStarkVerifyingKey& vk) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  put_params(w, vk.params);
  w.varint(vk.per_air.size());
  for (const StarkVerifyingKey& k : vk.per_air) put_air(w, k);
  w.varint(vk.trace_height_constraints.size());
  for (const LinearConstraint& c : vk.trace_height_constraints) {
    w.varint(c.coefficients.size());
    for (uint32_t x : c.coefficients) w.varint(x);
    w.varint(c.threshold);
  }
  return out;
}

Digest vk_pre_hash(std::span<const uint8_t> vk_bytes) {
  std::vector<Fp> elems;
  elems.reserve(12 + vk_bytes.size());
  auto put_le = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) elems.push_back(Fp::from_canonical_unchecked((v >> (8 * i)) & 0xff));
  };
  put_le(kVkPreHashCodecVersion, 4);
  put_le(vk_bytes.size(), 8);
  for (uint8_t b : vk_bytes) elems.push_back(Fp::from_canonical_unchecked(b));
  return hash_slice(std::span<const Fp>(elems));
}

// ------------------------------------------------------------------------------------------------
// Decoding. Every count is checked against the bytes left before anything is allocated for it
// (each item needs at least the bytes of its shortest encoding), and every value against what
// keygen can produce, with a message naming the field.

namespace {

// Shortest encodings, the bound each count is require()d against.
constexpr uint64_t kMinAirBytes = 12;         // 2 Option tags, 3 varints, 5 Vec lengths, u8, 2 bools
constexpr uint64_t kMinInteractionBytes = 4;  // empty message length, count, bus, count_weight
constexpr uint64_t kMinVariableBytes = 3;     // entry variant, offset, index
constexpr uint64_t kMinConstraintBytes = 2;   // empty coefficients length, threshold

class VkDecoder {
 public:
  explicit VkDecoder(std::span<const uint8_t> bytes) : r_(bytes) {}

  MultiStarkVerifyingKey decode() {
    MultiStarkVerifyingKey vk;
    vk.params = params();
    const uint64_t n = r_.varint_count("verifying key: per_air length", kMinAirBytes);
    if (n == 0) r_.fail("verifying key: per_air length", "no AIR");
    if (n > UINT32_MAX) r_.fail("verifying key: per_air length", fmt::format("{} AIRs do not fit a u32", n));
    vk.per_air.reserve(n);
    for (uint32_t a = 0; a < n; ++a) vk.per_air.push_back(air(a, vk.params));
    vk.trace_height_constraints = trace_height_constraints(vk);
    r_.expect_end("verifying key: end");
    return vk;
  }

 private:
  uint32_t u32(const FieldName& what) { return static_cast<uint32_t>(r_.varint(what, UINT32_MAX)); }
  bool boolean(const FieldName& what) {
    const uint8_t b = r_.u8(what);
    if (b > 1) r_.fail(what, fmt::format("bool byte {} is neither 0 nor 1", b));
    return b == 1;
  }
  bool option_tag(const FieldName& what) {
    const uint8_t b = r_.u8(what);
    if (b > 1) r_.fail(what, fmt::format("Option tag {} is neither 0 (None) nor 1 (Some)", b));
    return b == 1;
  }
  Fp field(const FieldName& what) {
    const uint32_t m = u32(what);
    if (m >= Fp::P) r_.fail(what, fmt::format("Montgomery form {} is not below p", m), DecodeReject::NotAFieldElement);
    return Fp::from_mont(m);
  }

  SystemParams params() {
    SystemParams p;
    p.l_skip = u32("verifying key: params l_skip");
    p.n_stack = u32("verifying key: params n_stack");
    p.w_stack = u32("verifying key: params w_stack");
    p.log_blowup = u32("verifying key: params log_blowup");
    p.whir.k = u32("verifying key: params whir.k");
    const uint64_t rounds = r_.varint_count("verifying key: params whir.rounds length", 1);
    if (rounds > kMaxLogStackedHeight)  // validate() bounds it again; no reserve beyond this
      r_.fail("verifying key: params whir.rounds length",
              fmt::format("{} rounds, more than {}", rounds, kMaxLogStackedHeight));
    for (uint64_t i = 0; i < rounds; ++i) p.whir.rounds.push_back({u32({"verifying key: params whir.rounds[{}]", i})});
    p.whir.mu_pow_bits = u32("verifying key: params whir.mu_pow_bits");
    p.whir.query_phase_pow_bits = u32("verifying key: params whir.query_phase_pow_bits");
    p.whir.folding_pow_bits = u32("verifying key: params whir.folding_pow_bits");
    const FieldName prox = "verifying key: params whir.proximity";
    const uint64_t variant = r_.varint(prox);
    if (variant > 2)
      r_.fail(prox, fmt::format("variant {} is not one of UniqueDecoding (0), SplitUniqueList (1), ListDecoding (2)",
                                variant));
    p.whir.proximity.kind = static_cast<WhirProximity::Kind>(variant);
    if (variant == 1) {
      p.whir.proximity.m = u32("verifying key: params whir.proximity m");
      p.whir.proximity.list_start_round = u32("verifying key: params whir.proximity list_start_round");
    } else if (variant == 2) {
      p.whir.proximity.m = u32("verifying key: params whir.proximity m");
    }
    p.logup.max_interaction_count = u32("verifying key: params logup.max_interaction_count");
    p.logup.log_max_message_length = u32("verifying key: params logup.log_max_message_length");
    p.logup.pow_bits = u32("verifying key: params logup.pow_bits");
    p.max_constraint_degree = u32("verifying key: params max_constraint_degree");
    try {
      p.validate();
    } catch (const InputError& e) {
      r_.fail("verifying key", e.what());
    }
    return p;
  }

  Variable variable(const FieldName& what) {
    Variable v;
    const uint64_t entry = r_.varint(what);
    switch (entry) {
      case 0:
        v.entry = EntryKind::Preprocessed;
        v.offset = u32(what);
        break;
      case 1:
        v.entry = EntryKind::Main;
        v.part = u32(what);
        v.offset = u32(what);
        break;
      case 2:
        v.entry = EntryKind::Public;
        break;
      case 3:
        r_.fail(what, "challenge variables are not supported");
      default:
        r_.fail(what, fmt::format("entry variant {} is not one of Preprocessed (0), Main (1), Public (2)", entry));
    }
    v.index = u32(what);
    if (v.offset > 1) r_.fail(what, fmt::format("row offset {} is neither 0 (local) nor 1 (next)", v.offset));
    return v;
  }

  // A variable must name a column of the AIR's parts, or one of its public values.
  DagNode node(uint32_t a, uint32_t i, const AirShape& shape) {
    const FieldName what{"verifying key: air {} node {}", a, i};
    DagNode n;
    const uint64_t kind = r_.varint(what);
    if (kind > 8) r_.fail(what, fmt::format("variant {} is not a node kind (0..8)", kind));
    n.kind = static_cast<NodeKind>(kind);
    auto child = [&](const char* side) {
      const uint32_t c = u32(what);
      if (c >= i) r_.fail(what, fmt::format("{} child {} is not below {}", side, c, i));
      return c;
    };
    switch (n.kind) {
      case NodeKind::Variable:
        n.var = variable(what);
        if (const std::string problem = variable_problem(n.var, shape); !problem.empty())
          r_.fail(what, fmt::format("{}: {}", to_string(n.var), problem));
        break;
      case NodeKind::IsFirstRow:
      case NodeKind::IsLastRow:
      case NodeKind::IsTransition:
        break;
      case NodeKind::Constant:
        n.constant = field(what);
        break;
      case NodeKind::Neg:
        n.left = child("operand");
        n.degree = u32(what);
        break;
      case NodeKind::Add:
      case NodeKind::Sub:
      case NodeKind::Mul:
        n.left = child("left");
        n.right = child("right");
        n.degree = u32(what);
        break;
    }
    return n;
  }

  std::optional<PreprocessedVerifierData> preprocessed_data(uint32_t a) {
    if (!option_tag({"verifying key: air {} preprocessed_data", a})) return std::nullopt;
    PreprocessedVerifierData d;
    for (Fp& c : d.commit) c = field({"verifying key: air {} preprocessed_data commit", a});
    d.hypercube_dim = r_.zigzag({"verifying key: air {} preprocessed_data hypercube_dim", a});
    d.stacking_width = u32({"verifying key: air {} preprocessed_data stacking_width", a});
    return d;
  }

  StarkVerifyingParams air_params(uint32_t a) {
    StarkVerifyingParams p;
    TraceWidth& w = p.width;
    if (option_tag({"verifying key: air {} width.preprocessed", a})) {
      w.preprocessed = u32({"verifying key: air {} width.preprocessed", a});
      if (*w.preprocessed == 0)
        r_.fail({"verifying key: air {} width.preprocessed", a}, "a preprocessed part of width 0");
    }
    const FieldName cached{"verifying key: air {} width.cached_mains length", a};
    const uint64_t num_cached = r_.varint_count(cached, 1);
    const uint64_t parts = num_cached + 1 + (w.preprocessed ? 1 : 0);
    if (parts > kMaxViewArray)
      r_.fail(cached, fmt::format("{} cached parts make {} parts, more than the {} supported", num_cached, parts,
                                  kMaxViewArray));
    for (uint64_t i = 0; i < num_cached; ++i) {
      w.cached_mains.push_back(u32({"verifying key: air {} width.cached_mains[{}]", a, i}));
      if (w.cached_mains.back() == 0) r_.fail({"verifying key: air {} width.cached_mains[{}]", a, i}, "width 0");
    }
    w.common_main = u32({"verifying key: air {} width.common_main", a});
    if (w.common_main == 0) r_.fail({"verifying key: air {} width.common_main", a}, "the common main width is 0");
    p.num_public_values = u32({"verifying key: air {} num_public_values", a});
    p.need_rot = boolean({"verifying key: air {} need_rot", a});
    return p;
  }

  SymbolicDag dag(uint32_t a, const StarkVerifyingParams& p, const SystemParams& params) {
    SymbolicDag dag;
    const FieldName nodes{"verifying key: air {} nodes length", a};
    const uint64_t num_nodes = r_.varint_count(nodes, 1);
    if (num_nodes > kMaxDagNodes)
      r_.fail(nodes, fmt::format("{} nodes, more than the {} supported", num_nodes, kMaxDagNodes));
    dag.nodes.reserve(num_nodes);
    const AirShape shape = p.shape();
    for (uint32_t i = 0; i < num_nodes; ++i) dag.nodes.push_back(node(a, i, shape));
    const uint64_t num_constraints = r_.varint_count({"verifying key: air {} constraint_idx length", a}, 1);
    dag.constraint_idx.reserve(num_constraints);
    for (uint64_t j = 0; j < num_constraints; ++j) {
      const FieldName what{"verifying key: air {} constraint_idx[{}]", a, j};
      const uint32_t idx = u32(what);
      if (idx >= num_nodes) r_.fail(what, fmt::format("node {} is not below the {} nodes", idx, num_nodes));
      if (j > 0 && idx <= dag.constraint_idx.back())
        r_.fail(what, fmt::format("node {} does not follow {} (the list is sorted, without repeats)", idx,
                                  dag.constraint_idx.back()));
      dag.constraint_idx.push_back(idx);
    }
    const uint64_t num_interactions =
        r_.varint_count({"verifying key: air {} interactions length", a}, kMinInteractionBytes);
    dag.interactions.reserve(num_interactions);
    // message length + 1 <= 2^log_max_message_length (validate() keeps the exponent small)
    const uint64_t max_message = (uint64_t(1) << std::min<uint32_t>(params.logup.log_max_message_length, 63)) - 1;
    for (uint64_t j = 0; j < num_interactions; ++j) {
      DagInteraction in;
      const FieldName message{"verifying key: air {} interaction {} message", a, j};
      const uint64_t len = r_.varint_count(message, 1);
      if (len == 0) r_.fail(message, "the message is empty");
      if (len > max_message)
        r_.fail(message, fmt::format("{} fields, more than 2^{} - 1 (log_max_message_length)", len,
                                     params.logup.log_max_message_length));
      for (uint64_t f = 0; f < len; ++f) {
        const uint32_t idx = u32(message);
        if (idx >= num_nodes)
          r_.fail(message, fmt::format("field {}: node {} is not below the {} nodes", f, idx, num_nodes));
        in.message.push_back(idx);
      }
      const FieldName count{"verifying key: air {} interaction {} count", a, j};
      in.count = u32(count);
      if (in.count >= num_nodes) r_.fail(count, fmt::format("node {} is not below the {} nodes", in.count, num_nodes));
      in.bus = static_cast<uint16_t>(r_.varint({"verifying key: air {} interaction {} bus_index", a, j}, UINT16_MAX));
      in.count_weight = u32({"verifying key: air {} interaction {} count_weight", a, j});
      dag.interactions.push_back(std::move(in));
    }
    return dag;
  }

  StarkVerifyingKey air(uint32_t a, const SystemParams& params) {
    StarkVerifyingKey k;
    k.preprocessed_data = preprocessed_data(a);
    k.params = air_params(a);
    const StarkVerifyingParams& p = k.params;
    if (k.preprocessed_data.has_value() != p.width.preprocessed.has_value())
      r_.fail({"verifying key: air {} preprocessed_data", a}, k.preprocessed_data
                                                                  ? "present but width.preprocessed is None"
                                                                  : "None but width.preprocessed is present");
    k.symbolic_constraints = dag(a, p, params);
    k.max_constraint_degree = r_.u8({"verifying key: air {} max_constraint_degree", a});
    k.is_required = boolean({"verifying key: air {} is_required", a});
    const FieldName unused{"verifying key: air {} unused_variables", a};
    const uint64_t num_unused = r_.varint_count(unused, kMinVariableBytes);
    k.unused_variables.reserve(num_unused);
    for (uint64_t j = 0; j < num_unused; ++j) k.unused_variables.push_back(variable(unused));
    check_air(a, k, params);
    return k;
  }

  // What keygen guarantees of an AIR and the decoder could not check while reading.
  void check_air(uint32_t a, const StarkVerifyingKey& k, const SystemParams& params) {
    const SymbolicDag& dag = k.symbolic_constraints;
    const TraceWidth& w = k.params.width;
    if (dag.constraint_idx.empty() && dag.interactions.empty())
      r_.fail({"verifying key: air {}", a}, "no constraints and no interactions");
    // Degrees and depth (the rest dag_problem checks was checked while reading).
    if (const std::string problem = dag_problem(dag); !problem.empty())
      r_.fail({"verifying key: air {} nodes", a}, problem);
    if (k.params.need_rot != dag.need_rot())
      r_.fail({"verifying key: air {} need_rot", a}, fmt::format("{} but {} variable node reads the next row",
                                                                 k.params.need_rot, dag.need_rot() ? "a" : "no"));
    const FieldName degree{"verifying key: air {} max_constraint_degree", a};
    if (k.max_constraint_degree > params.max_constraint_degree)
      r_.fail(degree, fmt::format("{} is above params.max_constraint_degree {}", k.max_constraint_degree,
                                  params.max_constraint_degree));
    const uint32_t root_degree = dag.max_root_degree();
    if (root_degree > k.max_constraint_degree)
      r_.fail(degree, fmt::format("{} is below the degree {} of a constraint or interaction node",
                                  k.max_constraint_degree, root_degree));
    if (k.preprocessed_data) {
      const PreprocessedVerifierData& d = *k.preprocessed_data;
      const FieldName dim{"verifying key: air {} preprocessed_data hypercube_dim", a};
      if (d.hypercube_dim < -int64_t(params.l_skip) || d.hypercube_dim > int64_t(params.n_stack))
        r_.fail(dim, fmt::format("{} is outside -l_skip..n_stack = {}..{}", d.hypercube_dim, -int64_t(params.l_skip),
                                 params.n_stack));
      // stacked_commit of the one preprocessed matrix: its columns of 2^max(log_height, l_skip)
      // rows fill stacked columns of 2^(l_skip + n_stack) (protocol.md 6.1).
      const uint32_t log_slice = static_cast<uint32_t>(std::max<int64_t>(d.hypercube_dim, 0)) + params.l_skip;
      const uint64_t per_column = uint64_t(1) << (params.log_stacked_height() - log_slice);
      const uint64_t want = (uint64_t(*w.preprocessed) + per_column - 1) / per_column;
      if (d.stacking_width != want)
        r_.fail({"verifying key: air {} preprocessed_data stacking_width", a},
                fmt::format("{}, but {} columns of 2^{} rows stack into {}", d.stacking_width, *w.preprocessed,
                            log_slice, want));
    }
    // Every column is read by a variable node or listed unused (at offset 0): bounds the widths by
    // the input before find_unused_variables allocates per column.
    uint64_t columns = uint64_t(w.preprocessed.value_or(0)) + w.common_main;
    for (uint32_t c : w.cached_mains) columns += c;
    if (columns > dag.nodes.size() + k.unused_variables.size())
      r_.fail({"verifying key: air {} width", a},
              fmt::format("{} columns, but the nodes and unused_variables name at most {}", columns,
                          dag.nodes.size() + k.unused_variables.size()));
    if (k.unused_variables != find_unused_variables(dag, w, k.params.need_rot))
      r_.fail({"verifying key: air {} unused_variables", a},
              "not the trace variables that no node reads (in the order of protocol.md 4.4)");
  }

  std::vector<LinearConstraint> trace_height_constraints(const MultiStarkVerifyingKey& vk) {
    const uint64_t num_airs = vk.per_air.size();
    const FieldName length = "verifying key: trace_height_constraints length";
    const uint64_t n = r_.varint_count(length, kMinConstraintBytes);
    std::vector<LinearConstraint> out;
    out.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      LinearConstraint c;
      const FieldName coefficients{"verifying key: trace_height_constraints[{}] coefficients", i};
      const uint64_t len = r_.varint_count(coefficients, 1);
      if (len != num_airs) r_.fail(coefficients, fmt::format("{} coefficients for {} AIRs", len, num_airs));
      c.coefficients.reserve(len);
      for (uint64_t j = 0; j < len; ++j) c.coefficients.push_back(u32(coefficients));
      c.threshold = u32({"verifying key: trace_height_constraints[{}] threshold", i});
      out.push_back(std::move(c));
    }
    std::vector<SparseConstraint> want;
    try {
      want = sparse_trace_height_constraints(vk.per_air, vk.params);
    } catch (const InputError& e) {
      r_.fail("verifying key: trace_height_constraints", e.what());
    }
    if (want.size() != out.size())
      r_.fail(length,
              fmt::format("{} constraints, but the interactions give {} (protocol.md 4.5)", out.size(), want.size()));
    for (uint32_t i = 0; i < want.size(); ++i) {
      bool same = out[i].threshold == want[i].threshold;
      for (uint32_t air = 0; same && air < num_airs; ++air) same = out[i].coefficients[air] == want[i].at(air);
      if (!same)
        r_.fail({"verifying key: trace_height_constraints[{}]", i},
                "not the constraint the interactions give (protocol.md 4.5)");
    }
    return out;
  }

  ByteReader r_;
};

}  // namespace

MultiStarkVerifyingKey decode_vk_postcard(std::span<const uint8_t> bytes) {
  MultiStarkVerifyingKey vk = VkDecoder(bytes).decode();
  vk.pre_hash = vk_pre_hash(bytes);
  return vk;
}

std::vector<uint8_t> encode_vk_file(const MultiStarkVerifyingKey& vk) {
  std::vector<uint8_t> out(kVkFileMagic.begin(), kVkFileMagic.end());
  ByteWriter(out).u32(kVkFileVersion);
  const std::vector<uint8_t> postcard = encode_vk_postcard(vk);
  out.insert(out.end(), postcard.begin(), postcard.end());
  return out;
}

MultiStarkVerifyingKey decode_vk_file(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  r.require(kVkFileMagic.size(), 1, "vk file: magic");
  if (!std::equal(kVkFileMagic.begin(), kVkFileMagic.end(), bytes.begin()))
    r.fail("vk file: magic",
           fmt::format("the file does not start with \"{}\": not a vkstark verifying key", kVkFileMagic));
  for (size_t i = 0; i < kVkFileMagic.size(); ++i) r.u8("vk file: magic");
  const uint32_t version = r.u32("vk file: format version");
  if (version != kVkFileVersion)
    r.fail("vk file: format version", fmt::format("{}, this build reads version {}", version, kVkFileVersion));
  return decode_vk_postcard(bytes.subspan(r.pos()));
}

}  // namespace vkstark
