"""python -m mxconform.bench runs end to end on a tiny size (the timings
are not checked: speed is measured by the benchmark, not by tests): one row
per profile x element format and per model, each naming its engine; peers
that are not installed are reported as skipped, not given numbers, and every
peer row names the versioned profile that reproduces the peer."""

import subprocess
import sys

import mxconform as mx


def _bench(*args):
    return subprocess.run([sys.executable, "-m", "mxconform.bench", *args],
                          capture_output=True, text=True, timeout=900)


def test_bench_rows_like_for_like():
    r = _bench("--size", "12", "--peer-size", "12", "--repeat", "1",
               "--gemm", "8x8x256",
               "--markdown")
    assert r.returncode == 0, r.stderr
    tables, cur = [], None
    for ln in r.stdout.splitlines():
        if ln.startswith("| ") and cur is None:
            cur = []
            tables.append(cur)
        elif ln.startswith("| ") and not ln.startswith("|---"):
            cur.append([c.strip() for c in ln.strip(" |").split("|")])
        elif not ln.startswith("|"):
            cur = None
    prof, models, peers = tables
    # Every profile appears (MX ones at every element format), every model.
    names = {row[0].split()[0] for row in prof}
    assert names == {p["name"] for p in mx.profiles()}
    assert len(prof) >= len(mx.profiles())
    assert {row[0].split()[0] for row in models} == {
        m["name"] for m in mx.models()}
    for row in prof + models:
        assert row[2] in ("fast", "reference"), row
        assert float(row[1]) > 0 and 0 < float(row[3]) <= 1.0, row
    # Peer rows name a profile (versioned when the peer is installed).
    for row in peers:
        label, ratio = row[0], row[-1]
        assert ratio == "skipped" or ratio.endswith("x"), row
        if ratio == "skipped":
            assert ("not installed" in row[3] or "no profile" in row[3]
                    or "not importable" in row[3]), row
        else:
            assert "@" in label or label.startswith("convert"), row


def test_bench_rejects_bad_options():
    r = _bench("--gemm", "8x8x10")
    assert r.returncode == 2 and "--gemm" in r.stderr
    r = _bench("--only", "profiles,nope")
    assert r.returncode == 2 and "--only" in r.stderr
