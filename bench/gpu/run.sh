#!/bin/bash
# Runs on the GPU machine (see bundle.sh): the benches with their JSON, then every Vulkan test
# executable with validation, printing each one's exit status. Everything lands in $OUT/results.tgz.
# Usage: bash bench/gpu/run.sh [cold] [switch] [sweep] [benches] [air] [prove] [zkvm] [data] [examples] [tests]   (no argument: all)
#        [memory] [large] [segment] [sponge] [ntt] [keccakf] [baseline] [profiles] [faults] [batch]   (only when named)
cd "$(dirname "$0")/../.."
B=/tmp/vkstark-bin
mkdir -p $B && tar xJf .gpu/bin.tar.xz -C /tmp && cp /tmp/bin/* $B/
[ -f $B/libVkLayer_khronos_validation.so ] && mv $B/libVkLayer_khronos_validation.so .gpu/lib/
. .gpu/gpu-prelude.sh .gpu
R=$OUT/r; mkdir -p $R
export XDG_CACHE_HOME=/tmp/vkstark-cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1 | tail -1
# Sections (default all): cold (the first proof on empty caches, then a second process), switch
# (keccakf_bench on empty caches: round 0's kernels compiled in the background), sweep
# (keccakf_bench 2^12 .. 2^15), benches (kernel, runtime, pcs, selfcheck), air (air_bench), prove
# (keccakf_bench: the keccakf proof, fused and unfused), zkvm (zkvm_bench, cached parts by value and
# committed once), data (data_air_bench and the command proving keccakf from its vk file), examples (every example and the vkstark
# command on Vulkan with validation), tests.
want() { [ $# -eq 0 ] || [[ " $SECTIONS " == *" $1 "* ]]; }
SECTIONS="$*"
if [ -z "$SECTIONS" ] || want cold; then
echo "== first vkstark prove --air keccakf with every cache empty (SPIR-V, pipelines, driver), then a second process"
rm -rf /tmp/cold-cache /tmp/cold-cache2 && mkdir -p /tmp/cold-cache/nv  # empty again when the section runs twice
for k in first second; do
  s=$(date +%s%N)
  XDG_CACHE_HOME=/tmp/cold-cache __GL_SHADER_DISK_CACHE_PATH=/tmp/cold-cache/nv VKSTARK_LOG_LEVEL=info timeout 300 \
    $B/vkstark prove --air keccakf --executor vulkan --out /tmp/cold-$k.vkp > $R/cold-$k.log 2>&1
  rc=$?; e=$(date +%s%N)
  echo "$k process: exit $rc, wall $(( (e - s) / 1000000 )) ms"; grep -E "prepar|proved" $R/cold-$k.log | tail -3
done
cmp /tmp/cold-first.vkp /tmp/cold-second.vkp && echo "the same proof file"
echo "-- where a cold start goes (empty caches again, debug log): the slowest pipelines and run-time kernels"
mkdir -p /tmp/cold-cache2/nv
XDG_CACHE_HOME=/tmp/cold-cache2 __GL_SHADER_DISK_CACHE_PATH=/tmp/cold-cache2/nv VKSTARK_LOG_LEVEL=debug timeout 300 \
  $B/vkstark prove --air keccakf --executor vulkan --out /tmp/cold-debug.vkp > $R/cold-debug.log 2>&1
grep -E "pipeline [^ ]+ \(workgroup [0-9]+\): " $R/cold-debug.log | sed 's/.*pipeline //' | sort -t: -k2 -g -r | head -4
grep -c "pipeline .*(workgroup [0-9]*): " $R/cold-debug.log | sed 's/^/pipelines created: /'
grep -iE "compiled|glsl" $R/cold-debug.log | tail -3
grep -E "^\[.*\] " $R/cold-debug.log | head -2 | cut -c1-30; tail -1 $R/cold-debug.log | cut -c1-30
fi
if [ -z "$SECTIONS" ] || want switch; then
echo "== keccakf_bench 2^15 on empty caches: round 0 on the interpreter, then on its generated kernels once compiled in the background"
rm -rf /tmp/switch-cache && mkdir -p /tmp/switch-cache/nv
XDG_CACHE_HOME=/tmp/switch-cache __GL_SHADER_DISK_CACHE_PATH=/tmp/switch-cache/nv VKSTARK_LOG_LEVEL=debug timeout 200 \
  $B/keccakf_bench --executor vulkan --permutations 1365 --runs 5 --json $R/keccakf_bench-vulkan-h100-switch.json > $R/switch.txt 2>&1; echo "exit $?"
grep -E "round 0|vkstark.prover|stark_prove_excluding_trace  |keygen" $R/switch.txt | tail -6
fi
if [ -z "$SECTIONS" ] || want sweep; then
echo "== keccakf_bench cost curve 2^12 .. 2^15, medians of 5"
# A short proof first: right after the cold section the first size once ran 2.9x slow (GPU clocks).
timeout 60 $B/keccakf_bench --executor vulkan --permutations 170 --runs 3 > /dev/null 2>&1
timeout 400 $B/keccakf_bench --executor vulkan --sweep-from 12 --sweep-to 15 --runs 5 --json $R/keccakf_bench-vulkan-h100-sweep-small.json > $R/sweep-small.txt 2>&1; echo "exit $?"
grep -E "^  (rows|2\^)" $R/sweep-small.txt
fi
if [ -z "$SECTIONS" ] || want benches; then
echo "== kernel_bench"; $B/kernel_bench --executor vulkan --json $R/kernel_bench-vulkan-h100.json 2>&1 | tail -9
echo "== runtime_bench"; $B/runtime_bench --executor vulkan --k 1000 --runs 11 --json $R/runtime_bench-vulkan-h100.json 2>&1 | tail -5
echo "== pcs_bench (cold: pipeline cache off)"
VKSTARK_LOG_LEVEL=debug VKSTARK_PIPELINE_CACHE=0 $B/pcs_bench --executor vulkan --runs 7 --json $R/pcs_bench-vulkan-h100.json > $R/pcs_bench.txt 2>&1
grep -E "^  (run |build|prepare|run\(\)|counters|proof)" $R/pcs_bench.txt
grep "pipeline " $R/pcs_bench.txt | sed 's/.*pipeline //' | sort -t: -k2 -g -r | head -5
echo "== selfcheck cold"; ( time VKSTARK_PIPELINE_CACHE=0 $B/selfcheck --executor vulkan > $R/selfcheck.txt 2>&1 ) 2>&1 | grep real; tail -1 $R/selfcheck.txt
fi
if [ -z "$SECTIONS" ] || want air; then
echo "== air_bench keccakf 2^15: cold (fresh SPIR-V, pipeline and driver caches), then a second process from the caches"
mkdir -p /tmp/air-cache/nv
export __GL_SHADER_DISK_CACHE_PATH=/tmp/air-cache/nv
XDG_CACHE_HOME=/tmp/air-cache VKSTARK_LOG_LEVEL=debug timeout 120 $B/air_bench --executor vulkan --air keccakf --log-rows 15 --json $R/air_bench-vulkan-h100.json > $R/air_bench-cold.txt 2>&1; echo "exit $?"
grep -E "^  |^results" $R/air_bench-cold.txt
grep "pipeline " $R/air_bench-cold.txt | sed 's/.*pipeline //' | sort -t: -k2 -g -r | head -3
XDG_CACHE_HOME=/tmp/air-cache timeout 60 $B/air_bench --executor vulkan --air keccakf --log-rows 15 --json $R/air_bench-vulkan-h100-cached.json 2>&1 | grep -E "^  (kernel|prepare|one pass)"
unset __GL_SHADER_DISK_CACHE_PATH
timeout 60 $B/air_bench --executor vulkan --air fib --log-rows 20 --json $R/air_bench-fib-vulkan-h100.json 2>&1 | grep "one pass"
fi
if [ -z "$SECTIONS" ] || want prove; then
echo "== keccakf_bench (1024 permutations, params(21)), fused then unfused"
VKSTARK_LOG_LEVEL=info timeout 400 $B/keccakf_bench --executor vulkan --runs 5 --json $R/keccakf_bench-vulkan-h100.json --trace $R/keccakf_bench-h100.trace.json > $R/keccakf_bench.txt 2>&1; echo "exit $?"
grep -vE "^\[" $R/keccakf_bench.txt | tail -25
timeout 300 $B/keccakf_bench --executor vulkan --runs 5 --fuse off --json $R/keccakf_bench-vulkan-h100-unfused.json > $R/keccakf_bench-unfused.txt 2>&1; echo "exit $?"
grep -vE "^\[" $R/keccakf_bench-unfused.txt | grep -E "^  (run |stark_prove_excluding_trace  |run\(\)|counters)"
fi
if [ -z "$SECTIONS" ] || want zkvm; then
echo "== zkvm_bench: a segment of 100 chips up to 2^20 rows, proofs by values, then with the cached parts committed once"
timeout 500 $B/zkvm_bench --executor vulkan --runs 5 --json $R/zkvm_bench-vulkan-h100.json > $R/zkvm_bench.txt 2>&1; echo "exit $?"
grep -vE "^\[" $R/zkvm_bench.txt | grep -vE "^results"
fi
# Sections memory (keccakf 2^18 .. 2^20 in each memory mode), large (2^21, 2^22, and budget80: 2^22
# in the low mode within an H100's 80 GB), segment (the zkVM segment preset) and floor (kernel_bench
# with the Poseidon2 floor) are not in the default run: ask for them.
if want memory; then
echo "== memory modes: keccakf_bench 2^18 .. 2^20 (params 21), default, fast and low, medians of 3"
for m in default fast low; do
  timeout 300 $B/keccakf_bench --executor vulkan --sweep-from 18 --sweep-to 20 --runs 3 --memory-mode $m \
    --json $R/keccakf_bench-vulkan-h200-memory-$m.json > $R/memory-$m.txt 2>&1; echo "$m: exit $?"
  grep -E "^  (rows|2\^)|memory mode" $R/memory-$m.txt
done
fi
if want large; then
echo "== keccakf 2^21 (params 22) and 2^22 (params 23) in the default mode, medians of 3"
timeout 420 $B/keccakf_bench --executor vulkan --sweep-from 21 --sweep-to 22 --runs 3 \
  --json $R/keccakf_bench-vulkan-h200-large.json > $R/large.txt 2>&1; echo "exit $?"
grep -vE "^\[" $R/large.txt | grep -E "^  (rows|2\^)|memory|failed"
fi
if want large || want budget80; then
echo "== keccakf 2^22 (params 23) in the low-memory mode within 80 GB (an H100's memory): --device-memory 80000000000"
timeout 300 $B/keccakf_bench --executor vulkan --sweep-from 22 --sweep-to 22 --runs 3 --memory-mode low \
  --device-memory 80000000000 --json $R/keccakf_bench-vulkan-h200-2p22-80gb-low.json > $R/large-80.txt 2>&1
echo "exit $?"
grep -vE "^\[" $R/large-80.txt | grep -E "^  (rows|2\^)|memory|failed"
fi
if want basecompare; then
TO=${BASECOMPARE_TO:-18}
echo "== keccakf_bench 2^12 .. 2^$TO, a baseline build (keccakf_bench_base, bundled with VKSTARK_GPU_EXTRA) then this one, medians of 5"
for v in base head; do
  bin=$B/keccakf_bench; [ $v = base ] && bin=$B/keccakf_bench_base
  [ -x $bin ] || { echo "$v: no $bin"; continue; }
  timeout 280 $bin --executor vulkan --sweep-from 12 --sweep-to $TO --runs 5 \
    --json $R/keccakf_bench-vulkan-h200-sweep-12-$TO-$v.json > $R/basecompare-$v.txt 2>&1; echo "$v: exit $?"
  grep -E "^  (rows|2\^)" $R/basecompare-$v.txt
done
fi
if want floor; then
echo "== kernel_bench: the Poseidon2 permutation's instructions against the issue rate (at the max SM clock)"
CLK=$(nvidia-smi --query-gpu=clocks.max.sm --format=csv,noheader,nounits 2>/dev/null | head -1 | tr -d ' ')
# SMs: NVIDIA's published count for the H100 and H200 SXM (Vulkan does not report it).
timeout 300 $B/kernel_bench --executor vulkan --sms 132 --clock-mhz ${CLK:-1980} \
  --json $R/kernel_bench-vulkan-h200-floor.json > $R/floor.txt 2>&1; echo "exit $?"
head -12 $R/floor.txt
fi
if want sponge; then
echo "== the openings' sponge: one GPU workgroup (device) against a host task inside the submission (host), keccakf 2^12 .. 2^18, medians of 5"
timeout 60 $B/keccakf_bench --executor vulkan --permutations 170 --runs 3 > /dev/null 2>&1
for m in device host; do
  VKSTARK_OPENINGS_SPONGE=$m timeout 280 $B/keccakf_bench --executor vulkan --sweep-from 12 --sweep-to 18 --runs 5 \
    --json $R/keccakf_bench-vulkan-h200-sponge-$m.json > $R/sponge-$m.txt 2>&1; echo "$m: exit $?"
  grep -E "^  (rows|2\^)" $R/sponge-$m.txt
done
fi
if want ntt; then
echo "== kernel_bench --only ntt: the keccakf 2^15 codeword's NTT (42 x 2^21 -> 2^22) at each pass limit"
timeout 200 $B/kernel_bench --executor vulkan --only ntt --trace $R/ntt.trace.json \
  --json $R/kernel_bench-vulkan-h200-ntt.json > $R/ntt.txt 2>&1; echo "exit $?"
grep -E "ntt forward" $R/ntt.txt
# VKSTARK_GPU_EXTRA variants (kernel_bench_<name>, say a baseline build's): the same case, one run each.
for v in $B/kernel_bench_*; do
  [ -x "$v" ] || continue
  n=$(basename $v); args="--only ntt"; $v --help 2>&1 | grep -q "|ntt" || args=""
  timeout 200 $v --executor vulkan $args --json $R/$n-ntt.json > $R/$n-ntt.txt 2>&1; echo "$n: exit $?"
  grep -E "ntt forward" $R/$n-ntt.txt
done
fi
if want keccakf; then
echo "== keccakf_bench 2^12 .. 2^18, medians of 5 (default options)"
timeout 60 $B/keccakf_bench --executor vulkan --permutations 170 --runs 3 > /dev/null 2>&1
timeout 280 $B/keccakf_bench --executor vulkan --sweep-from 12 --sweep-to 18 --runs 5 \
  --json $R/keccakf_bench-vulkan-h200-sweep.json > $R/keccakf-sweep.txt 2>&1; echo "exit $?"
grep -E "^  (rows|2\^)" $R/keccakf-sweep.txt
# Every dispatch's device time at 2^15 and 2^18 (k<log>.trace.json.tasks.tsv).
for p in 1365:15 10922:18; do
  timeout 100 $B/keccakf_bench --executor vulkan --permutations ${p%:*} --runs 2 --profile \
    --trace $R/k${p#*:}.trace.json > $R/k${p#*:}.txt 2>&1; echo "2^${p#*:} profile: exit $?"
done
fi
if want baseline; then
echo "== keccakf 2^12 .. 2^18 (medians of 5) and the zkVM segment (medians of 3), each beside a baseline build's bench (VKSTARK_GPU_EXTRA=.../<bench>_base)"
timeout 60 $B/keccakf_bench --executor vulkan --permutations 170 --runs 3 > /dev/null 2>&1
for v in keccakf_bench keccakf_bench_base; do
  [ -x $B/$v ] || continue
  timeout 200 $B/$v --executor vulkan --sweep-from 12 --sweep-to 18 --runs 5 \
    --json $R/$v-vulkan-h200-sweep.json > $R/$v-sweep.txt 2>&1; echo "$v: exit $?"
  grep -E "^  (rows|2\^)" $R/$v-sweep.txt
done
for v in zkvm_bench zkvm_bench_base; do
  [ -x $B/$v ] || continue
  timeout 200 $B/$v --executor vulkan --preset segment --runs 3 \
    --json $R/$v-vulkan-h200-segment.json > $R/$v-segment.txt 2>&1; echo "$v: exit $?"
  grep -E "stark_prove_excluding_trace " $R/$v-segment.txt
done
fi
if want segment; then
echo "== zkvm_bench: a real segment's shape (40 chips up to 2^22 rows, params 22), default then low"
for m in default low; do
  timeout 250 $B/zkvm_bench --executor vulkan --preset segment --runs 3 \
    --memory-mode $m --json $R/zkvm_bench-vulkan-h200-segment-$m.json > $R/segment-$m.txt 2>&1; echo "$m: exit $?"
  grep -vE "^\[" $R/segment-$m.txt | grep -E "stark_prove_excluding_trace |peak|memory|cells"
done
fi
if want faults; then
echo "== prove-batch through injected faults on every GPU, validation on (issue 44): 12 small jobs; then 32 keccakf 2^15 jobs, a device lost half way, a real SIGKILL and --resume"
# FAULTS12 / FAULTS32: the workers (on one GPU: "--executor vulkan --cpu-worker" gives two).
VKSTARK_VALIDATE=1 timeout 400 bash tests/check_prove_batch_faults.sh $B/vkstark /tmp/faults12 12 -- ${FAULTS12:---executor vulkan} \
  > $R/faults12.log 2>&1; echo "12 jobs: exit $?"; grep -E "^workers|check_prove_batch_faults" $R/faults12.log
KILL=1 JOB_SPEC="air=keccakf permutations=1365" VKSTARK_VALIDATE=1 timeout 500 bash tests/check_prove_batch_faults.sh \
  $B/vkstark /tmp/faults32 32 -- ${FAULTS32:---executor vulkan} > $R/faults32.log 2>&1; echo "32 jobs: exit $?"
grep -E "^workers|job\(s\) proved|check_prove_batch_faults|the device is lost" $R/faults32.log | cut -c1-220
fi
if want profiles; then
echo "== device profiles (issue 43): the portability suites under every profile, validation on (exit statuses), then keccakf 2^15 under each beside the unconstrained run"
for p in none apple-m amd-rdna3 amd-cdna intel-arc intel-xe-igpu; do
  line="$p:"
  for t in device_profile_test prove_verify_test kernel_parity_test transcript_parity_test ntt_parity_test \
           whir_kernels_parity_test gkr_kernels_parity_test zerocheck_kernels_parity_test \
           stacked_reduction_parity_test program_parity_test; do
    [ -x $B/$t ] || continue
    f='*vulkan*:*Vulkan*'; [ $t = device_profile_test ] && f='*'
    [ $t = prove_verify_test ] && f='*EveryFixtureVerifiesWithTheSameBytesOnEveryExecutor/vulkan:*ProofsAreTheHybridModels*/vulkan'
    VKSTARK_DEVICE_PROFILE=$p VKSTARK_VALIDATE=1 timeout 300 $B/$t --gtest_filter="$f" > $R/profile-$p-$t.log 2>&1
    line="$line $t=$?"
  done
  echo "$line"
