// The vkstark command's subcommands that live in files of their own (cli/vkstark.cpp dispatches).
#pragma once

namespace vkstark::cli {

// vkstark prove-batch (cli/prove_batch.cpp). argv[0] is "vkstark", argv[1] "prove-batch".
int prove_batch_command(int argc, char** argv);

}  // namespace vkstark::cli
