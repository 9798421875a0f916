// Parity of the NTT kernel family (kernels/ntt.hpp) and its graph builders (stages/common/ntt.hpp): on
// each executor the results must equal the host reference (kernels/field/dft.hpp) bit for bit.
// Every test first runs the twiddle setup graph as its own plan, then the transform graph as a
// second plan on the same executor, which reads the Persistent table the first one wrote.
// Covered: forward DFT for sizes 2^0 .. 2^12 with 1 and 3 columns at odd offsets and strides, with
// one radix-2 stage per dispatch and with radix-16 passes; zero-padded sources; round trips up to
// 2^20; Fp4 columns; the RS message (protocol.md 6.3) for l = 0..5 and 10 and its known answer, and
// for l = 0..5 against a naive O(n^2) reference written here (the CPU body and the host reference
// share kernels/field/dft.*, so they cannot check each other; style.md item 16); transposes;
// subset-zeta / Möbius against the host and as a round trip.
#include <algorithm>
#include <bit>
#include <span>
#include <vector>

#include "kernels/basic.hpp"
#include "kernels/field/dft.hpp"
#include "stages/common/ntt.hpp"
#include "tests/parity/executor_fixture.hpp"

using namespace vkstark;
using namespace vkstark::testing;

namespace {

// Copies of columns c < batch of `len` entries at `stride` from `from` (starting at `offset`).
template <class T>
std::vector<std::vector<T>> columns(const std::vector<T>& from, uint64_t offset, uint64_t len, uint64_t stride,
                                    uint32_t batch) {
  std::vector<std::vector<T>> out;
  for (uint32_t c = 0; c < batch; ++c)
    out.emplace_back(from.begin() + offset + c * stride, from.begin() + offset + c * stride + len);
  return out;
}

// The RS message of one chunk of 2^l entries by the definitions of kernels/ntt.hpp and protocol.md
// 6.3, nothing shared with the code under test but the field: the iDFT as the sum
// a_k = n^-1 sum_j chunk_j omega^(-jk), then subset-zeta a'[S] = sum over T subset of S of a[T].
// The inverse map: subset-Möbius m[S] = sum over T subset of S of (-1)^|S \ T| a[T], then the DFT
// y_k = sum_j m_j omega^(jk).
std::vector<Fp> naive_rs_message(const std::vector<Fp>& chunk, bool inverse) {
  const uint32_t n = static_cast<uint32_t>(chunk.size());
  const Fp omega = two_adic_generator(static_cast<uint32_t>(std::countr_zero(n)));
  const Fp omega_inv = omega.pow(n - 1);
  const Fp n_inv = Fp::from_canonical(n).inverse();
  auto subsets = [&](const std::vector<Fp>& a, bool mobius) {
    std::vector<Fp> out(n);
    for (uint32_t set = 0; set < n; ++set)
      for (uint32_t t = 0; t < n; ++t)
        if ((t & set) == t) out[set] += mobius && std::popcount(set ^ t) % 2 ? -a[t] : a[t];
    return out;
  };
  auto transform = [&](const std::vector<Fp>& a, Fp root, Fp scale) {
    std::vector<Fp> out(n);
    for (uint32_t k = 0; k < n; ++k) {
      Fp acc;
      for (uint32_t j = 0; j < n; ++j) acc += a[j] * root.pow(uint64_t(j) * k);
      out[k] = acc * scale;
    }
    return out;
  };
  if (inverse) return transform(subsets(chunk, true), omega, Fp::one());
  return subsets(transform(chunk, omega_inv, n_inv), false);
}

}  // namespace

class NttParity : public ExecutorTest {
 protected:
  // The setup plan: fills "ntt.twiddles.<max_log_n>" on this test's executor.
  void run_setup(uint32_t max_log_n) {
    Graph setup;
    Ntt(setup, max_log_n).add_setup();
    run(setup, [](PreparedPlan&) {});
  }

