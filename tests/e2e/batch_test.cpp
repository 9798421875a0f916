// Proof batches in one process (product/batch/batch.hpp): jobs dealt to several workers (the CPU
// executor and Vulkan, lavapipe in CI, with validation) with proofs in flight give the bytes of
// one-at-a-time proving; a device memory budget is kept (a proof that does not fit fails alone);
// a job with a bad trace, an unknown trace file or a wrong width fails alone with its reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <set>

#include "executors/executors.hpp"
#include "executors/vulkan/vulkan_executor.hpp"
#include "product/airs/fibonacci.hpp"
#include "product/batch/batch.hpp"
#include "product/proof_file.hpp"
#include "product/trace_file.hpp"
#include "runtime/error.hpp"
#include "stages/air/keygen.hpp"
#include "stages/proof/proof.hpp"
#include "stages/prover.hpp"

using namespace vkstark;
using namespace vkstark::batch;
using ::testing::HasSubstr;

namespace {

Job fib_job(std::string name, uint32_t rows) {
  Job j;
  j.name = std::move(name);
  j.air = "fibonacci";
  j.size = rows;
  j.params = "test";
  j.out = j.name + ".vkp";
  return j;
}

// The proof file of a job proved alone on the CPU executor, as `vkstark prove` would write it.
std::vector<uint8_t> serial_proof_file(const Job& job) {
  auto exec = make_executor("cpu");
  const JobAirs airs = make_job_airs(job);
  std::vector<std::shared_ptr<const Air>> list;
  ProofFile file;
  for (const auto& a : airs.airs) {
    list.push_back(a->air);
    file.air_names.push_back(a->air->name());
  }
  const ProvingKey pk = keygen(list, job_params(job), *exec);
  StarkProver prover(pk, *exec);
  file.vk = pk.vk;
  file.proof = encode(prover.prove(airs.airs));
  return encode_proof_file(file);
}

struct Batch {
  std::vector<NamedExecutor> executors;
  std::vector<Worker> workers;
};

Batch cpu_and_vulkan() {
  Batch b;
  b.executors.push_back({"cpu", make_executor("cpu")});
  b.executors.push_back({"vulkan", make_executor("vulkan")});
  for (NamedExecutor& e : b.executors) b.workers.push_back({e.label, e.executor.get(), nullptr});
  return b;
}

std::vector<JobResult> run(const std::vector<Job>& jobs, const std::vector<Worker>& workers,
                           const WorkerOptions& options) {
  LocalSource source(jobs.size());
  run_workers(jobs, source, workers, options);
  return source.results();
}

std::filesystem::path temp_folder(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / fmt::format("vkstark_batch_test_{}_{}", name, ::getpid());
  std::filesystem::create_directories(p);
  return p;
}

}  // namespace

TEST(Batch, ProofsOverTwoWorkersAreThoseOfSerialProving) {
  std::vector<Job> jobs;
  for (uint32_t i = 0; i < 6; ++i) jobs.push_back(fib_job(fmt::format("fib{}", i), 16u << (i % 3)));
  Batch b = cpu_and_vulkan();
  WorkerOptions options;
  options.max_in_flight = 2;
  // LocalSource keeps no file bytes: they are collected through on_result.
  std::vector<std::vector<uint8_t>> files(jobs.size());
  LocalSource source(jobs.size(), [&](JobResult& r) { files[r.job] = r.file; });
  run_workers(jobs, source, b.workers, options);
  const std::vector<JobResult> results = source.results();
  ASSERT_EQ(results.size(), jobs.size());
  std::set<std::string> used;
  for (const JobResult& r : results) {
    SCOPED_TRACE(jobs[r.job].name);
    EXPECT_TRUE(r.ok) << r.reason;
    EXPECT_GT(r.device_bytes, 0u);
    EXPECT_TRUE(r.file.empty());
    EXPECT_EQ(files[r.job], serial_proof_file(jobs[r.job]));
    used.insert(r.worker);
  }
  EXPECT_EQ(used.size(), 2u) << "both workers should have taken jobs";
}

