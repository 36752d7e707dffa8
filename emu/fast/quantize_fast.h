// Fast MX block quantization (issue 7, docs/performance.md): FP32 -> MX
// elements (E4M3, E5M2, E3M2, E2M3, E2M1) with E8M0 scales, 1D blocks along
// rows or down columns, for every MX profile (emu/block/profile.h) whose
// elements do not map -0 to +0. Bit-identical to mx_quantize_block /
// mx_quantize_rowwise / mx_quantize_colwise (tests/test_fast_quantize.cpp):
//   - amax: a max over the magnitudes (any NaN: the reference amax);
//   - scale byte: a per-binade table built from mx_scale_byte itself (each
//     rule is a non-decreasing step function of amax with at most one step
//     inside a binade of amax; a binade where sampling disagrees, subnormal
//     amax, Inf and NaN go to the reference);
//   - elements: every apply rule multiplies by 2^(127 - byte) exactly when
//     the product is a normal f32 (and the multiplier is that power of two),
//     which is an exponent-field add; the scaled f32 then goes through the
//     fast conversion (emu/fast/convert_fast.h). Any other element (zero
//     excepted) goes to mx_encode_element.
// With RNE satfinite elements (every shipped profile), blocks of a multiple
// of 16 take the fused single-pass kernels instead, on every SIMD ISA
// (emu/fast/quantize_fused.h, one Highway source): amax, scale byte and the
// in-register conversion of the unscaled input, one pass per block.
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/block/profile.h"
#include "emu/fast/isa.h"

namespace mxc::fast {

bool mx_covers(const MxProfile& p, Fmt elem);

// Tests and benchmarks: the ISA every fast quantization function (MX and
// NVFP4) runs its fused kernels on; Isa::kScalar skips them (the portable
// path); an ISA not isa_supported() also means the portable path.
// reset_fused_isa(): the best ISA allowed (the default), for both switches.
void set_fused_isa(Isa isa);
void reset_fused_isa();
// Tests and benchmarks: the ISA the MX portable path stages its blocks
// (emu/fast/quantize_stage.h) and converts them (run_plan) on; an ISA not
// isa_supported() means the scalar path. Default: best_convert_isa().
void set_portable_isa(Isa isa);
Isa portable_isa();
// The ISA the fused kernels run on now: the switch's or the best one
// allowed (emu/fast/isa.h), provided its vectors divide the 16-element
// granule; kScalar: they do not run (the portable path does).
Isa fused_isa();

// One block of n elements. False (nothing written) when not covered.
bool mx_quantize_block(const MxProfile& p, Fmt elem, const uint32_t* x,
                       size_t n, uint8_t& scale, uint8_t* codes);

// Row-major rows x cols; scales as mx_quantize_rowwise / _colwise lay them
// out. The shape must already be checked (the blocked dimension divides by
// p.block). False (nothing written) when not covered.
bool mx_quantize_rowwise(const MxProfile& p, Fmt elem, int rows, int cols,
                         const uint32_t* x, uint8_t* scales, uint8_t* codes);
bool mx_quantize_colwise(const MxProfile& p, Fmt elem, int rows, int cols,
                         const uint32_t* x, uint8_t* scales, uint8_t* codes);

}  // namespace mxc::fast
