// Proving inputs (product/proving_input.hpp) and AIRs given as data (stages/air/dag_air.hpp):
//   * the layout byte for byte (a known answer written out from docs/proving-input.md), round trips
//     of a multi-AIR input with preprocessed, cached and absent AIRs, the file reader into given
//     memory equal to decoding;
//   * every truncation refused, every single-byte change of the headers refused or re-encoding to
//     the changed bytes, a header that claims more than the input holds refused before anything of
//     that size is allocated, each malformed field named with its AIR;
//   * prover_job refuses an input that does not fit the key, naming the AIR and the field;
//     keygen_from_vk names the AIR whose preprocessed trace is not the key's;
//   * a verifying key entry that lies (children, variables, degrees, depth) is refused by DagAir,
//     naming the AIR, and by the vk decoder;
//   * the debug checker names a data-built AIR's failing constraint by its DAG expression, and with
//     the C++ AIR at hand by its column names.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "executors/executors.hpp"
#include "product/airs/fibonacci.hpp"
#include "product/airs/interactions.hpp"
#include "product/airs/test_airs.hpp"
#include "product/proving_input.hpp"
#include "stages/air/dag_air.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/keygen.hpp"
#include "stages/encoding/codec.hpp"
#include "tests/support/bytes.hpp"
#include "tests/support/largest_allocation.hpp"

using namespace vkstark;
using ::testing::HasSubstr;
using vkstark::testing::message_of;
using vkstark::testing::put_u32;
using vkstark::testing::set_u32;

namespace {

Fp fp(uint32_t v) { return Fp::from_canonical(v); }

Executor& cpu() {
  static std::unique_ptr<Executor> e = make_executor("cpu");
  return *e;
}

std::string decode_error(std::span<const uint8_t> bytes) {
  return message_of<DecodeError>([&] { (void)decode_proving_input(bytes); });
}

std::string input_error(const std::function<void()>& f) { return message_of<InputError>(f); }

TraceMatrix matrix(uint32_t width, uint32_t height, uint32_t start) {
  TraceMatrix m(width, height);
  for (uint32_t i = 0; i < width * height; ++i) m.values[i] = fp(start + i);
  return m;
}

// Three AIRs: one with a preprocessed part and a cached part, one absent with a preprocessed part,
// one plain with public values.
ProvingInput sample_input() {
  ProvingInput in;
  ProvingInputAir a;
  a.name = "table";
  a.preprocessed = matrix(1, 4, 100);
  a.present = true;
  a.cached = {matrix(2, 4, 200)};
  a.common = matrix(1, 4, 300);
  ProvingInputAir b;
  b.name = "absent_one";
  b.preprocessed = matrix(2, 2, 400);
  ProvingInputAir c;
  c.name = "fib";
  c.present = true;
  c.common = matrix(2, 8, 500);
  c.public_values = {fp(1), fp(2), Fp::zero() - Fp::one()};
  in.airs = {a, b, c};
  return in;
}

// The header words of `sample_input()`'s first AIR start at this byte.
constexpr size_t kFirstAir = 8 + 4 + 4 + 4;

}  // namespace

TEST(ProvingInput, HasTheDocumentedLayout) {
  ProvingInput in;
  ProvingInputAir a;
  a.name = "fib";
  a.present = true;
  a.common = TraceMatrix(2, 2);
  a.common.at(0, 0) = fp(1);
  a.common.at(1, 0) = fp(2);
  a.common.at(0, 1) = fp(3);
  a.common.at(1, 1) = Fp::zero() - Fp::one();
  a.public_values = {fp(7)};
  in.airs = {a};
  std::vector<uint8_t> want{'V', 'K', 'S', 'I', 'N', 'P', 'U', 'T'};
  put_u32(want, 1);  // version
  // The header bytes: count, name length, "fib\0", preprocessed width and log height, present,
  // log height, cached count, common width, public count, the public value.
  const std::vector<uint32_t> head{1, 3, 0x00626966, 0, 0, 1, 1, 0, 2, 1, 7};
  put_u32(want, uint32_t(4 * head.size()));
  for (uint32_t w : head) put_u32(want, w);
  for (uint32_t v : {1u, 2u, 3u, Fp::P - 1}) put_u32(want, v);  // column by column, canonical
  EXPECT_EQ(encode_proving_input(in), want);
  EXPECT_EQ(decode_proving_input(want), in);
}

