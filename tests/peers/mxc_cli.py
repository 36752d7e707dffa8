"""Run the real `mxc quantize` binary on many blocks in one process call."""

import os
import subprocess
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def mxc_path():
    p = Path(os.environ.get("MXC", ROOT / "build" / "bin" / "mxc"))
    if not p.is_file():
        raise FileNotFoundError(
            f"{p}: the mxc binary is missing (build it: cmake --build build "
            "--target mxc, or set MXC=/path/to/mxc)")
    return p


def mxc_quantize(profile, elem, blocks, tensor_amax=None):
    """blocks: uint32 array (count, n) of f32 bits. Returns (scales uint8
    (count,), codes uint8 (count, n)) from one `mxc quantize` call. MX
    profiles take elem and the block size; NVFP4 profiles (blocks of 16,
    E2M1) take the tensor amax (f32 bits) instead."""
    lines = "\n".join(" ".join(f"{int(v):08X}" for v in row) for row in blocks)
    if tensor_amax is None:
        opts = ["--elem", elem, "--block", str(blocks.shape[1])]
    else:
        opts = ["--tensor-amax", f"{int(tensor_amax):08X}"]
    r = subprocess.run(
        [str(mxc_path()), "quantize", "--profile", profile, *opts],
        input=lines + "\n", capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"mxc quantize --profile {profile} --elem {elem} "
                           f"failed ({r.returncode}): {r.stderr.strip()}")
    rows = [ln.split() for ln in r.stdout.splitlines() if ln.strip()]
    if len(rows) != len(blocks):
        raise RuntimeError(f"mxc returned {len(rows)} rows for {len(blocks)} blocks")
    scales = np.array([int(t[0], 16) for t in rows], dtype=np.uint8)
    codes = np.array([[int(c, 16) for c in t[1:]] for t in rows], dtype=np.uint8)
    return scales, codes
