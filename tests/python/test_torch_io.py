"""torch tensors in, torch tensors out (issue 27 point 9); numpy in, numpy
out. Skipped where torch is not installed (scripts/test-python's venv has
no torch by default; a venv with torch runs them: MXC_PY_VENV)."""

import numpy as np
import pytest

import mxconform as mx

X = np.random.default_rng(9).standard_normal((32, 64)).astype(np.float32)


def test_numpy_in_numpy_out():
    assert isinstance(mx.convert(X, "e4m3"), np.ndarray)
    q = mx.quantize(X, "ocp-v1")
    assert isinstance(q.codes, np.ndarray) and isinstance(q.scales,
                                                          np.ndarray)
    assert isinstance(mx.dequantize(q), np.ndarray)


def test_c_and_tensor_amax_take_0d_arrays():
    a = np.full(32, 0x38, np.uint8)
    m = "sm100_tcgen05_f8f6f4_f32"
    d0 = mx.mma(a, a, 1.5, model=m, a_fmt="e4m3", b_fmt="e4m3")
    d1 = mx.mma(a, a, np.array(1.5, np.float32), model=m, a_fmt="e4m3",
                b_fmt="e4m3")
    assert d0 == d1


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_convert_torch_in_torch_out(torch):
    t = torch.from_numpy(X)
    out = mx.convert(t, "e4m3")
    assert isinstance(out, torch.Tensor) and out.device.type == "cpu"
    assert out.dtype == torch.float8_e4m3fn
    np.testing.assert_array_equal(out.view(torch.uint8).numpy(),
                                  mx.convert(X, "e4m3"))
    assert mx.convert(t, "f16").dtype == torch.float16
    assert mx.convert(t, "bf16").dtype == torch.bfloat16
    assert mx.convert(t, "e2m1").dtype == torch.uint8


def test_quantize_torch_in_torch_out(torch):
    t = torch.from_numpy(X)
    q = mx.quantize(t, "torchao-floor")
    assert q.codes.dtype == torch.float8_e4m3fn
    if hasattr(torch, "float8_e8m0fnu"):
        assert q.scales.dtype == torch.float8_e8m0fnu
    ref = mx.quantize(X, "torchao-floor")
    np.testing.assert_array_equal(q.codes.view(torch.uint8).numpy(),
                                  ref.codes)
    np.testing.assert_array_equal(q.scales.view(torch.uint8).numpy(),
                                  ref.scales)
    d = mx.dequantize(q)
    assert isinstance(d, torch.Tensor) and d.dtype == torch.float32
    assert mx.compare(q, ref, inputs=t).ok
    qn = mx.quantize(t, "te-nvfp4", tensor_amax=torch.tensor(4.0))
    assert qn.scales.dtype == torch.float8_e4m3fn
    assert qn.codes.dtype == torch.uint8


def test_torch_transposed_and_sliced(torch):
    w = torch.from_numpy(X)
    np.testing.assert_array_equal(
        mx.convert(w.t(), "e4m3").view(torch.uint8).numpy(),
        mx.convert(np.ascontiguousarray(X.T), "e4m3"))


def test_fnuz_match_torch_casts(torch):
    # torch's own float8_e4m3fnuz / float8_e5m2fnuz casts (which we did not
    # write) on every f16 and bf16 encoding (NaN included: both give 0x80)
    # and on X; FNUZ codes come back as those dtypes; decoding every code
    # of a torch FNUZ tensor matches torch's .float().
    h = torch.from_numpy(np.arange(65536, dtype=np.uint16).view(np.int16))
    for name, fmt in [("float8_e4m3fnuz", "e4m3fnuz"),
                      ("float8_e5m2fnuz", "e5m2fnuz")]:
        dt = getattr(torch, name)
        for src in (torch.float16, torch.bfloat16):
            t = h.view(src)
            out = mx.convert(t, fmt)
            assert out.dtype == dt
            ref = t.to(dt).view(torch.uint8).numpy()
            bad = np.nonzero(out.view(torch.uint8).numpy() != ref)[0]
            assert len(bad) == 0, (name, src, len(bad), bad[:8])
        x = torch.from_numpy(X)
        np.testing.assert_array_equal(
            mx.convert(x, fmt).view(torch.uint8).numpy(),
            x.to(dt).view(torch.uint8).numpy())
        codes = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(dt)
        got, ref = np.asarray(mx.decode(codes)), codes.float().numpy()
        nan = np.isnan(ref)
        assert list(np.nonzero(nan)[0]) == [0x80]
        np.testing.assert_array_equal(np.isnan(got), nan)
        np.testing.assert_array_equal(got[~nan], ref[~nan])


@pytest.mark.skipif(int(__import__("os").environ.get("MXC_TEST_LEVEL") or 1)
                    < 2, reason="all 2^32 f32 inputs at MXC_TEST_LEVEL=2")
@pytest.mark.parametrize("name,fmt", [("float8_e4m3fnuz", "e4m3fnuz"),
                                      ("float8_e5m2fnuz", "e5m2fnuz")])
def test_fnuz_f32_exhaustive_against_torch(torch, name, fmt):
    dt = getattr(torch, name)
    step = 1 << 24
    for start in range(0, 1 << 32, step):
        bits = np.arange(start, start + step, dtype=np.uint64).astype(
            np.uint32)
        t = torch.from_numpy(bits.view(np.float32))
        ref = t.to(dt).view(torch.uint8).numpy()
        got = mx.convert(bits.view(np.float32), fmt)
        bad = np.nonzero(got != ref)[0]
        assert len(bad) == 0, (fmt, hex(start), len(bad),
                               [hex(int(bits[i])) for i in bad[:8]])
