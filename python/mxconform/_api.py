"""The public functions (re-exported by mxconform)."""

from __future__ import annotations

import functools
import math
from typing import Optional

import numpy as np

from . import _mxconform as _ext
from ._arrays import _is_torch, as_array, code_dtype, value_format

_FLOAT_OUT = {"f32": np.float32, "f64": np.float64, "f16": np.float16}
_MX_ELEMS = ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "int8")


def _names(table):
    return ", ".join(r["name"] for r in table)


def formats() -> list:
    """Every format the emulator knows, as dicts.

    Keys: name (the CLI spelling used everywhere: 'e4m3', 'e2m1', 'ue4m3',
    'e8m0', 'bf16', ...), bits, signed, exp_bits, man_bits, bias, emin,
    emax, has_inf, has_nan, has_subnormals, max_finite.
    """
    return _ext.formats()


def profiles() -> list:
    """Every quantization profile (MX and NVFP4), as dicts.

    Keys: name (versioned, LIBRARY-MODE@VERSION), kind ('mx' or 'nvfp4'),
    summary, source (the library file and commit the rules were read from),
    versions (the releases it reproduces), evidence ('run: <peer test>',
    'read only: ...', or 'read, run locally at COMMIT ...' for a library's
    source run once outside the repository), default_elem, block, scale_fmt; NVFP4 also
    tensor_value. Every function taking a profile also takes the aliases
    profile_aliases() lists. New profiles added to the C++ table appear here
    automatically.
    """
    return _ext.profiles()


def profile_aliases() -> list:
    """Bare and older profile names, as dicts: alias, target (the versioned
    profile it stands for; a bare name is the newest release) and why."""
    return _ext.profile_aliases()


def models() -> list:
    """Every MMA instruction model, as dicts.

    Keys: name, arch, ptx, k, ab_formats, c_fmt, scale_block (0: none),
    scale_fmt, L, G, F (FDPA parameters), source, status (as mxc models
    prints it), evidence ('hardware captures', 'hardware captures (proxy)',
    'two models agree' or 'one model'), capture_rows (GPU rows the model
    replays bit for bit, 0: none), capture_gpus and captures (where the
    rows are: km-hardware/<model>.* in ../shared/oracles, or upstream).
    """
    return _ext.models()


def set_num_threads(n: int) -> None:
    """Threads convert() and quantize() use on large arrays (row ranges of
    at least 2^18 elements each; results do not depend on the count).
    0 (the default) means every core; 1 keeps every call on the calling
    thread. gemm() and 2-D tiles run on one thread."""
    _ext.set_num_threads(_check_int(n, "n", lo=0, hi=_INT_MAX,
                                      required=True))


def get_num_threads() -> int:
    """The number of threads convert() and quantize() use on large
    arrays (see set_num_threads)."""
    return _ext.get_num_threads()


def _check_str(v, name):
    if not isinstance(v, str):
        raise TypeError(f"{name}: expected a name (str), got "
                        f"{type(v).__name__}")
    return v


# Formats torch has a dtype for (codes come back as tensors of that dtype;
# UE4M3 scales as float8_e4m3fn, torchao's NVFP4 scale dtype).
_TORCH_OUT = {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2",
              "e8m0": "float8_e8m0fnu", "ue4m3": "float8_e4m3fn",
              "e4m3fnuz": "float8_e4m3fnuz", "e5m2fnuz": "float8_e5m2fnuz"}


def _out(a, torch_in, fmt=None):
    """numpy in, numpy out; torch in, a CPU torch tensor out: float values
    as their dtype, bf16 as torch.bfloat16, E4M3/E5M2/E8M0/UE4M3 and
    E4M3FNUZ/E5M2FNUZ codes as torch float8 dtypes, other codes as uint8 (uint16... for wider)."""
    if not torch_in:
        return a
    import torch

    a = np.ascontiguousarray(a)
    if fmt == "bf16":
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    t = torch.from_numpy(a)
    name = _TORCH_OUT.get(fmt)
    if name is not None and hasattr(torch, name) and a.itemsize == 1:
        t = t.view(getattr(torch, name))
    return t