TEST(ProvingInput, RoundTripsPreprocessedCachedAndAbsentAirs) {
  const ProvingInput in = sample_input();
  const std::vector<uint8_t> bytes = encode_proving_input(in);
  EXPECT_EQ(decode_proving_input(bytes), in);
  EXPECT_EQ(encode_proving_input(decode_proving_input(bytes)), bytes);
}

TEST(ProvingInput, ReadingAFileIntoGivenMemoryGivesWhatDecodingItsBytesGives) {
  const ProvingInput in = sample_input();
  const std::vector<uint8_t> bytes = encode_proving_input(in);
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "vkstark_proving_input_test.vki";
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  EXPECT_EQ(read_proving_input(path.string()), in);
  std::vector<uint64_t> asked;
  const ProvingInput mem = read_proving_input(path.string(), [&](uint64_t cells) {
    asked.push_back(cells);
    return TraceValues(anonymous_host_memory(cells * sizeof(Fp)), cells);
  });
  EXPECT_EQ(mem, in);
  EXPECT_EQ(asked, (std::vector<uint64_t>{8, 4, 16}));  // the main parts in file order: cached, common; common
  EXPECT_NE(mem.airs[0].common.values.memory(), nullptr);
  EXPECT_EQ(mem.airs[0].preprocessed->values.memory(), nullptr);  // the heap: the key keeps it
  // A truncated file: the decoder's error.
  std::filesystem::resize_file(path, bytes.size() - 3);
  try {
    (void)read_proving_input(path.string());
    ADD_FAILURE() << "a truncated file was read";
  } catch (const DecodeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("AIR 2 (fib) common main values"));
  }
  std::filesystem::remove(path);
  EXPECT_THAT(input_error([&] { (void)read_proving_input(path.string()); }),
              HasSubstr("cannot read the proving input"));
}

TEST(ProvingInput, RefusesEveryTruncation) {
  const std::vector<uint8_t> bytes = encode_proving_input(sample_input());
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_THAT(decode_error(std::span(bytes).first(n)), HasSubstr("proving input: ")) << n << " bytes";
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_EQ(decode_error(longer), "proving input: 1 bytes past the end");
}

// Every header byte XORed with every non-zero byte: a DecodeError, or another input that encodes
// to exactly the changed bytes. Never a crash.
TEST(ProvingInput, EverySingleByteChangeOfTheHeadersFailsOrReencodesTheSame) {
  const ProvingInput in = sample_input();
  const std::vector<uint8_t> bytes = encode_proving_input(in);
  const size_t head_end = 16 + (bytes[12] | bytes[13] << 8);
  size_t decoded = 0;
  for (size_t i = 0; i < bytes.size(); ++i)
    for (uint32_t x = 1; x < 256; ++x) {
      if (i >= head_end && x != 0x01 && x != 0x80) continue;  // values: a few flips
      std::vector<uint8_t> changed = bytes;
      changed[i] ^= uint8_t(x);
      try {
        const ProvingInput g = decode_proving_input(changed);
        ++decoded;
        EXPECT_NE(g, in);
        EXPECT_EQ(encode_proving_input(g), changed) << "byte " << i << " ^ " << x;
      } catch (const DecodeError& e) {
        EXPECT_THAT(e.what(), HasSubstr("proving input: "));
      }
    }
  EXPECT_GT(decoded, 0u);
}

TEST(ProvingInput, RefusesAHugeHeaderBeforeAllocating) {
  ProvingInput one;
  one.airs = {sample_input().airs[2]};
  std::vector<uint8_t> b = encode_proving_input(one);
  // Its log height, after the name length, "fib\0", the preprocessed width and log height and the
  // present flag: 2^24 rows claimed.
  const size_t log_height_at = kFirstAir + 5 * 4;
  ASSERT_EQ(b[log_height_at], 3u);
  set_u32(b, log_height_at, 24);
  vkstark::testing::reset_largest_allocation();
  EXPECT_THAT(decode_error(b), HasSubstr("truncated in the AIR 0 (fib) common main values"));
  EXPECT_LT(vkstark::testing::largest_allocation(), size_t(1) << 20);
  // An AIR count of 2^16 with a few bytes: refused before 2^16 headers are reserved.
  std::vector<uint8_t> c(b.begin(), b.begin() + 16);
  put_u32(c, 1u << 16);
  set_u32(c, 12, 4);
  vkstark::testing::reset_largest_allocation();
  EXPECT_THAT(decode_error(c), HasSubstr("truncated in the AIR headers"));
  EXPECT_LT(vkstark::testing::largest_allocation(), size_t(1) << 16);
}

