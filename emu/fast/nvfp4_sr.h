// NVFP4 with stochastic rounding on the fast engine (issue 22: the plan's
// cast step includes SR). The elements round as PTX
// cvt.rs.satfinite.e2m1x4 does (8 random bits per element; the reference:
// convert() with Round::kSR, sr_bits 8, docs/rounding.md "Stochastic
// rounding"); the block scale and the element operand come from the
// profile's plan exactly as in nvfp4_fast.h. The profiles whose reference
// takes random bits are the one-candidate TE and CUTLASS rules
// (nvfp4_has_sr). Bit-identical to nvfp4_quantize_block with rbits
// (tests/test_fast_nvfp4_sr.cpp, on every ISA).
//
// rbits: one 32-bit word per element, laid out as x (its low 8 bits are
// used), e.g. sr_rbits(seed, i) for element i (sr_rbits_fill).
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/block/profile.h"

namespace mxc::fast {

// One block of n elements. False (nothing written) when the profile has no
// stochastic rounding, the plan does not model the tensor value, the block
// holds a NaN or Inf, or its scale code is one the plan does not model
// exactly: the caller runs the reference.
bool nvfp4_quantize_block_sr(const Nvfp4Profile& p, uint32_t s_enc,
                             const uint32_t* x, const uint32_t* rbits, size_t n,
                             uint8_t& scale, uint8_t* codes);

// Row-major rows x cols, blocks along rows (cols % 16 == 0) or down
// columns (rows % 16 == 0), laid out as nvfp4_quantize_rowwise/_colwise
// (nvfp4_fast.h). Blocks the kernel does not model (NaN, Inf) take the
// reference with their random bits. False, nothing written, when the
// profile has no stochastic rounding or the plan does not model s_enc.
bool nvfp4_quantize_rowwise_sr(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                               int cols, const uint32_t* x,
                               const uint32_t* rbits, uint8_t* scales,
                               uint8_t* codes);
bool nvfp4_quantize_colwise_sr(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                               int cols, const uint32_t* x,
                               const uint32_t* rbits, uint8_t* scales,
                               uint8_t* codes);

// How many blocks the matrix functions above handed to the reference since
// the process started (NaN or Inf blocks; tests check that finite input
// adds none).
uint64_t nvfp4_sr_reference_blocks();

}  // namespace mxc::fast
