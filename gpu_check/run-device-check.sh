#!/bin/bash
# The one prepared command for a machine with a GPU (docs/gpu-check.md):
# builds mxc-gpu (or uses the carried build/), runs the full level-1 replay
# plus a random sweep of SWEEP cases (default 10^7) per available
# instruction family, the cuBLASLt support matrix and GEMM comparisons, and
# writes everything to the report folder. Designed to finish in under
# 8 minutes on one H200 (the run itself is capped at RUN_LIMIT seconds).
#
#   gpu_check/run-device-check.sh [REPORT_DIR]     (default: $OUT or gpu-report)
set -u
cd "$(dirname "$0")/.."
out=${1:-${OUT:-gpu-report}}
sweep=${SWEEP:-10000000}
limit=${RUN_LIMIT:-420}
mkdir -p "$out"
t0=$(date +%s)
{
  echo "# mxc-gpu device check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>&1 || true
  command -v nvcc >/dev/null && nvcc --version | tail -2
  export PATH=$PATH:/usr/local/cuda/bin
  nvcc --version 2>/dev/null | tail -1
} > "$out/environment.txt" 2>&1
if [ ! -x build/bin/mxc-gpu ]; then
  echo "mxc-gpu not built here: building (log: $out/build.log)"
  if ! { cmake --preset default && cmake --build build -j"$(nproc)" --target mxc-gpu; } \
      > "$out/build.log" 2>&1; then
    tail -40 "$out/build.log"
    echo "device check: BUILD FAILED"
    exit 2
  fi
fi
echo "build ready after $(( $(date +%s) - t0 )) s"
timeout -k 10 "$limit" build/bin/mxc-gpu run --suite level1 --sweep "$sweep" \
  --timeout 120 --report "$out" 2>&1 | tee "$out/run.log"
rc=${PIPESTATUS[0]}
case $rc in
  0) verdict=PASS ;;
  1) verdict="MISMATCHES (see $out/summary.txt)" ;;
  77) verdict="SKIPPED: no CUDA device" ;;
  124|137) verdict="TIMED OUT / WATCHDOG" ;;
  *) verdict="ERROR (exit $rc)" ;;
esac
echo "device check: $verdict, exit $rc, $(( $(date +%s) - t0 )) s in all" | tee -a "$out/run.log"
exit "$rc"
