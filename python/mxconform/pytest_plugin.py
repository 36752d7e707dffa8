"""The mxconform pytest plugin (entry point pytest11: active wherever
mxconform is installed, no import needed). A golden-vector gate in three
lines:

    @pytest.mark.mxconform("mx-quantize", profile="torchao-rceil", elem="e4m3")
    def test_my_quantizer(mxconform_batch):
        return my_quantize(mxconform_batch.x)      # (scales, codes)

The marker runs the test once per batch of golden cases (mxconform_batch)
and checks its return value bit for bit (the message of
mxconform.testing.assert_bitexact: the classified table of `mxc verify`).
Cases come from the same generator as `mxc gen` (source="generate", the
default: the same bytes as `mxc gen OP --level L --seed S --shard i/n --set
KEY=VALUE ...`) or from the committed corpus shipped in the package
(source="corpus", file= or the header keys pick the file; case j goes to
batch j mod n, as `mxc gen --shard` deals them). The batches are
separate test items, so pytest-xdist spreads them over its workers; their
number is batches= (default: the xdist worker count, else 1).

Marker arguments: op (mx-quantize or convert), then keyword-only
batches, source, level (default 1), seed (default 1), file (a corpus file
name), allow (variations to accept, as `mxc verify --allow`), and the
vector-header keys (profile, elem, block, from_, to, round, overflow, relu;
'_' for '-', as mxconform.vectors.generate takes them).

The fixture mxconform_cases(op, **same keywords, shard=(i, n)) yields
CaseBatch objects for any op, for tests that loop themselves; batch.check
(actual) is the marker's check (mx-quantize and convert).

--mxconform-junit adds the class counts of every failing check to the
JUnit XML (pytest --junitxml) as properties, "mxconform:scale-off-by-one"
= 3, so a dashboard shows the class instead of "assert False".
"""

from __future__ import annotations

import os
import pathlib
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple

import numpy as np
import pytest

from . import vectors as _vectors

_MARKER = "mxconform"
_OPTIONS = ("batches", "source", "level", "seed", "file", "allow")
_CHECKED_OPS = ("mx-quantize", "convert")


class MismatchError(AssertionError):
    """A batch that is not bit-exact; .report is the mxconform Report."""

    def __init__(self, message, report):
        super().__init__(message)
        self.report = report


