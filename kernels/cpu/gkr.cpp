// CPU bodies of kernels/gkr.hpp. The partial sums visit the same pairs per part as the GLSL
// workgroups do; within a part the order of the additions does not matter (exact arithmetic).
#include "kernels/gkr.hpp"

#include <algorithm>

#include "kernels/cpu/parallel.hpp"

namespace vkstark {

namespace {

// (p_a, q_a) + (p_b, q_b) of protocol.md 8.3.
inline void add_fractions(const Fp4& pa, const Fp4& qa, const Fp4& pb, const Fp4& qb, Fp4& p, Fp4& q) {
  p = pa * qb + pb * qa;
  q = qa * qb;
}

// The pair y of tables whose entries 4y .. 4y + 3 are at t[0..3] (A(0), C(0), A(1), C(1)).
struct Pair {
  Fp4 a0, c0, a1, c1, b0, e0, b1, e1;
};

// sums[x - 1] += w F(A(x), B(x), C(x), E(x)), x = 1, 2, 3, with F = E (A + lambda B) + C B.
inline void add_round_terms(const Pair& t, const Fp4& w, const Fp4& lambda, Fp4 sums[3]) {
  const Fp4 da = t.a1 - t.a0, dc = t.c1 - t.c0, db = t.b1 - t.b0, de = t.e1 - t.e0;
  Fp4 a = t.a1, c = t.c1, b = t.b1, e = t.e1;
  for (int x = 0; x < 3; ++x) {
    sums[x] += w * (e * (a + lambda * b) + c * b);
    a += da;
    c += dc;
    b += db;
    e += de;
  }
}

// Runs pair(y) for the pairs of each part (the blocks of 64 at 64 p + k 64 P) and writes the
// part's three sums.
template <class PairAt>
void round_partials(uint64_t pairs, std::span<Fp4> partials, std::span<const Fp4> eq, const Fp4& lambda,
                    PairAt pair_at) {
  const uint64_t parts = partials.size() / 3, stride = uint64_t(kGkrLanes) * parts;
  cpu::for_each_index(
      parts,
      [&](uint64_t p) {
        Fp4 sums[3];
        for (uint64_t start = p * kGkrLanes; start < pairs; start += stride) {
          const uint64_t end = std::min<uint64_t>(start + kGkrLanes, pairs);
          for (uint64_t y = start; y < end; ++y) add_round_terms(pair_at(y), eq[y], lambda, sums);
        }
        for (int x = 0; x < 3; ++x) partials[3 * p + x] = sums[x];
      },
      1);
}

}  // namespace

void GkrFractionLayers::cpu(const Args& a, const CpuContext& ctx) {
  auto p_in = ctx.span(a.p_in), q_in = ctx.span(a.q_in);
  auto p_out = ctx.span(a.p_out), q_out = ctx.span(a.q_out);
  const uint64_t n = p_in.size() / 2, last = n >> (a.layers - 1);
  // Layer of N nodes at [N - last, 2N - last); its children are the layer before (or the input).
  const Fp4* pc = p_in.data();
  const Fp4* qc = q_in.data();
  for (uint32_t i = 0; i < a.layers; ++i) {
    const uint64_t nodes = n >> i;
    Fp4* pp = p_out.data() + (nodes - last);
    Fp4* qp = q_out.data() + (nodes - last);
    cpu::for_each_index(
        nodes, [&](uint64_t t) { add_fractions(pc[2 * t], qc[2 * t], pc[2 * t + 1], qc[2 * t + 1], pp[t], qp[t]); });
    pc = pp;
    qc = qp;
  }
}

void EqSuffixTables::cpu(const Args& a, const CpuContext& ctx) {
  auto u = ctx.span(a.u);
  auto out = ctx.span(a.out);
  // The table over the last r + 1 coordinates from the one over the last r: the new coordinate
  // u[n - r - 1] is the least significant bit.
  out[0] = Fp4::one();
  for (uint32_t r = 0; r < a.n; ++r) {
    const uint64_t size = uint64_t(1) << r;
    const Fp4 x1 = u[a.n - r - 1], x0 = Fp4::one() - x1;
    const Fp4* prev = out.data() + (size - 1);
    Fp4* next = out.data() + (2 * size - 1);
    cpu::for_each_index(size, [&](uint64_t y) {
      next[2 * y] = x0 * prev[y];
      next[2 * y + 1] = x1 * prev[y];
    });
  }
}

void GkrSumcheckPartials::cpu(const Args& a, const CpuContext& ctx) {
  auto p = ctx.span(a.p), q = ctx.span(a.q);
  round_partials(a.pairs, ctx.span(a.partials), ctx.span(a.eq), ctx.span(a.lambda)[0], [&](uint64_t y) {
    return Pair{p[4 * y], p[4 * y + 1], p[4 * y + 2], p[4 * y + 3], q[4 * y], q[4 * y + 1], q[4 * y + 2], q[4 * y + 3]};
  });
}

void GkrFoldSumcheckPartials::cpu(const Args& a, const CpuContext& ctx) {
  auto p = ctx.span(a.p), q = ctx.span(a.q);
  auto p_dst = ctx.span(a.p_dst), q_dst = ctx.span(a.q_dst);
  const Fp4 rho = ctx.span(a.rho)[0];
  // Fold first (every entry of the destination), then the partials of the folded tables.
  cpu::for_each_index(4 * uint64_t(a.pairs), [&](uint64_t i) {
    const uint64_t z = i / 2, b = i % 2;
    p_dst[i] = p[4 * z + b] + rho * (p[4 * z + 2 + b] - p[4 * z + b]);
    q_dst[i] = q[4 * z + b] + rho * (q[4 * z + 2 + b] - q[4 * z + b]);
  });
  round_partials(a.pairs, ctx.span(a.partials), ctx.span(a.eq), ctx.span(a.lambda)[0], [&](uint64_t y) {
    return Pair{p_dst[4 * y], p_dst[4 * y + 1], p_dst[4 * y + 2], p_dst[4 * y + 3],
                q_dst[4 * y], q_dst[4 * y + 1], q_dst[4 * y + 2], q_dst[4 * y + 3]};
  });
}

}  // namespace vkstark
