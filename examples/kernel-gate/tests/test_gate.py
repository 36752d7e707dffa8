"""The gate: every golden case of mxconform's MXFP8 (torchao RCEIL) profile,
bit for bit. The mxconform plugin runs this once per batch of cases and,
on a mismatch, fails with the classified table (scale-off-by-one, element
tie-flip, ...)."""

import pytest

from kernel_gate import quantize_mxfp8


@pytest.mark.mxconform("mx-quantize", profile="torchao-rceil@main-5d73a0c1", elem="e4m3", level=1)
def test_quantize_mxfp8_is_bitexact(mxconform_batch):
    return quantize_mxfp8(mxconform_batch.x)
