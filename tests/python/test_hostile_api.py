"""Hostile arguments (issue 27, issue 23): huge, negative, wrong type,
truthy strings, odd layouts. Every public function either works or raises
a ValueError/TypeError whose message starts with the argument's name;
nothing crashes, nothing is silently misread."""

import re

import numpy as np
import pytest

import mxconform as mx
from mxconform import _mxconform as _raw
import mxconform.strategies  # noqa: F401 - needs hypothesis (test deps)
from mxconform import strategies, vectors

X = np.random.default_rng(23).standard_normal((64, 128)).astype(np.float32)


def _names_arg(e, *names):
    msg = str(e.value)
    assert any(msg.startswith(n + ":") or msg.startswith(n + ",")
               for n in names), msg


# -------------------------------------------------------- overflow (5)

@pytest.mark.parametrize("tiled,rows,kblocks", [
    (np.zeros(512, np.uint8), 2**62 + 1, 4),
    (np.zeros(0, np.uint8), 2**62, 4),
    (np.zeros(512, np.uint8), 2**57, 128),
    (np.zeros(0, np.uint8), 2**63 - 1, 2**63 - 1),
])
def test_unswizzle_size_overflow_is_an_error(tiled, rows, kblocks):
    with pytest.raises(ValueError) as e:
        mx.unswizzle_scales(tiled, rows, kblocks)
    _names_arg(e, "rows", "kblocks", "tiled")


def test_unswizzle_raw_binding_checks_products():
    # The binding itself (no Python checks in front) refuses the wrap.
    with pytest.raises(ValueError, match="^rows"):
        _raw.unswizzle_scales(np.zeros(512, np.uint8), 2**62 + 1, 4)
    with pytest.raises(ValueError, match="^rows, kblocks"):
        _raw.swizzle_scales(np.zeros(0, np.uint8), 2**62, 4, 0)


def test_unswizzle_round_trip_still_works():
    s = np.arange(6, dtype=np.uint8).reshape(2, 3)
    t = mx.swizzle_scales(s)
    assert t.size == 512
    np.testing.assert_array_equal(mx.unswizzle_scales(t, 2, 3), s)


# ----------------------------------------------------- booleans (6)

@pytest.mark.parametrize("v", ["no", "False", "", None, 2, 0.0, [False]])
@pytest.mark.parametrize("opt", ["saturate", "relu"])
def test_boolean_options_take_only_bools(v, opt):
    with pytest.raises(TypeError) as e:
        mx.convert(X, "e4m3", **{opt: v})
    _names_arg(e, opt)
    with pytest.raises(TypeError) as e:
        mx.compare(X, X, **{opt: v})
    _names_arg(e, opt)


def test_boolean_options_take_bools_and_0_1():
    big = np.array([1000.0], np.float32)
    assert mx.convert(big, "e4m3", saturate=True)[0] == 0x7E
    assert mx.convert(big, "e4m3", saturate=np.bool_(True))[0] == 0x7E
    assert mx.convert(big, "e4m3", saturate=1)[0] == 0x7E
    assert mx.convert(big, "e4m3", saturate=0)[0] == 0x7F


# ------------------------------------------------- tile + block/axis (7)

def test_tile_refuses_block_and_axis():
    with pytest.raises(ValueError) as e:
        mx.quantize(X, "ocp-v1", tile=32, block=16)
    _names_arg(e, "block")
    with pytest.raises(ValueError) as e:
        mx.quantize(X, "ocp-v1", tile=32, axis=0)
    _names_arg(e, "axis")
    with pytest.raises(ValueError) as e:
        mx.quantize(X, "te-nvfp4", tile=16, axis=0)
    _names_arg(e, "axis")
    q = mx.quantize(X, "ocp-v1", tile=32, block=32, axis=1)
    assert q.tile == 32 and q.scales.shape == (64, 4)


# --------------------------------------------------- named errors (8)

