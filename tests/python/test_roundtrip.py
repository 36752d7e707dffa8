"""Round trips and layout identities, with expected values from the
sources the C++ headers cite (PTX cvt .e2m1x2 nibble order, the cuBLAS
128x4 scale layout formula, OCP MX v1.0 value tables)."""

import numpy as np
import pytest

import mxconform as mx

RNG = np.random.default_rng(5)


def test_formats_table():
    f = {r["name"]: r for r in mx.formats()}
    # OCP MX v1.0 section 5.3: largest finite values.
    assert f["e4m3"]["max_finite"] == 448.0
    assert f["e5m2"]["max_finite"] == 57344.0
    assert f["e3m2"]["max_finite"] == 28.0
    assert f["e2m3"]["max_finite"] == 7.5
    assert f["e2m1"]["max_finite"] == 6.0
    assert f["e8m0"]["bits"] == 8 and not f["e8m0"]["signed"]


def test_e2m1_values():
    # OCP MX v1.0 table: E2M1 magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6.
    vals = mx.decode(np.arange(16, dtype=np.uint8), "e2m1")
    np.testing.assert_array_equal(vals[:8], [0, .5, 1, 1.5, 2, 3, 4, 6])
    np.testing.assert_array_equal(vals[8:], -vals[:8])


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1",
                                 "e8m0", "ue4m3", "int8"])
def test_decode_then_convert_is_identity(fmt):
    bits = next(r["bits"] for r in mx.formats() if r["name"] == fmt)
    # ue4m3 is unsigned: 7 bits of the byte hold the code.
    codes = np.arange(128 if fmt == "ue4m3" else 1 << bits, dtype=np.uint8)
    vals = mx.decode(codes, fmt)
    back = mx.convert(vals, fmt)  # exact values: no rounding, Inf stays Inf
    nan = np.isnan(vals)
    np.testing.assert_array_equal(back[~nan], codes[~nan])


def test_pack_fp4_nibble_order():
    # Element 2i in the low nibble (PTX cvt .e2m1x2 / CUDA __nv_fp4x2).
    np.testing.assert_array_equal(mx.pack_fp4(np.array([1, 2, 3], np.uint8)),
                                  [0x21, 0x03])
    c = RNG.integers(0, 16, 1001).astype(np.uint8)
    np.testing.assert_array_equal(mx.unpack_fp4(mx.pack_fp4(c), c.size), c)


def test_pack_fp6_layout():
    # Four codes in three bytes, little-endian bit stream (CUTLASS subbyte).
    c = np.array([0x3F, 0x00, 0x3F, 0x00], np.uint8)
    np.testing.assert_array_equal(mx.pack_fp6(c), [0x3F, 0xF0, 0x03])
    c = RNG.integers(0, 64, 999).astype(np.uint8)
    np.testing.assert_array_equal(mx.unpack_fp6(mx.pack_fp6(c), c.size), c)


