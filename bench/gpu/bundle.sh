#!/bin/bash
# Packs what bench/gpu/run.sh needs into .gpu/ (../shared/docs/gpu-machine.md): every bench and
# every test executable of build/ (stripped, in one archive to stay under the 64 MiB a device call
# carries), their shared libraries, the Vulkan loader and the validation layer.
# Usage (project root, after a Release build in build/): [VKSTARK_GPU_EXTRA=...] bench/gpu/bundle.sh [test names]
# (test names: only those test executables, e.g. prove_verify_test, to stay under the 64 MiB;
# VKSTARK_GPU_PART=i/n: every n-th test executable from the i-th, i in 1..n: all of them do not fit
# one call; three parts do, the benches with the first, VKSTARK_GPU_TESTS_ONLY=1 for the others:
# sections cold and tests)
# Then, with the device tool: run `bash bench/gpu/run.sh` carrying .gpu; results come back in
# $OUT/results.tgz (bench JSON, logs, exit statuses).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${VKSTARK_BUILD_DIR:-build}
bins=("$B"/tests/static_executor_exit "$B"/cli/vkstark)
# VKSTARK_GPU_TESTS_ONLY=1: test executables and the command alone (no benches or examples).
[ "${VKSTARK_GPU_TESTS_ONLY:-0}" = 1 ] ||
  bins+=("$B"/bench/{kernel_bench,pcs_bench,runtime_bench,air_bench,keccakf_bench,keccak_trace_bench,batch_bench,zkvm_bench,data_air_bench} "$B"/examples/{selfcheck,keccakf,fibonacci,interactions,custom_air})
# VKSTARK_GPU_EXTRA="a b": more executables (say, a baseline build's benches renamed *_base, for
# before/after in one device call).
[ -n "${VKSTARK_GPU_EXTRA:-}" ] && for e in $VKSTARK_GPU_EXTRA; do bins+=("$e"); done
if [ $# -gt 0 ]; then
  for n in "$@"; do bins+=("$B/tests/$n"); done
else
  part=${VKSTARK_GPU_PART:-1/1}
  i=${part%/*} n=${part#*/} k=0
  for t in "$B"/tests/*_test; do
    [ $((k % n + 1)) -eq "$i" ] && bins+=("$t")
    k=$((k + 1))
  done
fi
rm -rf .gpu /tmp/vkstark-gpu-bin && mkdir -p /tmp/vkstark-gpu-bin/bin
GPU_BUNDLE_VALIDATION=1 ../shared/tools/gpu-bundle .gpu "${bins[@]}"
cp ../shared/tools/gpu-prelude.sh .gpu/
cp "${bins[@]}" /tmp/vkstark-gpu-bin/bin/
strip --strip-unneeded /tmp/vkstark-gpu-bin/bin/*
for b in "${bins[@]}"; do rm -f ".gpu/$(basename "$b")"; done  # they travel in the archive
# The validation layer (22 MB) travels compressed too; run.sh puts it back into .gpu/lib.
mv .gpu/lib/libVkLayer_khronos_validation.so /tmp/vkstark-gpu-bin/bin/
# One xz stream with a 64 MiB dictionary (-9, one thread): the executables share most of their code,
# so every test executable and bench fits one call (about 20 MB where -6 in blocks gave 71).
XZ_OPT="-9 -T1" tar cJf .gpu/bin.tar.xz -C /tmp/vkstark-gpu-bin bin
du -sh .gpu
