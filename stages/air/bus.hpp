// Typed buses: an object per bus instead of a bare number, with the count and count weight spelled
// out, and a lookup table whose multiplicities are counted from the looked-up keys.
//
//   constexpr Bus kMemory{3, "memory"};
//   kMemory.send(b, {addr, value}, is_write);                 // count is_write, weight 1
//   kMemory.receive(b, {addr, value}, is_read);
//
//   constexpr LookupBus kBytes{0, "bytes"};
//   kBytes.lookup(b, {lo});                                   // in the AIR that uses bytes (count 1)
//   kBytes.provide(b, {value}, multiplicity);                 // in the table AIR
//   LookupCounts counts("bytes", 256);                        // trace generation:
//   counts.add(lo);                                           //   every lookup of key lo
//   table.common.at(v, 0) = counts.column()[v];               //   the table's multiplicity column
//
// Sends count positively, receives negatively; a bus balances when every message's counts sum to
// zero over all rows of all AIRs (the debug checker, stages/air/debug_check.hpp, checks it and names
// the bus by the name given here). count_weight is the bound the AIR promises on |count| per row for
// the verifier's trace-height check (protocol.md 4.1): 1 for a boolean count, 0 for a lookup table's
// multiplicities (unbounded, and needing no bound: a key not in the table has only sends, which are
// bounded).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/field/fp.hpp"
#include "stages/air/air.hpp"

namespace vkstark {

class Bus {
 public:
  constexpr Bus(uint16_t id, std::string_view name) : id_(id), name_(name) {}
  constexpr uint16_t id() const { return id_; }
  constexpr std::string_view name() const { return name_; }

  void send(AirBuilder& b, std::vector<Expr> message, Expr count = Expr(1), uint32_t count_weight = 1) const {
    b.name_bus(id_, std::string(name_));
    b.send(id_, std::move(message), std::move(count), count_weight);
  }
  void receive(AirBuilder& b, std::vector<Expr> message, Expr count = Expr(1), uint32_t count_weight = 1) const {
    b.name_bus(id_, std::string(name_));
    b.receive(id_, std::move(message), count, count_weight);
  }

 private:
  uint16_t id_;
  std::string_view name_;
};

// A bus between a lookup table and the AIRs that look keys up in it.
class LookupBus : public Bus {
 public:
  using Bus::Bus;
  // The key is in the table (where `enabled` is 1; 0 looks nothing up): a send with count `enabled`.
  void lookup(AirBuilder& b, std::vector<Expr> key, Expr enabled = Expr(1)) const {
    send(b, std::move(key), std::move(enabled), 1);
  }
  // The table's row: `key`, looked up `multiplicity` times (a receive, count weight 0).
  void provide(AirBuilder& b, std::vector<Expr> key, const Expr& multiplicity) const {
    receive(b, std::move(key), multiplicity, 0);
  }
};

// The multiplicity column of a table of `rows` keys, counted as the lookups are generated: add(row)
// for every lookup of the key in table row `row`. InputError naming the table for a key outside it.
class LookupCounts {
 public:
  LookupCounts(std::string table, uint32_t rows) : table_(std::move(table)), counts_(rows) {}
  void add(uint64_t row, uint32_t times = 1);
  // The counts as field elements, one per table row.
  std::vector<Fp> column() const;

 private:
  std::string table_;
  std::vector<uint64_t> counts_;
};

}  // namespace vkstark
