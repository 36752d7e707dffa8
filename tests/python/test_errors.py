"""Bad input: a ValueError/TypeError that names the argument, never a crash
or a silent wrong answer."""

import numpy as np
import pytest

import mxconform as mx

X = np.ones((4, 64), np.float32)
A = np.zeros((2, 64), np.uint8)
S = np.full((2, 2), 127, np.uint8)
MXM = "sm100_tcgen05_mxf8f6f4"


@pytest.mark.parametrize("call,exc,words", [
    (lambda: mx.convert(X, "e9m9"), ValueError, ["to", "e9m9"]),
    (lambda: mx.convert(X, "e4m3", round="nearest"), ValueError, ["round"]),
    (lambda: mx.convert(X, 5), TypeError, ["to"]),
    (lambda: mx.convert(np.zeros(3, np.uint8), "f32"), TypeError, ["from_fmt"]),
    (lambda: mx.convert(np.zeros(3, np.uint16), "f32", from_fmt="e4m3"),
     TypeError, ["x", "e4m3"]),
    (lambda: mx.convert(X, "e4m3", from_fmt="e5m2"), ValueError, ["from_fmt"]),
    (lambda: mx.convert(np.array([17], np.uint8), "f32", from_fmt="e2m1"),
     ValueError, ["x", "e2m1"]),
    (lambda: mx.convert(X, "e2m1", round="rs"), ValueError, ["rbits"]),
    (lambda: mx.convert(X, "e2m1", rbits=np.zeros(X.shape, np.uint32)),
     ValueError, ["rbits"]),
    (lambda: mx.convert(np.broadcast_to(np.float32(1), (2**40,)), "e4m3"),
     ValueError, ["x", "memory"]),
    (lambda: mx.convert(["a"], "e4m3"), TypeError, ["x"]),
    (lambda: mx.convert(None, "e4m3"), TypeError, ["x"]),
    (lambda: mx.quantize(X, "nope"), ValueError, ["profile", "ocp-v1"]),
    (lambda: mx.quantize(X.astype(np.float64), "ocp-v1"), TypeError,
     ["x", "float64"]),
    (lambda: mx.quantize(np.ones((4, 48), np.float32), "ocp-v1"), ValueError,
     ["x", "48", "32"]),
    (lambda: mx.quantize(X, "ocp-v1", axis=0), ValueError, ["x", "4"]),
    (lambda: mx.quantize(X, "ocp-v1", axis=2), ValueError, ["axis"]),
    (lambda: mx.quantize(X, "ocp-v1", elem="f16"), ValueError, ["elem"]),
    (lambda: mx.quantize(X, "ocp-v1", block=0), ValueError, ["block"]),
    (lambda: mx.quantize(X, "ocp-v1", tile=32), ValueError, ["tile"]),
    (lambda: mx.quantize(X, "ocp-v1", seed=1), ValueError, ["seed"]),
    (lambda: mx.quantize(X, "te-nvfp4", elem="e4m3"), ValueError, ["elem"]),
    (lambda: mx.quantize(X, "te-nvfp4", rbits=np.zeros(3, np.uint32)),
     ValueError, ["rbits"]),
    (lambda: mx.quantize(np.ones((4, 8), np.float32), "te-nvfp4"), ValueError,
     ["x", "16"]),
    (lambda: mx.quantize(np.float32(1), "ocp-v1"), ValueError, ["x"]),
    (lambda: mx.dequantize(np.zeros(3, np.uint8), np.zeros((1, 32), np.uint8),
                           elem="e4m3"), ValueError, ["scales"]),
    (lambda: mx.dequantize(np.zeros(1, np.uint8), np.zeros((1, 32), np.uint8)),
     TypeError, ["profile"]),
    (lambda: mx.swizzle_scales(np.zeros(4, np.uint8)), ValueError, ["scales"]),
    (lambda: mx.unswizzle_scales(np.zeros(10, np.uint8), 128, 4), ValueError,
     ["tiled"]),
    (lambda: mx.pack_fp4(np.array([16], np.uint8)), ValueError, []),
    (lambda: mx.pack_fp6(np.array([64], np.uint8)), ValueError, []),
    (lambda: mx.pack_fp4(np.array([1.0])), TypeError, ["codes"]),
    (lambda: mx.unpack_fp4(np.zeros(1, np.uint8), 5), ValueError, []),
    (lambda: mx.mma(A[0], A[0], model="nope", a_fmt="e4m3", b_fmt="e4m3"),
     ValueError, ["model"]),
    (lambda: mx.mma(A[0], A[0], model=MXM, a_fmt="bf16", b_fmt="e4m3"),
     ValueError, ["a_fmt"]),
    (lambda: mx.mma(A[0], A[0], model=MXM, a_fmt="e4m3", b_fmt="e4m3"),
     ValueError, ["a_scales"]),
    (lambda: mx.mma(A[0], A[0], model=MXM, b_fmt="e4m3"), TypeError,
     ["a_fmt"]),
    (lambda: mx.mma(A[0, :40], A[0, :40], model="sm90_wgmma_fp8_f32",
                    a_fmt="e4m3", b_fmt="e4m3"), ValueError, ["a", "L"]),
    (lambda: mx.gemm(A, A, S, S, model=MXM, a_fmt="e4m3", b_fmt="e4m3",
                     layout="XX"), ValueError, ["layout"]),
    (lambda: mx.gemm(A, np.zeros((2, 32), np.uint8), S, S, model=MXM, a_fmt="e4m3",
                     b_fmt="e4m3"), ValueError, ["b", "K"]),
    (lambda: mx.gemm(A, A, S[:, :1], S, model=MXM, a_fmt="e4m3",
                     b_fmt="e4m3"), ValueError, ["a_scales"]),
    (lambda: mx.gemm(A, A, model=MXM, a_fmt="e4m3", b_fmt="e4m3"), TypeError,
     ["a_scales"]),
    (lambda: mx.gemm(A, A, S, S, np.zeros((2, 2), np.float64), model=MXM,
                     a_fmt="e4m3", b_fmt="e4m3"), TypeError, ["c"]),
    (lambda: mx.gemm(A, A, S, S, np.zeros((3, 2), np.float32), model=MXM,
                     a_fmt="e4m3", b_fmt="e4m3"), ValueError, ["c"]),
    (lambda: mx.gemm(A.astype(np.float32), A, S, S, model=MXM, a_fmt="e4m3",
                     b_fmt="e4m3"), TypeError, ["a"]),
    (lambda: mx.gemm(A, A, S, S, model=MXM, a_fmt="e4m3", b_fmt="e4m3",
                     split_k=0), ValueError, ["split_k"]),
    (lambda: mx.compare(X, X, op="sum"), ValueError, ["op"]),
    (lambda: mx.compare(np.zeros(3, np.uint8), np.zeros(3, np.uint8)),
     TypeError, ["fmt"]),
    (lambda: mx.compare(X, X[:2]), ValueError, ["shape"]),
    (lambda: mx.compare((X, X), (X, X), op="quantize"), TypeError, []),
])
def test_bad_input(call, exc, words):
    with pytest.raises(exc) as e:
        call()
    msg = str(e.value)
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"


def test_torch_like_device_and_contiguity_errors():
    class FakeCuda:  # what as_array sees of a CUDA tensor
        __module__ = "torch"
        dtype = "torch.float32"

        class device:
            type = "cuda"

    FakeCuda.__module__ = "torch"
    with pytest.raises(ValueError, match="x: tensor is on"):
        mx.convert(FakeCuda(), "e4m3")
