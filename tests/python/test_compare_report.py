"""compare() / assert_bitexact reports (issue 27): the index, class and
message of a mismatch point at the element that differs, on both axes,
2-D tiles and NVFP4, and allow= accepts what it names."""

import numpy as np
import pytest

import mxconform as mx
from mxconform.testing import assert_bitexact

RNG = np.random.default_rng(27)
X = RNG.standard_normal((64, 128)).astype(np.float32)


def _bumped(q, where):
    s = q.scales.copy()
    s[where] += 1
    return (s, q.codes)


@pytest.mark.parametrize("profile", ["torchao-floor", "ocp-v1"])
def test_colwise_scale_mismatch_points_at_its_column(profile):
    q = mx.quantize(X, profile, axis=0)
    assert q.scales.shape == (2, 128)
    r = mx.compare(_bumped(q, (1, 5)), q, inputs=X)
    assert r.mismatches == 1
    assert r.first[0].index == (32, 5)
    assert r.first[0].cls.startswith("scale")


def test_rowwise_scale_mismatch_points_at_its_block():
    q = mx.quantize(X, "torchao-floor")
    r = mx.compare(_bumped(q, (3, 2)), q, inputs=X)
    assert r.mismatches == 1 and r.first[0].index == (3, 64)


def test_colwise_scale_and_code_of_one_block_count_once():
    q = mx.quantize(X, "torchao-floor", axis=0)
    s, c = q.scales.copy(), q.codes.copy()
    s[1, 5] += 1
    c[40, 5] ^= 1
    r = mx.compare((s, c), q, inputs=X)
    assert r.mismatches == 1 and r.cases == 2 * 128
    assert r.first[0].index == (40, 5)


def test_colwise_code_mismatch_index():
    q = mx.quantize(X, "torchao-floor", axis=0)
    c = q.codes.copy()
    c[45, 7] ^= 1
    r = mx.compare((q.scales, c), q, inputs=X)
    assert r.mismatches == 1 and r.first[0].index == (45, 7)


def test_tile_scale_mismatch_index():
    q = mx.quantize(X, "torchao-floor", tile=32)
    c = q.codes.copy()
    c[33, 70] ^= 1
    r = mx.compare((q.scales, c), q, inputs=X)
    assert r.mismatches == 1 and r.first[0].index == (33, 70)


@pytest.mark.parametrize("axis", [1, 0])
def test_nvfp4_mismatch_index(axis):
    q = mx.quantize(X, "te-nvfp4", axis=axis)
    c = q.codes.copy()
    c[21, 99] ^= 1
    r = mx.compare((q.scales, c), q, inputs=X)
    assert r.mismatches == 1 and r.first[0].index == (21, 99)


# ------------------------------------------------------------ allow= (2)

def test_allow_sign_of_zero_for_quantize():
    x = np.zeros((1, 32), np.float32)
    x[0, 1] = 1.0
    q = mx.quantize(x, "ocp-v1", elem="e4m3")
    c = q.codes.copy()
    assert c[0, 0] == 0
    c[0, 0] = 0x80  # -0
    assert not mx.compare((q.scales, c), q, inputs=x)
    r = mx.compare((q.scales, c), q, inputs=x, allow="sign-of-zero")
    assert r.ok and r.accepted_by == {"sign-of-zero": 1}
    # Another difference in the same block is not accepted.
    c[0, 1] ^= 1
    assert not mx.compare((q.scales, c), q, inputs=x, allow="sign-of-zero")


def test_allow_nan_payload_for_quantize_nan_sign():
    # torchao writes NaN elements with the sign of x (0xFF), OCP 0x7F.
    x = np.ones((1, 32), np.float32)
    x[0, 3] = np.nan
    q = mx.quantize(x, "ocp-v1", elem="e4m3")
    c = q.codes.copy()
    c[0, 3] ^= 0x80
    r0 = mx.compare((q.scales, c), q, inputs=x)
    assert not r0
    r = mx.compare((q.scales, c), q, inputs=x, allow=["nan-payload"])
    assert r.ok and r.accepted == 1


def test_nvfp4_nan_scale_both_sides_is_a_nan_variation():
    # UE4M3 NaN written as 0x7F by one library, 0xFF (float8_e4m3fn -NaN)
    # by another: both decode the whole block to NaN.
    x = np.ones((1, 16), np.float32)
    q = mx.quantize(x, "te-nvfp4")
    want = (np.full((1, 1), 0x7F, np.uint8), q.codes)
    got = (np.full((1, 1), 0xFF, np.uint8), q.codes)
    r = mx.compare(got, want, inputs=x, profile="te-nvfp4")
    assert not r and r.first[0].cls == "scale:nan-payload"
    r = mx.compare(got, want, inputs=x, profile="te-nvfp4",
                   allow="nan-payload")
    assert r.ok and r.accepted_by == {"nan-payload": 1}
    # A NaN scale against a finite one stays a scale mismatch.
    bad = (np.full((1, 1), 0x70, np.uint8), q.codes)
    r = mx.compare(bad, want, inputs=x, profile="te-nvfp4",
                   allow="nan-payload")
    assert not r and r.first[0].cls == "scale"


