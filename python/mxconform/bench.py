"""python -m mxconform.bench: mxconform against its peers, like for like.

Three tables, single-threaded (mxconform and torch both set to 1 thread):

profiles  one row per quantization profile x element format: elements/s,
          the engine the profile takes ('fast' or 'reference', which the
          C++ coverage test forbids) and the ratio to the fastest row.
models    one row per MMA model (at its first A/B format): products/s of
          gemm, the engine, the ratio to the fastest model.
peers     every peer call next to the profile that reproduces it bit for
          bit (the profile version is picked from the installed peer's
          release, as tests/peers does): torchao to_mx MODE with
          torchao-MODE@0.18, torchao nvfp4_quantize with torchao-nvfp4@0.18
          (two-level) and torchao-nvfp4-single@0.18, ModelOpt's NVFP4 /
          MXFP8 QTensor.quantize with modelopt-*@0.47, compressed-tensors'
          NVFP4 / MXFP4 with compressed-tensors-*@0.20, and ml_dtypes /
          torch casts with `convert`. A peer that is not installed, or whose
          release no profile reproduces, is reported as skipped (why), never
          estimated. Ratio = peer time / mxconform time (> 1: mxconform is
          faster).

--markdown prints the tables for docs/performance.md.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import sys
import time

import numpy as np

import mxconform as mx
from mxconform import _mxconform as _ext

_ELEMS = ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1")

# peer release -> the profile version that reproduces it (tests/peers/*.py
# RELEASE tables; docs/profiles.md).
_RELEASES = {
    "torchao": {"0.18.0": "0.18"},
    "nvidia-modelopt": {"0.47": "0.47"},
    "compressed-tensors": {"0.20": "0.20"},
}


def _best(fn, repeat):
    fn()  # warm-up (first-touch, lazy imports, caches)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _try_import(name):
    try:
        return __import__(name, fromlist=["_"])
    except Exception:  # noqa: BLE001 - any import failure means "absent"
        return None


def _profile_version(dist):
    """The profile version reproducing the installed `dist`, or (None, why)."""
    try:
        v = importlib.metadata.version(dist).split("+")[0]
    except importlib.metadata.PackageNotFoundError:
        return None, f"{dist} not installed"
    for rel, pv in _RELEASES[dist].items():
        if v == rel or v.startswith(rel + "."):
            return pv, ""
    return None, f"{dist} {v}: no profile reproduces this release"


def profile_rows(x2, repeat):
    """(label, elements, seconds, engine) per profile x element format."""
    rows = []
    for p in mx.profiles():
        elems = ("e2m1",) if p["kind"] == "nvfp4" else _ELEMS
        for e in elems:
            kw = {} if p["kind"] == "nvfp4" else {"elem": e}
            try:
                mx.quantize(x2[:1], p["name"], **kw)
            except ValueError:
                continue  # the profile defines no such element format
            t = _best(lambda: mx.quantize(x2, p["name"], **kw), repeat)
            eng = _ext.quantize_engine(p["name"],
                                       "" if p["kind"] == "nvfp4" else e)
            rows.append((f"{p['name']} {e}", x2.size, t, eng))
    return rows


def _operand(rng, fmt, rows, k):
    v = rng.standard_normal((rows, k)).astype(np.float32)
    if fmt == "tf32":
        return v  # f32 patterns; gemm(tf32_input="truncate") drops 13 bits
    return mx.convert(v, fmt)


def _scales(rng, fmt, rows, kb):
    if fmt == "e8m0":
        return rng.integers(120, 135, (rows, kb), dtype=np.uint8)
    return rng.integers(0x30, 0x48, (rows, kb), dtype=np.uint8)  # ue4m3


def model_rows(repeat, shape=(64, 64, 2048)):
    """(label, products, seconds, engine) per MMA model."""
    rng = np.random.default_rng(1)
    rows = []
    M, N, k = shape
    for m in mx.models():
        fmt = m["ab_formats"][0]
        a = _operand(rng, fmt, M, k)
        b = _operand(rng, fmt, N, k)
        kw = {"model": m["name"], "tf32_input": "truncate", "a_fmt": fmt,
              "b_fmt": fmt}
        if m["scale_block"]:
            kb = k // m["scale_block"]
            kw.update(a_scales=_scales(rng, m["scale_fmt"], M, kb),
                      b_scales=_scales(rng, m["scale_fmt"], N, kb))
        t = _best(lambda: mx.gemm(a, b, **kw), repeat)
        rows.append((f"{m['name']} {fmt}", M * N * k, t,
                     _ext.gemm_engine(m["name"], fmt, fmt)))
    return rows


def _peer_row(rows, label, n, mx_fn, peer, peer_fn, repeat, why=""):
    t_mx = _best(mx_fn, repeat)
    t_p = _best(peer_fn, repeat) if peer_fn is not None else None
    rows.append((label, n, t_mx, peer, t_p, why))


def peer_rows(x, x2, repeat):
    """(label, elements, mxconform_s, peer, peer_s | None, why)."""
    rows = []
    n = x.size
    torch = _try_import("torch")
    if torch is not None:
        torch.set_num_threads(1)
    ml = _try_import("ml_dtypes")

    # Casts: RNE f32 -> E4M3 (ml_dtypes, torch: satfinite? no: both give
    # NaN on overflow, as `convert` without --saturate does).
    mxf = lambda: mx.convert(x, "e4m3")  # noqa: E731
    _peer_row(rows, "convert f32->e4m3 RNE", n, mxf, "ml_dtypes astype",
              (lambda: x.astype(ml.float8_e4m3fn)) if ml else None, repeat,
              "" if ml else "ml_dtypes not installed")
    tx = torch.from_numpy(x) if torch is not None else None
    _peer_row(rows, "convert f32->e4m3 RNE", n, mxf,
              "torch .to(float8_e4m3fn)",
              (lambda: tx.to(torch.float8_e4m3fn)) if torch else None, repeat,
              "" if torch else "torch not installed")

    tx2 = torch.from_numpy(x2) if torch is not None else None
    # torchao: to_mx(x, elem_dtype, 32, MODE) == torchao-MODE@<release>.
    pv, why = _profile_version("torchao")
    to_mx = nvfp4_q = pts_of = None
    if pv:
        m1 = _try_import("torchao.prototype.mx_formats.mx_tensor")
        m2 = _try_import("torchao.prototype.mx_formats.nvfp4_tensor")
        m3 = _try_import("torchao.prototype.mx_formats.config")
        to_mx = getattr(m1, "to_mx", None)
        nvfp4_q = getattr(m2, "nvfp4_quantize", None)
        pts_of = getattr(m2, "per_tensor_amax_to_scale", None)
        modes = getattr(m3, "ScaleCalculationMode", None) if m3 else None
        if modes is None:
            m3 = _try_import("torchao.prototype.mx_formats.constants")
            modes = getattr(m3, "ScaleCalculationMode", None)
        if to_mx is None or modes is None:
            pv, why = None, "torchao installed but to_mx not importable"
    for mode in ("floor", "ceil", "even", "rceil"):
        for elem, tdt in (("e4m3", "float8_e4m3fn"),
                          ("e2m1", "float4_e2m1fn_x2")):
            prof = f"torchao-{mode}@{pv}" if pv else f"torchao-{mode}"
            fn = None
            if pv:
                eld = getattr(torch, tdt)
                md = getattr(modes, mode.upper())
                fn = (lambda eld=eld, md=md: to_mx(tx2, eld, 32, md))
            _peer_row(rows, f"{prof} {elem}", n,
                      lambda prof=prof, elem=elem: mx.quantize(
                          x2, prof, elem=elem),
                      f"torchao to_mx {mode.upper()}", fn, repeat, why)
    amax = float(np.max(np.abs(x2)))
    if pv and nvfp4_q is not None and pts_of is not None:
        pts = pts_of(torch.tensor(amax, dtype=torch.float32))
        two = lambda: nvfp4_q(tx2, 16, pts)  # noqa: E731
        one = lambda: nvfp4_q(tx2, 16, None)  # noqa: E731
    else:
        two = one = None
    p2 = f"torchao-nvfp4@{pv}" if pv else "torchao-nvfp4"
    p1 = f"torchao-nvfp4-single@{pv}" if pv else "torchao-nvfp4-single"
    _peer_row(rows, f"{p2} e2m1", n,
              lambda: mx.quantize(x2, p2, tensor_amax=amax),
              "torchao nvfp4_quantize (per-tensor scale)", two, repeat, why)
    _peer_row(rows, f"{p1} e2m1", n, lambda: mx.quantize(x2, p1),
              "torchao nvfp4_quantize (no per-tensor scale)", one, repeat,
              why)

    # ModelOpt: NVFP4QTensor / MXFP8QTensor.quantize (its export path).
    pv, why = _profile_version("nvidia-modelopt")
    q_nv = q_mx = None
    if pv:
        m = _try_import("modelopt.torch.quantization.qtensor.nvfp4_tensor")
        q_nv = getattr(m, "NVFP4QTensor", None)
        m = _try_import("modelopt.torch.quantization.qtensor.mxfp8_tensor")
        q_mx = getattr(m, "MXFP8QTensor", None)
        if q_nv is None or q_mx is None:
            pv, why = None, "nvidia-modelopt installed but not importable"
    nv_fn = mx8_fn = None
    if pv:
        wsf2 = q_nv.get_weights_scaling_factor_2(
            torch.tensor([amax], dtype=torch.float32))
        nv_fn = lambda: q_nv.quantize(  # noqa: E731
            tx2, 16, weights_scaling_factor_2=wsf2)
        mx8_fn = lambda: q_mx.quantize(tx2)  # noqa: E731
    prof = f"modelopt-nvfp4@{pv}" if pv else "modelopt-nvfp4"
    _peer_row(rows, f"{prof} e2m1", n,
              lambda: mx.quantize(x2, prof, tensor_amax=amax),
              "modelopt NVFP4QTensor.quantize", nv_fn, repeat, why)
    prof8 = f"modelopt-mxfp8@{pv}" if pv else "modelopt-mxfp8"
    _peer_row(rows, f"{prof8} e4m3", n,
              lambda: mx.quantize(x2, prof8, elem="e4m3"),
              "modelopt MXFP8QTensor.quantize", mx8_fn, repeat, why)

    # compressed-tensors: dynamic scales + quantize(_and_pack).
    pv, why = _profile_version("compressed-tensors")
    ct_nv = ct_mx = None
    if pv:
        try:
            from compressed_tensors.compressors.nvfp4.helpers import (
                quantize_and_pack_fp4)
            from compressed_tensors.quantization.lifecycle.forward import (
                quantize)
            from compressed_tensors.quantization.quant_scheme import (
                MXFP4, NVFP4)
            from compressed_tensors.quantization.utils.helpers import (
                compute_dynamic_scales_and_zp, generate_gparam)
        except Exception as e:  # noqa: BLE001
            pv, why = None, f"compressed-tensors not importable: {e}"
    if pv:
        ta = torch.tensor([amax], dtype=torch.float32)
        g = generate_gparam(torch.zeros_like(ta), ta)
        nv_args, mx_args = NVFP4["weights"], MXFP4["weights"]

        def ct_nv():
            s, _ = compute_dynamic_scales_and_zp(tx2, nv_args, module=None,
                                                 global_scale=g)
            return quantize_and_pack_fp4(tx2, s, global_scale=g,
                                         group_size=16)

        def ct_mx():
            s, zp = compute_dynamic_scales_and_zp(tx2, mx_args, module=None)
            return quantize(tx2, s, zp, mx_args)
    prof = (f"compressed-tensors-nvfp4@{pv}" if pv
            else "compressed-tensors-nvfp4")
    _peer_row(rows, f"{prof} e2m1", n,
              lambda: mx.quantize(x2, prof, tensor_amax=amax),
              "compressed-tensors NVFP4 scales + quantize_and_pack_fp4",
              ct_nv, repeat, why)
    prof4 = (f"compressed-tensors-mxfp4@{pv}" if pv
             else "compressed-tensors-mxfp4")
    _peer_row(rows, f"{prof4} e2m1", n,
              lambda: mx.quantize(x2, prof4, elem="e2m1"),
              "compressed-tensors MXFP4 scales + quantize", ct_mx, repeat,
              why)
    return rows


def _rate_table(title, unit, rows, markdown):
    out = []
    best = max((n / t for _, n, t, _ in rows), default=1.0)
    slow = sum(1 for _, n, t, _ in rows if n / t < 0.5 * best)
    refs = sum(1 for *_, e in rows if e != "fast")
    if markdown:
        out += [f"| {title} | {unit} | engine | of the fastest |",
                "|---|---|---|---|"]
        out += [f"| {lbl} | {n / t:.3g} | {e} | {n / t / best:.2f} |"
                for lbl, n, t, e in rows]
    else:
        out.append(f"# {title}: {unit}, engine, ratio to the fastest row")
        out += [f"{lbl:<44} {n / t:11.3e}  {e:<9}  x{n / t / best:.3f}"
                for lbl, n, t, e in rows]
    out.append(f"{slow} of {len(rows)} rows below 50% of the fastest; "
               f"{refs} on the reference engine")
    return out


def render(prof, models, peers, markdown=False):
    out = []
    if prof:
        out += _rate_table("profile x element", "elements/s", prof, markdown)
        out.append("")
    if models:
        out += _rate_table("model (gemm)", "products/s", models, markdown)
        out.append("")
    if peers:
        if markdown:
            out += ["| mxconform (profile) | mxconform | peer | peer time | "
                    "ratio (peer / mxconform) |", "|---|---|---|---|---|"]
        else:
            out.append("# peers, like for like: ratio = peer time / "
                       "mxconform time")
        for lbl, n, t, peer, tp, why in peers:
            ratio = f"{tp / t:.2f}x" if tp is not None else "skipped"
            pt = f"{tp * 1e3:.1f} ms" if tp is not None else why
            if markdown:
                out.append(f"| {lbl} | {t * 1e3:.1f} ms | {peer} | {pt} | "
                           f"{ratio} |")
            else:
                out.append(f"{lbl:<36} {t * 1e3:9.1f} ms  {peer:<48} "
                           f"{pt:>16}  {ratio}")
    return "\n".join(out)


def _tensor(size):
    n = 1 << size
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    return x, x.reshape(-1, 1024 if n >= 1024 else n)


def run(size=20, repeat=3, only=("profiles", "models", "peers"),
        gemm_shape=(64, 64, 2048), peer_size=24):
    mx.set_num_threads(1)  # single-threaded rows (issue 22)
    prof = (profile_rows(_tensor(size)[1], repeat) if "profiles" in only
            else [])
    models = model_rows(repeat, gemm_shape) if "models" in only else []
    peers = peer_rows(*_tensor(peer_size), repeat) if "peers" in only else []
    return prof, models, peers


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m mxconform.bench",
        description="Every profile and model, and every installed peer "
                    "next to the profile that reproduces it, in one run "
                    "(single thread; peers not installed are skipped).")
    ap.add_argument("--size", type=int, default=20,
                    help="log2 of the element count of the profiles table "
                         "(default 20: a 1024 x 1024 f32 matrix)")
    ap.add_argument("--peer-size", type=int, default=24,
                    help="log2 of the element count of the peers table "
                         "(default 24: 64 MiB of f32, beyond the caches, "
                         "as a model's weights are)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="timed runs per row; the best is kept (default 3)")
    ap.add_argument("--only", default="profiles,models,peers",
                    help="comma-separated tables to run: profiles, models, "
                         "peers (default all three)")
    ap.add_argument("--gemm", default="64x64x2048",
                    help="shape MxNxK of the models table's gemm (K a "
                         "multiple of 128; default 64x64x2048)")
    ap.add_argument("--markdown", action="store_true",
                    help="print Markdown tables (docs/performance.md)")
    a = ap.parse_args(argv)
    if not 10 <= a.size <= 28:
        ap.error("--size must be in 10..28")
    if not 10 <= a.peer_size <= 28:
        ap.error("--peer-size must be in 10..28")
    if a.repeat < 1:
        ap.error("--repeat must be >= 1")
    only = tuple(s.strip() for s in a.only.split(",") if s.strip())
    bad = [s for s in only if s not in ("profiles", "models", "peers")]
    if bad or not only:
        ap.error(f"--only {a.only!r}: expected a comma-separated subset of "
                 "profiles, models, peers")
    try:
        shape = tuple(int(v) for v in a.gemm.lower().split("x"))
        if len(shape) != 3 or min(shape) < 1 or shape[2] % 128:
            raise ValueError
    except ValueError:
        ap.error(f"--gemm {a.gemm!r}: expected MxNxK with K a multiple of "
                 "128 (every model's L and scale block divide it)")
    print(f"# mxconform.bench: profiles 2^{a.size} elements, peers "
          f"2^{a.peer_size}, gemm {a.gemm}, best of {a.repeat}, "
          f"1 thread, ISA {_ext.isa()}, "
          f"{platform.processor() or platform.machine()}, "
          f"python {platform.python_version()}, numpy {np.__version__}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '')}",
          file=sys.stderr)
    print(render(*run(a.size, a.repeat, only, shape, a.peer_size),
                 markdown=a.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
