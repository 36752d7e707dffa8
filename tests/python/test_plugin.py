"""The pytest plugin (issue 25; entry point pytest11, mxconform.pytest_plugin):
the marker's batches and bit-exact check, the classified failure, the
JUnit properties, the mxconform_cases fixture (same bytes as `mxc gen`, the
corpus), and the errors that name the argument."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from conftest import VECTORS, run_mxc
from mxconform import vectors

GATE = """
import mxconform, pytest

@pytest.mark.mxconform("mx-quantize", profile="torchao-rceil", elem="e4m3",
                       batches={batches})
def test_gate(mxconform_batch):
    return mxconform.quantize(mxconform_batch.x, "{profile}", elem="e4m3")
"""


def _gate(pytester, profile="torchao-rceil", batches=2):
    pytester.makepyfile(test_gate=GATE.format(profile=profile,
                                              batches=batches))


def test_marker_passes_once_per_batch(pytester):
    _gate(pytester, batches=3)
    r = pytester.runpytest("-v")
    r.assert_outcomes(passed=3)
    r.stdout.fnmatch_lines(["*test_gate?mx-quantize-1of3?*PASSED*",
                            "*test_gate?mx-quantize-3of3?*PASSED*"])


def test_marker_planted_bug_fails_with_the_classified_table(pytester):
    # floor scales where the gate expects RCEIL: the classic bug.
    _gate(pytester, profile="torchao-floor", batches=1)
    r = pytester.runpytest()
    r.assert_outcomes(failed=1)
    out = r.stdout.str()
    assert "not bit-exact" in out
    assert "MISMATCH scale-off-by-one" in out
    assert "mxconform classes" in out  # the report section


def test_junit_properties_carry_the_class_counts(pytester):
    _gate(pytester, profile="torchao-floor", batches=1)
    xml = pytester.path / "junit.xml"
    r = pytester.runpytest("--mxconform-junit", f"--junitxml={xml}")
    r.assert_outcomes(failed=1)
    props = {p.get("name"): p.get("value")
             for p in ET.parse(xml).iter("property")}
    assert int(props["mxconform:scale-off-by-one"]) > 0
    assert int(props["mxconform:mismatches"]) >= int(
        props["mxconform:scale-off-by-one"])
    # Without the option: no properties.
    xml2 = pytester.path / "junit2.xml"
    pytester.runpytest(f"--junitxml={xml2}")
    assert not [p for p in ET.parse(xml2).iter("property")
                if p.get("name", "").startswith("mxconform:")]


def test_marker_checks_convert(pytester):
    pytester.makepyfile(test_cvt="""
import mxconform, pytest

@pytest.mark.mxconform("convert", from_="f32", to="e4m3", round="rne",
                       overflow="satfinite", batches=2)
def test_ok(mxconform_batch):
    x = mxconform_batch.a.astype("uint32").view("float32")
    return mxconform.convert(x, "e4m3", saturate=True)

@pytest.mark.mxconform("convert", from_="f32", to="e4m3", round="rne",
                       overflow="satfinite", batches=1)
def test_rz(mxconform_batch):
    x = mxconform_batch.a.astype("uint32").view("float32")
    return mxconform.convert(x, "e4m3", round="rz", saturate=True)
