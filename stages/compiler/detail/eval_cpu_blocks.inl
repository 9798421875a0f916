// Block body of the CPU constraint evaluator, shared by stages/compiler/eval_cpu.cpp (portable) and
// eval_cpu_avx2.cpp / eval_cpu_avx512.cpp (compiled for their ISA). Each includes this inside an
// anonymous namespace of vkstark::eval_cpu_detail, after detail/eval_cpu_program.hpp and one of
// kernels/field/detail/packed_*.inl (Vec, LANES and the packed field operations), so everything here
// has internal linkage and code compiled for one ISA never leaks into another translation unit.
// Nothing here calls a standard-library template for the same reason.

static_assert(kBlockRows % LANES == 0);
constexpr uint32_t kVecs = kBlockRows / LANES;

// kBlockRows values of a column from row `first` on, rows taken mod the height (the next row of
// the last block wraps; a trace shorter than a block repeats, and those lanes are never written).
[[gnu::always_inline]] inline void load_column(uint32_t* dst, const uint32_t* col, uint64_t first, uint64_t height) {
  if (first + kBlockRows <= height) {
    for (uint32_t v = 0; v < kVecs; ++v) vstore(dst + v * LANES, vloadu(col + first + v * LANES));
  } else {
    for (uint32_t l = 0; l < kBlockRows; ++l) dst[l] = col[(first + l) & (height - 1)];
  }
}

template <class F>
[[gnu::always_inline]] inline void for_each_vec(uint32_t* dst, const uint32_t* a, const uint32_t* b, F f) {
  for (uint32_t v = 0; v < kVecs; ++v) vstore(dst + v * LANES, f(vload(a + v * LANES), vload(b + v * LANES)));
}

// acc[t][row] += lambda_t * a[row] for the four coefficients t of lambda (Montgomery words).
[[gnu::always_inline]] inline void fold(uint64_t* acc, const uint32_t* a, const uint32_t* lambda) {
  const Vec l0 = vbroadcast(lambda[0]), l1 = vbroadcast(lambda[1]), l2 = vbroadcast(lambda[2]),
            l3 = vbroadcast(lambda[3]);
  for (uint32_t v = 0; v < kVecs; ++v) {
    const Vec c = vload(a + v * LANES);
    uint64_t* at = acc + v * LANES;
    vmul_acc_wide(at, c, l0);
    vmul_acc_wide(at + kBlockRows, c, l1);
    vmul_acc_wide(at + 2 * kBlockRows, c, l2);
    vmul_acc_wide(at + 3 * kBlockRows, c, l3);
  }
}

[[gnu::always_inline]] inline void run_program(const Program& P, const Dispatch& d, uint32_t* regs, uint64_t* acc,
                                               uint64_t r0) {
  const uint64_t height = uint64_t(1) << d.log_height;
  for (uint64_t k = 0; k < P.code_size; ++k) {
    const Instr in = P.code[k];
    uint32_t* dst = regs + size_t(in.dst) * kBlockRows;
    switch (in.op) {
      case Op::LoadLocal:
        load_column(dst, d.parts[in.a] + (uint64_t(in.b) << d.log_height), r0, height);
        break;
      case Op::LoadNext:
        load_column(dst, d.parts[in.a] + (uint64_t(in.b) << d.log_height), r0 + 1, height);
        break;
      case Op::Add:
        for_each_vec(dst, regs + size_t(in.a) * kBlockRows, regs + size_t(in.b) * kBlockRows,
                     [](Vec x, Vec y) { return vadd(x, y); });
        break;
      case Op::Sub:
        for_each_vec(dst, regs + size_t(in.a) * kBlockRows, regs + size_t(in.b) * kBlockRows,
                     [](Vec x, Vec y) { return vsub(x, y); });
        break;
      case Op::Neg: {
        const uint32_t* a = regs + size_t(in.a) * kBlockRows;
        for (uint32_t v = 0; v < kVecs; ++v) vstore(dst + v * LANES, vneg(vload(a + v * LANES)));
        break;
      }
      case Op::Mul:
        for_each_vec(dst, regs + size_t(in.a) * kBlockRows, regs + size_t(in.b) * kBlockRows,
                     [](Vec x, Vec y) { return vmul(x, y); });
        break;
      case Op::FoldReduce:
        for (uint32_t j = 0; j < 4 * kBlockRows; j += LANES) wide_reduce(acc + j);
        [[fallthrough]];
      case Op::Fold:
        fold(acc, regs + size_t(in.a) * kBlockRows, d.lambda_powers + 4 * size_t(in.b));
        break;
    }
  }
}

// Blocks [begin, end) of the dispatch.
inline void run_blocks(const Program& P, const Dispatch& d, const Scratch& s, uint64_t begin, uint64_t end) {
  const uint64_t height = uint64_t(1) << d.log_height;
  const uint32_t one = Fp::one().mont();
  uint32_t* regs = s.regs;
  uint64_t* acc = s.acc;
  for (uint32_t i = 0; i < P.num_fixed; ++i) {
    const Vec x = vbroadcast(d.fixed[i]);
    for (uint32_t v = 0; v < kVecs; ++v) vstore(regs + size_t(kFirstFixed + i) * kBlockRows + v * LANES, x);
  }
  uint32_t* first = regs;
  uint32_t* last = regs + kBlockRows;
  uint32_t* transition = regs + 2 * kBlockRows;
  for (uint64_t block = begin; block < end; ++block) {
    const uint64_t r0 = block * kBlockRows;
    for (uint32_t l = 0; l < kBlockRows; ++l) {
      const uint64_t r = r0 + l;
      first[l] = r == 0 ? one : 0;
      last[l] = r == height - 1 ? one : 0;
      transition[l] = r != height - 1 ? one : 0;
    }
    for (uint32_t j = 0; j < 4 * kBlockRows; ++j) acc[j] = 0;
    run_program(P, d, regs, acc, r0);
    // Row l of a block is lane l % LANES of vector l / LANES, whose sums lie even lanes first.
    const uint64_t rows = height - r0 < kBlockRows ? height - r0 : kBlockRows;
    for (uint32_t l = 0; l < rows; ++l) {
      const uint32_t lane = l % LANES;
      const uint32_t at = l - lane + (lane & 1 ? LANES / 2 : 0) + lane / 2;
      for (uint32_t t = 0; t < 4; ++t) {
        const uint32_t v = wide_value(acc[t * kBlockRows + at]);
        uint32_t& o = d.out[4 * (r0 + l) + t];
        const uint32_t sum = o + v;  // below 2p < 2^32
        o = !d.accumulate ? v : sum >= Fp::P ? sum - Fp::P : sum;
      }
    }
  }
}
