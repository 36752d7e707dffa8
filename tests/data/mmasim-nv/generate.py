#!/usr/bin/env python3
"""Result rows of microsoft/MMA-Sim for the legacy NVIDIA mma.sync models.

Not run by CI (README.md here says how these files were made). Needs a
checkout of microsoft/MMA-Sim (its commit is written into every header) and
torch + numpy; it runs MMA-Sim's own `mma` class (mmasim/simulator/nv_ptx.py)
per instruction and writes, in the km-hardware layout that
tests/km_hardware_cli.sh replays:
  inputs-<fmt>-k<K>.tsv.gz      A then B per case (fixed-width hex fields)
  <model>.<fmt>.tsv.gz          `# ` header, then `mmasim C D` per case
Usage: generate.py MMASIM_CHECKOUT MMASIM_COMMIT OUT_DIR
"""
import gzip
import pathlib
import sys

import numpy as np
import torch

SEED = 20261204
CALLS = 79  # x 128 outputs (m16n8) = 10,112 cases; Volta m8n8: 158 x 64

# model -> (MMA-Sim arch, qualifier, A/B format, K)
MODELS = [
    ("sm70_mma_f16_f32", "Volta", "m8n8k4.f32.f16.f16.f32", "f16", 4),
    ("sm70_mma_f16_f16", "Volta", "m8n8k4.f16.f16.f16.f16", "f16", 4),
    ("sm75_mma_f16_f32", "Turing", "m16n8k8.f32.f16.f16.f32", "f16", 8),
    ("sm75_mma_f16_f16", "Turing", "m16n8k8.f16.f16.f16.f16", "f16", 8),
]
for sm, arch in (("sm80", "Ampere"), ("sm89", "Ada Lovelace"),
                 ("sm90", "Hopper"), ("sm100", "Blackwell")):
    MODELS += [
        (f"{sm}_mma_f16_f32", arch, "m16n8k16.f32.f16.f16.f32", "f16", 16),
        (f"{sm}_mma_bf16_f32", arch, "m16n8k16.f32.bf16.bf16.f32", "bf16", 16),
        (f"{sm}_mma_f16_f16", arch, "m16n8k16.f16.f16.f16.f16", "f16", 16),
        (f"{sm}_mma_tf32_f32", arch, "m16n8k8.f32.tf32.tf32.f32", "tf32", 8),
    ]

# (exponent bits, mantissa bits, hex digits, torch dtype of the bits)
FMT = {
    "f16": (5, 10, 4, torch.float16),
    "bf16": (8, 7, 4, torch.bfloat16),
    "tf32": (8, 10, 8, torch.float32),  # f32 bits, low 13 zero
    "f32": (8, 23, 8, torch.float32),
}


def encode(fmt, sign, bexp, man):
    e, m, _, _ = FMT[fmt]
    bits = (sign << (e + m)) | (bexp << m) | man
    if fmt == "tf32":
        bits <<= 13
    return bits


def draw(rng, fmt, shape, kind, base):
    """Bit patterns of `fmt` (uint64 array). kind: 'bits' (any encoding but
    NaN/Inf, which 'special' mixes in), 'cluster' (exponents within 3 of
    `base`: cancellation, alignment), 'tiny' (subnormals and the smallest
    normals), 'zeros' (cluster with a third of the values +-0)."""
    e, m, _, _ = FMT[fmt]
    emax = (1 << e) - 1
    sign = rng.integers(0, 2, shape)
    man = rng.integers(0, 1 << m, shape)
    if kind in ("bits", "special"):
        bexp = rng.integers(0, emax, shape)  # no all-ones exponent
    elif kind == "tiny":
        bexp = rng.integers(0, 3, shape)
    else:
        bexp = np.clip(base + rng.integers(-3, 1, shape), 0, emax - 1)
        # few mantissa bits: exact ties and carries in the sum
        man = man & ~((1 << max(m - rng.integers(1, m + 1), 0)) - 1)
    out = np.vectorize(lambda s, x, y: encode(fmt, int(s), int(x), int(y)),
                       otypes=[object])(sign, bexp, man)
    if kind == "zeros":
        z = rng.random(shape) < 0.35
        out[z] = np.vectorize(lambda s: encode(fmt, int(s), 0, 0),
                              otypes=[object])(sign[z])
    if kind == "special":
        r = rng.random(shape)
        out[r < 0.01] = encode(fmt, 0, emax, 0)  # +Inf
        out[(r >= 0.01) & (r < 0.02)] = encode(fmt, 1, emax, 0)  # -Inf
        out[(r >= 0.02) & (r < 0.025)] = encode(fmt, 0, emax, 1 << (m - 1))
        out[(r >= 0.025) & (r < 0.06)] = encode(fmt, 0, 0, 0)
    return out