@dataclass
class CaseBatch:
    """One batch of golden cases: header keys, field names, and the cases
    as uint64 arrays [cases, fields] (inputs, expected), as in a vector file.

    Op views: mx-quantize: x (float32 [cases, block]), expected_result
    (a Quantized: scales [cases], codes [cases, block], one byte per
    element; scales [cases, 1], [cases] accepted from the subject);
    convert: a (source codes), rbits (round=rs), expected_result
    (result codes)."""

    op: str
    header: Dict[str, str]
    input_fields: List[str]
    result_fields: List[str]
    inputs: np.ndarray
    expected: np.ndarray
    shard: Tuple[int, int]
    source: str
    allow: Tuple[str, ...] = ()
    reports: list = field(default_factory=list, repr=False)

    def __len__(self):
        return int(self.inputs.shape[0])

    def _need(self, op, what):
        if self.op != op:
            raise AttributeError(f"{what}: a {op} view; this batch is "
                                 f"{self.op} (use field() or inputs)")

    def field(self, name: str) -> np.ndarray:
        """The columns of field `name` (inputs first, then results):
        [cases] for a scalar field, [cases, N] for NAME[N]."""
        for names, arr in ((self.input_fields, self.inputs),
                           (self.result_fields, self.expected)):
            cols = [i for i, n in enumerate(names) if n == name]
            if cols:
                return np.ascontiguousarray(
                    arr[:, cols[0]] if len(cols) == 1 else arr[:, cols])
        raise KeyError(f"field {name!r}: the {self.op} cases have "
                       f"{' '.join(self.input_fields)} | "
                       f"{' '.join(self.result_fields)}")

    @property
    def x(self) -> np.ndarray:
        """mx-quantize: the blocks to quantize, float32 [cases, block]."""
        self._need("mx-quantize", "x")
        return np.ascontiguousarray(
            self.field("x").astype(np.uint32).view(np.float32))

    @property
    def a(self) -> np.ndarray:
        """convert: the source codes (uint64 [cases]; format: header from=)."""
        self._need("convert", "a")
        return self.field("a")

    @property
    def rbits(self) -> np.ndarray:
        """convert with round=rs: the random bits per case."""
        self._need("convert", "rbits")
        return self.field("rbits")

    @property
    def expected_result(self):
        """What the subject must return (see the class docstring)."""
        if self.op == "mx-quantize":
            from ._api import Quantized

            elem = self.header["elem"]
            block = int(self.header["block"])
            scales = self.field("scale").astype(np.uint8).reshape(-1, 1)
            packed = self.field("byte").astype(np.uint8).reshape(len(self), -1)
            codes = _unpack(elem, packed, block)
            return Quantized(scales, codes, profile=self.header["profile"],
                             kind="mx", elem=elem, scale_fmt="e8m0", axis=1,
                             block=block, tile=None, tensor_amax=None,
                             tensor_scale=None)
        if self.op == "convert":
            return self.field("z")
        raise ValueError(f"op {self.op!r}: expected_result covers "
                         f"{', '.join(_CHECKED_OPS)}; read inputs/expected")

    def compare(self, actual):
        """The mxconform Report of `actual` against this batch."""
        from ._compare import compare

        allow = list(self.allow)
        if self.op == "mx-quantize":
            want = self.expected_result
            if not isinstance(actual, tuple) or len(actual) != 2:
                raise TypeError("mx-quantize: the subject must return a "
                                "(scales, codes) pair, got "
                                f"{type(actual).__name__}")
            return compare(_as_pair(actual, len(self)), want, "quantize",
                           inputs=self.x, allow=allow)
        if self.op == "convert":
            h = self.header
            to, frm = h["to"], h["from"]
            from ._api import formats

            bits = {f["name"]: f["bits"] for f in formats()}
            want = self.field("z").astype(_code_dtype(bits[to]))
            got = np.asarray(actual)
            if got.dtype.kind in "ui" and got.dtype != want.dtype:
                got = got.astype(want.dtype)
            kw = dict(fmt=to, from_fmt=frm, round=h["round"],
                      saturate=h.get("overflow") == "satfinite",
                      relu=h.get("relu") == "1", allow=allow)
            if h["round"] == "rs":
                kw["rbits"] = self.rbits.astype(np.uint32)
            return compare(got, want, "convert",
                           inputs=self.a.astype(_code_dtype(bits[frm])), **kw)
        raise ValueError(f"op {self.op!r}: the mxconform check covers "
                         f"{', '.join(_CHECKED_OPS)}; compare inputs/expected "
                         "yourself for other ops")

    def check(self, actual) -> None:
        """Raises MismatchError (an AssertionError) with the classified
        table unless `actual` is bit-exact against this batch (the message
        of mxconform.testing.assert_bitexact)."""
        __tracebackhide__ = True  # the failure is the table, not this frame
        report = self.compare(actual)
        self.reports.append(report)
        if not report.ok:
            raise MismatchError(
                f"not bit-exact: {report.mismatches} of {report.cases} cases "
                f"differ ({self.describe()})\n{report.summary()}", report)

    def describe(self) -> str:
        i, n = self.shard
        keys = " ".join(f"{k}={self.header[k]}" for k in
                        ("profile", "elem", "from", "to", "round")
                        if k in self.header)
        return f"{self.op} {keys} {self.source} batch {i + 1}/{n}".strip()


def _code_dtype(bits):
    return np.uint8 if bits <= 8 else (np.uint16 if bits <= 16 else np.uint32)


def _as_pair(actual, cases):
    """(scales, codes) as uint8 codes; scales [cases] or [cases, 1] (one
    per block: the same layout)."""
    s, c = (np.asarray(a) for a in actual)
    if s.dtype.kind in "ui":
        s = s.astype(np.uint8)
    if c.dtype.kind in "ui":
        c = c.astype(np.uint8)
    if s.shape == (cases,):
        s = s.reshape(cases, 1)
    return np.ascontiguousarray(s), np.ascontiguousarray(c)


def _unpack(elem, packed, block):
    from ._api import unpack_fp4, unpack_fp6

    if elem == "e2m1":
        return np.stack([unpack_fp4(r, block) for r in packed]).astype(np.uint8)
    if elem in ("e2m3", "e3m2"):
        return np.stack([unpack_fp6(r, block) for r in packed]).astype(np.uint8)
    return packed


# -- where the cases come from ------------------------------------------------

