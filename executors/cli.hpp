// Command-line options every executable shares: --executor, --trace, --json, --help.
#pragma once

#include <string>

namespace vkstark {

struct CommonArgs {
  std::string executor;    // "" = VKSTARK_EXECUTOR or auto
  std::string trace_file;  // Chrome trace JSON (Perfetto)
  std::string json_file;   // result / trace JSON
};

// If argv[i] is one of the common options (--executor X, --executor=X, --trace F, --json F), stores
// it, advances i past its value and returns true. Throws InputError for a missing value.
bool parse_common_arg(int argc, char** argv, int& i, CommonArgs& out);

// Help text for the common options.
const char* common_args_help();

}  // namespace vkstark
