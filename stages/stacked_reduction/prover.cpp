#include "stages/stacked_reduction/prover.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>

#include "kernels/basic.hpp"
#include "kernels/stacked_reduction.hpp"
#include "kernels/whir.hpp"
#include "stages/common/device_value.hpp"
#include "stages/common/program.hpp"
#include "stages/common/reduce.hpp"
#include "stages/pcs/stacked.hpp"

namespace vkstark {

namespace {

// Round 0 reduces each class's partial sums to at most this many groups with ReduceFp4 stages;
// StackedRound0Sums adds the rest.
constexpr uint64_t kRound0SumGroups = 32;

// Where rounds 1 and 2 make the round-1 tables again, they do so in about this many column tiles.
constexpr uint32_t kRemadeTiles = 8;

// A run of consecutive slices of one height in one commitment: one block of its message
// (protocol.md 6.1: slices of a height follow each other without gaps, across stacked columns).
struct Region {
  uint32_t commitment = 0;
  uint32_t cls = 0;          // index into classes_
  uint32_t first_slice = 0;  // global slice index (claim order, protocol.md 10.1)
  uint32_t count = 0;
  uint64_t start = 0;       // message position of its first entry: stacked_col * 2^(l + n_stack) + row_start
  uint32_t log_chunks = 0;  // lifted n of its height
  // Round 0's sums of its slices (StackedRound0SliceSums): over the traces (the stacked matrix
  // before finish_message) or over the RS message, in parts of 2^log_parts per slice.
  bool over_message = false;
  uint32_t log_parts = 0;
  View<Fp4> slice_sums{};
};

}  // namespace

class StackedReductionProver {
 public:
  StackedReductionProver(Graph& g, const SystemParams& params, StackedReductionInput in)
      : g_(g), in_(std::move(in)), l_(params.l_skip), n_stack_(params.n_stack), n_(uint64_t(1) << l_) {
    plan();
  }

  void record_eq_tables() {
    if (!eq_recorded_) eq_tables();
    eq_recorded_ = true;
  }
  void record_slice_sums() {
    record_eq_tables();
    if (!sums_recorded_) slice_sums();
    sums_recorded_ = true;
  }
  View<Fp4> prove(DeviceTranscript& t, const StackingProofViews& proof) {
    auto span = g_.span("stacked_reduction");
    check_proof(t, proof);
    record_slice_sums();
    sample_lambda();
    round0();
    fold_u0();
    for (uint32_t j = 1; j <= n_stack_; ++j) mle_round(j);
    openings();
    return u_;
  }

 private:
  static std::string name(const std::string& step) { return "stacked_reduction." + step; }
  uint32_t lifted_n(uint32_t log_height) const { return log_height > l_ ? log_height - l_ : 0; }
  View<Fp4> transient(const std::string& step, uint64_t count) { return g_.transient<Fp4>(name(step), count).all(); }

  void plan();  // checks the input; slices, heights (classes) and regions
  void check_proof(DeviceTranscript& t, const StackingProofViews& proof);
  void find_regions();
  void eq_tables();
  void slice_sums();
  void sample_lambda();
  void round0();
  void fold_u0();
  void fold_tile(uint32_t t, View<Fp4> out, const std::string& step);
  void kernel_tile(uint32_t t, View<Fp4> out, const std::string& step);
  void mle_round(uint32_t j);
  void openings();

  Graph& g_;
  DeviceTranscript* t_ = nullptr;
  std::optional<StackingProofViews> proof_;  // from prove()
  const StackedReductionInput in_;
  const uint32_t l_, n_stack_;
  const uint64_t n_;  // N = 2^l_skip

