#!/bin/bash
# The one prepared command for a machine with a GPU (docs/gpu-check.md).
# Uses the device kit it is part of (gpu_check/make-device-kit: no build,
# nothing needed but the NVIDIA driver), or a prebuilt binary, or builds
# mxc-gpu for the GPU present only; then replays, one timed phase each,
# every family the device can run (level 1 plus a random sweep of SWEEP
# cases per family):
#   convert    cvt e4m3/e5m2 (and FP6/FP4/UE8M0/.rs where present), __nv_cvt_*
#   mma.sync   mma.sync m16n8k32 FP8 -> f32 and -> f16, sm_120 kinds, m16n8k64
#   wgmma      wgmma FP8 -> f32 / f16, TF32 -> f32 (sm_90a)
#   zero-rules the zero-rule separator files (gpu_check/zero-rules/)
#   cublaslt   cuBLASLt FP8 / Hopper block scaling / MXFP8 / NVFP4 GEMMs and
#              the support matrix
#   tcgen05    tcgen05.mma kinds (sm_100a/103a)
#   mma.legacy mma.sync m16n8k16 f16/bf16 -> f32, f16 -> f16, m16n8k8 tf32
#              (sm_80+; the model of the generation present), SWEEP/10
# and prints ONE verdict table (also in DIR/verdict.txt) with the time of
# each phase. Target: under 8 minutes on one H200 from a fresh checkout,
# build included (TOTAL_LIMIT); a phase that would start after the budget is
# reported "not run", never silently dropped.
#
#   gpu_check/run-device-check.sh [--dry-run] [--kit DIR | --bin PATH] [REPORT_DIR]
#   KIT/run-device-check.sh [--dry-run] [REPORT_DIR]      (inside a kit)
#     REPORT_DIR   default: $OUT, else gpu-report
#     --dry-run    print the plan (build, phases, commands, limits, the
#                  expected seconds of each phase on one H200); run nothing
#     --kit DIR    use the device kit in DIR (its mxc-gpu and zero-rules/);
#                  the default when this script lies in a kit
#     --bin PATH   use this prebuilt mxc-gpu (no compiler needed; = MXC_GPU_BIN)
#     --build      build from the source tree (the default outside a kit)
#     --deps DIR   with a build: the Debian -dev packages in DIR (KIT/debs,
#                  made by gpu_check/make-device-kit) are unpacked into the
#                  build folder and found there: a machine without them
#                  builds too (dpkg -x, or ar and tar where there is no dpkg)
#
# Environment:
#   MXC_GPU_BIN=PATH   use this prebuilt mxc-gpu
#   MXC_GPU_TARGETS=T  SASS targets to build: native (default: the present
#                      GPU's, e.g. 90a), a list such as "90a;100a", or all
#   SWEEP=N            random cases per family (default 10^6)
#   CAPTURE=N          also write, per instruction family, its first N level
#                      and N sweep cases with the DEVICE's results as vector
#                      files in REPORT_DIR/<phase>/capture/ (mxc-gpu run
#                      --capture --capture-max N; about 210 bytes a case for
#                      mma.sync FP8): the data a model refit needs, replayed
#                      on the CPU by mxc verify --hand-picked (0: none, the
#                      default)
#   TOTAL_LIMIT=S      budget for build + all phases (default 480 s)
#   PHASE_LIMIT=S      cap on one phase (default 300 s)
#   MXC_CUBLASLT=FILE  the cuBLASLt to load (default: libcublasLt.so.13 from
#                      the loader's path, the nvidia-cublas Python package or
#                      /usr/local/cuda; none: the cuBLASLt phase is skipped
#                      and says why, every other phase runs)
# Exit: 0 pass, 1 mismatches, 2 build/usage error, 3 CUDA error, 77 no
# device, 124 a phase hit its time limit or the budget ran out (worst wins:
# 2 > 3 > 124 > 1 > 0).
set -u
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
dry=0
bin=${MXC_GPU_BIN:-}
out=
kit=
build=0
deps=
here=$(cd "$(dirname "$0")" && pwd) || exit 2
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry=1 ;;
    --kit) [ $# -ge 2 ] || { echo "run-device-check: --kit needs a folder" >&2; exit 2; }
           kit=$2; shift ;;
    --kit=*) kit=${1#--kit=} ;;
    --build) build=1 ;;
    --deps) [ $# -ge 2 ] || { echo "run-device-check: --deps needs a folder of .deb files" >&2; exit 2; }
            deps=$2; build=1; shift ;;
    --deps=*) deps=${1#--deps=}; build=1 ;;
    --bin) [ $# -ge 2 ] || { echo "run-device-check: --bin needs a path" >&2; exit 2; }
           bin=$2; shift ;;
    --bin=*) bin=${1#--bin=} ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "run-device-check: unknown option $1 (--help)" >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "run-device-check: one REPORT_DIR only" >&2; exit 2; }
       out=$1 ;;
  esac
  shift
done
if [ -n "$deps" ]; then
  ls "$deps"/*.deb > /dev/null 2>&1 ||
    { echo "run-device-check: --deps $deps: no .deb files there" >&2; exit 2; }
  deps=$(cd "$deps" && pwd)
fi
# Inside a kit (KIT beside this script) the kit is the default.
if [ -z "$kit" ] && [ -z "$bin" ] && [ "$build" = 0 ] && [ -f "$here/KIT" ]; then kit=$here; fi
if [ -n "$kit" ]; then
  [ -z "$bin" ] || { echo "run-device-check: --kit and --bin exclude each other" >&2; exit 2; }
  { [ -f "$kit/KIT" ] && [ -x "$kit/mxc-gpu" ]; } ||
    { echo "run-device-check: $kit is not a device kit (no KIT or mxc-gpu; gpu_check/make-device-kit makes one)" >&2; exit 2; }
  kit=$(cd "$kit" && pwd)
  bin=$kit/mxc-gpu
  zero_dir=$kit/zero-rules
elif [ -f "$here/KIT" ]; then
  [ -n "$bin" ] || { echo "run-device-check: --build inside a kit: there is no source tree here; run the source tree's gpu_check/run-device-check.sh --build --deps $here/debs" >&2; exit 2; }
  zero_dir=$here/zero-rules
else
  cd "$here/.." || exit 2
  zero_dir=gpu_check/zero-rules
fi
out=${out:-${OUT:-gpu-report}}
sweep=${SWEEP:-1000000}
total_limit=${TOTAL_LIMIT:-480}
phase_limit=${PHASE_LIMIT:-300}
capture=${CAPTURE:-0}
for v in "$sweep" "$total_limit" "$phase_limit" "$capture"; do
  case $v in ''|*[!0-9]*) echo "run-device-check: SWEEP/TOTAL_LIMIT/PHASE_LIMIT/CAPTURE must be integers" >&2; exit 2 ;; esac
done
# --capture for the instruction phases (not zero-rules: its files are
# already vectors; not cublaslt: GEMMs are not captured).
capture_args() {
  [ "$capture" -gt 0 ] || return 0
  case $1 in
    zero-rules|cublaslt) ;;
    *) echo "--capture $out/$1/capture --capture-max $capture" ;;
  esac
}
export PATH=$PATH:/usr/local/cuda/bin
t0=$(date +%s)

# The SASS target of the GPU present: 8.0 / 8.6 / 8.7 -> 80, 8.9 -> 89, 9.0 -> 90a, 10.0 -> 100a,
# 10.3 -> 103a, 11.0 -> 110a, 12.0 -> 120a, 12.1 -> 121a (arch-specific
# features need 'a').
native_target() {
  local cc
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  case $cc in
    80|86|87) echo 80 ;;
    89) echo 89 ;;
    90|100|103|110|120|121) echo "${cc}a" ;;
    *) echo "" ;;
  esac
}
all_targets="80;89;90a;100a;103a;110a;120a;121a"
zero_files=("$zero_dir"/*.txt)

# phase NAME, then mxc-gpu run arguments (besides --report/--timeout).
phases=(convert mma.sync wgmma zero-rules cublaslt tcgen05 mma.legacy)
phase_args() {
  case $1 in
    convert) echo "--only convert --sweep $sweep" ;;
    mma.sync) echo "--only mma.m16n8k32 --only mma.m16n8k64 --sweep $sweep" ;;
    # The sm_80+ f16/bf16/tf32 mma.sync families (on sm_90 the @sm90 rows):
    # a tenth of the sweep keeps the phase short.
    mma.legacy) echo "--only mma.m16n8k16 --only mma.m16n8k8 --sweep $(( sweep / 10 ))" ;;
    wgmma) echo "--only wgmma --sweep $sweep" ;;
    # The separator files replay through the wgmma family their header
    # names; --only keeps the level-1 part to one small family.
    zero-rules) printf -- '--only wgmma.m64n8k32.f32.e4m3.e4m3'
                printf -- ' --vectors %s' "${zero_files[@]}"; echo ;;
    cublaslt) echo "--only cublaslt" ;;
    tcgen05) echo "--only tcgen05 --sweep $sweep" ;;
  esac
}

if [ -n "$kit" ]; then
  build_plan="device kit $kit (no build): sm_$(sed -n 's/^targets: //p' "$kit/KIT" | sed 's/;/, sm_/g'), $(sed -n 's/^commit: //p' "$kit/KIT")"
elif [ -n "$bin" ]; then
  build_plan="prebuilt $bin"
else
  targets=${MXC_GPU_TARGETS:-native}
  target_note=
  if [ "$targets" = native ]; then
    targets=$(native_target)
    if [ -z "$targets" ]; then  # no nvidia-smi answer: build them all
      targets=$all_targets
      target_note=" (native: nvidia-smi named no known GPU, so every target)"
    fi
  fi
  [ "$targets" = all ] && targets=$all_targets
  bdir=build-gpu
  prefix_arg=
  if [ -n "$deps" ]; then
    prefix_arg="-DCMAKE_PREFIX_PATH=$PWD/$bdir/deps/usr"
    build_plan="unpack $(ls "$deps"/*.deb | wc -l) .debs from $deps into $bdir/deps; "
  fi
  build_plan="${build_plan:-}cmake -S . -B $bdir -DCMAKE_BUILD_TYPE=Release -DMXC_GPU_CHECK=ON -DMXC_BUILD_TESTS=OFF -DMXC_GPU_TARGETS='$targets' $prefix_arg && cmake --build $bdir -j$(nproc) --target mxc-gpu"
fi

# Seconds of each phase on one H200 (sm_90a: tcgen05 has no family there)
# at the default SWEEP, from the first run (2026-12-04, device kit, 18 s in
# all; docs/gpu-check.md "First device run"), rounded up to leave room for
# a GPU with more families (sm_100: tcgen05); the build for one target is
# an estimate (40 s of nvcc per target here on 2 cores, 16 cores there).
expect_s() {
  case $1 in
    build) echo 240 ;; convert) echo 10 ;; mma.sync) echo 15 ;; wgmma) echo 10 ;;
    zero-rules) echo 5 ;; cublaslt) echo 10 ;; tcgen05) echo 15 ;;
    mma.legacy) echo 5 ;; *) echo 0 ;;
  esac
}

if [ "$dry" = 1 ]; then
  echo "device check plan (dry run: nothing is built or run)"
  echo "  report dir : $out"
  echo "  budget     : ${total_limit} s in all (build included), ${phase_limit} s per phase at most"
  echo "  build      : $build_plan${target_note:-}"
  sum=0
  if [ -z "$bin" ]; then
    sum=$(expect_s build)
    echo "  expected   : build ~$(expect_s build) s (one target, 16 cores; estimate)"
  fi
  for p in "${phases[@]}"; do
    printf '  phase %-10s: mxc-gpu run %s%s --timeout 120 --report %s/%s  (~%s s on one H200)\n' \
      "$p" "$(phase_args "$p")" "$(a=$(capture_args "$p"); [ -z "$a" ] || echo " $a")" "$out" "$p" "$(expect_s "$p")"
    sum=$(( sum + $(expect_s "$p") ))
  done
  echo "  then       : one verdict table ($out/verdict.txt)"
  if [ "$sum" -le "$total_limit" ]; then
    echo "  expected   : ~${sum} s in all, within the ${total_limit} s budget (estimates, SWEEP=$sweep)"
  else
    echo "  expected   : ~${sum} s in all, OVER the ${total_limit} s budget: later phases would be marked not run"
  fi
  exit 0
fi

# cuBLASLt from the nvidia-cublas Python package, where there is one (the
# loader also tries the system's and /usr/local/cuda's: device/cublaslt_loader.h).
py_lt_dirs=$(python3 -c '
import glob, os
try:
    import nvidia
    for p in nvidia.__path__:
        for d in sorted(glob.glob(os.path.join(p, "*", "lib"))):
            if glob.glob(os.path.join(d, "libcublasLt.so.*")):
                print(d)
except Exception:
    pass
' 2>/dev/null)
if [ -n "$py_lt_dirs" ]; then
  MXC_CUBLASLT_DIRS=${MXC_CUBLASLT_DIRS:+$MXC_CUBLASLT_DIRS:}$(echo "$py_lt_dirs" | paste -sd:)
  export MXC_CUBLASLT_DIRS
fi

mkdir -p "$out" || exit 2
{
  echo "# mxc-gpu device check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>&1 || true
  nvcc --version 2>/dev/null | tail -2
  git rev-parse HEAD 2>/dev/null
} > "$out/environment.txt" 2>&1

t_build0=$(date +%s)
if [ -n "$kit" ]; then
  build_note=$build_plan
elif [ -n "$bin" ]; then
  [ -x "$bin" ] || { echo "device check: prebuilt mxc-gpu '$bin' is not executable"; exit 2; }
  build_note="prebuilt $bin"
else
  echo "building mxc-gpu for sm_${targets} in $bdir (log: $out/build.log)"
  if [ -n "$deps" ]; then
    rm -rf "$bdir/deps" && mkdir -p "$bdir/deps" || exit 2
    for f in "$deps"/*.deb; do
      if command -v dpkg > /dev/null; then dpkg -x "$f" "$bdir/deps"
      else (cd "$bdir/deps" && ar p "$f" "$(ar t "$f" | grep '^data.tar')" | tar -x -J -f - 2>/dev/null ||
              ar p "$f" "$(ar t "$f" | grep '^data.tar')" | tar -x --zstd -f -)
      fi || { echo "device check: cannot unpack $f (exit 2)"; exit 2; }
    done
  fi
  # shellcheck disable=SC2086  # prefix_arg is one word or none
  if ! { cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DMXC_GPU_CHECK=ON \
           -DMXC_BUILD_TESTS=OFF "-DMXC_GPU_TARGETS=$targets" $prefix_arg &&
         cmake --build "$bdir" -j"$(nproc)" --target mxc-gpu; } > "$out/build.log" 2>&1; then
    tail -40 "$out/build.log"
    echo "device check: BUILD FAILED (exit 2)"
    exit 2
  fi
  bin=$bdir/bin/mxc-gpu
  build_note="built for sm_${targets}"
fi
t_build=$(( $(date +%s) - t_build0 ))
kit_note=
if [ -n "$kit" ]; then
  nt=$(native_target)
  kt=$(sed -n 's/^targets: //p' "$kit/KIT")
  case ";$kt;" in
    *";$nt;"*|";;") ;;
    *) [ -n "$nt" ] && kit_note="the kit has no SASS for this GPU (sm_$nt; kit: $kt): families skip; build instead: gpu_check/run-device-check.sh --build --deps $kit/debs"
       [ -n "$kit_note" ] && echo "device check: WARNING: $kit_note" ;;
  esac
fi
echo "mxc-gpu ready ($build_note) after ${t_build} s"
"$bin" list > "$out/families.txt" 2>&1 || true

# One phase: its own report folder, log and time; rc in phase_rc[].
declare -A phase_rc phase_s
no_device=0
for p in "${phases[@]}"; do
  left=$(( total_limit - ($(date +%s) - t0) ))
  lim=$(( left < phase_limit ? left : phase_limit ))
  if [ "$no_device" = 1 ]; then phase_rc[$p]=77; phase_s[$p]=0; continue; fi
  if [ "$lim" -lt 10 ]; then
    phase_rc[$p]=budget; phase_s[$p]=0
    echo "phase $p: not run (budget of ${total_limit} s spent)"
    continue
  fi
  mkdir -p "$out/$p"
  echo "phase $p (limit ${lim} s) ..."
  ts=$(date +%s)
  # shellcheck disable=SC2046  # phase_args is a word list by design
  timeout -k 10 "$lim" "$bin" run $(phase_args "$p") $(capture_args "$p") --timeout 120 \
    --report "$out/$p" > "$out/$p/run.log" 2>&1
  rc=$?
  phase_s[$p]=$(( $(date +%s) - ts ))
  phase_rc[$p]=$rc
  tail -1 "$out/$p/run.log"
  [ "$rc" = 77 ] && no_device=1
done

# Which zero rule the hardware follows, from the separator files: no
# mismatch = the model's default (zero-exp=fixed, zero-sign=positive);
# mismatches all classed zero-rule:<v> = variant v; anything else = neither.
zero_rules() {
  local rj=$out/zero-rules/report.json
  [ -f "$rj" ] || { echo "  not replayed (no $rj)"; return; }
  python3 - "$rj" <<'EOF' 2>/dev/null || echo "  ($rj unreadable: see $out/zero-rules/summary.txt)"
import json, sys
reports = json.load(open(sys.argv[1]))
seen = 0
for r in reports:
    f = r["file"]
    if "zero-rules/" not in f:
        continue
    seen += 1
    rule = "zero-exp" if "zero-exp" in f else "zero-sign"
    default = "fixed" if rule == "zero-exp" else "positive"
    if r["mismatches"] == 0:
        v = default + " (the default)"
    else:
        cls = set(r["by_class"])
        v = (cls.pop().split(":", 1)[1] if len(cls) == 1 and next(iter(cls)).startswith("zero-rule:")
             else "neither variant: " + ", ".join(sorted(r["by_class"])))
    print(f"  {f.split('/')[-1]:<40} {rule:<10} hardware follows: {v}")
if not seen:
    print("  no separator file replayed (no wgmma family on this device: see zero-rules/skipped.json)")
EOF
}

# Phase totals from the runner's last line: "mxc-gpu: F families replayed,
# S skipped, C cases, M mismatches: ...".
phase_counts() {
  local t
  t=$(grep -E '^mxc-gpu: [0-9]+ families replayed' "$out/$1/run.log" 2>/dev/null | tail -1)
  [ -n "$t" ] || { echo "- - - -"; return; }
  echo "$t" | sed -E 's/^mxc-gpu: ([0-9]+) families replayed, ([0-9]+) skipped, ([0-9]+) cases, ([0-9]+) mismatches.*/\1 \2 \3 \4/'
}
# The cuBLASLt the runner loaded, from the phase's own log ("not loaded"
# when none could be: the phase then replays nothing).
cublaslt_text() {
  sed -n 's/^mxc-gpu: driver .*, cuBLASLt //p' "$out/cublaslt/run.log" 2>/dev/null | head -1
}
phase_word() {
  if [ "${2:-}" = cublaslt ] && [ "$1" = 0 ] && cublaslt_text | grep -q '^not loaded'; then
    echo "SKIPPED (no cuBLASLt)"; return
  fi
  case $1 in
    0) echo PASS ;; 1) echo MISMATCHES ;; 2) echo "USAGE/INPUT ERROR" ;;
    3) echo "CUDA ERROR" ;; 77) echo "NO DEVICE" ;; 124|137) echo "TIMED OUT" ;;
    budget) echo "NOT RUN (budget)" ;; *) echo "ERROR (exit $1)" ;;
  esac
}

