// Fast f32 -> 16-bit IEEE formats (bf16, f16): issue 27 point 10. The
// narrow fast path (convert_fast.h) covers 8-bit-and-narrower targets; wide
// targets went through the per-element reference, 100x slower than a
// framework cast. This is an integer formulation of the same rounding
// (the truncated magnitude in the target's encoding plus the discarded
// bits, rounded by mode, overflow by policy) in a loop the compiler
// vectorises; tests/test_fast_convert_wide.cpp checks it bit for bit
// against mxc::convert (the reference) on every high half-word of f32
// times the rounding-relevant low bits, for every covered mode and policy.
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/format.h"
#include "emu/rounding.h"

namespace mxc::fast {

// Whether convert_f32_wide_batch covers f32 -> `to` under `r`: targets
// BF16 and F16; modes RNE, RZ, RU, RD, RNA, round-to-odd; overflow kFormat
// (IEEE 754 7.4) or kSatFinite; no .relu. Anything else (stochastic
// rounding, kInf, .relu) stays on the reference.
bool wide_covers(Fmt to, const RoundSpec& r);

// out[i] = convert(kF32, to, in[i], r) for i < n; wide_covers(to, r) must
// hold (std::invalid_argument otherwise).
void convert_f32_wide_batch(Fmt to, const RoundSpec& r, const uint32_t* in,
                            uint16_t* out, size_t n);

}  // namespace mxc::fast
