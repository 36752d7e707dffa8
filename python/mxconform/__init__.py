"""mxconform: a bit-exact emulator of low-precision GPU arithmetic.

The same C++ engine as the ``mxc`` command line (OCP MX formats, FP8, FP6,
FP4, NVFP4, tensor-core MMA models), for tests written in Python. Arrays in
(numpy, torch CPU tensors, anything with the buffer protocol or DLPack;
ml_dtypes arrays and torch float8 tensors are taken as codes of their
format), numpy arrays out. Names follow the CLI: formats, profiles and
models are looked up by the names ``mxc formats``, ``mxc profiles`` and
``mxc models`` print.

Functions: formats, profiles, profile_aliases, models, convert, decode, quantize,
dequantize, swizzle_scales, unswizzle_scales, pack_fp4, unpack_fp4,
pack_fp6, unpack_fp6, mma, gemm, compare, set_num_threads,
get_num_threads. Submodules: mxconform.testing
(assert_bitexact), mxconform.vectors (golden vector files),
mxconform.strategies (Hypothesis strategies; needs hypothesis).
"""

from __future__ import annotations

from . import _mxconform as _ext
from ._api import (
    Quantized,
    convert,
    decode,
    dequantize,
    formats,
    gemm,
    get_num_threads,
    mma,
    models,
    pack_fp4,
    pack_fp6,
    profile_aliases,
    profiles,
    quantize,
    set_num_threads,
    swizzle_scales,
    unpack_fp4,
    unpack_fp6,
    unswizzle_scales,
)
from ._compare import Mismatch, Report, compare

from ._version import __version__

__all__ = [
    "Mismatch", "Quantized", "Report", "compare", "convert", "decode",
    "dequantize", "formats", "gemm", "get_num_threads", "mma", "models",
    "pack_fp4", "pack_fp6", "profile_aliases", "profiles", "quantize", "set_num_threads",
    "swizzle_scales", "unpack_fp4", "unpack_fp6", "unswizzle_scales",
]
del _ext