  uint32_t total_width_ = 0;
  std::vector<uint32_t> col_offset_;     // per commitment: its first stacked column among all
  std::vector<uint32_t> classes_;        // distinct slice heights (log), descending
  std::vector<uint64_t> eq_offset_;      // per class: its E table in eq_
  std::vector<Region> regions_;          // commitment by commitment, layout order
  std::vector<Region> pieces_;           // round 0's: the regions split to fit its bindings
  std::vector<uint32_t> rot_, heights_;  // per global slice: need_rot of its matrix, its log height
  View<Fp4> eq_, lambda_, weights_, u_, fold_weights_, coeffs_;
  bool eq_recorded_ = false, sums_recorded_ = false;
  // The current column tables and kernel tables (rounds 1..n_stack), in tiles of tile_cols_ columns
  // (one tile where they fit one binding and kMaxTileBytes).
  std::vector<View<Fp4>> f_, k_;
  uint32_t tile_cols_ = 0, n_tiles_ = 0;
  bool remake_ = false;  // in_.remake_tables, where there are two rounds to make them for
  uint32_t tiles() const { return n_tiles_; }
  uint32_t tile_width(uint32_t t) const { return std::min(tile_cols_, total_width_ - t * tile_cols_); }
  std::string tile_name(const std::string& base, uint32_t t) const {
    return tiles() == 1 ? base : fmt::format("{}.{}", base, t);
  }
};

void StackedReductionProver::plan() {
  const auto& cs = in_.commitments;
  if (cs.empty()) throw InputError("stacked reduction: no commitment");
  if (in_.need_rot.size() != cs.size())
    throw InputError(
        fmt::format("stacked reduction: need_rot for {} commitments, {} given", in_.need_rot.size(), cs.size()));
  uint32_t max_lifted = 0;
  for (uint32_t c = 0; c < cs.size(); ++c) {
    const StackedLayout& layout = cs[c]->layout;
    if (layout.l_skip() != l_ || layout.n_stack() != n_stack_)
      throw InputError(fmt::format("stacked reduction: commitment {} has l_skip {}, n_stack {}; the params {}, {}", c,
                                   layout.l_skip(), layout.n_stack(), l_, n_stack_));
    if (in_.need_rot[c].size() != layout.shapes().size())
      throw InputError(fmt::format("stacked reduction: need_rot of commitment {} has {} entries for {} matrices", c,
                                   in_.need_rot[c].size(), layout.shapes().size()));
    col_offset_.push_back(total_width_);
    total_width_ += layout.stacked_width();
    for (const StackedSlice& s : layout.slices()) {
      rot_.push_back(in_.need_rot[c][s.matrix] ? 1u : 0u);
      heights_.push_back(s.log_height);
      max_lifted = std::max(max_lifted, lifted_n(s.log_height));
      if (std::find(classes_.begin(), classes_.end(), s.log_height) == classes_.end()) classes_.push_back(s.log_height);
    }
  }
  std::sort(classes_.rbegin(), classes_.rend());
  if (in_.r.count < 1ull + max_lifted)
    throw InputError(fmt::format("stacked reduction: r has {} coordinates, {} needed", in_.r.count, 1ull + max_lifted));
  find_regions();
}

void StackedReductionProver::check_proof(DeviceTranscript& t, const StackingProofViews& proof) {
  if (t_ != nullptr) throw GraphError("stacked reduction: prove() called twice");
  const uint64_t coeffs = 2 * n_ - 1;
  if (proof.univariate_round_coeffs.count != coeffs || proof.sumcheck_round_polys.count != 2ull * n_stack_ ||
      proof.stacking_openings.count != total_width_)
    throw InputError(fmt::format("stacked reduction: proof views of {}, {}, {} entries; {}, {}, {} expected",
                                 proof.univariate_round_coeffs.count, proof.sumcheck_round_polys.count,
                                 proof.stacking_openings.count, coeffs, 2 * n_stack_, total_width_));
  for (uint32_t c = 0; c < in_.commitments.size(); ++c)
    if (in_.commitments[c]->traces_kept)
      throw GraphError(
          fmt::format("stacked reduction: commitment {} still holds its traces (finish_message first)", c));
  t_ = &t;
  proof_ = proof;
}

// Regions: maximal runs of one height whose message positions follow each other.
void StackedReductionProver::find_regions() {
  const auto& cs = in_.commitments;
  uint32_t global = 0;
  for (uint32_t c = 0; c < cs.size(); ++c) {
    const StackedLayout& layout = cs[c]->layout;
    for (const StackedSlice& s : layout.slices()) {
      const uint64_t pos = uint64_t(s.stacked_col) * layout.stacked_height() + s.row_start;
      const uint64_t len = layout.slice_length(s.log_height);
      Region* last = regions_.empty() ? nullptr : &regions_.back();
      // A region lies in one tile of the message (one binding).
      if (last != nullptr && last->commitment == c && classes_[last->cls] == s.log_height &&
          last->start + last->count * len == pos &&
          cs[c]->tile_of(uint32_t(last->start >> layout.log_stacked_height())) == cs[c]->tile_of(s.stacked_col)) {
        ++last->count;
      } else {
        const uint32_t cls = uint32_t(std::find(classes_.begin(), classes_.end(), s.log_height) - classes_.begin());
        regions_.push_back({c, cls, global, 1, pos, lifted_n(s.log_height)});
      }
      ++global;
    }
  }
}

// E_h(x) = eq(x, r_1..r_n~) for every class (protocol.md 10.3's E): they need r only, so they run
// beside the transcript's work.
void StackedReductionProver::eq_tables() {
  uint64_t total = 0;
  for (uint32_t h : classes_) {
    eq_offset_.push_back(total);
    total += uint64_t(1) << lifted_n(h);
  }
  // Round 0's pieces: the regions split where their slice sums would not fit one binding.
  const MemoryLimits& limits = g_.memory_limits();
  const uint64_t row_bytes = 2 * n_ * sizeof(Fp4);
  auto sums_bytes = [&](uint64_t k, uint32_t log_chunks) {
    return (k << stacked_round0_log_parts(k, log_chunks)) * row_bytes;
  };
  for (const Region& r : regions_) {
    uint32_t most = r.count;
    while (most > 1 && sums_bytes(most, r.log_chunks) > limits.max_view_bytes()) most = (most + 1) / 2;
    if (sums_bytes(most, r.log_chunks) > limits.max_view_bytes())
      throw GraphError(fmt::format("stacked reduction: round 0's sums of one slice ({} bytes) do not fit one binding",
                                   sums_bytes(most, r.log_chunks)));
    const uint64_t slice_len = uint64_t(1) << (l_ + r.log_chunks);
    for (uint32_t first = 0; first < r.count; first += most) {
      Region piece = r;
      piece.count = std::min(most, r.count - first);
      piece.first_slice = r.first_slice + first;
      piece.start = r.start + first * slice_len;
      piece.log_parts = stacked_round0_log_parts(piece.count, r.log_chunks);
      pieces_.push_back(piece);
    }
  }
  // The E tables and the pieces' sums in transients of at most one allocation, the E tables in the
  // first: so that the sums' lifetime starts before the column openings' observation that they run
  // beside (a transient of its own could share memory with one that observation reads: a barrier).
  const uint64_t cap =
      limits.max_allocation_bytes == ~uint64_t(0) ? ~uint64_t(0) : limits.max_allocation_bytes - kTransientAlignment;
  std::vector<std::pair<uint64_t, size_t>> packs{{total * sizeof(Fp4), 0}};  // (bytes, first piece)
  for (size_t i = 0; i < pieces_.size(); ++i) {
    const uint64_t bytes = (uint64_t(pieces_[i].count) << pieces_[i].log_parts) * row_bytes;
    if (packs.back().first + bytes > cap) packs.push_back({0, i});
    packs.back().first += bytes;
  }
  for (size_t k = 0; k < packs.size(); ++k) {
    const View<Fp4> pack = transient(k == 0 ? std::string("round0.prepass") : fmt::format("round0.prepass.{}", k),
                                     packs[k].first / sizeof(Fp4));
    uint64_t at = 0;
    if (k == 0) {
      eq_ = pack.slice(0, total);
      at = total;
    }
    const size_t end = k + 1 < packs.size() ? packs[k + 1].second : pieces_.size();
    for (size_t i = packs[k].second; i < end; ++i) {
      const uint64_t count = 2 * n_ * (uint64_t(pieces_[i].count) << pieces_[i].log_parts);
      pieces_[i].slice_sums = pack.slice(at, count);
      at += count;
    }
  }
  for (uint32_t c = 0; c < classes_.size(); ++c) {
    const uint32_t m = lifted_n(classes_[c]);
    const View<Fp4> u = m > 0 ? in_.r.slice(1, m) : in_.r.slice(0, 1);  // m = 0 reads nothing: the table is [1]
    g_.dispatch<EqTable>(name(fmt::format("eq.h{}", classes_[c])),
                         {.u = u, .out = eq_.slice(eq_offset_[c], uint64_t(1) << m), .m = m});
  }
}

// Round 0's sums of every region's slices that need r only (the E tables): over the stacked traces
// where the commitment still holds them (evaluations: the sums take an inverse DFT in Z later),
// else over the RS message (a Möbius transform later). One dispatch per region.
void StackedReductionProver::slice_sums() {
  for (Region& r : pieces_) {
    const StackedCommitment& c = *in_.commitments[r.commitment];
    const uint32_t tile = c.tile_of(uint32_t(r.start >> c.log_message()));
    r.over_message = !c.traces_kept;
    g_.dispatch<StackedRound0SliceSums>(
        name(fmt::format("round0.h{}.slice_sums.c{}.s{}", classes_[r.cls], r.commitment, r.first_slice)),
        {.trace = c.message[tile].slice(r.start - (uint64_t(c.tile_first(tile)) << c.log_message()),
                                        uint64_t(r.count) << (l_ + r.log_chunks)),
         .eq = eq_.slice(eq_offset_[r.cls], uint64_t(1) << r.log_chunks),
         .sums = r.slice_sums,
         .l_skip = l_,
         .log_chunks = r.log_chunks,
         .log_parts = r.log_parts});
  }
}

void StackedReductionProver::sample_lambda() {
  lambda_ = transient("lambda", 1);
  t_->sample_ext(lambda_);
}

// s'_0 (protocol.md 10.3): per class, its slice sums weighted (three per entry: lambda^2i E,
// lambda^(2i+1) E, lambda^(2i+1) D), added and transformed into monomial coefficients in Z (an
// inverse DFT of sums over traces, a Möbius transform of sums over RS messages: a class whose
// regions have both is two groups), then multiplied with the class's univariate kernels and summed.
void StackedReductionProver::round0() {
  auto span = g_.span("round0");
  const uint32_t slices = uint32_t(rot_.size());
  weights_ = transient("round0.weights", 2ull * slices);
  Buffer<uint32_t> rot = g_.constant<uint32_t>(name("rot"), rot_);
  g_.dispatch<StackedSliceWeights>(name("round0.weights"), {.lambda = lambda_, .rot = rot, .weights = weights_});
  const uint64_t group = 3 * n_;
  // Groups: (class, over_message) pairs, in class order. Every group's weighted sums first, then
  // their reductions, then their sums: each step's dispatches are independent of one another.
  std::vector<std::pair<uint32_t, bool>> groups;
  std::vector<uint32_t> group_of(pieces_.size());
  for (size_t i = 0; i < pieces_.size(); ++i) {
    const std::pair<uint32_t, bool> key{pieces_[i].cls, pieces_[i].over_message};
    auto it = std::find(groups.begin(), groups.end(), key);
    group_of[i] = uint32_t(it - groups.begin());
    if (it == groups.end()) groups.push_back(key);
  }
  std::vector<uint64_t> parts(groups.size(), 0), region_parts(pieces_.size());
  for (size_t i = 0; i < pieces_.size(); ++i) {
    region_parts[i] = stacked_round0_weigh_parts(uint64_t(pieces_[i].count) << pieces_[i].log_parts, l_);
    parts[group_of[i]] += region_parts[i];
  }
  auto group_name = [&](size_t h) {
    return fmt::format("round0.h{}{}", classes_[groups[h].first], groups[h].second ? ".message" : "");
  };
  std::vector<View<Fp4>> partials(groups.size());
  for (size_t h = 0; h < groups.size(); ++h) partials[h] = transient(group_name(h) + ".partials", parts[h] * group);
  std::vector<uint64_t> next(groups.size(), 0);
  for (size_t i = 0; i < pieces_.size(); ++i) {
    const Region& r = pieces_[i];
    const uint32_t h = group_of[i];
    g_.dispatch<StackedRound0Weigh>(
        name(fmt::format("round0.h{}.weigh.c{}.s{}", classes_[r.cls], r.commitment, r.first_slice)),
        {.sums = r.slice_sums,
         .weights = weights_.slice(2ull * r.first_slice, 2ull * r.count),
         .partials = partials[h].slice(next[h] * group, region_parts[i] * group),
         .l_skip = l_,
         .log_parts = r.log_parts});
    next[h] += region_parts[i];
  }
  std::vector<ReducedPartials> rest;
  for (size_t h = 0; h < groups.size(); ++h)
    rest.push_back(
        add_partial_reduce(g_, name(group_name(h)), partials[h], parts[h], uint32_t(group), kRound0SumGroups));
  View<Fp4> sums = transient("round0.sums", group * groups.size());
  std::vector<uint32_t> heights;
  for (size_t h = 0; h < groups.size(); ++h) {
    g_.dispatch<StackedRound0Sums>(name(group_name(h) + ".sums"), {.partials = rest[h].values,
                                                                   .sums = sums.slice(h * group, group),
                                                                   .l_skip = l_,
                                                                   .mobius = groups[h].second ? 1u : 0u});
    heights.push_back(classes_[groups[h].first]);
  }
  Buffer<uint32_t> classes = g_.constant<uint32_t>(name("classes"), heights);
  g_.dispatch<StackedRound0Poly>(name("round0.poly"), {.classes = classes,
                                                       .r = in_.r.slice(0, 1),
                                                       .sums = sums,
                                                       .coeffs = proof_->univariate_round_coeffs,
                                                       .l_skip = l_});
  u_ = transient("u", 1ull + n_stack_);
  t_->observe_sample_ext(proof_->univariate_round_coeffs, u_.slice(0, 1));
}

// After u_0: every stacked column's PLE folded at u_0 (f, a table over H_n_stack per column, all
// columns one after another) and the batched kernel K_c(u_0, .) beside it (k): zero where no slice
// lies, else per slice a E(x) + b D(x) with its two coefficients from u_0 (protocol.md 10.2).
// Kept for rounds 1 and 2, or (remake_tables) made a tile at a time for each of them and dropped.
void StackedReductionProver::fold_u0() {
  auto span = g_.span("fold_u0");
  // What u_0 gives (the fold weights, every slice's two kernel coefficients), then the tables.
  fold_weights_ = transient("fold_u0.weights", n_);
  g_.dispatch<StackedFoldWeights>(name("fold_u0.weights"), {.z = u_.slice(0, 1), .out = fold_weights_, .l_skip = l_});
  if (n_stack_ > 0) {
    coeffs_ = transient("fold_u0.coeffs", 2ull * rot_.size());
    Buffer<uint32_t> heights = g_.constant<uint32_t>(name("heights"), heights_);
    g_.dispatch<StackedSliceCoeffs>(name("fold_u0.coeffs"), {.log_heights = heights,
                                                             .r = in_.r.slice(0, 1),
                                                             .u = u_.slice(0, 1),
                                                             .weights = weights_,
                                                             .coeffs = coeffs_,
                                                             .l_skip = l_});
  }
  // Column tiles of f and k: whole columns of 2^n_stack entries each; an eighth of the columns a
  // tile where the tables are made again.
  const uint64_t column = (uint64_t(1) << n_stack_) * sizeof(Fp4);
  const uint64_t cap = std::min(kMaxTileBytes, g_.memory_limits().max_view_bytes());
  if (column > g_.memory_limits().max_view_bytes())
    throw GraphError(
        fmt::format("stacked reduction: a column of 2^{} extension values does not fit one binding", n_stack_));
  remake_ = in_.remake_tables && n_stack_ >= 2;
  tile_cols_ = n_stack_ == 0 ? total_width_ : uint32_t(std::clamp<uint64_t>(cap / column, 1, total_width_));
  if (remake_) tile_cols_ = std::min(tile_cols_, std::max(1u, (total_width_ + kRemadeTiles - 1) / kRemadeTiles));
  n_tiles_ = (total_width_ + tile_cols_ - 1) / tile_cols_;
  if (remake_) return;  // rounds 1 and 2 make them
  f_.resize(n_tiles_);
  k_.resize(n_tiles_);
  for (uint32_t t = 0; t < n_tiles_; ++t) {
    f_[t] = n_stack_ == 0 ? proof_->stacking_openings
                          : transient(tile_name("fold_u0.f", t), uint64_t(tile_width(t)) << n_stack_);
    fold_tile(t, f_[t], "fold_u0");
  }
  if (n_stack_ == 0) return;
  for (uint32_t t = 0; t < n_tiles_; ++t) {
    k_[t] = transient(tile_name("fold_u0.k", t), uint64_t(tile_width(t)) << n_stack_);
    kernel_tile(t, k_[t], "fold_u0.k");
  }
}

// Tile t of f: the message columns that fall in it, folded at u_0 (split where a message tile ends).
void StackedReductionProver::fold_tile(uint32_t t, View<Fp4> out, const std::string& step) {
  const uint32_t lo = t * tile_cols_, hi = lo + tile_width(t);
  for (uint32_t c = 0; c < in_.commitments.size(); ++c) {
    const StackedCommitment& sc = *in_.commitments[c];
    for (uint32_t mt = 0; mt < sc.tiles(); ++mt) {
      const uint32_t first = col_offset_[c] + sc.tile_first(mt), end = first + sc.tile_width(mt);
      const uint32_t a = std::max(first, lo), b = std::min(end, hi);
      if (a >= b) continue;
      const bool whole = sc.tiles() == 1 && n_tiles_ == 1;
      g_.dispatch<StackedFoldChunks>(
          name(whole                                       ? fmt::format("{}.c{}", step, c)
               : sc.tiles() == 1 && a == first && b == end ? fmt::format("{}.c{}.{}", step, c, t)
                                                           : fmt::format("{}.c{}.{}.{}", step, c, mt, a)),
          {.message = sc.message_columns(a - col_offset_[c], b - a),
           .weights = fold_weights_,
           .out = out.slice(uint64_t(a - lo) << n_stack_, uint64_t(b - a) << n_stack_)});
    }
  }
}

// Tile t of k: every slice in it (tiles end at columns, slices never span one), and zero past the
// slices of each commitment's last stacked column.
void StackedReductionProver::kernel_tile(uint32_t t, View<Fp4> out, const std::string& step) {
  const uint64_t lo = uint64_t(t * tile_cols_) << n_stack_, hi = lo + (uint64_t(tile_width(t)) << n_stack_);
  std::vector<uint64_t> used(in_.commitments.size(), 0);  // entries of each commitment with a slice
  for (const Region& r : regions_) {
    const uint64_t base = uint64_t(col_offset_[r.commitment]) << n_stack_, first = r.start >> l_;
    const uint64_t per_slice = uint64_t(1) << r.log_chunks;
    used[r.commitment] = std::max(used[r.commitment], first + uint64_t(r.count) * per_slice);
    const uint64_t from = base + first, to = from + uint64_t(r.count) * per_slice;
    if (to <= lo || from >= hi) continue;
    const uint64_t s0 = (std::max(from, lo) - from) / per_slice, s1 = (std::min(to, hi) - from) / per_slice;
    g_.dispatch<StackedKernelTable>(name(fmt::format("{}.c{}.s{}", step, r.commitment, r.first_slice + s0)),
                                    {.eq = eq_.slice(eq_offset_[r.cls], per_slice),
                                     .coeffs = coeffs_.slice(2 * (r.first_slice + s0), 2 * (s1 - s0)),
                                     .table = out.slice(from + s0 * per_slice - lo, (s1 - s0) * per_slice),
                                     .log_chunks = r.log_chunks});
  }
  for (uint32_t c = 0; c < in_.commitments.size(); ++c) {
    const uint64_t base = uint64_t(col_offset_[c]) << n_stack_;
    const uint64_t end = base + (uint64_t(in_.commitments[c]->layout.stacked_width()) << n_stack_);
    const uint64_t at = std::max(base + used[c], lo), to = std::min(end, hi);
    if (at >= to) continue;
    g_.dispatch<FillU32>(name(at == base + used[c] && to == end ? fmt::format("{}.c{}.tail", step, c)
                                                                : fmt::format("{}.c{}.tail.{}", step, c, t)),
                         {.out = out.slice(at - lo, to - at).bitcast<uint32_t>(), .value = 0});
  }
}

// Round j (protocol.md 10.3): s'_j(X) = sum over all columns and y of f(X, y) k(X, y), degree 2,
// sent as s'_j(1), s'_j(2). Two dependent dispatches: the partial sums (with the fold at u_(j-1)
// from round 2 on) and one program. Where the tables are made again, rounds 1 and 2 make each
// tile's round-1 tables before its partials and drop them after.
void StackedReductionProver::mle_round(uint32_t j) {
  const std::string step = fmt::format("round{}", j);
  auto span = g_.span(step);
  // Per tile its own partial sums, one buffer for all: the program adds them up.
  std::vector<uint64_t> pairs(tiles()), at(tiles() + 1, 0);
  for (uint32_t t = 0; t < tiles(); ++t) {
    pairs[t] = uint64_t(tile_width(t)) << (n_stack_ - j);
    at[t + 1] = at[t] + 2ull * sumcheck_partial_count(pairs[t]);
  }
  const uint32_t parts = uint32_t(at[tiles()] / 2);
  View<Fp4> partials = transient(step + ".partials", 2ull * parts);
  if (remake_ && j == 2) {
    f_.resize(tiles());
    k_.resize(tiles());
  }
  for (uint32_t t = 0; t < tiles(); ++t) {
    const View<Fp4> out = partials.slice(at[t], at[t + 1] - at[t]);
    View<Fp4> f0, k0;
    if (!remake_ || j > 2) {
      f0 = f_[t];
      k0 = k_[t];
    } else {  // the round-1 tables of tile t, made again
      const std::string made = step + ".made";
      f0 = transient(tile_name(made + ".f", t), uint64_t(tile_width(t)) << n_stack_);
      k0 = transient(tile_name(made + ".k", t), uint64_t(tile_width(t)) << n_stack_);
      fold_tile(t, f0, made + ".f");
      kernel_tile(t, k0, made + ".k");
    }
    if (j == 1) {
      g_.dispatch<SumcheckProductPartials>(name(tile_name(step + ".partials", t)),
                                           {.f = f0, .w = k0, .partials = out, .pairs = uint32_t(pairs[t])});
    } else {
      View<Fp4> f = transient(tile_name(step + ".f", t), 2 * pairs[t]),
                k = transient(tile_name(step + ".k", t), 2 * pairs[t]);
      g_.dispatch<StackedFoldPartials>(name(tile_name(step + ".partials", t)), {.f = f0,
                                                                                .w = k0,
                                                                                .alpha = u_.slice(j - 1, 1),
                                                                                .f_dst = f,
                                                                                .w_dst = k,
                                                                                .partials = out,
                                                                                .pairs = uint32_t(pairs[t])});
      f_[t] = f;
      k_[t] = k;
    }
  }
  View<Fp4> evals = proof_->sumcheck_round_polys.slice(2ull * (j - 1), 2);
  ProgramBuilder program(g_, *t_, name(step + ".program"));
  for (uint32_t x = 0; x < 2; ++x) {  // s'_j(1), then s'_j(2)
    const DeviceFp4 v = sum_ext(program, partials, x, parts, 2);
    store_ext(evals, v, x);
    observe_ext(v);
  }
  store_ext(u_.slice(j, 1), sample_ext(program));
  program.emit();
}

// The stacking openings: every column's table folded at u_n_stack (after round 0 alone, when
// n_stack = 0, the tables are the openings), observed in commitment and column order.
void StackedReductionProver::openings() {
  auto span = g_.span("openings");
  if (n_stack_ > 0)
    for (uint32_t t = 0; t < tiles(); ++t)
      g_.dispatch<FoldPairsFp4>(name(tile_name("openings", t)),
                                {.src = f_[t],
                                 .alpha = u_.slice(n_stack_, 1),
                                 .dst = proof_->stacking_openings.slice(uint64_t(t) * tile_cols_, tile_width(t))});
  t_->observe_ext(proof_->stacking_openings);
}

StackingRegions reserve_stacking_regions(ProofLayout& layout, const StackingShape& shape) {
  return StackingRegions::reserve(layout, [shape](auto& v, StackingProof& p) { stacking_fields(v, p, &shape); });
}

StackedOpeningReduction::StackedOpeningReduction(Graph& g, const SystemParams& params, StackedReductionInput in) {
  params.validate();
  impl_ = std::make_unique<StackedReductionProver>(g, params, std::move(in));
}
StackedOpeningReduction::~StackedOpeningReduction() = default;
void StackedOpeningReduction::record_eq_tables() { impl_->record_eq_tables(); }
void StackedOpeningReduction::record_slice_sums() { impl_->record_slice_sums(); }
View<Fp4> StackedOpeningReduction::prove(DeviceTranscript& transcript, const StackingProofViews& proof) {
  return impl_->prove(transcript, proof);
}

View<Fp4> stacked_reduction_prove(Graph& g, DeviceTranscript& transcript, const StackingProofViews& proof,
                                  const SystemParams& params, const StackedReductionInput& in) {
  return StackedOpeningReduction(g, params, in).prove(transcript, proof);
}

}  // namespace vkstark
