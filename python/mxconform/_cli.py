"""The `mxc` console script of the wheel: runs the mxc binary shipped in
the package (mxconform/_bin/mxc), with the same arguments and exit status.
binary() is its path; corpus() is the committed golden corpus shipped
beside it (mxconform/corpus/, the repository's vectors/)."""

from __future__ import annotations

import os
import pathlib
import sys

_HERE = pathlib.Path(__file__).resolve().parent


def binary() -> pathlib.Path:
    """The mxc executable inside the installed package. Raises
    FileNotFoundError when the package was installed without it."""
    path = _HERE / "_bin" / "mxc"
    if not path.is_file():
        raise FileNotFoundError(
            f"mxc binary not found at {path}: this mxconform install has no "
            "CLI (build the package with scikit-build-core: pip install .)")
    return path


def corpus() -> pathlib.Path:
    """The golden vector corpus shipped in the package (with its MANIFEST).
    Raises FileNotFoundError when it is missing."""
    path = _HERE / "corpus"
    if not (path / "MANIFEST").is_file():
        raise FileNotFoundError(f"golden corpus not found at {path} "
                                "(no MANIFEST): reinstall mxconform")
    return path


def main() -> None:
    try:
        exe = binary()
    except FileNotFoundError as e:
        print(f"mxc: error: {e}", file=sys.stderr)
        sys.exit(2)
    sys.stdout.flush()
    os.execv(str(exe), [str(exe), *sys.argv[1:]])


__all__ = ["binary", "corpus", "main"]
