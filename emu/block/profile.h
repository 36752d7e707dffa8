// Named quantization profiles: every convention choice of one library's MX
// or NVFP4 recipe, fixed in one place (never #ifdefs in the core). Each
// profile's entry in docs/profiles.md cites the source file and commit it
// was read from.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "emu/format.h"
#include "emu/rounding.h"

namespace mxc {

enum class ScaleRule : uint8_t {
  kFloor,     // scale_floor, then clamps
  kCeil,      // scale_ceil, then clamps
  kEven,      // scale_even, then clamps
  kRceil,     // scale_rceil non-saturating (overflow, Inf, NaN -> 0xFF)
  kRceilSat,  // scale_rceil .satfinite (overflow, Inf -> 0xFE; NaN -> 0xFF)
  kRn,        // scale_rn
  kRz,        // scale_rz
  kDeepgemm,  // clamp(E(sf) + (M(sf) != 0), 1, 254), sf = fl(max(amax,
              // fl(1e-4)) / max_elem)
};

enum class ApplyRule : uint8_t {
  kExactDivide,  // x / 2^X exactly, rounded once into the element format
  kF32MulPow2,   // fl(x * 2^(127 - byte)) in binary32 (byte 0 -> 2^127)
  kF32MulTeRcp,  // TE exp2f_rcp: byte 0 -> 1.0, else 2^(127 - byte) as
                 // (254 - byte) << 23 (254 -> +0.0, 255 -> -Inf)
  kF32MulRcp,    // fl(x * fl(1 / 2^X)) (DeepGEMM; exact for powers of two)
};

struct MxProfile {
  std::string_view name;
  std::string_view summary;
  std::string_view source;  // repository, file and commit read
  Fmt default_elem;
  int block;  // elements per scale
  ScaleRule scale;
  int clamp_lo, clamp_hi;    // unbiased X range for kFloor/kCeil/kEven
  bool above_hi_is_nan;      // X > clamp_hi gives the NaN scale (OCP)
  uint8_t nan_byte;          // scale byte for a NaN amax
  uint8_t inf_byte;          // scale byte for an Inf amax
  bool amax_ignores_nan;     // amax by fmaxf: NaN elements do not count
  ApplyRule apply;
  Round elem_round;
  Overflow elem_overflow;
  bool neg_zero_to_pos;  // -0 and negatives that round to 0 become +0
};

enum class Nvfp4Rule : uint8_t {
  kTe,       // enc = fl(1 / fl(s * fl(1 / S_enc))); q = cvt(fl(x * enc))
  kCutlass,  // enc = min(fl(S_enc * fl(1 / s)), FLT_MAX); q = cvt(fl(x*enc))
};

struct Nvfp4Profile {
  std::string_view name;
  std::string_view summary;
  std::string_view source;
  Nvfp4Rule rule;
};

std::span<const MxProfile> mx_profiles();
std::span<const Nvfp4Profile> nvfp4_profiles();
const MxProfile* find_mx_profile(std::string_view name);
const Nvfp4Profile* find_nvfp4_profile(std::string_view name);

}  // namespace mxc
