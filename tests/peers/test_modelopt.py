"""NVIDIA ModelOpt (nvidia-modelopt, the pinned release) against the
`modelopt-*@<release>` profiles: the quantizers ModelOpt's export uses to
write NVFP4 and MXFP8 checkpoints (modelopt/torch/quantization/qtensor/
nvfp4_tensor.py NVFP4QTensor.quantize, mxfp8_tensor.py
MXFP8QTensor.quantize), run on CPU on the hostile blocks of hostile.py
(f32 and bf16 sources) next to `mxc quantize`, scale and code bytes
compared bit for bit.

NVFP4: blocks of 16 in chunks of 64 that each get one tensor amax (the
chunk's finite amax, a random power of two, 0, FLT_MAX); ModelOpt's
per-tensor value is its own get_weights_scaling_factor_2 of a one-element
tensor holding that amax. MXFP8: blocks of 32, E4M3 (the only element
format MXFP8QTensor offers).

Named variation (docs/profiles.md): nan-sign, as in test_torchao_mx.py (a
NaN scale or E4M3 code may carry the sign on an x86 CPU; both must be NaN,
the sign bit is not compared). Nothing else is left out.
"""

import importlib.metadata

import numpy as np
import pytest
import torch
from modelopt.torch.quantization.qtensor.mxfp8_tensor import MXFP8QTensor
from modelopt.torch.quantization.qtensor.nvfp4_tensor import NVFP4QTensor

from hostile import hostile_blocks
from mxc_cli import mxc_quantize

BLOCKS = 2048  # per element format and source dtype (issue 14: >= 2,000)
CHUNK = 64
# nvidia-modelopt release -> the profile version that reproduces it.
RELEASE = {"0.47.0": "0.47"}


def version():
    v = importlib.metadata.version("nvidia-modelopt")
    if v not in RELEASE:
        pytest.fail(f"nvidia-modelopt {v} has no profile version yet: add one "
                    "in emu/block/profile.cpp and RELEASE here (docs/profiles.md)")
    return RELEASE[v]


def as_torch(blocks, bf16):
    if bf16:  # the high halves as bfloat16 bit patterns (keeps NaN signs)
        hi = (blocks >> 16).astype(np.uint16).view(np.int16)
        return torch.from_numpy(hi).view(torch.bfloat16)
    return torch.from_numpy(blocks.view(np.int32)).view(torch.float32)


def unpack_e2m1(packed, shape):
    codes = np.empty(shape, dtype=np.uint8)
    codes[:, 0::2] = packed & 0xF  # element 2i in the low nibble
    codes[:, 1::2] = packed >> 4
    return codes


def tensor_amax_for(chunk_index, chunk, rng):
    kind = chunk_index % 4
    if kind == 0:
        mag = chunk & 0x7FFFFFFF
        return int(np.where(mag < 0x7F800000, mag, 0).max())
    if kind == 1:
        return int(np.float32(2.0 ** int(rng.integers(-100, 100))).view(np.uint32))
    if kind == 2:
        return 0
    return 0x7F7FFFFF


def modelopt_nvfp4(chunk, amax_bits, bf16):
    x = as_torch(chunk, bf16).contiguous()
    amax = torch.from_numpy(np.array([amax_bits], dtype=np.uint32).view(np.int32)).view(torch.float32)
    wsf2 = NVFP4QTensor.get_weights_scaling_factor_2(amax)
    q, wsf, _ = NVFP4QTensor.quantize(x, 16, weights_scaling_factor_2=wsf2)
    scales = wsf.view(torch.uint8).reshape(-1).numpy()
    packed = q._quantized_data.view(torch.uint8).numpy().reshape(chunk.shape[0], -1)
    return scales, unpack_e2m1(packed, chunk.shape)


def nan_byte(b):
    return (b & 0x7F) == 0x7F


@pytest.mark.parametrize("bf16", [False, True], ids=["f32", "bf16"])
def test_modelopt_nvfp4_bit_exact(bf16):
    profile = f"modelopt-nvfp4@{version()}"
    blocks = hostile_blocks("e2m1", BLOCKS, n=16, seed=41, bf16=bf16)
    rng = np.random.default_rng(7)
    mism = []
    for ci, c0 in enumerate(range(0, BLOCKS, CHUNK)):
        chunk = blocks[c0:c0 + CHUNK]
        amax = tensor_amax_for(ci, chunk, rng)
        ts, tc = modelopt_nvfp4(chunk, amax, bf16)
        ms, mc = mxc_quantize(profile, "e2m1", chunk, tensor_amax=amax)
        sdiff = (ts != ms) & ~(nan_byte(ts) & nan_byte(ms))  # nan-sign
        cdiff = tc != mc
        for i in np.flatnonzero(sdiff | cdiff.any(axis=1)):
            j = int(np.flatnonzero(cdiff[i])[0]) if cdiff[i].any() else 0
            mism.append(
                f"block {c0 + i} (tensor amax {amax:08X}): scale modelopt "
                f"{ts[i]:02X} mxc {ms[i]:02X}; x[{j}]={int(chunk[i, j]):08X} "
                f"code modelopt {tc[i, j]:X} mxc {mc[i, j]:X}; block "
                + " ".join(f"{int(v):08X}" for v in chunk[i]))
    assert not mism, f"{profile}: {len(mism)} of {BLOCKS} blocks differ; first:\n" + "\n".join(mism[:3])


@pytest.mark.parametrize("bf16", [False, True], ids=["f32", "bf16"])
def test_modelopt_mxfp8_bit_exact(bf16):
    profile = f"modelopt-mxfp8@{version()}"
    blocks = hostile_blocks("e4m3", BLOCKS, n=32, seed=14, bf16=bf16)
    q, s = MXFP8QTensor.quantize(as_torch(blocks, bf16).contiguous())
    ts = s.view(torch.uint8).reshape(-1).numpy()
    tc = q._quantized_data.view(torch.uint8).numpy().reshape(blocks.shape)
    ms, mc = mxc_quantize(profile, "e4m3", blocks)
    sdiff = ts != ms
    cdiff = (tc != mc) & ~(nan_byte(tc) & nan_byte(mc))  # nan-sign
    bad = np.flatnonzero(sdiff | cdiff.any(axis=1))
    mism = []
    for i in bad[:3]:
        j = int(np.flatnonzero(cdiff[i])[0]) if cdiff[i].any() else 0
        mism.append(f"block {i}: scale modelopt {ts[i]:02X} mxc {ms[i]:02X}; "
                    f"x[{j}]={int(blocks[i, j]):08X} code modelopt {tc[i, j]:02X} "
                    f"mxc {mc[i, j]:02X}")
    assert not len(bad), f"{profile}: {len(bad)} of {BLOCKS} blocks differ; first:\n" + "\n".join(mism)
