#include "fuzz/checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>

#include "product/batch/manifest.hpp"
#include "product/proof_file.hpp"
#include "product/proving_input.hpp"
#include "product/trace_file.hpp"
#include "runtime/kernel_abi.hpp"
#include "runtime/spirv_interface.hpp"
#include "stages/air/dag_air.hpp"
#include "stages/air/debug_check.hpp"
#include "stages/air/keygen.hpp"
#include "stages/encoding/codec.hpp"
#include "stages/proof/proof.hpp"
#include "stages/verifier.hpp"
#include "stages/whir/verify.hpp"

namespace vkstark::fuzz {

std::vector<FuzzShape> fuzz_shape_list() {
  using Traces = std::vector<std::vector<std::pair<uint32_t, uint32_t>>>;
  std::vector<FuzzShape> list;
  auto add = [&](std::string name, const SystemParams& params, Traces traces) {
    list.emplace_back();
    list.back().name = std::move(name);
    list.back().params = params;
    list.back().traces = std::move(traces);
  };
  // The shapes of pcs_decode_test: 4 WHIR rounds of k = 2 over two commitments, and one round.
  add("k2_four_rounds", test_system_params_small(2, 6, 2), {{{3, 8}, {2, 1}}, {{1, 7}}});
  add("k4_one_round", test_system_params_small(2, 3, 4), {{{2, 5}, {1, 3}}});
  // No univariate skip and k = 1: the most rounds per variable, three commitments.
  add("k1_no_skip", test_system_params_small(0, 5, 1), {{{2, 5}}, {{1, 3}}, {{1, 5}}});
  // The default small test params (k = 3), one commitment of traces of three heights.
  add("k3_default", default_test_params_small(), {{{3, 10}, {4, 6}, {1, 2}}});
  // The keccakf shape's params (100-bit security, k = 4, grinding) at a small stacked height.
  add("app100_k4", app_params_with_100_bits_security(14), {{{2, 14}}});
  return list;
}

namespace {

// The claim data fuzz_make_corpus wrote with the seeds, as canonical integers.
struct ClaimData {
  const char* name;
  std::vector<uint32_t> widths;
  std::vector<std::array<uint32_t, 8>> roots;
  std::vector<std::array<uint32_t, 4>> openings;
  uint64_t pcs_seed_hash, whir_seed_hash;
};
const std::vector<ClaimData>& claims() {
  static const std::vector<ClaimData> c = {
#include "fuzz/claims.inc"
  };
  return c;
}

[[noreturn]] void fail_setup(const std::string& why) {
  std::fprintf(stderr, "fuzz shapes: %s; regenerate with fuzz_make_corpus (README, Fuzzing)\n", why.c_str());
  std::abort();
}

std::vector<FuzzShape> with_claims() {
  std::vector<FuzzShape> shapes = fuzz_shape_list();
  if (claims().size() != shapes.size())
    fail_setup(fmt::format("claims.inc has {} claims for {} shapes", claims().size(), shapes.size()));
  for (size_t i = 0; i < shapes.size(); ++i) {
    const ClaimData& c = claims()[i];
    FuzzShape& s = shapes[i];
    if (s.name != c.name) fail_setup(fmt::format("claim {} is for '{}', the shape is '{}'", i, c.name, s.name));
    s.claim.widths = c.widths;
    for (const auto& r : c.roots) {
      Digest d;
      for (size_t j = 0; j < d.size(); ++j) d[j] = Fp::from_canonical(r[j]);
      s.claim.roots.push_back(d);
    }
    for (const auto& o : c.openings)
      s.claim.openings.push_back(
          {Fp::from_canonical(o[0]), Fp::from_canonical(o[1]), Fp::from_canonical(o[2]), Fp::from_canonical(o[3])});
    s.pcs_seed_hash = c.pcs_seed_hash;
    s.whir_seed_hash = c.whir_seed_hash;
  }
  return shapes;
}

// The PCS verifier's transcript state and WHIR statement before WHIR (the order of opening.hpp):
// observe each root, sample the point, observe the openings; u_cube from the point.
struct WhirStart {
  DuplexSponge transcript;
  WhirStatement statement;
};
WhirStart whir_start(const FuzzShape& s) {
  WhirStart w;
  for (const Digest& r : s.claim.roots) w.transcript.observe_commit(r);
  std::vector<Fp4> point;
  for (uint32_t i = 0; i < 1 + s.params.n_stack; ++i) point.push_back(w.transcript.sample_ext());
  for (const Fp4& v : s.claim.openings) w.transcript.observe_ext(v);
  std::vector<Fp4> cube;
  Fp4 x = point[0];
  for (uint32_t i = 0; i < s.params.l_skip; ++i, x = x.square()) cube.push_back(x);
  cube.insert(cube.end(), point.begin() + 1, point.end());
  w.statement = {s.claim.roots, s.claim.widths, std::move(cube), s.claim.openings};
  return w;
}
const std::vector<WhirStart>& whir_starts() {
  static const std::vector<WhirStart> starts = [] {
    std::vector<WhirStart> v;
    for (const FuzzShape& s : fuzz_shapes()) v.push_back(whir_start(s));
    return v;
  }();
  return starts;
}

bool same(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// The phases whose checks can reject what a verifier entry point was given.
using Phases = std::initializer_list<RejectPhase>;
// The STARK verifier's own phases (verify on a decoded proof).
constexpr Phases kStarkPhases = {RejectPhase::Proof, RejectPhase::Gkr, RejectPhase::BatchConstraint,
                                 RejectPhase::StackedReduction, RejectPhase::Whir};
// verify_pcs_proof on a decoded proof: the claim's checks, then WHIR.
constexpr Phases kPcsPhases = {RejectPhase::Pcs, RejectPhase::Whir};

// A verifier's result on `bytes`: accepted only for the seed, the seed never rejected; a rejection
// has a reason and a code of one of `phases`, and the decoder's own code where `decode_error` (the
// bytes did not decode with the verifier's shape: the verifier must say so, with that code).
void check_verdict(FuzzOutcome& out, const VerifyResult& v, bool is_seed, const std::string& what, Phases phases,
                   std::optional<DecodeReject> decode_error = std::nullopt) {
  if (!v.ok) out.rejected = v.code;
  if (v.ok) {
    out.accepted = true;
    if (!is_seed) out.violation = what + " accepted bytes other than the seed proof of the claim";
  } else if (v.reason.empty()) {
    out.violation = what + " rejected without a reason";
  } else if (v.code == RejectCode()) {
    out.violation = what + " rejected without a code: " + v.reason;
  } else if (decode_error && v.code != *decode_error) {
    out.violation = fmt::format("{} rejected bytes its decoder rejects ({}) with {}: {}", what,
                                to_string(RejectCode(*decode_error)), to_string(v.code), v.reason);
  } else if (!decode_error && std::find(phases.begin(), phases.end(), v.code.phase) == phases.end()) {
    out.violation =
        fmt::format("{} rejected with {}, a code of none of the phases it runs: {}", what, to_string(v.code), v.reason);
  } else if (is_seed) {
    out.violation = what + " rejected the seed proof (stale corpus?): " + v.reason;
  }
}

}  // namespace

const std::vector<FuzzShape>& fuzz_shapes() {
  static const std::vector<FuzzShape> shapes = with_claims();
  return shapes;
}

uint64_t fuzz_hash(std::span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

FuzzOutcome check_pcs_proof_input(std::span<const uint8_t> input) {
  FuzzOutcome out;
  if (input.empty()) return out;
  const FuzzShape& s = fuzz_shapes()[input[0] % fuzz_shapes().size()];
  const std::span<const uint8_t> bytes = input.subspan(1);
  const bool is_seed = fuzz_hash(bytes) == s.pcs_seed_hash;

  std::optional<PcsProof> any;  // the shape-free decoder's result
  try {
    any = decode_pcs_proof(bytes);
  } catch (const DecodeError&) {
  }
  if (any && !same(encode(*any), bytes)) {
    out.violation = "decode_pcs_proof (no shape) accepted a non-canonical encoding";
    return out;
  }
  std::optional<PcsProof> shaped;
  std::optional<DecodeReject> shaped_error;
  try {
    shaped = decode_pcs_proof(bytes, s.params, s.claim.widths);
  } catch (const DecodeError& e) {
    shaped_error = e.code();
  }
  if (shaped) {
    if (!same(encode(*shaped), bytes)) out.violation = "decode_pcs_proof (shape) accepted a non-canonical encoding";
    if (!any) out.violation = "decode_pcs_proof accepted with the shape what it rejects without";
    if (any && *any != *shaped) out.violation = "decode_pcs_proof decodes differently with the shape";
    if (!out.violation.empty()) return out;
  }
  // A proof of another shape through verify_pcs_proof (one of this shape is verified below).
  if (any && !shaped) {
    check_verdict(out, verify_pcs_proof(s.claim, *any, s.params), is_seed, "verify_pcs_proof", kPcsPhases);
    if (!out.violation.empty()) return out;
  }
  const VerifyResult v = verify_pcs_proof_bytes(s.claim, bytes, s.params);
  check_verdict(out, v, is_seed, "verify_pcs_proof_bytes", kPcsPhases, shaped_error);
  if (v.ok && !shaped) out.violation = "verify_pcs_proof_bytes accepted bytes its decoder rejects";
  return out;
}

FuzzOutcome check_whir_proof_input(std::span<const uint8_t> input) {
  FuzzOutcome out;
  if (input.empty()) return out;
  const size_t index = input[0] % fuzz_shapes().size();
  const FuzzShape& s = fuzz_shapes()[index];
  const std::span<const uint8_t> bytes = input.subspan(1);
  const bool is_seed = fuzz_hash(bytes) == s.whir_seed_hash;

  // Each decoder reads a prefix of the bytes; that prefix must be the encoding of its result.
  auto decode = [&](const WhirShape* shape, const char* what) -> std::optional<WhirProof> {
    ByteReader r(bytes);
    std::optional<WhirProof> p;
    try {
      p = decode_whir_proof(r, shape);
    } catch (const DecodeError&) {
      return std::nullopt;
    }
    std::vector<uint8_t> again;
    encode(*p, again);
    if (!same(again, bytes.first(r.pos())))
      out.violation = fmt::format("decode_whir_proof ({}) accepted a non-canonical encoding", what);
    if (r.remaining() != 0) return std::nullopt;  // trailing bytes: a PCS proof would reject them
    return p;
  };
  const WhirShape shape = WhirShape::from(s.params, s.claim.widths);
  const std::optional<WhirProof> any = decode(nullptr, "no shape");
  const std::optional<WhirProof> shaped = decode(&shape, "shape");
  if (!out.violation.empty()) return out;
  if (shaped && !any) out.violation = "decode_whir_proof accepted with the shape what it rejects without";
  if (shaped && any && *shaped != *any) out.violation = "decode_whir_proof decodes differently with the shape";
  if (!out.violation.empty()) return out;
  if (any) {
    DuplexSponge t = whir_starts()[index].transcript;
    check_verdict(out, whir_verify(t, *any, s.params, whir_starts()[index].statement), is_seed, "whir_verify",
                  {RejectPhase::Whir});
  } else if (is_seed) {
    out.violation = "decode_whir_proof rejected the seed proof (stale corpus?)";
  }
  return out;
}

namespace {
struct StarkFixtureData {
  const char* name;
  std::vector<uint8_t> vk_file;
  uint64_t seed_hash;
};
const std::vector<StarkFixtureData>& stark_fixture_data() {
  static const std::vector<StarkFixtureData> d = {
#include "fuzz/stark_fixtures.inc"
  };
  return d;
}
}  // namespace

const std::vector<StarkFuzzFixture>& stark_fuzz_fixtures() {
  static const std::vector<StarkFuzzFixture> fixtures = [] {
    std::vector<StarkFuzzFixture> v;
    for (const StarkFixtureData& d : stark_fixture_data()) {
      try {
        v.push_back({d.name, decode_vk_file(d.vk_file), d.seed_hash});
      } catch (const std::exception& e) {
        fail_setup(fmt::format("stark fixture '{}': its vk does not decode: {}", d.name, e.what()));
      }
    }
    if (v.empty()) fail_setup("fuzz/stark_fixtures.inc has no fixture");
    return v;
  }();
  return fixtures;
}

FuzzOutcome check_stark_proof_input(std::span<const uint8_t> input) {
  FuzzOutcome out;
  if (input.empty()) return out;
  const StarkFuzzFixture& f = stark_fuzz_fixtures()[input[0] % stark_fuzz_fixtures().size()];
  const std::span<const uint8_t> bytes = input.subspan(1);
  const bool is_seed = fuzz_hash(bytes) == f.seed_hash;
  std::optional<Proof> any, shaped;
  try {
    any = decode_proof(bytes);
  } catch (const DecodeError&) {
  }
  if (any && !same(encode(*any), bytes)) {
    out.violation = "decode_proof (no vk) accepted a non-canonical encoding";
    return out;
  }
  std::optional<DecodeReject> shaped_error;
  try {
    shaped = decode_proof(bytes, f.vk);
  } catch (const DecodeError& e) {
    shaped_error = e.code();
  }
  if (shaped) {
    if (!any) out.violation = "decode_proof accepted with the vk what it rejects without";
    if (any && *any != *shaped) out.violation = "decode_proof decodes differently with the vk";
    if (!out.violation.empty()) return out;
  }
  if (any && !shaped) {  // a proof of another shape through the verifier itself
    check_verdict(out, verify(f.vk, *any), is_seed, "verify", kStarkPhases);
    if (!out.violation.empty()) return out;
  }
  const VerifyResult v = verify_bytes(f.vk, bytes);
  check_verdict(out, v, is_seed, "verify_bytes", kStarkPhases, shaped_error);
  if (v.ok && !shaped) out.violation = "verify_bytes accepted bytes its decoder rejects";
  return out;
}

FuzzOutcome check_vk_file_input(std::span<const uint8_t> input) {
  FuzzOutcome out;
  if (input.empty()) return out;
  const size_t index = input[0] % stark_fixture_data().size();
  const std::span<const uint8_t> bytes = input.subspan(1);
  const bool is_seed = same(bytes, stark_fixture_data()[index].vk_file);
  std::optional<MultiStarkVerifyingKey> vk;
  try {
    vk = decode_vk_file(bytes);
  } catch (const DecodeError&) {
  }
  if (!vk) {
    if (is_seed) out.violation = "decode_vk_file rejected a seed verifying key (stale corpus?)";
    return out;
  }
  if (!same(encode_vk_file(*vk), bytes)) {
    out.violation = "decode_vk_file accepted a non-canonical encoding";
    return out;
  }
  if (vk->pre_hash != vk_pre_hash(encode_vk_postcard(*vk))) {
    out.violation = "decode_vk_file's pre-hash is not the hash of the key's postcard bytes";
    return out;
  }
  out.accepted = is_seed;
  return out;
}

FuzzOutcome check_proof_file_input(std::span<const uint8_t> input) {
  FuzzOutcome out;
  if (input.empty()) return out;
  const StarkFuzzFixture& f = stark_fuzz_fixtures()[input[0] % stark_fuzz_fixtures().size()];
  const std::span<const uint8_t> bytes = input.subspan(1);
  std::optional<ProofFile> file;
  try {
    file = decode_proof_file(bytes);
  } catch (const DecodeError&) {
  }
  if (!file) return out;
  if (!same(encode_proof_file(*file), bytes)) {
    out.violation = "decode_proof_file accepted a non-canonical encoding";
    return out;
  }
  const bool is_seed = file->vk == f.vk && fuzz_hash(file->proof) == f.seed_hash;
  std::optional<DecodeReject> decode_error;
  try {
    (void)decode_proof(file->proof, file->vk);
  } catch (const DecodeError& e) {
    decode_error = e.code();
  }
  check_verdict(out, verify_bytes(file->vk, file->proof), is_seed, "verify_bytes (the file's key)", kStarkPhases,
                decode_error);
  return out;
}

FuzzOutcome check_vk_air_input(std::span<const uint8_t> input) {
  FuzzOutcome out;
  if (input.empty()) return out;
  const std::span<const uint8_t> bytes = input.subspan(1);
  std::optional<MultiStarkVerifyingKey> vk;
  try {
    vk = decode_vk_file(bytes);
  } catch (const DecodeError&) {
  }
  if (!vk) return out;
  out.accepted = true;
  const SystemParams& params = vk->params;
  // The traces of the debug check: 2^0 .. 2^3 rows (the selector byte), within the stacked height.
  const uint32_t log_rows = std::min<uint32_t>(input[0] % 4, params.log_stacked_height());
  const uint32_t rows = 1u << log_rows;
  std::vector<std::shared_ptr<const DagAir>> airs;
  for (size_t a = 0; a < vk->per_air.size(); ++a) {
    const StarkVerifyingKey& entry = vk->per_air[a];
    std::optional<TraceMatrix> pre;
    if (entry.params.width.preprocessed) pre = TraceMatrix(*entry.params.width.preprocessed, rows);
    try {
      auto air = std::make_shared<const DagAir>(fmt::format("air{}", a), entry, std::move(pre));
      // keygen of the data-built AIR: the checks pass, and the entry comes back (but for the
      // preprocessed commitment, which needs an executor).
      StarkVerifyingKey again = verifying_key_entry(keygen_air(air, params));
      again.preprocessed_data = entry.preprocessed_data;
      if (again != entry) {
        out.violation = fmt::format("AIR {}: keygen of the AIR built from the entry gives another entry", a);
        return out;
      }
      airs.push_back(std::move(air));
    } catch (const InputError& e) {
      out.violation = fmt::format("AIR {}: an entry the decoder accepts is refused as an AIR: {}", a, e.what());
      return out;
    }
  }
  // Every constraint and interaction evaluated on zero traces by the debug checker (its report
  // does not matter; it must neither crash nor refuse traces of the right shape).
  std::vector<SymbolicAir> symbolic;
  std::vector<std::vector<TraceMatrix>> parts(airs.size());
  std::vector<std::vector<Fp>> publics(airs.size());
  symbolic.reserve(airs.size());
  std::vector<DebugAirInput> inputs;
  for (size_t a = 0; a < airs.size(); ++a) {
    symbolic.push_back(symbolic_air(*airs[a]));
    const AirShape shape = airs[a]->shape();
    for (uint32_t w : shape.row_view_widths()) parts[a].emplace_back(w, rows);
    publics[a].assign(shape.num_public_values, Fp());
  }
  for (size_t a = 0; a < airs.size(); ++a) {
    DebugAirInput in{.air = &symbolic[a], .parts = {}, .public_values = publics[a]};
    for (const TraceMatrix& m : parts[a]) in.parts.push_back(&m);
    inputs.push_back(std::move(in));
  }
  try {
    (void)debug_check(inputs);
  } catch (const InputError& e) {
    out.violation = fmt::format("the debug checker refuses traces of the AIRs' shapes: {}", e.what());
  }
  return out;
}

FuzzOutcome check_batch_input(std::span<const uint8_t> input) {
  FuzzOutcome out;
  if (input.empty()) return out;
  const std::span<const uint8_t> bytes = input.subspan(1);
  if (input[0] % 3 == 2) {
    std::optional<ProvingInput> in;
    try {
      in = decode_proving_input(bytes);
    } catch (const DecodeError&) {
    }
    if (!in) return out;
    out.accepted = true;
    if (!same(encode_proving_input(*in), bytes))
      out.violation = "decode_proving_input accepted a non-canonical encoding";
    return out;
  }
  if (input[0] % 3 == 0) {
    std::optional<TraceFile> file;
    try {
      file = decode_trace_file(bytes);
    } catch (const DecodeError&) {
    }
    if (!file) return out;
    out.accepted = true;
    if (!same(encode_trace_file(*file), bytes)) {
      out.violation = "decode_trace_file accepted a non-canonical encoding";
      return out;
    }
    try {
      const AirWithTraces t = trace_file_air(*file);
      if (!(to_trace_file(t) == *file)) out.violation = "to_trace_file(trace_file_air(f)) is not f";
    } catch (const InputError&) {
    }
    return out;
  }
  std::vector<batch::Job> jobs;
  try {
    jobs = batch::parse_manifest(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "fuzz",
                                 "folder", batch::Job{});
  } catch (const InputError&) {
    return out;
  }
  out.accepted = true;
  std::set<std::string> names, outs;
  for (const batch::Job& j : jobs) {
    if (!names.insert(j.name).second || !outs.insert(j.out).second) out.violation = "a repeated name or out";
    if (j.out.empty()) out.violation = "a job without out";
    if (int(!j.air.empty()) + int(!j.trace_file.empty()) + int(!j.vk_file.empty()) != 1)
      out.violation = "a job with more or fewer than one of air, trace and vk";
    if (j.vk_file.empty() != j.input_file.empty()) out.violation = "a job with one of vk and input";
    if (!j.air.empty() && j.size == 0) out.violation = "a job of a shipped AIR without its size";
  }
  return out;
}

int run_fuzz_input(FuzzOutcome (*check)(std::span<const uint8_t>), const uint8_t* data, size_t size) {
  const FuzzOutcome o = check({data, size});
  if (!o.violation.empty()) {
    std::fprintf(stderr, "fuzz violation: %s\n", o.violation.c_str());
    std::abort();
  }
  return 0;
}

namespace {

// Three views (one an array of two) and a scalar, written out (clang cannot reflect an Args struct).
KernelAbi spirv_fuzz_abi() {
  const TypeTag word = type_tag<uint32_t>();
  return {{{"a", word, Access::Read, 0}, {"b", word, Access::Read, 2}, {"c", word, Access::Write, 0}}, {{"k", 1}}};
}

}  // namespace

FuzzOutcome check_spirv_input(std::span<const uint8_t> input) {
  FuzzOutcome out;
  if (input.empty()) return out;
  std::vector<uint32_t> words((input.size() - 1) / 4);
  for (size_t i = 0; i < words.size(); ++i)
    for (int b = 0; b < 4; ++b) words[i] |= uint32_t(input[1 + 4 * i + size_t(b)]) << (8 * b);
  const std::pair<uint32_t, uint32_t> spec[] = {{0, 1u << (input[0] % 9)}, {1, 32}, {2, 1}};
  const SpirvNeeds first = spirv_needs(words, spec), again = spirv_needs(words, spec);
  out.accepted = first.error.empty();
  if (first.shared_bytes != again.shared_bytes || first.storage_buffers != again.storage_buffers ||
      first.push_constant_bytes != again.push_constant_bytes || first.error != again.error)
    out.violation = "spirv_needs read the same words two ways";
  static const KernelAbi abi = spirv_fuzz_abi();
  (void)spirv_interface_mismatch(words, abi);
  (void)spirv_reads_num_workgroups(words);
  return out;
}

}  // namespace vkstark::fuzz
