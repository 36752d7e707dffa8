#!/usr/bin/env bash
# Replays every GPU capture of the km-hardware folder (Khattak & Mikaitis,
# BSD-2; README there) through the real `mxc mma` binary: for each
# <model>.<fmt>.tsv, one `mxc mma` line per row (A, B from inputs-<fmt>.tsv,
# restarting for each GPU, then C), and the printed D must equal the GPU's D
# on every row (with the header's zero-exp= / zero-sign= rules if it names
# them). Also replays other folders in this layout: tests/data/
# km-hardware-extra (more KM captures) and, unpacked by mmasim_rows_test.sh,
# tests/data/mmasim-nv (MMA-Sim result rows). Usage: km_hardware_cli.sh MXC [DIR]
# DIR defaults to $MXC_KM_HARDWARE_DIR, else <repo>/../shared/oracles/km-hardware.
# Exit 77 (ctest SKIP) when the folder is absent, 1 on any mismatch.
set -euo pipefail
mxc=$1
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${2:-${MXC_KM_HARDWARE_DIR:-$here/../shared/oracles/km-hardware}}
if [[ ! -d $dir ]]; then
  echo "SKIPPED: $dir not found (set MXC_KM_HARDWARE_DIR); GPU captures not replayed"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0 files=0 rows=0
for f in "$dir"/*.tsv; do
  name=$(basename "$f")
  [[ $name == inputs-* ]] && continue
  hdr() { grep -m1 -o "^# .*\b$1=[^ ]*" "$f" | sed "s/.*\b$1=//"; }
  model=$(hdr model) afmt=$(hdr a-fmt) bfmt=$(hdr b-fmt) k=$(hdr k) inputs=$(hdr inputs)
  # Optional zero rules (zero-exp=, zero-sign=): e.g. rows of MMA-Sim HEAD,
  # whose zero terms follow operand-min (docs/models.md, "Zero rules").
  zrules=()
  zexp=$(hdr zero-exp || true) zsign=$(hdr zero-sign || true)
  [[ -n $zexp ]] && zrules+=(--zero-exp "$zexp")
  [[ -n $zsign ]] && zrules+=(--zero-sign "$zsign")
  if [[ -z $model || -z $afmt || -z $k || -z $inputs ]]; then
    echo "$f:1: error: header lacks model=, a-fmt=, k= or inputs=" >&2
    exit 2
  fi
  # Lines for mxc mma: K A tokens, K B tokens, C; and the GPU's D per row.
  awk -v k="$k" -v out="$tmp/in" -v want="$tmp/want" -v inputs="$dir/$inputs" '
    BEGIN {
      n = 0
      while ((getline line < inputs) > 0) {
        if (line ~ /^#/ || line == "") continue
        split(line, f, /[ \t]+/)
        A[n] = f[1]; B[n] = f[2]; n++
      }
      if (n == 0) { print inputs ": no input rows" > "/dev/stderr"; exit 2 }
      w = length(A[0]) / k
    }
    /^#/ || NF == 0 { next }
    {
      if ($1 != gpu) { gpu = $1; i = 0 }
      if (i >= n) { print FILENAME ":" NR ": more rows than inputs" > "/dev/stderr"; exit 2 }
      s = ""
      for (j = 0; j < k; j++) s = s substr(A[i], j * w + 1, w) " "
      for (j = 0; j < k; j++) s = s substr(B[i], j * w + 1, w) " "
      print s $2 > out
      print $3 > want
      i++
    }' "$f"
  n=$(wc -l < "$tmp/want")
  if ! "$mxc" mma --model "$model" --a-fmt "$afmt" --b-fmt "$bfmt" "${zrules[@]}" < "$tmp/in" > "$tmp/got"; then
    echo "km-hardware $name ($model): mxc mma failed (exit above); $n rows not replayed"
    status=1 files=$((files + 1)) rows=$((rows + n))
    continue
  fi
  bad=$(paste "$tmp/got" "$tmp/want" | awk 'toupper($1) != toupper($2) { b++ } END { print b + 0 }')
  if [[ $(wc -l < "$tmp/got") -ne $n ]]; then
    echo "$name: mxc mma printed $(wc -l < "$tmp/got") lines for $n rows" >&2
    bad=$n
  fi
  echo "km-hardware $name ($model): $n rows, $bad mismatches"
  if [[ $bad -ne 0 ]]; then
    paste "$tmp/got" "$tmp/want" | awk 'toupper($1) != toupper($2) { print "  row " NR ": mxc " $1 ", GPU " $2; if (++c == 3) exit }' || true
    status=1
  fi
  files=$((files + 1)) rows=$((rows + n))
done
echo "km-hardware: $files files, $rows rows through mxc mma"
[[ $files -gt 0 ]] || { echo "no capture files in $dir" >&2; exit 1; }
exit $status
