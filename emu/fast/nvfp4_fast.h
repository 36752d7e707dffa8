// Fast NVFP4 block quantization (issues 7, 22; docs/performance.md): FP32
// -> E2M1 elements with a UE4M3 scale per 16 elements and a tensor-level
// value, for every NVFP4 profile: the profile's plan (emu/block/nvfp4_plan.h,
// made once per tensor value) executed in hardware binary32 (IEEE, MXCSR
// default, round to nearest even), bit-identical to nvfp4_quantize_block /
// nvfp4_quantize_2d (tests/test_fast_nvfp4.cpp):
//   - the block scale code: the plan's scale steps on the amax (vector
//     multiply / divide / min / max), then the in-register UE4M3 conversion;
//   - elements: fl(x * operand) or fl(x / operand), the operand per scale
//     code (128 values, made by the plan from the reference formulas), then
//     the in-register E2M1 conversion (quantize_fused.h, or
//     fast::run_plan_one on the portable path);
//   - 4over6: both candidates and their error sums; rowwise the sums run in
//     a tree order and decide where a proven bound says that order cannot
//     differ from the reference's, the close calls (rare) in the
//     reference's order (nvfp4_hwy.cpp Decide); columnwise each lane is a
//     block, its sum in the reference's order.
// Blocks with a NaN or Inf element (or a NaN from a scale step, or an
// operand of 0 * Inf kind) and a negative tensor value go to the reference;
// stochastic rounding runs the same plan in nvfp4_sr.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/block/profile.h"

namespace mxc::fast {

// Tests: false makes every function here return false, so that the public
// nvfp4_quantize_block / _2d run their reference code; default true.
void set_nvfp4_fast_enabled(bool on);

// Tests: how many blocks the rowwise 4over6 kernel has decided by the error
// sums in the reference's order because the sums in its own order were too
// close to decide (its close calls, nvfp4_hwy.cpp Decide), on this thread.
uint64_t nvfp4_close_calls();

// One block of n elements (any n >= 1). False (nothing written) when not
// covered, or when the block holds a NaN or Inf.
bool nvfp4_quantize_block(const Nvfp4Profile& p, uint32_t s_enc,
                          const uint32_t* x, size_t n, uint8_t& scale,
                          uint8_t* codes);

// Row-major rows x cols, 16-element blocks along rows (cols % 16 == 0;
// scales [row][col/16]) or down columns (rows % 16 == 0; scales
// [row/16][col]); each block exactly nvfp4_quantize_block of its elements
// (blocks with NaN or Inf go through it). False when S_enc is not covered.
// block_amax (rowwise; may be null): the rows x cols / 16 blocks' amaxes as
// fast::abs_max_bits16 gives them (the pass that found the tensor amax),
// which the kernels then read instead of computing.
bool nvfp4_quantize_rowwise(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                            int cols, const uint32_t* x, uint8_t* scales,
                            uint8_t* codes,
                            const uint32_t* block_amax = nullptr);
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
