#!/usr/bin/env bash
# Replays a folder of gzip-packed rows in the km-hardware layout through the
# real `mxc mma` binary with tests/km_hardware_cli.sh: every row's D must
# equal the recorded D, bit for bit. The folders (README in each):
#   tests/data/km-hardware-extra  Khattak-Mikaitis GPU captures (A2, A100,
#                                 Ada, L40S, V100), BSD-2
#   tests/data/mmasim-nv          microsoft/MMA-Sim result rows (CPU run)
# Usage: replay_rows_test.sh MXC DIR LABEL [MIN_FILES]
# Fails when DIR holds fewer than MIN_FILES model files (default 1).
set -euo pipefail
mxc=$1 dir=$2 label=$3 min=${4:-1}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for f in "$dir"/*.tsv.gz; do
  [[ -e $f ]] || continue
  base=$(basename "${f%.gz}")
  gzip -dc "$f" > "$tmp/$base"
  [[ $base == inputs-* ]] || n=$((n + 1))
done
if [[ $n -lt $min ]]; then
  echo "$dir: $n model files, expected at least $min" >&2
  exit 1
fi
"$here/km_hardware_cli.sh" "$mxc" "$tmp" | sed "s/^km-hardware/$label/"
