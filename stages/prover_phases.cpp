#include "stages/prover_phases.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kernels/basic.hpp"
#include "kernels/whir.hpp"
#include "stages/batch_constraint/prover.hpp"
#include "stages/common/program.hpp"
#include "stages/gkr/prover.hpp"
#include "stages/preamble/prover.hpp"

namespace vkstark {

ProofRegions ProofRegions::reserve(ProofLayout& layout, const ProofShape& s) {
  ProofRegions r;
  r.gkr = PartRegions<GkrProof>::reserve(layout, [x = s.gkr](auto& v, GkrProof& p) { gkr_fields(v, p, &x); });
  r.batch = PartRegions<BatchConstraintProof>::reserve(
      layout, [x = s.batch](auto& v, BatchConstraintProof& p) { batch_constraint_fields(v, p, &x); });
  r.stacking = PartRegions<StackingProof>::reserve(
      layout, [x = s.stacking](auto& v, StackingProof& p) { stacking_fields(v, p, &x); });
  r.whir = reserve_whir_regions(layout, s.whir);
  return r;
}

void ProofRegions::decode(const std::vector<uint32_t>& words, Proof& proof) const {
  proof.gkr_proof = gkr->decode(words);
  proof.batch_constraint_proof = batch->decode(words);
  proof.stacking_proof = stacking->decode(words);
  proof.whir_proof = whir->decode(words);
}

uint32_t ProverContext::log_height(uint32_t T) const { return uint32_t(std::countr_zero(airs[air(T)]->common.height)); }

namespace {

// The reference's spans around groups of phases (stages/prover.hpp): prover.rap_constraints holds
// LogUp GKR and the constraint sumcheck, prover.openings the stacked reduction and WHIR. Ends the
// open one unless it is `name`, and opens `name` (none for nullptr) with its memory group.
void enter_outer(ProverContext& c, const char* name, const char* group = nullptr) {
  if (name != nullptr && c.outer_name == name) return;  // by value: two equal literals may differ in address
  c.outer_group.reset();
  c.outer_span.reset();
  c.outer_name = name ? name : "";
  if (name) c.outer_span.emplace(c.g.span(name));
  if (group) c.outer_group.emplace(c.g.memory_group(group));
}

// A trace part as the interactions' kernels read it: its one piece, or (a part in pieces of its
// commitment) a copy of the columns `columns` (ascending) that they read, one after another.
View<Fp> compact_part(Graph& g, const TracePart& part, const std::vector<uint32_t>& columns, const std::string& air,
                      size_t index, const std::string& name) {
  if (part.segments.empty()) return {};
  const uint64_t h = uint64_t(1) << part.log_height;
  if (!g.memory_limits().binds(0, columns.size() * h * sizeof(Fp)))
    throw GraphError(
        fmt::format("AIR {}: trace part {} lies in {} pieces of its commitment, and the {} of its columns its "
                    "interactions read ({} bytes) do not fit one binding ({} bytes)",
                    air, index, part.segments.size(), columns.size(), columns.size() * h * sizeof(Fp),
                    g.memory_limits().max_view_bytes()));
  const View<Fp> out = g.transient<Fp>(name, columns.size() * h).all();
  // Runs of consecutive columns within one piece, a copy each.
  for (size_t i = 0; i < columns.size();) {
    const uint32_t c = columns[i];
    const TracePart::Segment* seg = nullptr;
    for (const TracePart::Segment& s : part.segments)
      if (c >= s.first_column && c < s.first_column + s.columns) seg = &s;
    if (seg == nullptr)
      throw GraphError(fmt::format("AIR {}: column {} of trace part {} lies in no piece", air, c, index));
    size_t j = i + 1;
    while (j < columns.size() && columns[j] == columns[j - 1] + 1 && columns[j] < seg->first_column + seg->columns) ++j;
    g.dispatch<CopyU32>(fmt::format("{}.{}", name, c),
                        {.src = seg->data.slice(uint64_t(c - seg->first_column) * h, (j - i) * h).bitcast<uint32_t>(),
                         .dst = out.slice(i * h, (j - i) * h).bitcast<uint32_t>()});
    i = j;
  }
  return out;
}

// protocol.md 7 steps 1-3 (the verifier's mirror: Verifier::preamble).
void preamble_phase(ProverContext& c) {
  const MultiStarkVerifyingKey& vk = c.pk.vk;
  std::vector<PreambleAir> preamble(c.airs.size());
  for (uint32_t T = 0; T < c.shape.order.size(); ++T) {
    PreambleAir& p = preamble[c.air(T)];
    p.present = true;
    p.log_height = c.log_height(T);
    if (c.commits.preprocessed[T] >= 0) p.preprocessed_root = c.commits.commits[c.commits.preprocessed[T]].root();
    for (size_t i = 0; i < vk.per_air[c.air(T)].params.width.cached_mains.size(); ++i)
      p.cached_roots.push_back(c.commits.commits[c.commits.first_cached[T] + i].root());
    if (c.commits.public_values[T].valid()) p.public_values = c.commits.public_values[T].all();
  }
  observe_preamble(c.g, c.t, vk, c.commits.commits[0].root(), preamble);
}

// Step 4: LogUp's grinding and alpha, beta; GKR on the interactions' fractions (q0 = 1 without
// interactions); xi: GKR's point and then sampled up to l_skip + n_global.
void gkr_phase(ProverContext& c) {
  Graph& g = c.g;
  const ProofShape& s = c.shape;
  const SystemParams& params = c.pk.vk.params;
  const uint32_t l = params.l_skip, n_global = std::max(s.batch.n_max, s.logup.n_logup);
  c.xi = g.transient<Fp4>("xi", l + n_global).all();
  auto span = g.span("logup_gkr");
  auto group = g.memory_group("LogUp GKR");
  const GkrProofViews views = gkr_proof_views(c.layout, *c.regions.gkr, c.regions.gkr->proto());
  const GkrChallenges ch = gkr_grind_and_challenges(g, c.t, views, params);
  c.beta = ch.beta;
  uint32_t have = 0;
  if (s.gkr.layers == 0) {
    g.dispatch<CopyU32>("q0_claim.one",
                        {.src = g.constant<Fp4>("one", std::vector<Fp4>{Fp4::one()}).all().bitcast<uint32_t>(),
                         .dst = views.q0_claim.bitcast<uint32_t>()});
  } else {
    std::vector<LogupInputTrace> traces;
    for (uint32_t T = 0; T < s.order.size(); ++T) {
      const AirProvingKey& air = c.pk.per_air[c.air(T)];
      LogupInputTrace tr;
      const bool reads = !c.pk.vk.per_air[c.air(T)].symbolic_constraints.interactions.empty();
      // A part in pieces of its commitment (a trace larger than a tile of it): the compact kernels,
      // which read copies of the columns the interactions use (a few of a wide trace's).
      bool pieces = false;
      for (const TracePart& part : c.commits.parts[T]) pieces = pieces || part.segments.size() > 1;
      tr.kernels = &c.kernels.interaction_kernels(c.air(T), reads && pieces);
      for (size_t p = 0; p < c.commits.parts[T].size(); ++p) {
        const TracePart& part = c.commits.parts[T][p];
        if (!reads || part.segments.empty())
          tr.parts.push_back(View<Fp>{});
        else if (!pieces)
          tr.parts.push_back(part.segments[0].data);
        else
          tr.parts.push_back(
              compact_part(g, part, tr.kernels->columns[p], air.name, p, fmt::format("trace{}.part{}.compact", T, p)));
      }
      if (c.commits.public_values[T].valid()) tr.public_values = c.commits.public_values[T].all();
      tr.log_height = c.log_height(T);
      traces.push_back(std::move(tr));
    }
    const uint64_t leaves = uint64_t(1) << s.gkr.layers;
    LogupInputLayer input(g, c.t, traces, s.logup, l, ch.alpha, ch.beta);
    // The low-memory mode makes the leaves again, a tile of at least the largest slot and a
    // sixteenth of them, whenever read (gkr_prove_remade): the largest table kept then is half of them.
    const uint64_t tile = std::max({input.largest_slot(), leaves / 16, uint64_t(16)});
    const bool remade =
        c.low_memory && s.gkr.layers >= 4 && tile < leaves && 2 * leaves * sizeof(Fp4) >= c.remake_min_bytes;
    const uint64_t largest = remade ? leaves / 2 : leaves;
    if (!g.memory_limits().binds(0, largest * sizeof(Fp4)))
      throw GraphError(fmt::format(
          "LogUp GKR: the proof's interactions give 2^{} fraction leaves, whose {} layer takes {} bytes for each of "
          "p and q, more than one binding may hold ({} bytes); the GKR layers are not split yet: prove fewer "
          "interaction rows at once{}",
          s.gkr.layers, remade ? "second" : "first", largest * sizeof(Fp4), g.memory_limits().max_view_bytes(),
          remade || s.gkr.layers < 4 ? "" : ", or in the low-memory mode (--memory-mode low)"));
    View<Fp4> gkr_xi;
    if (remade) {
      gkr_xi = gkr_prove_remade(
          g, c.t, views,
          [&input](uint64_t first, View<Fp4> p, View<Fp4> q, const std::string& tag) {
            input.leaves(first, p, q, tag);
          },
          tile, s.gkr.layers);
    } else {
      View<Fp4> p = g.transient<Fp4>("gkr.p", leaves).all(), q = g.transient<Fp4>("gkr.q", leaves).all();
      input.leaves(0, p, q);
      gkr_xi = gkr_prove(g, c.t, views, p, q, s.gkr.layers);
    }
    g.dispatch<CopyU32>("xi.gkr",
                        {.src = gkr_xi.bitcast<uint32_t>(), .dst = c.xi.slice(0, s.gkr.layers).bitcast<uint32_t>()});
    have = s.gkr.layers;
  }
  if (have < l + n_global) c.t.sample_ext(c.xi.slice(have, l + n_global - have));
}

// Step 5: the batch constraint sumcheck at xi. Round 0 of the stacked reduction needs r and the
// traces only: its E tables are made before the column openings are gathered, its slice sums
// (most of its work) beside their observation. VKSTARK_OPENINGS_BESIDE=0 records them in the
// reduction instead (measurements).
void batch_constraint_phase(ProverContext& c) {
  Graph& g = c.g;
  const MultiStarkVerifyingKey& vk = c.pk.vk;
  BatchConstraintInput in;
  in.xi = c.xi;
  in.beta = c.beta;
  in.n_logup = c.shape.logup.n_logup;
  for (uint32_t T = 0; T < c.shape.order.size(); ++T) {
    BatchTrace tr;
    tr.vk = &vk.per_air[c.air(T)];
    tr.kernels = &c.kernels.functional_kernels(c.air(T));
    tr.parts = c.commits.parts[T];
    if (c.commits.public_values[T].valid()) tr.public_values = c.commits.public_values[T].all();
    tr.log_height = c.log_height(T);
    tr.row_start = c.shape.logup.row_start[T];
    in.traces.push_back(std::move(tr));
  }
  in.observe_piece_words = c.observe_piece_words;
  in.observe_on_host = c.openings_sponge_on_host;
  in.remake_tables = c.low_memory;
  in.remake_min_bytes = c.remake_min_bytes;
  const char* beside_env = std::getenv("VKSTARK_OPENINGS_BESIDE");
  const bool use_beside = beside_env == nullptr || std::string_view(beside_env) != "0";
  const BesideOpenings beside =
      !use_beside
          ? BesideOpenings{}
          : BesideOpenings{.before =
                               [&](View<Fp4> point) {
                                 c.reduction.emplace(g, vk.params,
                                                     StackedReductionInput{c.commits.pointers(), c.commits.need_rot,
                                                                           point, c.low_memory});
                                 c.reduction->record_eq_tables();
                               },
                           .beside = [&] { c.reduction->record_slice_sums(); }};
  auto group = g.memory_group("constraint sumcheck");
  c.r = batch_constraint_prove(g, c.t, batch_constraint_views(c.layout, *c.regions.batch, c.regions.batch->proto()),
                               vk.params, in, beside);
}

// Step 6: the column openings reduced to u (and u_cube, WHIR's point).
void stacked_reduction_phase(ProverContext& c) {
  const SystemParams& params = c.pk.vk.params;
  if (!c.reduction)
    c.reduction.emplace(c.g, params,
                        StackedReductionInput{c.commits.pointers(), c.commits.need_rot, c.r, c.low_memory});
  const View<Fp4> u =
      c.reduction->prove(c.t, stacking_proof_views(c.layout, *c.regions.stacking, c.regions.stacking->proto()));
  c.u_cube = c.g.transient<Fp4>("u_cube", params.log_stacked_height()).all();
  c.g.dispatch<UCube>("u_cube", {.u = u, .cube = c.u_cube, .l_skip = params.l_skip});
}

// Step 7: WHIR on every commitment at u_cube.
void whir_phase(ProverContext& c) {
  whir_prove(c.g, c.ntt, c.t, c.layout, *c.regions.whir, c.shape.whir, c.pk.vk.params,
             WhirOpening{c.commits.pointers(), c.u_cube, c.openings_sponge_on_host});
}

}  // namespace

void prove_phase(Phase phase, ProverContext& c) {
  switch (phase) {
    case Phase::Preamble:
      enter_outer(c, nullptr);
      return preamble_phase(c);
    case Phase::Gkr:
      enter_outer(c, "prover.rap_constraints");
      return gkr_phase(c);
    case Phase::BatchConstraint:
      enter_outer(c, "prover.rap_constraints");
      return batch_constraint_phase(c);
    case Phase::StackedReduction:
      enter_outer(c, nullptr);
      finish_messages(c.g, c.commits);  // nothing reads the traces any more
      enter_outer(c, "prover.openings", "openings (stacked reduction, WHIR)");
      return stacked_reduction_phase(c);
    case Phase::Whir:
      enter_outer(c, "prover.openings");
      return whir_phase(c);
  }
}

void end_phases(ProverContext& c) { enter_outer(c, nullptr); }

namespace {

// commit_traces under the reference's span, its buffers in one memory group.
TraceCommitments commit_in_span(Graph& g, Ntt& ntt, const ProvingKey& pk,
                                const std::vector<std::optional<AirWithTraces>>& airs, const ProofShape& s,
                                const ProofSetupOptions& o) {
  auto span = g.span("prover.main_trace_commit");
  auto group = g.memory_group("commitment work");
  return commit_traces(g, ntt, pk, airs, s, o.preprocessed, o.kept_codeword_bytes, o.keep_narrow);
}

// Every part of the proof reserved in `layout`, then the proof buffer made.
ProofRegions reserve_proof_buffer(Graph& g, ProofLayout& layout, const ProofShape& s) {
  ProofRegions r = ProofRegions::reserve(layout, s);
  layout.create_buffer(g);
  return r;
}

std::vector<Buffer<Digest>> download_roots(Graph& g, const TraceCommitments& c) {
  std::vector<Buffer<Digest>> roots;
  for (size_t i = 0; i < c.commits.size(); ++i)
    roots.push_back(download_copy(g, fmt::format("root{}", i), c.commits[i].root()));
  return roots;
}

}  // namespace

// The members in declaration order, each made after the one before it: the graph's buffers and
// tasks in the order the prover always made them.
ProofSetup::ProofSetup(Graph& g, const ProvingKey& pk, const std::vector<std::optional<AirWithTraces>>& airs,
                       const ProofShape& shape, AirKernels& kernels, const ProofSetupOptions& options)
    : ntt(g, pk.vk.params.log_stacked_height() + pk.vk.params.log_blowup),
      commits(commit_in_span(g, ntt, pk, airs, shape, options)),
      regions(reserve_proof_buffer(g, layout, shape)),
      roots(download_roots(g, commits)),
      transcript_in(options.transcript_in ? std::optional(g.input<SpongeState>("transcript.in", 1)) : std::nullopt),
      t(transcript_in ? DeviceTranscript(g, "transcript", transcript_in->all()) : DeviceTranscript(g, "transcript")),
      context{.g = g,
              .t = t,
              .ntt = ntt,
              .pk = pk,
              .airs = airs,
              .shape = shape,
              .commits = commits,
              .layout = layout,
              .regions = regions,
              .kernels = kernels} {}

}  // namespace vkstark
