#!/usr/bin/env bash
# gpu_check/run-device-check.sh without a GPU: --dry-run prints every phase,
# and with a stub mxc-gpu (--bin) the phases run, the verdict table names
# each phase's outcome and counts, the zero-rule line reads the separator
# reports, and the exit code is the worst phase's (2 > 3 > 124 > 1 > 0).
set -u
SCRIPT=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/mxc-devcheck.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
check() {  # check NAME CONDITION-COMMAND...
  local name=$1
  shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}
# shellcheck disable=SC2317  # called through check
has() { grep -Eq -- "$2" "$1"; }

# --- dry run ----------------------------------------------------------------
MXC_GPU_TARGETS=90a "$SCRIPT" --dry-run "$T/rep" > "$T/dry.txt" 2>&1
check dry-rc [ $? = 0 ]
check dry-build has "$T/dry.txt" "MXC_GPU_TARGETS='90a'"
for p in convert mma.sync wgmma zero-rules cublaslt tcgen05 mma.legacy; do
  check "dry-phase-$p" has "$T/dry.txt" "phase $p"
done
check dry-mma-f16 has "$T/dry.txt" "--only mma.m16n8k32 "
check dry-mma-legacy has "$T/dry.txt" "--only mma.m16n8k16 --only mma.m16n8k8 --sweep 100000 "
check dry-zero-files has "$T/dry.txt" "--vectors gpu_check/zero-rules/sm90-wgmma-fp8-f32-zero-exp.txt"
check dry-nothing-written [ ! -e "$T/rep" ]
"$SCRIPT" --bin "$T/none" --dry-run > "$T/dry2.txt" 2>&1
check dry-prebuilt has "$T/dry2.txt" "build      : prebuilt $T/none"
"$SCRIPT" --frobnicate > /dev/null 2>&1
check bad-option-exit-2 [ $? = 2 ]
"$SCRIPT" --help > "$T/help.txt" 2>&1
check help has "$T/help.txt" "--dry-run"

# --- a stub mxc-gpu ------------------------------------------------------------
# Behaviour per phase from STUB_<phase> (pass, fail, cuda): prints the
# runner's family and total lines, writes report.json for zero-rules.
cat > "$T/mxc-gpu" <<'EOF'
#!/usr/bin/env bash
[ "$1" = list ] && { echo "stub list"; exit 0; }
shift
only= report=
while [ $# -gt 0 ]; do
  case $1 in
    --only) only=${only:-$2}; shift ;;
    --report) report=$2; shift ;;
    *) ;;
  esac
  shift
done
case $only in
  convert) p=convert ;; mma.m16n8k32) p=mma.sync ;; mma.m16n8k16) p=mma.legacy ;; wgmma) p=wgmma ;;
  wgmma.m64n8k32.f32.e4m3.e4m3) p=zero-rules ;; cublaslt) p=cublaslt ;; tcgen05) p=tcgen05 ;;
  *) echo "stub: unexpected --only $only"; exit 2 ;;
esac
var=STUB_${p//[.-]/_}
how=${!var:-pass}
mkdir -p "$report"
if [ "$p" = zero-rules ]; then
  cat > "$report/report.json" <<'J'
[{"file": "wgmma.m64n8k32.f32.e4m3.e4m3", "mismatches": 0, "by_class": {}},
 {"file": "gpu_check/zero-rules/sm90-wgmma-fp8-f32-zero-exp.txt", "mismatches": 20,
  "by_class": {"zero-rule:operand-min": 20}},
 {"file": "gpu_check/zero-rules/sm90-wgmma-fp8-f32-zero-sign.txt", "mismatches": 0, "by_class": {}}]
J
fi
if [ "$p" = cublaslt ] && [ -n "${STUB_LT:-}" ]; then
  echo "mxc-gpu: driver 13.0, runtime 13.0, cuBLASLt $STUB_LT"
fi
case $how in
  pass) printf '  %-52s %10d cases %8d mismatches  PASS\n' "$p.family" 1000 0
        echo "mxc-gpu: 2 families replayed, 1 skipped, 2000 cases, 0 mismatches: PASS"; exit 0 ;;
  fail) printf '  %-52s %10d cases %8d mismatches  FAIL\n' "$p.family" 1000 7
        echo "mxc-gpu: 2 families replayed, 0 skipped, 2000 cases, 7 mismatches: FAIL"; exit 1 ;;
  cuda) echo "mxc-gpu: CUDA error"; exit 3 ;;
  hang) sleep 30 ;;
esac
EOF
chmod +x "$T/mxc-gpu"

STUB_wgmma=fail "$SCRIPT" --bin "$T/mxc-gpu" "$T/r1" > "$T/r1.txt" 2>&1
check fail-rc-1 [ $? = 1 ]
check fail-verdict has "$T/r1.txt" "device check: MISMATCHES .*exit 1"
check fail-row has "$T/r1.txt" "^wgmma +MISMATCHES +2 +0 +2000 +7 "
check pass-row has "$T/r1.txt" "^mma.sync +PASS +2 +1 +2000 +0 "
check family-lines has "$T/r1.txt" "^  wgmma.family .* 7 mismatches  FAIL$"
check zero-exp-variant has "$T/r1.txt" "sm90-wgmma-fp8-f32-zero-exp.txt +zero-exp +hardware follows: operand-min"
check zero-sign-default has "$T/r1.txt" "zero-sign.txt +zero-sign +hardware follows: positive \(the default\)"
check one-table [ "$(grep -c 'device check verdict' "$T/r1.txt")" = 1 ]
check verdict-file has "$T/r1/verdict.txt" "device check: MISMATCHES"

