// CPU bodies of kernels/elementwise.hpp.
#include "kernels/elementwise.hpp"

#include "kernels/cpu/parallel.hpp"

namespace vkstark {

namespace {
template <class Args, class Op>
void binary(const Args& a, const CpuContext& ctx, Op op) {
  auto x = ctx.span(a.a);
  auto y = ctx.span(a.b);
  auto out = ctx.span(a.out);
  cpu::for_each_index(ctx.grid().x, [&](uint64_t i) { out[i] = op(x[i], y[i]); });
}
template <class Args>
void scale(const Args& a, const CpuContext& ctx) {
  auto x = ctx.span(a.a);
  const auto c = ctx.span(a.c)[0];
  auto out = ctx.span(a.out);
  cpu::for_each_index(ctx.grid().x, [&](uint64_t i) { out[i] = x[i] * c; });
}
}  // namespace

void FpAdd::cpu(const Args& a, const CpuContext& ctx) {
  binary(a, ctx, [](Fp x, Fp y) { return x + y; });
}
void FpMul::cpu(const Args& a, const CpuContext& ctx) {
  binary(a, ctx, [](Fp x, Fp y) { return x * y; });
}
void FpScale::cpu(const Args& a, const CpuContext& ctx) { scale(a, ctx); }
void Fp4Add::cpu(const Args& a, const CpuContext& ctx) {
  binary(a, ctx, [](const Fp4& x, const Fp4& y) { return x + y; });
}
void Fp4Mul::cpu(const Args& a, const CpuContext& ctx) {
  binary(a, ctx, [](const Fp4& x, const Fp4& y) { return x * y; });
}
void Fp4Scale::cpu(const Args& a, const CpuContext& ctx) { scale(a, ctx); }
void Fp4Repeat::cpu(const Args& a, const CpuContext& ctx) {
  auto x = ctx.span(a.a);
  auto out = ctx.span(a.out);
  cpu::for_each_index(ctx.grid().x, [&](uint64_t i) { out[i] = x[i % x.size()]; });
}

void Fp4Powers::cpu(const Args& a, const CpuContext& ctx) {
  const Fp4 x = ctx.span(a.a)[0];
  auto out = ctx.span(a.out);
  cpu::for_each_index(ctx.grid().x, [&](uint64_t i) { out[i] = x.pow(i); });
}

void Fp4Gather::cpu(const Args& a, const CpuContext& ctx) {
  auto in = ctx.span(a.in);
  auto idx = ctx.span(a.idx);
  auto out = ctx.span(a.out);
  cpu::for_each_index(ctx.grid().x, [&](uint64_t i) { out[i] = idx[i] < in.size() ? in[idx[i]] : Fp4(); });
}

}  // namespace vkstark
