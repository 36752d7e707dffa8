#!/usr/bin/env bash
# mxc report merge (docs/scale-out.md) end to end: the shards of the gate's
# pipe (mxc gen --shard i/4 | subject | mxc verify --json) merged must equal
# one unsharded run (cases, mismatches, classes); missing shards, a shard
# given twice, other seeds or suites, reports without provenance, and
# reports that contradict themselves or the suite's case count (forged) are
# refused with the documented exit codes.
set -u
MXC=$1 SUBJECT=$2 OUT=${3:-/tmp/mxc-merge.$$}
rm -rf "$OUT" && mkdir -p "$OUT"
fail=0
no() { echo "FAIL: $*"; fail=1; }
GEN=(convert --from f32 --to e4m3 --round rne --overflow satfinite --level 1)
pipe() {  # pipe JSON [gen args...]
  local json=$1; shift
  "$MXC" gen "$@" | "$SUBJECT" --bug ties-away | "$MXC" verify -q --allow flags --json "$json" > /dev/null
}
pipe "$OUT/single.json" "${GEN[@]}"
for i in 0 1 2 3; do
  mkdir -p "$OUT/s/shard-$i"
  pipe "$OUT/s/shard-$i/report.json" "${GEN[@]}" --shard "$i/4"
done
"$MXC" report merge "$OUT/s" -o "$OUT/merged" > "$OUT/merge.txt" 2>&1
rc=$?
[[ $rc == 1 ]] || no "merge of 4 shards with mismatches: exit $rc, expected 1"
python3 - "$OUT/merged/report.json" "$OUT/single.json" <<'PY' || no "merged != single run"
import json, sys
keys = ("op", "cases", "mismatches", "accepted", "by_class", "accepted_by", "status")
a = [{k: e[k] for k in keys} for e in json.load(open(sys.argv[1]))]
b = [{k: e[k] for k in keys} for e in json.load(open(sys.argv[2]))]
print("merged:", a)
print("single:", b)
assert a == b, "differ"
assert b[0]["mismatches"] > 0 and "tie-flip" in b[0]["by_class"], "the subject's bug must show"
m = json.load(open(sys.argv[1]))[0]
assert m["run"]["shards"] == "4" and "shard" not in m["run"]
assert all(x["text"].startswith("[shard ") for x in m["first_mismatches"])
PY
grep -q '<property name="shards" value="4"/>' "$OUT/merged/report.junit.xml" || no "junit properties"
grep -q "4 shards, 1 case sets" "$OUT/merged/summary.txt" || no "summary"

expect() {  # expect RC TEXT -- merge args...
  local want=$1 text=$2; shift 3
  local rc=0
  rm -rf "$OUT/m2"
  "$MXC" report merge "$@" -o "$OUT/m2" > "$OUT/err.txt" 2>&1 || rc=$?
  [[ $rc == "$want" ]] || { no "merge $*: exit $rc, expected $want"; cat "$OUT/err.txt"; }
  grep -qF -- "$text" "$OUT/err.txt" || { no "merge $*: no '$text'"; cat "$OUT/err.txt"; }
}
S=$OUT/s
# 3 of 4 shards: not a pass, nothing written unless asked.
expect 3 "INCOMPLETE: shard 2/4" -- "$S/shard-0" "$S/shard-1" "$S/shard-3"
[[ -e $OUT/m2 ]] && no "an incomplete merge wrote $OUT/m2"
expect 3 "INCOMPLETE: shard 2/4" -- --allow-incomplete "$S/shard-0" "$S/shard-1" "$S/shard-3"
grep -q '"incomplete": "shard 2/4"' "$OUT/m2/report.json" || no "incomplete not marked"
expect 2 "shard 1/4 given twice" -- "$S" "$S/shard-1/report.json"
mkdir -p "$OUT/seed2"
pipe "$OUT/seed2/report.json" "${GEN[@]}" --seed 2 --shard 1/4
expect 2 "different seed" -- "$S/shard-0" "$OUT/seed2" "$S/shard-2" "$S/shard-3"
mkdir -p "$OUT/n3"
pipe "$OUT/n3/report.json" "${GEN[@]}" --shard 1/3
expect 2 "different shard count" -- "$S/shard-0" "$OUT/n3" "$S/shard-2" "$S/shard-3"
mkdir -p "$OUT/e5m2"
"$MXC" gen convert --from f32 --to e5m2 --round rne --overflow satfinite --level 1 --shard 1/4 \
  | "$MXC" verify -q --json "$OUT/e5m2/report.json" > /dev/null
