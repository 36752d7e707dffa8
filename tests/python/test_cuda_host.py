"""The package against CUDA's host conversion functions (cuda_fp8.h,
cuda_fp6.h, cuda_fp4.h: NVIDIA's code, compiled here with g++ as the C++
tests do; skipped with a message when the CUDA headers or g++ are absent).
NaN inputs are left out: which NaN encoding a conversion returns is
reported by compare() as nan-payload, not a value difference."""

import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import mxconform as mx

SRC = r"""
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
int main() {
  unsigned v;
  while (std::scanf("%x", &v) == 1) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(v));
    std::printf("%02X %02X %02X %02X %02X %02X %02X %02X %02X\n",
      __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3),
      __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3),
      __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2),
      __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2),
      __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest),
      __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundNearest),
      __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest),
      __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf),
      __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundZero));
  }
}
"""
# Column -> the same conversion through mxconform.
COLUMNS = [("e4m3", "rne", True), ("e4m3", "rne", False),
           ("e5m2", "rne", True), ("e5m2", "rne", False),
           ("e2m3", "rne", True), ("e3m2", "rne", True), ("e2m1", "rne", True),
           ("e8m0", "ru", True), ("e8m0", "rz", False)]


def _cuda_include():
    for d in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"):
        for sub in ("include", "targets/x86_64-linux/include"):
            p = pathlib.Path(d) / sub
            if d and (p / "cuda_fp4.h").exists():
                return p
    return None


@pytest.fixture(scope="module")
def cuda_convert(tmp_path_factory):
    inc = _cuda_include()
    gxx = shutil.which("g++")
    if inc is None or gxx is None:
        pytest.skip("CUDA headers (cuda_fp4.h) or g++ not found: the CUDA "
                    "host oracle is not available here")
    d = tmp_path_factory.mktemp("cuda")
    (d / "cvt.cpp").write_text(SRC)
    r = subprocess.run([gxx, "-std=c++20", "-O1", "-isystem", str(inc),
                        str(d / "cvt.cpp"), "-o", str(d / "cvt")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return str(d / "cvt")


def test_convert_equals_cuda_host_functions(cuda_convert):
    rng = np.random.default_rng(99)
    x = np.concatenate([
        rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32),
        (rng.standard_normal(20000) * 2.0 ** rng.integers(-40, 20, 20000))
        .astype(np.float32).view(np.uint32),
        np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x43E00000,
                  0x43F00000, 0x47600000, 0x40C00000, 0x40D00000, 0x00000001,
                  0x3F880000, 0x3FC00000], np.uint32)])
    x = x[~np.isnan(x.view(np.float32))]
    r = subprocess.run([cuda_convert], input="\n".join(f"{v:08X}" for v in x),
                       capture_output=True, text=True, check=True)
    cuda = np.array([[int(t, 16) for t in ln.split()]
                     for ln in r.stdout.splitlines()], dtype=np.uint8)
    assert cuda.shape == (len(x), len(COLUMNS))
    for j, (fmt, rnd, sat) in enumerate(COLUMNS):
        got = mx.convert(x.view(np.float32), fmt, round=rnd, saturate=sat)
        bad = np.flatnonzero(got != cuda[:, j])
        assert bad.size == 0, (
            f"{fmt} round={rnd} saturate={sat}: {bad.size} differ, first "
            f"x={x[bad[0]]:08X} mxconform={got[bad[0]]:02X} "
            f"CUDA={cuda[bad[0], j]:02X}")
