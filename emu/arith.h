// IEEE arithmetic on binary32 (and the other IEEE formats of format.h):
// add, multiply, divide, each computed exactly (or with a sticky bit) and
// rounded once by the rounding core. Profiles use these to reproduce what a
// library computes in f32 (amax / 6, x * (1 / scale), ...); the split-K
// reduction of GEMMs uses f32_add. NaN results are canonical.
#pragma once

#include <cstdint>

#include "emu/format.h"
#include "emu/rounding.h"

namespace mxc {

uint64_t fp_add(Fmt f, uint64_t a, uint64_t b, const RoundSpec& r = {});
uint64_t fp_mul(Fmt f, uint64_t a, uint64_t b, const RoundSpec& r = {});
uint64_t fp_div(Fmt f, uint64_t a, uint64_t b, const RoundSpec& r = {});

inline uint32_t f32_add(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>(fp_add(Fmt::kF32, a, b));
}
inline uint32_t f32_mul(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>(fp_mul(Fmt::kF32, a, b));
}
inline uint32_t f32_div(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>(fp_div(Fmt::kF32, a, b));
}

}  // namespace mxc