@pytest.mark.parametrize("call,names", [
    (lambda: mx.quantize(X, "te-nvfp4", seed=2**64), ["seed"]),
    (lambda: mx.quantize(X, "te-nvfp4", seed=-1), ["seed"]),
    (lambda: mx.set_num_threads(2**40), ["n"]),
    (lambda: mx.set_num_threads(-1), ["n"]),
    (lambda: mx.unswizzle_scales(np.zeros(512, np.uint8), 2**64, 4),
     ["rows"]),
    (lambda: mx.unpack_fp4(np.zeros(4, np.uint8), 2**64 - 1), ["n"]),
    (lambda: mx.unpack_fp4(np.zeros(4, np.uint8), 2**63 - 1), ["n"]),
    (lambda: mx.unpack_fp6(np.zeros(4, np.uint8), 2**62), ["n"]),
    (lambda: mx.unpack_fp4(np.zeros(4, np.uint8), 9), ["n"]),
    (lambda: mx.pack_fp4(np.array([16], np.uint8)), ["codes"]),
    (lambda: mx.pack_fp6(np.array([64], np.uint8)), ["codes"]),
    (lambda: mx.quantize(X, "torchao-nvfp4", seed=1), ["seed"]),
    (lambda: mx.quantize(X, "torchao-nvfp4",
                         rbits=np.zeros(X.shape, np.uint32)), ["rbits"]),
    (lambda: mx.dequantize(mx.quantize(X, "te-nvfp4").scales,
                           mx.quantize(X, "te-nvfp4").codes,
                           profile="te-nvfp4", tensor_scale="x"),
     ["tensor_scale"]),
    (lambda: strategies.mx_blocks(elem="bf16"), ["elem"]),
    (lambda: strategies.mx_blocks(block=-3), ["block"]),
    (lambda: mx.quantize(np.broadcast_to(np.float32(1), (2**40,)),
                         "ocp-v1"), ["x"]),
    (lambda: mx.gemm(np.broadcast_to(np.uint8(0), (2**19, 32)),
                     np.broadcast_to(np.uint8(0), (2**19, 32)),
                     model="sm89_mma_fp8_f32", a_fmt="e4m3", b_fmt="e4m3"),
     ["a", "a, b"]),
])
def test_errors_name_the_argument(call, names):
    with pytest.raises((ValueError, TypeError)) as e:
        call()
    _names_arg(e, *names)
    assert "incompatible function arguments" not in str(e.value)


def test_big_endian_codes_are_read_as_values():
    c = np.array([0x3F80, 0x4000], ">u2")  # bf16 1.0, 2.0 stored big-endian
    np.testing.assert_array_equal(mx.convert(c, "f32", from_fmt="bf16"),
                                  np.array([1.0, 2.0], np.float32))


# -------------------------------------------------- issue 23: amax

@pytest.mark.parametrize("amax", [np.nan, -1.0, -0.5, float("-inf")])
def test_nvfp4_tensor_amax_nan_or_negative_is_refused(amax):
    with pytest.raises(ValueError) as e:
        mx.quantize(X, "te-nvfp4", tensor_amax=amax)
    _names_arg(e, "tensor_amax")


@pytest.mark.parametrize("amax", ["1.0", True, [1.0], None and 0])
def test_nvfp4_tensor_amax_type(amax):
    if amax is None:
        return
    with pytest.raises(TypeError) as e:
        mx.quantize(X, "te-nvfp4", tensor_amax=amax)
    _names_arg(e, "tensor_amax")


def test_tensor_amax_negative_zero_is_zero():
    a = mx.quantize(X, "te-nvfp4", tensor_amax=-0.0)
    b = mx.quantize(X, "te-nvfp4", tensor_amax=0.0)
    np.testing.assert_array_equal(a.codes, b.codes)
    assert a.tensor_scale.view(np.uint32) == b.tensor_scale.view(np.uint32)
    assert not np.signbit(a.tensor_amax)


def test_tensor_amax_takes_a_0d_array():
    a = mx.quantize(X, "te-nvfp4", tensor_amax=np.array(4.0, np.float32))
    b = mx.quantize(X, "te-nvfp4", tensor_amax=4.0)
    np.testing.assert_array_equal(a.codes, b.codes)
    np.testing.assert_array_equal(a.scales, b.scales)


# ---------------------------------------------- issue 23: any layout

