"""Input normalisation shared by every public function.

Anything that speaks the buffer protocol or DLPack (numpy, torch CPU
tensors, JAX, ...) becomes a C-contiguous native-endian numpy array,
without a copy where the layout allows (a copy otherwise). Narrow float dtypes that numpy lacks (ml_dtypes arrays,
torch float8 tensors, bfloat16) become unsigned-integer views of their
codes, with the format they carry remembered as a hint.
"""

from __future__ import annotations

import os

import numpy as np

# ml_dtypes dtype names -> our format names (ml_dtypes stores every one of
# them in one byte, bfloat16 in two).
_ML_DTYPES = {
    "float8_e4m3fn": "e4m3",
    "float8_e5m2": "e5m2",
    "float6_e2m3fn": "e2m3",
    "float6_e3m2fn": "e3m2",
    "float4_e2m1fn": "e2m1",
    "float8_e8m0fnu": "e8m0",
    "float8_e4m3fnuz": "e4m3fnuz",
    "float8_e5m2fnuz": "e5m2fnuz",
    "float8_e4m3b11fnuz": "e4m3b11fnuz",
    "bfloat16": "bf16",
}
# torch dtype names (str(torch.float8_e4m3fn) == "torch.float8_e4m3fn").
_TORCH_DTYPES = {
    "torch.float8_e4m3fn": "e4m3",
    "torch.float8_e5m2": "e5m2",
    "torch.float8_e8m0fnu": "e8m0",
    "torch.float8_e4m3fnuz": "e4m3fnuz",
    "torch.float8_e5m2fnuz": "e5m2fnuz",
    "torch.bfloat16": "bf16",
}
_FLOAT_DTYPES = {np.dtype(np.float64): "f64", np.dtype(np.float32): "f32",
                 np.dtype(np.float16): "f16"}
_CODE_DTYPE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _memory_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX: no bound
        return 1 << 62


def _check_copy_size(nbytes: int, name: str) -> None:
    """A strided view is copied into C order; a view larger than the
    machine's memory (a stride-0 broadcast of 2^40 elements) is refused
    before allocating."""
    if nbytes > _memory_bytes():
        raise ValueError(f"{name}: a C-order copy of this strided view "
                         f"needs {nbytes} bytes, more than the machine's "
                         f"memory ({_memory_bytes()} bytes)")


def _is_torch(x) -> bool:
    return type(x).__module__.split(".")[0] == "torch" and hasattr(x, "dtype")


def as_array(x, name: str, *, allow_none: bool = False):
    """Returns (numpy array, format hint or None) for argument `name`.

    Strided (slices, Fortran order, negative strides, torch w.t()) and
    big-endian arrays are copied into native C order. Raises TypeError for
    objects that are not arrays and ValueError for arrays that are not on
    the CPU or whose copy would not fit in memory, naming `name`.
    """
    if x is None:
        if allow_none:
            return None, None
        raise TypeError(f"{name}: expected an array, got None")
    hint = None
    if _is_torch(x):
        dt = str(x.dtype)
        if x.device.type != "cpu":
            raise ValueError(f"{name}: tensor is on {x.device}; move it to the "
                             "CPU first (x.cpu())")
        if not x.is_contiguous():
            _check_copy_size(int(x.numel()) * int(x.element_size()), name)
            x = x.contiguous()  # w.t() and slices: a C-order copy
        if dt == "torch.float4_e2m1fn_x2":
            raise TypeError(f"{name}: torch.float4_e2m1fn_x2 holds two packed "
                            "codes per byte; pass mxconform.unpack_fp4("
                            "t.view(torch.uint8), n) instead")
        x = x.detach()
        if dt in _TORCH_DTYPES:
            hint = _TORCH_DTYPES[dt]
            import torch  # only reached when torch is installed

            x = x.view(torch.uint8 if x.element_size() == 1 else torch.int16)
        try:
            a = np.from_dlpack(x)
        except Exception as e:  # noqa: BLE001 - re-raised with the name
            raise TypeError(f"{name}: cannot read torch dtype {dt} "
                            f"through DLPack ({e})") from None
        if hint is not None:
            a = a.view(_CODE_DTYPE[a.itemsize])
        return a, hint
    if not isinstance(x, np.ndarray):
        if hasattr(x, "__dlpack__") and not hasattr(x, "__array_interface__"):
            try:
                x = np.from_dlpack(x)
            except Exception as e:  # noqa: BLE001
                raise TypeError(f"{name}: cannot read {type(x).__name__} "
                                f"through DLPack ({e})") from None
        else:
            try:
                x = np.asarray(x)
            except Exception as e:  # noqa: BLE001
                raise TypeError(f"{name}: expected an array, got "
                                f"{type(x).__name__} ({e})") from None
    if x.dtype == object:
        raise TypeError(f"{name}: expected a numeric array, got dtype=object")
    if not x.dtype.isnative:  # big-endian ('>f4'): native-order copy
        _check_copy_size(x.size * x.itemsize, name)
        x = x.astype(x.dtype.newbyteorder("="))
    if not x.flags.c_contiguous:  # slices, Fortran order, negative strides
        _check_copy_size(x.size * x.itemsize, name)
        x = np.ascontiguousarray(x)
    # ml_dtypes' types are user-defined (isbuiltin 2); numpy's own skip the
    # name lookup (dtype.name costs about 2 us per call).
    if x.dtype.isbuiltin != 1 and x.dtype.name in _ML_DTYPES:
        hint = _ML_DTYPES[x.dtype.name]
        x = x.view(_CODE_DTYPE[x.itemsize])
    return x, hint


def value_format(a: np.ndarray, hint):
    """The source format of a value array, or None for integer codes."""
    if hint is not None:
        return hint
    return _FLOAT_DTYPES.get(a.dtype)


def code_dtype(bits: int):
    return _CODE_DTYPE[1 if bits <= 8 else 2 if bits <= 16 else
                       4 if bits <= 32 else 8]
