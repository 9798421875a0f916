// Build tool: writes <out>/abi/<kernel>.glsl, the GLSL interface (bindings and push constants) of
// every compiled kernel, generated from its C++ Args (runtime/kernel_abi.hpp), and the named
// constants its body shares with C++ (K::constants), so that a kernel's interface is declared
// once. Each kernels/glsl/<kernel>.comp includes "abi/<kernel>.glsl".
//
//   generate_abi OUT_DIR NAME...     (NAME: the basenames of the .comp files)
//
// Fails (exit 1, naming it) on a kernel without a .comp, a .comp without a kernel, or an Args or
// constant the GLSL side cannot declare. Files are rewritten only when their text changes.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <span>
#include <string>

#include "kernels/registry.hpp"

using namespace vkstark;

namespace {

// The interface of K and the constants it shares with its GLSL body (K::constants, if any).
template <class K>
std::string declarations_of() {
  KernelAbi abi = kernel_abi<typename K::Args>();
  abi.validate(K::name);
  std::span<const KernelConstant> constants;
  if constexpr (requires { K::constants; }) constants = K::constants;
  return glsl_declarations(abi, K::name, constants);
}

std::map<std::string, std::string> declarations() {
  std::map<std::string, std::string> out;
#define VKSTARK_GENERATE(K) out.emplace(K::name, declarations_of<K>());
  VKSTARK_KERNELS(VKSTARK_GENERATE)
#undef VKSTARK_GENERATE
  return out;
}

void write_if_changed(const std::filesystem::path& path, const std::string& text) {
  {
    std::ifstream in(path, std::ios::binary);
    if (in && std::string(std::istreambuf_iterator<char>(in), {}) == text) return;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", path.string()));
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    fmt::print(stderr, "usage: generate_abi OUT_DIR NAME...\n");
    return 2;
  }
  const std::filesystem::path dir = std::filesystem::path(argv[1]) / "abi";
  std::filesystem::create_directories(dir);
  std::map<std::string, std::string> decls = declarations();
  std::set<std::string> bodies(argv + 2, argv + argc);
  int problems = 0;
  for (const std::string& name : bodies)
    if (!decls.count(name)) {
      fmt::print(stderr, "kernels/glsl/{}.comp: no kernel named '{}' in kernels/registry.hpp\n", name, name);
      ++problems;
    }
  for (const auto& [name, text] : decls) {
    if (!bodies.count(name)) {
      fmt::print(stderr, "kernel {} (kernels/registry.hpp) has no GLSL body: add kernels/glsl/{}.comp\n", name, name);
      ++problems;
    }
    write_if_changed(dir / (name + ".glsl"), text);
  }
  return problems ? 1 : 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "generate_abi: {}\n", e.what());
  return 1;
}
