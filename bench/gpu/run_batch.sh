#!/bin/bash
# Runs on a multi-GPU machine (see bundle.sh): batch_bench over one GPU and over all of them, then
# vkstark prove-batch of keccakf jobs on every GPU. Results in $OUT/results.tgz.
# Usage: bash bench/gpu/run_batch.sh [bench] [prove-batch] [tests]   (no argument: bench and prove-batch)
cd "$(dirname "$0")/../.."
. .gpu/gpu-prelude.sh .gpu
B=/tmp/vkstark-bin
mkdir -p $B && tar xJf .gpu/bin.tar.xz -C /tmp && cp /tmp/bin/* $B/
R=$OUT/r; mkdir -p $R
export XDG_CACHE_HOME=/tmp/vkstark-cache
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1
echo "host: nproc $(nproc), $(grep -c ^processor /proc/cpuinfo) processors, cpu.max $(cat /sys/fs/cgroup/cpu.max 2>/dev/null), $(grep -m1 'model name' /proc/cpuinfo)"
want() { [ -z "$SECTIONS" ] && [ "$1" != tests ] || [[ " $SECTIONS " == *" $1 "* ]]; }
SECTIONS="$*"
if want bench; then
echo "== batch_bench: keccakf 1024 permutations, params(21), 1 GPU vs all"
VKSTARK_LOG_LEVEL=info timeout ${BENCH_TIMEOUT:-540} $B/batch_bench --executor vulkan --devices all --proofs-per-worker ${PER_WORKER:-8} --in-flight ${IN_FLIGHT:-2} --runs ${RUNS:-3} --json $R/batch_bench-vulkan-multi.json > $R/batch_bench.txt 2>&1; echo "exit $?"
grep -vE "^\[" $R/batch_bench.txt | tail -12
fi
if want prove-batch; then
echo "== vkstark prove-batch: 16 keccakf jobs (1024 permutations) on every GPU"
mkdir -p /tmp/pb && for i in $(seq 1 16); do echo "k$i air=keccakf permutations=1024 seed=$i out=out/k$i.vkp"; done > /tmp/pb/jobs.txt
timeout 300 $B/vkstark prove-batch --manifest /tmp/pb/jobs.txt --executor vulkan --in-flight ${IN_FLIGHT:-2} --summary $R/prove_batch_summary.json > $R/prove_batch.txt 2>&1; echo "exit $?"
tail -14 $R/prove_batch.txt
timeout 60 $B/vkstark verify /tmp/pb/out/k8.vkp | cut -c1-100
fi
if want tests; then
echo "== tests with validation"
for t in $B/*_test; do
  n=$(basename $t)
  VKSTARK_VALIDATE=1 timeout 300 $t --gtest_filter='*vulkan*:*Vulkan*:Batch.*' > $R/$n.log 2>&1
  echo "$n exit=$? $(grep -E '^\[  (PASSED|FAILED)' $R/$n.log | tr '\n' ' ')"
done
echo "== vkstark prove-batch with validation: 12 Fibonacci jobs on every GPU and the CPU worker"
mkdir -p /tmp/pbv && for i in $(seq 1 12); do echo "f$i air=fibonacci rows=$((256 << (i % 3))) out=out/f$i.vkp"; done > /tmp/pbv/jobs.txt
VKSTARK_VALIDATE=1 timeout 300 $B/vkstark prove-batch --manifest /tmp/pbv/jobs.txt --executor vulkan --cpu-worker --params test --quiet > $R/prove_batch_validate.txt 2>&1; echo "exit $?"
tail -5 $R/prove_batch_validate.txt
fi
cd $OUT && tar czf results.tgz r && rm -rf r
