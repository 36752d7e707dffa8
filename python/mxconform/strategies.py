"""Hypothesis strategies for MX and NVFP4 blocks (needs hypothesis).

    from hypothesis import given
    from mxconform.strategies import mx_blocks

    @given(mx_blocks("ocp-v1", elem="e4m3"))
    def test_my_quantizer(x):
        assert_bitexact(my_quantize(x), mxconform.quantize(x, "ocp-v1"),
                        inputs=x)

The blocks hit the classes mxconform's own vector generator targets
(conformance/block_cases.cpp): zero and -0 blocks, amax exactly at a power
of two and one ulp either side, amax at max_elem * 2^k and one ulp either
side, elements exactly halfway between two element values after scaling
(ties), subnormal amax, Inf and NaN elements, and plain random blocks.
Every block is a float32 numpy array of the block size.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

try:
    from hypothesis import strategies as st
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("mxconform.strategies needs hypothesis "
                      "(pip install hypothesis)") from e

from ._api import _fmt_info, _profile

__all__ = ["mx_blocks", "nvfp4_blocks", "element_values"]


def _f32(v):
    return np.float32(v)


def _ulp_around(v):
    # A power of two past FLT_MAX becomes inf (the caller draws 1.0 then),
    # without numpy's overflow warning in the user's test run.
    with np.errstate(over="ignore"):
        v = np.float32(v)
    return [np.nextafter(v, np.float32(0)), v, np.nextafter(v, np.float32(np.inf))]


def element_values(elem: str):
    """Every finite value of element format `elem` (sorted, non-negative)."""
    from ._api import decode

    info = _fmt_info(elem, "elem")
    n = 1 << info["bits"]
    codes = np.arange(min(n, 256), dtype=np.uint8)
    v = decode(codes, elem, "f64")
    v = np.unique(np.abs(v[np.isfinite(v)]))
    return v


def _block(n, draw_fill, amax_val, rng_vals, sign_bits):
    x = np.array(rng_vals[:n], dtype=np.float32)
    x[0] = amax_val
    return np.where(sign_bits[:n], -x, x).astype(np.float32)


@st.composite
def _mx_block(draw, n, elem):
    info = _fmt_info(elem, "elem")
    emax, maxv = info["emax"], info["max_finite"]
    vals = element_values(elem)
    kind = draw(st.sampled_from(["zero", "negzero", "pow2", "maxk", "tie",
                                 "subnormal", "special", "random"]))
    k = draw(st.integers(-120, 120))
    signs = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    rnd = np.array(draw(st.lists(
        st.floats(-1, 1, width=32, allow_subnormal=False), min_size=n,
        max_size=n)), dtype=np.float32)
    if kind == "zero":
        return np.zeros(n, np.float32)
    if kind == "negzero":
        x = np.zeros(n, np.float32)
        x[draw(st.integers(0, n - 1))] = -0.0
        return x
    if kind in ("pow2", "maxk"):
        base = 2.0 ** (k + emax) if kind == "pow2" else maxv * 2.0 ** k
        amax = draw(st.sampled_from(_ulp_around(base)))
        if not np.isfinite(amax) or amax == 0:
            amax = np.float32(1.0)
        x = (rnd * amax).astype(np.float32)
        x[draw(st.integers(0, n - 1))] = amax
        return np.where(signs, -np.abs(x), np.abs(x)).astype(np.float32)
    if kind == "tie":
        k = draw(st.integers(-100, 100))
        scale = 2.0 ** k
        i = draw(st.integers(1, len(vals) - 1))
        mid = (vals[i - 1] + vals[i]) / 2  # exactly halfway (f64)
        x = np.full(n, np.float32(mid * scale))
        x[0] = np.float32(maxv * scale)  # amax pins the scale to 2^k
        return np.where(signs, -x, x).astype(np.float32)
    if kind == "subnormal":
        m = draw(st.integers(1, (1 << 23) - 1))
        amax = np.uint32(m).view(np.float32)
        x = (rnd * amax).astype(np.float32)
        x[0] = amax
        return x
    if kind == "special":
        x = (rnd * np.float32(2.0 ** draw(st.integers(-20, 20)))).astype(
            np.float32)
        x[draw(st.integers(0, n - 1))] = draw(st.sampled_from(
            [np.inf, -np.inf, np.nan]))
        return x.astype(np.float32)
    return (rnd * np.float32(2.0 ** k)).astype(np.float32)


def mx_blocks(profile: str = "ocp-v1", elem: Optional[str] = None,
              block: Optional[int] = None):
    """float32 blocks for MX profile `profile` (element format `elem`,
    default the profile's; `block` elements, default the profile's)."""
    p = _profile(profile)
    if p["kind"] != "mx":
        raise ValueError(f"profile: {profile!r} is not an MX profile "
                         "(use nvfp4_blocks)")
    from ._api import _MX_ELEMS, _check_int, _check_str

    e = p["default_elem"] if elem is None else _check_str(elem, "elem")
    if e not in _MX_ELEMS:
        raise ValueError(f"elem: MX elements are {', '.join(_MX_ELEMS)}; "
                         f"got {e!r}")
    block = _check_int(block, "block", hi=1 << 16)
    return _mx_block(block or p["block"], e)


@st.composite
def _nvfp4(draw):
    x = draw(_mx_block(16, "e2m1"))
    finite = np.abs(x[np.isfinite(x)])
    amax = float(finite.max()) if finite.size else 0.0
    j = draw(st.integers(0, 8))
    t = np.float32(amax * 2.0 ** j) if np.isfinite(amax * 2.0 ** j) else \
        np.float32(amax)
    return x, t


def nvfp4_blocks():
    """(x, tensor_amax): a float32 block of 16 and a tensor amax at the
    block's own amax times 2^j, j in 0..8 (as the vector generator draws
    it)."""
    return _nvfp4()
