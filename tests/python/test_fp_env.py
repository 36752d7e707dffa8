"""Results do not depend on the calling thread's floating-point settings
(emu/fast/fp_env.h, docs/python.md): torch.set_flush_denormal(True) sets
MXCSR.FTZ and DAZ for its thread, which changed NVFP4 and microxcaling
codes before the fast entry points and the binding set the IEEE default
for each call. The same settings are made here through glibc's fegetenv /
fesetenv (x86-64 fenv_t: 32 bytes, MXCSR the last 4; FTZ 0x8000 and DAZ
0x0040 set in it) and fesetround(FE_TOWARDZERO), so that torch is not
needed."""

import ctypes
import ctypes.util
import platform

import numpy as np
import pytest

import mxconform as mx

FE_TOWARDZERO = 0x0C00  # glibc <fenv.h>, x86
FTZ_DAZ = 0x8040


def _libm():
    if platform.machine() not in ("x86_64", "AMD64") or platform.system() != "Linux":
        pytest.skip("sets MXCSR through glibc's x86 fesetenv: x86-64 Linux only "
                    "(tests/test_fp_env.cpp covers AArch64's FPCR)")
    name = ctypes.util.find_library("m")
    if name is None:
        pytest.skip("libm not found by ctypes.util.find_library")
    return ctypes.CDLL(name)


def _data():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, 256)) * np.exp2(rng.integers(-40, 40, (64, 256)))
    x = x.astype(np.float32)
    x[:, ::7] *= np.float32(2.0**-100)  # f32 subnormals and values near them
    return x


CASES = [
    ("microxcaling@7bc41952", "e4m3"),
    ("microxcaling-even@7bc41952", "e2m1"),
    ("torchao-rceil@0.18", "e4m3"),
    ("te-nvfp4", None),
    ("torchao-nvfp4@0.18", None),
    ("te-nvfp4-4over6@2.17", None),
]


@pytest.mark.parametrize("profile,elem", CASES)
def test_quantize_same_under_ftz_daz_and_round_toward_zero(profile, elem):
    libm = _libm()
    x = _data()
    kw = {} if elem is None else {"elem": elem}
    want = mx.quantize(x, profile, **kw)
    saved = ctypes.create_string_buffer(32)
    assert libm.fegetenv(saved) == 0
    env = ctypes.create_string_buffer(saved.raw, 32)
    mxcsr = int.from_bytes(env.raw[28:32], "little") | FTZ_DAZ
    ctypes.memmove(ctypes.addressof(env) + 28, mxcsr.to_bytes(4, "little"), 4)
    assert libm.fesetenv(env) == 0
    try:
        assert libm.fesetround(FE_TOWARDZERO) == 0
        got = mx.quantize(x, profile, **kw)
        # The caller's settings are handed back as they were.
        assert libm.fegetround() == FE_TOWARDZERO
        now = ctypes.create_string_buffer(32)
        assert libm.fegetenv(now) == 0
        assert int.from_bytes(now.raw[28:32], "little") & FTZ_DAZ == FTZ_DAZ
    finally:
        assert libm.fesetenv(saved) == 0
    assert np.array_equal(np.asarray(got.codes), np.asarray(want.codes))
    assert np.array_equal(np.asarray(got.scales), np.asarray(want.scales))
