"""compressed-tensors (the pinned release; what vLLM and llm-compressor
load and write) against the `compressed-tensors-*@<release>` profiles, on
CPU, on the hostile blocks of hostile.py (f32 and bf16 sources) next to
`mxc quantize`, scale and code bytes compared bit for bit.

NVFP4 (the library's NVFP4 scheme, quant_scheme.py NVFP4["weights"]):
blocks of 16 in chunks of 64 that each get one tensor amax (the chunk's
finite amax, a random power of two, 0, the largest finite value of the
source dtype). The library's own functions do every step:
generate_gparam (global scale), compute_dynamic_scales_and_zp (group
statistics in the weight's dtype, then calculate_qparams), and
quantize_and_pack_fp4 (the NVFP4 compressor's packing, CPU fallback). The
statistics are taken in the source dtype, as compute_dynamic_scales_and_zp
does, so a bf16 source needs `compressed-tensors-nvfp4-bf16@<release>`
(its global scale and amax / 6 are rounded to bf16).

MXFP4 (quant_scheme.py MXFP4["weights"]): blocks of 32, E2M1; the scales
from compute_dynamic_scales_and_zp (generate_mx_scales), the codes from
quantize then pack_fp4_to_uint8, the stored scale byte from
compress_mx_scale (what the MXFP4 compressor writes).

Named variation (docs/profiles.md) ct-stored-inf-scale (MXFP4): where the
amax is NaN or Inf (or rounds up past FLT_MAX) the float scale is 2^128 =
+Inf and every code is 0; the profile gives byte 0xFF for it, while
compress_mx_scale stores 127 + floor(log2(Inf)).to(int32) = 0x7F (x86's
int32 conversion of Inf). The codes are compared; that byte is checked to
be 0x7F (library) and 0xFF (profile).

Named variation (docs/profiles.md): nan-sign (NVFP4, and MXFP4's NaN
quotients: the sign bit of code 0 vs 8 is not compared there). In blocks with a NaN scale
(a NaN element: the library's amax propagates NaN), every quotient is NaN;
pack_fp4_to_uint8 gives it index 0 with the NaN's sign bit, and torch on
x86 may make that NaN negative (code 8, scale 0xFF) where mxconform's
canonical NaN gives code 0 (scale 0x7F). There the sign bits are not
compared; the magnitude bits are.
"""

import importlib.metadata

import numpy as np
import pytest
import torch
from compressed_tensors.compressors.mx_utils import compress_mx_scale
from compressed_tensors.compressors.nvfp4.helpers import (
    pack_fp4_to_uint8,
    quantize_and_pack_fp4,
)
from compressed_tensors.quantization.lifecycle.forward import quantize
from compressed_tensors.quantization.quant_scheme import MXFP4, NVFP4
from compressed_tensors.quantization.utils.helpers import (
    compute_dynamic_scales_and_zp,
    generate_gparam,
)

from hostile import hostile_blocks
from mxc_cli import mxc_quantize

BLOCKS = 2048  # per element format and source dtype (issue 14: >= 2,000)
CHUNK = 64
# compressed-tensors release -> the profile version that reproduces it.
RELEASE = {"0.20.1": "0.20"}


def version():
    v = importlib.metadata.version("compressed-tensors")
    if v not in RELEASE:
        pytest.fail(f"compressed-tensors {v} has no profile version yet: add "
                    "one in emu/block/profile.cpp and RELEASE here (docs/profiles.md)")
    return RELEASE[v]


def as_torch(bits, bf16):
    if bf16:  # the high halves as bfloat16 bit patterns (keeps NaN signs)
        hi = (bits >> 16).astype(np.uint16).view(np.int16)
        return torch.from_numpy(hi).view(torch.bfloat16)
    return torch.from_numpy(bits.view(np.int32)).view(torch.float32)


def tensor_amax_for(chunk_index, chunk, rng, bf16):
    kind = chunk_index % 4
    if kind == 0:
        mag = chunk & 0x7FFFFFFF
        return int(np.where(mag < 0x7F800000, mag, 0).max())
    if kind == 1:
        return int(np.float32(2.0 ** int(rng.integers(-100, 100))).view(np.uint32))
    if kind == 2:
        return 0
    return 0x7F7F0000 if bf16 else 0x7F7FFFFF  # largest finite bf16 / f32


def ct_nvfp4(chunk, amax_bits, bf16):
    args = NVFP4["weights"]
    x = as_torch(chunk, bf16).contiguous()
    amax = as_torch(np.array([amax_bits], dtype=np.uint32), bf16)
    g = generate_gparam(torch.zeros_like(amax), amax)
    scale, _ = compute_dynamic_scales_and_zp(x, args, module=None, global_scale=g)
    packed = quantize_and_pack_fp4(x, scale, global_scale=g, group_size=16)
    scales = scale.to(torch.float8_e4m3fn).view(torch.uint8).reshape(-1).numpy()
    packed = packed.numpy().reshape(chunk.shape[0], -1)
    codes = np.empty(chunk.shape, dtype=np.uint8)
    codes[:, 0::2] = packed & 0xF  # element 2i in the low nibble
    codes[:, 1::2] = packed >> 4
    return scales, codes


