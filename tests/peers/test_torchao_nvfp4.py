"""torchao's nvfp4_quantize (the pinned release) against
`torchao-nvfp4@<release>` (two-level, per-tensor scale) and
`torchao-nvfp4-single@<release>` (no tensor scale): hostile blocks of 16,
in chunks that each get one tensor amax (the chunk's finite amax, a power
of two, 0, or FLT_MAX), through torchao and through `mxc quantize`, scale
and code bytes compared bit for bit.

Named variations (docs/profiles.md) as in test_torchao_mx.py: nan-sign
(a NaN scale byte may carry the sign, 0xFF vs 0x7F) and
fp4-fp6-nan-element (E2M1 codes of elements whose scaled value is NaN
before the cast are left out; the NaN-ness is computed here in numpy f32
from torchao's own output scale).
"""

import numpy as np
import pytest
import torch
import torchao
from torchao.prototype.mx_formats.nvfp4_tensor import (
    nvfp4_quantize,
    per_tensor_amax_to_scale,
)

from hostile import hostile_blocks
from mxc_cli import mxc_quantize

BLOCKS = 2048
CHUNK = 64
RELEASE = {"0.18.0": "0.18"}


def version():
    v = torchao.__version__.split("+")[0]
    if v not in RELEASE:
        pytest.fail(f"torchao {v} has no NVFP4 profile version yet "
                    "(emu/block/profile.cpp, docs/profiles.md)")
    return RELEASE[v]


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


def torchao_run(chunk, amax_bits, two_level, bf16):
    if bf16:
        x = torch.from_numpy((chunk >> 16).astype(np.uint16).view(np.int16)).view(torch.bfloat16)
    else:
        x = torch.from_numpy(chunk.view(np.int32)).view(torch.float32)
    pts = None
    if two_level:
        amax = torch.from_numpy(np.array([amax_bits], dtype=np.uint32).view(np.int32)).view(torch.float32)[0]
        pts = per_tensor_amax_to_scale(amax)
    s, d = nvfp4_quantize(x.contiguous(), 16, pts)
    scales = s.view(torch.uint8).reshape(-1).numpy()
    packed = d.view(torch.uint8).numpy().reshape(chunk.shape[0], -1)
    codes = np.empty(chunk.shape, dtype=np.uint8)
    codes[:, 0::2] = packed & 0xF  # element 2i in the low nibble
    codes[:, 1::2] = packed >> 4
    # f32 value of each block's scale, then the pre-cast products as torchao
    # forms them (numpy binary32, round to nearest) for the NaN mask only.
    s_val = s.to(torch.float32).reshape(-1).numpy()
    with np.errstate(all="ignore"):
        if two_level:
            t = pts.numpy().astype(np.float32)
            rcp = (np.float32(1.0) / t) / s_val
        else:
            rcp = np.float32(1.0) / s_val
        xf = chunk.view(np.float32)
        pre = xf * rcp.astype(np.float32)[:, None]
    return scales, codes, np.isnan(pre)


@pytest.mark.parametrize("bf16", [False, True], ids=["f32", "bf16"])
@pytest.mark.parametrize("two_level", [True, False], ids=["two-level", "single"])
def test_torchao_nvfp4_bit_exact(two_level, bf16):
    name = "torchao-nvfp4" if two_level else "torchao-nvfp4-single"
    profile = f"{name}@{version()}"
    blocks = hostile_blocks("e2m1", BLOCKS, n=16, seed=41, bf16=bf16)
    rng = np.random.default_rng(7)
    mism, excluded, nan_scales = [], 0, 0
    for ci, c0 in enumerate(range(0, BLOCKS, CHUNK)):
        chunk = blocks[c0:c0 + CHUNK]
        amax = tensor_amax_for(ci, chunk, rng)
        ts, tc, pre_nan = torchao_run(chunk, amax, two_level, bf16)
        ms, mc = mxc_quantize(profile, "e2m1", chunk, tensor_amax=amax)
        both_nan = ((ts & 0x7F) == 0x7F) & ((ms & 0x7F) == 0x7F)  # nan-sign
        nan_scales += int(both_nan.sum())
        sdiff = (ts != ms) & ~both_nan
        cdiff = (tc != mc) & ~pre_nan
        excluded += int(pre_nan.sum())
        for i in np.flatnonzero(sdiff | cdiff.any(axis=1)):
            j = int(np.flatnonzero(cdiff[i])[0]) if cdiff[i].any() else 0
            mism.append(
                f"block {c0 + i} (tensor amax {amax:08X}): scale torchao "
                f"{ts[i]:02X} mxc {ms[i]:02X}; x[{j}]={int(chunk[i, j]):08X} "
                f"code torchao {tc[i, j]:X} mxc {mc[i, j]:X}; block "
                + " ".join(f"{int(v):08X}" for v in chunk[i]))
    assert not mism, f"{profile}: {len(mism)} of {BLOCKS} blocks differ; first:\n" + "\n".join(mism[:3])
    # The variations stay a minority of the elements.
    assert excluded < blocks.size // 4