  // dst = forward (or inverse) transform of `batch` columns, at odd offsets and strides (whole_runs:
  // offsets and strides in whole runs of 4 entries, which 16-byte accesses need), checked against
  // the host dft of each zero-padded column.
  template <class T>
  void check_transform(std::vector<T> (*gen)(size_t, uint64_t), uint32_t max_log_n, uint32_t log_src, uint32_t log_n,
                       uint32_t batch, bool inverse, NttOptions options, bool whole_runs = false) {
    const uint64_t src_len = uint64_t(1) << log_src, n = uint64_t(1) << log_n;
    const uint64_t src_stride = src_len + (whole_runs ? 4 : 3), dst_stride = n + (whole_runs ? 8 : 5);
    const uint64_t src_off = whole_runs ? 4 : 1, dst_off = whole_runs ? 8 : 2;
    Graph g;
    Ntt ntt(g, max_log_n, options);
    auto src = g.input<T>("src", src_off + (batch - 1) * src_stride + src_len + (whole_runs ? 4 : 2));
    auto dst = g.output<T>("dst", dst_off + (batch - 1) * dst_stride + n + (whole_runs ? 4 : 1));
    const auto src_view = src.slice(src_off, src.count() - src_off);
    const auto dst_view = dst.slice(dst_off, dst.count() - dst_off);
    if (inverse)
      ntt.inverse(src_view, src_stride, dst_view, log_n, dst_stride, batch);
    else
      ntt.forward(src_view, log_src, src_stride, dst_view, log_n, dst_stride, batch);
    auto x = gen(src.count(), 1000 * log_n + 10 * log_src + batch);
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(src, x); });
    auto got = columns(p->download(dst), dst_off, n, dst_stride, batch);
    auto in = columns(x, src_off, src_len, src_stride, batch);
    for (uint32_t c = 0; c < batch; ++c) {
      std::vector<T> expect = in[c];
      expect.resize(n);
      if (inverse)
        idft(std::span<T>(expect));
      else
        dft(std::span<T>(expect));
      ASSERT_EQ(got[c], expect) << (inverse ? "inverse" : "forward") << " log_src=" << log_src << " log_n=" << log_n
                                << " batch=" << batch << " column=" << c << " max_log_radix=" << options.max_log_radix;
    }
  }
};
VKSTARK_INSTANTIATE_FOR_EXECUTORS(NttParity);

TEST_P(NttParity, TwiddleTableHoldsThePowersOfTheRoot) {
  for (uint32_t log_n : {0u, 1u, 5u, 13u}) {
    run_setup(log_n);
    Graph g;
    Ntt ntt(g, log_n);
    auto out = g.output<Fp>("out", ntt.twiddles().count());
    g.dispatch<CopyU32>("copy",
                        {.src = ntt.twiddles().all().bitcast<uint32_t>(), .dst = out.all().bitcast<uint32_t>()});
    auto p = run(g, [](PreparedPlan&) {});
    auto tw = p->download(out);
    const Fp omega = two_adic_generator(log_n);
    Fp w = Fp::one();
    for (size_t t = 0; t < tw.size(); ++t, w *= omega) ASSERT_EQ(tw[t], w) << "log_n=" << log_n << " t=" << t;
  }
}

TEST_P(NttParity, ForwardMatchesTheHostDftForEverySizeUpTo4096) {
  run_setup(12);
  for (uint32_t log_n = 0; log_n <= 12; ++log_n)
    for (uint32_t batch : {1u, 3u})
      for (uint32_t radix : {kNttMaxSharedLogRadix, 5u, kNttMaxLogRadix, 1u})
        check_transform<Fp>(field_values, 12, log_n, log_n, batch, false, {.max_log_radix = radix});
}

TEST_P(NttParity, ForwardOfAZeroPaddedSourceIsTheCodeword) {
  run_setup(12);
  for (auto [log_src, log_n] : {std::pair{0u, 0u}, {0u, 3u}, {1u, 2u}, {3u, 4u}, {5u, 8u}, {4u, 9u}, {10u, 12u}})
    for (uint32_t radix : {kNttMaxSharedLogRadix, 6u, kNttMaxLogRadix, 2u, 1u})
      check_transform<Fp>(field_values, 12, log_src, log_n, 3, false, {.max_log_radix = radix});
}

