#include "stages/pcs/stacked.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "kernels/basic.hpp"
#include "kernels/pcs.hpp"

namespace vkstark {

View<Fp> StackedCommitment::message_columns(uint32_t c, uint32_t n) const {
  const uint32_t t = tile_of(c);
  if (n > 0 && tile_of(c + n - 1) != t)
    throw GraphError(fmt::format("message columns [{}, {}) span tiles {} and {}", c, c + n, t, tile_of(c + n - 1)));
  const uint64_t h = uint64_t(1) << log_message();
  return message.at(t).slice(uint64_t(c - tile_first(t)) * h, uint64_t(n) * h);
}

std::vector<MatrixView> StackedCommitment::codeword_matrices() const {
  const uint64_t n = uint64_t(1) << log_codeword();
  std::vector<MatrixView> out;
  for (uint32_t t = 0; t < codeword.size(); ++t)
    out.push_back({codeword[t].all(), std::min(tile_width(t), kept_columns - tile_first(t)), log_codeword(), 1, n});
  return out;
}

uint32_t column_tile_width(const Graph& g, uint32_t width, uint32_t log_rows, const std::string& what) {
  const uint64_t max_view = g.memory_limits().max_view_bytes();
  const uint64_t column = (uint64_t(1) << log_rows) * sizeof(Fp);
  if (column > max_view)
    throw GraphError(
        fmt::format("{}: a column of 2^{} values ({} bytes) is larger than one binding may be ({} bytes: "
                    "the device's maxStorageBufferRange or maxMemoryAllocationSize)",
                    what, log_rows, column, max_view));
  return uint32_t(std::min<uint64_t>(width, max_view / column));
}

namespace {
// A commitment's buffer names, which a persistent commitment's later plans must declare again:
// "<name>.<what>" for one tile, "<name>.<what>.<t>" for several.
std::string tile_buffer_name(const std::string& name, uint32_t tiles, const char* what, uint32_t t) {
  return tiles == 1 ? fmt::format("{}.{}", name, what) : fmt::format("{}.{}.{}", name, what, t);
}

StackedLayout layout_of(std::span<const TraceView> traces, const SystemParams& params) {
  std::vector<MatrixShape> shapes;
  for (const TraceView& t : traces) {
    if (!t.in_place() && t.data.count != (uint64_t(t.width) << t.log_height))
      throw InputError(fmt::format("trace {}: {} values given for {} columns of 2^{} rows", shapes.size(), t.data.count,
                                   t.width, t.log_height));
    shapes.push_back({t.width, t.log_height});
  }
  return StackedLayout(std::move(shapes), params.l_skip, params.n_stack);
}

// The RS message of `cols` columns of h entries from `src` into `copy`, src left as it was: one pass
// where the columns are whole runs of four, else a copy and the pass in place on it.
void message_into(Graph& g, View<Fp> src, View<Fp> copy, uint32_t l, uint64_t h, uint32_t cols, const std::string& name,
                  const std::string& suffix) {
  if (add_rs_message_from(g, src, copy, l, h, h, cols, name + ".rs_message" + suffix)) return;
  g.dispatch<CopyU32>(name + ".message_copy" + suffix,
                      {.src = src.bitcast<uint32_t>(), .dst = copy.bitcast<uint32_t>()});
  add_rs_message(g, copy, l, h, h, cols, name + ".rs_message" + suffix);
}

// Columns [j0, j0 + cols) of tile t encoded into `dst` (their codeword, column-major, 2^log_cw each):
// from a copy made the RS message where the traces are kept, else from the message itself.
// With `rows`, only those rows of dst are read afterwards (Ntt::forward_rows).
void encode_columns(Graph& g, Ntt& ntt, const std::string& name, const StackedCommitment& c, uint32_t t, uint32_t j0,
                    uint32_t cols, View<Fp> dst, const std::string& suffix, const NttRows* rows = nullptr) {
  const uint32_t m = c.log_message();
  const uint64_t h = uint64_t(1) << m, n = uint64_t(1) << c.log_codeword();
  View<Fp> src = c.message[t].slice(uint64_t(j0) * h, uint64_t(cols) * h);
  if (c.traces_kept) {
    auto group = g.memory_group("commitment work");
    View<Fp> copy = g.transient<Fp>(name + ".message_copy" + suffix, uint64_t(cols) * h).all();
    message_into(g, src, copy, c.layout.l_skip(), h, cols, name, suffix);
    src = copy;
  }
  if (rows != nullptr)
    ntt.forward_rows(src, m, h, dst, c.log_codeword(), n, cols, *rows, name + ".encode" + suffix);
  else
    ntt.forward(src, m, h, dst, c.log_codeword(), n, cols, name + ".encode" + suffix);
}

// The codeword where not all of it is kept: tile after tile, the kept columns into their tile and
// the others a batch at a time into a transient, each hashed into the rows' sponges (`rows`) once
// made (all in span rs_code_matrix; the caller finishes the tree in merkle_tree).
void encode_and_hash(Graph& g, Ntt& ntt, const std::string& name, const StackedCommitment& c, uint32_t k,
                     std::optional<MerkleRowsBuilder>& rows) {
  const uint32_t l = c.layout.l_skip(), log_cw = c.log_codeword();
  const uint64_t h = uint64_t(1) << c.log_message(), n = uint64_t(1) << log_cw;
  {
    auto group = g.memory_group("Merkle tree");
    rows.emplace(g, name + ".tree", log_cw, c.layout.stacked_width(), k);
  }
  const std::vector<MatrixView> kept = c.codeword_matrices();
  for (uint32_t t = 0; t < c.tiles(); ++t) {
    const std::string suffix = c.tiles() == 1 ? std::string() : fmt::format(".{}", t);
    if (!c.traces_kept) add_rs_message(g, c.message[t], l, h, h, c.tile_width(t), name + ".rs_message" + suffix);
    const uint32_t kw = t < kept.size() ? kept[t].width : 0;
    for (uint32_t j0 = 0; j0 < kw; j0 += c.batch_columns) {
      const uint32_t cols = std::min(c.batch_columns, kw - j0);
      encode_columns(g, ntt, name, c, t, j0, cols, c.codeword[t].slice(uint64_t(j0) * n, uint64_t(cols) * n),
                     suffix + fmt::format(".c{}", j0));
    }
    if (kw > 0) rows->absorb(kept[t]);
    for (uint32_t j0 = kw; j0 < c.tile_width(t); j0 += c.batch_columns) {
      const uint32_t cols = std::min(c.batch_columns, c.tile_width(t) - j0);
      const std::string b = suffix + fmt::format(".c{}", j0);
      View<Fp> cw;
      {
        auto group = g.memory_group("commitment work");
        cw = g.transient<Fp>(name + ".codeword_batch" + b, uint64_t(cols) * n).all();
      }
      encode_columns(g, ntt, name, c, t, j0, cols, cw, b);
      rows->absorb({cw, cols, log_cw, 1, n});
    }
  }
}

// Whether some trace is stored in place; InputError for one of fewer than 2^l_skip rows.
bool check_in_place(const std::string& name, std::span<const TraceView> traces, uint32_t l) {
  bool any_in_place = false;
  for (const TraceView& t : traces) {
    if (!t.in_place()) continue;
    any_in_place = true;
    if (t.log_height < l)
      throw InputError(fmt::format("commitment '{}': a trace of 2^{} rows is stored in place, below 2^l_skip = 2^{}",
                                   name, t.log_height, l));
  }
  return any_in_place;
}

// The message's `tiles` tiles and the kept codeword's: a message tile that some in-place trace lands
// in is a writable Input (uploaded every run); the others are transients the graph fills (Persistent
// buffers for a persistent commitment).
void add_tile_buffers(Graph& g, const std::string& name, StackedCommitment& c, std::span<const TraceView> traces,
                      uint32_t tiles, bool any_in_place, bool persistent) {
  const uint32_t m = c.log_message();
  const uint64_t h = uint64_t(1) << m, n = uint64_t(1) << c.log_codeword();
  auto tile_name = [&](const char* what, uint32_t t) { return tile_buffer_name(name, tiles, what, t); };
  {
    std::vector<bool> uploads(tiles, false);
    for (uint32_t i = 0; i < traces.size(); ++i) {
      if (!traces[i].in_place() || traces[i].width == 0) continue;
      const uint64_t start = c.layout.global_start(i),
                     end = start + (uint64_t(traces[i].width) << traces[i].log_height);
      for (uint32_t t = c.tile_of(uint32_t(start >> m)); t <= c.tile_of(uint32_t((end - 1) >> m)); ++t)
        uploads[t] = true;
    }
    auto group = g.memory_group(any_in_place ? "trace (stacked)" : "message");
    for (uint32_t t = 0; t < tiles; ++t) {
      const uint64_t count = uint64_t(c.tile_width(t)) * h;
      c.message.push_back(uploads[t]   ? g.writable_input<Fp>(tile_name("message", t), count)
                          : persistent ? g.persistent<Fp>(tile_name("message", t), count)
                                       : g.transient<Fp>(tile_name("message", t), count));
    }
  }
  {
    auto group = g.memory_group("codeword");
    for (uint32_t t = 0; t < tiles && c.tile_first(t) < c.kept_columns; ++t) {
      const uint64_t count = uint64_t(std::min(c.tile_width(t), c.kept_columns - c.tile_first(t))) * n;
      c.codeword.push_back(persistent ? g.persistent<Fp>(tile_name("codeword", t), count)
                                      : g.transient<Fp>(tile_name("codeword", t), count));
    }
  }
}

// In-place traces: their segments, tile by tile (a trace column never spans stacked columns), into
// c.in_place. Returns the global [begin, end) ranges they are uploaded to.
std::vector<std::pair<uint64_t, uint64_t>> place_in_place_traces(StackedCommitment& c,
                                                                 std::span<const TraceView> traces) {
  const uint32_t m = c.log_message();
  std::vector<std::pair<uint64_t, uint64_t>> uploaded;
  c.in_place.resize(traces.size());
  for (uint32_t i = 0; i < traces.size(); ++i) {
    const TraceView& tr = traces[i];
    TracePart& part = c.in_place[i];
    part.width = tr.width;
    part.log_height = tr.log_height;
    if (!tr.in_place() || tr.width == 0) continue;
    const uint64_t start = c.layout.global_start(i), rows = uint64_t(1) << tr.log_height;
    uploaded.push_back({start, start + tr.width * rows});
    for (uint32_t j0 = 0; j0 < tr.width;) {
      const uint32_t t = c.tile_of(uint32_t((start + j0 * rows) >> m));
      const uint64_t tile_begin = uint64_t(c.tile_first(t)) << m,
                     tile_end = tile_begin + (uint64_t(c.tile_width(t)) << m);
      const uint32_t j1 = uint32_t(std::min<uint64_t>(tr.width, (tile_end - start) / rows));
      part.segments.push_back(
          {c.message[t].slice(start + j0 * rows - tile_begin, (j1 - j0) * rows), j0, j1 - j0, c.message[t]});
      j0 = j1;
    }
  }
  return uploaded;
}

// Zeros wherever no upload lands (`uploaded`: global [begin, end) ranges), tile by tile.
void zero_outside_uploads(Graph& g, const std::string& name, const StackedCommitment& c,
                          const std::vector<std::pair<uint64_t, uint64_t>>& uploaded) {
  const uint32_t m = c.log_message(), tiles = c.tiles();
  for (uint32_t t = 0; t < tiles; ++t) {
    const uint64_t begin = uint64_t(c.tile_first(t)) << m, end = begin + (uint64_t(c.tile_width(t)) << m);
    uint64_t at = begin, piece = 0;
    auto fill = [&](uint64_t to) {
      if (to <= at) return;
      const std::string task = tiles == 1 && piece == 0 && to == end && at == begin
                                   ? name + ".zero"
                                   : fmt::format("{}.zero.{}.{}", name, t, piece);
      g.dispatch<FillU32>(task, {.out = c.message[t].slice(at - begin, to - at).bitcast<uint32_t>(), .value = 0});
      ++piece;
    };
    for (const auto& [b, e] : uploaded) {
      if (e <= begin || b >= end) continue;
      fill(std::max(b, begin));
      at = std::max(at, std::min(e, end));
    }
    fill(end);
  }
}

// The stacked copies of the traces not stored in place, into the message's tiles.
void stack_copied_traces(Graph& g, const std::string& name, const StackedCommitment& c,
                         std::span<const TraceView> traces) {
  const uint32_t l = c.layout.l_skip(), m = c.log_message();
  const uint64_t h = uint64_t(1) << m;
  for (uint32_t i = 0; i < traces.size(); ++i) {
    const TraceView& tr = traces[i];
    if (tr.width == 0 || tr.in_place()) continue;
    // Column j of the trace fills one slice, from global position start + j * slice.
    const uint32_t log_slice = std::max(tr.log_height, l);
    const uint64_t start = c.layout.global_start(i), slice = uint64_t(1) << log_slice;
    const uint64_t rows = uint64_t(1) << tr.log_height;
    for (uint32_t j0 = 0; j0 < tr.width;) {
      const uint32_t t = c.tile_of(uint32_t((start + j0 * slice) >> m));
      const uint64_t tile_end = uint64_t(c.tile_first(t) + c.tile_width(t)) << m;  // global position
      const uint32_t j1 = uint32_t(std::min<uint64_t>(tr.width, (tile_end - start + slice - 1) / slice));
      const uint64_t pos = start + j0 * slice - (uint64_t(c.tile_first(t)) << m);
      g.dispatch<StackColumns>(
          j0 == 0 && j1 == tr.width ? fmt::format("{}.stack{}", name, i) : fmt::format("{}.stack{}.{}", name, i, j0),
          {.src = tr.data.slice(j0 * rows, (j1 - j0) * rows),
           .dst = c.message[t],
           .log_slice = log_slice,
           .log_stride = l > tr.log_height ? l - tr.log_height : 0,
           .log_stacked_height = m,
           .start_col = uint32_t(pos >> m),
           .start_row = uint32_t(pos & (h - 1)),
           .dst_col_stride = uint32_t(h)});
      j0 = j1;
    }
  }
}

// The codeword where all of it is kept, tile by tile: the message made in place and encoded, or
// (`keep_traces`) made in a copy of a batch of columns at a time and encoded from there.
void encode_kept_codeword(Graph& g, Ntt& ntt, const std::string& name, const StackedCommitment& c, bool keep_traces) {
  const uint32_t width = c.layout.stacked_width(), l = c.layout.l_skip(), m = c.log_message();
  const uint32_t log_cw = c.log_codeword(), tiles = c.tiles();
  const uint64_t h = uint64_t(1) << m, n = uint64_t(1) << log_cw;
  for (uint32_t t = 0; t < tiles; ++t) {
    const std::string suffix = tiles == 1 ? std::string() : fmt::format(".{}", t);
    if (!keep_traces) {
      add_rs_message(g, c.message[t], l, h, h, c.tile_width(t), name + ".rs_message" + suffix);
      ntt.forward(c.message[t], m, h, c.codeword[t], log_cw, n, c.tile_width(t), name + ".encode" + suffix);
      continue;
    }
    // The traces stay: the message of a batch of columns at a time in a copy, encoded from there.
    // Batches of at most an eighth of the message (at least 64 MiB): the copy and the NTT's
    // scratch (three batches' bytes) are what the commitment needs beyond its matrices.
    auto group = g.memory_group("commitment work");
    const uint64_t column_bytes = h * sizeof(Fp);
    const uint64_t budget = std::max<uint64_t>(uint64_t(width) * column_bytes / 8, uint64_t(64) << 20);
    const uint32_t batch = uint32_t(std::clamp<uint64_t>(budget / column_bytes, 1, c.tile_width(t)));
    for (uint32_t j0 = 0; j0 < c.tile_width(t); j0 += batch) {
      const uint32_t cols = std::min(batch, c.tile_width(t) - j0);
      const std::string b = suffix + (batch == c.tile_width(t) ? std::string() : fmt::format(".c{}", j0));
      View<Fp> copy = g.transient<Fp>(name + ".message_copy" + b, uint64_t(cols) * h).all();
      message_into(g, c.message[t].slice(uint64_t(j0) * h, uint64_t(cols) * h), copy, l, h, cols, name, b);
      ntt.forward(copy, m, h, c.codeword[t].slice(uint64_t(j0) * n, uint64_t(cols) * n), log_cw, n, cols,
                  name + ".encode" + b);
    }
  }
}

}  // namespace

StackedCommitment commit_stacked(Graph& g, Ntt& ntt, const std::string& name, std::span<const TraceView> traces,
                                 const SystemParams& params, StackedCommitOptions options) {
  auto span = g.span("stacked_commit");
  StackedLayout layout = layout_of(traces, params);
  const uint32_t width = layout.stacked_width(), l = params.l_skip, m = layout.log_stacked_height();
  const uint32_t log_cw = m + params.log_blowup;
  if (width == 0) throw InputError(fmt::format("commitment '{}' has no columns", name));
  if (log_cw > ntt.max_log_n())
    throw InputError(
        fmt::format("commitment '{}': codeword 2^{} exceeds the NTT size 2^{}", name, log_cw, ntt.max_log_n()));
  const bool any_in_place = check_in_place(name, traces, l);
  if (options.persistent && (options.keep_traces || any_in_place))
    throw GraphError(
        fmt::format("commitment '{}': a persistent commitment keeps no traces and has none in place", name));
  if (options.persistent && options.kept_codeword_columns < width)
    throw GraphError(fmt::format("commitment '{}': a persistent commitment keeps its whole codeword", name));
  StackedCommitment c{std::move(layout), {}, {}, 0, 1, 0, {}, params.log_blowup, {}, options.keep_traces,
                      options.persistent};
  // Tiles sized by the codeword's columns; the message's tiles hold the same columns.
  c.tile_columns = column_tile_width(g, width, log_cw, fmt::format("commitment '{}'", name));
  const uint32_t tiles = (width + c.tile_columns - 1) / c.tile_columns;
  c.kept_columns = std::min(width, options.kept_codeword_columns);
  // Where the codeword is not all kept, it is made (and hashed, and made again when opened) a
  // batch of columns at a time: the batch, its copy and the NTT's scratch are what that takes.
  if (options.batches == 0) throw GraphError(fmt::format("commitment '{}': 0 column batches", name));
  c.batch_columns = std::clamp<uint32_t>((width + options.batches - 1) / options.batches, 1, c.tile_columns);
  // Not keeping columns costs a batch and the rows' sponge states (16 words a row, as much as 16
  // codeword columns): dropping fewer than that saves nothing (narrow commitments keep theirs).
  if (options.keep_narrow && c.kept_columns < width && width - c.kept_columns <= c.batch_columns + 16)
    c.kept_columns = width;
  add_tile_buffers(g, name, c, traces, tiles, any_in_place, options.persistent);
  const std::vector<std::pair<uint64_t, uint64_t>> uploaded = place_in_place_traces(c, traces);
  std::optional<MerkleRowsBuilder> streamed;  // the tree's rows hashed as the codeword is made
  {
    auto rs = g.span("rs_code_matrix");
    zero_outside_uploads(g, name, c, uploaded);
    stack_copied_traces(g, name, c, traces);
    if (!c.codeword_kept()) encode_and_hash(g, ntt, name, c, params.whir.k, streamed);
    if (!streamed) encode_kept_codeword(g, ntt, name, c, options.keep_traces);
  }
  {
    auto mt = g.span("merkle_tree");
    auto group = g.memory_group("Merkle tree");
    c.tree = streamed ? streamed->finish()
                      : build_merkle_tree(g, name + ".tree", c.codeword_matrices(), params.whir.k, options.persistent);
  }
  return c;
}

StackedCommitment stacked_commitment_of(Graph& g, const std::string& name, std::span<const TraceView> traces,
                                        const SystemParams& params) {
  std::vector<MatrixShape> shapes;
  for (const TraceView& t : traces) shapes.push_back({t.width, t.log_height});
  StackedCommitment c{StackedLayout(std::move(shapes), params.l_skip, params.n_stack),
                      {},
                      {},
                      0,
                      1,
                      0,
                      {},
                      params.log_blowup,
                      {},
                      false,
                      true};
  const uint32_t width = c.layout.stacked_width(), m = c.layout.log_stacked_height(), log_cw = m + params.log_blowup;
  if (width == 0) throw InputError(fmt::format("commitment '{}' has no columns", name));
  c.tile_columns = column_tile_width(g, width, log_cw, fmt::format("commitment '{}'", name));
  c.kept_columns = width;
  const uint32_t tiles = (width + c.tile_columns - 1) / c.tile_columns;
  auto tile_name = [&](const char* what, uint32_t t) { return tile_buffer_name(name, tiles, what, t); };
  for (uint32_t t = 0; t < tiles; ++t) {
    c.message.push_back(g.persistent<Fp>(tile_name("message", t), uint64_t(c.tile_width(t)) << m));
    c.codeword.push_back(g.persistent<Fp>(tile_name("codeword", t), uint64_t(c.tile_width(t)) << log_cw));
  }
  c.in_place.resize(traces.size());
  for (size_t i = 0; i < traces.size(); ++i) {
    c.in_place[i].width = traces[i].width;
    c.in_place[i].log_height = traces[i].log_height;
  }
  c.tree = merkle_tree_of(g, name + ".tree", log_cw, params.whir.k);
  return c;
}

void open_stacked(Graph& g, Ntt& ntt, const std::string& name, const StackedCommitment& c, View<uint32_t> idx,
                  View<Fp> rows_out, View<Digest> paths_out) {
  if (c.codeword_kept()) {
    open_merkle(g, name, c.tree, c.codeword_matrices(), idx, rows_out, paths_out);
    return;
  }
  if (c.traces_kept)
    throw GraphError(fmt::format("opening '{}': the commitment's message still holds the traces", name));
  if (c.log_codeword() > ntt.max_log_n())
    throw GraphError(fmt::format("opening '{}': the codeword 2^{} exceeds the NTT size 2^{}", name, c.log_codeword(),
                                 ntt.max_log_n()));
  const uint32_t width = c.layout.stacked_width(), log_cw = c.log_codeword();
  const uint64_t q = idx.count, group = uint64_t(1) << c.tree.k, n = uint64_t(1) << log_cw;
  if (rows_out.count != q * group * width || paths_out.count != q * c.tree.depth())
    throw GraphError(fmt::format("opening '{}': output views hold {} values and {} digests, {} and {} needed", name,
                                 rows_out.count, paths_out.count, q * group * width, q * c.tree.depth()));
  if (q == 0) return;
  const std::vector<MatrixView> kept = c.codeword_matrices();
  // The codeword made again is read at the queried leaves' rows only.
  const NttRows opened{.idx = idx, .rows_per_query = uint32_t(group), .query_stride = uint32_t(c.tree.query_stride())};
  for (uint32_t t = 0; t < c.tiles(); ++t) {
    const uint32_t kw = t < kept.size() ? kept[t].width : 0;
    if (kw > 0)
      gather_opened_rows(g, fmt::format("{}.rows.{}", name, t), c.tree, kept[t], idx, c.tile_first(t), width, rows_out);
    for (uint32_t j0 = kw; j0 < c.tile_width(t); j0 += c.batch_columns) {
      const uint32_t cols = std::min(c.batch_columns, c.tile_width(t) - j0);
      const std::string b = fmt::format(".{}.c{}", t, j0);
      View<Fp> cw;
      {
        auto mg = g.memory_group("codeword (opening)");
        cw = g.transient<Fp>(name + ".codeword" + b, uint64_t(cols) * n).all();
      }
      encode_columns(g, ntt, name, c, t, j0, cols, cw, b, &opened);
      gather_opened_rows(g, name + ".rows" + b, c.tree, {cw, cols, log_cw, 1, n}, idx, c.tile_first(t) + j0, width,
                         rows_out);
    }
  }
  gather_opened_paths(g, name, c.tree, idx, paths_out);
}

void finish_message(Graph& g, StackedCommitment& c, const std::string& name) {
  if (!c.traces_kept) return;
  const uint64_t h = uint64_t(1) << c.log_message();
  for (uint32_t t = 0; t < c.tiles(); ++t)
    add_rs_message(g, c.message[t], c.layout.l_skip(), h, h, c.tile_width(t),
                   c.tiles() == 1 ? name + ".rs_message" : fmt::format("{}.rs_message.{}", name, t));
  c.traces_kept = false;
}

}  // namespace vkstark
