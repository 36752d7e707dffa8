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

}  // namespace mxc::fast