// The 16-byte register pass (NttStageVecFp) on every size, padding and pass split it takes, and the
// 4-byte passes with the option off, on the same columns.
TEST_P(NttParity, WholeRunsOfFourTakeSixteenByteAccesses) {
  run_setup(13);
  for (const bool vector : {true, false}) {
    for (uint32_t log_n = 0; log_n <= 13; ++log_n)
      for (uint32_t radix : {kNttMaxLogRadix, 3u, 2u, 1u, 5u, kNttMaxSharedLogRadix}) {
        check_transform<Fp>(field_values, 13, log_n, log_n, 3, false, {.max_log_radix = radix, .vector_access = vector},
                            true);
        check_transform<Fp>(field_values, 13, log_n, log_n, 2, true, {.max_log_radix = radix, .vector_access = vector},
                            true);
        if (log_n >= 1)
          check_transform<Fp>(field_values, 13, log_n - 1, log_n, 3, false,
                              {.max_log_radix = radix, .vector_access = vector}, true);
        if (log_n >= 3)
          check_transform<Fp>(field_values, 13, log_n - 3, log_n, 1, false,
                              {.max_log_radix = radix, .vector_access = vector}, true);
      }
  }
}

// forward_rows: the rows an opening reads (leaf groups of 16 rows n/16 apart, a few queries, one
// repeated) equal the host DFT's; the last passes are masked where few of their groups lead there
// (sizes and radices where none, some or all passes after the first are).
TEST_P(NttParity, ForwardRowsGivesTheReadRowsOfTheTransform) {
  run_setup(14);
  for (uint32_t log_n : {6u, 10u, 14u})
    for (uint32_t radix : {kNttMaxLogRadix, 2u})
      for (uint32_t queries : {1u, 5u}) {
        const uint32_t batch = 3, log_src = log_n - 1, group = 16;
        const uint64_t n = uint64_t(1) << log_n, src_len = n / 2, stride_q = n / group;
        const uint64_t src_stride = src_len + 4, dst_stride = n + 8;
        Graph g;
        Ntt ntt(g, 14, {.max_log_radix = radix});
        auto src = g.input<Fp>("src", 4 + batch * src_stride);
        auto dst = g.output<Fp>("dst", 8 + batch * dst_stride);
        auto idx = g.input<uint32_t>("idx", queries);
        ntt.forward_rows(src.slice(4, batch * src_stride), log_src, src_stride, dst.slice(8, batch * dst_stride), log_n,
                         dst_stride, batch, {.idx = idx, .rows_per_query = group, .query_stride = uint32_t(stride_q)},
                         "rows");
        size_t marks = 0;
        for (const auto& t : g.tasks()) marks += t.name.find(".mark") != std::string::npos;
        if (log_n == 14 && radix == kNttMaxLogRadix) {
          EXPECT_GT(marks, 0u) << "queries " << queries;
        }
        std::vector<uint32_t> vidx(queries);
        for (uint32_t q = 0; q < queries; ++q) vidx[q] = uint32_t((q * 2654435761u) % stride_q);
        if (queries > 1) vidx[queries - 1] = vidx[0];
        auto x = field_values(src.count(), 40 + log_n);
        auto p = run(g, [&](PreparedPlan& pp) {
          pp.upload(src, x);
          pp.upload(idx, vidx);
        });
        auto got = p->download(dst);
        for (uint32_t c = 0; c < batch; ++c) {
          std::vector<Fp> expect(x.begin() + 4 + c * src_stride, x.begin() + 4 + c * src_stride + src_len);
          expect.resize(n);
          dft(std::span<Fp>(expect));
          for (uint32_t q = 0; q < queries; ++q)
            for (uint64_t t = 0; t < group; ++t) {
              const uint64_t row = vidx[q] + t * stride_q;
              ASSERT_EQ(got[8 + c * dst_stride + row], expect[row])
                  << "log_n " << log_n << " radix " << radix << " column " << c << " row " << row;
            }
        }
      }
}

