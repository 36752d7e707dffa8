"""Golden vector files (docs/vector-format.md): generate() writes exactly
the bytes `mxc gen` writes (the same C++ generator); load() reads a file
into numpy arrays; loads() parses generate()'s text."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple, Union

import numpy as np

from . import _mxconform as _ext


@dataclass
class Vectors:
    """A vector file: header keys, field names, and the cases as uint64
    arrays [cases, fields] of inputs and expected results."""

    header: Dict[str, str]
    input_fields: List[str]
    result_fields: List[str]
    inputs: np.ndarray
    expected: np.ndarray


def generate(op: str, *, level: int = 1, seed: int = 1,
             shard: Tuple[int, int] = (0, 1),
             out: Optional[Union[str, os.PathLike]] = None, **keys) -> str:
    """The vector file `mxc gen OP --level L --seed S --shard i/n --set
    KEY=VALUE ...` writes, as text (and written to `out` when given).

    keys: header keys, with '_' for '-' (a_fmt='e4m3' is a-fmt=e4m3):
    from/to/round/overflow/relu (convert; pass from_='f32'), profile, elem,
    block, sr, model, a_fmt, b_fmt, k, layout, m, n, split_k, ...
    """
    if not isinstance(op, str):
        raise TypeError("op: expected an op name (str)")
    for name, v, hi in (("level", level, 2), ("seed", seed, 2**64 - 1)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"{name}: expected an int, got {v!r}")
        if not 0 <= v <= hi:
            raise ValueError(f"{name}: expected an int in 0..{hi}, got {v!r}")
    if (not isinstance(shard, tuple) or len(shard) != 2
            or not all(isinstance(s, int) and not isinstance(s, bool)
                       for s in shard)):
        raise TypeError("shard: expected (index, count)")
    if not 0 <= shard[0] < shard[1] <= 2**63 - 1:
        raise ValueError(f"shard: expected (i, n) with 0 <= i < n, got "
                         f"{shard!r}")
    h = {"op": op, "level": str(level), "seed": str(seed)}
    for k, v in keys.items():
        key = k.rstrip("_").replace("_", "-")
        if isinstance(v, bool) or not isinstance(v, (str, int)):
            raise TypeError(f"{k}: header values are str or int, got "
                            f"{type(v).__name__}")
        h[key] = str(v)
    try:
        text = _ext.generate(h, shard[0], shard[1])
    except ValueError as e:  # the header as `mxc gen` would reject it
        msg = str(e).removeprefix("header: ")
        arg = "op" if msg.startswith(("unknown op", "op")) else "keys"
        raise ValueError(f"{arg}: {msg}") from None
    if out is not None:
        with open(out, "w", newline="\n") as f:
            f.write(text)
    return text


def _fields(side: str) -> List[str]:
    """'a[32] b[32] scale_a c' -> one name per field."""
    out: List[str] = []
    for tok in side.split():
        m = re.fullmatch(r"([A-Za-z_]+)(?:\[(\d+)\])?", tok)
        if not m:
            raise ValueError(f"fields= token {tok!r} is not NAME or NAME[N]")
        out += [m.group(1)] * int(m.group(2) or 1)
    return out


def _split_fields(spec: str) -> Tuple[List[str], List[str]]:
    if "|" not in spec:
        raise ValueError(f"fields= header {spec!r} has no '|'")
    left, right = spec.split("|", 1)
    return _fields(left), _fields(right)


def load(path: Union[str, os.PathLike]) -> Vectors:
    """Reads a vector file (as `mxc gen` writes it). Raises ValueError
    naming path:line for malformed content."""
    with open(path, "r") as f:
        return _parse(f, str(path))


def loads(text: str, name: str = "<text>") -> Vectors:
    """Parses vector-file text (what generate() returns); errors name
    `name`:line as load() does."""
    if not isinstance(text, str):
        raise TypeError("text: expected the vector file as str")
    return _parse(text.splitlines(), name)


def _parse(lines, path: str) -> Vectors:
    header: Dict[str, str] = {}
    rows: List[List[int]] = []
    for ln, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if line.startswith("#"):
            kv = line[1:].strip()
            if "=" not in kv:
                raise ValueError(f"{path}:{ln}: header line without '='")
            k, v = kv.split("=", 1)
            header[k.strip()] = v.strip()
            continue
        if not line:
            continue
        try:
            rows.append([int(t, 16) for t in line.split(" ")])
        except ValueError:
            raise ValueError(f"{path}:{ln}: a field is not hex") from None
    if "fields" not in header:
        raise ValueError(f"{path}:1: no fields= header (not a vector file?)")
    ins, res = _split_fields(header["fields"])
    width = len(ins) + len(res)
    for i, r in enumerate(rows):
        if len(r) != width:
            raise ValueError(f"{path}: case {i}: {len(r)} fields, the header "
                             f"says {width}")
    arr = np.array(rows, dtype=np.uint64).reshape(len(rows), width)
    return Vectors(header, ins, res, arr[:, :len(ins)], arr[:, len(ins):])


__all__ = ["Vectors", "generate", "load", "loads"]
