// Chrome trace sink (Trace Event Format; opens in Perfetto and chrome://tracing): one complete
// event per span on a "host" track and, where measured, on a "device" track; several runs follow
// each other on the same tracks.
#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <span>
#include <string>

#include "runtime/json.hpp"
#include "runtime/trace.hpp"

namespace vkstark {

namespace {

// The events of one run's spans, shifted by offset_ms; returns where its last span ends.
double write_spans(const Trace& t, double offset_ms, std::ostream& os) {
  double end_ms = offset_ms;
  for (const TraceSpan& s : t.spans) {
    std::string args = fmt::format("{{\"path\": {}, \"dispatches\": {}, \"barriers\": {}, \"submissions\": {}}}",
                                   json_string(s.path), s.dispatches, s.barriers, s.submissions);
    const double host_start = offset_ms + s.host_start_ms;
    os << fmt::format(
        ",\n  {{\"name\": {}, \"cat\": \"host\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": {}, \"dur\": {}, "
        "\"args\": {}}}",
        json_string(s.name), json_number(host_start * 1000), json_number(s.host_ms * 1000), args);
    end_ms = std::max(end_ms, host_start + s.host_ms);
    if (s.device_ms >= 0) {
      const double device_start = offset_ms + s.device_start_ms;
      os << fmt::format(
          ",\n  {{\"name\": {}, \"cat\": \"device\", \"ph\": \"X\", \"pid\": 1, \"tid\": 2, \"ts\": {}, \"dur\": {}, "
          "\"args\": {}}}",
          json_string(s.name), json_number(device_start * 1000), json_number(s.device_ms * 1000), args);
      end_ms = std::max(end_ms, device_start + s.device_ms);
    }
  }
  return end_ms;
}

}  // namespace

void write_chrome_trace(const Trace& t, std::ostream& os) { write_chrome_trace(std::span<const Trace>(&t, 1), os); }

void write_chrome_trace(std::span<const Trace> runs, std::ostream& os) {
  const std::string executor = runs.empty() ? "" : runs[0].executor;
  const std::string device = runs.empty() ? "" : runs[0].device;
  os << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  os << fmt::format(
      "  {{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {{\"name\": {}}}}},\n"
      "  {{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"args\": {{\"name\": \"host\"}}}},\n"
      "  {{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 2, \"args\": {{\"name\": {}}}}}",
      json_string("vkstark " + executor), json_string("device: " + device));
  // Each run starts a tenth of the previous one's length after it ends, so that runs stay apart.
  double offset_ms = 0;
  for (const Trace& t : runs) {
    const double end_ms = write_spans(t, offset_ms, os);
    offset_ms = end_ms + std::max(1e-3, (end_ms - offset_ms) / 10);
  }
  os << "\n]}\n";
}

}  // namespace vkstark