// A masked vector pass: the quads of groups with a mark are those of the unmasked pass; on the
// device the others are left as they were (the CPU body computes every group).
TEST_P(NttParity, AMaskedVectorPassComputesTheMarkedGroups) {
  run_setup(10);
  const uint32_t log_n = 10, stage = 4, lr = 3, batch = 2;
  const uint64_t n = uint64_t(1) << log_n, groups = n >> lr;
  Graph g;
  Ntt ntt(g, 10);
  auto src = g.input<Fp>("src", batch * n);
  auto full = g.output<Fp>("full", batch * n);
  auto masked = g.output<Fp>("masked", batch * n);
  auto mask = g.input<uint32_t>("mask", groups / 32);
  g.dispatch<FillU32>("masked.fill", {.out = masked.all().bitcast<uint32_t>(), .value = 0xDEADBEEFu});
  NttStageArgs<Fp4> a{.src = src.all().bitcast<Fp4>(),
                      .dst = full.all().bitcast<Fp4>(),
                      .tw = ntt.twiddles(),
                      .src_stride = uint32_t(n / 4),
                      .dst_stride = uint32_t(n / 4),
                      .log_n = log_n,
                      .stage = stage,
                      .log_radix = lr,
                      .log_src = log_n,
                      .log_tw = 10};
  g.dispatch<NttStageVecFp>("full", a);
  a.dst = masked.all().bitcast<Fp4>();
  a.mask = {mask.all()};
  g.dispatch<NttStageVecFp>("masked", a);
  std::vector<uint32_t> vmask(groups / 32, 0);
  vmask[0] = 1u << 9;      // group 9: the quad of groups 8 .. 11
  vmask[3] = 0x80000000u;  // group 127: the quad of 124 .. 127
  auto x = field_values(src.count(), 9);
  auto p = run(g, [&](PreparedPlan& pp) {
    pp.upload(src, x);
    pp.upload(mask, vmask);
  });
  const auto want = p->download(full), got = p->download(masked);
  const uint64_t s = uint64_t(1) << stage;
  size_t kept = 0;
  for (uint32_t c = 0; c < batch; ++c)
    for (uint64_t row = 0; row < n; ++row) {
      const uint64_t grp = (row & (s - 1)) | ((row >> (stage + lr)) << stage);
      const bool marked = (grp >= 8 && grp < 12) || grp >= 124;
      if (marked || GetParam() == "cpu") {
        ASSERT_EQ(got[c * n + row], want[c * n + row]) << "column " << c << " row " << row;
      } else {
        ASSERT_EQ(got[c * n + row].mont(), 0xDEADBEEFu) << "column " << c << " row " << row;
        ++kept;
      }
    }
  if (GetParam() != "cpu") {
    EXPECT_EQ(kept, (size_t(batch) * (groups - 8)) << lr);
  }
}

TEST_P(NttParity, MarksSetTheGroupsThatLeadToTheRows) {
  // A transform of 2^6 in passes of radix 4, 4, 4 (stages 0, 2, 4): rows 5 and 37 (a query at 5,
  // rows_per_query 2, 32 apart) come from the last pass's groups 5 mod 16 + 16 (row >> 6) = 5, and
  // those read rows 5 + 16 j, written by the middle pass's groups (row mod 4) + 4 (row >> 4) = 1 + 4 j.
  Graph g;
  auto idx = g.input<uint32_t>("idx", 1);
  auto last = g.output<uint32_t>("last", 1);
  auto middle = g.output<uint32_t>("middle", 1);
  g.dispatch<FillU32>("zero.last", {.out = last, .value = 0});
  g.dispatch<FillU32>("zero.middle", {.out = middle, .value = 0});
  g.dispatch<NttMarkRows>(
      "rows",
      {.idx = idx, .mask = last, .rows_per_query = 2, .query_stride = 32, .log_n = 6, .stage = 4, .log_radix = 2});
  g.dispatch<NttMarkInputs>(
      "inputs", {.next_mask = last, .mask = middle, .log_n = 6, .stage = 2, .log_radix = 2, .next_log_radix = 2});
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(idx, std::vector<uint32_t>{5}); });
  EXPECT_EQ(p->download(last), std::vector<uint32_t>{1u << 5});
  EXPECT_EQ(p->download(middle), std::vector<uint32_t>{(1u << 1) | (1u << 5) | (1u << 9) | (1u << 13)});
}

