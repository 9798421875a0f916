// Summary sink: the span tree with host/device times and counts, then the counters.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <vector>

#include "runtime/trace.hpp"

namespace vkstark {

namespace {
std::string ms(double v) { return v < 0 ? std::string("-") : fmt::format("{:.3f}", v); }

void print_span(const Trace& t, int32_t id, int depth, std::ostream& os) {
  const TraceSpan& s = t.spans[id];
  std::string label = std::string(2 * depth, ' ') + s.name;
  os << fmt::format("  {:<44} {:>11} {:>11} {:>10} {:>9} {:>7}\n", label, ms(s.host_ms), ms(s.device_ms), s.dispatches,
                    s.barriers, s.submissions);
  for (size_t c = 0; c < t.spans.size(); ++c)
    if (t.spans[c].parent == id) print_span(t, static_cast<int32_t>(c), depth + 1, os);
}
}  // namespace

void write_summary(const Trace& t, std::ostream& os) {
  os << fmt::format("trace: executor {}, device {}, {} run(s), {:.3f} ms host\n", t.executor, t.device, t.runs,
                    t.total_host_ms);
  os << fmt::format("  {:<44} {:>11} {:>11} {:>10} {:>9} {:>7}\n", "span", "host ms", "device ms", "dispatches",
                    "barriers", "submits");
  if (!t.spans.empty()) print_span(t, 0, 0, os);
  if (!t.tasks.empty()) {  // profiled: the kernels that took the most device time
    std::map<std::string, std::pair<double, int>> by_kernel;
    double total = 0;
    for (const TraceTask& task : t.tasks) {
      auto& [ms, n] = by_kernel[task.kernel];
      ms += task.device_ms;
      ++n;
      total += task.device_ms;
    }
    std::vector<std::pair<std::string, std::pair<double, int>>> rows(by_kernel.begin(), by_kernel.end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    os << fmt::format("  {:<44} {:>11} {:>9} {:>7}\n", "kernel (profiled)", "device ms", "tasks", "share");
    for (size_t i = 0; i < rows.size() && i < 20; ++i)
      os << fmt::format("  {:<44} {:>11.3f} {:>9} {:>6.1f}%\n", rows[i].first, rows[i].second.first,
                        rows[i].second.second, total > 0 ? 100 * rows[i].second.first / total : 0.0);
    // And the single tasks that took the most (a kernel's total can hide one slow dispatch).
    std::vector<const TraceTask*> tasks;
    for (const TraceTask& task : t.tasks) tasks.push_back(&task);
    const size_t top = std::min<size_t>(tasks.size(), 15);
    std::partial_sort(tasks.begin(), tasks.begin() + top, tasks.end(),
                      [](const TraceTask* a, const TraceTask* b) { return a->device_ms > b->device_ms; });
    os << fmt::format("  {:<44} {:>11} {:>9}\n", "task (profiled)", "device ms", "kernel");
    for (size_t i = 0; i < top; ++i)
      os << fmt::format("  {:<44} {:>11.3f} {}\n", tasks[i]->name, tasks[i]->device_ms, tasks[i]->kernel);
  }
  const TraceCounters& c = t.counters;
  os << fmt::format(
      "  counters: dispatches {}, barriers {}, submissions {}, host syncs {}, host tasks {}, bytes up {}, bytes down "
      "{}, peak device bytes {}\n",
      c.dispatches, c.barriers, c.submissions, c.host_syncs, c.host_tasks, c.bytes_up, c.bytes_down,
      c.peak_device_bytes);
  if (!t.memory.empty()) os << "  memory (plan): " << format_memory_breakdown(t.memory) << "\n";
}

}  // namespace vkstark
