// Trace files (product/trace_file.hpp): the layout byte for byte (a known answer), round trips of a
// Fibonacci and a Keccak-f trace through encode, decode and trace_file_air; every truncation and
// every single-byte change of the header is refused with a DecodeError or decodes to another file
// that re-encodes to the same bytes; a header that claims more than the file holds fails before
// anything is allocated for it; each malformed field (magic, version, name, height, public values, a
// non-canonical value, trailing bytes) is named in the error; a trace that does not fit its AIR is
// refused with an InputError naming the AIR.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>
#include <functional>

#include "product/airs/fibonacci.hpp"
#include "product/airs/keccak.hpp"
#include "product/airs/test_airs.hpp"
#include "product/trace_file.hpp"
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

TraceFile fibonacci_file(uint32_t height) {
  const FibonacciTrace t = fibonacci_trace(fp(3), fp(5), height);
  return {"fibonacci", t.main, t.public_values};
}

// The DecodeError message of decoding `bytes`; "" when they decode.
std::string decode_error(std::span<const uint8_t> bytes) {
  return message_of<DecodeError>([&] { (void)decode_trace_file(bytes); });
}

std::string input_error(const std::function<void()>& f) { return message_of<InputError>(f); }

// A header written by hand: magic, version, the name padded to 4 bytes, width, log2 height, public
// value count (the public values and the trace values follow).
std::vector<uint8_t> header(std::string_view name, uint32_t width, uint32_t log_height, uint32_t num_public,
                            uint32_t version = kTraceFileVersion) {
  std::vector<uint8_t> out{'V', 'K', 'S', 'T', 'R', 'A', 'C', 'E'};
  put_u32(out, version);
  put_u32(out, uint32_t(name.size()));
  out.insert(out.end(), name.begin(), name.end());
  while (out.size() % 4 != 0) out.push_back(0);
  put_u32(out, width);
  put_u32(out, log_height);
  put_u32(out, num_public);
  return out;
}

constexpr size_t kFibHeaderBytes = 8 + 4 + 4 + 12 + 4 + 4 + 4;  // "fibonacci" pads to 12 bytes

}  // namespace

TEST(TraceFile, HasTheDocumentedLayout) {
  TraceFile f{"fib", TraceMatrix(2, 2), {fp(7)}};
  f.main.at(0, 0) = fp(1);
  f.main.at(1, 0) = fp(2);
  f.main.at(0, 1) = fp(3);
  f.main.at(1, 1) = Fp::zero() - Fp::one();
  std::vector<uint8_t> want = header("fib", 2, 1, 1);
  for (uint32_t v : {7u, 1u, 2u, 3u, Fp::P - 1}) put_u32(want, v);  // public values, then column by column
  ASSERT_EQ(want.size(), 8u + 4 + 4 + 4 + 12 + 4 + 16);
  EXPECT_EQ(encode_trace_file(f), want);
  EXPECT_EQ(decode_trace_file(want), f);
}

TEST(TraceFile, RoundTripsAFibonacciTraceThroughItsAir) {
  const TraceFile f = fibonacci_file(64);
  const std::vector<uint8_t> bytes = encode_trace_file(f);
  EXPECT_EQ(bytes.size(), kFibHeaderBytes + 4 * 3 + 4 * 2 * 64);
  const TraceFile back = decode_trace_file(bytes);
  EXPECT_EQ(back, f);
  const AirWithTraces t = trace_file_air(back);
  ASSERT_TRUE(t.air);
  EXPECT_EQ(t.air->name(), "fibonacci");
  EXPECT_NE(dynamic_cast<const FibonacciAir*>(t.air.get()), nullptr);
  EXPECT_TRUE(t.cached.empty());
  EXPECT_EQ(t.common, f.main);
  EXPECT_EQ(t.public_values, f.public_values);
  EXPECT_EQ(to_trace_file(t), f);
}

TEST(TraceFile, RoundTripsAKeccakTraceThroughItsAir) {
  for (uint64_t seed : {1u, 42u}) {
    const std::vector<AirWithTraces> fixture = keccak_fixture(1, seed);
    ASSERT_EQ(fixture.size(), 1u);
    const TraceFile f = to_trace_file(fixture[0]);
    EXPECT_EQ(f.air, "keccak");
    EXPECT_EQ(f.main.width, KeccakCols::kWidth);
    const std::vector<uint8_t> bytes = encode_trace_file(f);
    const TraceFile back = decode_trace_file(bytes);
    EXPECT_EQ(back, f);
    const AirWithTraces t = trace_file_air(back);
    EXPECT_NE(dynamic_cast<const KeccakAir*>(t.air.get()), nullptr);
    EXPECT_EQ(t.common, fixture[0].common);
    EXPECT_TRUE(t.public_values.empty());
  }
}