TEST_P(NttParity, InverseMatchesTheHostInverseDft) {
  run_setup(11);
  for (uint32_t log_n : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 10u, 11u})
    for (uint32_t radix : {kNttMaxSharedLogRadix, 7u, kNttMaxLogRadix, 3u, 1u})
      check_transform<Fp>(field_values, 11, log_n, log_n, 3, true, {.max_log_radix = radix});
}

TEST_P(NttParity, InverseUndoesForwardForSizesUpTo2To20) {
  constexpr uint32_t kMax = 20;
  run_setup(kMax);
  for (uint32_t log_n = 0; log_n <= kMax; ++log_n) {
    const uint64_t n = uint64_t(1) << log_n;
    Graph g;
    Ntt ntt(g, kMax);
    auto x = g.input<Fp>("x", n);
    auto y = g.output<Fp>("y", n);
    auto back = g.output<Fp>("back", n);
    ntt.forward(x, log_n, n, y, log_n, n, 1);
    ntt.inverse(y, n, back, log_n, n, 1);
    auto vx = field_values(n, log_n);
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(x, vx); });
    ASSERT_EQ(p->download(back), vx) << "log_n=" << log_n;
    if (log_n % 4 == 0 || log_n == kMax) {
      auto expect = vx;
      dft(std::span<Fp>(expect));
      ASSERT_EQ(p->download(y), expect) << "log_n=" << log_n;
    }
  }
}

TEST_P(NttParity, ExtensionFieldColumnsUseBaseFieldRoots) {
  run_setup(10);
  for (uint32_t log_n : {0u, 1u, 3u, 6u, 9u, 10u})
    for (uint32_t radix : {kNttMaxSharedLogRadix, 5u, kNttMaxLogRadix, 1u}) {
      check_transform<Fp4>(ext_values, 10, log_n, log_n, 2, false, {.max_log_radix = radix});
      check_transform<Fp4>(ext_values, 10, log_n, log_n, 2, true, {.max_log_radix = radix});
      if (log_n >= 2) check_transform<Fp4>(ext_values, 10, log_n - 2, log_n, 3, false, {.max_log_radix = radix});
    }
}

TEST_P(NttParity, SetupAndTransformCanShareOneGraph) {
  Graph g;
  Ntt ntt(g, 9);
  ntt.add_setup();
  auto x = g.input<Fp>("x", 3 * 512);
  auto y = g.output<Fp>("y", 3 * 512);
  ntt.forward(x, 9, 512, y, 9, 512, 3);
  auto vx = field_values(x.count(), 5);
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(x, vx); });
  auto got = p->download(y);
  for (uint32_t c = 0; c < 3; ++c) {
    std::vector<Fp> expect(vx.begin() + c * 512, vx.begin() + (c + 1) * 512);
    dft(std::span<Fp>(expect));
    ASSERT_TRUE(std::equal(expect.begin(), expect.end(), got.begin() + c * 512)) << "column " << c;
  }
}

TEST_P(NttParity, Dft8MatchesTheKnownAnswer) {
  Graph g;
  Ntt ntt(g, 3);
  ntt.add_setup();
  auto x = g.input<Fp>("x", 8);
  auto y = g.output<Fp>("y", 8);
  ntt.forward(x, 3, 8, y, 3, 8, 1);
  std::vector<Fp> vx;
  for (uint32_t i = 1; i <= 8; ++i) vx.push_back(Fp::from_canonical(i));
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(x, vx); });
  std::vector<Fp> expect;  // protocol.md 16.2
  for (uint32_t v : {36u, 1976151680u, 1139445628u, 1710526337u, 2013265917u, 302739576u, 873820285u, 37114233u})
    expect.push_back(Fp::from_canonical(v));
  EXPECT_EQ(p->download(y), expect);
}

TEST_P(NttParity, RsMessageMatchesTheKnownAnswer) {
  Graph g;
  auto x = g.input<Fp>("x", 8);
  auto msg = g.output<Fp>("msg", 8);
  g.dispatch<CopyU32>("copy", {.src = x.all().bitcast<uint32_t>(), .dst = msg.all().bitcast<uint32_t>()});
  add_rs_message(g, msg, 2, 8, 8, 1);
  std::vector<Fp> vx;
  for (uint32_t i = 1; i <= 8; ++i) vx.push_back(Fp::from_canonical(i));
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(x, vx); });
  std::vector<Fp> expect;
  for (uint32_t v : {1006632963u, 1870835219u, 2u, 1u, 1006632967u, 1870835223u, 6u, 5u})
    expect.push_back(Fp::from_canonical(v));
  EXPECT_EQ(p->download(msg), expect);
}