STUB_wgmma=fail STUB_cublaslt=cuda "$SCRIPT" --bin "$T/mxc-gpu" "$T/r2" > "$T/r2.txt" 2>&1
check cuda-beats-mismatch [ $? = 3 ]
check cuda-row has "$T/r2.txt" "^cublaslt +CUDA ERROR"

"$SCRIPT" --bin "$T/mxc-gpu" "$T/r3" > "$T/r3.txt" 2>&1
check all-pass-rc-0 [ $? = 0 ]
check all-pass has "$T/r3.txt" "device check: PASS, exit 0"

# A phase past its limit, and the phases after the budget: 124, marked.
STUB_mma_sync=hang PHASE_LIMIT=12 TOTAL_LIMIT=20 "$SCRIPT" --bin "$T/mxc-gpu" "$T/r4" > "$T/r4.txt" 2>&1
check timeout-rc-124 [ $? = 124 ]
check timeout-row has "$T/r4.txt" "^mma.sync +TIMED OUT"
check budget-row has "$T/r4.txt" "^tcgen05 +NOT RUN \(budget\)"
check budget-row-legacy has "$T/r4.txt" "^mma.legacy +NOT RUN \(budget\)"

# cuBLASLt: the loaded library is named; none loaded skips only its phase.
STUB_LT="13.1.0 (libcublasLt.so.13)" "$SCRIPT" --bin "$T/mxc-gpu" "$T/r5" > "$T/r5.txt" 2>&1
check lt-loaded-rc-0 [ $? = 0 ]
check lt-loaded-line has "$T/r5.txt" "^cuBLASLt: 13.1.0 \(libcublasLt.so.13\)$"
STUB_LT="not loaded" "$SCRIPT" --bin "$T/mxc-gpu" "$T/r6" > "$T/r6.txt" 2>&1
check lt-missing-rc-0 [ $? = 0 ]
check lt-missing-row has "$T/r6.txt" "^cublaslt +SKIPPED \(no cuBLASLt\)"
check lt-missing-line has "$T/r6.txt" "^cuBLASLt: NOT LOADED, cuBLASLt phase skipped, every other phase ran"
check lt-missing-others-ran has "$T/r6.txt" "^wgmma +PASS"

# --- a device kit (gpu_check/make-device-kit's layout, stub binary) ----------
mkdir -p "$T/kit/zero-rules"
cp "$T/mxc-gpu" "$T/kit/mxc-gpu"
cp "$SCRIPT" "$T/kit/run-device-check.sh"
cp "$(dirname "$SCRIPT")"/zero-rules/*.txt "$T/kit/zero-rules/"
printf 'mxconform device kit\ncommit: abc123\ntargets: 90a;100a\n' > "$T/kit/KIT"
"$T/kit/run-device-check.sh" --dry-run > "$T/k1.txt" 2>&1
check kit-default-dry-rc [ $? = 0 ]
check kit-default-plan has "$T/k1.txt" "build      : device kit $T/kit \(no build\): sm_90a, sm_100a, abc123"
check kit-no-cmake [ "$(grep -c cmake "$T/k1.txt")" = 0 ]
check kit-zero-files has "$T/k1.txt" "--vectors $T/kit/zero-rules/sm90-wgmma-fp8-f32-zero-exp.txt"
check kit-expected-times has "$T/k1.txt" "expected   : ~[0-9]+ s in all, within the 480 s budget"
(cd "$T" && "$T/kit/run-device-check.sh" "$T/k2") > "$T/k2.txt" 2>&1
check kit-run-rc-0 [ $? = 0 ]
check kit-run-verdict has "$T/k2/verdict.txt" "^mxc-gpu: device kit $T/kit"
check kit-run-zero has "$T/k2.txt" "sm90-wgmma-fp8-f32-zero-exp.txt +zero-exp +hardware follows: operand-min"
"$SCRIPT" --kit "$T/kit" --dry-run > "$T/k3.txt" 2>&1
check kit-option has "$T/k3.txt" "device kit $T/kit"
"$SCRIPT" --kit "$T" --dry-run > "$T/k4.txt" 2>&1
check not-a-kit-exit-2 [ $? = 2 ]
check not-a-kit-says has "$T/k4.txt" "is not a device kit"
"$SCRIPT" --kit "$T/kit" --bin "$T/mxc-gpu" --dry-run > /dev/null 2>&1
check kit-and-bin-exit-2 [ $? = 2 ]
"$T/kit/run-device-check.sh" --build > "$T/k5.txt" 2>&1
check kit-build-exit-2 [ $? = 2 ]
check kit-build-says-deps has "$T/k5.txt" "--build --deps $T/kit/debs"
"$SCRIPT" --deps "$T/nowhere" --dry-run > "$T/k6.txt" 2>&1
check deps-missing-exit-2 [ $? = 2 ]
mkdir -p "$T/debs" && : > "$T/debs/x.deb"
MXC_GPU_TARGETS=90a "$SCRIPT" --deps "$T/debs" --dry-run > "$T/k7.txt" 2>&1
check deps-plan has "$T/k7.txt" "unpack 1 .debs from $T/debs into build-gpu/deps; cmake .* -DCMAKE_PREFIX_PATH=.*/build-gpu/deps/usr"

exit "$fail"
