"""The package against the real `mxc` command line (the same engine through
a different front end): conversions through `mxc convert`, vector files
through `mxc gen` (byte-identical), and compare()'s mismatch classes
against `mxc verify`'s report on the same deliberately wrong results."""

import json

import numpy as np
import pytest

import mxconform as mx
from mxconform import vectors

from conftest import VECTORS, run_mxc

RNG = np.random.default_rng(13)
# Random f32 bit patterns plus values near the narrow formats' ranges.
X32 = np.concatenate([
    RNG.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32),
    (RNG.standard_normal(3000) * 2.0 ** RNG.integers(-20, 12, 3000))
    .astype(np.float32).view(np.uint32)])


@pytest.mark.parametrize("to,round,sat,relu", [
    ("e4m3", "rne", False, False), ("e4m3", "rz", True, False),
    ("e5m2", "rne", False, False), ("e5m2", "ru", True, True),
    ("e3m2", "rna", True, False), ("e2m3", "rd", True, False),
    ("e2m1", "rne", True, False), ("e8m0", "ru", True, False),
    ("ue4m3", "rne", True, False), ("bf16", "rne", False, False),
    ("f16", "odd", False, False), ("int8", "rne", True, False)])
def test_convert_matches_cli(mxc_bin, to, round, sat, relu):
    args = ["convert", "--from", "f32", "--to", to, "--round", round]
    if sat:
        args.append("--saturate")
    if relu:
        args.append("--relu")
    r = run_mxc(mxc_bin, *args, stdin="\n".join(f"{v:08X}" for v in X32) + "\n")
    assert r.returncode == 0, r.stderr
    want = np.array([int(t, 16) for t in r.stdout.split()], dtype=np.uint64)
    assert len(want) == len(X32)
    got = mx.convert(X32.view(np.float32), to, round=round, saturate=sat,
                     relu=relu)
    got = np.asarray(got).view(f"u{np.asarray(got).itemsize}").astype(np.uint64)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op,keys,cli", [
    ("convert", dict(from_="f32", to="e2m1", round="rne", overflow="satfinite"),
     ["--from", "f32", "--to", "e2m1", "--round", "rne", "--overflow",
      "satfinite"]),
    ("mx-quantize", dict(profile="torchao-rceil", elem="e4m3"),
     ["--profile", "torchao-rceil", "--elem", "e4m3"]),
    ("nvfp4-quantize", dict(profile="te-nvfp4", sr=1),
     ["--profile", "te-nvfp4", "--sr", "1"]),
    ("mma", dict(model="sm90_wgmma_fp8_f32", a_fmt="e4m3", b_fmt="e5m2"),
     ["--model", "sm90_wgmma_fp8_f32", "--a-fmt", "e4m3", "--b-fmt", "e5m2"]),
    ("gemm", dict(model="sm100_tcgen05_mxf8f6f4", a_fmt="e4m3", b_fmt="e2m1",
                  m=3, n=2, k=64, layout="NT"),
     ["--model", "sm100_tcgen05_mxf8f6f4", "--a-fmt", "e4m3", "--b-fmt",
      "e2m1", "--m", "3", "--n", "2", "--k", "64", "--layout", "NT"]),
])
@pytest.mark.parametrize("shard", [(0, 1), (1, 3)])
def test_generate_is_mxc_gen(mxc_bin, tmp_path, op, keys, cli, shard):
    out = tmp_path / "py.txt"
    text = vectors.generate(op, level=0, seed=7, shard=shard, out=out, **keys)
    r = run_mxc(mxc_bin, "gen", op, "--level", "0", "--seed", "7", "--shard",
                f"{shard[0]}/{shard[1]}", *cli)
    assert r.returncode == 0, r.stderr
    assert text == r.stdout
    assert out.read_bytes() == r.stdout.encode()
    v = vectors.load(out)
    assert v.header["op"] == op and len(v.inputs) == int(v.header["cases"])


def _verify_classes(mxc_bin, tmp_path, vec_path, results_lines, allow=()):
    res = tmp_path / "results.txt"
    res.write_text("\n".join(results_lines) + "\n")
    js = tmp_path / "report.json"
    extra = ["--allow", *allow] if allow else []
    r = run_mxc(mxc_bin, "verify", "--vectors", str(vec_path), "--results",
                str(res), "--json", str(js), "-q", *extra)
    assert r.returncode == 1, r.stdout + r.stderr  # mismatches expected
    rep = json.loads(js.read_text())[0]
    if allow:
        return rep["by_class"], rep["mismatches"], rep["accepted_by"]
    return rep["by_class"], rep["mismatches"]


