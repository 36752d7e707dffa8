"""compare(): classified differences between two results, with the
mismatch classes of `mxc verify` (the same C++ classifiers run on each
mismatching case: conformance/vectors/op_*.cpp)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np

from . import _mxconform as _ext
from ._api import (Quantized, _check_bool, _check_int, _check_str,
                   _fmt_info, _model, _operand, _profile, _scales_arg)
from ._arrays import as_array, code_dtype, value_format


@dataclass
class Mismatch:
    """One mismatching case: where, which class, and both results decoded
    as `mxc verify` prints them ("448 (e4m3 7E)")."""

    index: Tuple[int, ...]
    cls: str
    expected: str
    actual: str
    input: Optional[str] = None
    # Quantize: one line per differing element of the block ("element 13
    # (x[0, 13]): expected 3 (e4m3 6C), got 3.25 (e4m3 6D), one ulp apart;
    # input ..."); expected/actual then hold the block scales.
    elements: List[str] = field(default_factory=list)

    def __str__(self):
        where = "[" + ", ".join(str(i) for i in self.index) + "]"
        s = f"{where} [{self.cls}] expected {self.expected}, got {self.actual}"
        s += f"  (input {self.input})" if self.input else ""
        return "\n".join([s] + [f"    {e}" for e in self.elements])


@dataclass
class Report:
    """The outcome of compare(): counts per mismatch class and the first
    mismatches. Truthy when the results are bit-exact."""

    op: str
    description: str
    cases: int
    mismatches: int
    by_class: Dict[str, int] = field(default_factory=dict)
    first: List[Mismatch] = field(default_factory=list)
    unclassified: int = 0
    accepted: int = 0
    accepted_by: Dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.mismatches == 0

    def __bool__(self):
        return self.ok

    def summary(self) -> str:
        """The report as text (the layout of `mxc verify`'s table)."""
        o = []
        if self.first:
            o.append(f"First mismatches ({self.description}):")
            o += [f"  {m}" for m in self.first]
            o.append("")
        o.append(f"{self.op} ({self.description})")
        o.append(f"  {'class':<44} {'cases':>12}")
        o.append(f"  {'match (bit-exact)':<44} "
                 f"{self.cases - self.mismatches - self.accepted:>12}")
        for k, v in sorted(self.accepted_by.items()):
            o.append(f"  {'accepted variation: ' + k:<44} {v:>12}")
        for k, v in sorted(self.by_class.items()):
            o.append(f"  {'MISMATCH ' + k:<44} {v:>12}")
        if self.unclassified:
            o.append(f"  {'MISMATCH (not classified: max_classified)':<44} "
                     f"{self.unclassified:>12}")
        o.append(f"  {self.cases} cases, {self.mismatches} mismatches, "
                 f"{self.accepted} accepted variations: "
                 f"{'FAIL' if self.mismatches else 'PASS'}")
        return "\n".join(o)

    __str__ = summary


def _codes_of(x, name, fmt):
    """Raw codes (uint64) and format of a result array."""
    a, hint = as_array(x, name)
    f = value_format(a, hint)
    if fmt is not None:
        if f is not None and f != fmt:
            raise ValueError(f"fmt: {name} holds {f} values, not {fmt}")
        f = fmt
    if f is None:
        raise TypeError(f"fmt: {name} is dtype {a.dtype}; name the format "
                        "of its codes with fmt=")
    info = _fmt_info(f, "fmt")
    width = np.dtype(code_dtype(info["bits"]))
    if a.dtype.itemsize != width.itemsize:
        raise TypeError(f"{name}: {f} codes are {width.itemsize}-byte, got "
                        f"dtype {a.dtype}")
    return a.view(width).astype(np.uint64), f


def _classify(header, idx, inputs, want, got, index_of, input_text,
              max_first, max_classified, cases, description, op, allow=(),
              details=None):
    """Runs the op's classifier on the rows `idx` of the case arrays."""
    rep = Report(op=op, description=description, cases=cases,
                 mismatches=len(idx))
    todo = idx[:max_classified]
    rep.unclassified = len(idx) - len(todo)
    if len(todo):
        res = _ext.classify(header, np.ascontiguousarray(inputs[todo]),
                            np.ascontiguousarray(want[todo]),
                            np.ascontiguousarray(got[todo]), list(allow))
        for j, (cls, w, g) in zip(todo, res):
            if cls.startswith("accepted:"):
                name = cls[len("accepted:"):]
                rep.accepted_by[name] = rep.accepted_by.get(name, 0) + 1
                rep.accepted += 1
                rep.mismatches -= 1
                continue
            rep.by_class[cls] = rep.by_class.get(cls, 0) + 1
            if len(rep.first) < max_first:
                if op == "convert":  # compare() has no exception flags
                    w, g = w.rsplit(" flags ", 1)[0], g.rsplit(" flags ", 1)[0]
                if details is not None:
                    rep.first.append(details(j, cls))
                else:
                    rep.first.append(Mismatch(index_of(j), cls, w, g,
                                              input_text(j)))
    return rep


def _check_allow(allow):
    """The variations of allow=, checked by the validator `mxc verify
    --allow` uses (one rule for both)."""
    if isinstance(allow, str):
        allow = [allow]
    try:
        allow = list(allow)
    except TypeError:
        raise TypeError(f"allow: expected a variation name or a list of "
                        f"them, got {type(allow).__name__}") from None
    for a in allow:
        if not isinstance(a, str):
            raise TypeError(f"allow: expected variation names (str), got "
                            f"{type(a).__name__}")
        err = _ext.allow_error(a)
        if err:
            raise ValueError("allow: " + err.removeprefix("--allow "))
    return allow


def compare(actual, expected, op: Optional[str] = None, *, inputs=None,
            fmt: Optional[str] = None, from_fmt: Optional[str] = None,
            round: str = "rne", saturate: bool = False, relu: bool = False,
            rbits=None, profile: Optional[str] = None, a=None, b=None,
            a_scales=None, b_scales=None, c=None, model: Optional[str] = None,
            a_fmt: Optional[str] = None, b_fmt: Optional[str] = None,
            layout: str = "TN", allow=(), max_first: int = 10,
            max_classified: int = 100_000) -> Report:
    """Compares `actual` with `expected` bit for bit and classifies every
    mismatch with the classes `mxc verify` uses.

    op='convert': actual/expected are results of a conversion (float
      values, ml_dtypes/torch float8 arrays, or integer codes with fmt=).
      inputs: the source values (from_fmt for integer codes), with round,
      saturate, relu, rbits as given to convert(). Classes: tie-flip,
      rounding-mode:<m>, saturation-vs-inf-nan, nan-policy, nan-payload,
      sign-of-zero, subnormal-flush, other. Without inputs, each case is
      classified against the exact value of `expected` (no tie-flip or
      rounding-mode classes).
    op='quantize': actual/expected are (scales, codes) pairs (Quantized
      from quantize(), or a subject's tuple), inputs the float32 x that
      was quantized, profile (default expected.profile). One case per
      block. Classes: scale-off-by-one, scale, element:<convert class>.
    op='gemm' / op='mma': actual/expected are D values ([M, N] or scalar);
      a, b, a_scales, b_scales, c, model, a_fmt, b_fmt, layout as given to
      gemm()/mma(). Each mismatching element is classified as an mma case
      over its row of A and column of B: accumulation-width:<model>,
      order-of-accumulation, nan-policy, nan-payload, sign-of-zero, other.

    op=None picks 'quantize' when expected is a (scales, codes) tuple,
    else 'convert'.
    allow: variations to accept, as `mxc verify --allow`: 'nan-payload',
    'sign-of-zero', 'ulp=N'; accepted cases are counted in
    report.accepted_by and do not fail the report.

    Returns a Report (truthy when bit-exact; str(report) is the table).
    """
    if op is None:
        op = "quantize" if isinstance(expected, tuple) else "convert"
    _check_str(op, "op")
    for v, n in ((fmt, "fmt"), (from_fmt, "from_fmt"), (round, "round"),
                 (profile, "profile"), (model, "model"), (a_fmt, "a_fmt"),
                 (b_fmt, "b_fmt"), (layout, "layout")):
        if v is not None:
            _check_str(v, n)
    allow = _check_allow(allow)
    saturate = _check_bool(saturate, "saturate")
    relu = _check_bool(relu, "relu")
    for v, n in ((max_first, "max_first"), (max_classified,
                                             "max_classified")):
        _check_int(v, n, lo=0, required=True)
    if op == "convert":
        return _compare_convert(actual, expected, inputs, fmt, from_fmt,
                                round, saturate, relu, rbits, max_first,
                                max_classified, allow)
    if op == "quantize":
        return _compare_quantize(actual, expected, inputs, profile,
                                 max_first, max_classified, allow)
    if op in ("gemm", "mma"):
        return _compare_gemm(op, actual, expected, a, b, a_scales, b_scales,
                             c, model, a_fmt, b_fmt, layout, max_first,
                             max_classified, allow)
    raise ValueError(f"op: expected 'convert', 'quantize', 'gemm' or 'mma', "
                     f"got {op!r}")


def _compare_convert(actual, expected, inputs, fmt, from_fmt, round,
                     saturate, relu, rbits, max_first, max_classified, allow):
    if fmt is None:  # the format either side carries (ml_dtypes, floats)
        for side in (expected, actual):
            arr, hint = as_array(side, "expected")
            fmt = fmt or value_format(arr, hint)
    got, f = _codes_of(actual, "actual", fmt)
    want, f2 = _codes_of(expected, "expected", f)
    if f2 != f:
        raise ValueError(f"expected: holds {f2} results, actual holds {f}")
    if got.shape != want.shape:
        raise ValueError(f"actual: shape {got.shape} differs from expected's "
                         f"{want.shape}")
    shape = want.shape
    got, want = got.reshape(-1), want.reshape(-1)
    if inputs is not None:
        from ._api import _source

        x, src = _source(inputs, "inputs", from_fmt)
        if x.shape != shape:
            raise ValueError(f"inputs: shape {x.shape} differs from "
                             f"expected's {shape}")
        xin = x.view(code_dtype(_fmt_info(src, "from_fmt")["bits"]))
        xin = xin.reshape(-1).astype(np.uint64)
    else:
        src = "f64"
        xin = np.asarray(_ext.convert(want.astype(
            code_dtype(_fmt_info(f, "fmt")["bits"])), f, "f64", "rne",
            False, False, None)).view(np.uint64).reshape(-1)
    header = {"op": "convert", "from": src, "to": f, "round": round,
              "overflow": "satfinite" if saturate else "format",
              "relu": "1" if relu else "0"}
    cols = [xin]
    if round in ("rs", "rs-full"):
        if rbits is None:
            raise TypeError("rbits: stochastic rounding needs rbits")
        rb, _ = as_array(rbits, "rbits")
        cols.append(rb.reshape(-1).astype(np.uint64))
    ins = np.stack(cols, axis=1)
    zeros = np.zeros_like(want)
    w2 = np.stack([want, zeros], axis=1)
    g2 = np.stack([got, zeros], axis=1)
    idx = np.flatnonzero(want != got)
    desc = f"convert {src} -> {f}, round={round}" + \
        (", satfinite" if saturate else "") + (", relu" if relu else "")

    def input_text(j):
        return _ext.describe(src, int(xin[j]))

    return _classify(header, idx, ins, w2, g2,
                     lambda j: tuple(int(i) for i in np.unravel_index(j, shape))
                     if shape else (), input_text, max_first, max_classified,
                     want.size, desc, "convert", allow)


def _pair(q, name):
    if not isinstance(q, tuple) or len(q) != 2:
        raise TypeError(f"{name}: expected a (scales, codes) pair such as "
                        "quantize() returns")
    s, _ = as_array(q[0], f"{name}[0] (scales)")
    cd, _ = as_array(q[1], f"{name}[1] (codes)")
    if s.dtype.itemsize != 1 or cd.dtype.itemsize != 1:
        raise TypeError(f"{name}: scales and codes must be 1-byte codes")
    return s.view(np.uint8), cd.view(np.uint8)


def _pack(elem, codes2d):
    if elem == "e2m1":
        return np.stack([_ext.pack_fp4(r) for r in codes2d])
    if elem in ("e2m3", "e3m2"):
        return np.stack([_ext.pack_fp6(r) for r in codes2d])
    return codes2d


def _compare_quantize(actual, expected, inputs, profile, max_first,
                      max_classified, allow):
    meta = expected if isinstance(expected, Quantized) else (
        actual if isinstance(actual, Quantized) else None)
    ws, wc = _pair(expected, "expected")
    gs, gc = _pair(actual, "actual")
    for side, other, nm in ((gc, wc, "actual"), (wc, gc, "expected")):
        if (side.ndim >= 1 and side.shape[:-1] == other.shape[:-1] and
                2 * side.shape[-1] == other.shape[-1]):
            raise ValueError(
                f"{nm}: codes have shape {side.shape}, half the width of "
                f"{other.shape}: packed FP4? use mxconform.unpack_fp4("
                f"{nm}_codes).reshape({other.shape}) first (torchao 0.18 "
                "returns two FP4 codes per byte)")
    if ws.shape != gs.shape or wc.shape != gc.shape:
        raise ValueError(f"actual: shapes scales {gs.shape}, codes "
                         f"{gc.shape} differ from expected's {ws.shape}, "
                         f"{wc.shape}")
    if inputs is None:
        raise TypeError("inputs: op='quantize' needs the quantized x")
    from ._api import _as_f32

    x = _as_f32(inputs, "inputs")
    if x.shape != wc.shape:
        raise ValueError(f"inputs: shape {x.shape} differs from the codes' "
                         f"{wc.shape}")
    name = profile if profile is not None else (
        meta.profile if meta is not None else None)
    if name is None:
        raise TypeError("profile: required unless expected is a Quantized")
    p = _profile(name)
    axis = meta.axis if meta is not None else 1
    blk = meta.block if meta is not None else p["block"]
    elem = meta.elem if meta is not None else p["default_elem"]
    if ws.size * blk != x.size:
        raise ValueError(f"expected: {ws.size} scales do not match the "
                         f"codes' {x.size // blk} blocks of {blk}")
    xb = x.view(np.uint32)
    if x.ndim == 1:
        xb, wc2, gc2 = xb[None], wc[None], gc[None]
        ws2, gs2 = ws.reshape(1, -1), gs.reshape(1, -1)
    else:
        xb = xb.reshape(-1, x.shape[-1])
        wc2, gc2 = wc.reshape(xb.shape), gc.reshape(xb.shape)
        if axis == 0:
            # Column-wise scales are [rows / block, cols]: transposed, one
            # row of blocks per column of x (reshaping them by x's row
            # count first would pair scales with the wrong columns).
            ws2, gs2 = ws.reshape(-1, xb.shape[1]), gs.reshape(-1, xb.shape[1])
            xb, wc2, gc2, ws2, gs2 = xb.T, wc2.T, gc2.T, ws2.T, gs2.T
        else:
            ws2 = ws.reshape(xb.shape[0], -1)
            gs2 = gs.reshape(xb.shape[0], -1)
    rows, cols = xb.shape
    nb = cols // blk
    xin = np.ascontiguousarray(xb).reshape(rows * nb, blk).astype(np.uint64)
    wcb = np.ascontiguousarray(wc2).reshape(rows * nb, blk)
    gcb = np.ascontiguousarray(gc2).reshape(rows * nb, blk)
    wsb = np.ascontiguousarray(ws2).reshape(-1).astype(np.uint64)
    gsb = np.ascontiguousarray(gs2).reshape(-1).astype(np.uint64)
    if wsb.size != rows * nb:
        raise ValueError("expected: scales do not match the codes' blocks")
    idx = np.flatnonzero((wsb != gsb) | np.any(wcb != gcb, axis=1))
    if p["kind"] == "mx":
        header = {"op": "mx-quantize", "profile": name, "elem": elem,
                  "block": str(blk)}
        ins = xin
    else:
        header = {"op": "nvfp4-quantize", "profile": name, "sr": "0"}
        amax = int(np.float32(meta.tensor_amax).view(np.uint32)) if (
            meta is not None and meta.tensor_amax is not None) else int(
                np.max(xb & 0x7FFFFFFF))
        ins = np.concatenate(
            [np.full((rows * nb, 1), amax, np.uint64), xin], axis=1)
    w2 = np.concatenate([wsb[:, None], _pack(elem, wcb).astype(np.uint64)], 1)
    g2 = np.concatenate([gsb[:, None], _pack(elem, gcb).astype(np.uint64)], 1)
    transposed = axis == 0 and x.ndim == 2

    def index_of(j):
        r, bk = divmod(int(j), nb)
        # The first differing element of the block, in x's coordinates.
        diff = np.flatnonzero(wcb[j] != gcb[j])
        e = bk * blk + (int(diff[0]) if diff.size else 0)
        if x.ndim == 1:
            return (e,)
        if transposed:
            return (e, r)
        return tuple(int(i) for i in np.unravel_index(r * cols + e, x.shape))

    def input_text(j):
        diff = np.flatnonzero(wcb[j] != gcb[j])
        k = int(diff[0]) if diff.size else 0
        return _ext.describe("f32", int(xin[j, k]))

    sfmt = "e8m0" if p["kind"] == "mx" else "ue4m3"

    def where(j, k):
        """x's coordinates of element k of block j."""
        r, bk = divmod(int(j), nb)
        e = bk * blk + k
        if x.ndim == 1:
            return (e,)
        if transposed:
            return (e, r)
        return tuple(int(i) for i in np.unravel_index(r * cols + e, x.shape))

    def details(j, cls):
        """Both scales, then each differing element of block j decoded."""
        lines = []
        for k in np.flatnonzero(wcb[j] != gcb[j]):
            wv, gv = int(wcb[j, k]), int(gcb[j, k])
            at = ", ".join(str(i) for i in where(j, int(k)))
            line = (f"element {int(k)} of the block (x[{at}]): expected "
                    f"{_describe(elem, wv)}, got {_describe(elem, gv)}")
            if _one_ulp(elem, wv, gv):
                line += ", one ulp apart"
            lines.append(line + f"; input {_describe('f32', int(xin[j, k]))}")
        ws_, gs_ = int(wsb[j]), int(gsb[j])
        w = f"scale {_describe(sfmt, ws_)}"
        g = f"scale {_describe(sfmt, gs_)}"
        if ws_ == gs_ and lines:
            w, g = w + " (equal)", g + f", {len(lines)} of {blk} elements " \
                "differ"
        return Mismatch(index_of(j), cls, w, g, None, lines)

    desc = f"{p['kind']} quantize profile={name} elem={elem} block={blk}"
    return _classify(header, idx, ins, w2, g2, index_of, input_text,
                     max_first, max_classified, rows * nb, desc,
                     header["op"], allow, details)


def _describe(fmt, code):
    try:
        return _ext.describe(fmt, code)
    except ValueError:  # a code wider than the format: show it raw
        return f"0x{code:02X} (not a {fmt} code)"


def _one_ulp(fmt, a, b):
    """Adjacent finite codes of one sign (magnitude bits one apart)."""
    if fmt == "int8":
        return abs(((a + 128) % 256) - ((b + 128) % 256)) == 1
    info = _fmt_info(fmt, "fmt")
    bits = info["bits"]
    if a >> bits or b >> bits:
        return False
    sign = 1 << (bits - 1) if info["signed"] else 0
    if (a & sign) != (b & sign):
        return False
    mag = (1 << bits) - 1 - sign
    for v in (a, b):  # Inf / NaN are not one ulp from anything
        if not np.isfinite(_ext.convert(np.array([v], code_dtype(bits)),
                                        fmt, "f64", "rne", False, False,
                                        None).view(np.float64)[0]):
            return False
    return abs((a & mag) - (b & mag)) == 1


def _compare_gemm(op, actual, expected, a, b, a_scales, b_scales, c, model,
                  a_fmt, b_fmt, layout, max_first, max_classified, allow):
    if model is None:
        raise TypeError(f"model: op={op!r} needs the model")
    m = _model(model)
    if a is None or b is None:
        raise TypeError(f"a: op={op!r} needs the operands a and b")
    cfmt = m["c_fmt"]
    got, _ = _codes_of(np.asarray(actual), "actual", cfmt)
    want, _ = _codes_of(np.asarray(expected), "expected", cfmt)
    if got.shape != want.shape:
        raise ValueError(f"actual: shape {got.shape} differs from expected's "
                         f"{want.shape}")
    av, af = _operand(a, "a", a_fmt, "a_fmt")
    bv, bf = _operand(b, "b", b_fmt, "b_fmt")
    if op == "mma":
        av, bv, layout = av.reshape(1, -1), bv.reshape(1, -1), "TN"
        want, got = want.reshape(1, 1), got.reshape(1, 1)
    A = av if layout[0] == "T" else av.T  # [M, K]
    B = bv if layout[1] == "N" else bv.T  # [N, K]
    M, K = A.shape
    N = B.shape[0]
    if want.shape != (M, N):
        raise ValueError(f"expected: shape {want.shape}, the operands give "
                         f"{(M, N)}")
    sa = _scales_arg(a_scales, "a_scales")
    sb = _scales_arg(b_scales, "b_scales")
    ns = sa.reshape(M, -1).shape[1] if sa is not None else 0
    if c is None:
        cc = np.zeros((M, N), np.uint64)
    else:
        cc, _ = _codes_of(np.asarray(c, dtype=np.float16 if cfmt == "f16"
                                     else np.float32).reshape(M, N), "c",
                          cfmt)
    idx = np.flatnonzero(want.reshape(-1) != got.reshape(-1))
    rows_i = idx // N
    cols_i = idx % N
    parts = [A[rows_i].astype(np.uint64), B[cols_i].astype(np.uint64)]
    if ns:
        parts += [sa.reshape(M, ns)[rows_i].astype(np.uint64),
                  sb.reshape(N, ns)[cols_i].astype(np.uint64)]
    parts.append(cc.reshape(M, N)[rows_i, cols_i][:, None])
    ins = np.concatenate(parts, axis=1) if len(idx) else np.zeros(
        (0, 2 * K + 2 * ns + 1), np.uint64)
    w2 = want.reshape(-1)[idx][:, None]
    g2 = got.reshape(-1)[idx][:, None]
    header = {"op": "mma", "model": model, "a-fmt": af, "b-fmt": bf,
              "k": str(K)}
    local = np.arange(len(idx))
    desc = f"{op} model={model} a={af} b={bf} K={K}"
    rep = _classify(header, local, ins, w2, g2,
                    lambda j: (() if op == "mma" else
                               (int(rows_i[j]), int(cols_i[j]))),
                    lambda j: None, max_first, max_classified, M * N, desc,
                    op, allow)
    return rep
