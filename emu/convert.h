// Conversions between any two formats, all through the one rounding core:
// decode exactly (unpack), then round once (encode / round_pack). Named
// wrappers (f32_to_e4m3, e2m1_to_f32, ...) give typed entry points.
#pragma once

#include <bit>
#include <cstdint>

#include "emu/format.h"
#include "emu/round_pack.h"
#include "emu/rounding.h"
#include "emu/unpack.h"

namespace mxc {

// Stochastic rounding with sr_bits == kSrBitsFull uses, for this source and
// destination, as many random bits as the source significand has bits below
// the destination's last bit for a normal result (f32 -> f16: 13, f32 ->
// bf16: 16, f32 -> e2m1: 22), capped at 32. See docs/rounding.md.
int full_sr_bits(Fmt from, Fmt to);

// Convert the encoding `bits` of format `from` into format `to`.
uint64_t convert(Fmt from, Fmt to, uint64_t bits, const RoundSpec& r = {});

template <Fmt To, Fmt From>
Bits<To> convert(Bits<From> x, const RoundSpec& r = {}) {
  return Bits<To>{
      static_cast<typename Bits<To>::storage>(convert(From, To, x.v, r))};
}

inline f32 f32_from(float x) { return f32{std::bit_cast<uint32_t>(x)}; }
inline f64 f64_from(double x) { return f64{std::bit_cast<uint64_t>(x)}; }
inline float to_float(f32 x) { return std::bit_cast<float>(x.v); }
inline double to_double(f64 x) { return std::bit_cast<double>(x.v); }

// Named entry points: <src>_to_<dst>. Sources: f64, f32, f16, bf16 into every
// narrow format; every narrow format back into f32, f16, bf16.
#define MXC_CONVERSION(SRC, DST)                                       \
  inline DST SRC##_to_##DST(SRC x, const RoundSpec& r = {}) {          \
    return convert<DST::format>(x, r);                                 \
  }
#define MXC_FROM_WIDE(DST) \
  MXC_CONVERSION(f64, DST) \
  MXC_CONVERSION(f32, DST) \
  MXC_CONVERSION(f16, DST) \
  MXC_CONVERSION(bf16, DST)
#define MXC_TO_WIDE(SRC)    \
  MXC_CONVERSION(SRC, f32)  \
  MXC_CONVERSION(SRC, f16)  \
  MXC_CONVERSION(SRC, bf16)

MXC_FROM_WIDE(e4m3)
MXC_FROM_WIDE(e5m2)
MXC_FROM_WIDE(e3m2)
MXC_FROM_WIDE(e2m3)
MXC_FROM_WIDE(e2m1)
MXC_FROM_WIDE(e8m0)
MXC_FROM_WIDE(ue4m3)
MXC_FROM_WIDE(mxint8)
MXC_TO_WIDE(e4m3)
MXC_TO_WIDE(e5m2)
MXC_TO_WIDE(e3m2)
MXC_TO_WIDE(e2m3)
MXC_TO_WIDE(e2m1)
MXC_TO_WIDE(e8m0)
MXC_TO_WIDE(ue4m3)
MXC_TO_WIDE(mxint8)
MXC_CONVERSION(f64, f16)
MXC_CONVERSION(f64, bf16)
MXC_CONVERSION(f32, f16)
MXC_CONVERSION(f32, bf16)
MXC_CONVERSION(f16, f32)
MXC_CONVERSION(bf16, f32)

#undef MXC_TO_WIDE
#undef MXC_FROM_WIDE
#undef MXC_CONVERSION

}  // namespace mxc
