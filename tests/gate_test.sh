#!/usr/bin/env bash
# The regression gate of docs/gate.md, end to end: a subject with a wrong
# tie rule must be caught (exit 1) and classified as tie-flip; the same
# subject with the right rule must pass (exit 0).
set -u
MXC=$1 SUBJECT=$2 OUT=${3:-/tmp/mxc-gate.$$}
mkdir -p "$OUT"
gen() { "$MXC" gen convert --from f32 --to e4m3 --round rne --overflow satfinite --level 1; }
gen | "$SUBJECT" --bug ties-away | "$MXC" verify --allow flags -q \
  --json "$OUT/gate.json" --junit "$OUT/gate.xml" > "$OUT/gate.txt"
rc=$?
fail=0
[[ $rc == 1 ]] || { echo "FAIL: buggy subject exit $rc, expected 1"; fail=1; }
grep -q '"tie-flip"' "$OUT/gate.json" || { echo "FAIL: no tie-flip class"; cat "$OUT/gate.txt"; fail=1; }
grep -q '<failure message=".* mismatches of class tie-flip"' "$OUT/gate.xml" || { echo "FAIL: junit"; fail=1; }
gen | "$SUBJECT" --bug none | "$MXC" verify --allow flags -q > "$OUT/ok.txt"
rc=$?
[[ $rc == 0 ]] || { echo "FAIL: correct subject exit $rc"; cat "$OUT/ok.txt" | tail -20; fail=1; }
[[ $fail == 0 ]] && echo "gate: buggy subject caught (tie-flip), correct subject passes"
head -8 "$OUT/gate.txt"
exit $fail
