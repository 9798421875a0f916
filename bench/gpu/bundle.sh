#!/bin/bash
# Packs what bench/gpu/run.sh needs into .gpu/ (../shared/docs/gpu-machine.md): every bench and
# every test executable of build/ (stripped, in one archive to stay under the 64 MiB a device call
# carries), their shared libraries, the Vulkan loader and the validation layer.
# Usage (project root, after a Release build in build/): bench/gpu/bundle.sh [test names]
# (test names: only those test executables, e.g. prove_verify_test, to stay under the 64 MiB)
# Then, with the device tool: run `bash bench/gpu/run.sh` carrying .gpu; results come back in
# $OUT/results.tgz (bench JSON, logs, exit statuses).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${VKSTARK_BUILD_DIR:-build}
bins=("$B"/bench/{kernel_bench,pcs_bench,runtime_bench,air_bench,keccakf_bench,batch_bench,zkvm_bench} "$B"/examples/{selfcheck,keccakf,fibonacci,interactions,custom_air} "$B"/cli/vkstark "$B"/tests/static_executor_exit)
if [ $# -gt 0 ]; then
  for n in "$@"; do bins+=("$B/tests/$n"); done
else
  for t in "$B"/tests/*_test; do bins+=("$t"); done
fi
rm -rf .gpu /tmp/vkstark-gpu-bin && mkdir -p /tmp/vkstark-gpu-bin/bin
GPU_BUNDLE_VALIDATION=1 ../shared/tools/gpu-bundle .gpu "${bins[@]}"
cp ../shared/tools/gpu-prelude.sh .gpu/
cp "${bins[@]}" /tmp/vkstark-gpu-bin/bin/
strip --strip-unneeded /tmp/vkstark-gpu-bin/bin/*
rm -f .gpu/*_test .gpu/*_bench .gpu/{selfcheck,keccakf,fibonacci,interactions,custom_air,vkstark} .gpu/static_executor_exit
tar cJf .gpu/bin.tar.xz -C /tmp/vkstark-gpu-bin bin
du -sh .gpu