done
VKSTARK_DEVICE_PROFILE=apple-m VKSTARK_LOG_LEVEL=info timeout 60 $B/keccakf_bench --executor vulkan --permutations 170 --runs 1 2>&1 | grep -m1 "device profile"
timeout 60 $B/keccakf_bench --executor vulkan --permutations 170 --runs 3 > /dev/null 2>&1
for p in none apple-m amd-rdna3 amd-cdna intel-arc intel-xe-igpu; do
  VKSTARK_DEVICE_PROFILE=$p timeout 120 $B/keccakf_bench --executor vulkan --permutations 1365 --runs 5 \
    --json $R/keccakf_bench-vulkan-h200-profile-$p.json > $R/profile-$p-bench.txt 2>&1; echo "$p: exit $?"
  grep -E "stark_prove_excluding_trace |peak" $R/profile-$p-bench.txt | head -2
done
fi
if [ -z "$SECTIONS" ] || want data; then
echo "== AIRs given as data: data_air_bench (keccakf 2^15 from its vk file against the C++ AIR, one run), then the command"
timeout 300 $B/data_air_bench --executor vulkan --runs 15 --json $R/data_air_bench-vulkan-h200.json > $R/data_air_bench.txt 2>&1; echo "exit $?"
grep -vE "^\[" $R/data_air_bench.txt | grep -vE "^results"
timeout 60 $B/vkstark keygen --air keccakf --executor vulkan --out /tmp/d.vk > $R/data-command.log 2>&1; echo "keygen exit=$?"
timeout 60 $B/vkstark trace --air keccakf --out /tmp/d.vki >> $R/data-command.log 2>&1; echo "trace exit=$?"
timeout 120 $B/vkstark prove --vk /tmp/d.vk --input /tmp/d.vki --executor vulkan --out /tmp/da.vkp >> $R/data-command.log 2>&1; echo "prove --vk exit=$?"
timeout 120 $B/vkstark prove --air keccakf --executor vulkan --out /tmp/db.vkp >> $R/data-command.log 2>&1; echo "prove --air exit=$?"
cmp /tmp/da.vkp /tmp/db.vkp && echo "the same proof file from the vk file and from the C++ AIR"
timeout 60 $B/vkstark verify /tmp/da.vkp --vk /tmp/d.vk >> $R/data-command.log 2>&1; echo "verify exit=$?"
grep -E "proved|accepted" $R/data-command.log
fi
if [ -z "$SECTIONS" ] || want examples; then
echo "== examples and the vkstark command on Vulkan, validation on (exit statuses)"
export VKSTARK_VALIDATE=1
for ex in "fibonacci --rows 1024" "interactions" "custom_air" "keccakf --permutations 1024"; do
  set -- $ex
  timeout 400 $B/$1 --executor vulkan "${@:2}" > $R/example-$1.log 2>&1; echo "$ex exit=$?"; grep -vE "^\[" $R/example-$1.log | tail -3
