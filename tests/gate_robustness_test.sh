#!/usr/bin/env bash
# The gate's guarantees (docs/gate.md), against the real mxc binary, one
# check per class of issue 15: no false pass, no exit 0 after losing data,
# no crash or unbounded work from an option value, no shell, well-formed
# reports, shared line limits. Each check names the expected exit code and,
# where it matters, what the message must say.
set -u
MXC=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/mxc-robust.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
n=0
# expect NAME RC [STDERR_REGEX] -- command...   (stdin: what the caller gives)
expect() {
  local name=$1 want=$2 re=$3
  shift 4
  timeout 120 "$@" > "$T/out" 2> "$T/err"  # a hang is a failure (124)
  local rc=$?
  n=$((n + 1))
  if [[ $rc != "$want" ]]; then
    echo "FAIL $name: exit $rc, expected $want"; head -c 600 "$T/err"; fail=1; return
  fi
  if [[ -n $re ]] && ! grep -Eq -- "$re" "$T/err"; then
    echo "FAIL $name: stderr does not match /$re/:"; head -c 600 "$T/err"; fail=1; return
  fi
  echo "ok   $name (exit $rc)"
}
gen() { "$MXC" gen convert --from e4m3 --to f32 --round rne --level 1 "$@"; }
gen > "$T/v.txt" || { echo "FAIL: gen"; exit 1; }
hdr=$(grep -c '^#' "$T/v.txt")
total=$(grep -vc '^#' "$T/v.txt")
[[ $total == 256 ]] || { echo "FAIL: expected 256 e4m3 cases, got $total"; fail=1; }

# --- 1. False passes -------------------------------------------------------
expect clean-pipe 0 '' -- "$MXC" verify -q < "$T/v.txt"
head -n "$hdr" "$T/v.txt" > "$T/hdr-only.txt"
expect header-only 2 'cases=256 .* ends after 0' -- "$MXC" verify -q --vectors "$T/hdr-only.txt"
head -n $((hdr + 100)) "$T/v.txt" > "$T/trunc.txt"
expect truncated 2 'ends after 100' -- "$MXC" verify -q --vectors "$T/trunc.txt"
awk '/^#/ {print; next} {print; print}' "$T/v.txt" > "$T/dup.txt"
expect duplicated 2 'not case 1 ' -- "$MXC" verify -q --vectors "$T/dup.txt"
# Same count, one case dropped and the previous one repeated.
awk -v h="$hdr" 'NR == h + 11 {print prev; next} {print; prev = $0}' "$T/v.txt" > "$T/swap.txt"
expect dropped-and-repeated 2 'case 11 of the stream is not case 10' -- "$MXC" verify -q --vectors "$T/swap.txt"
sed 's/^# cases=256$/# cases=100/' "$T/trunc.txt" > "$T/lie.txt"
expect header-cases-lie 2 'cases=100 but .* define 256' -- "$MXC" verify -q --vectors "$T/lie.txt"
grep -v '^# cases=' "$T/v.txt" > "$T/nocases.txt"
expect no-cases-key 2 'cases=.* is not a case count' -- "$MXC" verify -q --vectors "$T/nocases.txt"
# vectors + results: results for fewer cases than the vectors.
grep -v '^#' "$T/v.txt" | head -n 255 | awk '{print $2, $3}' > "$T/res.txt"
expect results-short 2 'results end early' -- "$MXC" verify -q --vectors "$T/v.txt" --results "$T/res.txt"
for a in ulp=-1 ulp=abc ulp= ulp=0 ulp=1x ulp=99999999999 sign-of-zeros; do
  expect "allow-$a" 2 "allow" -- "$MXC" verify -q --allow "$a" < "$T/v.txt"
done
expect allow-ulp-1 0 '' -- "$MXC" verify -q --allow ulp=1 < "$T/v.txt"

