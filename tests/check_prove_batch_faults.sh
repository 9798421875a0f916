#!/usr/bin/env bash
# vkstark prove-batch through faults injected with VKSTARK_FAULT (runtime/fault.hpp; docs/batch.md,
# "Faults"), every proof compared byte for byte with the same batch's proofs made without a fault:
#
# - a lost device (device_lost), an out-of-memory job (oom) and a proof that does not verify
#   (invalid_proof) in one batch: with two workers or more every job is proved, and the summary says
#   what befell each; with one worker, the lost device's jobs are all reported, none dropped;
# - a batch killed after its 5th proof (exit_after_writes, exit status 137 as SIGKILL's; or a real
#   SIGKILL with KILL=1), then --resume: only the missing proofs are made, and a proof file spoiled
#   meanwhile is made again;
# - a full disk (disk_full): the batch stops dealing jobs, and reports the rest as not run;
# - `vkstark prove --out P --vk-out K` killed between its two renames (exit_in_write): the next run
#   of the command finishes the set; no temporary file is left.
#
#   check_prove_batch_faults.sh VKSTARK WORKDIR JOBS -- PROVE-BATCH ARGS (workers: --executor cpu, ...)
#
# JOBS: the batch's size (12 in the default run; 32 for the GPU machine's acceptance run).
set -euo pipefail
vk=$1 work=$2 jobs=$3
shift 3
[ "${1:-}" = "--" ] && shift
args=("$@")

fail() {
  echo "check_prove_batch_faults: $*" >&2
  exit 1
}
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# JOB_SPEC: the jobs' computation (e.g. "air=keccakf permutations=1365" on a GPU, each job its own
# seed); by default small Fibonacci proofs under test params.
for ((i = 0; i < jobs; i++)); do
  spec="air=fibonacci rows=$((16 << (i % 3))) params=test"
  [ -n "${JOB_SPEC:-}" ] && spec="$JOB_SPEC seed=$((i + 1))"
  echo "job$i $spec out=p/job$i.vkp"
  echo "job$i $spec out=ref/job$i.vkp" >&3
done >jobs.txt 3>ref.txt
workers=$("$vk" prove-batch --manifest ref.txt "${args[@]}" --quiet 2>&1 >/dev/null | sed -n 's/.*worker(s): //p')
n_workers=$(($(tr -cd ',' <<<"$workers" | wc -c) + 1))
echo "workers ($n_workers): $workers"

same_as_reference() {
  for ((i = 0; i < jobs; i++)); do
    cmp -s "p/job$i.vkp" "ref/job$i.vkp" || fail "$1: p/job$i.vkp differs from the batch without faults"
  done
}
field() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }

# 1. Three faults in one batch.
half=$((jobs / 2))
set +e
VKSTARK_FAULT="device_lost:job=$half,oom:job=1,invalid_proof:job=2" \
  "$vk" prove-batch --manifest jobs.txt "${args[@]}" --summary s1.json >out1.txt 2>err1.txt
rc=$?
set -e
cat out1.txt err1.txt
if [ "$n_workers" -ge 2 ]; then
  [ "$rc" -eq 0 ] || fail "faults with $n_workers workers: exit status $rc, expected 0"
  [ "$(field s1.json "d['ok']")" = "$jobs" ] || fail "faults: not every job proved"
  same_as_reference "faults"
  field s1.json "d['results'][$half]['history']" | grep -q "device lost on" || fail "job$half: no device lost in its history"
  field s1.json "d['results'][1]['history']" | grep -q "out of memory on .*retried alone" || fail "job1: no retry alone"
  field s1.json "d['results'][2]['history']" | grep -q "does not verify .*proved again" || fail "job2: not proved again"
  [ "$(field s1.json "d['results'][2]['attempts']")" = 2 ] || fail "job2: not 2 attempts"
  grep -q "the device is lost" err1.txt || fail "no word of the device retired"
else
  [ "$rc" -eq 1 ] || fail "device lost with one worker: exit status $rc, expected 1"
  [ "$(field s1.json "len(d['results'])")" = "$jobs" ] || fail "device lost with one worker: a job is missing"
  [ "$(field s1.json "sum(1 for r in d['results'] if r['status']=='ok' or 'device was lost' in r['reason'])")" = "$jobs" ] ||
    fail "device lost with one worker: a job is neither proved nor reported as lost with its device"
  # The other two faults alone: survived on one worker.
  rm -rf p
  VKSTARK_FAULT="oom:job=1,invalid_proof:job=2" "$vk" prove-batch --manifest jobs.txt "${args[@]}" --quiet \
    --summary s1.json || fail "oom and invalid_proof on one worker: the batch failed"
  same_as_reference "oom and invalid_proof on one worker"
  field s1.json "d['results'][1]['history']" | grep -q "retried alone" || fail "job1: no retry alone"
  field s1.json "d['results'][2]['history']" | grep -q "proved again" || fail "job2: not proved again"
