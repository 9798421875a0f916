// Shared by the constraint-kernel tests (constraint_kernel_test.cpp, constraint_kernel_scale_test.cpp):
// random AIRs and traces, and a fixture that runs an AIR's constraint kernel on an executor and
// compares it with the host evaluator.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "stages/air/constraint_kernel.hpp"
#include "stages/air/dag.hpp"
#include "stages/air/eval.hpp"
#include "tests/parity/executor_fixture.hpp"

namespace vkstark::testing {

// A random AIR of `constraints` constraints over the parts of `shape`: random expression trees of
// `operations` operations in all (every node kind, selectors, public values, local and next rows, a
// few constants), a tenth of their subtrees shared with earlier ones. Through build_dag, interning
// and sharing leave about half as many nodes as operations.
inline SymbolicAir random_air(const AirShape& shape, uint32_t constraints, uint32_t operations, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<uint32_t> widths = shape.row_view_widths();
  const uint32_t pre = shape.preprocessed_width > 0 ? 1 : 0;
  std::vector<Expr> shared;
  const Fp constants[] = {Fp::zero(),
                          Fp::one(),
                          Fp::from_canonical(2),
                          Fp::from_canonical(Fp::P - 1),
                          Fp::from_canonical(1234567),
                          Fp::from_canonical(7)};
  auto leaf = [&]() -> Expr {
    const uint32_t k = rng() % 100;
    if (k < 70) {
      const uint32_t p = rng() % widths.size();
      const Variable v{p < pre ? EntryKind::Preprocessed : EntryKind::Main, p < pre ? 0 : p - pre,
                       rng() % 4 == 0 ? 1u : 0u, static_cast<uint32_t>(rng() % widths[p])};
      return Expr::variable(v);
    }
    if (k < 80) return Expr(constants[rng() % std::size(constants)]);
    if (k < 84) return Expr::is_first_row();
    if (k < 88) return Expr::is_last_row();
    if (k < 92) return Expr::is_transition();
    if (shape.num_public_values > 0 && k < 96)
      return Expr::variable({EntryKind::Public, 0, 0, static_cast<uint32_t>(rng() % shape.num_public_values)});
    return shared.empty() ? Expr::is_transition() : shared[rng() % shared.size()];
  };
  // A tree of `size` operations.
  std::function<Expr(uint32_t)> tree = [&](uint32_t size) -> Expr {
    if (size == 0) return leaf();
    if (!shared.empty() && rng() % 10 == 0) return shared[rng() % shared.size()];
    const uint32_t op = rng() % 10;
    if (op == 0) return -tree(size - 1);
    const uint32_t left = static_cast<uint32_t>(rng() % size);
    Expr l = tree(left), r = tree(size - 1 - left);
    Expr e = op < 4 ? l + r : op < 6 ? l - r : l * r;
    if (rng() % 4 == 0) shared.push_back(e);
    return e;
  };
  SymbolicAir air{.name = "random", .shape = shape, .constraints = {}, .interactions = {}};
  const uint32_t per_constraint = operations / constraints;
  for (uint32_t c = 0; c < constraints; ++c)
    air.constraints.push_back(tree(per_constraint / 2 + static_cast<uint32_t>(rng() % per_constraint)));
  return air;
}

struct HostTrace {
  std::vector<TraceMatrix> parts;
  std::vector<Fp> public_values;
};

inline HostTrace random_trace(const AirShape& shape, uint32_t height, uint64_t seed) {
  HostTrace t;
  for (uint32_t w : shape.row_view_widths()) {
    t.parts.emplace_back(w, height);
    t.parts.back().values = field_values(size_t(w) * height, seed++);
  }
  t.public_values = field_values(shape.num_public_values, seed);
  return t;
}

inline Fp4 random_ext(uint64_t seed) { return ext_values(1, seed)[0]; }

class ConstraintKernelTest : public ExecutorTest {
 protected:
  // The kernel's output on `rows`: all parts in one buffer at odd offsets, `out` at an offset inside
  // a larger buffer (below 2^23 rows).
  std::vector<Fp4> run_kernel(const std::shared_ptr<const KernelInfo>& kernel, const AirShape& shape,
                              const HostTrace& rows, std::span<const Fp4> lambda_powers, uint32_t log_height,
                              bool empty_public_values = false) {
    const uint32_t h = 1u << log_height;
    Graph g;
    std::vector<Fp> all;
    std::vector<uint64_t> offsets;
    for (const TraceMatrix& m : rows.parts) {
      all.resize(all.size() + 3, Fp::from_canonical(5));  // a gap before each part
      offsets.push_back(all.size());
      all.insert(all.end(), m.values.begin(), m.values.end());
    }
    auto parts_buf = g.input<Fp>("trace", all.size());
    std::vector<View<Fp>> parts;
    for (size_t p = 0; p < rows.parts.size(); ++p)
      parts.push_back(parts_buf.slice(offsets[p], rows.parts[p].values.size()));
    Buffer<Fp> pvs;
    if (!empty_public_values) pvs = g.input<Fp>("public_values", rows.public_values.size() + 1);
    auto lambdas = g.input<Fp4>("lambda_powers", lambda_powers.size() + 2);
    const uint32_t out_offset = h < (1u << 23) ? 1 : 0;  // 2^23 x 16 bytes: lavapipe's largest binding
    auto out = g.output<Fp4>("out", h + out_offset);
    eval_constraints(g, "air.constraints", kernel, shape, parts,
                     empty_public_values ? View<Fp>{} : pvs.slice(1, rows.public_values.size()),
                     lambdas.slice(2, lambda_powers.size()), out.slice(out_offset, h), log_height);
    std::vector<Fp> pv_data = field_values(1, 99);
    pv_data.insert(pv_data.end(), rows.public_values.begin(), rows.public_values.end());
    std::vector<Fp4> lambda_data = ext_values(2, 98);
    lambda_data.insert(lambda_data.end(), lambda_powers.begin(), lambda_powers.end());
    auto p = run(g, [&](PreparedPlan& pp) {
      pp.upload(parts_buf, all);
      if (!empty_public_values) pp.upload(pvs, pv_data);
      pp.upload(lambdas, lambda_data);
    });
    std::vector<Fp4> got = p->download(out);
    return {got.begin() + out_offset, got.end()};
  }

  // Random rows and lambda at each height; the kernel against the host evaluator.
  void expect_matches_host(const SymbolicAir& air, std::span<const uint32_t> log_heights, uint64_t seed,
                           bool empty_public_values = false) {
    const SymbolicDag dag = build_dag(air);
    auto kernel = make_constraint_kernel(air.name, dag, air.shape);
    for (uint32_t log_h : log_heights) {
      SCOPED_TRACE(fmt::format("AIR {}, height 2^{}", air.name, log_h));
      const HostTrace rows = random_trace(air.shape, 1u << log_h, seed + log_h);
      const std::vector<Fp4> lp = powers(random_ext(seed * 31 + log_h), dag.num_constraints());
      const std::vector<Fp4> want = eval_constraints_on_trace(dag, air.shape, rows.parts, rows.public_values, lp);
      const std::vector<Fp4> got = run_kernel(kernel, air.shape, rows, lp, log_h, empty_public_values);
      ASSERT_EQ(got.size(), want.size());
      for (size_t r = 0; r < want.size(); ++r) ASSERT_EQ(got[r], want[r]) << "row " << r;
      // Random rows make every row's value nonzero with overwhelming probability: the comparison
      // is not between two zero vectors.
      if (dag.num_constraints() > 0) {
        EXPECT_NE(want[0], Fp4::zero());
      }
    }
  }
};

}  // namespace vkstark::testing