# mxc conformance: MANIFEST problems are exit 2 before any work.
mkdir -p "$T/corpus"
cp "$T/v.txt" "$T/corpus/a.txt"
sha=$(sha256sum "$T/corpus/a.txt" | cut -d' ' -f1)
: > "$T/corpus/MANIFEST"
expect manifest-empty 2 'lists no vector file' -- "$MXC" conformance --vectors-dir "$T/corpus" --report-dir "$T/rep"
echo "garbage" > "$T/corpus/MANIFEST"
expect manifest-malformed 2 'MANIFEST:1: expected' -- "$MXC" conformance --vectors-dir "$T/corpus" --report-dir "$T/rep"
echo "$sha 256 ../v.txt" > "$T/corpus/MANIFEST"
expect manifest-outside 2 'outside' -- "$MXC" conformance --vectors-dir "$T/corpus" --report-dir "$T/rep"
echo "$sha 256 /etc/passwd" > "$T/corpus/MANIFEST"
expect manifest-absolute 2 'outside' -- "$MXC" conformance --vectors-dir "$T/corpus" --report-dir "$T/rep"
echo "$sha -3 a.txt" > "$T/corpus/MANIFEST"
expect manifest-bad-count 2 'case count' -- "$MXC" conformance --vectors-dir "$T/corpus" --report-dir "$T/rep"

# --- 2. Exit 0 after losing data ------------------------------------------
if [[ -w /dev/full ]]; then
  expect convert-full 2 'cannot write <stdout>' -- sh -c "echo 3F800000 | '$MXC' convert --to e4m3 > /dev/full"
  expect gen-full 2 'cannot write <stdout>' -- sh -c "'$MXC' gen convert --from e4m3 --to f32 > /dev/full"
  expect gen-o-full 2 'cannot write /dev/full' -- "$MXC" gen convert --from e4m3 --to f32 -o /dev/full
  expect quantize-full 2 'cannot write <stdout>' -- sh -c "echo 3F800000 3F800000 3F800000 3F800000 3F800000 3F800000 3F800000 3F800000 3F800000 3F800000 3F800000 3F800000 3F800000 3F800000 3F800000 3F800000 | '$MXC' quantize --profile te-nvfp4 --tensor-amax 3F800000 > /dev/full"
  expect diff-profiles-full 2 'cannot write <stdout>' -- sh -c "'$MXC' diff-profiles ocp-v1 torchao-floor --blocks 2 > /dev/full"
  expect verify-full 2 'cannot write <stdout>' -- sh -c "'$MXC' verify -q < '$T/v.txt' > /dev/full"
else
  echo "skip /dev/full checks (no writable /dev/full)"
fi
expect stdin-directory 2 'read error' -- sh -c "'$MXC' convert --to e4m3 < /"
expect verify-stdin-directory 2 'read error' -- sh -c "'$MXC' verify -q < /"
expect verify-vectors-directory 2 'read error' -- "$MXC" verify -q --vectors /
head -c 1100000 /dev/zero | tr '\0' '1' > "$T/long.txt"
expect convert-long-line 2 'line longer than 1048576' -- sh -c "'$MXC' convert --to e4m3 < '$T/long.txt'"
expect verify-long-line 2 'line longer than 1048576' -- sh -c "'$MXC' verify -q < '$T/long.txt'"
expect json-missing-dir 2 "cannot write $T/nope/r.json" -- "$MXC" verify -q --json "$T/nope/r.json" --vectors "$T/v.txt"
expect junit-missing-dir 2 "cannot write $T/nope/r.xml" -- "$MXC" verify -q --junit "$T/nope/r.xml" --vectors "$T/v.txt"
expect report-dir-file 2 'report-dir' -- "$MXC" conformance --vectors-dir "$T/corpus" --report-dir "$T/v.txt/sub"
# A report is replaced whole or not at all: no temp files left behind.
expect json-ok 0 '' -- "$MXC" verify -q --json "$T/r.json" --junit "$T/r.xml" --vectors "$T/v.txt"
if ls "$T" | grep -q '\.tmp-'; then echo "FAIL: temp files left: $(ls "$T")"; fail=1; fi