done
timeout 400 $B/vkstark prove --air keccakf --executor vulkan --out /tmp/k.vkp --vk-out /tmp/k.vk > $R/vkstark.log 2>&1; echo "vkstark prove exit=$?"
timeout 60 $B/vkstark verify /tmp/k.vkp --vk /tmp/k.vk >> $R/vkstark.log 2>&1; echo "vkstark verify exit=$?"
timeout 60 $B/vkstark info /tmp/k.vkp >> $R/vkstark.log 2>&1; echo "vkstark info exit=$?"
grep -vE "^\[" $R/vkstark.log | tail -8
unset VKSTARK_VALIDATE
fi
if [ -z "$SECTIONS" ] || want tests; then
echo "== exit statuses, validation on"
for e in vulkan cpu; do VKSTARK_VALIDATE=1 timeout 120 $B/static_executor_exit $e > $R/static_executor_exit-$e.log 2>&1; echo "static_executor_exit $e exit=$?"; done
for t in $B/*_test; do
  n=$(basename $t)
  VKSTARK_VALIDATE=1 timeout 300 $t --gtest_filter='*vulkan*:*Vulkan*:*Subgroup*:*Lavapipe*' > $R/$n.log 2>&1
  echo "$n exit=$? $(grep -E '^\[  (PASSED|FAILED)' $R/$n.log | tr '\n' ' ')"
done
fi
cd $OUT && tar czf results.tgz r && rm -rf r
