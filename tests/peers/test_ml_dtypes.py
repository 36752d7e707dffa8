"""ml_dtypes (the pinned release) against the scale rule of `ml-dtypes-rn`:
the E8M0 byte is ml_dtypes' float8_e8m0fnu cast of q = fl(amax *
fl(1 / max_elem)) (binary32, numpy). Only the scale byte is ml_dtypes'
(the profile's element step, x / 2^X exactly, is not a library's).

Named variation ml-dtypes-subnormal-q (docs/profiles.md): where q is zero
(ml_dtypes: 0xFF, E8M0 has no zero; the profile: 0x00) or an f32
subnormal (ml_dtypes may round to byte 1 where the profile's RN gives 0),
the profile does not follow ml_dtypes; those blocks are counted, not
compared. Blocks whose amax is Inf or NaN are checked separately.
"""

import ml_dtypes
import numpy as np
import pytest

from hostile import ELEM, hostile_blocks
from mxc_cli import mxc_quantize

BLOCKS = 2048


@pytest.mark.parametrize("bf16", [False, True], ids=["f32", "bf16"])
@pytest.mark.parametrize("elem", list(ELEM))
def test_ml_dtypes_e8m0_scale(elem, bf16):
    blocks = hostile_blocks(elem, BLOCKS, seed=23, bf16=bf16)
    mag = blocks & 0x7FFFFFFF
    has_nan = (mag > 0x7F800000).any(axis=1)
    amax = np.where(has_nan, 0, mag.max(axis=1)).astype(np.uint32).view(np.float32)
    rcp = np.float32(1.0) / np.float32(ELEM[elem][0])
    with np.errstate(over="ignore"):
        q = amax * rcp  # binary32, round to nearest even
    want = q.astype(ml_dtypes.float8_e8m0fnu).view(np.uint8)
    got, _ = mxc_quantize("ml-dtypes-rn", elem, blocks)
    q_normal = (q.view(np.uint32) & 0x7F800000) != 0
    finite = ~has_nan & (amax > 0) & np.isfinite(amax) & q_normal
    bad = np.flatnonzero(finite & (want != got))
    assert bad.size == 0, (
        f"{bad.size} of {int(finite.sum())} scales differ; first amax "
        f"{int(amax.view(np.uint32)[bad[0]]):08X}: ml_dtypes "
        f"{want[bad[0]]:02X} mxc {got[bad[0]]:02X}")
    assert finite.sum() > BLOCKS // 2
    # Inf and NaN amax: ml_dtypes casts both to its NaN (0xFF), as the
    # profile does.
    special = has_nan | np.isinf(amax)
    assert (got[special] == 0xFF).all()
    assert (np.float32(np.inf).astype(ml_dtypes.float8_e8m0fnu).view(np.uint8) == 0xFF)
