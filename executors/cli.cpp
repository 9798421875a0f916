#include "executors/cli.hpp"

#include <fmt/format.h>

#include <cstring>
#include <string_view>

#include "runtime/error.hpp"

namespace vkstark {

bool parse_common_arg(int argc, char** argv, int& i, CommonArgs& out) {
  std::string_view arg = argv[i];
  struct Opt {
    std::string_view name;
    std::string* dest;
  } opts[] = {{"--executor", &out.executor}, {"--trace", &out.trace_file}, {"--json", &out.json_file}};
  for (const Opt& o : opts) {
    if (arg == o.name) {
      if (i + 1 >= argc) throw InputError(fmt::format("{} needs a value", o.name));
      *o.dest = argv[++i];
      return true;
    }
    if (arg.size() > o.name.size() && arg.substr(0, o.name.size()) == o.name && arg[o.name.size()] == '=') {
      *o.dest = std::string(arg.substr(o.name.size() + 1));
      return true;
    }
  }
  return false;
}

const char* common_args_help() {
  return "  --executor cpu|vulkan|auto  executor to run on (default: $VKSTARK_EXECUTOR, else auto)\n"
         "  --trace FILE                write a Chrome trace (open in Perfetto / chrome://tracing)\n"
         "  --json FILE                 write results as JSON\n";
}

}  // namespace vkstark