def _check_options(op, batches, source, level, seed, file, allow):
    if not isinstance(op, str) or not op:
        raise TypeError(f"op: expected an op name such as 'mx-quantize', "
                        f"got {op!r}")
    if batches is not None and (not isinstance(batches, int)
                                or isinstance(batches, bool) or batches < 1):
        raise ValueError(f"batches: expected an int >= 1, got {batches!r}")
    if source not in ("generate", "corpus"):
        raise ValueError(f"source: expected 'generate' or 'corpus', got "
                         f"{source!r}")
    for name, v in (("level", level), ("seed", seed)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"{name}: expected a non-negative int, got {v!r}")
    if file is not None and source != "corpus":
        raise ValueError("file: only with source='corpus'")
    if isinstance(allow, str):
        allow = (allow,)
    return tuple(allow)


def _corpus_dir() -> pathlib.Path:
    from ._cli import corpus

    return corpus()


def _corpus_file(op, file, params) -> pathlib.Path:
    root = _corpus_dir()
    if file is not None:
        path = root / file
        if not path.is_file() or path.parent != root:
            raise ValueError(f"file: {file!r} is not a file of the corpus "
                             f"({root})")
        return path
    from ._api import profile_aliases

    alias = {a["alias"]: a["target"] for a in profile_aliases()}
    want = {k.rstrip("_").replace("_", "-"): str(v) for k, v in params.items()}
    found = []
    for path in sorted(root.glob("*.txt")):
        h = _header(path)
        if h.get("op") != op:
            continue
        if all(h.get(k) == v or (k == "profile" and h.get(k) == alias.get(v))
               for k, v in want.items()):
            found.append(path)
    if len(found) != 1:
        what = " ".join(f"{k}={v}" for k, v in want.items())
        names = ", ".join(p.name for p in found) or "none"
        raise ValueError(f"source='corpus': {len(found)} corpus files have "
                         f"op={op} {what} ({names}); name one with file=")
    return found[0]


def _header(path) -> Dict[str, str]:
    h = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            k, _, v = line[1:].partition("=")
            h[k.strip()] = v.strip()
    return h


def _batch(op, shard, source, level, seed, file, allow, params) -> CaseBatch:
    i, n = shard
    if source == "generate":
        args = " ".join(f"--{k.rstrip('_').replace('_', '-')} {v}"
                        for k, v in params.items())
        v = _vectors.loads(
            _vectors.generate(op, level=level, seed=seed, shard=(i, n),
                              **params),
            f"mxc gen {op} --level {level} --seed {seed} --shard {i}/{n} "
            f"{args}".strip())
        ins, exp = v.inputs, v.expected
    else:
        path = _corpus_file(op, file, params)
        v = _vectors.load(path)
        if v.header.get("op") != op:
            raise ValueError(f"file: {path.name} holds op={v.header.get('op')},"
                             f" not {op}")
        # Case j in shard j mod n, as `mxc gen --shard i/n` deals them.
        ins, exp = v.inputs[i::n], v.expected[i::n]
        source = f"corpus {path.name}"
    return CaseBatch(op=op, header=v.header, input_fields=v.input_fields,
                     result_fields=v.result_fields, inputs=ins, expected=exp,
                     shard=(i, n), source=source, allow=allow)


def _workers() -> int:
    n = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")
    return int(n) if n.isdigit() and int(n) > 0 else 1


def _spec(mark):
    if len(mark.args) != 1:
        raise TypeError("@pytest.mark.mxconform: expected one positional "
                        f"argument, the op, got {len(mark.args)}")
    kw = dict(mark.kwargs)
    opts = {k: kw.pop(k) for k in _OPTIONS if k in kw}
    op = mark.args[0]
    batches = opts.get("batches")
    source = opts.get("source", "generate")
    level, seed = opts.get("level", 1), opts.get("seed", 1)
    file = opts.get("file")
    allow = _check_options(op, batches, source, level, seed, file,
                           opts.get("allow", ()))
    if op not in _CHECKED_OPS:
        raise ValueError(f"@pytest.mark.mxconform: op {op!r}: the marker "
                         f"checks {', '.join(_CHECKED_OPS)}; use the "
                         "mxconform_cases fixture for other ops")
    return dict(op=op, batches=batches, source=source, level=level,
                seed=seed, file=file, allow=allow, params=kw)


# -- pytest hooks and fixtures ------------------------------------------------

