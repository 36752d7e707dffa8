#!/usr/bin/env bash
# Replays the AMD MFMA rows of microsoft/MMA-Sim (tests/data/mmasim-amd/,
# README there) through the real `mxc mma` binary: each <model>.<a>x<b>.tsv
# names its inputs (tests/mmasim_amd_cases.py with the header's formats, k,
# seed and count) and holds MMA-Sim's D per row; the printed D must equal it
# on every row (a NaN matches any NaN: MMA-Sim's AMD special values are
# Python/torch NaNs, their payload is not modelled). Usage:
# mmasim_amd_cli.sh MXC [DIR]. Exit 1 on any mismatch or a missing file.
set -euo pipefail
mxc=$1
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${2:-$here/tests/data/mmasim-amd}
python3 - "$mxc" "$here/tests/mmasim_amd_cases.py" "$dir" <<'PY'
import pathlib, subprocess, sys
mxc, cases, d = sys.argv[1:4]
files = sorted(pathlib.Path(d).glob("*.tsv"))
status, total, per_model = 0, 0, {}
def nan(x):
    return (x & 0x7F800000) == 0x7F800000 and (x & 0x7FFFFF) != 0
for f in files:
    lines = f.read_text().splitlines()
    hdr = dict(t.split("=", 1) for t in lines[0][1:].split())
    want = [l for l in lines if l and not l.startswith("#")]
    n = int(hdr["n"])
    inp = subprocess.run([sys.executable, cases, hdr["a-fmt"], hdr["b-fmt"],
                          hdr["k"], hdr["seed"], hdr["n"]], check=True,
                         capture_output=True, text=True).stdout
    r = subprocess.run([mxc, "mma", "--model", hdr["model"], "--k", hdr["k"], "--a-fmt",
                        hdr["a-fmt"], "--b-fmt", hdr["b-fmt"]], input=inp,
                       capture_output=True, text=True)
    got = r.stdout.split()
    if r.returncode != 0 or len(got) != n or len(want) != n:
        print(f"{f.name}: mxc mma exit {r.returncode}, {len(got)} lines, "
              f"{len(want)} rows, n={n}: {r.stderr.strip()[:300]}")
        status = 1
        continue
    bad = []
    inl = inp.splitlines()
    for i, (g, w) in enumerate(zip(got, want)):
        gi, wi = int(g, 16), int(w, 16)
        if gi != wi and not (nan(gi) and nan(wi)):
            bad.append(i)
    print(f"mmasim-amd {f.name} ({hdr['model']}): {n} rows, {len(bad)} mismatches")
    for i in bad[:3]:
        print(f"  row {i + 1}: mxc {got[i]}, MMA-Sim {want[i]}; input {inl[i]}")
    if bad:
        status = 1
    total += n
    per_model[hdr["model"]] = per_model.get(hdr["model"], 0) + n
small = [m for m, n in per_model.items() if n < 10000]
if small:
    print(f"fewer than 10000 rows for {small}")
    status = 1
if not files:
    print(f"no row files in {d}")
    status = 1
print(f"mmasim-amd: {len(files)} files, {total} rows through mxc mma")
sys.exit(status)
PY
