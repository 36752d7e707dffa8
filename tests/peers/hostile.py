"""Hostile MX blocks: the inputs on which quantization conventions differ.

Every block is a row of binary32 bit patterns (numpy uint32). The classes
(issue 14): ties between element codes, amax at and one ulp around powers of
two and max_elem * 2^k, subnormal and near-FLT_MAX amax, zero and -0 blocks,
Inf and NaN elements, plus Gaussian blocks over the whole exponent range.
Deterministic: numpy's PCG64 with a fixed seed, so every machine builds the
same blocks.
"""

import numpy as np

# Largest finite value and mantissa bits of each MX element format
# (OCP MX v1.0 table 1); FP4/FP6 have no Inf/NaN.
ELEM = {
    "e4m3": (448.0, 3),
    "e5m2": (57344.0, 2),
    "e3m2": (28.0, 2),
    "e2m3": (7.5, 3),
    "e2m1": (6.0, 1),
}

F32_MAX_BITS = 0x7F7FFFFF


def _bits(x):
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def _f32(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def _ulp_around(center_bits, rng, spread=3):
    """center_bits moved by -spread..spread ulps (magnitude bits)."""
    d = rng.integers(-spread, spread + 1)
    return np.uint32(int(np.clip(int(center_bits) + int(d), 1, F32_MAX_BITS)))


def _fill(rng, n, amax_bits, kind):
    """A block of n elements whose amax is amax_bits (a finite magnitude)."""
    amax = float(_f32(amax_bits))
    if kind == 0:  # Gaussian below amax
        body = rng.standard_normal(n).astype(np.float64) * amax / 4
        body = np.clip(body, -amax, amax).astype(np.float32)
    elif kind == 1:  # uniform magnitudes over many binades below amax
        e = rng.uniform(-30, 0, n)
        body = (amax * np.exp2(e) * rng.choice([-1.0, 1.0], n)).astype(np.float32)
    else:  # all elements equal magnitude, random signs
        body = (amax * rng.choice([-1.0, 1.0], n)).astype(np.float32)
    out = _bits(body).copy()
    out[np.abs(_f32(out)) > amax] = amax_bits  # float64 rounding overshoot
    pos = rng.integers(0, n)
    out[pos] = np.uint32(amax_bits) | (np.uint32(0x80000000) if rng.random() < 0.5 else np.uint32(0))
    return out


def _ties(rng, n, elem, k):
    """Elements at exact midpoints between adjacent element codes under the
    scale 2^k that max_elem * 2^k selects (every convention picks that
    scale for amax = max_elem * 2^k when it is a normal f32)."""
    maxv, m = ELEM[elem]
    # Midpoints in the top binades of the format: (q + 0.5 ulp) * 2^k.
    top = int(np.floor(np.log2(maxv)))
    vals = []
    for _ in range(n):
        e = top - int(rng.integers(0, 3))
        ulp = 2.0 ** (e - m)
        q = 2.0**e + ulp * int(rng.integers(0, 2**m))
        v = q + ulp / 2
        if v > maxv:
            v = maxv
        vals.append(v * rng.choice([-1.0, 1.0]))
    vals = np.array(vals, dtype=np.float64) * 2.0**k
    out = _bits(vals.astype(np.float32)).copy()
    out[0] = _bits(np.float32(maxv * 2.0**k))
    return out


def hostile_blocks(elem, count, n=32, seed=14, bf16=False):
    """count blocks of n elements (uint32 f32 bits, shape (count, n)). With
    bf16, every value is a bfloat16 (low 16 bits zero: the f32 bits of the
    bf16 the library receives)."""
    rng = np.random.default_rng(seed)
    maxv, m = ELEM[elem]
    max_bits = int(_bits(np.float32(maxv)))
    blocks = []
    n_classes = 12
    for i in range(count):
        c = i % n_classes
        if c == 0:  # amax around a power of two 2^k
            k = int(rng.integers(-133, 128))
            center = int(_bits(np.float32(2.0**k))) if k >= -149 else 1
            b = _fill(rng, n, _ulp_around(center, rng), int(rng.integers(0, 3)))
        elif c == 1:  # amax around max_elem * 2^k (and its f32 neighbours)
            k = int(rng.integers(-140, 128 - int(np.log2(maxv))))
            center = int(_bits(np.float32(maxv * 2.0**k)))
            b = _fill(rng, n, _ulp_around(center, rng), int(rng.integers(0, 3)))
        elif c == 2:  # ties between element codes
            k = int(rng.integers(-120, 100))
            b = _ties(rng, n, elem, k)
        elif c == 3:  # subnormal amax
            a = int(rng.integers(1, 0x800000))
            b = _fill(rng, n, np.uint32(a), int(rng.integers(0, 3)))
        elif c == 4:  # near FLT_MAX
            a = F32_MAX_BITS - int(rng.integers(0, 1 << 22))
            b = _fill(rng, n, np.uint32(a), int(rng.integers(0, 3)))
        elif c == 5:  # zero, -0 and mixed-sign zero blocks
            sign = rng.integers(0, 3)
            b = np.zeros(n, dtype=np.uint32)
            if sign == 1:
                b[:] = 0x80000000
            elif sign == 2:
                b[rng.random(n) < 0.5] = 0x80000000
        elif c == 6:  # one Inf among finite values
            b = _fill(rng, n, _bits(np.float32(2.0 ** int(rng.integers(-126, 127)))), 0)
            b[int(rng.integers(0, n))] = 0xFF800000 if rng.random() < 0.5 else 0x7F800000
        elif c == 7:  # NaN elements among finite values (and Inf sometimes)
            b = _fill(rng, n, _bits(np.float32(2.0 ** int(rng.integers(-126, 127)))), 0)
            b[int(rng.integers(0, n))] = 0x7FC00000 if rng.random() < 0.5 else 0xFFC00000
            if rng.random() < 0.3:
                b[int(rng.integers(0, n))] = 0x7F800000
        elif c == 8:  # tiny blocks: amax below the smallest scale's range
            k = int(rng.integers(-149, -118))
            b = _fill(rng, n, _bits(np.float32(2.0**k)), int(rng.integers(0, 3)))
        elif c == 9:  # amax a few ulps above max_elem * 2^k (RCEIL log2 case)
            k = int(rng.integers(-120, 100))
            center = int(_bits(np.float32(maxv * 2.0**k)))
            b = _fill(rng, n, np.uint32(center + int(rng.integers(1, 64))), 0)
        elif c == 10:  # amax a few ulps above a power of two
            k = int(rng.integers(-120, 127))
            center = int(_bits(np.float32(2.0**k)))
            b = _fill(rng, n, np.uint32(center + int(rng.integers(1, 64))), 1)
        else:  # Gaussian over the whole range
            k = int(rng.integers(-140, 120))
            b = _fill(rng, n, _bits(np.float32(2.0**k * rng.uniform(1, 2))), 0)
        b = np.asarray(b, dtype=np.uint32)
        if bf16:
            b = _to_bf16_bits(b)
        blocks.append(b)
    return np.stack(blocks)


def _to_bf16_bits(b):
    """Round each f32 to bfloat16 (nearest even; NaN kept quiet), as f32
    bits with the low half zero."""
    b = b.astype(np.uint64)
    nan = (b & 0x7FFFFFFF) > 0x7F800000
    r = b + 0x7FFF + ((b >> 16) & 1)
    out = (r >> 16) << 16
    out = np.where(nan, (b | 0x00400000) & 0xFFFF0000, out)
    # rounding past the largest bf16 gives Inf, as torch's cast does
    return out.astype(np.uint32)
