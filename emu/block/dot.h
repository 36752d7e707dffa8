// OCP MX v1.0 Dot and DotGeneral (section 6.2): the exact value of
//   Dot(A, B)        = 2^(X_A + X_B) * sum_i A_i * B_i         (one block)
//   DotGeneral(A, B) = sum_blocks Dot(A_block, B_block) (+ C)
// computed with big integers (never floats), then rounded once into f32,
// bf16 or f16 in any rounding mode through the rounding core. This is the
// spec semantics; hardware semantics are the MMA models (emu/mma).
#pragma once

#include <cstdint>
#include <span>

#include "emu/format.h"
#include "emu/rounding.h"

namespace mxc {

struct MxVector {
  Fmt elem;                      // element format (A and B may differ)
  int block = 32;                // elements per scale
  std::span<const uint64_t> codes;
  std::span<const uint64_t> scales;  // E8M0 encodings, one per block
};

// DotGeneral(A, B) + c (c an encoding of `out`, 0 for none), rounded once.
// A NaN anywhere (element or scale 0xFF) or Inf - Inf gives NaN; an Inf
// element with a finite scale gives that Inf; the sign of an exact zero
// follows IEEE (+0 unless every term is -0, -0 under RD).
uint64_t mx_dot_general(const MxVector& a, const MxVector& b, Fmt out,
                        const RoundSpec& r, uint64_t c = 0);

}  // namespace mxc
