// Block body of the extension-field interpreter on the CPU (detail/ext_cpu_program.hpp), shared by
// stages/compiler/ext_program.cpp (portable) and ext_program_avx2.cpp / ext_program_avx512.cpp
// (compiled for their ISA). Each includes this inside an anonymous namespace of
// vkstark::ext_cpu_detail, after detail/ext_cpu_program.hpp and one of
// kernels/field/detail/packed_*.inl (Vec, LANES and the packed field operations). Every field
// operation returns the canonical element, so every level gives the bits of the scalar Fp4 code
// and of the device interpreter. Nothing here calls a standard-library template.

static_assert(kPointLanes % LANES == 0);
constexpr uint32_t kVecs = kPointLanes / LANES;
constexpr uint32_t kSlotWords = 4 * kPointLanes;  // one slot: 4 coordinates x kPointLanes lanes

// W (X^4 = W) in Montgomery form.
constexpr uint32_t kWMont = Fp::from_canonical_unchecked(Fp4::W).mont();

// d = a * b over coordinates (schoolbook; X^4 = W), one vector of lanes at offset v.
[[gnu::always_inline]] inline void fp4_mul(uint32_t* d, const uint32_t* a, const Vec (&b)[4], uint32_t v) {
  const uint32_t o = v * LANES;
  const Vec a0 = vload(a + o), a1 = vload(a + kPointLanes + o), a2 = vload(a + 2 * kPointLanes + o),
            a3 = vload(a + 3 * kPointLanes + o);
  const Vec w = vbroadcast(kWMont);
  const Vec c0 = vadd(vmul(a0, b[0]), vmul(w, vadd(vadd(vmul(a1, b[3]), vmul(a2, b[2])), vmul(a3, b[1]))));
  const Vec c1 = vadd(vadd(vmul(a0, b[1]), vmul(a1, b[0])), vmul(w, vadd(vmul(a2, b[3]), vmul(a3, b[2]))));
  const Vec c2 = vadd(vadd(vadd(vmul(a0, b[2]), vmul(a1, b[1])), vmul(a2, b[0])), vmul(w, vmul(a3, b[3])));
  const Vec c3 = vadd(vadd(vmul(a0, b[3]), vmul(a1, b[2])), vadd(vmul(a2, b[1]), vmul(a3, b[0])));
  vstore(d + o, c0);
  vstore(d + kPointLanes + o, c1);
  vstore(d + 2 * kPointLanes + o, c2);
  vstore(d + 3 * kPointLanes + o, c3);
}

[[gnu::always_inline]] inline void ext_block(const Body& body, const Points& in, uint32_t* regs, uint64_t first,
                                             uint64_t count, uint32_t* acc) {
  const uint64_t len = uint64_t(1) << in.log_len;
  const uint32_t ylog = in.log_len == 0 ? 0 : in.log_len - 1;
  const uint64_t ymask = (uint64_t(1) << ylog) - 1;
  // Each lane's y (table offset 2 y) and x (as the Montgomery form of the integer).
  alignas(64) uint32_t xf[kPointLanes];
  uint64_t yoff[kPointLanes];
  for (uint32_t l = 0; l < kPointLanes; ++l) {
    const uint64_t o = first + (l < count ? l : count - 1);
    const uint64_t x = in.x_first + (o >> ylog);
    yoff[l] = 8 * (o & ymask);  // words: 2 Fp4 per y
    xf[l] = uint32_t((x << 32) % Fp::P);
  }
  alignas(64) uint32_t t0[4 * kPointLanes], t1[4 * kPointLanes];
  for (uint64_t k = 0; k < body.size; ++k) {
    const Instr in_ = body.code[k];
    uint32_t* dst = regs + size_t(in_.dst) * kSlotWords;
    const uint32_t* a = regs + size_t(in_.a) * kSlotWords;
    const uint32_t* b = regs + size_t(in_.b) * kSlotWords;
    switch (in_.op) {
      case kOpLoad: {
        // The column's table interpolated at x: t0 + (t1 - t0) x (x = 0: t0 exactly).
        const uint32_t* col = in.parts[in_.a] + 4 * (uint64_t(in_.b) * len);
        // A lane at x = 0 reads its first entry only, as the scalar code (a table of one entry per
        // column, log_len 0, has no second).
        for (uint32_t l = 0; l < kPointLanes; ++l) {
          const uint32_t* t = col + yoff[l];
          const uint32_t* u = xf[l] == 0 ? t : t + 4;
          for (uint32_t c = 0; c < 4; ++c) {
            t0[c * kPointLanes + l] = t[c];
            t1[c * kPointLanes + l] = u[c];
          }
        }
        for (uint32_t v = 0; v < kVecs; ++v) {
          const Vec x = vload(xf + v * LANES);
          for (uint32_t c = 0; c < 4; ++c) {
            const uint32_t o = c * kPointLanes + v * LANES;
            const Vec lo = vload(t0 + o);
            vstore(dst + o, vadd(lo, vmul(vsub(vload(t1 + o), lo), x)));
          }
        }
        break;
      }
      case kOpAdd:
        for (uint32_t w = 0; w < 4 * kVecs; ++w)
          vstore(dst + w * LANES, vadd(vload(a + w * LANES), vload(b + w * LANES)));
        break;
      case kOpSub:
        for (uint32_t w = 0; w < 4 * kVecs; ++w)
          vstore(dst + w * LANES, vsub(vload(a + w * LANES), vload(b + w * LANES)));
        break;
      case kOpNeg:
        for (uint32_t w = 0; w < 4 * kVecs; ++w) vstore(dst + w * LANES, vneg(vload(a + w * LANES)));
        break;
      case kOpMul:
        // dst may be a or b: every vector of lanes is read before its own store.
        for (uint32_t v = 0; v < kVecs; ++v) {
          const uint32_t o = v * LANES;
          const Vec bv[4] = {vload(b + o), vload(b + kPointLanes + o), vload(b + 2 * kPointLanes + o),
                             vload(b + 3 * kPointLanes + o)};
          fp4_mul(dst, a, bv, v);
        }
        break;
      case kOpFold: {
        const uint32_t* cf = in.coeffs + 4 * uint64_t(in_.b);
        const Vec cv[4] = {vbroadcast(cf[0]), vbroadcast(cf[1]), vbroadcast(cf[2]), vbroadcast(cf[3])};
        alignas(64) uint32_t prod[4 * kPointLanes];
        for (uint32_t v = 0; v < kVecs; ++v) fp4_mul(prod, a, cv, v);
        for (uint32_t w = 0; w < 4 * kVecs; ++w)
          vstore(acc + w * LANES, vadd(vload(acc + w * LANES), vload(prod + w * LANES)));
        break;
      }
      default:
        break;
    }
  }
}
