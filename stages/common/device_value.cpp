#include "stages/common/device_value.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"

namespace vkstark {

DeviceFp4 DeviceFp4::adopt(ProgramBuilder& b, ProgramBuilder::Reg r) {
  DeviceFp4 v;
  v.s_ = std::make_shared<const Held>(&b, r);
  return v;
}

ProgramBuilder& DeviceFp4::builder() const {
  if (!s_) throw GraphError("an empty DeviceFp4 (a default-constructed or moved-from value) was used");
  return *s_->b;
}

ProgramBuilder::Reg DeviceFp4::reg() const {
  ProgramBuilder& b = builder();
  if (s_->generation != b.generation())
    throw GraphError(
        fmt::format("scalar program '{}': a value used after a grind split the program or after emit "
                    "(registers do not survive either)",
                    b.name()));
  return s_->r;
}

ProgramBuilder& DeviceFp4::same_builder(const DeviceFp4& a, const DeviceFp4& b, const char* op) {
  ProgramBuilder& x = a.builder();
  if (&x != &b.builder())
    throw GraphError(
        fmt::format("scalar programs '{}' and '{}': {} of values of two programs", x.name(), b.builder().name(), op));
  return x;
}

DeviceFp4 DeviceFp4::constant(const Fp4& v) const { return vkstark::constant(builder(), v); }

DeviceFp4 DeviceFp4::inverse() const { return adopt(builder(), builder().inv(reg())); }

DeviceFp4 DeviceFp4::binary(const DeviceFp4& a, const DeviceFp4& b, char op) {
  ProgramBuilder& p = same_builder(a, b, op == '+' ? "a sum" : op == '-' ? "a difference" : "a product");
  const ProgramBuilder::Reg x = a.reg(), y = b.reg();
  return adopt(p, op == '+' ? p.add(x, y) : op == '-' ? p.sub(x, y) : p.mul(x, y));
}

DeviceFp4 operator+(const DeviceFp4& a, const DeviceFp4& b) { return DeviceFp4::binary(a, b, '+'); }
DeviceFp4 operator-(const DeviceFp4& a, const DeviceFp4& b) { return DeviceFp4::binary(a, b, '-'); }
DeviceFp4 operator*(const DeviceFp4& a, const DeviceFp4& b) { return DeviceFp4::binary(a, b, '*'); }

DeviceFp4 constant(ProgramBuilder& b, const Fp4& v) { return DeviceFp4::adopt(b, b.constant(v)); }
DeviceFp4 load(ProgramBuilder& b, View<Fp> v, uint64_t i) { return DeviceFp4::adopt(b, b.load(v, i)); }
DeviceFp4 load_ext(ProgramBuilder& b, View<Fp4> v, uint64_t i) { return DeviceFp4::adopt(b, b.load_ext(v, i)); }
DeviceFp4 sum_ext(ProgramBuilder& b, View<Fp4> v, uint64_t first, uint64_t count, uint64_t stride) {
  return DeviceFp4::adopt(b, b.sum_ext(v, first, count, stride));
}
DeviceFp4 sample(ProgramBuilder& b) { return DeviceFp4::adopt(b, b.sample()); }
DeviceFp4 sample_ext(ProgramBuilder& b) { return DeviceFp4::adopt(b, b.sample_ext()); }
void store(View<Fp> dst, const DeviceFp4& x, uint64_t i) { x.builder().store(dst, x.reg(), i); }
void store_ext(View<Fp4> dst, const DeviceFp4& x, uint64_t i) { x.builder().store_ext(dst, x.reg(), i); }
void observe(const DeviceFp4& x) { x.builder().observe(x.reg()); }
void observe_ext(const DeviceFp4& x) { x.builder().observe_ext(x.reg()); }

}  // namespace vkstark
