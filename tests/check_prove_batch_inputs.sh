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

rm -rf "$work"
mkdir -p "$work/traces"
cd "$work"
"$vk" trace --air fibonacci --rows 32 --out traces/a.vkt >/dev/null
mkfifo traces/b.vkt
mkdir traces/c.vkt
ln -s nowhere traces/d.vkt

set +e
timeout 120 "$vk" prove-batch --traces traces --out-dir out --executor cpu --params test >stdout.txt 2>stderr.txt
rc=$?
set -e
cat stdout.txt
cat stderr.txt >&2
[ "$rc" -eq 1 ] || fail "exit status $rc, expected 1 (three jobs fail)"
grep -q "prove-batch: 1 of 4 job(s) proved, 3 failed, 0 lost" stdout.txt || fail "no summary line for 1 of 4"
grep -q "failed b: cannot read the trace file 'traces/b.vkt': a FIFO, not a regular file" stdout.txt ||
  fail "the FIFO's reason is missing"
grep -q "failed c: cannot read the trace file 'traces/c.vkt': a folder, not a regular file" stdout.txt ||
  fail "the folder's reason is missing"
grep -q "failed d: cannot read the trace file 'traces/d.vkt': No such file or directory" stdout.txt ||
  fail "the dangling link's reason is missing"
"$vk" verify out/a.vkp | grep -q '^accepted' || fail "out/a.vkp is not accepted"

touch plain
rm -f traces/b.vkt
set +e
"$vk" prove-batch --traces traces --out-dir plain/sub --executor cpu --params test >stdout2.txt 2>stderr2.txt
rc=$?
set -e
cat stderr2.txt >&2
[ "$rc" -eq 2 ] || fail "exit status $rc with an --out-dir under a file, expected 2"
grep -q "job a: 'plain/sub/a.vkp': cannot make the folder 'plain/sub': Not a directory" stderr2.txt ||
  fail "the unwritable --out-dir is not named with its reason"
! grep -q "proved" stdout2.txt || fail "jobs were proved with an unwritable --out-dir"
# A --summary naming a job's output: refused before anything is proved (the summary, written last,
# replaced a proof the batch had reported written).
cp out/a.vkp a.kept
set +e
"$vk" prove-batch --traces traces --out-dir out --summary out/a.vkp --executor cpu --params test \
  >stdout3.txt 2>stderr3.txt
rc=$?
set -e
cat stderr3.txt >&2
[ "$rc" -eq 2 ] || fail "exit status $rc with --summary naming a job's output, expected 2"
grep -q "job a: 'out/a.vkp' is the --summary file too" stderr3.txt || fail "the summary collision is not named"
cmp -s out/a.vkp a.kept || fail "out/a.vkp was changed"
# A summary that cannot be written (/dev/full): the batch fails (exit 1) and says so, though every
# job was proved.
rm -rf traces/c.vkt traces/d.vkt
set +e
"$vk" prove-batch --traces traces --out-dir out4 --summary /dev/full --executor cpu --params test \
  >stdout4.txt 2>stderr4.txt
rc=$?
set -e
cat stderr4.txt >&2
[ "$rc" -eq 1 ] || fail "exit status $rc with an unwritable --summary, expected 1"
grep -q "1 of 1 job(s) proved" stdout4.txt || fail "the job was not proved"
grep -q "the summary was not written" stderr4.txt || fail "the unwritten summary is not reported"
echo "check_prove_batch_inputs: ok"
