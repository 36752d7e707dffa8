// The largest magnitude of an array of f32 bit patterns
// (emu/fast/amax_hwy.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/fast/isa.h"

namespace mxc::fast {

// max(x[i] & 0x7FFFFFFF) over [0, n) as unsigned integers (0 for n == 0):
// magnitudes order like the values, and a NaN's lies above Inf's. On
// `isa` (kScalar, or one this CPU lacks: a plain loop).
uint32_t abs_max_bits(Isa isa, const uint32_t* x, size_t n);

// The same per block of 16 as well: am[b] = the magnitude maximum of
// x[16 b, 16 b + 16) for b < nb, and the return value that of x[0, 16 nb).
// One pass for an NVFP4 tensor's amax and its blocks' (the rowwise kernel
// takes them: nvfp4_quantize_rowwise's block_amax), in place of a second
// reading of the blocks for their amaxes.
// Both read x last 32 KiB first, so that a pass over x from its start that
// follows finds that start in the cache (emu/fast/amax_hwy.cpp).
uint32_t abs_max_bits16(Isa isa, const uint32_t* x, size_t nb, uint32_t* am);

}  // namespace mxc::fast
