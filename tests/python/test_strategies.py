"""Property tests through mxconform.strategies: the blocks the strategies
draw, quantized by the (fused/fast) quantizer, agree with OCP MX v1.0
section 6.3 written out through the slow path: X = floor(log2(amax)) -
emax_elem, element = round_RNE(x / 2^X) saturating (convert of the exact
f64 quotient)."""

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402

import mxconform as mx  # noqa: E402
from mxconform.strategies import mx_blocks, nvfp4_blocks  # noqa: E402


@pytest.mark.parametrize("elem", ["e4m3", "e5m2", "e2m1", "e3m2"])
def test_ocp_blocks_follow_the_spec(elem):
    emax = next(f["emax"] for f in mx.formats() if f["name"] == elem)

    @settings(max_examples=60, deadline=None)
    @given(mx_blocks("ocp-v1", elem=elem))
    def check(x):
        q = mx.quantize(x, "ocp-v1", elem=elem)
        amax = np.max(np.abs(x))
        if not np.isfinite(amax) or amax == 0:
            return  # special scales: covered by the corpus tests
        X = max(int(np.floor(np.log2(np.float64(amax)))) - emax, -127)
        assert int(q.scales[0]) == X + 127
        want = mx.convert(x.astype(np.float64) / 2.0 ** X, elem, saturate=True)
        np.testing.assert_array_equal(q.codes, want)

    check()


@settings(max_examples=50, deadline=None)
@given(nvfp4_blocks())
def test_nvfp4_blocks_dequantize_close(block):
    x, t = block
    # amax * 2^j may overflow to Inf (the vector generator draws it too):
    # then S_enc is 0 and TE's rule gives no approximation to compare.
    if not np.all(np.isfinite(x)) or t == 0 or not np.isfinite(t):
        return
    q = mx.quantize(x, "te-nvfp4", tensor_amax=t)
    y = mx.dequantize(q)
    assert np.all(np.abs(y - x) <= np.max(np.abs(x)) * 0.5 + 1e-38)


def test_blocks_past_flt_max_draw_without_warnings():
    # mx_blocks' "pow2" blocks take 2^(k + emax) for k up to 120, past
    # FLT_MAX for e5m2 (emax 15): that amax must be replaced without a
    # RuntimeWarning (an error under the user's -W error).
    import warnings

    from mxconform.strategies import _ulp_around

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = _ulp_around(2.0 ** 135)
    assert np.isinf(r[1]) and np.isinf(r[2])
