// A batch of proof jobs (vkstark prove-batch): the manifest that lists them, or a folder of trace
// files. Hostile input: every error names the source, the line and the field.
//
// Manifest: UTF-8 text, one job per line (\n or \r\n, at most 4096 bytes, no NUL or other control
// character but tab); a token that starts with `#` starts a comment to the end of the line (a `#`
// inside a path is kept), blank lines are skipped. A line is the job's name, then `key=value` fields
// separated by spaces or tabs, each key at most once:
//
//   # name      what to prove                              where the proof goes
//   keccak-1    air=keccakf permutations=1024 seed=1        out=proofs/keccak-1.vkp
//   fib-small   air=fibonacci rows=1024 params=test         out=proofs/fib-small.vkp
//   user-7      trace=traces/user-7.vkt                     out=proofs/user-7.vkp
//   chip-set-3  vk=keys/zkvm.vk input=inputs/segment-3.vki  out=proofs/segment-3.vkp
//
// Keys: air (keccakf | fibonacci | interactions) with permutations (keccakf, [1, 65536], required)
// or rows (fibonacci, interactions: a power of two in [4, 2^24], required) and seed (keccakf, u32,
// default 1); or trace (a trace file, product/trace_file.hpp) instead of those; or vk (a vk file)
// with input (a proving input for it, product/proving_input.hpp): AIRs given as data, no AIR code;
// params (secure | test) and log_stacked_height ([8, kMaxLogStackedHeight]), defaulting to the
// command line's (not with vk: the key fixes the params); out (required). Numbers are whole
// decimal tokens (no sign, no "0x"). Relative paths are taken from the manifest's folder. Names are
// [A-Za-z0-9._-]{1,64} and unique; outs are unique (compared lexically normalised: "p/./x" is "p/x").
//
// Pure functions of their arguments (and, for the readers, the file system); thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vkstark::batch {

struct Job {
  uint32_t line = 0;              // 1-based manifest line (0: not from a manifest)
  std::string name;               // unique in the batch
  std::string air;                // "keccakf" | "fibonacci"; empty when trace_file is set
  uint32_t size = 0;              // keccakf: permutations; fibonacci: rows
  uint32_t seed = 1;              // keccakf
  std::string trace_file;         // a trace file instead of air/size/seed (path as resolved)
  std::string vk_file;            // a vk file, with input_file, instead of those (paths as resolved)
  std::string input_file;         // a proving input for vk_file
  std::string params = "secure";  // "secure" | "test"
  uint32_t log_stacked = 21;
  std::string out;  // the proof file to write (path as resolved)
  bool operator==(const Job&) const = default;
};

// The jobs of a manifest's text. `source` names it in errors ("jobs.txt"); `folder` is prepended to
// relative paths (empty: kept as written); `defaults` gives params and log_stacked. InputError
// naming "<source> line <n>: ..." for an unknown key, a repeated key, a bad or out-of-range number,
// a missing field, two of air, trace and vk given, vk without input or input without vk, params
// with vk, a duplicate name or out, more than kMaxJobs jobs; and
// "<source>: no jobs" for a manifest without one, or one over kMaxManifestBytes. Jobs keep Job's
// defaults but for params and log_stacked (from `defaults`); a trace or vk job has no air, size 0, seed 1.
inline constexpr size_t kMaxJobs = 1'000'000;
inline constexpr uint64_t kMaxManifestBytes = uint64_t(64) << 20;
std::vector<Job> parse_manifest(std::string_view text, std::string_view source, std::string_view folder,
                                const Job& defaults);
// Reads and parses a manifest file, its folder the file's parent (InputError naming the path when it
// cannot be read or is over kMaxManifestBytes; reads at most one byte past the bound).
// The text of a manifest file, and the folder its relative paths are taken from (read_manifest =
// parse_manifest of both; MPI ranks parse rank 0's text). InputError as read_manifest's.
std::string read_manifest_text(const std::string& path);
std::string manifest_folder(const std::string& path);
std::vector<Job> read_manifest(const std::string& path, const Job& defaults);
// One job per `*.vkt` file of `folder` (sorted by file name), named after the file's stem, its proof
// written to `out_folder`/<stem>.vkp; line 0, params and log_stacked from `defaults`. Only regular
// files (symbolic links to them included) count. InputError when the folder cannot be read, holds no
// trace file or more than kMaxJobs, or a stem is not a name (naming the file).
std::vector<Job> trace_folder_jobs(const std::string& folder, const std::string& out_folder, const Job& defaults);

}  // namespace vkstark::batch
