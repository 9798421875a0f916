// CPU bodies of kernels/hashing.hpp. Rows and compressions are hashed in batches through
// poseidon2_permute_batch (SIMD across independent states).
#include "kernels/hashing.hpp"

#include "kernels/cpu/parallel.hpp"
#include "kernels/hash/poseidon2_batch.hpp"

namespace vkstark {

namespace {
constexpr uint64_t kBatch = 16;  // states per SIMD batch (AVX-512 width)
}

void Poseidon2Permute::cpu(const Args& a, const CpuContext& ctx) {
  auto* states = reinterpret_cast<Poseidon2State*>(ctx.span(a.states).data());
  cpu::for_each_chunk(
      ctx.grid().x,
      [&](uint64_t b, uint64_t e) { poseidon2_permute_batch(std::span<Poseidon2State>(states + b, e - b)); }, 1024);
}

void HashRows::cpu(const Args& a, const CpuContext& ctx) {
  auto m = ctx.span(a.matrix);
  auto out = ctx.span(a.out);
  const uint64_t width = a.width, rs = a.row_stride, cs = a.col_stride;
  cpu::for_each_chunk(
      ctx.grid().x,
      [&](uint64_t b, uint64_t e) {
        for (uint64_t r0 = b; r0 < e; r0 += kBatch) {
          const uint64_t n = std::min(kBatch, e - r0);
          Poseidon2State states[kBatch] = {};
          // hash_slice: overwrite the first positions with each block of up to 8 values, permute.
          for (uint64_t c0 = 0; c0 < width; c0 += SPONGE_RATE) {
            const uint64_t len = std::min<uint64_t>(SPONGE_RATE, width - c0);
            for (uint64_t k = 0; k < n; ++k)
              for (uint64_t j = 0; j < len; ++j) states[k][j] = m[(r0 + k) * rs + (c0 + j) * cs];
            poseidon2_permute_batch(std::span<Poseidon2State>(states, n));
          }
          for (uint64_t k = 0; k < n; ++k)
            for (int j = 0; j < DIGEST_SIZE; ++j) out[r0 + k][j] = states[k][j];
        }
      },
      256);
}

void HashRowsAbsorb::cpu(const Args& a, const CpuContext& ctx) {
  auto m = ctx.span(a.matrix);
  auto state = ctx.span(a.state);
  auto out = ctx.span(a.out);
  const uint64_t width = a.width, rs = a.row_stride, cs = a.col_stride;
  cpu::for_each_chunk(
      ctx.grid().x,
      [&](uint64_t b, uint64_t e) {
        for (uint64_t r0 = b; r0 < e; r0 += kBatch) {
          const uint64_t n = std::min(kBatch, e - r0);
          Poseidon2State states[kBatch] = {};
          if (a.first_column != 0)
            for (uint64_t k = 0; k < n; ++k)
              for (uint64_t j = 0; j < 16; ++j) states[k][j] = state[16 * (r0 + k) + j];
          // The absorb position runs on from the previous tile; a full block is permuted at once.
          uint64_t pos = a.first_column % SPONGE_RATE, c = 0;
          while (c < width) {
            const uint64_t len = std::min<uint64_t>(SPONGE_RATE - pos, width - c);
            for (uint64_t k = 0; k < n; ++k)
              for (uint64_t j = 0; j < len; ++j) states[k][pos + j] = m[(r0 + k) * rs + (c + j) * cs];
            pos += len;
            c += len;
            if (pos == SPONGE_RATE) {
              poseidon2_permute_batch(std::span<Poseidon2State>(states, n));
              pos = 0;
            }
          }
          if (a.last) {
            if (pos != 0) poseidon2_permute_batch(std::span<Poseidon2State>(states, n));
            for (uint64_t k = 0; k < n; ++k)
              for (int j = 0; j < DIGEST_SIZE; ++j) out[r0 + k][j] = states[k][j];
          } else {
            for (uint64_t k = 0; k < n; ++k)
              for (uint64_t j = 0; j < 16; ++j) state[16 * (r0 + k) + j] = states[k][j];
          }
        }
      },
      256);
}

namespace {
// out[i] = compress(in[2(i/s)s + i%s], in[(2(i/s)+1)s + i%s]) for i < n, s = stride: one Merkle
// layer, in SIMD batches of kBatch permutations.
void compress_layer(std::span<const Digest> in, std::span<Digest> out, uint64_t n, uint64_t s) {
  cpu::for_each_chunk(
      n,
      [&](uint64_t b, uint64_t e) {
        for (uint64_t i0 = b; i0 < e; i0 += kBatch) {
          const uint64_t k = std::min(kBatch, e - i0);
          Poseidon2State states[kBatch];
          for (uint64_t q = 0; q < k; ++q) {
            const uint64_t i = i0 + q, left = 2 * (i / s) * s + i % s, right = left + s;
            for (int w = 0; w < DIGEST_SIZE; ++w) {
              states[q][w] = in[left][w];
              states[q][DIGEST_SIZE + w] = in[right][w];
            }
          }
          poseidon2_permute_batch(std::span<Poseidon2State>(states, k));
          for (uint64_t q = 0; q < k; ++q)
            for (int w = 0; w < DIGEST_SIZE; ++w) out[i0 + q][w] = states[q][w];
        }
      },
      256);
}
}  // namespace

void MerkleCompressLayer::cpu(const Args& a, const CpuContext& ctx) {
  compress_layer(ctx.span(a.in), ctx.span(a.out), ctx.grid().x, a.stride);
}

// Layer after layer: the first reads in, each later one the layer written before it in out.
void MerkleCompressLevels::cpu(const Args& a, const CpuContext& ctx) {
  auto in = ctx.span(a.in);
  auto out = ctx.span(a.out);
  uint64_t from = 0, to = 0, n = in.size() / 2;
  for (uint32_t j = 0; j < a.levels; ++j, n /= 2) {
    compress_layer(j == 0 ? std::span<const Digest>(in) : std::span<const Digest>(out).subspan(from), out.subspan(to),
                   n, 1);
    from = to;
    to += n;
  }
}

}  // namespace vkstark
