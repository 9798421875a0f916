#include "stages/common/params.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "kernels/field/fp.hpp"
#include "kernels/hash/transcript.hpp"
#include "runtime/error.hpp"

namespace vkstark {

namespace {
constexpr double kLog2P = 30.906890595608516;  // log2(2013265921)
// Far above any preset (at most a few hundred queries a round); bounds every proof size product.
constexpr uint32_t kMaxQueries = 1u << 16;
}  // namespace

WhirConfig WhirConfig::derive(uint32_t log_blowup, uint32_t log_stacked_height, uint32_t k,
                              uint32_t log_final_poly_len_requested, uint32_t query_phase_pow_bits,
                              uint32_t folding_pow_bits, uint32_t mu_pow_bits, WhirProximity proximity,
                              uint32_t security_bits) {
  if (k == 0) throw InputError("WHIR folding factor k must be at least 1");
  WhirConfig c;
  c.k = k;
  c.mu_pow_bits = mu_pow_bits;
  c.query_phase_pow_bits = query_phase_pow_bits;
  c.folding_pow_bits = folding_pow_bits;
  c.proximity = proximity;
  const double protocol_security = security_bits > query_phase_pow_bits ? security_bits - query_phase_pow_bits : 0;
  const uint32_t span =
      log_stacked_height > log_final_poly_len_requested ? log_stacked_height - log_final_poly_len_requested : 0;
  const uint32_t num_rounds = (span + k - 1) / k;
  uint32_t log_inv_rate = log_blowup;
  for (uint32_t round = 0; round < num_rounds; ++round) {
    const double rho = std::ldexp(1.0, -static_cast<int>(log_inv_rate));
    double agreement;
    if (proximity.list_decoding_in_round(round)) {
      if (proximity.m == 0) throw InputError("WHIR list decoding needs m >= 1");
      agreement = std::min(1.0, std::sqrt(rho) * (1.0 + 1.0 / (2.0 * proximity.m)));
    } else {
      agreement = (1.0 + rho) / 2.0;
    }
    const double per_query_bits = -std::log2(agreement);
    if (!(per_query_bits > 0))
      throw InputError(fmt::format("WHIR round {}: the proximity regime gives no security per query (agreement {})",
                                   round, agreement));
    const double queries = std::ceil(protocol_security / per_query_bits);
    c.rounds.push_back({static_cast<uint32_t>(std::min(queries, double(UINT32_MAX)))});  // validate() bounds it
    log_inv_rate += k - 1;
  }
  return c;
}

uint32_t SystemParams::log_final_poly_len() const {
  uint32_t folded = num_whir_sumcheck_rounds();
  if (folded > log_stacked_height())
    throw InputError(
        fmt::format("WHIR folds {} variables but the stacked height has only {}", folded, log_stacked_height()));
  return log_stacked_height() - folded;
}

void SystemParams::validate() const {
  if (l_skip > 10) throw InputError(fmt::format("params: l_skip = {} is outside the supported range 0..10", l_skip));
  if (log_stacked_height() > kMaxLogStackedHeight)
    throw InputError(fmt::format("params: n_stack = {} gives l_skip + n_stack = {}, above {}", n_stack,
                                 log_stacked_height(), kMaxLogStackedHeight));
  if (log_blowup == 0 || log_blowup > 4)
    throw InputError(fmt::format("params: log_blowup = {} is outside 1..4", log_blowup));
  // The initial codeword has 2^(l_skip + n_stack + log_blowup) rows, a subgroup of BabyBear's 2-adic part.
  if (log_stacked_height() + log_blowup > Fp::TWO_ADICITY)
    throw InputError(fmt::format("params: log_blowup = {} with l_skip + n_stack = {} exceeds BabyBear's two-adicity {}",
                                 log_blowup, log_stacked_height(), Fp::TWO_ADICITY));
  if (whir.k == 0) throw InputError("params: whir.k = 0, the folding factor must be at least 1");
  // A grinding witness is checked against bits drawn from one sample (protocol.md 2.6).
  const std::pair<const char*, uint32_t> pow_bits[] = {{"whir.mu_pow_bits", whir.mu_pow_bits},
                                                       {"whir.query_phase_pow_bits", whir.query_phase_pow_bits},
                                                       {"whir.folding_pow_bits", whir.folding_pow_bits},
                                                       {"logup.pow_bits", logup.pow_bits}};
  for (const auto& [name, bits] : pow_bits)
    if (bits > DuplexSponge::MAX_SAMPLE_BITS)
      throw InputError(fmt::format("params: {} = {} exceeds {} bits", name, bits, DuplexSponge::MAX_SAMPLE_BITS));
  // No round: the reference codec cannot encode such a proof (protocol.md 3.2).
  if (whir.rounds.empty())
    throw InputError(fmt::format(
        "params: whir.rounds is empty (no WHIR round: l_skip + n_stack = {} needs no folding to reach the requested "
        "final polynomial length); at least one round is required",
        log_stacked_height()));
  if (whir.rounds.size() > log_stacked_height() || num_whir_sumcheck_rounds() > log_stacked_height())
    throw InputError(
        fmt::format("params: whir.rounds has {} rounds of k = {}, folding more than the {} variables of "
                    "the stacked height",
                    whir.rounds.size(), whir.k, log_stacked_height()));
  for (size_t i = 0; i < whir.rounds.size(); ++i) {
    // Queries are what binds a round; the codec also needs one to carry the round's Merkle depth (12.2).
    if (whir.rounds[i].num_queries == 0)
      throw InputError(fmt::format("params: whir.rounds[{}].num_queries = 0, every round needs a query", i));
    if (whir.rounds[i].num_queries > kMaxQueries)
      throw InputError(fmt::format("params: whir.rounds[{}].num_queries = {} exceeds {}", i, whir.rounds[i].num_queries,
                                   kMaxQueries));
    const uint32_t log_rs = log_stacked_height() + log_blowup - static_cast<uint32_t>(i);
    if (whir.k > log_rs)
      throw InputError(
          fmt::format("params: whir.k = {} exceeds the codeword log size {} of round {}", whir.k, log_rs, i));
  }
}

uint32_t logup_pow_bits_100(uint32_t max_interaction_count, uint32_t log_max_message_length, double log2_list_size) {
  double s = 4 * kLog2P - std::log2(2.0 * max_interaction_count) - log_max_message_length - log2_list_size;
  double bits = std::ceil(100.0 - s);
  return static_cast<uint32_t>(std::max(bits, 18.0));
}

SystemParams app_params_with_100_bits_security(uint32_t log_stacked_height) {
  if (log_stacked_height > kMaxLogStackedHeight || log_stacked_height < 4)
    throw InputError(fmt::format("app params: log stacked height {} must be in 4..24", log_stacked_height));
  SystemParams p;
  p.l_skip = 4;
  p.n_stack = log_stacked_height - 4;
  p.w_stack = 2048;
  p.log_blowup = 1;
  p.max_constraint_degree = 3;
  p.whir = WhirConfig::derive(1, log_stacked_height, 4, 10, 20, 5, 15, {}, 100);
  p.logup = {2013265921u, 7, logup_pow_bits_100(2013265921u, 7, 0)};
  return p;
}

SystemParams test_system_params_small(uint32_t l_skip, uint32_t n_stack, uint32_t k) {
  SystemParams p;
  p.l_skip = l_skip;
  p.n_stack = n_stack;
  p.w_stack = 4096;
  p.log_blowup = 1;
  p.max_constraint_degree = 3;
  WhirProximity prox{WhirProximity::Kind::SplitUniqueList, 3, 1};
  p.whir = WhirConfig::derive(1, l_skip + n_stack, k, (n_stack + l_skip) % k, 1, 2, 3, prox, 5);
  p.logup = {1u << 30, 7, 2};
  return p;
}

SystemParams default_test_params_small() { return test_system_params_small(2, 8, 3); }

SystemParams fib_air_roundtrip_params(uint32_t l_skip) {
  if (l_skip > kMaxLogStackedHeight - 8)
    throw InputError(
        fmt::format("fib_air_roundtrip params: l_skip {} must be at most {}", l_skip, kMaxLogStackedHeight - 8));
  SystemParams p;
  p.l_skip = l_skip;
  p.n_stack = 8;
  p.w_stack = 8;
  p.log_blowup = 1;
  p.max_constraint_degree = 3;
  p.whir = WhirConfig::derive(1, l_skip + 8, 4, 4, 1, 11, 10, {}, 80);
  p.logup = {2013265921u, 7, logup_pow_bits_100(2013265921u, 7, 0)};
  return p;
}

}  // namespace vkstark
