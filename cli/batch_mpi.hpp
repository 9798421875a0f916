// Proof batches over MPI ranks (issue 12): rank 0 deals the jobs of one batch, one at a time, to
// the workers of every rank (its own included) as they ask, and collects every result. Built with
// VKSTARK_MPI=ON (Open MPI 4.1; target vkstark_mpi, VKSTARK_HAVE_MPI=1). docs/mpi.md has more.
//
//   batch::MpiSession mpi(argc, argv);                       // first thing in main
//   std::string manifest = mpi.broadcast(mpi.rank() == 0 ? read_file(path) : "");
//   auto outcome = batch::run_mpi_batch(mpi, jobs.size(),
//       [&](batch::JobSource& source) { batch::run_workers(jobs, source, workers, options); },
//       [&](batch::JobResult& r) { /* rank 0: write r.file to jobs[r.job].out, clear it */ }, {});
//
// The command line that survives the death of a rank other than 0 (measured with Open MPI 4.1.4):
//
//   mpirun --enable-recovery --bind-to none --map-by ppr:1:node --hostfile hosts vkstark prove-batch ...
//
// --enable-recovery keeps the other ranks running when one dies (without it mpirun kills the whole
// job at once; --mca orte_abort_on_non_zero_status 0 alone does not help for a death by signal).
// With it, mpirun exits 0 whatever the ranks return: judge a batch by rank 0's summary. When a rank
// died, no rank may call MPI_Finalize (it waits for the dead rank, at times forever): the session is
// then abandoned by run_mpi_batch on every rank (MpiSession::abandoned()) and each rank exits
// without it. If rank 0 dies, the batch is lost: the other ranks notice its silence after
// rank_timeout_s and run_mpi_batch throws there.
//
// Test hook: VKSTARK_FAULT_KILL_RANK=<r>:<n> (r != 0, n >= 1) makes rank r raise SIGKILL on itself
// when it is dealt its n-th job, with that job in flight.
//
// Threads: MPI is initialised with MPI_THREAD_FUNNELED. Construct the session, and call every
// member and run_mpi_batch, on the main thread; run_mpi_batch runs the workers on a thread of its
// own and makes every MPI call itself. One MpiSession per process, alive until the process ends
// its MPI work.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "product/batch/batch.hpp"

namespace vkstark::batch {

// MPI_Init_thread(MPI_THREAD_FUNNELED) .. MPI_Finalize, with MPI_ERRORS_RETURN on MPI_COMM_WORLD so
// that failures come back as std::runtime_error naming the MPI call.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();  // MPI_Finalize, unless abandoned
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Among the ranks of this node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED), e.g. to share out
  // the node's GPUs when several ranks run on one machine.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }

  // Rank 0's text on every rank (collective: every rank calls it; the others' argument is ignored).
  std::string broadcast(const std::string& text_on_rank0) const;

  // A rank died: MPI_Finalize would wait for it, so the destructor skips it; exit normally after.
  // run_mpi_batch calls it itself when a rank was declared dead (on every rank) or rank 0 was lost.
  void abandon() const { abandoned_ = true; }
  // Ends every rank of the job (MPI_Abort), this one with `status`: after a batch that took a rank
  // for dead, whose process may still be there (frozen: SIGSTOP, a hung driver) and would keep
  // mpirun waiting, then wake to a batch long finished. Flushes stdout and stderr first.
  [[noreturn]] void abort(int status) const;
  bool abandoned() const { return abandoned_; }

  // The session's own duplicate of MPI_COMM_WORLD, which broadcast and run_mpi_batch use.
  MPI_Comm comm() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  mutable bool abandoned_ = false;
};

struct MpiBatchOptions {
  double heartbeat_s = 1;      // every rank tells rank 0 it is alive this often (and rank 0 them);
                               // at most rank_timeout_s / 4
  double rank_timeout_s = 60;  // a rank is declared dead after this long without any message from it
};

struct MpiBatchOutcome {
  std::vector<JobResult> results;  // rank 0: one per job, by job index, as on_result left it; others: empty
  std::vector<int> dead_ranks;     // the ranks rank 0 declared dead (every rank learns them at the end)
};

// Deals `job_count` jobs over every rank, one job per worker request, in index order, never ahead
// of a request. run_workers(source) runs this rank's workers on a thread of its own and returns
// when each got nullopt from source.next(); an exception from it fails this rank's jobs in flight
// ("the workers of rank <r> stopped: ..."), and is rethrown here once the batch is over. Rank 0
// calls on_result(result) on this thread for every job once, as its result arrives, lost jobs
// included (lost = true, reason "lost with rank <r> (...)"); there the caller writes the proof
// file and may turn ok into a failure. When no rank has a worker left, the jobs not dealt fail
// ("not run: ..."). Every rank returns once the batch is over; std::runtime_error naming the MPI
// call on an MPI error, on ranks other than 0 when rank 0 fell silent, and once the session is
// abandoned (no batch after one in which a rank died). No collective call: a rank that never
// calls it is declared dead like one that dies. Batches run one after another, on every rank.
MpiBatchOutcome run_mpi_batch(const MpiSession& mpi, uint64_t job_count,
                              const std::function<void(JobSource&)>& run_workers,
                              const std::function<void(JobResult&)>& on_result, const MpiBatchOptions& options);

namespace detail {
// The wire form of a JobResult (little-endian, versioned). decode_result checks every length
// against the message and throws std::runtime_error on a short, long or malformed message.
std::vector<uint8_t> encode_result(const JobResult& result);
JobResult decode_result(std::span<const uint8_t> message);
}  // namespace detail

}  // namespace vkstark::batch
