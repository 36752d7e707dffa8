"""Shared fixtures: the repository root, the committed corpus and the mxc
binary the package is checked against (MXC_BIN, default build/bin/mxc;
MXC_REQUIRE_CLI=1, as scripts/test-python sets, makes its absence a
failure instead of a skip).

Against an installed wheel (scripts/test-wheel) these tests run from a copy
of tests/python (with README.md beside it) outside the source tree: the
corpus is then the one shipped in the package."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "vectors"
if not VECTORS.is_dir():  # no source tree: the corpus in the installed package
    from mxconform._cli import corpus

    VECTORS = corpus()

pytest_plugins = ["pytester"]


@pytest.fixture(scope="session")
def mxc_bin():
    path = pathlib.Path(os.environ.get("MXC_BIN", ROOT / "build" / "bin" / "mxc"))
    if not path.exists():
        if os.environ.get("MXC_REQUIRE_CLI") == "1":
            pytest.fail(f"mxc binary not found at {path} (MXC_BIN)")
        pytest.skip(f"mxc binary not found at {path}: build it "
                    "(cmake --build build --target mxc) or set MXC_BIN")
    return str(path)


def run_mxc(mxc_bin, *args, stdin=None):
    r = subprocess.run([mxc_bin, *args], input=stdin, capture_output=True,
                       text=True)
    if r.returncode not in (0, 1):
        raise AssertionError(f"mxc {' '.join(args)} failed ({r.returncode}): "
                             f"{r.stderr}")
    return r
