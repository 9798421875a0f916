// Poseidon2 kernels: batch permutation, hash_slice of matrix rows, one Merkle compress layer.
#pragma once

#include "kernels/detail/grid.hpp"
#include "kernels/types.hpp"
#include "runtime/kernel.hpp"

namespace vkstark {

// Permutes grid.x = states.count / 16 states of 16 consecutive Fp each, in place.
struct Poseidon2Permute {
  static constexpr std::string_view name = "poseidon2_permute";
  static constexpr uint32_t workgroup_size = 256;  // measured best on an H100 (2.98 vs 2.72 G perm/s at 128)
  struct Args {
    InOut<Fp> states;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.states.view.count / 16)}; }
  static uint64_t permutations(const Args& a) { return a.states.view.count / 16; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// out[r] = hash_slice(row r) for r < grid.x = out.count, where row r is the `width` elements
// matrix[r * row_stride + c * col_stride], c = 0..width-1 (row-major: row_stride = width,
// col_stride = 1; column-major of height h: row_stride = 1, col_stride = h).
struct HashRows {
  static constexpr std::string_view name = "hash_rows";
  static constexpr uint32_t workgroup_size = 256;  // measured best on an H100 (2.98 vs 2.72 G perm/s at 128)
  struct Args {
    In<Fp> matrix;
    Out<Digest> out;
    uint32_t width = 0;
    uint32_t row_stride = 0;
    uint32_t col_stride = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static uint64_t permutations(const Args& a) { return a.out.view.count * ((uint64_t(a.width) + 7) / 8); }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// hash_slice of matrix rows whose columns lie in several views (column tiles, a codeword larger
// than one binding): one dispatch per tile absorbs the tile's `width` columns, which are columns
// first_column .. first_column + width - 1 of the whole row, into each row's sponge state (16 Fp
// per row in `state`, row r at 16 r). The sponge is hash_slice's: blocks of 8 overwrite the first
// lanes and are permuted, so a block may start in one tile and end in the next (the absorb
// position is first_column mod 8). The first tile (first_column 0) starts from the zero state and
// does not read `state` (the graph still wants it written first: a zero fill); with last = 1 the tile ends the row: a
// short last block is permuted and out[r] gets the digest (out.count = rows; state is then only read). Otherwise out is
// empty and state holds the rows' states for the next tile. grid.x = state.count / 16 rows.
struct HashRowsAbsorb {
  static constexpr std::string_view name = "hash_rows_absorb";
  static constexpr uint32_t workgroup_size = 256;
  struct Args {
    In<Fp> matrix;
    InOut<Fp> state;
    Out<Digest> out;
    uint32_t width = 0;
    uint32_t row_stride = 0;
    uint32_t col_stride = 0;
    uint32_t first_column = 0;
    uint32_t last = 0;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.state.view.count / 16)}; }
  // Full blocks of 8 from the absorb position on, and the last tile's short block.
  static uint64_t permutations(const Args& a) {
    const uint64_t end = a.first_column % 8 + uint64_t(a.width);
    return a.state.view.count / 16 * (end / 8 + (a.last != 0 && end % 8 != 0 ? 1 : 0));
  }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// One Merkle layer (protocol.md 2.4): for i < grid.x = out.count, with s = stride,
//   out[i] = compress(in[2(i/s)s + i%s], in[(2(i/s)+1)s + i%s]).
// stride 1 is the ordinary layer out[i] = compress(in[2i], in[2i+1]); stride = query_stride gives
// the strided layers that combine the 2^k rows of a leaf group. in.count = 2 out.count, and
// out.count is a multiple of the stride.
struct MerkleCompressLayer {
  static constexpr std::string_view name = "merkle_compress";
  static constexpr uint32_t workgroup_size = 256;  // measured best on an H100 (2.98 vs 2.72 G perm/s at 128)
  struct Args {
    In<Digest> in;
    Out<Digest> out;
    uint32_t stride = 1;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(a.out.view.count)}; }
  static uint64_t permutations(const Args& a) { return a.out.view.count; }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

// The top of a Merkle tree, `levels` layers in one dispatch (1 <= levels <= 4): in is a layer of
// 2m digests, out the next `levels` layers one after the other (m, m / 2, ..., m / 2^(levels-1)
// digests; m a multiple of 2^(levels-1)), each out[i] of a layer = compress(in[2i], in[2i+1]) of
// the layer before, as MerkleCompressLayer with stride 1. For the narrow top layers, where one
// invocation's permutation latency (about 10 us on an H100) and a barrier per layer were the cost:
// 16 invocations share each compression (kernels/glsl/sponge_coop.glsl, about 2.6 us), and a
// workgroup of 8 such groups takes a block of 2^levels digests down `levels` layers through shared
// memory. grid.x = 16 m (an invocation per state lane of the first layer's compressions).
struct MerkleCompressLevels {
  static constexpr std::string_view name = "merkle_compress_levels";
  // 8 groups of 16 lanes, so 4 levels: 128 invocations is what Vulkan guarantees on every device.
  static constexpr uint32_t workgroup_size = 128;
  static constexpr KernelConstant constants[] = {sponge_coop_groups(workgroup_size)};
  static constexpr uint32_t max_levels = 4;
  struct Args {
    In<Digest> in;
    Out<Digest> out;
    uint32_t levels = 1;
  };
  static Grid grid(const Args& a) { return {detail::grid_dim(8 * a.in.view.count)}; }
  static uint64_t permutations(const Args& a) {
    uint64_t total = 0, n = a.in.view.count / 2;
    for (uint32_t j = 0; j < a.levels; ++j, n /= 2) total += n;
    return total;
  }
  static std::string check(const Args& a);
  static void cpu(const Args& a, const CpuContext& ctx);
};

}  // namespace vkstark