def _hex(v, width):
    return f"{int(v):0{width}X}"


def test_compare_convert_classes_match_verify(mxc_bin, tmp_path):
    path = VECTORS / "convert-f32-e4m3-rne.txt"
    v = vectors.load(path)
    x = v.inputs[:, 0].astype(np.uint32).view(np.float32)
    want = v.expected[:, 0].astype(np.uint8)
    # A subject with other rounding or overflow: rz everywhere, saturation on
    # the last quarter, a flipped zero sign in between.
    got = np.asarray(mx.convert(x, "e4m3", round="rz")).copy()
    q = len(got) // 4
    got[-q:] = np.asarray(mx.convert(x[-q:], "e4m3", saturate=True))
    zeros = np.flatnonzero((want & 0x7F) == 0)[:5]
    got[zeros] ^= 0x80
    lines = [f"{_hex(g, 2)} {_hex(f, 2)}" for g, f in zip(got, v.expected[:, 1])]
    by_class, n = _verify_classes(mxc_bin, tmp_path, path, lines)
    rep = mx.compare(got, want, inputs=x, fmt="e4m3")
    assert rep.mismatches == n > 0
    assert rep.by_class == by_class
    assert {"sign-of-zero", "tie-flip"} <= set(by_class)
    # --allow sign-of-zero: the same cases accepted on both sides.
    by_class, n, acc = _verify_classes(mxc_bin, tmp_path, path, lines,
                                       allow=["sign-of-zero"])
    rep = mx.compare(got, want, inputs=x, fmt="e4m3", allow=["sign-of-zero"])
    assert (rep.by_class, rep.mismatches, rep.accepted_by) == (by_class, n, acc)
    assert acc == {"sign-of-zero": 5}


def test_compare_quantize_classes_match_verify(mxc_bin, tmp_path):
    path = VECTORS / "mx-quantize-ocp-v1-e4m3.txt"
    v = vectors.load(path)
    x = v.inputs.astype(np.uint32).view(np.float32)
    q = mx.quantize(x, "ocp-v1")
    # The subject: another library's scale rule and element rounding.
    other = mx.quantize(x, "torchao-rceil")
    lines = [" ".join([_hex(s, 2)] + [_hex(c, 2) for c in row])
             for s, row in zip(other.scales[:, 0], other.codes)]
    by_class, n = _verify_classes(mxc_bin, tmp_path, path, lines)
    rep = mx.compare((other.scales, other.codes), q, inputs=x)
    assert rep.mismatches == n > 0
    assert rep.by_class == by_class


def test_compare_mma_classes_match_verify(mxc_bin, tmp_path):
    path = VECTORS / "mma-sm90-wgmma-fp8-e4m3.txt"
    v = vectors.load(path)
    h = v.header
    k = int(h["k"])
    # The subject runs the Blackwell datapath instead of Hopper's.
    subject = "sm100_tcgen05_f8f6f4_f32"
    if subject not in [m["name"] for m in mx.models()]:
        pytest.fail(f"model {subject} is gone; pick another subject")
    results, mism = [], {}
    for row, want in list(zip(v.inputs, v.expected))[:300]:
        a, b = row[:k].astype(np.uint8), row[k:2 * k].astype(np.uint8)
        c = np.uint32(row[-1]).view(np.float32)
        d = mx.mma(a, b, c, model=subject, a_fmt=h["a-fmt"], b_fmt=h["b-fmt"])
        results.append(_hex(np.float32(d).view(np.uint32), 8))
        if int(np.float32(d).view(np.uint32)) != want[0]:
            rep = mx.compare(d, np.uint32(want[0]).view(np.float32), op="mma",
                             a=a, b=b, c=c, model=h["model"], a_fmt=h["a-fmt"],
                             b_fmt=h["b-fmt"])
            assert rep.mismatches == 1
            for k2, n2 in rep.by_class.items():
                mism[k2] = mism.get(k2, 0) + n2
    results += [_hex(w[0], 8) for w in v.expected[300:]]
    by_class, n = _verify_classes(mxc_bin, tmp_path, path, results)
    assert sum(mism.values()) == n > 0
    assert mism == by_class