def test_swizzle_formula():
    rows, kb = 200, 7
    s = RNG.integers(0, 256, (rows, kb)).astype(np.uint8)
    t = mx.swizzle_scales(s)
    ncb = (kb + 3) // 4
    assert t.size == ((rows + 127) // 128) * 128 * ncb * 4
    for r in range(rows):
        for c in range(kb):
            off = ((r // 128) * ncb + c // 4) * 512 + (r % 32) * 16 + \
                ((r % 128) // 32) * 4 + (c % 4)
            assert t[off] == s[r, c]
    np.testing.assert_array_equal(mx.unswizzle_scales(t, rows, kb), s)


@pytest.mark.parametrize("profile", [p["name"] for p in mx.profiles()])
@pytest.mark.parametrize("axis", [-1, 0])
def test_quantize_dequantize_every_profile(profile, axis):
    x = (RNG.standard_normal((128, 256)) * 3).astype(np.float32)
    q = mx.quantize(x, profile, axis=axis)
    kind = q.kind
    blk = q.block
    assert q.codes.shape == x.shape
    want_s = (128, 256 // blk) if axis == -1 else (128 // blk, 256)
    assert q.scales.shape == want_s
    y = mx.dequantize(q)
    # Quantization error is bounded by half the block's amax (a scale that
    # rounds down saturates elements at most a factor 2 below amax).
    xb = x if axis == -1 else x.T
    yb = y if axis == -1 else y.T
    amax = np.abs(xb.reshape(xb.shape[0], -1, blk)).max(axis=2, keepdims=True)
    err = np.abs((xb - yb).reshape(amax.shape[0], -1, blk))
    assert np.all(err <= amax * 0.5), kind
    # Column-wise is row-wise of the transpose.
    if axis == 0:
        qt = mx.quantize(np.ascontiguousarray(x.T), profile)
        np.testing.assert_array_equal(qt.codes.T, q.codes)
        np.testing.assert_array_equal(qt.scales.T, q.scales)


def test_quantize_2d_tiles_broadcast():
    x = (RNG.standard_normal((64, 64))).astype(np.float32)
    q = mx.quantize(x, "ocp-v1", tile=32)
    assert q.scales.shape == (64, 2)
    # One scale per 32x32 tile, broadcast down its 32 rows.
    for r0 in (0, 32):
        assert np.all(q.scales[r0:r0 + 32] == q.scales[r0])
    n = mx.quantize(x, "te-nvfp4", tile=16)
    assert n.scales.shape == (64, 4)
    assert np.all(n.scales[0:16] == n.scales[0])


def test_quantize_leading_dims_and_1d():
    x = RNG.standard_normal((2, 3, 64)).astype(np.float32)
    q = mx.quantize(x, "ocp-v1")
    assert q.scales.shape == (2, 3, 2) and q.codes.shape == x.shape
    q1 = mx.quantize(x.reshape(-1), "ocp-v1")
    np.testing.assert_array_equal(q1.codes, q.codes.reshape(-1))
    np.testing.assert_array_equal(q1.scales, q.scales.reshape(-1))


def test_nvfp4_rows_without_tensor_amax():
    # Without tensor_amax= the binding takes the tensor amax and every
    # block's amax in one pass and the row kernels read the blocks'
    # (emu/fast/amax.h abs_max_bits16): the same result as passing the
    # tensor amax numpy computes, for every NVFP4 profile (one and two
    # candidates), with a zero block, subnormals and a huge block among
    # many groups, and the scale of the tensor amax reported.
    x = RNG.standard_normal((48, 256)).astype(np.float32)
    x[3, 16:32] = 0.0
    x[5, 32:48] *= np.float32(1e-40)
    x[7, 48:64] *= np.float32(1e30)
    amax = np.float32(np.max(np.abs(x)))
    for p in mx.profiles():
        if p["kind"] != "nvfp4":
            continue
        a = mx.quantize(x, p["name"])
        b = mx.quantize(x, p["name"], tensor_amax=amax)
        np.testing.assert_array_equal(a.scales, b.scales, err_msg=p["name"])
        np.testing.assert_array_equal(a.codes, b.codes, err_msg=p["name"])


def test_nvfp4_seed_is_rbits_stream():
    x = RNG.standard_normal((4, 32)).astype(np.float32)
    a = mx.quantize(x, "te-nvfp4", seed=11)
    b = mx.quantize(x, "te-nvfp4", seed=12)
    r = mx.quantize(x, "te-nvfp4")
    assert not np.array_equal(a.codes, b.codes)
    assert not np.array_equal(a.codes, r.codes)


def test_gemm_layouts_agree():
    m = "sm100_tcgen05_mxf8f6f4"
    M, N, K = 5, 3, 64
    a = RNG.integers(0, 256, (M, K)).astype(np.uint8)
    b = RNG.integers(0, 256, (N, K)).astype(np.uint8)
    a[(a & 0x7F) == 0x7F] = 0  # no NaN codes
    b[(b & 0x7F) == 0x7F] = 0
    sa = RNG.integers(120, 134, (M, K // 32)).astype(np.uint8)
    sb = RNG.integers(120, 134, (N, K // 32)).astype(np.uint8)
    c = RNG.standard_normal((M, N)).astype(np.float32)
    d = mx.gemm(a, b, sa, sb, c, model=m, a_fmt="e4m3", b_fmt="e4m3")
    for lay in ("NN", "NT", "TT"):
        aa = a if lay[0] == "T" else np.ascontiguousarray(a.T)
        bb = b if lay[1] == "N" else np.ascontiguousarray(b.T)
        d2 = mx.gemm(aa, bb, sa, sb, c, model=m, a_fmt="e4m3", b_fmt="e4m3",
                     layout=lay)
        np.testing.assert_array_equal(d2.view(np.uint32), d.view(np.uint32))
    # Each element is the one-instruction chain mma() computes.
    for i in range(M):
        for j in range(N):
            e = mx.mma(a[i], b[j], c[i, j], model=m, a_fmt="e4m3",
                       b_fmt="e4m3", a_scales=sa[i], b_scales=sb[j])
            assert np.float32(e).view(np.uint32) == d[i, j].view(np.uint32)
    # A float64 dequantize-and-matmul reference is close (not bit-exact:
    # the model truncates aligned terms).
    av = mx.decode(a, "e4m3", "f64") * 2.0 ** (np.repeat(sa, 32, 1) - 127.0)
    bv = mx.decode(b, "e4m3", "f64") * 2.0 ** (np.repeat(sb, 32, 1) - 127.0)
    ref = av @ bv.T + c
    np.testing.assert_allclose(d, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())


def test_vectors_generate_load_roundtrip(tmp_path):
    from mxconform import vectors
    p = tmp_path / "v.txt"
    text = vectors.generate("mx-quantize", level=0, profile="ocp-v1",
                            elem="e2m1", out=p)
    v = vectors.load(p)
    assert text.startswith("# mxconform-vectors=1")
    assert v.inputs.shape[1] == 32 and v.expected.shape[1] == 17


def test_gemm_f16_operands_from_float16_values():
    m = "sm90_wgmma_f16_f32"
    a = RNG.standard_normal((3, 32)).astype(np.float16)
    b = RNG.standard_normal((2, 32)).astype(np.float16)
    d = mx.gemm(a, b, model=m)
    for i in range(3):
        for j in range(2):
            e = mx.mma(a[i], b[j], model=m)
            assert np.float32(e).view(np.uint32) == d[i, j].view(np.uint32)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    np.testing.assert_allclose(d, ref, rtol=1e-5, atol=1e-5)


def test_threads_do_not_change_results():
    x = (RNG.standard_normal((512, 2048)) * 4).astype(np.float32)
    x[3, 5] = np.nan
    x[7, 9] = np.inf
    try:
        out = {}
        for t in (1, 2, 3):
            mx.set_num_threads(t)
            assert mx.get_num_threads() == t
            out[t] = [mx.convert(x, "e4m3"), mx.convert(x, "e2m1", round="rz"),
                      *mx.quantize(x, "ocp-v1", elem="e2m1"),
                      *mx.quantize(x, "torchao-rceil", axis=0),
                      *mx.quantize(x, "te-nvfp4"),
                      *mx.quantize(x, "cutlass-host-nvfp4", axis=0),
                      *mx.quantize(x, "te-nvfp4", seed=3)]
        for t in (2, 3):
            for a, b in zip(out[1], out[t]):
                np.testing.assert_array_equal(a, b)
    finally:
        mx.set_num_threads(0)


def test_bare_profile_names_are_the_newest_release():
    # profile_aliases() comes from the C++ table (emu/block/profile.cpp).
    x = (RNG.standard_normal((4, 64)) * 3).astype(np.float32)
    aliases = {a["alias"]: a["target"] for a in mx.profile_aliases()}
    assert aliases["torchao-floor"] == "torchao-floor@0.18"
    for alias, target in aliases.items():
        if target not in [p["name"] for p in mx.profiles()]:
            continue
        a, b = mx.quantize(x, alias), mx.quantize(x, target)
        np.testing.assert_array_equal(a.scales, b.scales)
        np.testing.assert_array_equal(a.codes, b.codes)