TEST(ProvingInput, NamesTheBadFieldAndItsAir) {
  const std::vector<uint8_t> good = encode_proving_input(sample_input());
  std::vector<uint8_t> b = good;
  b[0] = 'X';
  EXPECT_THAT(decode_error(b), HasSubstr("proving input: magic"));
  b = good;
  set_u32(b, 8, 9);
  EXPECT_EQ(decode_error(b), "proving input: version 9 (this build reads version 1)");
  b = good;
  const uint32_t head = good[12] | good[13] << 8;
  set_u32(b, 12, head + 4);
  EXPECT_EQ(decode_error(b),
            fmt::format("proving input: the header byte count is {}, the AIR headers take {}", head + 4, head));
  set_u32(b, 12, head - 4);
  EXPECT_THAT(decode_error(b), HasSubstr("truncated in the AIR 2 (fib) public values (8 bytes left, 12 needed)"));
  b = good;
  set_u32(b, 16, 0);
  EXPECT_EQ(decode_error(b), "proving input: AIR count 0 (expected 1 to 65536)");
  b = good;
  b[kFirstAir + 4] = '\n';
  EXPECT_THAT(decode_error(b), HasSubstr("AIR name byte 0 is not printable"));
  b = good;
  set_u32(b, kFirstAir + 12 + 8, 2);  // AIR 0's present flag
  EXPECT_EQ(decode_error(b), "proving input: AIR 0 (table): present flag 2 is neither 0 nor 1");
  b = good;
  set_u32(b, kFirstAir + 12 + 4, 25);  // AIR 0's preprocessed log height
  EXPECT_EQ(decode_error(b), "proving input: AIR 0 (table): preprocessed log height 25 > 24");
  b = good;
  set_u32(b, kFirstAir + 12 + 16, 8);  // AIR 0's cached part count
  EXPECT_EQ(decode_error(b), "proving input: AIR 0 (table): 8 cached parts, more than 7");
  b = good;
  set_u32(b, b.size() - 4, Fp::P);  // the last value: AIR 2's common main, column 1, row 7
  EXPECT_EQ(decode_error(b),
            "proving input: AIR 2 (fib) common main column 1 row 7: 2013265921 is not a canonical BabyBear element");
}

TEST(ProvingInput, EncodeRefusesWhatTheFormatCannotHold) {
  ProvingInput in = sample_input();
  in.airs[2].common.height = 6;
  EXPECT_THAT(input_error([&] { (void)encode_proving_input(in); }), HasSubstr("AIR 2 (fib): the common main height 6"));
  in = sample_input();
  in.airs[1].public_values = {fp(1)};
  EXPECT_THAT(input_error([&] { (void)encode_proving_input(in); }), HasSubstr("AIR 1 (absent_one): absent, but has"));
  in = sample_input();
  in.airs[0].cached[0] = matrix(2, 8, 0);
  EXPECT_THAT(input_error([&] { (void)encode_proving_input(in); }),
              HasSubstr("AIR 0 (table): cached part 0 has 8 rows, the common main 4"));
  EXPECT_THAT(input_error([] { (void)encode_proving_input({}); }), HasSubstr("0 AIRs"));
}

// ---------------------------------------------------------------------------------------------
// Inputs against a key

namespace {

struct InteractionsKey {
  std::vector<std::shared_ptr<const Air>> airs{std::make_shared<Decompose>(), std::make_shared<ByteTable>()};
  ProvingKey pk = keygen(airs, test_system_params_small(2, 8, 3), cpu());
  ProvingInput input() const {
    InteractionsTraces t = interactions_traces(airs[0], airs[1], 16);
    const std::vector<std::optional<AirWithTraces>> traces{t.program, t.table};
    return to_proving_input(airs, traces);
  }
};

std::string job_error(const MultiStarkVerifyingKey& vk, ProvingInput in) {
  return input_error([&] { (void)prover_job(vk, std::move(in)); });
}

}  // namespace

