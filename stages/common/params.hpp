// SystemParams and the WHIR configuration derived from them (protocol.md 3). Value types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vkstark {

// The largest l_skip + n_stack vkstark supports (MAX_APP_LOG_STACKED_HEIGHT of protocol.md 3.3).
inline constexpr uint32_t kMaxLogStackedHeight = 24;

// Which decoding regime bounds each WHIR round's query count (protocol.md 3.2).
struct WhirProximity {
  enum class Kind : uint8_t { UniqueDecoding, SplitUniqueList, ListDecoding } kind = Kind::UniqueDecoding;
  uint32_t m = 0;                 // list-decoding multiplicity parameter (SplitUniqueList, ListDecoding)
  uint32_t list_start_round = 0;  // SplitUniqueList: rounds before this one are unique decoding
  bool list_decoding_in_round(uint32_t round) const {
    return kind == Kind::ListDecoding || (kind == Kind::SplitUniqueList && round >= list_start_round);
  }
  bool operator==(const WhirProximity&) const = default;
};

struct WhirRound {
  uint32_t num_queries = 0;
  bool operator==(const WhirRound&) const = default;
};

struct WhirConfig {
  uint32_t k = 4;  // folding factor (k_whir): Merkle leaf groups of 2^k rows
  std::vector<WhirRound> rounds;
  uint32_t mu_pow_bits = 0;
  uint32_t query_phase_pow_bits = 0;
  uint32_t folding_pow_bits = 0;
  WhirProximity proximity;

  // WhirConfig::new of protocol.md 3.2.
  static WhirConfig derive(uint32_t log_blowup, uint32_t log_stacked_height, uint32_t k,
                           uint32_t log_final_poly_len_requested, uint32_t query_phase_pow_bits,
                           uint32_t folding_pow_bits, uint32_t mu_pow_bits, WhirProximity proximity,
                           uint32_t security_bits);
  bool operator==(const WhirConfig&) const = default;
};

struct LogUpParams {
  uint32_t max_interaction_count = 0;
  uint32_t log_max_message_length = 0;
  uint32_t pow_bits = 0;
  bool operator==(const LogUpParams&) const = default;
};

struct SystemParams {
  uint32_t l_skip = 0;
  uint32_t n_stack = 0;
  uint32_t w_stack = 0;
  uint32_t log_blowup = 1;
  WhirConfig whir;
  LogUpParams logup;
  uint32_t max_constraint_degree = 3;

  uint32_t log_stacked_height() const { return l_skip + n_stack; }
  uint32_t num_whir_rounds() const { return static_cast<uint32_t>(whir.rounds.size()); }
  uint32_t num_whir_sumcheck_rounds() const { return num_whir_rounds() * whir.k; }
  // InputError if the WHIR rounds fold more variables than the stacked height has.
  uint32_t log_final_poly_len() const;
  // InputError naming the first parameter outside the range vkstark supports: among others no WHIR
  // round, a round without queries, or more grinding bits than one sample holds (protocol.md 3.2).
  // Every prover graph builder and verifier entry point calls it before using the params.
  void validate() const;
  bool operator==(const SystemParams&) const = default;
};

// stark-sdk presets (protocol.md 3.3).
SystemParams app_params_with_100_bits_security(uint32_t log_stacked_height);
// test_utils presets (protocol.md 3.5).
SystemParams test_system_params_small(uint32_t l_skip, uint32_t n_stack, uint32_t k);
SystemParams default_test_params_small();
// The reference's fib_air_roundtrip(l_skip, _) params (protocol.md 15.2): n_stack 8, w_stack 8,
// k 4, final polynomial 2^4 requested, unique decoding, 80-bit WHIR (query pow 1, folding pow 11,
// mu pow 10), LogUp's 100-bit params (pow 18), degree 3. l_skip 2 or 3: 2 rounds [191, 87]; 6: 3
// rounds [191, 87, 80].
SystemParams fib_air_roundtrip_params(uint32_t l_skip);

// LogUp grinding bits for 100-bit security (log_up_security_params_baby_bear_100_bits).
uint32_t logup_pow_bits_100(uint32_t max_interaction_count, uint32_t log_max_message_length, double log2_list_size);

}  // namespace vkstark