// whole_runs: columns at offsets and strides in whole runs of four entries, where chunks of 16 take
// 16-byte copies (NttRsMessageVec); otherwise odd ones.
TEST_P(NttParity, RsMessageMatchesTheHostForChunkSizesUpTo2To10) {
  for (const bool whole_runs : {false, true})
    for (uint32_t l : {0u, 1u, 2u, 3u, 4u, 5u, 10u})
      for (bool inverse : {false, true}) {
        const uint32_t batch = 3;
        // Small chunks: more than one workgroup's worth (the GLSL bodies stage 128 chunks at a
        // time), not a multiple of it.
        const uint64_t col_len = uint64_t(l <= 4 ? 300 : 8) << l, stride = col_len + (whole_runs ? 8 : 7);
        const uint64_t off = whole_runs ? 4 : 1;
        Graph g;
        auto x = g.input<Fp>("x", batch * stride);
        auto data = g.output<Fp>("data", batch * stride + off);
        g.dispatch<CopyU32>(
            "copy", {.src = x.all().bitcast<uint32_t>(), .dst = data.slice(off, x.count()).bitcast<uint32_t>()});
        if (inverse)
          add_rs_message_inverse(g, data.slice(off, x.count()), l, col_len, stride, batch);
        else
          add_rs_message(g, data.slice(off, x.count()), l, col_len, stride, batch);
        EXPECT_EQ(g.tasks().back().kernel->name, whole_runs && l == 4 ? NttRsMessageVec::name : NttRsMessage::name);
        auto vx = field_values(x.count(), 77 + l);
        auto p = run(g, [&](PreparedPlan& pp) { pp.upload(x, vx); });
        auto got = p->download(data);
        for (uint32_t c = 0; c < batch; ++c) {
          std::vector<Fp> expect(vx.begin() + c * stride, vx.begin() + c * stride + col_len);
          if (inverse)
            rs_message_chunks_inverse(expect, l);
          else
            rs_message_chunks(expect, l);
          ASSERT_TRUE(std::equal(expect.begin(), expect.end(), got.begin() + off + c * stride))
              << "l=" << l << " column=" << c << (inverse ? " inverse" : "") << (whole_runs ? " whole runs" : "");
          // Entries between columns are left alone.
          ASSERT_TRUE(std::equal(vx.begin() + c * stride + col_len, vx.begin() + (c + 1) * stride,
                                 got.begin() + off + c * stride + col_len));
        }
      }
}

// add_rs_message_from: the message of src's columns in dst, src unchanged, in one pass
// (NttRsMessageVecFrom) where both are whole runs of four and l = 4; nothing added otherwise.
TEST_P(NttParity, RsMessageFromLeavesTheSourceAndMatchesTheHost) {
  for (const bool whole_runs : {false, true})
    for (uint32_t l : {3u, 4u}) {
      const uint32_t batch = 3;
      const uint64_t col_len = uint64_t(300) << l, stride = col_len + 8;
      const uint64_t off = whole_runs ? 4 : 1;
      Graph g;
      auto x = g.input<Fp>("x", batch * stride + off);
      auto dst = g.output<Fp>("dst", batch * stride + 4);
      const bool added = add_rs_message_from(g, x.slice(off, batch * stride), dst.slice(4, batch * stride), l, col_len,
                                             stride, batch, "message");
      ASSERT_EQ(added, whole_runs && l == 4) << "l=" << l;
      if (!added) {
        EXPECT_TRUE(g.tasks().empty());
        continue;
      }
      EXPECT_EQ(g.tasks().back().kernel->name, NttRsMessageVecFrom::name);
      auto check = g.output<Fp>("source_after", x.count());
      g.dispatch<CopyU32>("source_after", {.src = x.all().bitcast<uint32_t>(), .dst = check.all().bitcast<uint32_t>()});
      auto vx = field_values(x.count(), 91 + l);
      auto p = run(g, [&](PreparedPlan& pp) { pp.upload(x, vx); });
      EXPECT_EQ(p->download(check), vx);
      auto got = p->download(dst);
      for (uint32_t c = 0; c < batch; ++c) {
        std::vector<Fp> expect(vx.begin() + off + c * stride, vx.begin() + off + c * stride + col_len);
        rs_message_chunks(expect, l);
        ASSERT_TRUE(std::equal(expect.begin(), expect.end(), got.begin() + 4 + c * stride)) << "column " << c;
      }
    }
}