def _check_bool(v, name):
    """A boolean option: bool, numpy bool, or the ints 0 / 1. Anything else
    (a truthy string such as "no", None, 2) is a TypeError naming it."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)) and v in (0, 1):
        return bool(v)
    raise TypeError(f"{name}: expected True or False, got {v!r}")


@functools.lru_cache(maxsize=None)
def _tables():
    """Name -> dict of the formats, profiles and models, and alias ->
    target. The C++ tables are constexpr (fixed for the process); building
    the dicts took 0.14 ms per quantize call, a third of quantizing a
    1024 x 1024 matrix (issue 22). Lookups return copies."""
    return ({f["name"]: f for f in _ext.formats()},
            {p["name"]: p for p in _ext.profiles()},
            {a["alias"]: a["target"] for a in _ext.profile_aliases()},
            {m["name"]: m for m in _ext.models()})


def _fmt_info(name, arg):
    _check_str(name, arg)
    f = _tables()[0].get(name)
    if f is not None:
        return dict(f)
    raise ValueError(f"{arg}: unknown format {name!r} (known: "
                     f"{_names(_ext.formats())})")


def _source(x, name, from_fmt, tf32_input="strict"):
    """(array, source format) for a value-or-code argument."""
    a, hint = as_array(x, name)
    if isinstance(from_fmt, str) and from_fmt == "tf32" and hint is None:
        # f32 bit patterns (or float32 values), as mma/gemm take them
        return _tf32_operand(a, name, tf32_input), from_fmt
    fmt = value_format(a, hint)
    if from_fmt is not None:
        info = _fmt_info(from_fmt, "from_fmt")
        if fmt is not None and fmt != from_fmt:
            raise ValueError(f"from_fmt: {name} holds {fmt} values "
                             f"(dtype {a.dtype}), not {from_fmt} codes")
        width = code_dtype(info["bits"])
        if a.dtype.kind not in "ui" and fmt is None:
            raise TypeError(f"{name}: {from_fmt} codes must be an integer "
                            f"array, got dtype {a.dtype}")
        if a.itemsize != np.dtype(width).itemsize:
            raise TypeError(f"{name}: {from_fmt} codes are "
                            f"{np.dtype(width).itemsize}-byte integers "
                            f"({np.dtype(width).name}), got dtype {a.dtype}")
        if a.dtype.kind == "i":
            a = a.view(width)
        if a.size and int(a.max()) > (1 << info["bits"]) - 1:
            raise ValueError(f"{name}: a code does not fit {from_fmt} "
                             f"({info['bits']} bits)")
        return a, from_fmt
    if fmt is None:
        raise TypeError(f"{name}: dtype {a.dtype} holds codes; say which "
                        "format they are with from_fmt=")
    return a, fmt


def convert(x, to: str, round: str = "rne", saturate: bool = False,
            relu: bool = False, rbits=None, from_fmt: Optional[str] = None,
            tf32_input: str = "strict"):
    """Converts every element of `x` into format `to`, bit-exactly.

    x: float64/float32/float16 values, a bfloat16 torch tensor, an ml_dtypes
       array or torch float8 tensor (codes of its format), or integer codes
       with from_fmt naming their format. TF32 codes (from_fmt or to
       'tf32') are f32 bit patterns whose low 13 bits are zero, as uint32;
       from_fmt='tf32' also takes float32 arrays.
    to: target format name (mxconform.formats()), e.g. 'e4m3', 'e2m1'.
    round: 'rne' (default), 'rz', 'ru', 'rd', 'rna', 'odd', 'rs' (stochastic,
       8 random bits per element as PTX cvt.rs) or 'rs-full'.
    saturate: clamp overflow to the largest finite value (PTX .satfinite);
       False follows the format (Inf, NaN, or largest finite).
    relu: negative results become +0 (PTX .relu).
    rbits: uint32 random bits, one per element, for round='rs'/'rs-full'.
    tf32_input: from_fmt='tf32' inputs with any of the low 13 bits set:
       'strict' (default) refuses them, 'truncate' clears them (what a
       tensor core does with a TF32 operand).

    Returns a numpy array of the same shape: float32/float64/float16 when
    `to` is one of those, else unsigned integer codes of the storage width
    (uint8 for FP8/FP6/FP4/E8M0/UE4M3/int8, uint16 for bf16, uint32 f32
    bit patterns for tf32, ...).
    f32 sources into 8-bit-or-narrower targets take the SIMD fast path,
    into bf16/f16 the wide fast path (not for rs/rs-full or relu).
    torch tensors in give torch tensors out (see docs/python.md).
    """
    saturate = _check_bool(saturate, "saturate")
    relu = _check_bool(relu, "relu")
    tf32_input = _tf32_input_arg(tf32_input)
    a, src = _source(x, "x", from_fmt, tf32_input)
    _fmt_info(_check_str(to, "to"), "to")
    _check_str(round, "round")
    rb = None
    if rbits is not None:
        rb, _ = as_array(rbits, "rbits")
        if rb.dtype != np.uint32:
            raise TypeError(f"rbits: expected uint32, got dtype {rb.dtype}")
        if rb.shape != a.shape:
            raise ValueError(f"rbits: shape {rb.shape} differs from x's "
                             f"{a.shape}")
    out = _ext.convert(a, src, to, round, saturate, relu, rb)
    if to in _FLOAT_OUT:
        out = out.view(_FLOAT_OUT[to])
    return _out(out, _is_torch(x), to)


def decode(codes, fmt: Optional[str] = None, to: str = "f32",
           tf32_input: str = "strict"):
    """Decodes codes of format `fmt` into `to` (default float32).

    codes: integer codes, or an ml_dtypes array / torch float8 tensor (then
    fmt may be omitted); TF32 codes are f32 bit patterns whose low 13 bits
    are zero (uint32, or float32 values). Decoding into f32 or f64 is exact
    for every narrow format. Same as convert(codes, to, from_fmt=fmt,
    tf32_input=tf32_input).
    """
    return convert(codes, to, from_fmt=fmt, tf32_input=tf32_input)


class Quantized(tuple):
    """(scales, codes) of a block quantization, with its parameters.

    Unpacks as a 2-tuple; attributes: scales, codes (one byte per element,
    same shape as the input), profile, kind ('mx'/'nvfp4'), elem,
    scale_fmt, axis, block, tile, tensor_amax (NVFP4: float32 used for the
    tensor scale), tensor_scale (NVFP4: the profile's tensor value as
    float32: S_enc for TE/CUTLASS, the decode scale for torchao).
    """

    def __new__(cls, scales, codes, **meta):
        t = super().__new__(cls, (scales, codes))
        t.__dict__.update(meta)
        return t

    @property
    def scales(self):
        return self[0]

    @property
    def codes(self):
        return self[1]

    def __repr__(self):
        return (f"Quantized(profile={self.profile!r}, elem={self.elem!r}, "
                f"axis={self.axis}, block={self.block}, tile={self.tile}, "
                f"scales.shape={self.scales.shape}, "
                f"codes.shape={self.codes.shape})")


def _profile(name):
    """The profile dict of a versioned name or of an alias (a bare name is
    the newest release, e.g. 'torchao-floor' -> 'torchao-floor@0.18')."""
    _check_str(name, "profile")
    _, profs, aliases, _ = _tables()
    p = profs.get(aliases.get(name, name))
    if p is not None:
        return dict(p)
    raise ValueError(f"profile: unknown profile {name!r} (known: "
                     f"{_names(_ext.profiles())})")


def _as_f32(x, name):
    a, hint = as_array(x, name)
    fmt = value_format(a, hint)
    if fmt == "f32":
        return a
    if fmt in ("f16", "bf16"):  # exact in f32
        return convert(a, "f32", from_fmt="bf16") if fmt == "bf16" and \
            a.dtype.kind == "u" else a.astype(np.float32)
    if fmt == "f64":
        raise TypeError(f"{name}: float64 does not convert exactly to the "
                        "float32 the quantizers take; pass "
                        f"{name}.astype(np.float32) (rounds once, RNE)")
    raise TypeError(f"{name}: expected float32/float16/bfloat16 values, got "
                    f"dtype {a.dtype}")


def _matrix(a, axis, tile, name="x"):
    """rows, cols, axis (1 rowwise / 0 colwise), reshape-back shape."""
    if a.ndim == 0:
        raise ValueError(f"{name}: expected an array with at least one "
                         "dimension, got a scalar")
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"axis: expected an int, got {type(axis).__name__}")
    nd = a.ndim
    if not -nd <= axis < nd:
        raise ValueError(f"axis: {axis} is out of range for {nd}-D {name}")
    axis = axis % nd
    if tile is not None:
        if nd != 2:
            raise ValueError(f"tile: 2D tiles need a 2-D {name}, got {nd}-D")
        return a.shape[0], a.shape[1], 1
    if nd == 1:
        return 1, a.shape[0], 1
    if axis == nd - 1:
        return math.prod(a.shape[:-1]), a.shape[-1], 1
    if nd == 2 and axis == 0:
        return a.shape[0], a.shape[1], 0
    raise ValueError(f"axis: blocks run along the last axis or, for a 2-D "
                     f"{name}, down axis 0; got axis={axis} for {nd}-D")


_SIZE_MAX = 2**63 - 1  # sizes and counts cross into C++ as 64-bit ints


_INT_MAX = 2**31 - 1  # rows, columns, K: C++ int


def _scalar(v, name):
    """A float argument: a Python/numpy number or a 0-d array / tensor
    (not a bool, not a string)."""
    if isinstance(v, (bool, np.bool_, str, bytes)):
        raise TypeError(f"{name}: expected a float, got {type(v).__name__}")
    if isinstance(v, (int, float, np.floating, np.integer)):
        return np.float64(v) if not isinstance(v, np.floating) else v
    if hasattr(v, "shape") and tuple(v.shape) == () and hasattr(v, "item"):
        item = v.item()
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            return np.float64(item) if not isinstance(
                v, np.ndarray) else v[()]
    raise TypeError(f"{name}: expected a float (or a 0-d array), got "
                    f"{type(v).__name__}")


def _check_int(v, name, lo=1, hi=_SIZE_MAX, required=False):
    if v is None:
        if required:
            raise TypeError(f"{name}: expected an int, got None")
        return None
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
        raise TypeError(f"{name}: expected an int, got {type(v).__name__}")
    if v < lo:
        raise ValueError(f"{name}: must be >= {lo}, got {v}")
    if v > hi:
        raise ValueError(f"{name}: must be <= {hi}, got {v}")
    return int(v)


def quantize(x, profile: str, elem: Optional[str] = None, axis: int = -1,
             block: Optional[int] = None, tile: Optional[int] = None,
             tensor_amax: Optional[float] = None, rbits=None,
             seed: Optional[int] = None) -> Quantized:
    """Block-quantizes `x` under a named profile; returns (scales, codes).

    x: float32 (or float16/bfloat16, converted exactly) values, any shape;
       blocks run along `axis` (the last axis, or axis 0 of a 2-D array).
    profile: a name from mxconform.profiles(): MX profiles ('ocp-v1',
       'torchao-floor', 'torchao-rceil', 'te-mxfp8', 'deepgemm', ...) give
       E8M0 scales per `block` (default the profile's, usually 32); NVFP4
       profiles ('nvfp4-te', 'nvfp4-cutlass', ...) give UE4M3 scales per 16
       elements and an FP32 tensor scale.
    elem: MX element format ('e4m3', 'e5m2', 'e3m2', 'e2m3', 'e2m1',
       'int8'); default the profile's. NVFP4 is always 'e2m1'.
    block: MX block size override.
    tile: 2-D tiles (e.g. 32 for MX weights, 16 for NVFP4): one scale per
       tile x tile square, broadcast to the row-wise scale layout.
    tensor_amax: NVFP4 tensor amax (default max |x|); S_enc = 448*6/amax.
    rbits / seed: NVFP4 stochastic rounding (cvt.rs, 8 random bits per
       element): uint32 bits per element, or a Philox seed (element i of
       x in C order uses sr_rbits(seed, i), as `mxc quantize --sr-seed`).

    Returns Quantized(scales, codes): codes uint8, one per element, shape
    of x; scales uint8, [rows, cols/block] row-wise or [rows/block, cols]
    column-wise (1-D input: 1-D scales).
    """
    p = _profile(profile)
    a = _as_f32(x, "x")
    if elem is not None:
        _check_str(elem, "elem")
    block = _check_int(block, "block", hi=_INT_MAX)
    tile = _check_int(tile, "tile", hi=_INT_MAX)
    if tile is not None:
        # A tile is the block in both directions: block= and axis= would
        # be ignored, so they are refused (block=tile, axis=-1/1 are fine).
        if block is not None and block != tile:
            raise ValueError(f"block: 2-D tiles of {tile} x {tile} are the "
                             f"blocks; block={block} cannot be combined "
                             "with tile=")
        if not isinstance(axis, (int, np.integer)) or isinstance(
                axis, bool) or axis not in (-1, 1):
            raise ValueError(f"axis: 2-D tiles take no axis (their scales "
                             f"come in the row-wise layout); got axis="
                             f"{axis!r} with tile={tile}")
    rows, cols, ax = _matrix(a, axis, tile)
    if rows > _INT_MAX or cols > _INT_MAX:
        raise ValueError(f"x: {rows} rows x {cols} columns; the quantizers "
                         f"take at most {_INT_MAX} of each")
    if p["kind"] == "mx":
        if rbits is not None or seed is not None or tensor_amax is not None:
            bad = "rbits" if rbits is not None else (
                "seed" if seed is not None else "tensor_amax")
            raise ValueError(f"{bad}: MX profile {profile!r} takes no "
                             f"{bad} (NVFP4 profiles only)")
        e = elem or p["default_elem"]
        if e not in _MX_ELEMS:
            raise ValueError(f"elem: MX elements are {', '.join(_MX_ELEMS)}; "
                             f"got {e!r}")
        blk = block or p["block"]
        if tile is None:
            along = cols if ax == 1 else rows
            if along % blk:
                raise ValueError(
                    f"x: the blocked dimension ({along}) is not a multiple "
                    f"of the block size {blk}")
        else:
            if rows % tile or cols % tile:
                raise ValueError(f"tile: x's shape {a.shape} is not a "
                                 f"multiple of the tile {tile}")
        if a.size == 0:
            scales, codes = _empty_result(rows, cols, ax, tile or blk)
        else:
            scales, codes = _ext.quantize_mx(a, rows, cols, profile, e,
                                             block or 0, ax, tile or 0)
        meta = dict(profile=profile, kind="mx", elem=e, scale_fmt="e8m0",
                    axis=ax, block=tile or blk, tile=tile, tensor_amax=None,
                    tensor_scale=None)
    else:
        if elem not in (None, "e2m1"):
            raise ValueError(f"elem: NVFP4 elements are e2m1, got {elem!r}")
        if block not in (None, 16):
            raise ValueError(f"block: NVFP4 blocks are 16 elements, got "
                             f"{block}")
        if tile not in (None, 16):
            raise ValueError(f"tile: NVFP4 tiles are 16x16, got {tile}")
        along = cols if ax == 1 else rows
        if along % 16 or (tile and (rows % 16 or cols % 16)):
            raise ValueError(f"x: the blocked dimension ({along}) is not a "
                             "multiple of the NVFP4 block size 16")
        if rbits is not None and seed is not None:
            raise ValueError("seed: give rbits or seed, not both")
        for v, n in ((seed, "seed"), (rbits, "rbits")):
            if v is not None and not p["stochastic_rounding"]:
                raise ValueError(f"{n}: profile {profile!r} has no "
                                 "stochastic rounding (its library rounds "
                                 "to nearest even)")
        rb = None
        if seed is not None:
            seed = _check_int(seed, "seed", lo=0, hi=2**64 - 1)
            rb = _ext.sr_rbits(seed, a.size)
        elif rbits is not None:
            rb, _ = as_array(rbits, "rbits")
            if rb.dtype != np.uint32:
                raise TypeError(f"rbits: expected uint32, got {rb.dtype}")
            if rb.size != a.size:
                raise ValueError(f"rbits: needs one value per element of x "
                                 f"({a.size}), got {rb.size}")
            rb = rb.reshape(-1)
        if rb is not None and tile is not None:
            raise ValueError("tile: stochastic rounding is not available "
                             "for 2-D tiles")
        amax_bits = None
        if tensor_amax is not None:
            tensor_amax = _scalar(tensor_amax, "tensor_amax")
            if np.isnan(tensor_amax) or tensor_amax < 0:
                raise ValueError(f"tensor_amax: an amax is >= 0 and not NaN, "
                                 f"got {tensor_amax}")
            if tensor_amax == 0:  # -0.0 is the amax 0, not a sign bit
                tensor_amax = np.float32(0)
            amax_bits = int(np.float32(tensor_amax).view(np.uint32))
        if a.size == 0:  # the tensor scale of amax (default 0) alone
            _, _, s_enc, used = _ext.quantize_nvfp4(
                np.zeros(16, np.float32), 1, 16, profile, 1, 0,
                0 if amax_bits is None else amax_bits, None)
            scales, codes = _empty_result(rows, cols, ax, 16)
        else:
            # The extension takes max |x| in the same pass it would need
            # anyway and returns the amax it used (no second pass here).
            scales, codes, s_enc, used = _ext.quantize_nvfp4(
                a, rows, cols, profile, ax, tile or 0, amax_bits, rb)
        used_amax = (np.float32(tensor_amax) if tensor_amax is not None
                     else np.uint32(used).view(np.float32))
        meta = dict(profile=profile, kind="nvfp4", elem="e2m1",
                    scale_fmt="ue4m3", axis=ax, block=16, tile=tile,
                    tensor_amax=used_amax,
                    tensor_scale=np.uint32(s_enc).view(np.float32))
    codes = codes.reshape(a.shape)
    if a.ndim == 1:
        scales = scales.reshape(-1)
    elif a.ndim > 2:
        scales = scales.reshape(a.shape[:-1] + (scales.shape[-1],))
    if _is_torch(x):
        scales = _out(scales, True, meta["scale_fmt"])
        codes = _out(codes, True, meta["elem"])
    return Quantized(scales, codes, **meta)


def _empty_result(rows, cols, ax, blk):
    """Scales and codes of an empty x, in the shapes quantize returns."""
    sshape = (rows, cols // blk) if ax == 1 else (rows // blk, cols)
    return np.zeros(sshape, np.uint8), np.zeros((rows, cols), np.uint8)


def dequantize(q, codes=None, *, profile: Optional[str] = None,
               elem: Optional[str] = None, axis: int = -1,
               block: Optional[int] = None, tensor_scale=None):
    """Exact dequantization back to float32.

    dequantize(q) takes a Quantized from quantize(). Or pass
    dequantize(scales, codes, profile=..., elem=..., axis=..., block=...,
    tensor_scale=...) with the same meanings as quantize (for MX scales,
    elem= alone suffices; block defaults to 32) (scales in the
    row-wise or column-wise layout quantize returns; tensor_scale: the
    NVFP4 profile's tensor value: S_enc for TE/CUTLASS, the decode scale
    amax/2688 for torchao two-level, unused for single-level). MX: element *
    2^(scale - 127), rounded once to f32 (a NaN scale gives NaN). NVFP4:
    element * scale / S_enc (TE/CUTLASS), element * scale * t (torchao),
    rounded once.
    """
    if isinstance(q, Quantized) and codes is None:
        scales, codes = q
        kind, e, ax, blk, s_enc = (q.kind, q.elem, q.axis, q.block,
                                   q.tensor_scale)
        nv_profile = q.profile if q.kind == "nvfp4" else None
    else:
        if codes is None:
            raise TypeError("codes: required unless q is a Quantized")
        if profile is None and elem is None:
            raise TypeError("profile: give profile= (or elem= for MX "
                            "scales) with (scales, codes)")
        p = _profile(profile) if profile is not None else {
            "kind": "mx", "default_elem": elem, "block": 32}
        scales = q
        kind = p["kind"]
        e = elem or p["default_elem"]
        _fmt_info(e, "elem")
        blk = _check_int(block, "block", hi=_INT_MAX) or p["block"]
        s_enc = tensor_scale
        ax = None
        nv_profile = p["name"] if kind == "nvfp4" else None
    s, _ = as_array(scales, "scales")
    c, _ = as_array(codes, "codes")
    if s.dtype.itemsize != 1 or s.dtype.kind not in "ui":
        raise TypeError(f"scales: expected uint8 codes, got {s.dtype}")
    if c.dtype.itemsize != 1 or c.dtype.kind not in "ui":
        raise TypeError(f"codes: expected uint8 codes, got {c.dtype}")
    if ax is None:
        rows, cols, ax = _matrix(c, axis, None, "codes")
    else:
        rows, cols = (c.shape[0], c.shape[1]) if c.ndim == 2 else (
            math.prod(c.shape[:-1]), c.shape[-1])
    if rows > _INT_MAX or cols > _INT_MAX:
        raise ValueError(f"codes: {rows} rows x {cols} columns; dequantize "
                         f"takes at most {_INT_MAX} of each")
    if kind == "nvfp4":
        if s_enc is None:
            raise TypeError("tensor_scale: NVFP4 needs the tensor scale "
                            "S_enc (Quantized.tensor_scale)")
        s_enc = _scalar(s_enc, "tensor_scale")
        s_enc_bits = int(np.float32(s_enc).view(np.uint32))
        out = _ext.dequantize(s, c, rows, cols, "e2m1", 16, ax, s_enc_bits,
                              nv_profile)
    else:
        out = _ext.dequantize(s, c, rows, cols, e, blk, ax, None)
    torch_in = any(_is_torch(v) for v in (scales, codes))
    return _out(out.reshape(c.shape), torch_in)


def swizzle_scales(scales, pad: int = 0):
    """Row-major scales [rows, kblocks] -> the cuBLASLt/CUTLASS 128x4 tiled
    layout (1-D uint8, rows padded to 128 and kblocks to 4 with `pad`).

    Offset of (r, c): ((r//128)*ceil(kblocks/4) + c//4)*512 + (r%32)*16
    + ((r%128)//32)*4 + c%4 (cuBLAS "1D block scaling factors layout").
    """
    s, _ = as_array(scales, "scales")
    if s.ndim != 2:
        raise ValueError(f"scales: expected a 2-D [rows, kblocks] array, got "
                         f"{s.ndim}-D")
    if s.dtype.itemsize != 1:
        raise TypeError(f"scales: expected 1-byte scale codes, got {s.dtype}")
    pad = _check_int(pad, "pad", lo=0, required=True)
    if pad > 255:
        raise ValueError("pad: must be a byte (0..255)")
    return _out(_ext.swizzle_scales(s, s.shape[0], s.shape[1], pad),
                _is_torch(scales))


def unswizzle_scales(tiled, rows: int, kblocks: int):
    """The 128x4 tiled layout -> row-major scales [rows, kblocks] (uint8)."""
    t, _ = as_array(tiled, "tiled")
    if t.dtype.itemsize != 1:
        raise TypeError(f"tiled: expected 1-byte scale codes, got {t.dtype}")
    rows = _check_int(rows, "rows", lo=0, required=True)
    kblocks = _check_int(kblocks, "kblocks", lo=0, required=True)
    return _out(_ext.unswizzle_scales(t, rows, kblocks), _is_torch(tiled))


def _codes_u8(x, name):
    a, _ = as_array(x, name)
    if a.dtype.itemsize != 1 or a.dtype.kind not in "ui":
        raise TypeError(f"{name}: expected uint8 codes, got dtype {a.dtype}")
    return a.reshape(-1)


def pack_fp4(codes):
    """E2M1 codes (one per byte) -> packed bytes, two per byte: element 2i
    in the low nibble (CUDA __nv_fp4x2, PTX cvt .e2m1x2). ValueError if a
    code exceeds 0xF. Flattens its input (C order)."""
    return _out(_ext.pack_fp4(_codes_u8(codes, "codes")), _is_torch(codes))


def unpack_fp4(packed, n: Optional[int] = None):
    """The first n (default all) E2M1 codes of packed FP4 bytes."""
    b = _codes_u8(packed, "packed")
    n = 2 * b.size if n is None else _check_int(n, "n", lo=0)
    return _out(_ext.unpack_fp4(b, n), _is_torch(packed))


def pack_fp6(codes):
    """E2M3/E3M2 codes (one per byte) -> packed bytes, four per three bytes
    (little-endian bit stream, CUTLASS subbyte layout). ValueError if a
    code exceeds 0x3F."""
    return _out(_ext.pack_fp6(_codes_u8(codes, "codes")), _is_torch(codes))


def unpack_fp6(packed, n: Optional[int] = None):
    """The first n (default all) 6-bit codes of packed FP6 bytes."""
    b = _codes_u8(packed, "packed")
    n = (8 * b.size) // 6 if n is None else _check_int(n, "n", lo=0)
    return _out(_ext.unpack_fp6(b, n), _is_torch(packed))


def _model(name):
    _check_str(name, "model")
    m = _tables()[3].get(name)
    if m is not None:
        return dict(m)
    raise ValueError(f"model: unknown model {name!r} (known: "
                     f"{_names(_ext.models())})")


_TF32_INPUTS = ("strict", "truncate")
_TF32_LOW = np.uint32(0x1FFF)


def _tf32_input_arg(tf32_input):
    if tf32_input not in _TF32_INPUTS:
        raise ValueError("tf32_input: expected 'strict' or 'truncate', got "
                         f"{tf32_input!r}")
    return tf32_input


def _tf32_operand(a, name, tf32_input):
    """TF32 codes are f32 bit patterns (the one TF32 representation of the
    CLI, vector files, captures and emu/codes.h): float32 arrays, or
    uint32/int codes. The instruction ignores the low 13 mantissa bits:
    'truncate' clears them, 'strict' refuses a code that has any set."""
    if a.dtype == np.float32:
        a = a.view(np.uint32)
    elif a.dtype.kind in "ui":
        if a.size and (a.min() < 0 or a.max() > 0xFFFFFFFF):
            raise ValueError(f"{name}: tf32 operands are f32 bit patterns "
                             "(0..0xFFFFFFFF); got a code outside 32 bits")
        a = a.astype(np.uint32, copy=False)
    else:
        raise TypeError(f"{name}: tf32 operands are float32 arrays or "
                        f"uint32 f32 bit patterns, got dtype {a.dtype}")
    if tf32_input == "truncate":
        return a & np.uint32(0xFFFFE000)  # one pass, whatever the low bits
    low = (a & _TF32_LOW) != 0
    if low.any():
        i = int(np.flatnonzero(low.reshape(-1))[0])
        raise ValueError(
            f"{name}: element {i} (f32 bits 0x{int(a.reshape(-1)[i]):08X})"
            " has non-zero low 13 bits, so it is not a tf32 value; pass "
            "tf32_input='truncate' to drop them as the instruction does")
    return a


def _operand(x, name, fmt, fmt_arg, tf32_input="strict"):
    a, hint = as_array(x, name)
    if fmt == "tf32" and hint is None:
        return _tf32_operand(a, name, tf32_input), fmt
    if hint is None and a.dtype == np.float16:  # f16 values are f16 codes
        a, hint = a.view(np.uint16), "f16"
    if hint is not None and fmt is not None and hint != fmt:
        raise ValueError(f"{fmt_arg}: {name} holds {hint} codes, not {fmt}")
    fmt = fmt or hint
    if fmt is None:
        raise TypeError(f"{fmt_arg}: {name} is dtype {a.dtype}; name its "
                        f"format with {fmt_arg}= (or pass an ml_dtypes / "
                        "torch float8 array)")
    if a.dtype.kind not in "ui":
        raise TypeError(f"{name}: expected integer codes of {fmt} (or an "
                        f"ml_dtypes/torch float8 array), got dtype {a.dtype}")
    return a, fmt


def _scales_arg(x, name):
    if x is None:
        return None
    a, _ = as_array(x, name)
    if a.dtype.kind not in "ui" or a.dtype.itemsize != 1:
        raise TypeError(f"{name}: expected uint8 scale codes, got {a.dtype}")
    return a


def _c_code(c, cfmt):
    dt = np.float16 if cfmt == "f16" else np.float32
    c = _scalar(c, "c")  # a float or a 0-d array / tensor
    return int(np.array(c, dtype=dt).view(
        np.uint16 if cfmt == "f16" else np.uint32))


def mma(a, b, c: float = 0.0, *, model: str, a_fmt: Optional[str] = None,
        b_fmt: Optional[str] = None, a_scales=None, b_scales=None,
        tf32_input: str = "strict"):
    """One output element of a tensor-core instruction model: D = A.B + C.

    a, b: K element codes each (K a multiple of the model's L): integer
       codes with a_fmt/b_fmt, or ml_dtypes/torch float8 arrays.
    c: the accumulator input as a float (rounded to the model's C format).
    a_scales, b_scales: K / scale_block uint8 block-scale codes for
       block-scaled models (E8M0 or UE4M3, as models() says).
    tf32_input: TF32 operands (a_fmt/b_fmt 'tf32') are float32 arrays or
       uint32 f32 bit patterns; 'strict' (default) refuses values with any
       of the low 13 bits set, 'truncate' clears them (what the instruction
       does).
    Returns D as a numpy float32 (or float16 for f16-accumulator models).
    """
    m = _model(model)
    tf32_input = _tf32_input_arg(tf32_input)
    av, af = _operand(a, "a", a_fmt, "a_fmt", tf32_input)
    bv, bf = _operand(b, "b", b_fmt, "b_fmt", tf32_input)
    av, bv = av.reshape(-1), bv.reshape(-1)
    sa, sb = _scales_arg(a_scales, "a_scales"), _scales_arg(b_scales,
                                                            "b_scales")
    d = _ext.mma(av, bv, _c_code(c, m["c_fmt"]), model, af, bf,
                 None if sa is None else sa.reshape(-1),
                 None if sb is None else sb.reshape(-1))
    if m["c_fmt"] == "f16":
        return np.array(d, dtype=np.uint16).view(np.float16)[()]
    return np.array(d, dtype=np.uint32).view(np.float32)[()]


def gemm(a, b, a_scales=None, b_scales=None, c=None, *, model: str,
         a_fmt: Optional[str] = None, b_fmt: Optional[str] = None,
         layout: str = "TN", split_k: int = 1, tf32_input: str = "strict"):
    """D = op(A) op(B) + C, bit-exact, through the batched fast GEMM kernel.

    Every output element is the model's chain of FDPAs over K in
    increasing k (optionally split-K with an FP32 RNE reduction).
    layout (cuBLAS naming, column-major): 'TN' takes a as [M, K] and b as
    [N, K] (both K-major, what tensor cores read: torch's x @ w.T);
    'NN': a [K, M], b [N, K]; 'NT': a [K, M], b [K, N]; 'TT': a [M, K],
    b [K, N] (numpy C-order shapes).
    a, b: element codes (integer with a_fmt/b_fmt, or ml_dtypes/torch
       float8 arrays).
    a_scales [M, K/blk], b_scales [N, K/blk]: block-scale codes (plain
       row-major, not swizzled) for block-scaled models.
    c: [M, N] float32 (or float16) accumulator input, default zeros.
    tf32_input: TF32 operands are float32 arrays or uint32 f32 bit
       patterns; 'strict' (default) refuses values with any of the low 13
       bits set (ValueError naming the operand), 'truncate' clears them
       (what the instruction does).
    Returns D as [M, N] float32 (float16 for f16-accumulator models).
    """
    m = _model(model)
    tf32_input = _tf32_input_arg(tf32_input)
    _check_str(layout, "layout")
    if layout not in ("TN", "NN", "NT", "TT"):
        raise ValueError(f"layout: expected TN, NN, NT or TT, got {layout!r}")
    split_k = _check_int(split_k, "split_k", hi=_INT_MAX, required=True)
    av, af = _operand(a, "a", a_fmt, "a_fmt", tf32_input)
    bv, bf = _operand(b, "b", b_fmt, "b_fmt", tf32_input)
    if av.ndim != 2 or bv.ndim != 2:
        raise ValueError(f"a, b: expected 2-D operands, got {av.ndim}-D and "
                         f"{bv.ndim}-D")
    M, K = av.shape if layout[0] == "T" else av.shape[::-1]
    N, Kb = bv.shape if layout[1] == "N" else bv.shape[::-1]
    if K != Kb:
        raise ValueError(f"b: K differs: a gives K={K}, b gives K={Kb} "
                         f"(layout {layout}: a is "
                         f"{'[M, K]' if layout[0] == 'T' else '[K, M]'}, b is "
                         f"{'[N, K]' if layout[1] == 'N' else '[K, N]'})")
    if max(M, N, K) > _INT_MAX:
        raise ValueError(f"a, b: M={M}, N={N}, K={K}; gemm takes at most "
                         f"{_INT_MAX} of each")
    if K == 0 or K % m["L"]:
        raise ValueError(f"a: K={K} must be a positive multiple of model "
                         f"{model}'s L={m['L']}")
    blk = m["scale_block"]
    sa, sb = _scales_arg(a_scales, "a_scales"), _scales_arg(b_scales,
                                                            "b_scales")
    if blk:
        if sa is None or sb is None:
            raise TypeError(f"a_scales: model {model} is block-scaled "
                            f"({m['scale_fmt']} per {blk}); pass a_scales "
                            "and b_scales")
        if K % blk:
            raise ValueError(f"a: K={K} is not a multiple of the scale "
                             f"block {blk}")
        if sa.shape != (M, K // blk):
            raise ValueError(f"a_scales: expected shape {(M, K // blk)}, got "
                             f"{sa.shape}")
        if sb.shape != (N, K // blk):
            raise ValueError(f"b_scales: expected shape {(N, K // blk)}, got "
                             f"{sb.shape}")
    elif sa is not None or sb is not None:
        raise ValueError(f"a_scales: model {model} takes no block scales")
    cfmt = m["c_fmt"]
    cdt = np.float16 if cfmt == "f16" else np.float32
    cc = None
    if c is not None:
        ca, _ = as_array(c, "c")
        if ca.dtype != cdt:
            raise TypeError(f"c: model {model} accumulates in {cfmt}; "
                            f"expected {np.dtype(cdt).name}, got {ca.dtype}")
        if ca.shape != (M, N):
            raise ValueError(f"c: expected shape {(M, N)}, got {ca.shape}")
        cc = np.ascontiguousarray(ca.T).view(
            np.uint16 if cfmt == "f16" else np.uint32)
    from ._arrays import _memory_bytes

    need = M * N * 24  # D as uint64 codes, C as uint64, the float result
    if need > _memory_bytes():
        raise ValueError(f"a, b: the [{M}, {N}] output of an [{M}, {K}] x "
                         f"[{K}, {N}] gemm needs about {need} bytes, more "
                         f"than the machine's memory ({_memory_bytes()})")
    if split_k > 1 and K % (split_k * m["L"]):
        raise ValueError(f"split_k: K={K} must be a multiple of split_k * L "
                         f"= {split_k * m['L']}")
    d = _ext.gemm(av, bv, sa, sb, cc, model, af, bf, layout, M, N, K,
                  split_k)
    return _out(np.ascontiguousarray(d.T).view(cdt),
                _is_torch(a) or _is_torch(b))

