#!/usr/bin/env bash
# vkstark prove-batch over MPI ranks when a rank dies (tests/mpi/CMakeLists.txt): rank 1 is killed
# (VKSTARK_FAULT_KILL_RANK=1:1) as soon as it is dealt its first job. Rank 0 must declare it dead
# after --rank-timeout, name its lost job(s) in the summary, and prove every other job; each proof
# written verifies. (Under --enable-recovery mpirun exits 0 whatever the ranks do: the summary is
# what tells.)
#
#   check_prove_batch_rank_killed.sh VKSTARK WORKDIR LAUNCHER...
set -euo pipefail
vk=$1 work=$2
shift 2
fail() { echo "check_prove_batch_rank_killed: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
jobs=8
for i in $(seq 1 $jobs); do echo "fib$i air=fibonacci rows=$((16 << (i % 4))) out=out/fib$i.vkp"; done > jobs.txt
set +e
VKSTARK_FAULT_KILL_RANK=1:1 "$@" -x VKSTARK_FAULT_KILL_RANK "$vk" prove-batch --manifest jobs.txt --executor cpu \
  --params test --rank-timeout 3 --summary summary.json >stdout.txt 2>stderr.txt
rc=$?
set -e
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