TEST_P(NttParity, RsMessageFromRefusesOverlappingColumns) {
  Graph g;
  auto y = g.output<Fp>("y", 64);
  g.dispatch<FillU32>("y.zero", {.out = y.all().bitcast<uint32_t>(), .value = 0});
  try {
    g.dispatch<NttRsMessageVecFrom>(
        "message",
        {.src = y.slice(0, 32).bitcast<Fp4>(), .dst = y.slice(16, 32).bitcast<Fp4>(), .col_len = 32, .col_stride = 8});
    FAIL() << "accepted overlapping views";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("src and dst overlap"), std::string::npos) << e.what();
  }
}

TEST_P(NttParity, RsMessageMatchesTheNaiveDefinitionForChunkSizesUpTo2To5) {
  const uint32_t batch = 5;
  for (uint32_t l = 0; l <= 5; ++l)
    for (bool inverse : {false, true}) {
      const uint64_t chunk = uint64_t(1) << l, col_len = 6 * chunk, stride = col_len + 3;
      // Columns: random values with 0, 1 and p-1 mixed in, then all 0, all 1 and all p-1.
      auto vx = field_values(batch * stride, 500 + 2 * l + inverse);
      const uint32_t edges[] = {0, 1, Fp::P - 1};
      for (uint32_t c = 2; c < batch; ++c)
        std::fill(vx.begin() + c * stride, vx.begin() + c * stride + col_len, Fp::from_canonical(edges[c - 2]));
      Graph g;
      auto x = g.input<Fp>("x", vx.size());
      auto data = g.output<Fp>("data", vx.size());
      g.dispatch<CopyU32>("copy", {.src = x.all().bitcast<uint32_t>(), .dst = data.all().bitcast<uint32_t>()},
                          Grid{static_cast<uint32_t>(vx.size())});
      if (inverse)
        add_rs_message_inverse(g, data, l, col_len, stride, batch);
      else
        add_rs_message(g, data, l, col_len, stride, batch);
      auto p = run(g, [&](PreparedPlan& pp) { pp.upload(x, vx); });
      auto got = p->download(data);
      for (uint32_t c = 0; c < batch; ++c)
        for (uint64_t at = c * stride; at < c * stride + col_len; at += chunk) {
          const std::vector<Fp> in(vx.begin() + at, vx.begin() + at + chunk);
          const std::vector<Fp> out(got.begin() + at, got.begin() + at + chunk);
          ASSERT_EQ(out, naive_rs_message(in, inverse))
              << "l=" << l << " column=" << c << " row " << at - c * stride << (inverse ? " inverse" : "");
        }
    }
}

TEST_P(NttParity, TransposeMovesRowMajorToColumnMajorAndBack) {
  for (auto [rows, cols] : {std::pair{1u, 1u}, {3u, 5u}, {64u, 42u}, {100u, 7u}, {1u, 1000u}, {257u, 129u}}) {
    const uint32_t count = rows * cols;
    Graph g;
    auto x = g.input<Fp>("x", count + 2);
    auto t = g.output<Fp>("t", count + 1);
    auto back = g.output<Fp>("back", count);
    add_transpose(g, x.slice(2, count), t.slice(1, count), rows, cols);
    add_transpose(g, t.slice(1, count), back, cols, rows, "transpose.back");
    auto vx = field_values(x.count(), rows * 7 + cols);
    auto p = run(g, [&](PreparedPlan& pp) { pp.upload(x, vx); });
    auto gt = p->download(t);
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < cols; ++c)
        ASSERT_EQ(gt[1 + c * rows + r], vx[2 + r * cols + c]) << rows << "x" << cols << " r=" << r << " c=" << c;
    ASSERT_TRUE(std::equal(vx.begin() + 2, vx.end(), p->download(back).begin())) << rows << "x" << cols;
  }
}

