#!/usr/bin/env bash
# vkstark prove-batch end to end (tests/batch_tests.cmake): a manifest of Fibonacci jobs (test params),
# two trace-file jobs, one of them with a wrong cell, and three jobs of AIRs given as data (vk= and
# input=: two interactions inputs, and a Fibonacci input given with the interactions key). Checks:
# exit status 1, the two bad jobs failed alone with their reasons, every other proof written,
# accepted by `vkstark verify`, and byte for byte the proof `vkstark prove` makes alone on the CPU
# executor; the JSON summary.
#
#   check_prove_batch.sh VKSTARK EXECUTOR WORKDIR [LAUNCHER...] [-- EXTRA PROVE-BATCH ARGS...]
#
# LAUNCHER: e.g. `mpiexec -n 2 --oversubscribe` to run the batch over MPI ranks (then the summary
# must show jobs proved on more than one rank when EXPECT_RANKS is set).
set -euo pipefail
vk=$1 executor=$2 work=$3
shift 3
launch=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do launch+=("$1"); shift; done
[ $# -gt 0 ] && shift
extra=("$@")

fail() { echo "check_prove_batch: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/traces" "$work/serial" "$work/keys" "$work/inputs"
cd "$work"

"$vk" trace --air fibonacci --rows 32 --out traces/good.vkt >/dev/null
cp traces/good.vkt traces/bad.vkt
# The last word of the file is the last row of the last column: make it 5.
size=$(stat -c %s traces/bad.vkt)
printf '\005\000\000\000' | dd of=traces/bad.vkt bs=1 seek=$((size - 4)) conv=notrunc status=none
cmp -s traces/good.vkt traces/bad.vkt && fail "the bad trace file equals the good one"

"$vk" keygen --air interactions --params test --executor cpu --out keys/i.vk >/dev/null
"$vk" trace --air interactions --rows 16 --out inputs/i16.vki >/dev/null
"$vk" trace --air interactions --rows 64 --out inputs/i64.vki >/dev/null
"$vk" trace --air fibonacci --rows 16 --out inputs/fib16.vki >/dev/null

cat > jobs.txt <<'EOF'
# name   what                                     where
fib16    air=fibonacci rows=16                     out=out/fib16.vkp
fib32    air=fibonacci rows=32                     out=out/fib32.vkp
bad      trace=traces/bad.vkt                      out=out/bad.vkp
int16    vk=keys/i.vk input=inputs/i16.vki         out=out/int16.vkp
good     trace=traces/good.vkt                     out=out/good.vkp
fib64    air=fibonacci rows=64                     out=out/fib64.vkp
wrongkey vk=keys/i.vk input=inputs/fib16.vki       out=out/wrongkey.vkp
int64    vk=keys/i.vk input=inputs/i64.vki         out=out/int64.vkp
fib128   air=fibonacci rows=128                    out=out/fib128.vkp
EOF

set +e
"${launch[@]}" "$vk" prove-batch --manifest jobs.txt --executor "$executor" --params test \
  --summary summary.json "${extra[@]}" >stdout.txt 2>stderr.txt
rc=$?
set -e
cat stdout.txt
cat stderr.txt >&2
[ "$rc" -eq 1 ] || fail "exit status $rc, expected 1 (two jobs fail)"
grep -q "prove-batch: 7 of 9 job(s) proved, 2 failed, 0 lost" stdout.txt || fail "no summary line for 7 of 9"
grep -q "failed bad: the proof does not verify" stdout.txt || fail "the bad job's reason is missing"
grep -q "failed wrongkey: .*inputs/fib16.vki: the proving input has 1 AIRs, the verifying key 2" stdout.txt ||
  fail "the wrongkey job's reason is missing"
[ ! -e out/bad.vkp ] || fail "the bad job wrote a proof"
[ ! -e out/wrongkey.vkp ] || fail "the wrongkey job wrote a proof"
grep -q '"ok": 7' summary.json || fail "summary.json: not 7 ok"
grep -q '"failed": 2' summary.json || fail "summary.json: not 2 failed"
for rows in 16 64; do
  "$vk" prove --air interactions --rows "$rows" --params test --executor cpu --quiet --out "serial/int$rows.vkp" >/dev/null
  "$vk" verify "out/int$rows.vkp" --vk keys/i.vk | grep -q '^accepted' || fail "out/int$rows.vkp is not accepted"
  cmp -s "out/int$rows.vkp" "serial/int$rows.vkp" || fail "out/int$rows.vkp differs from serial proving"
done

for rows in 16 32 64 128; do
  "$vk" prove --air fibonacci --rows "$rows" --params test --executor cpu --quiet --out "serial/fib$rows.vkp" >/dev/null
  "$vk" verify "out/fib$rows.vkp" | grep -q '^accepted' || fail "out/fib$rows.vkp is not accepted"
  cmp -s "out/fib$rows.vkp" "serial/fib$rows.vkp" || fail "out/fib$rows.vkp differs from serial proving"
done
# The good trace file holds the 32-row Fibonacci trace: the same proof.
cmp -s out/good.vkp serial/fib32.vkp || fail "out/good.vkp differs from serial proving"
if [ -n "${EXPECT_RANKS:-}" ]; then
  for r in $(seq 0 $((EXPECT_RANKS - 1))); do
    grep -q "\"worker\": \"rank $r " summary.json || fail "no job proved on rank $r"
  done
fi
echo "check_prove_batch: ok"