@pytest.mark.parametrize("make", [
    lambda x: x[:, ::2],
    lambda x: np.asfortranarray(x),
    lambda x: x[::-1],
    lambda x: x.astype(">f4"),
    lambda x: _readonly(x),
])
def test_strided_big_endian_read_only_arrays(make):
    v = make(X[:, :64].copy())
    ref = np.ascontiguousarray(v).astype(np.float32)
    np.testing.assert_array_equal(mx.convert(v, "e4m3"),
                                  mx.convert(ref, "e4m3"))
    q, r = mx.quantize(v, "ocp-v1"), mx.quantize(ref, "ocp-v1")
    np.testing.assert_array_equal(q.codes, r.codes)
    np.testing.assert_array_equal(q.scales, r.scales)
    assert mx.compare(q, r, inputs=v).ok


def _readonly(x):
    x = x.copy()
    x.flags.writeable = False
    return x


@pytest.mark.parametrize("shape,profile,axis,sshape", [
    ((0, 64), "ocp-v1", -1, (0, 2)),
    ((4, 0), "ocp-v1", -1, (4, 0)),
    ((0,), "ocp-v1", -1, (0,)),
    ((0, 64), "ocp-v1", 0, (0, 64)),
    ((0, 32), "te-nvfp4", -1, (0, 2)),
])
def test_empty_arrays_give_empty_results(shape, profile, axis, sshape):
    x = np.zeros(shape, np.float32)
    q = mx.quantize(x, profile, axis=axis)
    assert q.codes.shape == shape and q.scales.shape == sshape
    assert mx.convert(x, "e4m3").shape == shape
    assert mx.dequantize(q).shape == shape


def test_torch_transposed_weight():
    torch = pytest.importorskip("torch")
    w = torch.from_numpy(X)
    np.testing.assert_array_equal(mx.convert(w.t(), "e4m3"),
                                  mx.convert(np.ascontiguousarray(X.T),
                                             "e4m3"))


# ----------------------------------------------------------- the sweep

_HOSTILE = [2**64, 2**63, 2**62 + 1, 2**31, -1, -(2**63), 0, "no", "",
            "1", None, 1.5, float("nan"), True, [1], object(), b"x",
            np.zeros((2, 2), np.float32)]


