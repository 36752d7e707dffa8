"""A tiny MXFP8 "kernel" in numpy: E4M3 elements, one E8M0 scale per 32
elements, the scale rounded up (RCEIL, as torchao's MXFP8 path on main,
profile torchao-rceil@main-5d73a0c1 in mxconform).

KERNEL_GATE_BUG plants a classic bug, for the gate to catch:
  floor  the scale rounded down (floor(log2 amax)) instead of RCEIL
  tie    elements rounded half away from zero (the tie-to-even rule dropped)
"""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np

BLOCK = 32
E4M3_MAX = np.float32(448.0)
_BUGS = ("", "floor", "tie")


def _bug() -> str:
    bug = os.environ.get("KERNEL_GATE_BUG", "")
    if bug not in _BUGS:
        raise ValueError(f"KERNEL_GATE_BUG: expected floor or tie, got {bug!r}")
    return bug


def _scale_bytes(amax: np.ndarray, bug: str) -> np.ndarray:
    """E8M0 scale per block: round up fl(amax * fl(1/448)) to a power of two
    (NaN, Inf and above 2^127: 0xFF)."""
    q = (amax * np.float32(1.0 / 448.0)).astype(np.float32)
    bits = q.view(np.uint32)
    exp = ((bits >> 23) & 0xFF).astype(np.int64)
    man = (bits & 0x7FFFFF).astype(np.int64)
    up = 0 if bug == "floor" else (man != 0)
    byte = np.where(exp > 0, exp + up,
                    # a subnormal quotient: 2^-127 (byte 0) or 2^-126 (byte 1)
                    np.where(man > (1 << 22), 1, 0))
    return np.minimum(byte, 255).astype(np.uint8)


def _to_e4m3(y: np.ndarray, bug: str) -> np.ndarray:
    """float32 -> E4M3 codes, round to nearest even (ml_dtypes), after the
    clamp to +-448."""
    y = np.clip(y, -E4M3_MAX, E4M3_MAX)
    codes = y.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    if bug == "tie":
        # Half away from zero: a tie that went down to the even code goes up.
        mag = codes & 0x7F
        nxt = np.minimum(mag + 1, 0x7E).astype(np.uint8)
        lo = mag.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
        hi = nxt.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
        tie = (np.abs(y) - lo == hi - np.abs(y)) & (mag < 0x7E) & (hi > lo)
        codes = np.where(tie, (codes & 0x80) | nxt, codes).astype(np.uint8)
    return codes


def quantize_mxfp8(x):
    """x: float32 [..., N*32] -> (scales uint8 [..., N], codes uint8 like x)."""
    bug = _bug()
    x = np.asarray(x, dtype=np.float32)
    if x.shape[-1] % BLOCK:
        raise ValueError(f"x: last axis {x.shape[-1]} is not a multiple of {BLOCK}")
    blocks = x.reshape(-1, BLOCK)
    amax = np.max(np.abs(blocks), axis=1)  # NaN propagates
    byte = _scale_bytes(amax, bug)
    # fl(x * 2^(127 - byte)) (byte 0: x * 2^127); 0xFF gives NaN.
    mult = np.ldexp(np.float32(1.0), 127 - byte.astype(np.int32))
    mult = np.where(byte == 255, np.float32(np.nan), mult).astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        y = (blocks * mult[:, None]).astype(np.float32)
    codes = _to_e4m3(y, bug)
    return (byte.reshape(x.shape[:-1] + (-1,)), codes.reshape(x.shape))


__all__ = ["quantize_mxfp8"]