fi

# 2. Killed after the 5th proof, then resumed.
rm -rf p
set +e
if [ "${KILL:-0}" = 1 ]; then
  "$vk" prove-batch --manifest jobs.txt "${args[@]}" --quiet --in-flight 1 >/dev/null 2>&1 &
  pid=$!
  while [ "$(ls p 2>/dev/null | grep -c '\.vkp$')" -lt 5 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
  kill -9 "$pid"
  wait "$pid"
  rc=$?
else
  VKSTARK_FAULT="exit_after_writes:files=5" "$vk" prove-batch --manifest jobs.txt "${args[@]}" --quiet >/dev/null 2>&1
  rc=$?
fi
set -e
[ "$rc" -eq 137 ] || fail "the killed batch: exit status $rc, expected 137"
written=$(ls p | grep -c '\.vkp$' || true)
[ "$written" -ge 5 ] && [ "$written" -lt "$jobs" ] || fail "the killed batch left $written proofs"
"$vk" prove-batch --manifest jobs.txt "${args[@]}" --resume --summary s2.json >out2.txt 2>err2.txt ||
  fail "the resumed batch failed: $(cat out2.txt err2.txt)"
[ "$(field s2.json "d['skipped']")" = "$written" ] || fail "resume: skipped $(field s2.json "d['skipped']"), expected $written"
[ "$(field s2.json "d['ok']")" = "$jobs" ] || fail "resume: not every job proved"
same_as_reference "resumed"
echo "killed after $written of $jobs proofs (exit status $rc); resumed: $(field s2.json "d['skipped']") skipped, $((jobs - written)) proved"
# A proof spoiled meanwhile is made again; the others are skipped.
printf 'x' >>p/job0.vkp
"$vk" prove-batch --manifest jobs.txt "${args[@]}" --resume --summary s3.json >out3.txt 2>err3.txt ||
  fail "the second resume failed"
[ "$(field s3.json "d['skipped']")" = $((jobs - 1)) ] || fail "a spoiled proof was skipped"
grep -q "job0: proved again: .*job0.vkp" err3.txt || fail "no word of job0's spoiled proof"
same_as_reference "resumed twice"
ls -a p | grep -q '\.tmp$\|\.journal$' && fail "temporary files left in p/"

# 3. A full disk after 3 files: the batch stops dealing.
rm -rf p
set +e
VKSTARK_FAULT="disk_full:after=3" "$vk" prove-batch --manifest jobs.txt "${args[@]}" --in-flight 1 --traces-ahead 0 \
  --summary /dev/null --quiet >out4.txt 2>err4.txt
rc=$?
set -e
cat out4.txt
[ "$rc" -eq 1 ] || fail "full disk: exit status $rc, expected 1"
grep -q "No space left on device" out4.txt || fail "full disk: no job failed writing"
not_run=$(grep -c "not run: the disk is full" out4.txt || true)
[ "$not_run" -ge 1 ] || fail "full disk: every job was still proved"
[ "$(ls p | grep -c '\.vkp$')" = 3 ] || fail "full disk: not 3 proofs written"

# 4. vkstark prove's outputs, a set: killed between the renames, finished by the next run.
mkdir -p set
"$vk" prove --air fibonacci --rows 16 --params test --executor cpu --quiet --out set/a.vkp --vk-out set/a.vk >/dev/null
set +e
VKSTARK_FAULT="exit_in_write:renamed=1" "$vk" prove --air interactions --rows 16 --params test --executor cpu --quiet \
  --out set/a.vkp --vk-out set/a.vk >/dev/null 2>&1
rc=$?
set -e
[ "$rc" -eq 137 ] || fail "prove killed in its write: exit status $rc, expected 137"
ls -a set | grep -q '\.journal$' || fail "prove killed in its write: no journal left"
"$vk" verify set/a.vkp --vk set/a.vk >/dev/null 2>&1 && fail "the killed prove left a matching pair (no kill between renames?)"
"$vk" prove --air fibonacci --rows 32 --params test --executor cpu --quiet --out set/b.vkp >/dev/null
"$vk" verify set/a.vkp --vk set/a.vk | grep -q '^accepted' || fail "the next write in set/ did not finish the set"
ls -a set | grep -q '\.tmp$\|\.journal$' && fail "temporary files left in set/"
echo "check_prove_batch_faults: ok"