@pytest.mark.parametrize("profile", ["torchao-nvfp4", "modelopt-nvfp4@0.47"])
def test_nvfp4_element_of_zero_over_zero_has_a_class(profile):
    # amax 6e-45: the decode scale amax / 2688 underflows to 0; x = 0
    # elements are 0 / 0 = NaN inside a block with a finite scale.
    x = np.zeros((1, 16), np.float32)
    x[0, 0] = 6e-45
    q = mx.quantize(x, profile, tensor_amax=6e-45)
    assert q.tensor_scale == 0
    c = q.codes.copy()
    c[0, 5] = 0x8  # what another library writes for the NaN
    r = mx.compare((q.scales, c), q, inputs=x)
    assert not r and r.first[0].cls == "element:nan-input"
    assert mx.compare((q.scales, c), q, inputs=x, allow="nan-payload").ok
    # Element 0 (x = 6e-45, 6e-45 / 0 = Inf) is not a NaN variation.
    c[0, 0] = 0x0
    assert not mx.compare((q.scales, c), q, inputs=x, allow="nan-payload")


# -------------------------------------------------------- the message (3)

def test_message_shows_the_differing_element():
    x = RNG.standard_normal((1, 32)).astype(np.float32)
    q = mx.quantize(x, "ocp-v1", elem="e4m3")
    c = q.codes.copy()
    k = 13
    c[0, k] = c[0, k] + 1 if (c[0, k] & 0x7F) < 0x7E else c[0, k] - 1
    with pytest.raises(AssertionError) as e:
        assert_bitexact((q.scales, c), q, inputs=x)
    msg = str(e.value)
    assert "element 13 of the block (x[0, 13])" in msg
    assert f"e4m3 {int(q.codes[0, k]):02X}" in msg
    assert f"e4m3 {int(c[0, k]):02X}" in msg
    assert "one ulp apart" in msg
    assert "input" in msg


def test_message_colwise_element_coordinates():
    q = mx.quantize(X, "ocp-v1", axis=0)
    c = q.codes.copy()
    c[45, 7] ^= 0x40
    r = mx.compare((q.scales, c), q, inputs=X)
    text = str(r.first[0])
    assert "element 13 of the block (x[45, 7])" in text
    assert "one ulp" not in text


# ------------------------------------------------ one allow validator (4)

@pytest.mark.parametrize("bad", ["ulp=0", "ulp=x", "ulp=", "nan", "ulp=-1"])
def test_allow_validator_matches_the_cli(bad, mxc_bin):
    import subprocess
    with pytest.raises(ValueError, match="^allow: "):
        mx.compare(np.zeros(2, np.float32), np.zeros(2, np.float32),
                   allow=bad)
    r = subprocess.run([mxc_bin, "verify", "--allow", bad, "/dev/null"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "--allow" in r.stderr


def test_allow_rejects_non_strings():
    with pytest.raises(TypeError, match="^allow: "):
        mx.compare(np.zeros(2, np.float32), np.zeros(2, np.float32),
                   allow=[1])


def test_packed_fp4_codes_get_a_pointer_to_unpack_fp4():
    x = RNG.standard_normal((4, 64)).astype(np.float32)
    q = mx.quantize(x, "torchao-nvfp4")
    packed = mx.pack_fp4(q.codes).reshape(4, 32)  # torchao 0.18's layout
    with pytest.raises(ValueError, match=r"^actual: .*packed FP4\? use "
                       r"mxconform.unpack_fp4"):
        mx.compare((q.scales, packed), q, inputs=x)
    unpacked = mx.unpack_fp4(packed).reshape(4, 64)
    assert mx.compare((q.scales, unpacked), q, inputs=x).ok


def test_tile_scale_mismatch_index_and_message():
    q = mx.quantize(X, "torchao-floor", tile=32)
    r = mx.compare(_bumped(q, (33, 2)), q, inputs=X)
    assert r.mismatches == 1 and r.first[0].index == (33, 64)
    assert r.first[0].cls == "scale-off-by-one"
    assert "(e8m0 " in r.first[0].expected


@pytest.mark.parametrize("axis,where,index", [(1, (7, 3), (7, 48)),
                                              (0, (1, 5), (16, 5))])
def test_nvfp4_scale_mismatch_index(axis, where, index):
    q = mx.quantize(X, "te-nvfp4", axis=axis)
    r = mx.compare(_bumped(q, where), q, inputs=X)
    assert r.mismatches == 1 and r.first[0].index == index
    assert "ue4m3" in r.first[0].expected


def test_nvfp4_colwise_message_names_the_element():
    q = mx.quantize(X, "te-nvfp4", axis=0)
    c = q.codes.copy()
    c[20, 9] ^= 0x8  # flip the sign of one FP4 code
    r = mx.compare((q.scales, c), q, inputs=X)
    text = str(r.first[0])
    assert r.first[0].index == (20, 9)
    assert "element 4 of the block (x[20, 9])" in text and "e2m1" in text
