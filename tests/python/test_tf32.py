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
from mxconform import vectors

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


# ------------------------------------ convert / decode / vector files (TF32)
#
# The independent reference: TF32 rounding of an f32 is round-to-nearest-
# even (or toward zero) to 10 fraction bits with f32's exponent range, done
# here on the bit patterns with numpy (carries into the exponent give the
# next binade, and past the largest finite value Inf, as IEEE rounding
# does). It shares nothing with the emulator; tests/test_tf32_codes.cpp
# checks the same conversions against the exact rational oracle.

def _tf32_rne(bits):
    b = bits.astype(np.uint64)
    return ((b + 0xFFF + ((b >> 13) & 1)) & 0xFFFFE000).astype(np.uint32)


def _tf32_rz(bits):
    return bits & np.uint32(0xFFFFE000)


def _f32_inputs():
    """Seeded random f32 patterns plus, around every 64th TF32 value, the
    value, its midpoints to the next TF32 value, and +-1 f32 ulp of each."""
    rng = np.random.default_rng(20261204)
    rnd = rng.integers(0, 2**32, size=200000, dtype=np.uint64)
    t = np.arange(0, 2**19, 64, dtype=np.uint64) << 13  # TF32 values
    near = np.concatenate([t + d for d in (0, 1, 0x0FFF, 0x1000, 0x1001,
                                           0x1FFF)] +
                          [t - 1])
    edges = np.array([0, 0x80000000, 0x00000001, 0x00001000, 0x00001FFF,
                      0x7F7FEFFF, 0x7F7FF000, 0x7F7FFFFF, 0x7F800000,
                      0xFF800000, 0xFF7FF000, 0x3F800FFF, 0x3F801000,
                      0x3F801001, 0x3F803000], dtype=np.uint64)
    x = np.concatenate([rnd, near, edges]) & 0xFFFFFFFF
    x = x.astype(np.uint32)
    nan = (x & 0x7F800000) == 0x7F800000
    nan &= (x & 0x007FFFFF) != 0
    return x[~nan]


def test_convert_f32_to_tf32_returns_f32_patterns():
    # Before: 19-bit codes (1.0 was 0x1FC00).
    one = mx.convert(np.array([1.0, -2.5, 0.0], dtype=np.float32), "tf32")
    assert one.dtype == np.uint32
    assert one.tolist() == [0x3F800000, 0xC0200000, 0]


@pytest.mark.parametrize("rnd,ref", [("rne", _tf32_rne), ("rz", _tf32_rz)])
def test_convert_f32_to_tf32_matches_numpy_rounding(rnd, ref):
    x = _f32_inputs()
    got = mx.convert(x.view(np.float32), "tf32", round=rnd)
    want = ref(x)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, (f"{bad.size} of {x.size} differ; first f32 "
                           f"{x[bad[0]]:08X}: got {got[bad[0]]:08X}, "
                           f"want {want[bad[0]]:08X}")
    assert np.all((got & 0x1FFF) == 0)
    # Codes as integers give the same (from_fmt names the source).
    assert np.array_equal(mx.convert(x, "tf32", round=rnd, from_fmt="f32"),
                          want)


def test_decode_tf32_is_exact_and_takes_f32_patterns():
    # Before: decode(0x3F800000, "tf32") was refused (wider than 19 bits).
    assert mx.decode(np.array([0x3F800000], np.uint32), "tf32")[0] == 1.0
    t = _tf32_rne(_f32_inputs())
    got = mx.decode(t, "tf32")
    assert got.dtype == np.float32
    assert np.array_equal(got.view(np.uint32), t)  # exact: same bits
    assert np.array_equal(mx.decode(t.view(np.float32), "tf32"),
                          t.view(np.float32))
    wide = mx.decode(t, "tf32", to="f64")
    assert np.array_equal(wide, t.view(np.float32).astype(np.float64))
    # tf32 -> bf16 equals f32 -> bf16 of the same value.
    assert np.array_equal(mx.convert(t, "bf16", from_fmt="tf32"),
                          mx.convert(t.view(np.float32), "bf16"))