# --- 3. Option values: range-checked, named in the message ----------------
expect quantize-block-0 2 '--block' -- "$MXC" quantize --profile ocp-v1 --block 0
expect quantize-block-neg 2 '--block' -- "$MXC" quantize --profile ocp-v1 --block -1
expect mma-k-0 2 '--k' -- "$MXC" mma --model sm90_wgmma_fp8_f32 --k 0
expect mma-k-neg 2 '--k' -- "$MXC" mma --model sm90_wgmma_fp8_f32 --k -16
expect gen-shard-junk 2 '--shard' -- "$MXC" gen convert --from e4m3 --to f32 --shard 1/3xyz
expect gen-shard-neg 2 '--shard' -- "$MXC" gen convert --from e4m3 --to f32 --shard -1/3
expect gen-seed-neg 2 '--seed' -- "$MXC" gen convert --from e4m3 --to f32 --seed -1
expect gen-level-3 2 '--level' -- "$MXC" gen convert --from e4m3 --to f32 --level 3
expect diff-elem-f64 2 '--elem' -- "$MXC" diff-profiles ocp-v1 torchao-floor --elem f64
expect diff-elem-e8m0 2 '--elem' -- "$MXC" diff-profiles ocp-v1 torchao-floor --elem e8m0
expect diff-blocks-neg 2 '--blocks' -- "$MXC" diff-profiles ocp-v1 torchao-floor --blocks -5
expect verify-max-errors-neg 2 '--max-errors' -- "$MXC" verify --max-errors -1
expect bench-size-50 2 '--size' -- "$MXC" bench --size 50
expect bench-size-neg 2 '--size' -- "$MXC" bench --size -1 --only cvt
expect study-size-huge 2 '--size' -- "$MXC" study stochastic --size 18446744073709551615 --out "$T/st"
expect convert-sr-bits 2 '--sr-bits' -- "$MXC" convert --to e2m1 --sr-bits 0
# --size needing more memory than the process may use: refused before any
# allocation, naming --size (was std::bad_alloc, exit 134). ulimit -v caps
# the address space at 3 GiB on every machine; --size 16 needs ~13 GiB.
# An ASan build reserves terabytes of shadow address space at start, which
# no ulimit -v allows: there, --size 20 (about 200 GiB) against physical
# memory instead, where the machine has less than that.
if ldd "$MXC" 2>/dev/null | grep -q libasan; then
  mem_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
  if ((mem_kib < 150 * 1024 * 1024)); then
    expect bench-size-memory 2 'error: --size 20 needs about [0-9.]+ GiB.*may use [0-9.]+ GiB' -- \
      "$MXC" bench --size 20 --only quant
  else
    echo "skip bench-size-memory: ASan build on a machine with ${mem_kib} KiB (--size 20 would fit)"
  fi
else
  expect bench-size-memory 2 'error: --size 16 needs about [0-9.]+ GiB.*may use [0-9.]+ GiB' -- \
    bash -c 'ulimit -v 3145728 && exec "$0" bench --size 16 --only quant' "$MXC"
fi
# study --input that is not a readable .npy file: the path and what it is
# (a directory gave "basic_filebuf::underflow error reading the file").
mkdir -p "$T/npy-dir"
expect study-input-dir 2 "--input: $T/npy-dir: error: is a directory" -- "$MXC" study scale-rounding --input "$T/npy-dir" --out "$T/st"
expect study-input-missing 2 "--input: $T/none.npy: error: no such file" -- "$MXC" study scale-rounding --input "$T/none.npy" --out "$T/st"
expect study-input-device 2 "--input: /dev/null: error: not a regular file" -- "$MXC" study scale-rounding --input /dev/null --out "$T/st"
# Header integers are parsed whole (std::stoi took "32x" as 32), the error
# at the key's own line.
"$MXC" gen mma --model sm89_mma_fp8_f32 --a-fmt e4m3 --b-fmt e4m3 --level 0 > "$T/mma.txt"
kl=$(grep -n '^# k=32$' "$T/mma.txt" | cut -d: -f1)
for v in 32x '32 ' +32 0x20 -32; do
  sed "s/^# k=32\$/# k=$v/" "$T/mma.txt" > "$T/mma-k.txt"
  expect "header-k-$v" 2 "mma-k.txt:$kl: header: k='${v//+/\\+}' must be an integer in 1..8192" -- "$MXC" verify -q --vectors "$T/mma-k.txt"