def to_tensor(fmt, bits):
    _, _, _, dt = FMT[fmt]
    if dt == torch.float32:
        arr = np.array([int(b) for b in bits.flat], dtype=np.uint32)
        t = torch.from_numpy(arr.view(np.int32).copy()).view(torch.float32)
    else:
        arr = np.array([int(b) for b in bits.flat], dtype=np.uint16)
        t = torch.from_numpy(arr.view(np.int16).copy()).view(dt)
    return t.reshape(bits.shape)


def to_bits(t):
    if t.dtype == torch.float32:
        return [int(x) & 0xFFFFFFFF for x in t.view(torch.int32).flatten()]
    return [int(x) & 0xFFFF for x in t.view(torch.int16).flatten()]


KINDS = ["bits", "bits", "special", "cluster", "cluster", "zeros", "tiny"]


def cases(fmt, K, m, n, calls, c_fmt):
    """Deterministic per (fmt, K, call): the same A, B for every model on
    them; C per C/D format."""
    e_ab = FMT[fmt][0]
    e_c = FMT[c_fmt][0]
    for call in range(calls):
        rng = np.random.default_rng([SEED, hash_fmt(fmt), K, call])
        kind = KINDS[call % len(KINDS)]
        base_a = int(rng.integers(1, (1 << e_ab) - 2))
        base_b = int(rng.integers(1, (1 << e_ab) - 2))
        A = draw(rng, fmt, (m, K), kind, base_a)
        B = draw(rng, fmt, (K, n), kind, base_b)
        crng = np.random.default_rng([SEED, hash_fmt(fmt), K, call, e_c])
        # C near the products' scale (cluster/zeros), anywhere (bits), tiny
        ebias_ab = (1 << (e_ab - 1)) - 1
        ebias_c = (1 << (e_c - 1)) - 1
        prod = base_a + base_b - 2 * ebias_ab + ebias_c
        cbase = int(np.clip(prod + int(crng.integers(-12, 6)), 1,
                            (1 << e_c) - 2))
        C = draw(crng, c_fmt, (m, n), kind, cbase)
        yield A, B, C


def hash_fmt(fmt):
    return sum(ord(ch) << (8 * i) for i, ch in enumerate(fmt))


def hexs(fmt, v):
    return format(int(v), f"0{FMT[fmt][2]}X")


def main():
    src, commit, out = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    sys.path.insert(0, src)
    from mmasim.simulator.nv_ptx import mma  # noqa: E402

    out.mkdir(parents=True, exist_ok=True)
    written_inputs = set()
    for model, arch, qual, fmt, K in MODELS:
        sim = mma(arch, qual)
        assert sim.k == K, (model, sim.k)
        m, n = sim.m, sim.n
        calls = CALLS * 128 // (m * n)
        c_fmt = "f32" if qual.split(".")[1] == "f32" else "f16"
        in_name = f"inputs-{fmt}-k{K}.tsv"
        in_rows, rows = [], []
        for A, B, C in cases(fmt, K, m, n, calls, c_fmt):
            D = sim(to_tensor(fmt, A), to_tensor(fmt, B), to_tensor(c_fmt, C))
            d = to_bits(D)
            for i in range(m):
                for j in range(n):
                    in_rows.append("".join(hexs(fmt, x) for x in A[i, :]) +
                                   "\t" +
                                   "".join(hexs(fmt, x) for x in B[:, j]))
                    rows.append(f"mmasim\t{hexs(c_fmt, C[i, j])}\t"
                                f"{hexs(c_fmt, d[i * n + j])}")
        if in_name not in written_inputs:
            with gzip.GzipFile(out / (in_name + ".gz"), "wb", mtime=0) as f:
                f.write(("\n".join(in_rows) + "\n").encode())
            written_inputs.add(in_name)
        head = (f"# model={model} a-fmt={fmt} b-fmt={fmt} c-fmt={c_fmt} "
                f"k={K} inputs={in_name} zero-exp=operand-min "
                f"zero-sign=positive\n"
                f"# gpu=mmasim: microsoft/MMA-Sim {commit} "
                f"nv_ptx.mma('{arch}', '{qual}'), {len(rows)} cases\n")
        with gzip.GzipFile(out / f"{model}.{fmt}.tsv.gz", "wb", mtime=0) as f:
            f.write((head + "\n".join(rows) + "\n").encode())
        print(model, len(rows), flush=True)


if __name__ == "__main__":
    main()
