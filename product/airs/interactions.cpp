#include "product/airs/interactions.hpp"

namespace vkstark {

void Decompose::eval(AirBuilder& b) const {
  const DecomposeCols<Expr> local = read_columns<DecomposeCols>(b.main(), 0);
  const DecomposeCols<Expr> next = read_columns<DecomposeCols>(b.main(), 1);
  b.assert_eq(local.x, local.lo + 256 * local.hi);  // no filter: on every row
  b.when_first_row().assert_eq(local.sum, local.x);
  b.when_transition().assert_eq(next.sum, local.sum + next.x);
  b.when_last_row().assert_eq(local.sum, b.public_value(0));
  // Each row looks lo and hi up in the byte table once (count 1). A row that should look nothing
  // up, such as a padding row, would pass a boolean column as `enabled`.
  kBytesBus.lookup(b, {local.lo});
  kBytesBus.lookup(b, {local.hi});
}

void ByteTable::eval(AirBuilder& b) const {
  const Expr value = b.preprocessed().local(0), multiplicity = b.main().local(0);
  // provide() receives the key `multiplicity` times with count weight 0. The count weight is a
  // bound the AIR promises on its count per row, for the verifier's trace-height check: per bus,
  // the sum over the AIRs of height * (their count weights on the bus) must stay below p, so that
  // sends cannot add up to a multiple of p (p sends of 273 would balance with no receive).
  // lookup() gives weight 1, which the lookups above keep (count 1). The table's multiplicities
  // have no bound, and need none: a value not in the table has only sends, which are bounded. So
  // weight 0, as OpenVM's lookup buses (LookupBus::add_key_with_lookups) do.
  kBytesBus.provide(b, {value}, multiplicity);
}

// The table is fixed at keygen: the verifying key holds its commitment, so the prover cannot add a
// 273 to it. (As a main column it would need constraints: value = 0 on the first row, +1 per row.)
std::optional<TraceMatrix> ByteTable::preprocessed_trace() const {
  TraceMatrix t(1, kByteTableRows);
  for (uint32_t v = 0; v < kByteTableRows; ++v) t.at(v, 0) = Fp::from_canonical(v);
  return t;
}

InteractionsTraces interactions_traces(std::shared_ptr<const Air> program, std::shared_ptr<const Air> table,
                                       uint32_t rows, bool tamper) {
  static const DecomposeCols<uint32_t> col = column_indices<DecomposeCols>();
  InteractionsTraces t;
  t.program.air = std::move(program);
  t.program.common = TraceMatrix(column_count<DecomposeCols>(), rows);
  t.table.air = std::move(table);
  t.table.common = TraceMatrix(1, kByteTableRows);
  LookupCounts counts("bytes", kByteTableRows);
  Fp sum;
  for (uint32_t r = 0; r < rows; ++r) {
    uint32_t x = (r * 2654435761u) >> 16;  // any numbers below 2^16
    if (tamper && r == rows / 2) {
      x = 70000;
      t.tampered_row = r;
    }
    const uint32_t lo = x & 255, hi = x >> 8;
    sum += Fp::from_canonical(x);
    t.program.common.at(r, col.x) = Fp::from_canonical(x);
    t.program.common.at(r, col.lo) = Fp::from_canonical(lo);
    t.program.common.at(r, col.hi) = Fp::from_canonical(hi);
    t.program.common.at(r, col.sum) = sum;
    for (uint32_t byte : {lo, hi})
      if (byte < kByteTableRows || !tamper) counts.add(byte);  // 273 has no row: sent, never received
  }
  const std::vector<Fp> multiplicity = counts.column();
  for (uint32_t v = 0; v < kByteTableRows; ++v) t.table.common.at(v, 0) = multiplicity[v];
  t.program.public_values = {sum};
  return t;
}

}  // namespace vkstark
