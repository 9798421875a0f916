#!/usr/bin/env bash
# vkstark prove-batch over MPI ranks when a rank dies (tests/mpi/CMakeLists.txt): rank 1 is killed
# (VKSTARK_FAULT_KILL_RANK=1:1) as soon as it is dealt its first job. Rank 0 must declare it dead
# after --rank-timeout, name its lost job(s) in the summary, and prove every other job; each proof
# written verifies. (Under --enable-recovery mpirun exits 0 whatever the ranks do: the summary is
# what tells.) With STOP=1, rank 1 is frozen (SIGSTOP) instead: rank 0 takes it for dead all the
# same, and once the summary is written every rank is ended (MPI_Abort), so that mpirun returns and
# no frozen rank is left to wake to a finished batch.
#
#   [STOP=1] check_prove_batch_rank_killed.sh VKSTARK WORKDIR LAUNCHER...
set -euo pipefail
vk=$1 work=$2
shift 2
fail() { echo "check_prove_batch_rank_killed: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
jobs=8
fault=1:1 manifest=jobs.txt
[ "${STOP:-0}" = 1 ] && fault=1:1:stop manifest=jobs-stopped-rank.txt
for i in $(seq 1 $jobs); do echo "fib$i air=fibonacci rows=$((16 << (i % 4))) out=out/fib$i.vkp"; done > $manifest
set +e
start=$(date +%s)
VKSTARK_FAULT_KILL_RANK=$fault timeout 120 "$@" -x VKSTARK_FAULT_KILL_RANK "$vk" prove-batch --manifest $manifest \
  --executor cpu --params test --rank-timeout 3 --summary summary.json >stdout.txt 2>stderr.txt
rc=$?
set -e
[ "$rc" -ne 124 ] || fail "mpirun still running after 120 s"
if [ "${STOP:-0}" = 1 ]; then
  sleep 1
  pgrep -f "prove-batch --manifest $manifest" >/dev/null && { pkill -9 -f "prove-batch --manifest $manifest"; fail "a rank is left"; }
  echo "mpirun returned after $(($(date +%s) - start)) s (exit status $rc)"
fi
cat stdout.txt
grep -v "PMIX ERROR" stderr.txt >&2 || true
[ -s summary.json ] || fail "no summary (mpirun exit status $rc)"
grep -q "rank 1 died" stdout.txt || fail "rank 1 is not named dead"
lost=$(grep -c '"status": "lost"' summary.json || true)
ok=$(grep -c '"status": "ok"' summary.json || true)
[ "$lost" -ge 1 ] || fail "no job lost"
[ $((lost + ok)) -eq $jobs ] || fail "$ok ok + $lost lost != $jobs jobs"
grep -q "lost fib[0-9]*: lost with rank 1" stdout.txt || fail "the lost job is not named with its rank"
n=0
for f in out/*.vkp; do
  "$vk" verify "$f" | grep -q '^accepted' || fail "$f is not accepted"
  n=$((n + 1))
done
[ "$n" -eq "$ok" ] || fail "$n proof files for $ok jobs ok"
echo "check_prove_batch_rank_killed: ok ($ok proved, $lost lost)"