// A trace file that is a FIFO (a manifest's trace= naming one) is refused at once, not waited on
// (issue 44: it hung a whole batch).
TEST(TraceFile, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo =
      (std::filesystem::temp_directory_path() / fmt::format("vkstark-trace-{}.fifo", ::getpid())).string();
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    (void)read_trace_file(fifo);
    ADD_FAILURE() << "a FIFO was read as a trace file";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(),
                ::testing::HasSubstr("cannot read the trace file '" + fifo + "': a FIFO, not a regular file"));
  }
  std::filesystem::remove(fifo);
}

TEST(TraceFile, RefusesEveryTruncation) {
  const std::vector<uint8_t> bytes = encode_trace_file(fibonacci_file(8));
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::string e = decode_error(std::span(bytes).first(n));
    EXPECT_THAT(e, HasSubstr("trace file: ")) << "prefix of " << n << " bytes";
  }
  EXPECT_THAT(decode_error(std::span(bytes).first(bytes.size() - 1)), HasSubstr("trace file: truncated in the values"));
  EXPECT_THAT(decode_error(std::span(bytes).first(kFibHeaderBytes + 5)),
              HasSubstr("trace file: truncated in the public values"));
  EXPECT_THAT(decode_error(std::span(bytes).first(10)), HasSubstr("trace file: truncated in the version"));
}

// Every header byte (through the public values) XORed with every non-zero byte: a DecodeError, or
// another file that encodes to exactly the changed bytes (one encoding per file). Never a crash.
TEST(TraceFile, EverySingleByteChangeOfTheHeaderFailsOrReencodesTheSame) {
  const TraceFile f = fibonacci_file(8);
  const std::vector<uint8_t> bytes = encode_trace_file(f);
  const size_t header_bytes = kFibHeaderBytes + 4 * 3;
  size_t decoded = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint32_t x = 1; x < 256; ++x) {
      if (i >= header_bytes && x != 0x01 && x != 0x80 && x != 0xff) continue;  // values: a few flips
      std::vector<uint8_t> changed = bytes;
      changed[i] ^= uint8_t(x);
      try {
        const TraceFile g = decode_trace_file(changed);
        ++decoded;
        EXPECT_NE(g, f) << "byte " << i << " ^ " << x;
        EXPECT_EQ(encode_trace_file(g), changed) << "byte " << i << " ^ " << x;
      } catch (const DecodeError& e) {
        EXPECT_THAT(e.what(), HasSubstr("trace file: "));
      }
    }
  }
  EXPECT_GT(decoded, 0u);  // e.g. another name of the same length, or another value
}

TEST(TraceFile, NamesTheBadField) {
  std::vector<uint8_t> good = encode_trace_file(fibonacci_file(8));

  std::vector<uint8_t> b = good;
  b[7] = 'X';
  EXPECT_THAT(decode_error(b), HasSubstr("trace file: magic"));
  EXPECT_THAT(decode_error(std::vector<uint8_t>{}), HasSubstr("trace file: magic"));

  EXPECT_EQ(decode_error(header("fibonacci", 2, 3, 3, 7)), "trace file: version 7 (this build reads version 1)");

  b = header("fibonacci", 2, 3, 0);
  set_u32(b, 12, 300);
  EXPECT_EQ(decode_error(b), "trace file: AIR name length 300 > 64");
  EXPECT_THAT(decode_error(header("", 2, 3, 0)), HasSubstr("trace file: AIR name length 0"));
  EXPECT_THAT(decode_error(header("fib\nx", 2, 3, 0)), HasSubstr("trace file: AIR name byte 3 is not printable"));
  b = header("fib", 2, 3, 0);
  b[19] = 1;  // the name's padding byte
  EXPECT_THAT(decode_error(b), HasSubstr("trace file: AIR name padding byte 0 is 1, not 0"));

  EXPECT_EQ(decode_error(header("x", 1, 25, 0)), "trace file: log2 height 25 > 24");
  EXPECT_EQ(decode_error(header("x", 1, 0, 4097)), "trace file: public value count 4097 > 4096");

  b = header("x", 1, 0, 2);
  put_u32(b, 1);
  put_u32(b, Fp::P);
  put_u32(b, 0);
  EXPECT_EQ(decode_error(b), "trace file: public value 1: 2013265921 is not a canonical BabyBear element");

  TraceFile wide{"wide", TraceMatrix(4, 32), {}};
  b = encode_trace_file(wide);
  set_u32(b, b.size() - 4 * (4 * 32) + 4 * (3 * 32 + 17), Fp::P);
  EXPECT_EQ(decode_error(b), "trace file: column 3 row 17: 2013265921 is not a canonical BabyBear element");
  set_u32(b, b.size() - 4 * (4 * 32) + 4 * (3 * 32 + 17), UINT32_MAX);
  EXPECT_THAT(decode_error(b), HasSubstr("column 3 row 17: 4294967295 is not"));

  b = good;
  b.resize(b.size() + 12, 0);
  EXPECT_EQ(decode_error(b), "trace file: 12 bytes past the end");
}

