// Scale selection for MX blocks: every convention in use, each a separate
// function from the block's amax (binary32 bits) to an unbiased E8M0
// exponent X (the scale is 2^X), before the profile's clamps. Sources per
// function in docs/profiles.md; the element format enters through emax_elem
// (the exponent of its largest normal) or its largest value max_elem.
#pragma once

#include <cstdint>

#include "emu/format.h"

namespace mxc {

// Exponent of the largest normal of an element format (E4M3 8, E5M2 15,
// E3M2 4, E2M3 2, E2M1 2; MXINT8 0: 1.984375 = 2^0 * 1.98...).
int elem_emax(Fmt elem);
// The largest finite value of an element format as binary32 bits.
uint32_t elem_max_f32(Fmt elem);

// E(x): binary32 exponent field minus 127 (-127 for zero and subnormals).
int f32_exp_field(uint32_t amax);

// OCP MX v1.0 (section 6.3): floor(log2(amax)) - emax_elem, read from the
// exponent bits (never from log2()). For subnormal amax this is E(amax)
// - emax_elem like torchao's FLOOR; both clamp to -127 afterwards.
int scale_floor(uint32_t amax, Fmt elem);
// torchao CEIL: E(amax) + (mantissa != 0) - emax_elem.
int scale_ceil(uint32_t amax, Fmt elem);
// torchao EVEN: amax rounded half-up at the element's mantissa width
// ((bits + 2^(22 - m)) & 0xFF800000), then FLOOR.
int scale_even(uint32_t amax, Fmt elem);
// The amax EVEN takes: rounded half-up at the element's mantissa width
// (may carry to +Inf past FLT_MAX; NaN stays NaN).
uint32_t even_rounded_amax(uint32_t amax, Fmt elem);

// torchao 0.18 eager RCEIL (mx_tensor.py@v0.18.0 _to_mx_rceil): the
// unbiased X = ceil(log2f(q)) for q = fl(amax / max_elem) (f32 division),
// with log2f rounded to the nearest binary32: for q a few ulps above 2^k
// the rounded logarithm is exactly k, so X = k (a binade lower than the
// exact ceil). q = 0 gives -1000 (log2 -> -Inf; the caller clamps).
int scale_rceil_log2(uint32_t amax, Fmt elem);

// floor(log2f(a)) for a finite a > 0 (binary32 bits; subnormals too), with
// log2f rounded to the nearest binary32 as torch.log2 on f32 gives it: for a
// a few ulps below 2^k the rounded logarithm is exactly k, one above the
// exact floor (microsoft/microxcaling mx/mx_ops.py _shared_exponents,
// mx/elemwise_ops.py _quantize_elemwise_core).
int floor_log2f(uint32_t a);
// microxcaling's shared exponent before its clamps: floor(log2f(amax)) -
// emax_elem, with amax 0 replaced by 2^-126 (FP32_MIN_NORMAL), so an
// all-zero block gives -126 - emax_elem (MXINT8: -126).
int scale_floor_log2(uint32_t amax, Fmt elem);

// The quotient the remaining modes convert: fl(amax * fl(1 / max_elem)),
// binary32 round-to-nearest-even, as torchao, TE and CUTLASS compute it.
uint32_t amax_over_max(uint32_t amax, Fmt elem);
// E8M0 encodings (biased, 0xFF NaN) of that quotient rounded up (RCEIL,
// `cvt.rp[.satfinite].ue8m0x2.f32`), to nearest (ml_dtypes' e8m0 cast:
// ties up), or toward zero (oneDNN).
uint8_t scale_rceil(uint32_t amax, Fmt elem, bool satfinite);
uint8_t scale_rn(uint32_t amax, Fmt elem);
uint8_t scale_rz(uint32_t amax, Fmt elem);

}  // namespace mxc
