// Fast NVFP4 block quantization (issue 7, docs/performance.md): FP32 ->
// E2M1 elements with a UE4M3 scale per 16 elements and an FP32 tensor scale
// S_enc, round to nearest even (cvt.rn.satfinite), for both NVFP4 profiles
// (emu/block/profile.h). Bit-identical to nvfp4_quantize_block /
// nvfp4_quantize_2d (tests/test_fast_nvfp4.cpp):
//   - the block scale code is UE4M3_rne_sat(fl(amax * c)) with
//     c = fl(S_enc * fl(1/6)) computed once by the reference f32_mul; the
//     block product is one hardware f32 multiply (IEEE, MXCSR default);
//   - the element multiplier depends only on the scale code (128 values):
//     a per-(rule, S_enc) table filled from the reference formulas
//     (f32_mul / f32_div, the profile's rule);
//   - elements: fl(x * enc) by one hardware multiply, then the E2M1
//     conversion (quantize_fused.h in registers, or fast::run_plan_one).
// Blocks with a NaN or Inf element, stochastic rounding, and S_enc not a
// non-negative finite f32 go to the reference.
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/block/profile.h"

namespace mxc::fast {

// Tests: false makes every function here return false, so that the public
// nvfp4_quantize_block / _2d run their reference code; default true.
void set_nvfp4_fast_enabled(bool on);

// One block of n elements (any n >= 1). False (nothing written) when not
// covered, or when the block holds a NaN or Inf.
bool nvfp4_quantize_block(const Nvfp4Profile& p, uint32_t s_enc,
                          const uint32_t* x, size_t n, uint8_t& scale,
                          uint8_t* codes);

// Row-major rows x cols, 16-element blocks along rows (cols % 16 == 0;
// scales [row][col/16]) or down columns (rows % 16 == 0; scales
// [row/16][col]); each block exactly nvfp4_quantize_block of its elements
// (blocks with NaN or Inf go through it). False when S_enc is not covered.
bool nvfp4_quantize_rowwise(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                            int cols, const uint32_t* x, uint8_t* scales,
                            uint8_t* codes);
bool nvfp4_quantize_colwise(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                            int cols, const uint32_t* x, uint8_t* scales,
                            uint8_t* codes);

// 16x16 tiles as nvfp4_quantize_2d lays them out (rows, cols % 16 == 0).
// False (outputs partly written) when not covered or when x holds a NaN or
// Inf: the caller then runs the reference.
bool nvfp4_quantize_2d(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                       int cols, const uint32_t* x, uint8_t* scales,
                       uint8_t* codes);

}  // namespace mxc::fast