def test_decode_tf32_strict_and_truncate():
    bits = np.array([0x3F800000, 0x3F801000, 0x3F800001], np.uint32)
    with pytest.raises(ValueError, match=r"^x: element 1 \(f32 bits "
                       r"0x3F801000\) has non-zero low 13 bits.*truncate"):
        mx.decode(bits, "tf32")
    with pytest.raises(ValueError, match=r"^x: element 1"):
        mx.convert(bits.view(np.float32), "f32", from_fmt="tf32",
                   tf32_input="strict")
    got = mx.decode(bits, "tf32", tf32_input="truncate")
    assert got.tolist() == [1.0, 1.0, 1.0]
    assert bits[1] == 0x3F801000  # the caller's array is not modified
    # The old 19-bit code of 1.0 is not an f32 pattern of a TF32 value.
    with pytest.raises(ValueError, match=r"^x: element 0"):
        mx.decode(np.array([0x3F800000 >> 13], np.uint32), "tf32")
    with pytest.raises(ValueError, match=r"^tf32_input: expected"):
        mx.decode(bits, "tf32", tf32_input="round")


def test_convert_output_feeds_mma():
    # One representation: convert's TF32 codes are mma/gemm operands.
    x = np.array([1.0 + 2.0**-11, 3.0, -0.5, 2.0**-130, 7.0, 1.0, 0.25,
                  100.0], dtype=np.float32)
    a = mx.convert(x, "tf32")
    d = mx.mma(a, np.ones(8, np.uint32) * np.uint32(0x3F800000),
               model=MODELS[0], a_fmt="tf32", b_fmt="tf32")
    assert d == np.float32(1.0 + 3.0 - 0.5 + 7.0 + 1.0 + 0.25 + 100.0)


def _cli(mxc_bin, args, text):
    return subprocess.run([mxc_bin, *args], input=text, capture_output=True,
                          text=True)


def test_cli_convert_tf32_matches_python(mxc_bin):
    x = _f32_inputs()[::7]
    r = _cli(mxc_bin, ["convert", "--from", "f32", "--to", "tf32"],
             "".join(f"{v:08X}\n" for v in x))
    assert r.returncode == 0, r.stderr
    got = np.array([int(t, 16) for t in r.stdout.split()], np.uint32)
    assert np.array_equal(got, _tf32_rne(x))
    assert all(len(t) == 8 for t in r.stdout.split())
    back = _cli(mxc_bin, ["convert", "--from", "tf32", "--to", "f32"],
                r.stdout)
    assert back.returncode == 0, back.stderr
    assert back.stdout == r.stdout  # decoding is exact


def test_cli_convert_tf32_input(mxc_bin):
    r = _cli(mxc_bin, ["convert", "--from", "tf32", "--to", "f32"],
             "3F800000\n3F801000\n")
    assert r.returncode == 2 and r.stdout == "3F800000\n"
    assert "<stdin>:2: error: bad input '3F801000': not a tf32 code" in r.stderr
    r = _cli(mxc_bin, ["convert", "--from", "tf32", "--to", "f32",
                       "--tf32-input", "truncate"], "3F800000\n3F801FFF\n")
    assert r.returncode == 0 and r.stdout == "3F800000\n3F800000\n"
    r = _cli(mxc_bin, ["convert", "--from", "tf32", "--to", "f32",
                       "--tf32-input", "nearest"], "3F800000\n")
    assert r.returncode == 2 and "--tf32-input" in r.stderr
    r = _cli(mxc_bin, ["convert", "--from", "tf32", "--to", "f32"],
             "1FC00\n")  # the old 19-bit code of 1.0
    assert r.returncode == 2 and "not a tf32 code" in r.stderr


def test_vector_files_hold_tf32_as_f32_patterns():
    v = vectors.loads(vectors.generate(
        "convert", level=0, from_="f32", to="tf32", round="rne"))
    x = v.inputs[:, 0].astype(np.uint32)
    z = v.expected[:, 0].astype(np.uint32)
    nan = ((x & 0x7F800000) == 0x7F800000) & ((x & 0x7FFFFF) != 0)
    assert np.array_equal(z[~nan], _tf32_rne(x[~nan]))
    assert np.all((z & 0x1FFF) == 0)
    v = vectors.loads(vectors.generate(
        "convert", level=0, from_="tf32", to="f32", range="3F800000+400"))
    assert v.inputs[0, 0] == 0x3F800000 and v.inputs[1, 0] == 0x3F802000
    assert np.array_equal(v.inputs[:, 0], v.expected[:, 0])
    with pytest.raises(ValueError, match="range '3F800001\\+10'.*tf32 code"):
        vectors.generate("convert", level=0, from_="tf32", to="f32",
                            range="3F800001+10")
