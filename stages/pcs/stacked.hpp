// The stacked PCS commitment (protocol.md 6): traces -> stacked matrix -> RS codeword ->
// Merkle tree. Graph builder; nothing runs until the plan does. Thread-compatible.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "stages/ntt.hpp"
#include "stages/params.hpp"
#include "stages/pcs/layout.hpp"
#include "stages/pcs/merkle.hpp"

namespace vkstark {

// A trace as the commitment reads it: column-major, `width` columns of 2^log_height rows.
struct TraceView {
  View<Fp> data;
  uint32_t width = 0;
  uint32_t log_height = 0;
};

// What later phases need of a commitment (StackedPcsData): the layout, the RS messages (the
// stacked columns in coefficient form, for WHIR), the codeword and its tree (for query openings).
struct StackedCommitment {
  StackedLayout layout;
  Buffer<Fp> message;   // stacked_width columns of 2^m values (m = l_skip + n_stack), column-major
  Buffer<Fp> codeword;  // stacked_width columns of 2^(m + log_blowup) values, column-major
  MerkleTree tree;
  uint32_t log_blowup = 1;
  uint32_t log_message() const { return layout.log_stacked_height(); }
  uint32_t log_codeword() const { return log_message() + log_blowup; }
  MatrixView codeword_matrix() const;
  View<Digest> root() const { return tree.root(); }
};

// Adds stacked_commit for `traces` (in sorted order: height descending) under a span
// "stacked_commit" with "rs_code_matrix" and "merkle_tree" inside. The Ntt must cover
// 2^(l_skip + n_stack + log_blowup). Buffers are named "<name>.message", "<name>.codeword", ...
// InputError for traces that do not fit the parameters.
[[nodiscard]] StackedCommitment stacked_commit(Graph& g, Ntt& ntt, const std::string& name,
                                               std::span<const TraceView> traces, const SystemParams& params);

}  // namespace vkstark