done
# A huge shard count: the header's case count matches the cases written.
"$MXC" gen convert --from e4m3 --to f32 --shard 5/18446744073709551615 > "$T/shard.txt"
expect huge-shard-verifies 0 '' -- "$MXC" verify -q --vectors "$T/shard.txt"
grep -q '^# cases=1$' "$T/shard.txt" && echo "ok   huge-shard-count" || { echo "FAIL huge-shard-count: $(grep cases= "$T/shard.txt")"; fail=1; }
# study accumulation --input with fewer values than the study reads.
if command -v python3 > /dev/null; then
  python3 - "$T/short.npy" <<'PY'
import struct, sys
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (64,), }"
h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + struct.pack("<64f", *([0.5] * 64)))
PY
  expect study-short-npy 2 'needs at least' -- "$MXC" study accumulation --input "$T/short.npy" --out "$T/st"
fi

# --- 4. No shell; reports well-formed for any file name ----------------------
# (one full conformance run on a one-file corpus; a wrong MANIFEST case count
# is a failure, exit 1)
mkdir -p "$T/corpus-ok"
cp "$T/v.txt" "$T/corpus-ok/a.txt"
echo "$sha 255 a.txt" > "$T/corpus-ok/MANIFEST"
evil="$T/o'x;touch $T/pwned;'"
expect manifest-count-differs 1 '' -- "$MXC" conformance --vectors-dir "$T/corpus-ok" --report-dir "$evil" --gpu /bin/true
grep -q 'case-count-differs-from-MANIFEST' "$evil/conformance.json" && echo "ok   manifest-count-class" || { echo "FAIL: no case-count class"; fail=1; }
grep -q 'gpu replay (mxc-gpu) .* pass' "$T/out" && echo "ok   gpu-child-ran" || { echo "FAIL: gpu child"; cat "$T/out"; fail=1; }
[[ -e $T/pwned ]] && { echo "FAIL: --report-dir ran a shell command"; fail=1; } || echo "ok   no-shell"
bad=$(printf "$T/bad\xff\x01name.txt")
cp "$T/v.txt" "$bad"
expect report-odd-name 0 '' -- "$MXC" verify -q --vectors "$bad" --json "$T/odd.json" --junit "$T/odd.xml"
if command -v python3 > /dev/null; then
  python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/odd.json" && echo "ok   json-well-formed" || { echo "FAIL json"; fail=1; }
  python3 -c "import xml.etree.ElementTree as E,sys; E.parse(sys.argv[1])" "$T/odd.xml" && echo "ok   junit-well-formed" || { echo "FAIL junit"; fail=1; }
fi

# --- 5. Shared limits; short, escaped tokens in messages -------------------
expect gen-set-newline 2 'not printable' -- "$MXC" gen convert --from e4m3 --to f32 --set "note=a
b"
expect gen-gemm-over-line-limit 2 "line limit" -- "$MXC" gen gemm --model sm90_wgmma_fp8_f32 --a-fmt e4m3 --b-fmt e4m3 --m 64 --n 64 --k 8192
head -c 5000 /dev/zero | tr '\0' 'z' > "$T/tok.txt"
expect short-quote 2 "'zzzzzzzz.*\.\.\.\(5000 bytes\)" -- sh -c "'$MXC' convert --to e4m3 < '$T/tok.txt'"
[[ $(wc -c < "$T/err") -lt 400 ]] && echo "ok   short-message" || { echo "FAIL: error message is $(wc -c < "$T/err") bytes"; fail=1; }
printf '# mxconform-vectors=1\n# \x7fop=x\n' > "$T/ctl.txt"
expect control-byte 2 '0x7F' -- "$MXC" verify -q --vectors "$T/ctl.txt"
{ echo '# mxconform-vectors=1'; for i in $(seq 1 300); do echo "# k$i=v"; done; } > "$T/keys.txt"
expect unknown-key-line 2 'keys.txt:2: header key .k1. is not understood' -- "$MXC" verify -q --vectors "$T/keys.txt"

echo "$n checks"
exit $fail