TEST(TraceFile, RefusesAHugeHeaderBeforeAllocating) {
  std::vector<uint8_t> b = header("fibonacci", 4096, 24, 0);
  b.resize(100, 0);
  vkstark::testing::reset_largest_allocation();
  EXPECT_THAT(decode_error(b), HasSubstr("trace file: truncated in the values"));
  EXPECT_LT(vkstark::testing::largest_allocation(), size_t(1) << 20);

  b = header("fibonacci", UINT32_MAX, 24, 4096);
  b.resize(100, 0);
  vkstark::testing::reset_largest_allocation();
  EXPECT_THAT(decode_error(b), HasSubstr("trace file: truncated in the public values"));
  EXPECT_LT(vkstark::testing::largest_allocation(), size_t(1) << 20);

  b = header("fibonacci", UINT32_MAX, 24, 0);
  b.resize(100, 0);
  EXPECT_THAT(decode_error(b), HasSubstr("trace file: truncated in the values"));
}

TEST(TraceFile, EncodeRefusesWhatTheFormatCannotHold) {
  EXPECT_THAT(input_error([] {
                (void)encode_trace_file({"fibonacci", TraceMatrix(2, 12), {}});
              }),
              HasSubstr("height 12"));
  EXPECT_THAT(input_error([] {
                (void)encode_trace_file({std::string(65, 'a'), TraceMatrix(2, 4), {}});
              }),
              HasSubstr("AIR name length 65"));
  EXPECT_THAT(input_error([] {
                (void)encode_trace_file({"", TraceMatrix(2, 4), {}});
              }),
              HasSubstr("AIR name length 0"));
  TraceFile bad_size{"fibonacci", TraceMatrix(2, 4), {}};
  bad_size.main.values.pop_back();
  EXPECT_THAT(input_error([&] { (void)encode_trace_file(bad_size); }), HasSubstr("7 values for 2 x 4"));
  EXPECT_THAT(input_error([] {
                (void)encode_trace_file({"x", TraceMatrix(1, 4), std::vector<Fp>(4097)});
              }),
              HasSubstr("4097 public values"));
}

TEST(TraceFile, TraceFileAirRefusesATraceThatDoesNotFitItsAir) {
  TraceFile f = fibonacci_file(8);
  f.air = "x";
  EXPECT_EQ(input_error([&] { (void)trace_file_air(f); }), "unknown AIR 'x' (trace files hold fibonacci or keccak)");

  f = fibonacci_file(8);
  f.main = TraceMatrix(3, 8);
  EXPECT_EQ(input_error([&] { (void)trace_file_air(f); }), "AIR fibonacci: trace width 3, the AIR has 2");

  f = fibonacci_file(8);
  f.public_values.pop_back();
  EXPECT_EQ(input_error([&] { (void)trace_file_air(f); }), "AIR fibonacci: 2 public values, the AIR has 3");

  f = fibonacci_file(8);
  f.air = "keccak";
  EXPECT_THAT(input_error([&] { (void)trace_file_air(f); }), HasSubstr("AIR keccak: trace width 2, the AIR has 2633"));

  for (uint32_t h : {0u, 1u, 12u}) {
    f = fibonacci_file(8);
    f.main = TraceMatrix(2, h);
    EXPECT_THAT(input_error([&] { (void)trace_file_air(f); }),
                HasSubstr(fmt::format("AIR fibonacci: trace height {} is not a power of two >= 2", h)));
  }
  // A height-1 file decodes (the format holds it) but is not proved.
  const std::vector<uint8_t> one = encode_trace_file({"fibonacci", TraceMatrix(2, 1), {fp(0), fp(0), fp(0)}});
  EXPECT_THAT(input_error([&] { (void)trace_file_air(decode_trace_file(one)); }), HasSubstr("trace height 1"));
}