TEST_P(NttParity, SubsetZetaAndMobiusMatchTheHost) {
  const uint32_t log_n = 10, batch = 3;
  const uint64_t n = uint64_t(1) << log_n, stride = n + 3;
  for (auto [lo, hi] : {std::pair{0u, 10u}, {3u, 7u}, {0u, 1u}, {9u, 10u}, {2u, 2u}})
    for (uint32_t per_dispatch : {kNttMaxLogRadix, 1u, 3u}) {
      Graph g;
      auto x = g.input<Fp>("x", batch * stride);
      auto z = g.output<Fp>("z", batch * stride);
      auto m = g.output<Fp>("m", batch * stride);
      auto xe = g.input<Fp4>("xe", batch * stride);
      auto ze = g.output<Fp4>("ze", batch * stride);
      auto copy = [&](auto from, auto to, const char* name) {
        g.dispatch<CopyU32>(
            name, {.src = from.all().template bitcast<uint32_t>(), .dst = to.all().template bitcast<uint32_t>()});
      };
      copy(x, z, "copy.z");
      add_subset_zeta(g, z.all(), log_n, stride, batch, lo, hi, "zeta", per_dispatch);
      copy(z, m, "copy.m");
      add_subset_mobius(g, m.all(), log_n, stride, batch, lo, hi, "mobius", per_dispatch);
      copy(xe, ze, "copy.ze");
      add_subset_mobius(g, ze.all(), log_n, stride, batch, lo, hi, "mobius.ext", per_dispatch);
      auto vx = field_values(x.count(), lo * 16 + hi);
      auto vxe = ext_values(xe.count(), lo * 16 + hi + 1);
      auto p = run(g, [&](PreparedPlan& pp) {
        pp.upload(x, vx);
        pp.upload(xe, vxe);
      });
      auto gz = p->download(z), gm = p->download(m);
      auto gze = p->download(ze);
      for (uint32_t c = 0; c < batch; ++c) {
        std::vector<Fp> expect(vx.begin() + c * stride, vx.begin() + c * stride + n);
        subset_zeta(expect, lo, hi);
        ASSERT_TRUE(std::equal(expect.begin(), expect.end(), gz.begin() + c * stride))
            << "zeta [" << lo << ", " << hi << ") column " << c << " per_dispatch " << per_dispatch;
        ASSERT_TRUE(std::equal(vx.begin() + c * stride, vx.begin() + c * stride + n, gm.begin() + c * stride))
            << "mobius(zeta) [" << lo << ", " << hi << ") column " << c;
        std::vector<Fp4> expect_e(vxe.begin() + c * stride, vxe.begin() + c * stride + n);
        subset_mobius(expect_e, lo, hi);
        ASSERT_TRUE(std::equal(expect_e.begin(), expect_e.end(), gze.begin() + c * stride))
            << "mobius Fp4 [" << lo << ", " << hi << ") column " << c;
      }
    }
}

TEST_P(NttParity, ExtensionZetaOverAllBitsRoundTrips) {
  // WHIR: f = zeta(mu) over all m bits, g = Möbius(f).
  const uint32_t log_n = 14;
  Graph g;
  auto x = g.input<Fp4>("x", uint64_t(1) << log_n);
  auto f = g.output<Fp4>("f", x.count());
  g.dispatch<CopyU32>("copy", {.src = x.all().bitcast<uint32_t>(), .dst = f.all().bitcast<uint32_t>()});
  add_subset_zeta(g, f.all(), log_n, x.count(), 1, 0, log_n);
  auto vx = ext_values(x.count(), 3);
  auto p = run(g, [&](PreparedPlan& pp) { pp.upload(x, vx); });
  auto got = p->download(f);
  auto expect = vx;
  subset_zeta(expect, 0, log_n);
  ASSERT_EQ(got, expect);
  subset_mobius(got, 0, log_n);
  ASSERT_EQ(got, vx);
}