expect 2 "different suite" -- "$S/shard-0" "$OUT/e5m2" "$S/shard-2" "$S/shard-3"
mkdir -p "$OUT/old" && python3 - "$S/shard-1/report.json" "$OUT/old/report.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for e in j: del e["run"]
json.dump(j, open(sys.argv[2], "w"))
PY
expect 2 "no run.suite" -- "$S/shard-0" "$OUT/old"
echo '[{"file": 3}]' > "$OUT/bad.json"
expect 2 "bad.json:0: entry 0: 'file' missing or not a string" -- "$OUT/bad.json"
mkdir -p "$OUT/empty"
expect 2 "holds no report.json" -- "$OUT/empty"
expect 2 "no such file or folder" -- "$OUT/nope"
# A clean subject: exit 0.
for i in 0 1; do
  mkdir -p "$OUT/ok/shard-$i"
  "$MXC" gen "${GEN[@]}" --shard "$i/2" | "$SUBJECT" --bug none \
    | "$MXC" verify -q --allow flags --json "$OUT/ok/shard-$i/report.json" > /dev/null
done
"$MXC" report merge "$OUT/ok" -o "$OUT/ok-merged" > /dev/null || no "clean merge: exit $?"
# Forged reports (issue 23): three shards of the 7690-case suite, one
# edited. Each report must agree with itself and the merged cases with what
# the suite's header defines; a failed shard never merges into a pass.
for i in 0 1 2; do
  mkdir -p "$OUT/f/shard-$i"
  "$MXC" gen "${GEN[@]}" --shard "$i/3" | "$SUBJECT" --bug none \
    | "$MXC" verify -q --allow flags --json "$OUT/f/shard-$i/report.json" > /dev/null
done
"$MXC" report merge "$OUT/f" -o "$OUT/f-merged" > "$OUT/f.txt" 2>&1 || no "3 clean shards: exit $?"
grep -q "7690 cases" "$OUT/f.txt" || { no "3 clean shards: not 7690 cases"; cat "$OUT/f.txt"; }
forge() {  # forge NAME PYTHON-STATEMENT (on e, shard 1's entry 0)
  mkdir -p "$OUT/forged-$1"
  python3 - "$OUT/f/shard-1/report.json" "$OUT/forged-$1/report.json" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
e = j[0]
exec(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"))
PY
}
F=$OUT/f
forge cases 'e["cases"] = 9999'
grep -q '"cases": 9999' "$OUT/forged-cases/report.json" || no "forge did not write"
expect 2 "forged-cases/report.json:0: entry 0: 'cases' is 9999 but its description says cases=2563" -- "$F/shard-0" "$OUT/forged-cases" "$F/shard-2"
forge both 'e["cases"] = 9999; e["description"] = e["description"].replace("cases=2563", "cases=9999")'
expect 2 "'cases' of the shards sum to 15126 but the suite" -- "$F/shard-0" "$OUT/forged-both" "$F/shard-2"
grep -qF "has 7690 cases" "$OUT/err.txt" || { no "suite total not named"; cat "$OUT/err.txt"; }
forge status 'e["status"] = "fail"'
expect 2 "forged-status/report.json:0: entry 0: 'status' is 'fail' but 'mismatches' is 0" -- "$F/shard-0" "$OUT/forged-status" "$F/shard-2"
forge hidden 'e["mismatches"] = 5; e["by_class"] = {"tie-flip": 5}; e["status"] = "fail"'
"$MXC" report merge "$F/shard-0" "$OUT/forged-hidden" "$F/shard-2" -o "$OUT/m3" > "$OUT/err.txt" 2>&1
rc=$?
[[ $rc == 1 ]] || no "a failed shard merged with exit $rc, expected 1"
grep -q '"status": "fail"' "$OUT/m3/report.json" || no "a failed shard merged into a pass"
forge classes 'e["mismatches"] = 5; e["by_class"] = {"tie-flip": 2}; e["status"] = "fail"'
expect 2 "entry 0: 'by_class' counts sum to 2 but 'mismatches' is 5" -- "$F/shard-0" "$OUT/forged-classes" "$F/shard-2"
forge accepted 'e["accepted"] = e["accepted"] - 1'
expect 2 "entry 0: 'accepted_by' counts sum to" -- "$F/shard-0" "$OUT/forged-accepted" "$F/shard-2"
forge over 'e["mismatches"] = e["cases"]; e["by_class"] = {"x": e["cases"]}; e["status"] = "fail"'
expect 2 "exceed 'cases' 2563" -- "$F/shard-0" "$OUT/forged-over" "$F/shard-2"
[[ $fail == 0 ]] && echo "report merge: 4 shards == one run; missing, duplicate, other seed/suite, forged counts and status refused"
exit $fail
