#!/bin/bash
# The one prepared command for a machine with a GPU (docs/gpu-check.md).
# Builds mxc-gpu for the GPU present only (or uses a prebuilt binary), runs
# every family the device can run (level-1 replay plus a random sweep of
# SWEEP cases per family: cvt, mma.sync, wgmma, tcgen05, cuBLASLt FP8 /
# block-scaled GEMMs and the support matrix), replays the zero-rule
# separator files (gpu_check/zero-rules/) and prints one verdict table with
# the time of each step. Target: under 8 minutes on one H200 from a fresh
# checkout, build included.
#
#   gpu_check/run-device-check.sh [REPORT_DIR]      (default: $OUT or gpu-report)
#
# Environment:
#   MXC_GPU_BIN=PATH   use this prebuilt mxc-gpu (no compiler needed)
#   MXC_GPU_TARGETS=T  SASS targets to build (default: the present GPU's,
#                      e.g. 90a; "all" = 89;90a;100a;103a;120a)
#   SWEEP=N            random cases per family (default 10^6)
#   RUN_LIMIT=S        cap on the replay itself (default 360 s)
# Exit: mxc-gpu's (0 pass, 1 mismatches, 3 CUDA error, 77 no device,
# 124 watchdog), 2 when the build fails.
set -u
cd "$(dirname "$0")/.."
out=${1:-${OUT:-gpu-report}}
sweep=${SWEEP:-1000000}
limit=${RUN_LIMIT:-360}
mkdir -p "$out"
export PATH=$PATH:/usr/local/cuda/bin
t0=$(date +%s)
{
  echo "# mxc-gpu device check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>&1 || true
  nvcc --version 2>/dev/null | tail -2
  git rev-parse HEAD 2>/dev/null
} > "$out/environment.txt" 2>&1

# The SASS target of the GPU present: 8.9 -> 89, 9.0 -> 90a, 10.0 -> 100a,
# 10.3 -> 103a, 12.0 -> 120a, 12.1 -> 121a (arch-specific features need 'a').
native_target() {
  local cc
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  case $cc in
    89) echo 89 ;;
    90|100|103|120|121) echo "${cc}a" ;;
    *) echo "" ;;
  esac
}

bin=${MXC_GPU_BIN:-}
t_build0=$(date +%s)
if [ -n "$bin" ]; then
  [ -x "$bin" ] || { echo "device check: MXC_GPU_BIN=$bin is not executable"; exit 2; }
  build_note="prebuilt $bin"
else
  targets=${MXC_GPU_TARGETS:-$(native_target)}
  [ "$targets" = all ] && targets="89;90a;100a;103a;120a"
  [ -n "$targets" ] || targets="89;90a;100a;103a;120a"
  bdir=build-gpu
  echo "building mxc-gpu for sm_${targets} in $bdir (log: $out/build.log)"
  if ! { cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DMXC_GPU_CHECK=ON \
           -DMXC_BUILD_TESTS=OFF "-DMXC_GPU_TARGETS=$targets" &&
         cmake --build "$bdir" -j"$(nproc)" --target mxc-gpu; } > "$out/build.log" 2>&1; then
    tail -40 "$out/build.log"
    echo "device check: BUILD FAILED"
    exit 2
  fi
  bin=$bdir/bin/mxc-gpu
  build_note="built for sm_${targets}"
fi
t_build=$(( $(date +%s) - t_build0 ))
echo "mxc-gpu ready ($build_note) after ${t_build} s"

t_run0=$(date +%s)
timeout -k 10 "$limit" "$bin" run --suite level1 --sweep "$sweep" --timeout 120 \
  --vectors gpu_check/zero-rules/sm90-wgmma-fp8-f32-zero-exp.txt \
  --vectors gpu_check/zero-rules/sm90-wgmma-fp8-f32-zero-sign.txt \
  --vectors gpu_check/zero-rules/sm90-wgmma-fp8-f16-zero-sign.txt \
  --report "$out" > "$out/run.log" 2>&1
rc=$?
t_run=$(( $(date +%s) - t_run0 ))
tail -5 "$out/run.log"

# Which zero rule the hardware follows, from the separator files: no
# mismatch = the model's default (zero-exp=fixed, zero-sign=positive);
# mismatches all classed zero-rule:<v> = variant v; anything else = neither.
zero_rules() {
  [ -f "$out/report.json" ] || { echo "  not replayed (no report.json)"; return; }
  python3 - "$out/report.json" <<'EOF' 2>/dev/null || echo "  (report.json unreadable: see $out/summary.txt)"
import json, sys
reports = json.load(open(sys.argv[1]))
for r in reports:
    f = r["file"]
    if "zero-rules/" not in f:
        continue
    rule = "zero-exp" if "zero-exp" in f else "zero-sign"
    default = "fixed" if rule == "zero-exp" else "positive"
    if r["mismatches"] == 0:
        v = default + " (the default)"
    else:
        cls = set(r["by_class"])
        v = (cls.pop().split(":", 1)[1] if len(cls) == 1 and next(iter(cls)).startswith("zero-rule:")
             else "neither variant: " + ", ".join(sorted(r["by_class"])))
    print(f"  {f.split('/')[-1]:<40} {rule:<10} hardware follows: {v}")
EOF
}

case $rc in
  0) verdict=PASS ;;
  1) verdict="MISMATCHES (see $out/summary.txt)" ;;
  3) verdict="CUDA ERROR (see $out/run.log)" ;;
  77) verdict="SKIPPED: no CUDA device" ;;
  124|137) verdict="TIMED OUT / WATCHDOG" ;;
  *) verdict="ERROR (exit $rc)" ;;
esac
{
  echo
  echo "================ device check verdict ================"
  sed -n '1,/^mxc-gpu: .* families replayed/p' "$out/summary.txt" 2>/dev/null |
    grep -E "^  [^ ]" | sed 's|gpu_check/zero-rules/||; s|/[^ ]*/zero-rules/||' || true
  echo "zero rules (separator cases, docs/models.md \"Zero rules\"):"
  zero_rules
  echo "build: ${t_build} s ($build_note); replay: ${t_run} s; total: $(( $(date +%s) - t0 )) s"
  echo "device check: $verdict, exit $rc"
} | tee "$out/verdict.txt"
exit "$rc"
