#include "stages/pcs/stacked.hpp"

#include <fmt/format.h>

#include "kernels/basic.hpp"
#include "kernels/stacking.hpp"

namespace vkstark {

MatrixView StackedCommitment::codeword_matrix() const {
  const uint64_t n = uint64_t(1) << log_codeword();
  return {codeword.all(), layout.stacked_width(), log_codeword(), 1, n};
}

namespace {
StackedLayout layout_of(std::span<const TraceView> traces, const SystemParams& params) {
  std::vector<MatrixShape> shapes;
  for (const TraceView& t : traces) {
    if (t.data.count != (uint64_t(t.width) << t.log_height))
      throw InputError(fmt::format("trace {}: {} values given for {} columns of 2^{} rows", shapes.size(), t.data.count,
                                   t.width, t.log_height));
    shapes.push_back({t.width, t.log_height});
  }
  return StackedLayout(std::move(shapes), params.l_skip, params.n_stack);
}
}  // namespace

StackedCommitment stacked_commit(Graph& g, Ntt& ntt, const std::string& name, std::span<const TraceView> traces,
                                 const SystemParams& params) {
  auto span = g.span("stacked_commit");
  StackedLayout layout = layout_of(traces, params);
  const uint32_t width = layout.stacked_width(), l = params.l_skip, m = layout.log_stacked_height();
  const uint32_t log_cw = m + params.log_blowup;
  if (width == 0) throw InputError(fmt::format("commitment '{}' has no columns", name));
  if (log_cw > ntt.max_log_n())
    throw InputError(
        fmt::format("commitment '{}': codeword 2^{} exceeds the NTT size 2^{}", name, log_cw, ntt.max_log_n()));
  const uint64_t h = uint64_t(1) << m, n = uint64_t(1) << log_cw;
  Buffer<Fp> message = g.transient<Fp>(name + ".message", width * h);
  Buffer<Fp> codeword = g.transient<Fp>(name + ".codeword", width * n);
  {
    auto rs = g.span("rs_code_matrix");
    // Stacked matrix (zeros where no trace lands), then per 2^l chunk its RS message, in place.
    g.dispatch<FillU32>(name + ".zero", {.out = message.all().bitcast<uint32_t>(), .value = 0});
    for (uint32_t i = 0; i < traces.size(); ++i) {
      const TraceView& t = traces[i];
      if (t.width == 0) continue;
      const uint64_t start = layout.global_start(i);
      g.dispatch<StackColumns>(fmt::format("{}.stack{}", name, i),
                               {.src = t.data,
                                .dst = message,
                                .log_slice = std::max(t.log_height, l),
                                .log_stride = l > t.log_height ? l - t.log_height : 0,
                                .log_stacked_height = m,
                                .start_col = uint32_t(start >> m),
                                .start_row = uint32_t(start & (h - 1)),
                                .dst_col_stride = uint32_t(h)});
    }
    add_rs_message(g, message, l, h, h, width, name + ".rs_message");
    ntt.forward(message, m, h, codeword, log_cw, n, width, name + ".encode");
  }
  StackedCommitment c{std::move(layout), message, codeword, {}, params.log_blowup};
  {
    auto mt = g.span("merkle_tree");
    c.tree = build_merkle_tree(g, name + ".tree", c.codeword_matrix(), params.whir.k);
  }
  return c;
}

}  // namespace vkstark
