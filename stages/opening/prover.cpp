// The prover half of opening.hpp: the graph of a PCS proof and the reading of its proof buffer.
// The host half (byte codec, verifier) is opening.cpp, which needs no runtime: the fuzz targets
// (fuzz/) build it alone.
#include "stages/opening/opening.hpp"

#include <fmt/format.h>

#include <numeric>

#include "kernels/basic.hpp"
#include "kernels/mle.hpp"
#include "kernels/whir.hpp"
#include "stages/common/reduce.hpp"

namespace vkstark {

namespace {
// openings[c] = MLE of the commitment's message column c at u_cube, for every column.
void add_column_openings(Graph& g, const StackedCommitment& c, View<Fp4> eq, View<Fp4> out, const std::string& name) {
  const uint64_t rows = uint64_t(1) << c.log_message();
  for (uint32_t t = 0; t < c.tiles(); ++t) {
    const uint32_t width = c.tile_width(t);
    const std::string tile = c.tiles() == 1 ? name : fmt::format("{}.{}", name, t);
    const uint32_t parts = partial_count(rows * width) / std::max<uint32_t>(1, width) + 1;
    View<Fp4> partials = g.transient<Fp4>(tile + ".partials", uint64_t(parts) * width).all();
    g.dispatch<MleEvalColumnsPartials>(
        tile,
        {.matrix = c.message[t], .eq = eq, .partials = partials, .rows = uint32_t(rows), .col_stride = uint32_t(rows)});
    add_sum_reduce(g, tile, partials, parts, width, out.slice(c.tile_first(t), width));
  }
}
}  // namespace

PcsProofGraph build_pcs_proof(Graph& g, Ntt& ntt, const std::vector<std::vector<TraceView>>& commitments,
                              const SystemParams& params) {
  params.validate();
  if (commitments.empty()) throw InputError("a PCS proof needs at least one commitment");
  PcsProofGraph pg;
  std::vector<uint32_t> widths;
  for (const auto& traces : commitments) {
    std::vector<MatrixShape> shapes;
    for (const TraceView& t : traces) shapes.push_back({t.width, t.log_height});
    widths.push_back(StackedLayout(shapes, params.l_skip, params.n_stack).stacked_width());
  }
  pg.shape = WhirShape::from(params, widths);
  if (uint64_t total = std::accumulate(widths.begin(), widths.end(), uint64_t(0)); total > params.w_stack)
    throw InputError(fmt::format("PCS proof: total stacked width {} exceeds w_stack = {}", total, params.w_stack));
  for (size_t c = 0; c < commitments.size(); ++c)
    pg.roots.push_back(pg.layout.add<Digest>(fmt::format("root.{}", c), 1));
  pg.point = pg.layout.add<Fp4>("point", 1 + params.n_stack);
  pg.openings = pg.layout.add<Fp4>("openings", pg.shape.total_width());
  pg.whir = reserve_whir_regions(pg.layout, pg.shape);
  pg.layout.create_buffer(g);

  DeviceTranscript t(g, "transcript");
  {
    auto span = g.span("prover.main_trace_commit");
    for (size_t c = 0; c < commitments.size(); ++c)
      pg.commitments.push_back(commit_stacked(g, ntt, fmt::format("commit{}", c), commitments[c], params));
  }
  auto openings_span = g.span("prover.openings");
  // observe_commit(root) for each commitment (there is one at least), then u = sample_ext(): the
  // last observe and the sample in one dispatch.
  View<Fp4> u = pg.layout.view(pg.point);
  for (size_t c = 0; c < commitments.size(); ++c) {
    View<Digest> root = pg.layout.view(pg.roots[c]);
    g.dispatch<CopyU32>(fmt::format("root{}", c),
                        {.src = pg.commitments[c].root().bitcast<uint32_t>(), .dst = root.bitcast<uint32_t>()});
    if (c + 1 < commitments.size())
      t.observe_commit(root);
    else
      t.observe_sample_ext(root, u);
  }
  const uint32_t m = params.log_stacked_height();
  View<Fp4> cube = g.transient<Fp4>("u_cube", m).all();
  g.dispatch<UCube>("u_cube", {.u = u, .cube = cube, .l_skip = params.l_skip});
  {
    auto span = g.span("stacking_openings");
    View<Fp4> eq = g.transient<Fp4>("eq_u", uint64_t(1) << m).all();
    g.dispatch<EqTable>("eq_u", {.u = cube, .out = eq, .m = m});
    View<Fp4> openings = pg.layout.view(pg.openings);
    uint64_t col = 0;
    for (size_t c = 0; c < commitments.size(); ++c) {
      const uint32_t width = pg.commitments[c].layout.stacked_width();
      add_column_openings(g, pg.commitments[c], eq, openings.slice(col, width), fmt::format("openings{}", c));
      col += width;
    }
    t.observe_ext(openings);
  }
  WhirOpening in;
  for (const StackedCommitment& c : pg.commitments) in.commitments.push_back(&c);
  in.u_cube = cube;
  whir_prove(g, ntt, t, pg.layout, pg.whir, pg.shape, params, in);
  return pg;
}

PcsMatrixProof build_pcs_matrix_proof(uint32_t width, uint32_t log_height, const SystemParams& params) {
  params.validate();
  PcsMatrixProof m;
  m.ntt_log_n = params.log_stacked_height() + params.log_blowup;
  Ntt ntt(m.graph, m.ntt_log_n);
  m.matrix = m.graph.input<Fp>("matrix", uint64_t(width) << log_height);
  m.proof = build_pcs_proof(m.graph, ntt, {{{m.matrix, width, log_height}}}, params);
  return m;
}

PcsProof PcsProofGraph::decode(std::span<const uint32_t> words) const {
  PcsProof p;
  for (const auto& r : roots) p.roots.push_back(layout.read(words, r)[0]);
  auto pt = layout.read(words, point);
  p.point.assign(pt.begin(), pt.end());
  auto op = layout.read(words, openings);
  p.openings.assign(op.begin(), op.end());
  p.whir = whir.decode(words);
  return p;
}

}  // namespace vkstark