TEST(Batch, AMemoryBudgetOfOneProofProvesOneAtATime) {
  const Job probe = fib_job("probe", 32);
  auto exec = make_executor("vulkan");
  const JobAirs airs = make_job_airs(probe);
  const ProvingKey pk = keygen(std::vector<std::shared_ptr<const Air>>{airs.airs[0]->air}, job_params(probe), *exec);
  StarkProver prover(pk, *exec);
  const uint64_t one = prover.plan(airs.airs)->device_bytes();
  ASSERT_GT(one, 0u);

  std::vector<Job> jobs{fib_job("a", 32), fib_job("b", 32), fib_job("c", 64), fib_job("d", 32)};
  const std::vector<Worker> workers{{"vulkan", exec.get(), nullptr}};
  WorkerOptions options;
  options.max_in_flight = 4;
  options.memory_bytes = one;  // a 64-row proof needs more: it fails alone
  std::vector<JobResult> results = run(jobs, workers, options);
  for (const JobResult& r : results) {
    SCOPED_TRACE(jobs[r.job].name);
    if (jobs[r.job].size == 64) {
      EXPECT_FALSE(r.ok);
      EXPECT_THAT(r.reason, HasSubstr("device memory"));
      EXPECT_THAT(r.reason, HasSubstr(std::to_string(one)));
    } else {
      EXPECT_TRUE(r.ok) << r.reason;
      EXPECT_EQ(r.device_bytes, one);
    }
  }
  // Room for the larger proof alone: everything proves, one proof held at a time.
  options.memory_bytes = one * 3;
  results = run(jobs, workers, options);
  for (const JobResult& r : results) EXPECT_TRUE(r.ok) << jobs[r.job].name << ": " << r.reason;
}

