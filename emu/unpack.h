// Exact decoding of any encoding into (class, sign, exponent, integer
// significand): the input side of the rounding core (SoftFloat's unpack).
#pragma once

#include <cstdint>
#include <string_view>

#include "emu/format.h"

namespace mxc {

enum class Class : uint8_t { kZero, kSubnormal, kNormal, kInf, kNaN };

std::string_view class_name(Class c);

// A decoded value. For kSubnormal/kNormal: |value| = sig * 2^exp exactly, with
// sig != 0. For kZero/kInf only `sign` matters; kNaN keeps the sign bit too.
struct Unpacked {
  Class cls = Class::kZero;
  bool sign = false;
  int32_t exp = 0;
  uint64_t sig = 0;
};

// Decode `bits` (only the low desc(f).bits are read; higher bits must be 0).
// UE4M3 and E8M0 are unsigned: there is no sign bit to read.
Unpacked unpack(Fmt f, uint64_t bits);

// The exact value as a double where it fits (every format but f64 subnormal
// edge cases fits exactly); NaN/Inf map to the double specials.
double to_double(const Unpacked& u);

}  // namespace mxc