TEST(TraceFile, ToTraceFileRefusesOtherAirsAndOtherParts) {
  const std::vector<AirWithTraces> self = self_interaction_fixture(std::vector<uint32_t>{4}, 3, 1);
  EXPECT_THAT(input_error([&] { (void)to_trace_file(self[0]); }), HasSubstr("unknown AIR"));

  const std::vector<AirWithTraces> cached = cached_fixture_11();
  for (const AirWithTraces& t : cached) {
    if (t.cached.empty()) continue;
    EXPECT_THAT(input_error([&] { (void)to_trace_file(t); }), HasSubstr("common main trace only"));
  }

  AirWithTraces fib = trace_file_air(fibonacci_file(8));
  fib.cached.push_back(TraceMatrix(1, 8));
  EXPECT_THAT(input_error([&] { (void)to_trace_file(fib); }), HasSubstr("AIR fibonacci: a trace file holds"));

  AirWithTraces no_air;
  EXPECT_THAT(input_error([&] { (void)to_trace_file(no_air); }), HasSubstr("no AIR"));
}

// read_trace_file: the same file, or the same error, as decode_trace_file of the file's bytes, for
// good files, every kind of bad one and truncations; the values read straight into the memory
// given (host memory here); a lying header allocates nothing of its size; a missing file is named.
TEST(TraceFile, ReadingAFileGivesWhatDecodingItsBytesGives) {
  const std::string path = ::testing::TempDir() + "/read_trace_file_test.vkt";
  auto write = [&](const std::vector<uint8_t>& bytes) {
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    if (!bytes.empty()) {
      ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    }
    std::fclose(f);
  };
  std::shared_ptr<HostMemory> memory;
  auto allocate = [&](uint64_t cells) {
    memory = anonymous_host_memory(cells * sizeof(Fp));
    return TraceValues(memory, cells);
  };
  auto same = [&](const std::vector<uint8_t>& bytes, const std::string& what) {
    SCOPED_TRACE(what);
    write(bytes);
    std::string decode_message, read_message;
    std::optional<TraceFile> decoded, read;
    try {
      decoded = decode_trace_file(bytes);
    } catch (const DecodeError& e) {
      decode_message = e.what();
    }
    memory.reset();
    try {
      read = read_trace_file(path, allocate);
    } catch (const DecodeError& e) {
      read_message = e.what();
    }
    EXPECT_EQ(read_message, decode_message);
    ASSERT_EQ(read.has_value(), decoded.has_value());
    if (!read) return;
    EXPECT_EQ(*read, *decoded);
    EXPECT_EQ(read->main.values.memory(), memory) << "the values were not read into the memory given";
    EXPECT_EQ(read_trace_file(path), *decoded);  // on the heap
  };
  const std::vector<uint8_t> fib = encode_trace_file(fibonacci_file(64));
  same(fib, "fibonacci");
  const std::vector<AirWithTraces> keccak = keccak_fixture(2, 9);
  same(encode_trace_file(to_trace_file(keccak[0])), "keccak");
  for (size_t n : {size_t(0), size_t(5), size_t(12), size_t(30), fib.size() - 4, fib.size() - 1})
    same(std::vector<uint8_t>(fib.begin(), fib.begin() + std::ptrdiff_t(n)), fmt::format("first {} bytes", n));
  std::vector<uint8_t> b = fib;
  b.resize(b.size() + 8, 0);
  same(b, "past the end");
  TraceFile wide{"wide", TraceMatrix(4, 32), {}};
  b = encode_trace_file(wide);
  set_u32(b, b.size() - 4 * (4 * 32) + 4 * (2 * 32 + 5), Fp::P + 3);
  set_u32(b, b.size() - 4 * (4 * 32) + 4 * (3 * 32 + 17), Fp::P);
  same(b, "two values that are not canonical: the first is named");

  b = header("fibonacci", 4096, 24, 0);
  b.resize(100, 0);
  write(b);
  vkstark::testing::reset_largest_allocation();
  memory.reset();
  try {
    (void)read_trace_file(path, allocate);
    ADD_FAILURE() << "a lying header was read";
  } catch (const DecodeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("trace file: truncated in the values"));
  }
  EXPECT_LT(vkstark::testing::largest_allocation(), size_t(1) << 20);
  EXPECT_EQ(memory, nullptr) << "memory was asked for before the size was checked";

  std::remove(path.c_str());
  try {
    (void)read_trace_file(path);
    ADD_FAILURE() << "a missing file was read";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("read_trace_file_test.vkt"));
  }
}
