"""python -m mxconform.bench runs end to end on a tiny size (the timings
are not checked: speed is measured by the benchmark, not by tests); peers
that are not installed are reported as skipped, not given numbers."""

import subprocess
import sys


def test_bench_smoke():
    r = subprocess.run([sys.executable, "-m", "mxconform.bench", "--size", "12",
                        "--repeat", "1", "--gemm", "8x8x64", "--markdown"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    rows = [ln for ln in r.stdout.splitlines() if ln.startswith("| ")][1:]
    names = {ln.split("|")[1].strip() for ln in rows}
    assert {"convert f32->e4m3 (RNE)", "quantize NVFP4 (te-nvfp4)"} <= names
    for ln in rows:
        ratio = ln.rstrip(" |").split("|")[-1].strip()
        assert ratio == "skipped" or ratio.endswith("x"), ln
        if ratio == "skipped":
            assert "not installed" in ln, ln


def test_bench_rejects_bad_options():
    r = subprocess.run([sys.executable, "-m", "mxconform.bench", "--gemm",
                        "8x8x10"], capture_output=True, text=True)
    assert r.returncode == 2 and "--gemm" in r.stderr
