"""python -m mxconform.bench: mxconform against its peers, in one run.

Rows (single-threaded where the peer allows it; 2^size f32 elements,
default 2^24):
  convert f32 -> e4m3       vs ml_dtypes astype, torch Tensor.to(float8)
  quantize MXFP8 / MXFP4    vs torchao to_mx (FLOOR) on CPU
  quantize NVFP4            vs torchao nvfp4_quantize on CPU
  gemm 256x256x4096 MXFP8   vs numpy float64 dequantize-and-matmul
Each row reports the best of --repeat runs and the ratio peer_time /
mxconform_time (> 1: mxconform is faster). A peer that is not installed is
reported as skipped, never estimated. --markdown prints the table for
docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

import mxconform as mx


def _best(fn, repeat):
    fn()  # warm-up (first-touch, lazy imports, JIT caches)
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


def run(size: int = 24, repeat: int = 3, gemm_shape=(256, 256, 4096)):
    """Returns rows (name, elements, mxconform_s, [(peer, seconds|None,
    why)])."""
    n = 1 << size
    mx.set_num_threads(1)  # the rows are single-threaded
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    cols = 4096 if n >= 4096 else n
    x2 = x.reshape(-1, cols)
    rows = []
    ml = _try_import("ml_dtypes")
    torch = _try_import("torch")
    if torch is not None:
        torch.set_num_threads(1)
    to_mx = nvfp4_q = None
    if torch is not None:
        m = _try_import("torchao.prototype.mx_formats.mx_tensor")
        to_mx = getattr(m, "to_mx", None) if m else None
        m = _try_import("torchao.prototype.mx_formats.nvfp4_tensor")
        nvfp4_q = getattr(m, "nvfp4_quantize", None) if m else None

    # convert
    t_mx = _best(lambda: mx.convert(x, "e4m3"), repeat)
    peers = []
    if ml is not None:
        peers.append(("ml_dtypes astype", _best(
            lambda: x.astype(ml.float8_e4m3fn), repeat), ""))
    else:
        peers.append(("ml_dtypes astype", None, "ml_dtypes not installed"))
    if torch is not None:
        tx = torch.from_numpy(x)
        peers.append(("torch .to(float8_e4m3fn)", _best(
            lambda: tx.to(torch.float8_e4m3fn), repeat), ""))
    else:
        peers.append(("torch .to(float8_e4m3fn)", None, "torch not installed"))
    rows.append(("convert f32->e4m3 (RNE)", n, t_mx, peers))

    # quantize
    tx2 = torch.from_numpy(x2) if torch is not None else None
    for label, prof, elem, tdt in (
            ("quantize MXFP8 (torchao-floor)", "torchao-floor", "e4m3",
             "float8_e4m3fn"),
            ("quantize MXFP4 (torchao-floor)", "torchao-floor", "e2m1",
             "float4_e2m1fn_x2")):
        t_mx = _best(lambda: mx.quantize(x2, prof, elem=elem), repeat)
        if to_mx is None:
            peers = [("torchao to_mx", None, "torchao not installed")]
        else:
            eld = getattr(torch, tdt, None) or tdt
            peers = [("torchao to_mx", _best(
                lambda: to_mx(tx2, eld, 32), repeat), "")]
        rows.append((label, n, t_mx, peers))
    t_mx = _best(lambda: mx.quantize(x2, "te-nvfp4"), repeat)
    if nvfp4_q is None:
        peers = [("torchao nvfp4_quantize", None, "torchao not installed")]
    else:
        amax = torch.max(torch.abs(tx2))
        pts = (amax / (448.0 * 6.0)).to(torch.float32)
        peers = [("torchao nvfp4_quantize", _best(
            lambda: nvfp4_q(tx2, 16, per_tensor_scale=pts), repeat), "")]
    rows.append(("quantize NVFP4 (te-nvfp4)", n, t_mx, peers))

    # gemm 256x256x4096, MXFP8 E4M3 operands
    M, N, K = gemm_shape
    qa = mx.quantize(rng.standard_normal((M, K)).astype(np.float32), "ocp-v1")
    qb = mx.quantize(rng.standard_normal((N, K)).astype(np.float32), "ocp-v1")
    model = "sm100_tcgen05_mxf8f6f4"
    t_mx = _best(lambda: mx.gemm(qa.codes, qb.codes, qa.scales, qb.scales,
                                 model=model, a_fmt="e4m3", b_fmt="e4m3"),
                 repeat)

    def ref():
        a = mx.decode(qa.codes, "e4m3", "f64") * np.repeat(
            2.0 ** (qa.scales.astype(np.float64) - 127), 32, axis=1)
        b = mx.decode(qb.codes, "e4m3", "f64") * np.repeat(
            2.0 ** (qb.scales.astype(np.float64) - 127), 32, axis=1)
        return a @ b.T

    peers = [("numpy f64 dequantize+matmul", _best(ref, repeat), "")]
    rows.append((f"gemm {M}x{N}x{K} MXFP8 ({model})", M * N * K, t_mx, peers))
    return rows


def render(rows, markdown=False):
    out = []
    if markdown:
        out.append("| row | elements | mxconform | peer | peer time | "
                   "ratio (peer / mxconform) |")
        out.append("|---|---|---|---|---|---|")
    for name, n, t, peers in rows:
        for peer, tp, why in peers:
            ratio = f"{tp / t:.2f}x" if tp is not None else "skipped"
            pt = f"{tp * 1e3:.1f} ms" if tp is not None else why
            if markdown:
                out.append(f"| {name} | {n} | {t * 1e3:.1f} ms | {peer} | "
                           f"{pt} | {ratio} |")
            else:
                out.append(f"{name:<44} {t * 1e3:9.1f} ms  {peer:<30} "
                           f"{pt:>24}  {ratio}")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m mxconform.bench",
        description="mxconform against ml_dtypes, torch, torchao and numpy "
                    "in one run (peers not installed are skipped).")
    ap.add_argument("--size", type=int, default=24,
                    help="log2 of the element count (default 24)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="timed runs per row; the best is kept (default 3)")
    ap.add_argument("--gemm", default="256x256x4096",
                    help="gemm shape MxNxK (K a multiple of 32; default "
                         "256x256x4096)")
    ap.add_argument("--markdown", action="store_true",
                    help="print a Markdown table (docs/performance.md)")
    a = ap.parse_args(argv)
    if not 8 <= a.size <= 28:
        ap.error("--size must be in 8..28")
    if a.repeat < 1:
        ap.error("--repeat must be >= 1")
    try:
        shape = tuple(int(v) for v in a.gemm.lower().split("x"))
        if len(shape) != 3 or min(shape) < 1 or shape[2] % 32:
            raise ValueError
    except ValueError:
        ap.error(f"--gemm {a.gemm!r}: expected MxNxK with K a multiple of 32")
    print(f"# mxconform.bench: 2^{a.size} elements, best of {a.repeat}, "
          f"{platform.processor() or platform.machine()}, "
          f"python {platform.python_version()}, numpy {np.__version__}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '')}",
          file=sys.stderr)
    print(render(run(a.size, a.repeat, shape), a.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
