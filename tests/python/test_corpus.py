"""Every committed golden vector file (vectors/*.txt, written by `mxc
gen`) recomputed through the Python API: the same bytes, case by case.
An op the package does not expose must be listed in NOT_EXPOSED, so a new
op in the corpus fails here until it is covered or listed."""

import numpy as np
import pytest

import mxconform as mx
from mxconform import vectors

from conftest import VECTORS

FILES = sorted(VECTORS.glob("*.txt"))
NOT_EXPOSED = {"mx-dot"}  # the block dot product: no Python entry point


def test_corpus_is_there():
    assert len(FILES) >= 30, f"committed corpus missing under {VECTORS}"


def _pack(elem, codes):
    if elem == "e2m1":
        return mx.pack_fp4(codes)
    if elem in ("e2m3", "e3m2"):
        return mx.pack_fp6(codes)
    return codes


def _unpack(elem, b, n):
    if elem == "e2m1":
        return mx.unpack_fp4(b, n)
    if elem in ("e2m3", "e3m2"):
        return mx.unpack_fp6(b, n)
    return b


def check_convert(v):
    h = v.header
    src, to = h["from"], h["to"]
    codes = mx.formats()
    bits = {f["name"]: f["bits"] for f in codes}
    dt = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
    width = lambda f: dt[min(w for w in (8, 16, 32, 64) if w >= bits[f])]
    x = v.inputs[:, 0].astype(width(src))
    rb = v.inputs[:, 1].astype(np.uint32) if h["round"].startswith("rs") else None
    got = mx.convert(x, to, round=h["round"], saturate=h["overflow"] == "satfinite",
                     relu=h["relu"] == "1", rbits=rb, from_fmt=src)
    got = np.asarray(got).view(width(to)).astype(np.uint64)
    np.testing.assert_array_equal(got, v.expected[:, 0])


def check_mx_quantize(v):
    h = v.header
    blk, elem = int(h["block"]), h["elem"]
    x = v.inputs.astype(np.uint32).view(np.float32)
    q = mx.quantize(x, h["profile"], elem=elem, block=blk)
    assert q.scales.shape == (len(x), 1)
    np.testing.assert_array_equal(q.scales[:, 0], v.expected[:, 0])
    packed = np.stack([_pack(elem, r) for r in q.codes])
    np.testing.assert_array_equal(packed, v.expected[:, 1:])


def check_nvfp4_quantize(v):
    h = v.header
    sr = h.get("sr", "0") == "1"
    for row, want in zip(v.inputs, v.expected):
        amax = np.uint32(row[0]).view(np.float32)
        x = row[1:17].astype(np.uint32).view(np.float32)
        rb = row[17:33].astype(np.uint32) if sr else None
        q = mx.quantize(x, h["profile"], tensor_amax=amax, rbits=rb)
        assert int(q.scales[0]) == want[0]
        np.testing.assert_array_equal(mx.pack_fp4(q.codes), want[1:])


def check_mx_dequantize(v):
    h = v.header
    elem, blk = h["elem"], int(h["block"])
    for row, want in zip(v.inputs, v.expected):
        codes = _unpack(elem, row[1:].astype(np.uint8), blk)
        got = mx.dequantize(row[:1].astype(np.uint8), codes, elem=elem, block=blk)
        np.testing.assert_array_equal(got.view(np.uint32), want.astype(np.uint32))


def _model(name):
    return next(m for m in mx.models() if m["name"] == name)


def _c_dtype(m):
    return (np.float16, np.uint16) if m["c_fmt"] == "f16" else (np.float32, np.uint32)


def check_mma(v):
    h = v.header
    m = _model(h["model"])
    k = int(h.get("k", m["k"]))
    ns = k // m["scale_block"] if m["scale_block"] else 0
    fdt, udt = _c_dtype(m)
    wide = lambda f: np.uint32 if f == "tf32" else np.uint8
    for row, want in zip(v.inputs, v.expected):
        a = row[:k].astype(wide(h["a-fmt"]))
        b = row[k:2 * k].astype(wide(h["b-fmt"]))
        sa = row[2 * k:2 * k + ns].astype(np.uint8) if ns else None
        sb = row[2 * k + ns:2 * k + 2 * ns].astype(np.uint8) if ns else None
        c = np.array(row[-1], udt).view(fdt)[()]
        d = mx.mma(a, b, c, model=h["model"], a_fmt=h["a-fmt"], b_fmt=h["b-fmt"],
                   a_scales=sa, b_scales=sb)
        assert int(np.array(d).view(udt)) == want[0]


def check_gemm(v):
    h = v.header
    m = _model(h["model"])
    M, N, K = int(h["m"]), int(h["n"]), int(h["k"])
    lay, sk = h["layout"], int(h.get("split-k", 1))
    blk = m["scale_block"]
    ns = K // blk if blk else 0
    fdt, udt = _c_dtype(m)
    for row, want in zip(v.inputs, v.expected):
        o = 0
        a = row[o:o + M * K].astype(np.uint8); o += M * K
        b = row[o:o + N * K].astype(np.uint8); o += N * K
        sa = row[o:o + M * ns].astype(np.uint8).reshape(M, ns) if ns else None; o += M * ns
        sb = row[o:o + N * ns].astype(np.uint8).reshape(N, ns) if ns else None; o += N * ns
        c = row[o:o + M * N].astype(udt).reshape(N, M).T.view(fdt)
        a = a.reshape((M, K) if lay[0] == "T" else (K, M))
        b = b.reshape((N, K) if lay[1] == "N" else (K, N))
        d = mx.gemm(a, b, sa, sb, np.ascontiguousarray(c), model=h["model"],
                    a_fmt=h["a-fmt"], b_fmt=h["b-fmt"], layout=lay, split_k=sk)
        np.testing.assert_array_equal(d.view(udt).T.reshape(-1),
                                      want.astype(udt))


CHECKS = {"convert": check_convert, "mx-quantize": check_mx_quantize,
          "nvfp4-quantize": check_nvfp4_quantize,
          "mx-dequantize": check_mx_dequantize, "mma": check_mma,
          "gemm": check_gemm}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_corpus_file(path):
    v = vectors.load(path)
    op = v.header["op"]
    if op in NOT_EXPOSED:
        pytest.skip(f"op {op} has no Python entry point")
    assert op in CHECKS, f"{path.name}: op {op} is neither checked nor listed"
    assert len(v.inputs) == int(v.header["cases"])
    CHECKS[op](v)
