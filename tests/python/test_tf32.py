"""TF32 operands (issue 23): one representation everywhere, the f32 bit
pattern (low 13 bits zero), as the CLI, vector files and GPU captures use;
float32 arrays with tf32_input='strict' (refuse low bits, naming the
operand) or 'truncate' (clear them, as the instruction does); and the
Khattak-Mikaitis TF32 GPU captures replayed through Python and the CLI
(skipped when ../shared/oracles/km-hardware is absent)."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

import mxconform as mx

from conftest import ROOT

MODELS = ["sm90_wgmma_tf32_f32", "sm100_tcgen05_tf32_f32"]
ONE_ULP = np.float32(1 + 2.0 ** -23)  # low mantissa bit set: not a tf32


@pytest.mark.parametrize("model", MODELS)
def test_gemm_ones_over_k8(model):
    # Before: float32 refused, f32 bit patterns refused, and 19-bit codes
    # accepted but read as f32 patterns, so 1.0 x 1.0 over K=8 gave 0.0.
    a = np.ones((1, 8), dtype=np.float32)
    d = mx.gemm(a, a, model=model, a_fmt="tf32", b_fmt="tf32")
    assert d.dtype == np.float32 and d.shape == (1, 1)
    assert d[0, 0] == 8.0
    codes = a.view(np.uint32)
    assert mx.gemm(codes, codes, model=model, a_fmt="tf32",
                   b_fmt="tf32")[0, 0] == 8.0
    assert mx.mma(a[0], a[0], model=model, a_fmt="tf32", b_fmt="tf32") == 8.0


def test_nineteen_bit_codes_are_refused():
    old = np.full((1, 8), 0x3F800000 >> 13, dtype=np.uint32)  # 1.0, 19-bit
    with pytest.raises(ValueError, match=r"^a: element 0 .*tf32_input"):
        mx.gemm(old, old, model=MODELS[0], a_fmt="tf32", b_fmt="tf32")


@pytest.mark.parametrize("which", ["a", "b"])
def test_strict_names_the_operand(which):
    ones = np.ones((2, 8), dtype=np.float32)
    bad = ones.copy()
    bad[1, 3] = ONE_ULP
    a, b = (bad, ones) if which == "a" else (ones, bad)
    with pytest.raises(ValueError, match=rf"^{which}: element 11 \(f32 bits "
                       r"0x3F800001\) has non-zero low 13 bits"):
        mx.gemm(a, b, model=MODELS[0], a_fmt="tf32", b_fmt="tf32")
    with pytest.raises(ValueError, match=rf"^{which}: element 11"):
        mx.gemm(a, b, model=MODELS[0], a_fmt="tf32", b_fmt="tf32",
                tf32_input="strict")
    with pytest.raises(ValueError, match=rf"^{which}: element 3"):
        mx.mma(a[1], b[1], model=MODELS[0], a_fmt="tf32", b_fmt="tf32")


def test_truncate_drops_the_low_bits():
    x = np.full((1, 8), ONE_ULP, dtype=np.float32)
    x[0, 0] = np.float32(1.5 + 2.0 ** -12)  # 2^-12 is below tf32's ulp
    d = mx.gemm(x, x, model=MODELS[0], a_fmt="tf32", b_fmt="tf32",
                tf32_input="truncate")
    assert d[0, 0] == np.float32(1.5 * 1.5 + 7)
    assert mx.mma(x[0], x[0], model=MODELS[0], a_fmt="tf32", b_fmt="tf32",
                  tf32_input="truncate") == np.float32(1.5 * 1.5 + 7)
    # The caller's array is not modified.
    assert x[0, 1] == ONE_ULP


@pytest.mark.parametrize("bad", ["round", None, "TRUNCATE"])
def test_tf32_input_value_is_checked(bad):
    a = np.ones((1, 8), dtype=np.float32)
    with pytest.raises(ValueError, match=r"^tf32_input: expected 'strict' or "
                       "'truncate'"):
        mx.gemm(a, a, model=MODELS[0], a_fmt="tf32", b_fmt="tf32",
                tf32_input=bad)


def test_tf32_rejects_other_dtypes():
    a = np.ones((1, 8), dtype=np.float64)
    with pytest.raises(TypeError, match=r"^a: tf32 operands are float32"):
        mx.gemm(a, a, model=MODELS[0], a_fmt="tf32", b_fmt="tf32")


# ------------------------------------------------ Khattak-Mikaitis captures

KM_DIR = pathlib.Path(os.environ.get(
    "MXC_KM_HARDWARE_DIR", ROOT.parent / "shared" / "oracles" / "km-hardware"))


def _capture_files():
    if not KM_DIR.is_dir():
        return []
    return sorted(p.name for p in KM_DIR.glob("*.tf32.tsv"))


def _load(name):
    path = KM_DIR / name
    hdr = {}
    rows = []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            for tok in line[1:].split():
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    hdr.setdefault(k, v)
        elif line.strip():
            rows.append(line.split())
    k = int(hdr["k"])
    inputs = []
    for line in (KM_DIR / hdr["inputs"]).read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        a, b = line.split()[:2]
        inputs.append([int(a[8 * j:8 * j + 8], 16) for j in range(k)] +
                      [int(b[8 * j:8 * j + 8], 16) for j in range(k)])
    ab = np.array(inputs, dtype=np.uint32)
    # Rows restart at input 0 for each GPU.
    idx, gpu, i = [], None, 0
    for r in rows:
        if r[0] != gpu:
            gpu, i = r[0], 0
        idx.append(i)
        i += 1
    c = np.array([int(r[1], 16) for r in rows], dtype=np.uint32)
    d = np.array([int(r[2], 16) for r in rows], dtype=np.uint32)
    return hdr, k, ab[np.array(idx)], c, d


@pytest.fixture(scope="module", params=_capture_files() or [None])
def capture(request):
    if request.param is None:
        pytest.skip(f"{KM_DIR} not found or holds no *.tf32.tsv (set "
                    "MXC_KM_HARDWARE_DIR); TF32 GPU captures not replayed")
    return request.param, _load(request.param)


def test_km_tf32_captures_python(capture):
    name, (hdr, k, ab, c, d) = capture
    model = hdr["model"]
    assert hdr["a-fmt"] == "tf32" and len(d) > 0
    a = np.ascontiguousarray(ab[:, :k]).view(np.float32)
    b = np.ascontiguousarray(ab[:, k:]).view(np.float32)
    cf = c.view(np.float32)
    got = np.array([mx.mma(a[i], b[i], float(cf[i]), model=model,
                           a_fmt="tf32", b_fmt="tf32")
                    for i in range(len(d))], dtype=np.float32).view(np.uint32)
    bad = np.flatnonzero(got != d)
    assert bad.size == 0, (
        f"{name}: {bad.size} of {len(d)} rows differ from the GPU, first "
        f"row {bad[0]}: mxconform {got[bad[0]]:08X}, GPU {d[bad[0]]:08X}")
    # gemm on the first 48 rows: D's diagonal is each row's result.
    n = min(48, len(d))
    cc = np.zeros((n, n), dtype=np.float32)
    cc[np.arange(n), np.arange(n)] = cf[:n]
    g = mx.gemm(a[:n], b[:n], c=cc, model=model, a_fmt="tf32", b_fmt="tf32")
    assert np.array_equal(np.diag(g).view(np.uint32), d[:n]), name


def test_km_tf32_captures_cli(capture, mxc_bin):
    name, (hdr, k, ab, c, d) = capture
    lines = "".join(" ".join(f"{v:08X}" for v in row) + f" {cv:08X}\n"
                    for row, cv in zip(ab, c))
    r = subprocess.run([mxc_bin, "mma", "--model", hdr["model"], "--a-fmt",
                        "tf32", "--b-fmt", "tf32"], input=lines,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = np.array([int(x, 16) for x in r.stdout.split()], dtype=np.uint32)
    assert got.shape == d.shape and np.array_equal(got, d), name
