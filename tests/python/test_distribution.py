"""The installed distribution (issue 25): one version everywhere (the CMake
project version: mxconform.__version__, the metadata, `mxc --version`, the
generator= header of generated vectors), the Apache-2.0 licence in the
metadata, the mxc console script and the corpus shipped in the package."""

import importlib.metadata as md
import os
import pathlib
import shutil
import subprocess
import sys

import mxconform
from mxconform import _cli, vectors
from conftest import ROOT


def test_one_version():
    v = mxconform.__version__
    assert v == md.version("mxconform")
    assert vectors.loads(vectors.generate("mx-quantize", profile="ocp-v1",
                                          elem="e4m3")).header[
        "generator"] == f"mxc {v}"
    r = subprocess.run([str(_cli.binary()), "--version"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"mxc {v}"
    cmake = ROOT / "CMakeLists.txt"
    if cmake.exists():  # a source tree: the version comes from there
        assert f"project(mxconform VERSION {v} " in cmake.read_text()


def test_licence_in_metadata():
    meta = md.metadata("mxconform")
    assert meta["License-Expression"] == "Apache-2.0"
    files = [str(f) for f in md.files("mxconform")]
    assert any(f.endswith("LICENSE") and "dist-info" in f for f in files), files
    lic = pathlib.Path(mxconform.__file__).parent / "LICENSE"
    assert "Apache License" in lic.read_text()


def test_console_script_runs_the_packaged_mxc():
    exe = shutil.which("mxc", path=os.path.dirname(sys.executable))
    assert exe, "the mxc console script is not installed beside python"
    r = subprocess.run([exe, "formats"], capture_output=True, text=True)
    assert r.returncode == 0 and "e4m3" in r.stdout, r.stderr
    # Exit status and stderr pass through (usage error: 2, names the option).
    r = subprocess.run([exe, "formats", "--bogus"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "--bogus" in r.stderr


def test_corpus_in_package_matches_manifest():
    c = _cli.corpus()
    listed = [ln.split()[2] for ln in (c / "MANIFEST").read_text().splitlines()
              if ln.strip() and not ln.startswith("#")]
    assert listed and all((c / f).is_file() for f in listed)


def test_packaged_mxc_conformance_reads_the_packaged_corpus():
    # `mxc conformance` of the wheel defaults to the corpus beside it, not to
    # the build machine's source tree.
    r = subprocess.run([str(_cli.binary()), "conformance", "--help"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert str(_cli.corpus()) in r.stdout, r.stdout