@pytest.mark.parametrize("bf16", [False, True], ids=["f32", "bf16"])
def test_compressed_tensors_nvfp4_bit_exact(bf16):
    name = "compressed-tensors-nvfp4-bf16" if bf16 else "compressed-tensors-nvfp4"
    profile = f"{name}@{version()}"
    blocks = hostile_blocks("e2m1", BLOCKS, n=16, seed=41, bf16=bf16)
    rng = np.random.default_rng(7)
    mism, nan_blocks = [], 0
    for ci, c0 in enumerate(range(0, BLOCKS, CHUNK)):
        chunk = blocks[c0:c0 + CHUNK]
        amax = tensor_amax_for(ci, chunk, rng, bf16)
        ts, tc = ct_nvfp4(chunk, amax, bf16)
        ms, mc = mxc_quantize(profile, "e2m1", chunk, tensor_amax=amax)
        nan_scale = ((ts & 0x7F) == 0x7F) & ((ms & 0x7F) == 0x7F)  # nan-sign
        nan_blocks += int(nan_scale.sum())
        sdiff = (ts != ms) & ~nan_scale
        cdiff = np.where(nan_scale[:, None], (tc & 7) != (mc & 7), tc != mc)
        for i in np.flatnonzero(sdiff | cdiff.any(axis=1)):
            j = int(np.flatnonzero(cdiff[i])[0]) if cdiff[i].any() else 0
            mism.append(
                f"block {c0 + i} (tensor amax {amax:08X}): scale ct {ts[i]:02X} "
                f"mxc {ms[i]:02X}; x[{j}]={int(chunk[i, j]):08X} code ct "
                f"{tc[i, j]:X} mxc {mc[i, j]:X}; block "
                + " ".join(f"{int(v):08X}" for v in chunk[i]))
    assert not mism, f"{profile}: {len(mism)} of {BLOCKS} blocks differ; first:\n" + "\n".join(mism[:3])
    assert nan_blocks < BLOCKS // 8  # the variation stays a minority


def ct_mxfp4(blocks, bf16):
    args = MXFP4["weights"]
    x = as_torch(blocks, bf16).contiguous()
    scale, zp = compute_dynamic_scales_and_zp(x, args, module=None)
    q = quantize(x, scale, zp, args)
    packed = pack_fp4_to_uint8(q).numpy().reshape(blocks.shape[0], -1)
    codes = np.empty(blocks.shape, dtype=np.uint8)
    codes[:, 0::2] = packed & 0xF
    codes[:, 1::2] = packed >> 4
    stored = compress_mx_scale(scale, torch.uint8).reshape(-1).numpy()
    inf_scale = torch.isinf(scale.float()).reshape(-1).numpy()
    return stored, codes, inf_scale


@pytest.mark.parametrize("bf16", [False, True], ids=["f32", "bf16"])
def test_compressed_tensors_mxfp4_bit_exact(bf16):
    profile = f"compressed-tensors-mxfp4@{version()}"
    blocks = hostile_blocks("e2m1", BLOCKS, n=32, seed=14, bf16=bf16)
    ts, tc, inf_scale = ct_mxfp4(blocks, bf16)
    ms, mc = mxc_quantize(profile, "e2m1", blocks)
    # ct-stored-inf-scale: library 0x7F, profile 0xFF, exactly there.
    assert np.array_equal(inf_scale, ms == 0xFF)
    assert (ts[inf_scale] == 0x7F).all()
    sdiff = (ts != ms) & ~inf_scale
    # nan-sign: a NaN quotient (NaN element, or +-Inf divided by the +Inf
    # scale) packs as index 0 with the NaN's sign bit (x86: set for f32
    # sources, clear for bf16); only its magnitude bits are compared.
    xf = blocks.view(np.float32)
    nan_q = np.isnan(xf) | (np.isinf(xf) & inf_scale[:, None])
    cdiff = np.where(nan_q, (tc & 7) != (mc & 7), tc != mc)
    bad = np.flatnonzero(sdiff | cdiff.any(axis=1))
    mism = []
    for i in bad[:3]:
        j = int(np.flatnonzero(cdiff[i])[0]) if cdiff[i].any() else 0
        mism.append(f"block {i}: scale ct {ts[i]:02X} mxc {ms[i]:02X}; "
                    f"x[{j}]={int(blocks[i, j]):08X} code ct {tc[i, j]:X} "
                    f"mxc {mc[i, j]:X}")
    assert not len(bad), f"{profile}: {len(bad)} of {BLOCKS} blocks differ; first:\n" + "\n".join(mism)
    assert inf_scale.sum() < BLOCKS // 4  # the variation stays a minority
