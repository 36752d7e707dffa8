#!/usr/bin/env bash
# docs/models.md's evidence table against the model table in code (issue
# 23): one row per model of `mxc models`, with the evidence level, capture
# rows, GPUs and capture files `mxc models -v` prints; a model with capture
# rows has a hardware level and a status that does not say "unverified"; and,
# when the km-hardware folder is present, each km-hardware/<model>.* count
# equals the rows of those files, and each tests/data/<folder>/<model>.*
# count equals the rows of those committed .tsv.gz files.
# Usage: models_doc_test.sh MXC [DOC [DIR]]
# DIR defaults to $MXC_KM_HARDWARE_DIR, else <repo>/../shared/oracles/km-hardware.
set -euo pipefail
mxc=$1
here=$(cd "$(dirname "$0")/.." && pwd)
doc=${2:-$here/docs/models.md}
dir=${3:-${MXC_KM_HARDWARE_DIR:-$here/../shared/oracles/km-hardware}}
python3 - "$doc" "$dir" <("$mxc" models) <("$mxc" models -v) <<'PY'
import os, pathlib, sys
doc, km, plain, verbose = sys.argv[1:5]
fail = []
# mxc models: the status column; mxc models -v: the evidence line.
status, code = {}, {}
lines = open(plain).read().splitlines()
head = lines[0]
col = head.index("status")
for l in lines[1:]:
    status[l.split()[0]] = l[col:].strip()
cur = None
for l in open(verbose).read().splitlines()[1:]:
    if not l.startswith(" "):
        cur = l.split()[0]
    elif l.strip().startswith("evidence: "):
        f = [x.strip() for x in l.strip()[len("evidence: "):].split(" | ")]
        assert len(f) == 4 and f[1].startswith("rows ") and f[2].startswith(
            "gpus ") and f[3].startswith("captures "), l
        code[cur] = (f[0], f[1][5:], f[2][5:], f[3][9:])
if set(code) != set(status) or not code:
    fail.append(f"mxc models -v: evidence lines for {sorted(code)}, models "
                f"{sorted(status)}")
# The doc's table under "## Evidence per model".
text = pathlib.Path(doc).read_text().splitlines()
start = text.index("## Evidence per model")
table = {}
for n, l in enumerate(text[start:], start + 1):
    if l.startswith("## ") and n > start + 1:
        break
    if not l.startswith("| ") or l.startswith("| model ") or l.startswith("|---"):
        continue
    c = [x.strip() for x in l.strip().strip("|").split("|")]
    if len(c) != 6:
        fail.append(f"{doc}:{n}: {len(c)} columns, expected 6")
        continue
    if c[0] in table:
        fail.append(f"{doc}:{n}: {c[0]} listed twice")
    table[c[0]] = ((c[1], c[2], c[3], c[4].strip("`")), n)
for m in sorted(set(code) | set(table)):
    if m not in table:
        fail.append(f"{doc}: no evidence row for {m} (mxc models has it)")
    elif m not in code:
        fail.append(f"{doc}:{table[m][1]}: {m} is not a model of mxc models")
    elif table[m][0] != code[m]:
        fail.append(f"{doc}:{table[m][1]}: {m}: doc says {table[m][0]}, "
                    f"the model table {code[m]}")
hw = ("hardware captures", "hardware captures (proxy)")
for m, (lvl, rows, gpus, caps) in sorted(code.items()):
    if (lvl in hw) != (int(rows) > 0) or (int(rows) > 0) == (gpus == "-"):
        fail.append(f"model table: {m}: level '{lvl}' with {rows} rows, "
                    f"gpus '{gpus}'")
    if int(rows) > 0 and "unverified" in status[m]:
        fail.append(f"mxc models: {m} replays {rows} GPU rows but says "
                    f"'{status[m]}'")
    if int(rows) == 0 and "unverified on hardware" not in status[m]:
        fail.append(f"mxc models: {m} has no captures but says '{status[m]}'")
km = pathlib.Path(km)
# Captures committed in the repository (tests/data/<folder>/<model>.*.tsv.gz):
# always checked.
import gzip
repo = pathlib.Path(doc).resolve().parent.parent
in_repo = 0
for m, (lvl, rows, gpus, caps) in sorted(code.items()):
    if not caps.startswith("tests/data/"):
        continue
    files = sorted(repo.glob(caps + "tsv.gz"))
    n = sum(1 for f in files for l in gzip.open(f, "rt").read().splitlines()
            if l.strip() and not l.startswith("#"))
    if not files or n != int(rows):
        fail.append(f"model table: {m}: {rows} capture rows, "
                    f"{caps}tsv.gz hold {n} in {len(files)} files")
    in_repo += 1
print(f"models doc: {in_repo} tests/data capture row counts checked")
checked = 0
if km.is_dir():
    for m, (lvl, rows, gpus, caps) in sorted(code.items()):
        if not caps.startswith("km-hardware/"):
            continue
        files = sorted(km.glob(caps[len("km-hardware/"):] + "tsv"))
        n = sum(1 for f in files for l in f.read_text().splitlines()
                if l.strip() and not l.startswith("#"))
        if not files or n != int(rows):
            fail.append(f"model table: {m}: {rows} capture rows, "
                        f"{km}/{caps[12:]}tsv hold {n} in {len(files)} files")
        checked += 1
    print(f"models doc: {checked} km-hardware row counts checked in {km}")
else:
    print(f"models doc: {km} not found: capture row counts not checked "
          "(set MXC_KM_HARDWARE_DIR)")
for f in fail:
    print("FAIL:", f)
if fail:
    sys.exit(1)
print(f"models doc: {len(code)} models agree with {doc}")
PY