TEST(ProvingInput, ProverJobNamesTheAirOfAnInputThatDoesNotFitTheKey) {
  const InteractionsKey k;
  const MultiStarkVerifyingKey& vk = k.pk.vk;
  ProvingInput in = k.input();
  EXPECT_NO_THROW((void)prover_job(vk, in));

  ProvingInput bad = in;
  bad.airs.pop_back();
  EXPECT_THAT(job_error(vk, bad), HasSubstr("has 1 AIRs, the verifying key 2"));
  bad = in;
  bad.airs[1].preprocessed.reset();
  EXPECT_THAT(job_error(vk, bad), HasSubstr("AIR 1 (example_byte_table): the verifying key has a preprocessed part"));
  bad = in;
  bad.airs[0].preprocessed = matrix(1, 16, 0);
  EXPECT_THAT(job_error(vk, bad), HasSubstr("AIR 0 (example_decompose): the input has a preprocessed trace"));
  bad = in;
  bad.airs[0].common = matrix(3, 16, 0);
  EXPECT_THAT(job_error(vk, bad), HasSubstr("AIR 0 (example_decompose): common main width 3, the verifying key 4"));
  bad = in;
  bad.airs[0].public_values.clear();
  EXPECT_THAT(job_error(vk, bad), HasSubstr("AIR 0 (example_decompose): 0 public values, the verifying key 1"));
  bad = in;
  bad.airs[0].cached = {matrix(1, 16, 0)};
  EXPECT_THAT(job_error(vk, bad), HasSubstr("AIR 0 (example_decompose): 1 cached parts, the verifying key has 0"));
  bad = in;
  bad.airs[1].common = matrix(1, 128, 0);
  EXPECT_THAT(job_error(vk, bad), HasSubstr("AIR 1 (example_byte_table): trace height 128 is not its preprocessed"));
  bad = in;
  bad.airs[0].common = matrix(4, 2048, 0);
  EXPECT_THAT(job_error(vk, bad), HasSubstr("trace height 2^11 is above the params' stacked height 2^10"));
  bad = in;
  for (auto& a : bad.airs) {
    a.present = false;
    a.cached.clear();
    a.common = {};
    a.public_values.clear();
  }
  EXPECT_THAT(job_error(vk, bad), HasSubstr("no AIR present"));
  MultiStarkVerifyingKey required = vk;
  required.per_air[0].is_required = true;
  bad = in;
  bad.airs[0].present = false;
  EXPECT_THAT(job_error(required, bad), HasSubstr("AIR 0 (example_decompose): absent from the input, but the verifying "
                                                  "key requires it"));
}

TEST(ProvingInput, KeygenFromTheKeyNamesAPreprocessedTraceThatIsNotTheKeys) {
  const InteractionsKey k;
  ProvingInput in = k.input();
  in.airs[1].preprocessed->at(255, 0) = fp(256);  // the table's last value
  const DataJob job = prover_job(k.pk.vk, std::move(in));
  EXPECT_THAT(input_error([&] { (void)keygen_from_vk(k.pk.vk, job.airs, cpu()); }),
              HasSubstr("AIR example_byte_table: its preprocessed trace (1 x 256 rows) is not the one the verifying "
                        "key was made with"));
  // The right one gives the key back, byte for byte.
  const DataJob good = prover_job(k.pk.vk, k.input());
  EXPECT_EQ(encode_vk_file(keygen_from_vk(k.pk.vk, good.airs, cpu()).vk), encode_vk_file(k.pk.vk));
}

// ---------------------------------------------------------------------------------------------
// Hostile verifying key entries

namespace {

StarkVerifyingKey fibonacci_entry() {
  const std::vector<std::shared_ptr<const Air>> airs{std::make_shared<FibonacciAir>()};
  return keygen(airs, test_system_params_small(2, 8, 3), cpu()).vk.per_air[0];
}

std::string dag_air_error(const StarkVerifyingKey& key) {
  return input_error([&] { DagAir("fib", key); });
}

}  // namespace

