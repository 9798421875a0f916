#include "cli/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace vkstark::cli {

namespace {

std::string duration(double ms) {
  return ms < 1000 ? fmt::format("{:.1f} ms", ms) : fmt::format("{:.2f} s", ms / 1000);
}

// The terminal's columns (80 when it does not say).
size_t terminal_columns() {
  winsize w{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 80;
}

std::string bar(uint64_t done, uint64_t total) {
  constexpr uint64_t kWidth = 10;
  const uint64_t filled = total ? std::min(done, total) * kWidth / total : 0;
  return fmt::format("[{}{}]", std::string(filled, '#'), std::string(kWidth - filled, '.'));
}

double start_of(const TraceSpan& s) { return s.device_ms >= 0 ? s.device_start_ms : s.host_start_ms; }

}  // namespace

Progress::Progress(bool quiet) : enabled_(!quiet && isatty(STDERR_FILENO) == 1) { listener_.p = this; }

Progress::~Progress() { stop_status(); }

void Progress::done(std::string_view what, double ms) {
  if (!enabled_) return;
  fmt::print(stderr, "  {}: {}\n", what, duration(ms));
  std::fflush(stderr);
}

void Progress::Listener::progress(std::string_view what, uint64_t done, uint64_t total) noexcept {
  std::lock_guard lock(p->mutex_);
  Status& s = p->status_;
  try {
    if (s.work != what || s.work_total != total) {
      s.work.assign(what);
      s.work_done = 0;
      s.work_total = total;
    }
  } catch (...) {
    return;  // (out of memory: no line)
  }
  s.work_done = std::max(s.work_done, done);
}

void Progress::start_status(std::string_view what) {
  if (!enabled_) return;
  stop_status();  // one line at a time
  {
    std::lock_guard lock(mutex_);
    status_ = Status{};
    status_.step = what;
    status_.start = Clock::now();
    stop_ = false;
    drawn_ = false;
  }
  replaced_ = set_progress_listener(&listener_);
  ticker_ = std::thread([this] { tick(); });
}

void Progress::stop_status() {
  following_ = false;
  if (!ticker_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  ticker_.join();
  // The work that reported has returned (it ran inside the step).
  set_progress_listener(replaced_);
  replaced_ = nullptr;
  if (drawn_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
  }
}

void Progress::tick() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    std::string line;
    try {
      line = fmt::format("\r{}\033[K", status_line());
    } catch (...) {
      return;  // (out of memory: no more lines)
    }
    drawn_ = true;
    lock.unlock();
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    lock.lock();
    wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; });
  }
}

// "  <step>[ > <span path>][: <work>]  [bar] i/n  <elapsed>", as wide as the terminal at most (a
// line that wrapped could not be rewritten in place): when the span path does not fit, its middle
// goes, then the spans below max_depth, then the outer ones.
std::string Progress::status_line() const {
  const Status& s = status_;
  const std::string head = "  " + s.step + (s.work.empty() ? "" : ": " + s.work);
  std::string tail;
  if (s.tasks_total > 0)
    tail = fmt::format("  {} {}/{}", bar(s.tasks_done, s.tasks_total), s.tasks_done, s.tasks_total);
  else if (s.work_total > 0)
    tail = fmt::format("  {} {}/{}", bar(s.work_done, s.work_total), s.work_done, s.work_total);
  tail += fmt::format("  {:.1f} s", since(s.start) / 1000);

  const size_t width = terminal_columns() - 1;  // (a character in the last column may wrap)
  auto join = [](auto first, auto last) {
    std::string out;
    for (auto it = first; it != last; ++it) out += " > " + *it;
    return out;
  };
  const std::vector<std::string>& p = s.path;
  const auto capped = p.begin() + std::min(s.path_shallow, p.size());
  std::vector<std::string> paths{join(p.begin(), p.end())};
  if (p.size() > 2) paths.push_back(" > " + p.front() + " > ..." + join(p.end() - 1, p.end()));
  if (capped != p.end()) paths.push_back(join(p.begin(), capped));
  if (capped - p.begin() > 1) paths.push_back(" > ..." + join(capped - 1, capped));
  std::string line = head + paths.back() + tail;
  for (const std::string& path : paths)
    if (head.size() + path.size() + tail.size() <= width) {
      line = head + path + tail;
      break;
    }
  if (line.size() > width) line.resize(width);
  return line;
}

// The span's path below the run, outermost first; without the run's only child (the proof's span,
// named like the step that runs it) when there is a span below it. `shallow`: how many of them are
// at most max_depth_ deep.
std::vector<std::string> Progress::span_path(const Trace& trace, uint32_t span, size_t& shallow) const {
  std::vector<uint32_t> chain;
  for (int32_t s = static_cast<int32_t>(span); s > 0; s = trace.spans[s].parent) chain.push_back(uint32_t(s));
  const auto top =
      std::count_if(trace.spans.begin(), trace.spans.end(), [](const TraceSpan& s) { return s.parent == 0; });
  uint32_t depth = 1;
  if (top == 1 && chain.size() > 1) {
    chain.pop_back();
    ++depth;
  }
  std::vector<std::string> path;
  shallow = 0;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it, ++depth) {
    path.push_back(trace.spans[*it].name);
    if (depth <= max_depth_) ++shallow;
  }
  return path;
}

void Progress::follow_spans(Trace& trace, uint32_t max_depth) {
  if (!enabled_) return;
  max_depth_ = max_depth;
  trace.on_tasks_start = [this, &trace](uint32_t span, uint64_t done, uint64_t total) {
    size_t shallow = 0;
    std::vector<std::string> path = span_path(trace, span, shallow);
    std::lock_guard lock(mutex_);
    status_.path = std::move(path);
    status_.path_shallow = shallow;
    status_.tasks_done = done;
    status_.tasks_total = total;
  };
  start_status("prove");
  following_ = true;
}

void Progress::report_remaining_spans(Trace& trace) {
  if (!enabled_) return;
  if (following_) stop_status();
  trace.on_tasks_start = nullptr;
  const size_t n = trace.spans.size();
  std::vector<std::vector<uint32_t>> children(n);
  for (uint32_t s = 1; s < n; ++s)
    if (trace.spans[s].parent >= 0) children[trace.spans[s].parent].push_back(s);
  for (auto& c : children)
    std::stable_sort(c.begin(), c.end(),
                     [&](uint32_t a, uint32_t b) { return start_of(trace.spans[a]) < start_of(trace.spans[b]); });
  // Depth first from the run's span: parents before children, siblings in start order.
  std::vector<std::pair<uint32_t, uint32_t>> stack;  // (span, depth)
  if (n > 0) stack.emplace_back(0u, 0u);
  while (!stack.empty()) {
    const auto [s, d] = stack.back();
    stack.pop_back();
    const TraceSpan& sp = trace.spans[s];
    if (sp.device_ms < 0 && sp.host_ms <= 0) continue;  // not reached in this run
    if (d > 0)
      fmt::print(stderr, "  {:>{}}{}: {}\n", "", 2 * (d - 1), sp.name,
                 duration(sp.device_ms >= 0 ? sp.device_ms : sp.host_ms));
    if (d < max_depth_)
      for (auto it = children[s].rbegin(); it != children[s].rend(); ++it) stack.emplace_back(*it, d + 1);
  }
  std::fflush(stderr);
}

}  // namespace vkstark::cli
