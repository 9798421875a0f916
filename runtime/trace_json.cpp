// JSON sink: {"executor", "device", "runs", "host_ms", "counters": {...}, "spans": [{...}]}.
#include <fmt/format.h>

#include <ostream>

#include "runtime/json.hpp"
#include "runtime/trace.hpp"

namespace vkstark {

void write_json(const Trace& t, std::ostream& os) {
  const TraceCounters& c = t.counters;
  os << "{\n";
  os << fmt::format(
      "  \"executor\": {},\n  \"device\": {},\n  \"runs\": {},\n  \"host_ms\": {},\n  \"submit_wait_ms\": {},\n",
      json_string(t.executor), json_string(t.device), t.runs, json_number(t.total_host_ms),
      json_number(t.submit_wait_ms));
  os << fmt::format(
      "  \"counters\": {{\"dispatches\": {}, \"barriers\": {}, \"submissions\": {}, \"host_syncs\": {}, "
      "\"host_tasks\": "
      "{}, \"bytes_up\": {}, \"bytes_down\": {}, \"peak_device_bytes\": {}}},\n",
      c.dispatches, c.barriers, c.submissions, c.host_syncs, c.host_tasks, c.bytes_up, c.bytes_down,
      c.peak_device_bytes);
  os << "  \"memory\": [";
  for (size_t i = 0; i < t.memory.size(); ++i)
    os << fmt::format("{}{{\"group\": {}, \"bytes\": {}}}", i ? ", " : "", json_string(t.memory[i].group),
                      t.memory[i].bytes);
  os << "],\n";
  os << "  \"spans\": [";
  for (size_t i = 0; i < t.spans.size(); ++i) {
    const TraceSpan& s = t.spans[i];
    os << (i ? ",\n    " : "\n    ");
    os << fmt::format(
        "{{\"name\": {}, \"path\": {}, \"host_ms\": {}, \"device_ms\": {}, \"dispatches\": {}, \"barriers\": {}, "
        "\"submissions\": {}}}",
        json_string(s.name), json_string(s.path), json_number(s.host_ms),
        s.device_ms < 0 ? "null" : json_number(s.device_ms), s.dispatches, s.barriers, s.submissions);
  }
  os << "\n  ]";
  if (!t.tasks.empty()) {
    os << ",\n  \"tasks\": [";
    for (size_t i = 0; i < t.tasks.size(); ++i)
      os << fmt::format("{}\n    {{\"name\": {}, \"kernel\": {}, \"span\": {}, \"device_ms\": {}}}", i ? "," : "",
                        json_string(t.tasks[i].name), json_string(t.tasks[i].kernel),
                        json_string(t.spans[t.tasks[i].span].path), json_number(t.tasks[i].device_ms));
    os << "\n  ]";
  }
  os << "\n}\n";
}

}  // namespace vkstark