TEST(Batch, BadJobsFailAloneWithTheirReason) {
  const auto folder = temp_folder("bad");
  // A Fibonacci trace with one wrong cell: its proof does not verify.
  const FibonacciTrace fib = fibonacci_trace(Fp(), Fp::one(), 32);
  TraceFile bad{"fibonacci", fib.main, fib.public_values};
  bad.main.at(9, 1) = bad.main.at(9, 1) + Fp::one();
  {
    const std::vector<uint8_t> bytes = encode_trace_file(bad);
    std::ofstream((folder / "bad.vkt").string(), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  std::vector<Job> jobs{fib_job("good1", 32), fib_job("bad", 0), fib_job("missing", 0), fib_job("good2", 64)};
  jobs[1].air.clear();
  jobs[1].trace_file = (folder / "bad.vkt").string();
  jobs[2].air.clear();
  jobs[2].trace_file = (folder / "missing.vkt").string();
  Batch b = cpu_and_vulkan();
  const std::vector<JobResult> results = run(jobs, b.workers, {});
  EXPECT_TRUE(results[0].ok) << results[0].reason;
  EXPECT_TRUE(results[3].ok) << results[3].reason;
  EXPECT_FALSE(results[1].ok);
  EXPECT_THAT(results[1].reason, HasSubstr("does not verify"));
  EXPECT_FALSE(results[2].ok);
  EXPECT_THAT(results[2].reason, HasSubstr("missing.vkt"));
  // With the trace files checked on the host first, the failure names the constraint and the row.
  WorkerOptions checked;
  checked.check_trace_files = true;
  const std::vector<JobResult> again = run(jobs, b.workers, checked);
  std::filesystem::remove_all(folder);
  EXPECT_FALSE(again[1].ok);
  EXPECT_THAT(again[1].reason, HasSubstr("bad.vkt: debug checker: "));
  EXPECT_THAT(again[1].reason, HasSubstr("AIR fibonacci: constraint"));
  EXPECT_THAT(again[1].reason, HasSubstr("fails at row"));
  EXPECT_TRUE(again[0].ok && again[3].ok);
}

// The discrete-GPU path on lavapipe (staging, with validation): trace files and keccakf traces are
// made in the worker's upload memory and copied by the device in place, over several batches (the
// memory reused); the bytes are serial proving's and every stage of every proof is reported.
TEST(Batch, TracesInUploadMemoryGiveTheBytesOfSerialProvingAndEveryStage) {
  const auto folder = temp_folder("upload");
  std::vector<Job> jobs;
  for (uint32_t i = 0; i < 3; ++i) {
    const FibonacciTrace fib = fibonacci_trace(Fp::from_canonical(i), Fp::one(), 32u << i);
    const std::vector<uint8_t> bytes = encode_trace_file(TraceFile{"fibonacci", fib.main, fib.public_values});
    const std::string path = (folder / fmt::format("t{}.vkt", i)).string();
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    Job j = fib_job(fmt::format("file{}", i), 0);
    j.air.clear();
    j.trace_file = path;
    jobs.push_back(j);
  }
  Job keccak = fib_job("keccak", 0);
  keccak.air = "keccakf";
  keccak.size = 1;
  keccak.seed = 5;
  jobs.push_back(keccak);
  VulkanOptions staging;
  staging.force_staging = true;
  auto exec = make_vulkan_executor(staging);
  const std::vector<Worker> workers{{"vulkan-staging", exec.get(), make_worker_cache()}};
  WorkerOptions options;
  options.max_in_flight = 2;
  for (int round = 0; round < 2; ++round) {
    std::vector<std::vector<uint8_t>> files(jobs.size());
    LocalSource source(jobs.size(), [&](JobResult& r) { files[r.job] = r.file; });
    run_workers(jobs, source, workers, options);
    for (const JobResult& r : source.results()) {
      SCOPED_TRACE(fmt::format("{} (round {})", jobs[r.job].name, round));
      ASSERT_TRUE(r.ok) << r.reason;
      EXPECT_EQ(files[r.job], serial_proof_file(jobs[r.job]));
      EXPECT_TRUE(r.verified);
      EXPECT_GT(r.traces_ms, 0.0);
      EXPECT_GT(r.device_ms, 0.0);
      EXPECT_GT(r.verify_ms, 0.0);
      EXPECT_GT(r.encode_ms, 0.0);
      EXPECT_GE(r.upload_ms, 0.0);
      EXPECT_GE(r.prove_ms, r.device_ms * 0.5);
      // The timeline's steps in order (JobResult::at).
      EXPECT_GE(r.at.dealt, 0.0);
      EXPECT_GE(r.at.traces, r.at.dealt);
      EXPECT_GE(r.at.started, r.at.traces);
      EXPECT_GT(r.at.finished, r.at.started);
      EXPECT_GE(r.at.checked, r.at.finished);
    }
  }
  std::filesystem::remove_all(folder);
}

// --verify none and sample N: the proofs are the same; only the chosen ones are verified (and a bad
// trace's proof then goes out unverified: what none costs).
TEST(Batch, VerifyNoneAndSampleVerifyWhatTheySay) {
  std::vector<Job> jobs;
  for (uint32_t i = 0; i < 5; ++i) jobs.push_back(fib_job(fmt::format("fib{}", i), 16));
  const auto exec = make_executor("cpu");
  const std::vector<Worker> workers{{"cpu", exec.get(), nullptr}};
  WorkerOptions options;
  options.verify = VerifyPolicy::parse("sample 2");  // every ceil(5 / 2) = 3rd: jobs 0 and 3
  std::vector<JobResult> results = run(jobs, workers, options);
  for (const JobResult& r : results) {
    EXPECT_TRUE(r.ok) << r.reason;
    EXPECT_EQ(r.verified, r.job == 0 || r.job == 3) << r.job;
    EXPECT_EQ(r.verify_ms > 0, r.verified) << r.job;
  }
  EXPECT_EQ(stage_times(results).verified, 2u);
  options.verify = VerifyPolicy::parse("none");
  results = run(jobs, workers, options);
  for (const JobResult& r : results) EXPECT_TRUE(r.ok && !r.verified && r.verify_ms == 0) << r.job;
  const StageTimes st = stage_times(results);
  EXPECT_EQ(st.proofs, 5u);
  EXPECT_EQ(st.verified, 0u);
  EXPECT_THAT(describe(st), HasSubstr("verify 0.0 (0 of 5)"));
  EXPECT_THAT(to_json(st), HasSubstr("\"device\": {\"median_ms\": "));

  EXPECT_EQ(VerifyPolicy::parse("all").describe(), "all");
  EXPECT_EQ(VerifyPolicy::parse("sample 7").describe(), "sample 7");
  EXPECT_TRUE(VerifyPolicy::parse("sample 1").wants(0, 10));
  EXPECT_FALSE(VerifyPolicy::parse("sample 1").wants(1, 10));
  EXPECT_TRUE(VerifyPolicy::parse("sample 10").wants(9, 10));
  EXPECT_TRUE(VerifyPolicy::parse("sample 50").wants(9, 10));
  for (const char* bad : {"", "some", "sample", "sample 0", "sample -1", "sample 2x", "sample  2", "All"})
    EXPECT_THROW((void)VerifyPolicy::parse(bad), InputError) << bad;
  try {
    (void)VerifyPolicy::parse("sample 0");
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("--verify 'sample 0': expected all, none or sample N"));
  }
}

TEST(Batch, NoWorkersIsAnError) {
  LocalSource source(1);
  EXPECT_THROW(run_workers({fib_job("a", 16)}, source, {}, {}), InputError);
}

TEST(Batch, ExecutorsForABatch) {
  // kind cpu: the CPU executor alone, whatever the devices say.
  std::vector<NamedExecutor> e = make_executors("cpu", "all", false);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].label, "cpu");
  // vulkan "all" with the CPU worker: every usable device (lavapipe where there is no GPU) and the CPU.
  e = make_executors("vulkan", "all", true);
  ASSERT_GE(e.size(), 2u);
  EXPECT_EQ(e.back().label, "cpu");
  for (const NamedExecutor& x : e) EXPECT_GT(x.executor->limits().device_memory_bytes, uint64_t(1) << 20) << x.label;
  EXPECT_THAT(e.front().label, HasSubstr("vulkan "));
  // A list naming no device.
  EXPECT_THROW((void)make_executors("vulkan", "0,no-such-device", false), DeviceError);
  EXPECT_THROW((void)make_executors("vulkan", "0,,1", false), InputError);
  // Shared between two processes of a machine with one device: the second gets none.
  if (make_executors("vulkan", "all", false).size() == 1) {
    EXPECT_THROW((void)make_executors("vulkan", "all", false, 1, 2), DeviceError);
  }
}
