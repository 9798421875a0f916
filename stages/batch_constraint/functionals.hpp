// The three functionals of protocol.md 9.1 of one AIR (the zerocheck C_T, the LogUp numerator N_T
// and denominator Q_T) as DAGs over "point sources", for the generated kernels of the batch
// constraint sumcheck: round 0 evaluates them at coset points in the base field (the constraint
// kernel, stages/compiler/constraint_kernel.hpp), the MLE rounds over folded Fp4 tables (the
// extension kernel, stages/compiler/ext_kernel.hpp).
//
// Point sources: at a point, every value the row view reads is a column of one of two parts,
//   part 0, the trace columns: per row-view part p (preprocessed?, cached..., common), its local
//           columns, then with need_rot its next-row columns (source_column() gives the index);
//   part 1, the selectors: is_first, is_last, is_transition.
// Round 0 reads a narrower part 0 (the `points_` members): per row-view part its local columns,
// then the next-row columns of only those the DAG reads at the next row (`rotated`; Keccak-f: 224
// of 2633), so the coset extension of the others' next rows is never made. The MLE rounds keep
// every next-row table (the proof opens them all).
// So a functional's DAG reads local values only and has no selector node: the row structure (which
// row is next, which is first) lives in how the caller fills the sources (coset extensions of the
// shifted columns, folded tables of the rotated columns, the selector columns' extensions).
//
// Each functional is sum_k c_k root_k with coefficients from the device:
//   zerocheck:   roots = the constraints, c_k = lambda^k;
//   numerator:   roots = the distinct count nodes (ascending), c_r = norm_T sum_{sigma: count = r} eq3b[sigma];
//   denominator: roots = the distinct message nodes (ascending), then a constant 1,
//                c_r = sum_{(sigma, j): message_j = r} eq3b[sigma] beta^j, and for the constant
//                sum_sigma eq3b[sigma] beta^len_sigma (bus_sigma + 1).
// Immutable once made; share it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "stages/air/air.hpp"
#include "stages/air/dag.hpp"
#include "stages/compiler/constraint_kernel.hpp"
#include "stages/compiler/ext_kernel.hpp"

namespace vkstark {

enum class Functional : uint32_t { Zerocheck = 0, Numerator = 1, Denominator = 2 };
inline constexpr uint32_t kFunctionals = 3;

struct AirFunctionals {
  AirShape shape;        // of the sources: cached_widths = {columns}, common_width = 3, the AIR's public values
  uint32_t columns = 0;  // part 0's: sum_p width_p (need_rot ? 2 : 1)
  bool need_rot = false;
  std::vector<uint32_t> widths;  // the AIR's row-view widths
  SymbolicDag dags[kFunctionals];
  // Round 0's sources: per row-view part, the columns read at the next row (ascending; empty
  // without need_rot), part 0's width sum_p (width_p + |rotated_p|), its shape and the DAGs over it.
  std::vector<std::vector<uint32_t>> rotated;
  uint32_t points_columns = 0;
  AirShape points_shape;
  SymbolicDag points_dags[kFunctionals];
  // Numerator root r: the interactions (vk order) whose count node it is.
  std::vector<std::vector<uint32_t>> numerator_terms;
  // Denominator root r (all but the last, constant, root): the (interaction, message position) pairs.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> denominator_terms;
  // Per interaction: message length and bus (for the constant root's coefficient).
  std::vector<uint32_t> lengths;
  std::vector<uint16_t> buses;

  bool has(Functional f) const { return !dags[uint32_t(f)].constraint_idx.empty(); }
  const SymbolicDag& dag(Functional f) const { return dags[uint32_t(f)]; }
};

// InputError naming what is wrong when the DAG reads past `shape`, a challenge, or a row offset
// other than 0 or 1 (or 1 without need_rot).
[[nodiscard]] AirFunctionals make_air_functionals(const SymbolicDag& dag, const AirShape& shape, bool need_rot);

// The index in part 0 of column `col` of row-view part `part` (`next`: its next-row column).
[[nodiscard]] uint32_t source_column(const std::vector<uint32_t>& widths, bool need_rot, uint32_t part, bool next,
                                     uint32_t col);
// The same in round 0's part 0 (AirFunctionals::rotated); `next` and a column not read at the next
// row: InputError.
[[nodiscard]] uint32_t points_source_column(const std::vector<uint32_t>& widths,
                                            const std::vector<std::vector<uint32_t>>& rotated, uint32_t part, bool next,
                                            uint32_t col);
// Per row-view part of `shape`, the columns `dag` reads at the next row, ascending (InputError for
// a read past the shape).
[[nodiscard]] std::vector<std::vector<uint32_t>> rotated_columns(const SymbolicDag& dag, const AirShape& shape);

// The generated kernels of an AIR's functionals: per present functional, the base-field points
// kernel and the extension-field folded kernel. Immutable; share it.
struct AirFunctionalKernels {
  AirFunctionals f;
  std::shared_ptr<const ConstraintKernel> points[kFunctionals];     // null when absent
  std::shared_ptr<const ExtConstraintKernel> folded[kFunctionals];  // null when absent
};

// Compiles (or loads from the SPIR-V cache) the kernels; kernel names "<air>_zc", "<air>_num",
// "<air>_den" (then the kernels' own suffixes). `ext_mode`: the extension kernels' mode;
// `ext_chunk_nodes`: their operations per chunk. `points_interpreted`: the round-0 (base-field)
// kernels through the base-field fused interpreter, chunks of `points_chunk_nodes` operations.
[[nodiscard]] std::shared_ptr<const AirFunctionalKernels> make_air_functional_kernels(
    const std::string& air, const SymbolicDag& dag, const AirShape& shape, bool need_rot,
    ExtKernelMode ext_mode = ExtKernelMode::Generated, uint32_t ext_chunk_nodes = kConstraintChunkNodes,
    bool points_interpreted = false, uint32_t points_chunk_nodes = kConstraintChunkNodes, KernelGeneration gen = {});

// `kernels` (of AIR `air`, made by make_air_functional_kernels) with generated round-0 kernels of
// `points_chunk_nodes` operations a chunk in place of its points kernels; the rest shared. Null
// when gen.cached_only and the SPIR-V cache lacks a chunk, or when the calling TBB task group is
// cancelled while they are made (a prover's background compilation).
[[nodiscard]] std::shared_ptr<const AirFunctionalKernels> with_generated_points(const std::string& air,
                                                                                const AirFunctionalKernels& kernels,
                                                                                uint32_t points_chunk_nodes,
                                                                                KernelGeneration gen);

}  // namespace vkstark