def _calls():
    """(function name, callable taking one hostile value, the arguments
    the value may land on)."""
    q = mx.quantize(X, "ocp-v1")
    qn = mx.quantize(X, "te-nvfp4")
    c8 = np.zeros((4, 32), np.uint8)
    s8 = np.full((4, 1), 127, np.uint8)
    m = "sm100_tcgen05_mxf8f6f4"
    return [
        ("convert.to", lambda v: mx.convert(X, v)),
        ("convert.round", lambda v: mx.convert(X, "e4m3", round=v)),
        ("convert.saturate", lambda v: mx.convert(X, "e4m3", saturate=v)),
        ("convert.relu", lambda v: mx.convert(X, "e4m3", relu=v)),
        ("convert.rbits", lambda v: mx.convert(X, "e4m3", round="rs",
                                               rbits=v)),
        ("convert.from_fmt", lambda v: mx.convert(c8, "f32", from_fmt=v)),
        ("convert.x", lambda v: mx.convert(v, "e4m3")),
        ("decode.fmt", lambda v: mx.decode(c8, v)),
        ("quantize.x", lambda v: mx.quantize(v, "ocp-v1")),
        ("quantize.profile", lambda v: mx.quantize(X, v)),
        ("quantize.elem", lambda v: mx.quantize(X, "ocp-v1", elem=v)),
        ("quantize.axis", lambda v: mx.quantize(X, "ocp-v1", axis=v)),
        ("quantize.block", lambda v: mx.quantize(X, "ocp-v1", block=v)),
        ("quantize.tile", lambda v: mx.quantize(X, "ocp-v1", tile=v)),
        ("quantize.tensor_amax", lambda v: mx.quantize(
            X, "te-nvfp4", tensor_amax=v)),
        ("quantize.seed", lambda v: mx.quantize(X, "te-nvfp4", seed=v)),
        ("quantize.rbits", lambda v: mx.quantize(X, "te-nvfp4", rbits=v)),
        ("dequantize.q", lambda v: mx.dequantize(v)),
        ("dequantize.codes", lambda v: mx.dequantize(q.scales, v,
                                                     profile="ocp-v1")),
        ("dequantize.block", lambda v: mx.dequantize(
            q.scales, q.codes, profile="ocp-v1", block=v)),
        ("dequantize.axis", lambda v: mx.dequantize(
            q.scales, q.codes, profile="ocp-v1", axis=v)),
        ("dequantize.tensor_scale", lambda v: mx.dequantize(
            qn.scales, qn.codes, profile="te-nvfp4", tensor_scale=v)),
        ("swizzle_scales.pad", lambda v: mx.swizzle_scales(s8, pad=v)),
        ("swizzle_scales.scales", lambda v: mx.swizzle_scales(v)),
        ("unswizzle_scales.rows", lambda v: mx.unswizzle_scales(
            np.zeros(512, np.uint8), v, 4)),
        ("unswizzle_scales.kblocks", lambda v: mx.unswizzle_scales(
            np.zeros(512, np.uint8), 128, v)),
        ("pack_fp4.codes", lambda v: mx.pack_fp4(v)),
        ("unpack_fp4.n", lambda v: mx.unpack_fp4(c8, v)),
        ("pack_fp6.codes", lambda v: mx.pack_fp6(v)),
        ("unpack_fp6.n", lambda v: mx.unpack_fp6(c8, v)),
        ("set_num_threads.n", lambda v: mx.set_num_threads(v)),
        ("mma.c", lambda v: mx.mma(c8[0], c8[0], v, model=m, a_fmt="e4m3",
                                   b_fmt="e4m3", a_scales=s8[0],
                                   b_scales=s8[0])),
        ("mma.model", lambda v: mx.mma(c8[0], c8[0], model=v,
                                       a_fmt="e4m3", b_fmt="e4m3")),
        ("gemm.split_k", lambda v: mx.gemm(c8, c8, s8, s8, model=m,
                                           a_fmt="e4m3", b_fmt="e4m3",
                                           split_k=v)),
        ("gemm.layout", lambda v: mx.gemm(c8, c8, s8, s8, model=m,
                                          a_fmt="e4m3", b_fmt="e4m3",
                                          layout=v)),
        ("gemm.c", lambda v: mx.gemm(c8, c8, s8, s8, v, model=m,
                                     a_fmt="e4m3", b_fmt="e4m3")),
        ("compare.allow", lambda v: mx.compare(X, X, allow=v)),
        ("compare.op", lambda v: mx.compare(X, X, op=v)),
        ("compare.max_first", lambda v: mx.compare(X, X, max_first=v)),
        ("compare.inputs", lambda v: mx.compare(q, q, inputs=v)),
        ("compare.profile", lambda v: mx.compare(tuple(q), tuple(q),
                                                 inputs=X, profile=v)),
        ("strategies.mx_blocks.elem", lambda v: strategies.mx_blocks(
            elem=v)),
        ("strategies.mx_blocks.profile", lambda v: strategies.mx_blocks(v)),
        ("vectors.generate.op", lambda v: vectors.generate(v, level=0)),
        ("vectors.generate.level", lambda v: vectors.generate(
            "convert", level=v, to="e2m1", from_="f32")),
        ("vectors.generate.seed", lambda v: vectors.generate(
            "convert", level=0, seed=v, to="e2m1", from_="f32")),
        ("vectors.generate.shard", lambda v: vectors.generate(
            "convert", level=0, shard=(0, v), to="e2m1", from_="f32")),
        ("vectors.generate.keys", lambda v: vectors.generate(
            "convert", level=0, to=v, from_="f32")),
    ]


_CALLS = _calls()


@pytest.mark.parametrize("name,call", _CALLS, ids=[c[0] for c in _CALLS])
def test_hostile_sweep(name, call):
    """Every hostile value either works or gives a named error."""
    try:
        for v in _HOSTILE:
            try:
                call(v)
            except (ValueError, TypeError) as e:
                msg = str(e)
                assert "incompatible function arguments" not in msg, (v, msg)
                # The message starts with an argument's name.
                assert re.match(r"^[a-z_][a-z_0-9]*(\[[^\]]*\])?"
                                r"( \([a-z]+\))?(, [a-z_]+)*:", msg), (
                                    name, v, msg)
    finally:
        mx.set_num_threads(0)
