// DeviceFp4: a value of a scalar program (stages/common/program.hpp) as an ordinary C++ value. Arithmetic
// records the program's instructions; a value's register is released when its last copy goes, so
// protocol code holds no registers by hand:
//
//   ProgramBuilder p(g, transcript, "reduction.round3.program");
//   DeviceFp4 s1 = sum_ext(p, partials, 0, parts, 2), s2 = sum_ext(p, partials, 1, parts, 2);
//   store_ext(evals, s1, 0);
//   observe_ext(s1);
//   DeviceFp4 r = sample_ext(p);
//   store_ext(u, r * s2 + Fp4::one(), 0);
//   p.emit();
//
// Operators take DeviceFp4 or host constants (Fp4, Fp) on either side, so a formula written as a
// template over its field type serves the verifier (host Fp4) and the prover (DeviceFp4) alike. A
// value lives in the program part it was made in: after a grind splits the program (or after
// emit) using it is a GraphError naming the program; its release then does nothing. Values of two
// programs never mix (GraphError). Thread-compatible, as the builder.
#pragma once

#include <cstdint>
#include <memory>

#include "kernels/field/fp4.hpp"
#include "stages/common/program.hpp"

namespace vkstark {

class DeviceFp4 {
 public:
  DeviceFp4() = default;  // empty: any use is a GraphError

  ProgramBuilder& builder() const;  // GraphError when empty

  DeviceFp4 inverse() const;  // 0 for 0 (kernels/program.hpp)

  friend DeviceFp4 operator+(const DeviceFp4& a, const DeviceFp4& b);
  friend DeviceFp4 operator-(const DeviceFp4& a, const DeviceFp4& b);
  friend DeviceFp4 operator*(const DeviceFp4& a, const DeviceFp4& b);
  friend DeviceFp4 operator+(const DeviceFp4& a, const Fp4& b) { return a + a.constant(b); }
  friend DeviceFp4 operator+(const Fp4& a, const DeviceFp4& b) { return b.constant(a) + b; }
  friend DeviceFp4 operator-(const DeviceFp4& a, const Fp4& b) { return a - a.constant(b); }
  friend DeviceFp4 operator-(const Fp4& a, const DeviceFp4& b) { return b.constant(a) - b; }
  friend DeviceFp4 operator*(const DeviceFp4& a, const Fp4& b) { return a * a.constant(b); }
  friend DeviceFp4 operator*(const Fp4& a, const DeviceFp4& b) { return b.constant(a) * b; }
  friend DeviceFp4 operator+(const DeviceFp4& a, Fp b) { return a + Fp4(b); }
  friend DeviceFp4 operator+(Fp a, const DeviceFp4& b) { return Fp4(a) + b; }
  friend DeviceFp4 operator-(const DeviceFp4& a, Fp b) { return a - Fp4(b); }
  friend DeviceFp4 operator-(Fp a, const DeviceFp4& b) { return Fp4(a) - b; }
  friend DeviceFp4 operator*(const DeviceFp4& a, Fp b) { return a * Fp4(b); }
  friend DeviceFp4 operator*(Fp a, const DeviceFp4& b) { return Fp4(a) * b; }
  DeviceFp4& operator+=(const DeviceFp4& b) { return *this = *this + b; }
  DeviceFp4& operator-=(const DeviceFp4& b) { return *this = *this - b; }
  DeviceFp4& operator*=(const DeviceFp4& b) { return *this = *this * b; }

 private:
  friend DeviceFp4 constant(ProgramBuilder& b, const Fp4& v);
  friend DeviceFp4 load(ProgramBuilder& b, View<Fp> v, uint64_t i);
  friend DeviceFp4 load_ext(ProgramBuilder& b, View<Fp4> v, uint64_t i);
  friend DeviceFp4 sum_ext(ProgramBuilder& b, View<Fp4> v, uint64_t first, uint64_t count, uint64_t stride);
  friend DeviceFp4 sample(ProgramBuilder& b);
  friend DeviceFp4 sample_ext(ProgramBuilder& b);
  friend void store(View<Fp> dst, const DeviceFp4& x, uint64_t i);
  friend void store_ext(View<Fp4> dst, const DeviceFp4& x, uint64_t i);
  friend void observe(const DeviceFp4& x);
  friend void observe_ext(const DeviceFp4& x);
  // Takes over a register the builder allocated (it is released with the last copy).
  static DeviceFp4 adopt(ProgramBuilder& b, ProgramBuilder::Reg r);
  ProgramBuilder::Reg reg() const;  // GraphError when empty or spent

  struct Held {
    ProgramBuilder* b;
    ProgramBuilder::Reg r;
    uint32_t generation;
    Held(ProgramBuilder* builder, ProgramBuilder::Reg reg) : b(builder), r(reg), generation(builder->generation()) {}
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    ~Held() { b->release_of_generation(r, generation); }
  };
  DeviceFp4 constant(const Fp4& v) const;
  static DeviceFp4 binary(const DeviceFp4& a, const DeviceFp4& b, char op);  // op: '+', '-', '*'
  static ProgramBuilder& same_builder(const DeviceFp4& a, const DeviceFp4& b, const char* op);
  std::shared_ptr<const Held> s_;
};

// The builder's value-making operations, as values.
DeviceFp4 constant(ProgramBuilder& b, const Fp4& v);
DeviceFp4 load(ProgramBuilder& b, View<Fp> v, uint64_t i = 0);
DeviceFp4 load_ext(ProgramBuilder& b, View<Fp4> v, uint64_t i = 0);
DeviceFp4 sum_ext(ProgramBuilder& b, View<Fp4> v, uint64_t first, uint64_t count, uint64_t stride = 1);
DeviceFp4 sample(ProgramBuilder& b);
DeviceFp4 sample_ext(ProgramBuilder& b);
void store(View<Fp> dst, const DeviceFp4& x, uint64_t i = 0);
void store_ext(View<Fp4> dst, const DeviceFp4& x, uint64_t i = 0);
void observe(const DeviceFp4& x);
void observe_ext(const DeviceFp4& x);

}  // namespace vkstark
