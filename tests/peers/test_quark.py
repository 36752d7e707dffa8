"""AMD Quark (the pinned release, tests/peers/requirements.txt) against our
versioned profiles `quark-mxfp4@<release>` (MXFP4, MXFP6) and
`quark-mxfp8@<release>` (MXFP8): the same hostile blocks through Quark's
own MX fake quantizer and through `mxc quantize`, compared bit for bit.

Quark's MX path (amd-quark 0.13): quark.torch.kernel.non_scaled_fake_quantize
(x, "mx", elem, axis, 32, scale_calculation_mode) -> torch.ops.quark.
non_scaled_fake_quantize -> hw_emulation_interface.py fake_quantize_mx, the
function Quark's FakeQuantize modules call (quantization/tensor_quantize.py)
for MX specs; its default scale mode is "even" (quantization/utils.py
even_round). FP4/FP6 elements go through the JIT-built C++ op
fake_quantize_to_low_precision_fp (hw_emulation/csrc/mx/funcs.cuh
fake_quantize_element), FP8 through torch's float8 casts.

Quark returns the dequantized tensor (codes * 2^X, in the source dtype), not
codes. The test compares
- the scale byte: log2 of Quark's own even_round(amax) + 127 (a power of two
  in [2^-127, 2^127], or NaN -> 0xFF);
- every dequantized element, bit for bit (NaN against NaN of any sign): mxc's
  codes decoded exactly, times 2^X, rounded once to the source dtype, as
  Quark's `output * scale` then `.to(input_dtype)` does. Within a block the
  codes map to distinct dequantized values except where code * 2^X overflows
  f32 (scale byte 0xFE: Inf amax) or, for bf16 sources, falls below bf16's
  subnormals (E4M3/E5M2/E2M3 with scale byte < 0x08); those blocks are
  compared the same way and counted in the failure message.
No named variation is needed: Quark's FP4/FP6 element op passes Inf and NaN
through (formats without them), but such elements only occur in blocks with
the scale 2^127 (Inf: code * 2^127 and Inf are both Inf) or NaN (everything
NaN), where the dequantized values agree.
"""

import numpy as np
import pytest
import torch

from hostile import hostile_blocks
from mxc_cli import mxc_quantize

# Importing quark.torch JIT-builds Quark's hw_emulation C++ op (g++; cached
# under $TORCH_EXTENSIONS_DIR, which scripts/test-peers puts in the venv).
from quark.torch.kernel import non_scaled_fake_quantize
from quark.torch.quantization.config.type import Dtype
from quark.torch.quantization.utils import even_round

BLOCKS = 2048  # per element format and source dtype (issue 14: >= 2,000)

# amd-quark release -> the profile version that reproduces it.
RELEASE = {"0.13": "0.13"}

# mxc element name -> (Quark mx_element_dtype, profile family,
#                      exponent bits, mantissa bits, bias)
ELEM = {
    "e2m1": ("fp4", "quark-mxfp4", 2, 1, 1),
    "e2m3": ("fp6_e2m3", "quark-mxfp4", 2, 3, 1),
    "e3m2": ("fp6_e3m2", "quark-mxfp4", 3, 2, 3),
    "e4m3": ("fp8_e4m3", "quark-mxfp8", 4, 3, 7),
    "e5m2": ("fp8_e5m2", "quark-mxfp8", 5, 2, 15),
}


def profile_version():
    from importlib.metadata import version
    v = version("amd-quark").split("+")[0]
    if v not in RELEASE:
        pytest.fail(f"amd-quark {v} has no profile version yet: add one in "
                    "emu/block/profile.cpp and RELEASE here (docs/profiles.md)")
    return RELEASE[v]


