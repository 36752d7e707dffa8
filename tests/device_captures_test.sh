#!/usr/bin/env bash
# Verifies committed device captures (vector files whose result fields are
# what a GPU returned) with `mxc verify --hand-picked`: each file must pass
# against its header's model, and the same file with one result altered
# must fail (exit 1), so the check can fail. Usage: device_captures_test.sh MXC DIR
set -euo pipefail
mxc=$1 dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for f in "$dir"/*.txt; do
  "$mxc" verify --hand-picked -q --vectors "$f" > "$tmp/out" ||
    { cat "$tmp/out"; echo "FAIL: $f does not verify"; exit 1; }
  # Flip the low bit of the last case's D: a mismatch must be reported.
  last=$(grep -v '^#' "$f" | grep -c .)
  awk -v last="$last" '
    /^#/ || !NF { print; next }
    { n++; if (n == last) { d = $NF; h = substr(d, 1, 7); l = substr(d, 8, 1);
        l = (l == "0") ? "1" : "0"; $NF = h l } print }' "$f" > "$tmp/altered.txt"
  if "$mxc" verify --hand-picked -q --vectors "$tmp/altered.txt" > "$tmp/out2"; then
    echo "FAIL: an altered D in $f still verifies"; exit 1
  fi
  n=$((n + 1))
done
[[ $n -gt 0 ]] || { echo "FAIL: no capture files in $dir"; exit 1; }
echo "device captures: $n files verify; altered copies fail"
