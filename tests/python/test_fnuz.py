"""The FNUZ FP8 formats (issue 24) against ml_dtypes, which we did not
write: e4m3fnuz, e5m2fnuz, e4m3b11fnuz are ml_dtypes' float8_e4m3fnuz,
float8_e5m2fnuz and float8_e4m3b11fnuz (round to nearest even,
non-saturating: overflow, Inf and NaN all give 0x80, the only NaN; no -0,
so -0 and negatives that round to zero give 0x00). Every 16-bit source
(all 2^16 f16 and bf16 encodings, NaN included: both sides give 0x80),
every decode (all 256 codes), and f32: at MXC_TEST_LEVEL=1 (default, CI)
a slice of 2^16 high halves times 8 low halves plus 2^20 random inputs;
at MXC_TEST_LEVEL=2 all 2^32 f32 inputs (chunked). torch's
float8_e4m3fnuz / float8_e5m2fnuz casts are checked in test_torch_io.py
(run with torch by scripts/test-peers)."""

import os

import numpy as np
import pytest

import mxconform as mx

ml_dtypes = pytest.importorskip("ml_dtypes")

FNUZ = [("float8_e4m3fnuz", "e4m3fnuz"), ("float8_e5m2fnuz", "e5m2fnuz"),
        ("float8_e4m3b11fnuz", "e4m3b11fnuz")]
LEVEL = int(os.environ.get("MXC_TEST_LEVEL") or 1)
ALL16 = np.arange(65536, dtype=np.uint16)


def _mismatches(got, ref, src):
    bad = np.nonzero(np.asarray(got) != np.asarray(ref))[0]
    return len(bad), [(f"{int(src[i]):X}", f"{int(got[i]):02X}",
                       f"{int(ref[i]):02X}") for i in bad[:8]]


@pytest.mark.parametrize("dt,fmt", FNUZ)
@pytest.mark.parametrize("src", ["f16", "bf16"])
def test_every_16bit_source(dt, fmt, src):
    t = getattr(ml_dtypes, dt)
    x = ALL16.view(np.float16 if src == "f16" else ml_dtypes.bfloat16)
    with np.errstate(invalid="ignore", over="ignore"):
        ref = x.astype(t).view(np.uint8)
    got = mx.convert(x, fmt)
    assert got.dtype == np.uint8
    n, first = _mismatches(got, ref, ALL16)
    assert n == 0, f"{src} -> {fmt}: {n} of 65536 differ from ml_dtypes " \
                   f"(input, mxconform, ml_dtypes): {first}"
    # The same through integer codes with from_fmt (no dtype hint).
    np.testing.assert_array_equal(mx.convert(ALL16, fmt, from_fmt=src), ref)


@pytest.mark.parametrize("dt,fmt", FNUZ)
def test_every_decode(dt, fmt):
    t = getattr(ml_dtypes, dt)
    codes = np.arange(256, dtype=np.uint8)
    ref = codes.view(t).astype(np.float32)
    for got in (mx.decode(codes.view(t)), mx.decode(codes, fmt)):
        nan = np.isnan(ref)
        assert list(np.nonzero(nan)[0]) == [0x80]  # the only NaN
        np.testing.assert_array_equal(np.isnan(got), nan)
        np.testing.assert_array_equal(got[~nan], ref[~nan])
        assert not np.signbit(got[~nan & (ref == 0)]).any()  # no -0
    # Decoding is exact: back to the same code (0x80 stays NaN -> 0x80).
    np.testing.assert_array_equal(mx.convert(ref, fmt), codes)


def _f32_slice():
    hi = ALL16.astype(np.uint32) << 16
    lows = np.array([0, 1, 0x7FFF, 0x8000, 0x8001, 0xC000, 0xFFFE, 0xFFFF],
                    np.uint32)
    rnd = np.random.default_rng(24).integers(0, 2**32, 1 << 20,
                                             dtype=np.uint64)
    return np.concatenate([(hi[:, None] | lows[None, :]).ravel(),
                           rnd.astype(np.uint32)])


def _check_f32(t, fmt, bits):
    x = bits.view(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        ref = x.astype(t).view(np.uint8)
    got = mx.convert(x, fmt)
    return _mismatches(got, ref, bits)


@pytest.mark.parametrize("dt,fmt", FNUZ)
def test_f32_slice(dt, fmt):
    bits = _f32_slice()
    n, first = _check_f32(getattr(ml_dtypes, dt), fmt, bits)
    assert n == 0, f"f32 -> {fmt}: {n} of {len(bits)} differ " \
                   f"(input, mxconform, ml_dtypes): {first}"


@pytest.mark.skipif(LEVEL < 2, reason="all 2^32 f32 inputs at "
                    "MXC_TEST_LEVEL=2")
@pytest.mark.parametrize("dt,fmt", FNUZ)
def test_f32_exhaustive(dt, fmt):
    t = getattr(ml_dtypes, dt)
    step = 1 << 24
    total = 0
    for start in range(0, 1 << 32, step):
        bits = np.arange(start, start + step, dtype=np.uint64).astype(
            np.uint32)
        n, first = _check_f32(t, fmt, bits)
        assert n == 0, f"f32 -> {fmt}: {n} differ in [{start:#x}, " \
                       f"+2^24) (input, mxconform, ml_dtypes): {first}"
        total += len(bits)
    assert total == 1 << 32


def test_negative_zero_and_specials():
    # What ml_dtypes gives, spelled out (the rules in docs/rounding.md).
    x = np.array([-0.0, -1e-30, np.inf, -np.inf, np.nan, 1e10, -1e10],
                 np.float32)
    for dt, fmt in FNUZ:
        want = [0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80]
        assert list(x.astype(getattr(ml_dtypes, dt)).view(np.uint8)) == want
        assert list(mx.convert(x, fmt)) == want
        # Saturating: overflow and Inf to +-max, NaN stays 0x80.
        assert list(mx.convert(x, fmt, saturate=True)) == \
            [0x00, 0x00, 0x7F, 0xFF, 0x80, 0x7F, 0xFF]
