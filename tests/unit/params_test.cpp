// Specifies the parameter presets and the WHIR query counts of protocol.md 3.2-3.5.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "runtime/error.hpp"
#include "stages/common/params.hpp"

using namespace vkstark;

namespace {
std::vector<uint32_t> queries(const SystemParams& p) {
  std::vector<uint32_t> q;
  for (const auto& r : p.whir.rounds) q.push_back(r.num_queries);
  return q;
}
}  // namespace

TEST(Params, KeccakfAppParamsMatchTheSpec) {
  SystemParams p = app_params_with_100_bits_security(21);
  EXPECT_EQ(p.l_skip, 4u);
  EXPECT_EQ(p.n_stack, 17u);
  EXPECT_EQ(p.w_stack, 2048u);
  EXPECT_EQ(queries(p), (std::vector<uint32_t>{193, 88, 81}));
  EXPECT_EQ(p.num_whir_sumcheck_rounds(), 12u);
  EXPECT_EQ(p.log_final_poly_len(), 9u);
  EXPECT_EQ(p.whir.mu_pow_bits, 15u);
  EXPECT_EQ(p.whir.folding_pow_bits, 5u);
  EXPECT_EQ(p.whir.query_phase_pow_bits, 20u);
  EXPECT_EQ(p.logup.pow_bits, 18u);
  EXPECT_NO_THROW(p.validate());
}

TEST(Params, AppParamsAtOtherHeights) {
  EXPECT_EQ(queries(app_params_with_100_bits_security(18)), (std::vector<uint32_t>{193, 88}));
  EXPECT_EQ(app_params_with_100_bits_security(18).log_final_poly_len(), 10u);
  EXPECT_EQ(queries(app_params_with_100_bits_security(20)), (std::vector<uint32_t>{193, 88, 81}));
  EXPECT_EQ(app_params_with_100_bits_security(20).log_final_poly_len(), 8u);
  EXPECT_EQ(queries(app_params_with_100_bits_security(24)), (std::vector<uint32_t>{193, 88, 81, 81}));
  EXPECT_EQ(app_params_with_100_bits_security(24).log_final_poly_len(), 8u);
  EXPECT_THROW(app_params_with_100_bits_security(25), InputError);
}

TEST(Params, SmallTestParams) {
  SystemParams p = default_test_params_small();
  EXPECT_EQ(queries(p), (std::vector<uint32_t>{10, 4, 2}));
  EXPECT_EQ(p.log_final_poly_len(), 1u);
  SystemParams q = test_system_params_small(4, 6, 4);  // new_for_testing(10) apart from the degree
  EXPECT_EQ(queries(q), (std::vector<uint32_t>{10, 3}));
  EXPECT_EQ(q.log_final_poly_len(), 2u);
}

TEST(Params, FibRoundtripWhirShapes) {
  // fib_air_roundtrip: n_stack 8, k 4, final 2^4 requested, unique decoding, 80-bit WHIR, query pow 1.
  for (auto [l_skip, want, final_len] : std::vector<std::tuple<uint32_t, std::vector<uint32_t>, uint32_t>>{
           {2, {191, 87}, 2}, {3, {191, 87}, 3}, {6, {191, 87, 80}, 2}}) {
    const SystemParams p = fib_air_roundtrip_params(l_skip);
    EXPECT_NO_THROW(p.validate());
    std::vector<uint32_t> got;
    for (const auto& r : p.whir.rounds) got.push_back(r.num_queries);
    EXPECT_EQ(got, want) << "l_skip " << l_skip;
    EXPECT_EQ(p.log_final_poly_len(), final_len);
    EXPECT_EQ(p.n_stack, 8u);
    EXPECT_EQ(p.w_stack, 8u);
    EXPECT_EQ(p.whir.query_phase_pow_bits, 1u);
    EXPECT_EQ(p.whir.folding_pow_bits, 11u);
    EXPECT_EQ(p.whir.mu_pow_bits, 10u);
    EXPECT_EQ(p.logup.pow_bits, 18u);
    EXPECT_EQ(p.max_constraint_degree, 3u);
  }
}

TEST(Params, LogUpPowBits) { EXPECT_EQ(logup_pow_bits_100(2013265921u, 7, 0), 18u); }