# Worst exit: 2 > 3 > 124 > 1 > 0; 77 when no phase saw a device.
rc=0
rank() { case $1 in 2) echo 5 ;; 3) echo 4 ;; 124|137|budget) echo 3 ;; 1) echo 2 ;; 0|77) echo 0 ;; *) echo 5 ;; esac; }
for p in "${phases[@]}"; do
  r=${phase_rc[$p]}
  [ "$r" = budget ] && r=124
  [ "$r" = 137 ] && r=124
  case $r in 0|1|2|3|77|124) ;; *) r=2 ;; esac
  [ "$(rank "$r")" -gt "$(rank "$rc")" ] && rc=$r
done
[ "$no_device" = 1 ] && [ "$rc" = 0 ] && rc=77
case $rc in
  0) verdict=PASS ;;
  1) verdict="MISMATCHES (see $out/<phase>/summary.txt)" ;;
  2) verdict="ERROR (see $out/<phase>/run.log)" ;;
  3) verdict="CUDA ERROR (see $out/<phase>/run.log)" ;;
  77) verdict="SKIPPED: no CUDA device" ;;
  124) verdict="TIMED OUT / BUDGET SPENT (phases not finished are marked)" ;;
esac
{
  echo
  echo "===================== device check verdict ====================="
  echo "device: $(nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader 2>/dev/null | head -1 || true)"
  echo "mxc-gpu: $build_note"
  [ -n "$kit_note" ] && echo "WARNING: $kit_note"
  printf '%-11s %-18s %8s %8s %12s %10s %7s\n' phase result families skipped cases mismatches seconds
  printf '%-11s %-18s %8s %8s %12s %10s %7s\n' build ready - - - - "$t_build"
  for p in "${phases[@]}"; do
    read -r nf ns nc nm <<< "$(phase_counts "$p")"
    printf '%-11s %-18s %8s %8s %12s %10s %7s\n' "$p" "$(phase_word "${phase_rc[$p]}" "$p")" \
      "$nf" "$ns" "$nc" "$nm" "${phase_s[$p]}"
  done
  lt=$(cublaslt_text)
  if [ "${phase_rc[cublaslt]}" = 77 ]; then echo "cuBLASLt: not probed (no device)"
  elif [ -z "$lt" ]; then echo "cuBLASLt: the phase did not say (see $out/cublaslt/run.log)"
  elif [ "${lt#not loaded}" != "$lt" ]; then
    echo "cuBLASLt: NOT LOADED, cuBLASLt phase skipped, every other phase ran (places tried: $out/cublaslt/run.log)"
  else echo "cuBLASLt: $lt"; fi
  echo "families that ran (cases, mismatches):"
  for p in "${phases[@]}"; do
    grep -hE '^  [^ ].* cases .* mismatches  (PASS|FAIL)$' "$out/$p/run.log" 2>/dev/null |
      sed 's|[^ ]*zero-rules/||'
  done
  echo "zero rules (separator cases, docs/models.md \"Zero rules\"):"
  zero_rules
  echo "total: $(( $(date +%s) - t0 )) s (budget ${total_limit} s)"
  echo "device check: $verdict, exit $rc"
} | tee "$out/verdict.txt"
exit "$rc"
