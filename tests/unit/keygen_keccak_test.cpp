// Specifies the Keccak-f AIR's verifying key (protocol.md 15.1, app_params_with_100_bits_security(21))
// against the model values of protocol.md 4.6: len(vk_bytes) = 283428 and the vk pre-hash. Those
// values come from an independent model of the DAG builder and of postcard, not from a Rust build
// (4.6 marks them unverified); the DAG counts of 15.1 are checked first, so that a mismatch points at
// the DAG (the AIR's expression shapes, the builder) or at the encoding.
#include <gtest/gtest.h>

#include "executors/executors.hpp"
#include "product/airs/keccak.hpp"
#include "stages/air/keygen.hpp"

using namespace vkstark;

TEST(KeygenKeccak, VerifyingKeyMatchesTheModelLengthAndPreHash) {
  const SystemParams params = app_params_with_100_bits_security(21);
  auto exec = make_executor("cpu");
  const std::vector<std::shared_ptr<const Air>> airs{std::make_shared<KeccakAir>()};
  const ProvingKey pk = keygen(airs, params, *exec);
  ASSERT_EQ(pk.vk.per_air.size(), 1u);
  const StarkVerifyingKey& vk = pk.vk.per_air[0];

  // The shape of 15.1: one common main part of 2633 columns, nothing else.
  EXPECT_FALSE(vk.preprocessed_data.has_value());
  EXPECT_FALSE(vk.params.width.preprocessed.has_value());
  EXPECT_TRUE(vk.params.width.cached_mains.empty());
  EXPECT_EQ(vk.params.width.common_main, 2633u);
  EXPECT_EQ(vk.params.num_public_values, 0u);
  EXPECT_TRUE(vk.params.need_rot);
  EXPECT_EQ(vk.max_constraint_degree, 3);
  EXPECT_FALSE(vk.is_required);
  EXPECT_TRUE(vk.symbolic_constraints.interactions.empty());

  // The model's DAG (15.1): 3182 constraints, 39273 nodes by kind.
  const SymbolicDag& dag = vk.symbolic_constraints;
  EXPECT_EQ(dag.num_constraints(), 3182u);
  EXPECT_EQ(dag.nodes.size(), 39273u);
  const std::vector<uint32_t> counts = dag.count_by_kind();
  EXPECT_EQ(counts[size_t(NodeKind::Add)], 15343u);
  EXPECT_EQ(counts[size_t(NodeKind::Sub)], 10846u);
  EXPECT_EQ(counts[size_t(NodeKind::Mul)], 10221u);
  EXPECT_EQ(counts[size_t(NodeKind::Variable)], 2857u);  // 2633 local + 224 next
  EXPECT_EQ(counts[size_t(NodeKind::Constant)], 4u);     // 0, 1, 2, 4
  EXPECT_EQ(counts[size_t(NodeKind::IsFirstRow)], 1u);
  EXPECT_EQ(counts[size_t(NodeKind::IsTransition)], 1u);
  EXPECT_EQ(counts[size_t(NodeKind::IsLastRow)], 0u);
  EXPECT_EQ(counts[size_t(NodeKind::Neg)], 0u);

  // Every column is read on the local row, and 224 on the next row (step flags, preimage, a):
  // the other 2409 next-row variables are unused.
  EXPECT_EQ(vk.unused_variables.size(), 2633u - 224u);
  for (const Variable& v : vk.unused_variables) {
    EXPECT_EQ(v.entry, EntryKind::Main);
    EXPECT_EQ(v.part, 0u);
    EXPECT_EQ(v.offset, 1u);
  }

  // No interactions: the global trace-height constraint alone, coefficient 0, threshold
  // max_interaction_count = p.
  ASSERT_EQ(pk.vk.trace_height_constraints.size(), 1u);
  EXPECT_EQ(pk.vk.trace_height_constraints[0], (LinearConstraint{{0}, 2013265921u}));

  // protocol.md 4.6 model values.
  const std::vector<uint8_t> bytes = encode_vk_postcard(pk.vk);
  EXPECT_EQ(bytes.size(), 283428u);
  std::vector<uint32_t> pre_hash;
  for (Fp x : pk.vk.pre_hash) pre_hash.push_back(x.value());
  EXPECT_EQ(pre_hash, (std::vector<uint32_t>{898758304, 1269476524, 1587838634, 212117637, 976402962, 1227319903,
                                             82372460, 1279797633}));

  // A key of this size decodes to itself.
  EXPECT_EQ(decode_vk_file(encode_vk_file(pk.vk)), pk.vk);
}
