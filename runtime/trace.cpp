#include "runtime/trace.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#include "runtime/error.hpp"
#include "runtime/executor.hpp"
#include "runtime/file.hpp"

namespace vkstark {

void Trace::begin_run(const Plan& plan, std::string executor_name, std::string device_name) {
  executor = std::move(executor_name);
  device = std::move(device_name);
  ++runs;
  upload_device_ms = 0;
  download_ms = 0;
  memory = memory_breakdown(plan);
  if (profile_tasks && tasks.size() != plan.tasks.size()) {
    tasks.clear();
    for (const Task& t : plan.tasks)
      tasks.push_back(
          {t.name, t.kind == TaskKind::Host ? std::string("host") : std::string(t.kernel->name), t.span, 0});
  }
  if (spans.size() == plan.spans.size()) return;  // same plan shape: accumulate into the same spans
  spans.clear();
  for (const SpanDesc& s : plan.spans) {
    TraceSpan t;
    t.name = s.parent < 0 ? "run" : s.name;
    t.path = s.parent < 0 ? "run" : s.path;
    t.parent = s.parent;
    spans.push_back(std::move(t));
  }
}

bool Trace::profile_from_environment() {
  const char* v = std::getenv("VKSTARK_PROFILE");
  return v && *v && std::string_view(v) != "0";
}

std::vector<uint32_t> Trace::span_chain(const Plan& plan, uint32_t task) const {
  std::vector<uint32_t> chain;
  for (int32_t s = static_cast<int32_t>(plan.tasks[task].span); s >= 0; s = plan.spans[s].parent)
    chain.push_back(static_cast<uint32_t>(s));
  return chain;
}

namespace {
// The whole text first, then the file replaced at once (runtime/file.hpp).
template <class F>
void write_file(const std::string& path, F&& write) {
  std::ostringstream text;
  write(text);
  try {
    replace_file(path, text.view());
  } catch (const std::runtime_error& e) {
    throw InputError(e.what());
  }
}
}  // namespace

void write_json_file(const Trace& trace, const std::string& path) {
  write_file(path, [&](std::ostream& os) { write_json(trace, os); });
}
void write_chrome_trace_file(const Trace& trace, const std::string& path) {
  write_file(path, [&](std::ostream& os) { write_chrome_trace(trace, os); });
}
void write_chrome_trace_file(std::span<const Trace> runs, const std::string& path) {
  write_file(path, [&](std::ostream& os) { write_chrome_trace(runs, os); });
}

void check_persistent_declaration(const BufferDesc& desc, TypeTag type, uint64_t count) {
  if (desc.type != type || desc.count != count)
    throw GraphError(
        fmt::format("Persistent buffer '{}' already exists on this executor as {} x {}; this plan declares {} x {}",
                    desc.name, count, type.name, desc.count, desc.type.name));
}

void PreparedPlan::check_range_transfer(GraphId graph, BufferId id, TypeTag type, uint64_t offset,
                                        uint64_t count) const {
  check_transfer(graph, id, type, count, true, /*range=*/true);
  const BufferDesc& b = plan_.buffers[id];
  if (b.lifetime != Lifetime::Input || !b.writable)
    throw InputError(fmt::format("upload to elements [{}, {}) of buffer '{}': ranges go to writable Inputs only",
                                 offset, offset + count, b.name));
  if (offset > b.count || count > b.count - offset)
    throw InputError(fmt::format("upload to elements [{}, {}) of buffer '{}', which has {}", offset, offset + count,
                                 b.name, b.count));
}

void PreparedPlan::check_transfer(GraphId graph, BufferId id, TypeTag type, uint64_t count, bool up, bool range) const {
  if (graph != plan_.graph)
    throw InputError(
        fmt::format("{}: the buffer handle belongs to another graph than the one this plan was compiled from",
                    up ? "upload" : "download"));
  if (id >= plan_.buffers.size())
    throw InputError(fmt::format("{}: the buffer is not part of this plan", up ? "upload" : "download"));
  const BufferDesc& b = plan_.buffers[id];
  if (b.type != type)
    throw InputError(fmt::format("{} of buffer '{}': it holds {}, not {}", up ? "upload" : "download", b.name,
                                 b.type.name, type.name));
  if (up) {
    if (b.lifetime != Lifetime::Input && b.lifetime != Lifetime::Persistent)
      throw InputError(
          fmt::format("upload to buffer '{}': only Input and Persistent buffers take uploads, it is {}{}", b.name,
                      to_string(b.lifetime),
                      b.lifetime == Lifetime::Constant ? " (its contents are fixed when the graph is built)" : ""));
    if (count != b.count && !range)
      throw InputError(
          fmt::format("upload to buffer '{}': {} elements given, the buffer has {}", b.name, count, b.count));
  } else if (b.lifetime != Lifetime::Output && b.lifetime != Lifetime::Persistent) {
    throw InputError(
        fmt::format("download of buffer '{}': only Output and Persistent buffers can be downloaded, it is {}", b.name,
                    to_string(b.lifetime)));
  }
}

}  // namespace vkstark