def decode(elem, codes):
    """Exact values (float64) of element codes (OCP MX v1.0 table 1)."""
    _, _, e, m, bias = ELEM[elem]
    c = codes.astype(np.int64)
    sign = np.where((c >> (e + m)) & 1, -1.0, 1.0)
    ex = (c >> m) & ((1 << e) - 1)
    fr = (c & ((1 << m) - 1)).astype(np.float64)
    val = np.where(ex == 0, fr * 2.0 ** (1 - bias - m),
                   (1 + fr / 2**m) * np.exp2((ex - bias).astype(np.float64)))
    val = sign * val
    if elem == "e4m3":
        val = np.where((c & 0x7F) == 0x7F, np.nan, val)
    if elem == "e5m2":
        top = ex == 31
        val = np.where(top & (fr != 0), np.nan, np.where(top, sign * np.inf, val))
    return val


def as_tensor(blocks, bf16):
    if bf16:
        hi = (blocks >> 16).astype(np.uint16).view(np.int16)
        return torch.from_numpy(hi).view(torch.bfloat16)
    return torch.from_numpy(blocks.view(np.int32)).view(torch.float32)


def to_f32_bits(t):
    return t.to(torch.float32).contiguous().view(torch.int32).numpy().view(np.uint32)


@pytest.mark.parametrize("bf16", [False, True], ids=["f32", "bf16"])
@pytest.mark.parametrize("elem", list(ELEM))
def test_quark_mx_bit_exact(elem, bf16):
    qdtype, family, *_ = ELEM[elem]
    profile = f"{family}@{profile_version()}"
    blocks = hostile_blocks(elem, BLOCKS, bf16=bf16)
    x = as_tensor(blocks, bf16).contiguous()

    out = non_scaled_fake_quantize(x, "mx", qdtype, -1, blocks.shape[1], "even")
    amax = x.abs().amax(dim=-1, keepdim=True)
    scale = even_round(amax, Dtype(qdtype)).reshape(-1).numpy().astype(np.float64)
    qs = np.where(np.isnan(scale), 255,
                  np.log2(np.where(np.isnan(scale), 1.0, scale)) + 127).astype(np.int64)
    assert ((qs >= 0) & (qs <= 255)).all()
    qout = to_f32_bits(out)

    ms, mc = mxc_quantize(profile, elem, blocks)
    val = decode(elem, mc) * np.exp2(ms.astype(np.float64) - 127)[:, None]
    val[ms == 0xFF] = np.nan
    with np.errstate(over="ignore"):  # code * 2^127 may be Inf, as in Quark
        val32 = val.astype(np.float32)
    mout = to_f32_bits(torch.from_numpy(val32).to(x.dtype))

    qnan = (qout & 0x7FFFFFFF) > 0x7F800000
    mnan = (mout & 0x7FFFFFFF) > 0x7F800000
    elem_diff = (qout != mout) & ~(qnan & mnan)
    scale_diff = qs != ms
    bad = np.flatnonzero(scale_diff | elem_diff.any(axis=1))
    if bad.size:
        i = int(bad[0])
        j = int(np.flatnonzero(elem_diff[i])[0]) if elem_diff[i].any() else 0
        pytest.fail(
            f"{profile} {elem} {'bf16' if bf16 else 'f32'}: {bad.size} of "
            f"{len(blocks)} blocks differ (scales {int(scale_diff.sum())}, "
            f"elements {int(elem_diff.sum())}; blocks with scale 0xFE "
            f"{int((ms == 0xFE).sum())}); first: block {i} amax-class {i % 12}, "
            f"scale quark {qs[i]:02X} mxc {ms[i]:02X}, x[{j}]="
            f"{int(blocks[i, j]):08X} dequantized quark {int(qout[i, j]):08X} "
            f"mxc {int(mout[i, j]):08X} (code {mc[i, j]:02X})\nblock: "
            + " ".join(f"{int(v):08X}" for v in blocks[i]))
    # Every class is present: NaN-scale, Inf (0xFE) and finite blocks.
    assert (ms == 0xFF).sum() > 0 and (ms == 0xFE).sum() > 0
    assert (ms < 0xFE).sum() > len(blocks) // 2
