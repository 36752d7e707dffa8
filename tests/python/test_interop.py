"""Interop with ml_dtypes and torch: their narrow-float arrays are taken
as codes of their format, and their own casts serve as an independent
reference (ml_dtypes 0.4+, torch 2.x: round to nearest even, OCP
non-saturating overflow for FP8; FP6/FP4 saturate by format). NaN inputs
are left out of the equality: the NaN encoding a cast produces is an
implementation choice (ml_dtypes keeps the sign, mxconform gives 0x7F),
which compare() classifies as nan-payload."""

import numpy as np
import pytest

import mxconform as mx
from mxconform.testing import assert_bitexact

ml_dtypes = pytest.importorskip("ml_dtypes")

RNG = np.random.default_rng(21)
X = np.concatenate([
    RNG.integers(0, 2**32, 100000, dtype=np.uint64).astype(np.uint32)
    .view(np.float32),
    (RNG.standard_normal(100000) * 2.0 ** RNG.integers(-30, 20, 100000))
    .astype(np.float32)])
X = X[~np.isnan(X)]
ML = [("float8_e4m3fn", "e4m3"), ("float8_e5m2", "e5m2"),
      ("float6_e2m3fn", "e2m3"), ("float6_e3m2fn", "e3m2"),
      ("float4_e2m1fn", "e2m1"), ("float8_e4m3fnuz", "e4m3fnuz"),
      ("float8_e5m2fnuz", "e5m2fnuz"), ("float8_e4m3b11fnuz", "e4m3b11fnuz")]


@pytest.mark.parametrize("dt,fmt", ML)
def test_convert_equals_ml_dtypes_cast(dt, fmt):
    t = getattr(ml_dtypes, dt)
    ref = X.astype(t)
    assert_bitexact(mx.convert(X, fmt), ref, inputs=X)
    h = np.arange(65536, dtype=np.uint16).view(np.float16)
    h = h[~np.isnan(h)]
    assert_bitexact(mx.convert(h, fmt), h.astype(t), inputs=h)


@pytest.mark.parametrize("dt,fmt", ML + [("float8_e8m0fnu", "e8m0")])
def test_ml_dtypes_arrays_are_codes(dt, fmt):
    t = getattr(ml_dtypes, dt)
    n = 16 if fmt == "e2m1" else 64 if fmt in ("e2m3", "e3m2") else 256
    codes = np.arange(n, dtype=np.uint8).view(t)
    ref = codes.astype(np.float32)
    got = mx.decode(codes)  # format from the dtype
    nan = np.isnan(ref)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan], ref[~nan])


def test_bfloat16_source():
    bf = X.astype(ml_dtypes.bfloat16)
    assert_bitexact(mx.convert(bf, "e4m3"), bf.astype(ml_dtypes.float8_e4m3fn),
                    inputs=bf)
    np.testing.assert_array_equal(mx.convert(X, "bf16"), bf.view(np.uint16))


def test_negative_nan_is_a_nan_payload_difference():
    x = np.array([-np.nan, 1.0], np.float32)
    rep = mx.compare(mx.convert(x, "e4m3"), x.astype(ml_dtypes.float8_e4m3fn),
                     inputs=x)
    assert rep.by_class == {"nan-payload": 1}
    assert rep.first[0].index == (0,)
    ok = mx.compare(mx.convert(x, "e4m3"), x.astype(ml_dtypes.float8_e4m3fn),
                    inputs=x, allow=["nan-payload"])
    assert ok and ok.accepted_by == {"nan-payload": 1} and ok.mismatches == 0


def test_assert_bitexact_message_explains():
    x = np.array([0.5 * (1 + 1.125), 3.0, 1000.0], np.float32)  # 1.0625: tie
    exact = mx.convert(x, "e4m3")
    wrong = exact.copy()
    wrong[0] += 1  # the tie broken upward
    with pytest.raises(AssertionError) as e:
        assert_bitexact(wrong, exact, fmt="e4m3", inputs=x)
    msg = str(e.value)
    assert "tie-flip" in msg and "[0]" in msg and "1 mismatches" in msg
    assert "(e4m3 " in msg and "input 1.0625" in msg


def _torch():
    return pytest.importorskip("torch", reason="torch is not installed")


def test_torch_dlpack_and_float8():
    torch = _torch()
    t = torch.from_numpy(X[:4096].copy())
    for tdt, fmt in [(torch.float8_e4m3fn, "e4m3"), (torch.float8_e5m2, "e5m2")]:
        ref = t.to(tdt)
        got = mx.convert(t, fmt)  # a torch tensor in, through DLPack
        assert_bitexact(got, ref, inputs=t)
        # A torch float8 tensor in, as codes; torch in gives torch out.
        back = mx.decode(ref)
        assert isinstance(back, torch.Tensor)
        back = back.numpy()
        want = ref.float().numpy()
        np.testing.assert_array_equal(np.isnan(back), np.isnan(want))
        np.testing.assert_array_equal(back[~np.isnan(back)],
                                      want[~np.isnan(want)])
    bf = t.to(torch.bfloat16)
    got = mx.convert(bf, "f32")
    np.testing.assert_array_equal(
        got.numpy() if isinstance(got, torch.Tensor) else got,
        bf.float().numpy())
    # A non-contiguous tensor (w.t()) is taken as it is (issue 23): the
    # same codes as its contiguous copy.
    tt = t.reshape(64, 64).T
    a = mx.convert(tt, "e4m3")
    b = mx.convert(tt.contiguous(), "e4m3")
    assert torch.equal(a.view(torch.uint8), b.view(torch.uint8))
    q = mx.quantize(torch.ones(2, 64), "ocp-v1")
    assert q.codes.shape == (2, 64)
