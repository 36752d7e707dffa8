#!/usr/bin/env python3
"""Re-lays out the Khattak-Mikaitis A2/A100/Ada/L40S/V100/H100/H200/B200
wmma captures
(north-numerical-computing/MATLAB-tensor-core, model_validation/, BSD-2)
into the km-hardware layout (README.md here). Not run by CI; it reads the
upstream files from a git checkout with `git show COMMIT:PATH`, converts
nothing but the notation (checking that every value is exact where the
capture bench converted it), and writes .tsv.gz files.
Usage: relayout.py KM_GIT_DIR COMMIT OUT_DIR
"""
import gzip
import pathlib
import subprocess
import sys

import numpy as np

GIT, COMMIT, OUT = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])


def show(path):
    return subprocess.run(["git", "--git-dir", GIT, "show", f"{COMMIT}:{path}"],
                          check=True, capture_output=True,
                          text=True).stdout.splitlines()


def f32_words(line):
    return [int(w, 16) for w in line.split()]


def as_f32(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


def to_f16(bits, exact):
    """f32 bit patterns -> f16 bits (RNE, as __float2half). exact: the bench
    gave values already in f16, so rounding must not change them."""
    x = as_f32(bits)
    h = x.astype(np.float16)
    if exact:
        assert np.array_equal(h.astype(np.float32).view(np.uint32),
                              x.view(np.uint32)), bits
    return [int(v) for v in h.view(np.uint16)]


def to_bf16(bits):
    for b in bits:
        assert b & 0xFFFF == 0, hex(b)  # exact in bf16
    return [b >> 16 for b in bits]


def bin_rows(path):
    return [int(l.strip(), 2) for l in show(path) if l.strip()]


def write(name, text):
    with gzip.GzipFile(OUT / (name + ".gz"), "wb", mtime=0) as f:
        f.write(text.encode())


def inputs(name, fmt, k, a_path, b_path, conv):
    rows = []
    for la, lb in zip(show(a_path), show(b_path)):
        a, b = conv(f32_words(la)), conv(f32_words(lb))
        assert len(a) == len(b) <= k
        w = 8 if fmt == "tf32" else 4
        pad = [0] * (k - len(a))
        rows.append("".join(f"{v:0{w}X}" for v in a + pad) + "\t" +
                    "".join(f"{v:0{w}X}" for v in b + pad))
    write(name, "\n".join(rows) + "\n")
    return len(rows)


OUT.mkdir(parents=True, exist_ok=True)
MV = "model_validation"
n = {}
n["f16"] = inputs("inputs-f16.tsv", "f16", 16, f"{MV}/A2/fp16/a_A2_fp16.txt",
                  f"{MV}/A2/fp16/b_A2_fp16.txt", lambda v: to_f16(v, True))
n["bf16"] = inputs("inputs-bf16.tsv", "bf16", 16,
                   f"{MV}/A2/bf16/a_A2_bf16.txt",
                   f"{MV}/A2/bf16/b_A2_bf16.txt", to_bf16)
n["tf32"] = inputs("inputs-tf32.tsv", "tf32", 8, f"{MV}/A2/tf32/a_A2_tf32.txt",
                   f"{MV}/A2/tf32/b_A2_tf32.txt", lambda v: v)
# V100: the bench read the tf32 files' f32 words and rounded them to f16
# (__float2half, RNE): the operands are those f16 values.
# H100, H200 and B200 share other f16/bf16 A and B files (16 non-zero k).
n["h-f16"] = inputs("inputs-h-f16.tsv", "f16", 16,
                    f"{MV}/H100/fp16/a_H100_fp16.txt",
                    f"{MV}/H100/fp16/b_H100_fp16.txt",
                    lambda v: to_f16(v, True))
n["h-bf16"] = inputs("inputs-h-bf16.tsv", "bf16", 16,
                     f"{MV}/H100/bf16/a_H100_bf16.txt",
                     f"{MV}/H100/bf16/b_H100_bf16.txt", to_bf16)
n["v100-f16"] = inputs("inputs-v100-f16.tsv", "f16", 4,
                   f"{MV}/V100/fp16/a_V100_fp16.txt",
                   f"{MV}/V100/fp16/b_V100_fp16.txt",
                   lambda v: to_f16(v, False))

# (model, fmt, inputs, K, [(gpu, dir, C/D type)], shape of the capture)
SETS = []
for sm, gpus in (("sm80", ["A2", "A100"]), ("sm89", ["Ada", "L40S"])):
    SETS += [
        (f"{sm}_mma_f16_f32", "f16", "inputs-f16.tsv", 16, gpus, "fp16",
         "fp32", "wmma m16n16k16 f16 -> f32, 8 non-zero k"),
        (f"{sm}_mma_f16_f16", "f16", "inputs-f16.tsv", 16, gpus, "fp16",
         "fp16", "wmma m16n16k16 f16 -> f16, 8 non-zero k"),
        (f"{sm}_mma_bf16_f32", "bf16", "inputs-bf16.tsv", 16, gpus, "bf16",
         "fp32", "wmma m16n16k16 bf16 -> f32, 8 non-zero k"),
        (f"{sm}_mma_tf32_f32", "tf32", "inputs-tf32.tsv", 8, gpus, "tf32",
         "fp32", "wmma m16n16k8 tf32 -> f32, 4 non-zero k"),
    ]
for sm, gpus in (("sm90", ["H100", "H200"]), ("sm100", ["B200"])):
    SETS += [
        (f"{sm}_mma_f16_f32", "f16", "inputs-h-f16.tsv", 16, gpus, "fp16",
         "fp32", "wmma m16n16k16 f16 -> f32, 16 non-zero k"),
        (f"{sm}_mma_f16_f16", "f16", "inputs-h-f16.tsv", 16, gpus, "fp16",
         "fp16", "wmma m16n16k16 f16 -> f16, 16 non-zero k"),
        (f"{sm}_mma_bf16_f32", "bf16", "inputs-h-bf16.tsv", 16, gpus, "bf16",
         "fp32", "wmma m16n16k16 bf16 -> f32, 16 non-zero k"),
        (f"{sm}_mma_tf32_f32", "tf32", "inputs-tf32.tsv", 8, gpus, "tf32",
         "fp32", "wmma m16n16k8 tf32 -> f32, 4 non-zero k"),
    ]
SETS += [
    ("sm70_mma_f16_f32", "f16", "inputs-v100-f16.tsv", 4, ["V100"], "fp16",
     "fp32", "wmma m16n16k16 f16 -> f32, 4 non-zero k (the 12 zero k dropped)"),
    ("sm70_mma_f16_f16", "f16", "inputs-v100-f16.tsv", 4, ["V100"], "fp16",
     "fp16", "wmma m16n16k16 f16 -> f16, 4 non-zero k (the 12 zero k dropped)"),
]
for model, fmt, inp, k, gpus, sub, out, what in SETS:
    cfmt = "f32" if out == "fp32" else "f16"
    rows, files = [], []
    for g in gpus:
        c_path = f"{MV}/{g}/{sub}/c_{g}_fp32.txt"
        d_path = f"{MV}/{g}/{sub}/d_{g}_{out}.txt"
        files += [c_path, d_path]
        c, d = bin_rows(c_path), bin_rows(d_path)
        assert len(c) == len(d) == n[inp[len("inputs-"):-len(".tsv")]]
        if cfmt == "f16":
            c = to_f16(c, False)  # the bench's __float2half(C)
            d = to_f16(d, True)  # __half2float(D): exact
        w = 8 if cfmt == "f32" else 4
        rows += [f"{g}\t{x:0{w}X}\t{y:0{w}X}" for x, y in zip(c, d)]
    head = (f"# model={model} a-fmt={fmt} b-fmt={fmt} c-fmt={cfmt} k={k} "
            f"inputs={inp} gpus={','.join(gpus)}\n"
            f"# captured with {what}; KM MATLAB-tensor-core {COMMIT} "
            f"{' '.join(files)}\n")
    write(f"{model}.{fmt}.tsv", head + "\n".join(rows) + "\n")
    print(model, len(rows))
