"""torchao (the pinned release, tests/peers/requirements.txt) against our
versioned profiles `torchao-<mode>@<release>`: the same hostile blocks
through torchao's own to_mx (eager, CPU) and through `mxc quantize`, scale
bytes and element codes compared bit for bit.

Two documented variations (docs/profiles.md, "Named variations"), both
about elements whose scaled value is NaN before the cast (they occur only
in blocks with the NaN scale 0xFF):
- nan-sign: torch on an x86 CPU keeps a NaN operand's sign and makes
  Inf / Inf the negative default NaN (0xFFC00000); CUDA, and mxconform's
  one rounding core, give the canonical +NaN. For E4M3/E5M2 such codes
  must both be NaN; their sign bit is not compared.
- fp4-fp6-nan-element: E2M1/E2M3/E3M2 have no NaN. torchao's
  _f32_to_floatx_unpacked has no NaN branch, so a NaN gets whatever code
  its integer arithmetic makes from the NaN's bits; mxconform gives the
  code of rounding.md rule 1. Those elements (only) are left out of the
  code comparison and counted.
Everything else (every scale byte, every other code) must be equal.
"""

import numpy as np
import pytest
import torch
import torchao
from torchao.prototype.mx_formats.config import ScaleCalculationMode
from torchao.prototype.mx_formats.mx_tensor import to_mx
from torchao.prototype.mx_formats.constants import DTYPE_FP6_E2M3, DTYPE_FP6_E3M2

from hostile import hostile_blocks
from mxc_cli import mxc_quantize

BLOCKS = 2048  # per element format, source dtype and mode (issue 14: >= 2,000)

# torchao release -> the profile version that reproduces it.
RELEASE = {"0.18.0": "0.18"}

ELEM_DTYPE = {
    "e4m3": torch.float8_e4m3fn,
    "e5m2": torch.float8_e5m2,
    "e3m2": DTYPE_FP6_E3M2,
    "e2m3": DTYPE_FP6_E2M3,
    "e2m1": torch.float4_e2m1fn_x2,
}
MODES = {
    "floor": ScaleCalculationMode.FLOOR,
    "ceil": ScaleCalculationMode.CEIL,
    "even": ScaleCalculationMode.EVEN,
    "rceil": ScaleCalculationMode.RCEIL,
}


def profile_version():
    v = torchao.__version__.split("+")[0]
    if v not in RELEASE:
        pytest.fail(f"torchao {v} has no profile version yet: add one in "
                    "emu/block/profile.cpp and RELEASE here (docs/profiles.md)")
    return RELEASE[v]


def torchao_quantize(blocks, elem, mode, bf16):
    if bf16:
        # The high halves as bfloat16 bit patterns (a .to(bfloat16) of the
        # f32 would not keep NaN signs).
        hi = (blocks >> 16).astype(np.uint16).view(np.int16)
        x = torch.from_numpy(hi).view(torch.bfloat16)
    else:
        x = torch.from_numpy(blocks.view(np.int32)).view(torch.float32)
    scale, data = to_mx(x.contiguous(), ELEM_DTYPE[elem], blocks.shape[1], MODES[mode])
    scales = scale.view(torch.uint8).reshape(-1).numpy()
    if elem == "e2m1":
        packed = data.view(torch.uint8).numpy().reshape(blocks.shape[0], -1)
        codes = np.empty(blocks.shape, dtype=np.uint8)
        codes[:, 0::2] = packed & 0xF  # element 2i in the low nibble
        codes[:, 1::2] = packed >> 4
    else:
        codes = data.view(torch.uint8).numpy().reshape(blocks.shape)
    return scales, codes


@pytest.mark.parametrize("bf16", [False, True], ids=["f32", "bf16"])
@pytest.mark.parametrize("elem", list(ELEM_DTYPE))
@pytest.mark.parametrize("mode", list(MODES))
def test_torchao_mx_bit_exact(mode, elem, bf16):
    profile = f"torchao-{mode}@{profile_version()}"
    blocks = hostile_blocks(elem, BLOCKS, bf16=bf16)
    ts, tc = torchao_quantize(blocks, elem, mode, bf16)
    ms, mc = mxc_quantize(profile, elem, blocks)

    # Elements whose scaled value is NaN before the cast: NaN inputs, and in
    # NaN-scale blocks Inf inputs (x / +Inf) or, for RCEIL (x * NaN), all.
    mag = blocks & 0x7FFFFFFF
    nan_block = (ts == 0xFF)[:, None]
    pre_nan = (mag > 0x7F800000) | (nan_block & (mag == 0x7F800000))
    if mode == "rceil":
        pre_nan = pre_nan | np.broadcast_to(nan_block, blocks.shape)
    if elem in ("e4m3", "e5m2"):
        # nan-sign: both NaN (E4M3 NaN is S.1111.111, E5M2 S.11111.xx != 00)
        nan_code = {"e4m3": lambda c: (c & 0x7F) == 0x7F,
                    "e5m2": lambda c: (c & 0x7F) > 0x7C}[elem]
        excluded = pre_nan & nan_code(tc) & nan_code(mc)
        assert not (pre_nan & ~nan_code(tc)).any(), "torchao NaN model wrong"
    else:
        excluded = pre_nan  # fp4-fp6-nan-element
    code_diff = (tc != mc) & ~excluded
    scale_diff = ts != ms
    bad = np.flatnonzero(scale_diff | code_diff.any(axis=1))
    if bad.size:
        i = int(bad[0])
        j = int(np.flatnonzero(code_diff[i])[0]) if code_diff[i].any() else 0
        pytest.fail(
            f"{profile} {elem} {'bf16' if bf16 else 'f32'}: {bad.size} of "
            f"{len(blocks)} blocks differ (scales {int(scale_diff.sum())}, "
            f"codes {int(code_diff.sum())}); first: block {i} "
            f"amax-class {i % 12}, scale torchao {ts[i]:02X} mxc {ms[i]:02X}, "
            f"x[{j}]={int(blocks[i, j]):08X} code torchao {tc[i, j]:02X} "
            f"mxc {mc[i, j]:02X}\nblock: "
            + " ".join(f"{int(v):08X}" for v in blocks[i]))
    # The variations cover only NaN-scale blocks, a small share.
    assert int(excluded.any(axis=1).sum()) <= int((ts == 0xFF).sum()) < len(blocks) // 8


def test_hostile_blocks_cover_the_classes():
    """The generator makes what the docstring promises (so a change to it
    cannot silently drop a class)."""
    b = hostile_blocks("e4m3", 240)
    mag = b & 0x7FFFFFFF
    assert ((mag > 0x7F800000).any(axis=1)).sum() >= 20          # NaN blocks
    assert ((mag == 0x7F800000).any(axis=1)).sum() >= 20         # Inf blocks
    assert ((mag == 0).all(axis=1)).sum() >= 20                   # zero blocks
    assert ((b == 0x80000000).all(axis=1)).sum() >= 1            # -0 blocks
    amax = np.where(mag > 0x7F800000, 0, mag).max(axis=1)
    assert ((amax > 0) & (amax < 0x00800000)).sum() >= 20        # subnormal amax
    assert (amax >= 0x7F000000).sum() >= 20                       # near FLT_MAX