def pytest_addoption(parser):
    group = parser.getgroup("mxconform")
    group.addoption(
        "--mxconform-junit", action="store_true", default=False,
        help="add the mismatch-class counts of failing mxconform checks to "
             "the JUnit XML as properties (mxconform:CLASS = COUNT)")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "mxconform(op, *, batches=None, source='generate', level=1, seed=1, "
        "file=None, allow=(), **header_keys): run the test once per batch of "
        "golden cases (fixture mxconform_batch) and check its return value "
        "bit for bit (mxconform plugin)")


def pytest_generate_tests(metafunc):
    mark = metafunc.definition.get_closest_marker(_MARKER)
    if mark is None:
        return
    spec = _spec(mark)
    if "mxconform_batch" not in metafunc.fixturenames:
        raise TypeError("@pytest.mark.mxconform: the test must take the "
                        "mxconform_batch argument")
    n = spec["batches"] or _workers()
    metafunc.parametrize(
        "mxconform_batch", [(spec, i, n) for i in range(n)], indirect=True,
        ids=[f"{spec['op']}-{i + 1}of{n}" for i in range(n)])


@pytest.fixture
def mxconform_batch(request):
    """The batch of golden cases of this test item (@pytest.mark.mxconform)."""
    param = getattr(request, "param", None)
    if param is None:
        pytest.fail("mxconform_batch: the test has no "
                    "@pytest.mark.mxconform(op, ...) marker", pytrace=False)
    spec, i, n = param
    batch = _batch(spec["op"], (i, n), spec["source"], spec["level"],
                   spec["seed"], spec["file"], spec["allow"], spec["params"])
    request.node._mxconform_batch = batch
    return batch


@pytest.fixture
def mxconform_cases(request):
    """cases(op, *, batches=1, shard=None, source='generate', level=1,
    seed=1, file=None, allow=(), **header_keys): yields CaseBatch objects
    (every batch, or only shard=(i, n))."""

    def cases(op, *, batches: int = 1, shard=None, source: str = "generate",
              level: int = 1, seed: int = 1, file=None, allow=(),
              **params) -> Iterator[CaseBatch]:
        allow_t = _check_options(op, batches, source, level, seed, file,
                                 allow)
        if shard is None:
            which = [(i, batches) for i in range(batches)]
        else:
            if (not isinstance(shard, tuple) or len(shard) != 2
                    or not all(isinstance(s, int) for s in shard)
                    or not 0 <= shard[0] < shard[1]):
                raise ValueError(f"shard: expected (i, n) with 0 <= i < n, "
                                 f"got {shard!r}")
            which = [shard]
        for s in which:
            b = _batch(op, s, source, level, seed, file, allow_t, params)
            request.node.__dict__.setdefault("_mxconform_more", []).append(b)
            yield b

    return cases


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    if pyfuncitem.get_closest_marker(_MARKER) is None:
        return None
    __tracebackhide__ = True
    funcargs = pyfuncitem.funcargs
    names = pyfuncitem._fixtureinfo.argnames
    result = pyfuncitem.obj(**{n: funcargs[n] for n in names})
    batch = funcargs["mxconform_batch"]
    if result is None:
        raise AssertionError(
            f"@pytest.mark.mxconform: the test returned None; it must return "
            f"its result for the batch ({batch.describe()})")
    batch.check(result)
    return True


def _reports(item):
    out = []
    b = getattr(item, "_mxconform_batch", None)
    if b is not None:
        out += b.reports
    for b in getattr(item, "_mxconform_more", []):
        out += b.reports
    return out


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if call.when != "call":
        return
    failed = [r for r in _reports(item) if not r.ok]
    if not failed:
        return
    counts: Dict[str, int] = {}
    for r in failed:
        for k, v in r.by_class.items():
            counts[k] = counts.get(k, 0) + v
        if r.unclassified:
            counts["unclassified"] = counts.get("unclassified", 0) + \
                r.unclassified
    rep.sections.append(("mxconform classes",
                         "\n".join(f"{k}: {v}" for k, v in
                                   sorted(counts.items()))))
    if item.config.getoption("mxconform_junit"):
        for k, v in sorted(counts.items()):
            item.user_properties.append((f"mxconform:{k}", v))
        item.user_properties.append(
            ("mxconform:mismatches", sum(r.mismatches for r in failed)))
        # The report was made before these properties existed.
        rep.user_properties = list(item.user_properties)


__all__ = ["CaseBatch", "MismatchError"]
