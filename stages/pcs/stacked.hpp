// The stacked PCS commitment (protocol.md 6): traces -> stacked matrix -> RS codeword ->
// Merkle tree. Graph builder; nothing runs until the plan does. Thread-compatible.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "stages/common/ntt.hpp"
#include "stages/common/params.hpp"
#include "stages/common/trace_part.hpp"
#include "stages/pcs/layout.hpp"
#include "stages/pcs/merkle.hpp"

namespace vkstark {

// A trace as the commitment reads it: column-major, `width` columns of 2^log_height rows. An
// empty `data` view (no buffer) asks for the trace in place: uploaded straight into the stacked
// matrix (StackedCommitment::in_place), which then holds it until finish_message() (with
// StackedCommitOptions::keep_traces). Only traces of at least 2^l_skip rows are stored in place:
// their columns are consecutive slices of the stacked matrix, the trace's own column-major layout.
struct TraceView {
  View<Fp> data;
  uint32_t width = 0;
  uint32_t log_height = 0;
  bool in_place() const { return data.buffer == kNoBuffer; }
};

struct StackedCommitOptions {
  // The stacked matrix keeps the traces (the in-place ones are read later by other phases): the
  // codeword is made from a copy, column batch by column batch, and the message exists only after
  // finish_message(). Without it the stacked matrix becomes the message at once.
  bool keep_traces = false;
  // The message, codeword and tree are Persistent buffers (kept by the executor by name across
  // plans): a commitment made once, which later plans declare again (stacked_commitment_of) and
  // read without committing. The name must be unique on the executor. Not with keep_traces or
  // in-place traces (GraphError).
  bool persistent = false;
  // The codeword of the stacked columns [0, kept_codeword_columns) is kept from the commitment to
  // the openings; the rest is made in column batches, each hashed into the tree and dropped, and
  // made again from the RS message when opened (open_stacked): the same tree and proof for less
  // memory (a batch at a time) and one more encoding of those columns. Not with `persistent`. Where
  // dropping saves nothing (fewer columns than a batch and the rows' sponge states take), all are kept.
  uint32_t kept_codeword_columns = ~0u;
  bool keep_narrow = true;  // false: drop them all the same (for tests of the openings made again)
  // The columns not kept are made in batches of 1/batches of the columns (a batch, the NTT's
  // scratch beside it, and the rows' sponges are the commitment's memory beyond its matrices).
  uint32_t batches = 8;
};

// What later phases need of a commitment (StackedPcsData): the layout, the RS messages (the
// stacked columns in coefficient form, for WHIR), the codeword and its tree (for query openings).
//
// Message and codeword are column-major and split into column tiles, each its own buffer, so that
// no buffer is larger than one allocation and no tile larger than one binding
// (Graph::memory_limits): tile t holds the stacked columns [t * tile_columns, ...), all tiles but
// the last tile_columns of them. Where everything fits there is one tile of each, named
// "<name>.message" and "<name>.codeword"; else "<name>.message.<t>" and "<name>.codeword.<t>".
struct StackedCommitment {
  StackedLayout layout;
  // Tiles of columns of 2^m values (m = l_skip + n_stack): the stacked matrix of the traces, then
  // (after finish_message, or at once without keep_traces) its RS message.
  std::vector<Buffer<Fp>> message;
  // Tiles of columns of 2^(m + log_blowup) values: the kept columns only (kept_columns of them),
  // tile t the kept ones of message tile t.
  std::vector<Buffer<Fp>> codeword;
  uint32_t kept_columns = 0;
  uint32_t batch_columns = 1;  // columns per batch of the codeword made again (dropped columns)
  uint32_t tile_columns = 0;
  MerkleTree tree;
  uint32_t log_blowup = 1;
  uint32_t log_message() const { return layout.log_stacked_height(); }
  uint32_t log_codeword() const { return log_message() + log_blowup; }
  uint32_t tiles() const { return uint32_t(message.size()); }
  uint32_t tile_first(uint32_t t) const { return t * tile_columns; }
  uint32_t tile_width(uint32_t t) const { return std::min(tile_columns, layout.stacked_width() - tile_first(t)); }
  // The tile holding stacked column c.
  uint32_t tile_of(uint32_t c) const { return c / tile_columns; }
  // Stacked columns [c, c + n) of the message (inside one tile), as a view of that tile.
  View<Fp> message_columns(uint32_t c, uint32_t n) const;
  // The kept codeword's tiles as matrices (rows x tile columns), for hashing and openings.
  std::vector<MatrixView> codeword_matrices() const;
  bool codeword_kept() const { return kept_columns == layout.stacked_width(); }
  uint64_t codeword_column_bytes() const { return (uint64_t(1) << log_codeword()) * sizeof(Fp); }
  View<Digest> root() const { return tree.root(); }
  // Per matrix: where an in-place trace lies in the stacked matrix (empty for stacked copies). The
  // tiles are writable Inputs; upload a segment's columns into message[tile] at its view's offset.
  std::vector<TracePart> in_place;
  bool traces_kept = false;  // message holds the traces until finish_message()
  bool persistent = false;   // made once and kept by the executor (StackedCommitOptions::persistent)
};

// The largest tile: tiles near a whole allocation leave the rest of their allocation to small
// buffers only, and the transient arena wastes it (H100, keccakf 2^19: 1.7 GB with 4 GB tiles).
inline constexpr uint64_t kMaxTileBytes = uint64_t(1) << 30;

// Stacked columns per tile for columns of 2^log_rows values under the graph's limits and
// kMaxTileBytes (at least one, at most `width`). GraphError when not even one column fits a binding.
[[nodiscard]] uint32_t column_tile_width(const Graph& g, uint32_t width, uint32_t log_rows, const std::string& what);

// Adds the stacked commitment (protocol.md 6) of `traces` (in sorted order: height descending) under a span
// "stacked_commit" with "rs_code_matrix" and "merkle_tree" inside. The Ntt must cover
// 2^(l_skip + n_stack + log_blowup). Buffers are named "<name>.message", "<name>.codeword", ...
// InputError for traces that do not fit the parameters.
[[nodiscard]] StackedCommitment commit_stacked(Graph& g, Ntt& ntt, const std::string& name,
                                               std::span<const TraceView> traces, const SystemParams& params,
                                               StackedCommitOptions options = {});
// A commitment that commit_stacked(g', ntt, name, traces', params, {.persistent = true}) made in an
// earlier plan of the same executor, for traces' of the shapes of `traces` (their views are not
// read), declared in `g` without any task: its message (the RS message already), codeword and tree.
[[nodiscard]] StackedCommitment stacked_commitment_of(Graph& g, const std::string& name,
                                                      std::span<const TraceView> traces, const SystemParams& params);
// The WHIR initial round's opening of a commitment: for every query index in `idx`, the 2^k
// codeword rows of its leaf group (rows_out) and its authentication path (paths_out), as
// open_merkle. Columns whose codeword was not kept are encoded again from the RS message, a batch
// at a time ("<name>.encode.<t>.c<j>", then their rows gathered). GraphError while the traces are
// kept (finish_message first).
void open_stacked(Graph& g, Ntt& ntt, const std::string& name, const StackedCommitment& c, View<uint32_t> idx,
                  View<Fp> rows_out, View<Digest> paths_out);

// With keep_traces, once nothing reads the traces any more: the stacked matrix becomes the RS
// message, in place ("<name>.rs_message"). No effect otherwise. Phases that read the message
// (stacked reduction, WHIR) refuse a commitment whose traces are kept (GraphError).
void finish_message(Graph& g, StackedCommitment& c, const std::string& name);

}  // namespace vkstark