""")
    r = pytester.runpytest()
    r.assert_outcomes(passed=2, failed=1)
    assert "MISMATCH rounding-mode" in r.stdout.str()


def test_cases_are_mxc_gen_shards(mxconform_cases, mxc_bin):
    # This test uses the plugin of this very session (entry point pytest11).
    got = list(mxconform_cases("mx-quantize", batches=3,
                               profile="torchao-rceil", elem="e4m3"))
    assert [b.shard for b in got] == [(0, 3), (1, 3), (2, 3)]
    for b in got:
        r = run_mxc(mxc_bin, "gen", "mx-quantize", "--level", "1", "--seed",
                    "1", "--shard", f"{b.shard[0]}/3", "--profile",
                    "torchao-rceil", "--elem", "e4m3")
        assert r.returncode == 0, r.stderr
        v = vectors.loads(r.stdout)
        np.testing.assert_array_equal(b.inputs, v.inputs)
        np.testing.assert_array_equal(b.expected, v.expected)
        assert b.header == v.header
    whole = vectors.loads(vectors.generate("mx-quantize",
                                           profile="torchao-rceil",
                                           elem="e4m3"))
    for i, b in enumerate(got):  # case j in shard j mod n
        np.testing.assert_array_equal(b.inputs, whole.inputs[i::3])
    assert sum(len(b) for b in got) == len(whole.inputs)
    one = list(mxconform_cases("mx-quantize", shard=(1, 3),
                               profile="torchao-rceil", elem="e4m3"))
    assert len(one) == 1
    np.testing.assert_array_equal(one[0].inputs, got[1].inputs)


def test_cases_from_the_corpus(mxconform_cases):
    name = "mx-quantize-torchao-rceil-e4m3.txt"
    want = vectors.load(VECTORS / name)
    got = list(mxconform_cases("mx-quantize", source="corpus", file=name,
                               batches=4))
    assert sum(len(b) for b in got) == len(want.inputs)
    for i, b in enumerate(got):
        np.testing.assert_array_equal(b.inputs, want.inputs[i::4])
        np.testing.assert_array_equal(b.expected, want.expected[i::4])
    # The header keys pick the file (a bare profile name: its release).
    (b,) = mxconform_cases("mx-quantize", source="corpus",
                           profile="torchao-floor@0.18", elem="e2m1")
    assert b.source == "corpus mx-quantize-torchao-floor-0.18-e2m1.txt"
    # The corpus's expected results are what mxconform computes.
    for b in mxconform_cases("mx-quantize", source="corpus", file=name):
        import mxconform

        b.check(mxconform.quantize(b.x, b.header["profile"], elem="e4m3"))
        scales, codes = b.expected_result
        assert codes.shape == b.x.shape and scales.shape == (len(b), 1)


def test_cases_errors_name_the_argument(mxconform_cases):
    with pytest.raises(ValueError, match="source"):
        list(mxconform_cases("mx-quantize", source="disk"))
    with pytest.raises(ValueError, match="batches"):
        list(mxconform_cases("mx-quantize", batches=0))
    with pytest.raises(ValueError, match="shard"):
        list(mxconform_cases("mx-quantize", shard=(3, 3)))
    with pytest.raises(ValueError, match="file: only with source='corpus'"):
        list(mxconform_cases("mx-quantize", file="x.txt"))
    with pytest.raises(ValueError, match="corpus files .*name one with file="):
        list(mxconform_cases("mx-quantize", source="corpus"))
    with pytest.raises(ValueError, match="file: 'nope.txt'"):
        list(mxconform_cases("mx-quantize", source="corpus", file="nope.txt"))


@pytest.mark.parametrize("src,msg", [
    ("""
@pytest.mark.mxconform("mx-dot")
def test_op(mxconform_batch):
    return None
""", "op 'mx-dot'"),
    ("""
@pytest.mark.mxconform("mx-quantize", source="disk")
def test_source(mxconform_batch):
    return None
""", "source: expected 'generate' or 'corpus'"),
    ("""
@pytest.mark.mxconform("mx-quantize", profile="ocp-v1", elem="e4m3")
def test_no_arg():
    return None
""", "must take the mxconform_batch argument"),
    ("""
@pytest.mark.mxconform("mx-quantize", batches=0)
def test_batches(mxconform_batch):
    return None
""", "batches: expected an int >= 1"),
])
def test_marker_errors_name_the_argument(pytester, src, msg):
    pytester.makepyfile(test_bad="import pytest\n" + src)
    r = pytester.runpytest()
    assert r.ret != 0
    assert msg in r.stdout.str()


def test_marker_test_returning_none_fails(pytester):
    pytester.makepyfile(test_none="""
import pytest

@pytest.mark.mxconform("mx-quantize", profile="ocp-v1", elem="e4m3",
                       batches=1)
def test_forgot_return(mxconform_batch):
    mxconform_batch.x
""")
    r = pytester.runpytest()
    r.assert_outcomes(failed=1)
    assert "returned None" in r.stdout.str()


def test_batch_without_marker_fails(pytester):
    pytester.makepyfile(test_nomark="""
def test_x(mxconform_batch):
    pass
""")
    r = pytester.runpytest()
    r.assert_outcomes(errors=1)
    assert "no @pytest.mark.mxconform" in r.stdout.str()
