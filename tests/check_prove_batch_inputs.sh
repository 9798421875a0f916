#!/usr/bin/env bash
# vkstark prove-batch on what an operator may hand it by mistake (issue 44), on the CPU executor:
# - a trace folder whose *.vkt entries include a FIFO, a folder and a dangling link: every entry is
#   a job, the three fail with what they are, the good one is proved; no hang, none dropped;
# - an --out-dir that cannot be made (under a regular file), or a --summary naming a job's output:
#   refused before anything is proved, exit status 2, the job, the path and the reason named;
# - a --summary that cannot be written (/dev/full): exit status 1 and the reason.
#
#   check_prove_batch_inputs.sh VKSTARK WORKDIR
set -euo pipefail
vk=$1 work=$2
fail() { echo "check_prove_batch_inputs: $*" >&2; exit 1; }
# batch N ARGS...: prove-batch on the CPU executor with the test params; stdoutN.txt, stderrN.txt
# (stderr echoed), the exit status in rc.
batch() {
  local n=$1
  shift
  set +e
  timeout 120 "$vk" prove-batch "$@" --executor cpu --params test >"stdout$n.txt" 2>"stderr$n.txt"
  rc=$?
  set -e
  cat "stderr$n.txt" >&2
}

rm -rf "$work"
mkdir -p "$work/traces"
cd "$work"
"$vk" trace --air fibonacci --rows 32 --out traces/a.vkt >/dev/null
mkfifo traces/b.vkt
mkdir traces/c.vkt
ln -s nowhere traces/d.vkt

batch 1 --traces traces --out-dir out
cat stdout1.txt
[ "$rc" -eq 1 ] || fail "exit status $rc, expected 1 (three jobs fail)"
grep -q "prove-batch: 1 of 4 job(s) proved, 3 failed, 0 lost" stdout1.txt || fail "no summary line for 1 of 4"
grep -q "failed b: cannot read the trace file 'traces/b.vkt': a FIFO, not a regular file" stdout1.txt ||
  fail "the FIFO's reason is missing"
grep -q "failed c: cannot read the trace file 'traces/c.vkt': a folder, not a regular file" stdout1.txt ||
  fail "the folder's reason is missing"
grep -q "failed d: cannot read the trace file 'traces/d.vkt': No such file or directory" stdout1.txt ||
  fail "the dangling link's reason is missing"
"$vk" verify out/a.vkp | grep -q '^accepted' || fail "out/a.vkp is not accepted"

touch plain
rm -f traces/b.vkt
batch 2 --traces traces --out-dir plain/sub
[ "$rc" -eq 2 ] || fail "exit status $rc with an --out-dir under a file, expected 2"
grep -q "job a: 'plain/sub/a.vkp': cannot make the folder 'plain/sub': Not a directory" stderr2.txt ||
  fail "the unwritable --out-dir is not named with its reason"
! grep -q "proved" stdout2.txt || fail "jobs were proved with an unwritable --out-dir"
# A --summary naming a job's output: refused before anything is proved (the summary, written last,
# replaced a proof the batch had reported written).
cp out/a.vkp a.kept
batch 3 --traces traces --out-dir out --summary out/a.vkp
[ "$rc" -eq 2 ] || fail "exit status $rc with --summary naming a job's output, expected 2"
grep -q "job a: 'out/a.vkp' is the --summary file too" stderr3.txt || fail "the summary collision is not named"
cmp -s out/a.vkp a.kept || fail "out/a.vkp was changed"
# A summary that cannot be written (/dev/full): the batch fails (exit 1) and says so, though every
# job was proved.
rm -rf traces/c.vkt traces/d.vkt
batch 4 --traces traces --out-dir out4 --summary /dev/full
[ "$rc" -eq 1 ] || fail "exit status $rc with an unwritable --summary, expected 1"
grep -q "1 of 1 job(s) proved" stdout4.txt || fail "the job was not proved"
grep -q "the summary was not written" stderr4.txt || fail "the unwritten summary is not reported"
echo "check_prove_batch_inputs: ok"
