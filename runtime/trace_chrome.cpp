// Chrome trace sink (Trace Event Format; opens in Perfetto and chrome://tracing): one complete
// event per span on a "host" track and, where measured, on a "device" track.
#include <fmt/format.h>

#include <ostream>

#include "runtime/json.hpp"
#include "runtime/trace.hpp"

namespace vkstark {

void write_chrome_trace(const Trace& t, std::ostream& os) {
  os << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  os << fmt::format(
      "  {{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {{\"name\": {}}}}},\n"
      "  {{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"args\": {{\"name\": \"host\"}}}},\n"
      "  {{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 2, \"args\": {{\"name\": {}}}}}",
      json_string("vkstark " + t.executor), json_string("device: " + t.device));
  for (const TraceSpan& s : t.spans) {
    std::string args = fmt::format("{{\"path\": {}, \"dispatches\": {}, \"barriers\": {}, \"submissions\": {}}}",
                                   json_string(s.path), s.dispatches, s.barriers, s.submissions);
    os << fmt::format(
        ",\n  {{\"name\": {}, \"cat\": \"host\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": {}, \"dur\": {}, "
        "\"args\": {}}}",
        json_string(s.name), json_number(s.host_start_ms * 1000), json_number(s.host_ms * 1000), args);
    if (s.device_ms >= 0)
      os << fmt::format(
          ",\n  {{\"name\": {}, \"cat\": \"device\", \"ph\": \"X\", \"pid\": 1, \"tid\": 2, \"ts\": {}, \"dur\": {}, "
          "\"args\": {}}}",
          json_string(s.name), json_number(s.device_start_ms * 1000), json_number(s.device_ms * 1000), args);
  }
  os << "\n]}\n";
}

}  // namespace vkstark