TEST(Params, ValidateNamesTheBadParameter) {
  SystemParams p = app_params_with_100_bits_security(21);
  p.l_skip = 11;
  try {
    p.validate();
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("l_skip"), std::string::npos);
  }
}

namespace {
std::string validate_error(const SystemParams& p) {
  try {
    p.validate();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(valid)";
}
}  // namespace

// protocol.md 3.2: app params at heights up to 2^10 have no WHIR round, which the codec cannot carry.
TEST(Params, NoWhirRoundIsRejectedWithAClearError) {
  for (uint32_t h = 4; h <= 10; ++h) {
    SystemParams p = app_params_with_100_bits_security(h);
    EXPECT_TRUE(p.whir.rounds.empty()) << h;
    EXPECT_NE(validate_error(p).find("whir.rounds is empty"), std::string::npos) << validate_error(p);
  }
  EXPECT_NO_THROW(app_params_with_100_bits_security(11).validate());
}

TEST(Params, RoundsWithoutQueriesAreRejected) {
  SystemParams p = default_test_params_small();
  p.whir.rounds[1].num_queries = 0;
  EXPECT_NE(validate_error(p).find("whir.rounds[1].num_queries = 0"), std::string::npos) << validate_error(p);
  p.whir.rounds[1].num_queries = 1u << 20;
  EXPECT_NE(validate_error(p).find("whir.rounds[1].num_queries"), std::string::npos) << validate_error(p);
  // Zero security left after grinding gives zero queries: rejected the same way.
  SystemParams q = default_test_params_small();
  q.whir = WhirConfig::derive(1, 10, 3, 1, 5, 2, 3, {}, 5);
  EXPECT_NE(validate_error(q).find("num_queries = 0"), std::string::npos) << validate_error(q);
}

TEST(Params, GrindingBitsAboveOneSampleAreRejectedNamingTheField) {
  for (uint32_t bits : {31u, 40u}) {
    SystemParams p = app_params_with_100_bits_security(21);
    p.whir.mu_pow_bits = bits;
    EXPECT_NE(validate_error(p).find(fmt::format("whir.mu_pow_bits = {}", bits)), std::string::npos);
    p = app_params_with_100_bits_security(21);
    p.whir.query_phase_pow_bits = bits;
    EXPECT_NE(validate_error(p).find(fmt::format("whir.query_phase_pow_bits = {}", bits)), std::string::npos);
    p = app_params_with_100_bits_security(21);
    p.whir.folding_pow_bits = bits;
    EXPECT_NE(validate_error(p).find(fmt::format("whir.folding_pow_bits = {}", bits)), std::string::npos);
    p = app_params_with_100_bits_security(21);
    p.logup.pow_bits = bits;
    EXPECT_NE(validate_error(p).find(fmt::format("logup.pow_bits = {}", bits)), std::string::npos);
  }
  SystemParams p = app_params_with_100_bits_security(21);
  p.whir.query_phase_pow_bits = 30;
  EXPECT_NO_THROW(p.validate());
}

TEST(Params, CodewordsBeyondTheTwoAdicSubgroupAreRejected) {
  SystemParams p = app_params_with_100_bits_security(24);
  p.log_blowup = 4;  // 2^28 codeword rows; BabyBear has 2^27-th roots of unity only
  EXPECT_NE(validate_error(p).find("log_blowup = 4"), std::string::npos) << validate_error(p);
  p.log_blowup = 3;
  EXPECT_NO_THROW(p.validate());
}

TEST(Params, MoreFoldingThanVariablesIsRejected) {
  SystemParams p = default_test_params_small();  // 10 variables, 3 rounds of k = 3
  p.whir.rounds.push_back({2});
  EXPECT_NE(validate_error(p).find("whir.rounds has 4 rounds of k = 3"), std::string::npos) << validate_error(p);
}

TEST(Params, ListDecodingWithoutSecurityPerQueryIsRejected) {
  // rate 1/2, m = 1: sqrt(1/2) * 3/2 > 1, clamped to 1: no bit per query.
  WhirProximity prox{WhirProximity::Kind::ListDecoding, 1, 0};
  EXPECT_THROW(WhirConfig::derive(1, 12, 4, 4, 20, 5, 15, prox, 100), InputError);
}