TEST(DagAirEntry, RefusesAnEntryThatLiesNamingTheAir) {
  const StarkVerifyingKey good = fibonacci_entry();
  EXPECT_EQ(dag_air_error(good), "");
  StarkVerifyingKey k = good;
  const uint32_t op = [&] {
    for (uint32_t i = 0; i < k.symbolic_constraints.nodes.size(); ++i)
      if (k.symbolic_constraints.nodes[i].kind == NodeKind::Mul) return i;
    return 0u;
  }();
  ASSERT_GT(op, 0u);
  k.symbolic_constraints.nodes[op].left = op;
  EXPECT_THAT(dag_air_error(k),
              HasSubstr(fmt::format("AIR fib: constraint DAG: node {}: child {} is not below", op, op)));
  k = good;
  k.symbolic_constraints.nodes[op].degree = 1;
  EXPECT_THAT(dag_air_error(k), HasSubstr("is below the degree 2 its children give it"));
  k = good;
  for (DagNode& n : k.symbolic_constraints.nodes)
    if (n.kind == NodeKind::Variable && n.var.entry == EntryKind::Main) n.var.index = 9;
  EXPECT_THAT(dag_air_error(k), HasSubstr("column 9 is past the width 2 of the common main"));
  k = good;
  k.symbolic_constraints.constraint_idx.push_back(100000);
  EXPECT_THAT(dag_air_error(k), HasSubstr("node 100000 is not below"));
  k = good;
  k.max_constraint_degree = 1;
  EXPECT_THAT(dag_air_error(k), HasSubstr("max_constraint_degree 1 is below the degree 2"));
  k = good;
  k.params.width.preprocessed = 1;
  EXPECT_THAT(dag_air_error(k), HasSubstr("a preprocessed width but no preprocessed commitment"));
  EXPECT_THAT(input_error([&] { DagAir("fib", good, matrix(1, 4, 0)); }),
              HasSubstr("a preprocessed trace is given but the AIR has no preprocessed part"));
  EXPECT_THAT(input_error([&] { DagAir("", good); }), HasSubstr("needs a name"));
}

TEST(DagAirEntry, RefusesADagDeeperThanTheBound) {
  StarkVerifyingKey k = fibonacci_entry();
  SymbolicDag& dag = k.symbolic_constraints;
  // A chain x + x + ... one deeper than the bound, as the last constraint.
  uint32_t x = 0;
  while (dag.nodes[x].kind != NodeKind::Variable || dag.nodes[x].var.entry != EntryKind::Main) ++x;
  uint32_t prev = x;
  for (uint32_t d = 0; d <= kMaxDagDepth; ++d) {
    DagNode n;
    n.kind = NodeKind::Add;
    n.left = prev;
    n.right = x;
    n.degree = 1;
    dag.nodes.push_back(n);
    prev = uint32_t(dag.nodes.size() - 1);
  }
  dag.constraint_idx.push_back(prev);
  EXPECT_THAT(dag_air_error(k),
              HasSubstr(fmt::format("depth {} is more than the {} supported", kMaxDagDepth + 1, kMaxDagDepth)));
  // The vk decoder refuses the same key.
  MultiStarkVerifyingKey vk;
  vk.params = test_system_params_small(2, 8, 3);
  vk.per_air = {k};
  vk.per_air[0].unused_variables = find_unused_variables(dag, k.params.width, k.params.need_rot);
  vk.trace_height_constraints = compute_trace_height_constraints(vk.per_air, vk.params);
  try {
    (void)decode_vk_file(encode_vk_file(vk));
    ADD_FAILURE() << "the decoder took a DAG deeper than the bound";
  } catch (const DecodeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("verifying key: air 0 nodes: node"));
  }
}

TEST(DagAirEntry, TheDebugCheckerNamesAFailingConstraintByItsDagExpressionOrItsColumnNames) {
  const StarkVerifyingKey entry = fibonacci_entry();
  const FibonacciTrace t = fibonacci_trace(Fp(), Fp::one(), 16);
  TraceMatrix broken = t.main;
  broken.at(5, 1) += Fp::one();
  for (bool with_source : {false, true}) {
    const FibonacciAir cpp;
    const DagAir air("fibonacci", entry, std::nullopt, with_source ? &cpp : nullptr);
    EXPECT_EQ(air.has_source(), with_source);
    const SymbolicAir s = symbolic_air(air);
    const std::vector<const TraceMatrix*> parts{&broken};
    const DebugAirInput in{.air = &s, .parts = parts, .public_values = t.public_values};
    const std::string message = debug_check(std::span(&in, 1)).message();
    EXPECT_THAT(message, HasSubstr("AIR fibonacci: constraint"));
    EXPECT_THAT(message, HasSubstr(with_source ? "right'" : "main[0].next[1]")) << message;
  }
  // A C++ AIR with other constraints is no source for the entry.
  EXPECT_THAT(input_error([&] {
                const DummyInteractionAir other(1, true, 0);
                DagAir("fibonacci", entry, std::nullopt, &other);
              }),
              HasSubstr("does not have the verifying key's constraints or shape"));
}
