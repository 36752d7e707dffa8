// Format descriptors: every element, scale and source/destination encoding the
// emulator knows, as constexpr data. Bit layouts follow OCP Microscaling
// Formats (MX) v1.0 section 5.3 (E4M3, E5M2, E3M2, E2M3, E2M1, E8M0, INT8),
// NVIDIA's NVFP4 (UE4M3 block scale), IEEE 754-2019 (binary16/32/64) plus
// bfloat16, and the FNUZ FP8 encodings (AMD CDNA3 ISA guide, "FP8 and BF8";
// ml_dtypes float8_*fnuz). See docs/formats.md for the tables these descriptors
// produce.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mxc {

// Which encodings at the top of the exponent range are special.
enum class Specials : uint8_t {
  kIeee,        // exponent all ones: mantissa 0 = Inf, else NaN (E5M2, FP16...)
  kNanAllOnes,  // only S.1111.111 is NaN, no Inf (OCP E4M3, UE4M3)
  kNone,        // every encoding is finite (E3M2, E2M3, E2M1)
  kE8M0,        // 0xFF is NaN, no zero, no Inf, no sign (OCP E8M0)
  kInt,         // two's-complement integer with an implied scale (MXINT8)
  kFnuz,        // "finite, NaN, unsigned zero": the -0 encoding (sign bit
                // alone, 0x80) is the only NaN; no Inf, no -0 (AMD CDNA3
                // FP8/BF8; ml_dtypes float8_*fnuz, torch float8_*fnuz)
};

enum class Fmt : uint8_t {
  kE4M3,
  kE5M2,
  kE3M2,
  kE2M3,
  kE2M1,
  kE8M0,
  kUE4M3,
  kInt8,  // MXINT8 element: int8 * 2^-6
  kF16,
  kBF16,
  kF32,
  kF64,
  kTF32,   // the top 19 bits of an f32 (tensor-core TF32 operand)
  kE8M13,  // f32 range, 13 fraction bits: Ada/Hopper FP8 accumulator
  // FNUZ FP8 (Specials::kFnuz) of Noune et al., "8-bit Numerical Formats for
  // Deep Neural Networks" (Graphcore, arXiv:2206.02915); bias 8 and 16 are
  // AMD CDNA3's (MI300) FP8 and BF8. ml_dtypes float8_e4m3fnuz,
  // float8_e5m2fnuz, float8_e4m3b11fnuz; torch.float8_e4m3fnuz, e5m2fnuz.
  kE4M3Fnuz,
  kE5M2Fnuz,
  kE4M3B11Fnuz,
};
inline constexpr int kNumFormats = 17;

struct FormatDesc {
  Fmt id;
  std::string_view name;  // CLI spelling
  int bits;               // storage width
  bool has_sign;
  int exp_bits;  // 0 for kInt
  int man_bits;  // explicit fraction bits (kInt: magnitude bits, 7)
  int bias;      // kInt: the implied scale is 2^-bias
  Specials specials;

  // Smallest exponent of a normal number: 2^emin is the least normal.
  constexpr int emin() const {
    return specials == Specials::kE8M0 ? -bias : 1 - bias;
  }
  // Whether encodings with biased exponent 0 are subnormal (E8M0 has none).
  constexpr bool has_subnormals() const {
    return specials != Specials::kE8M0 && specials != Specials::kInt;
  }
  constexpr bool has_inf() const { return specials == Specials::kIeee; }
  constexpr bool has_nan() const {
    return specials == Specials::kIeee || specials == Specials::kNanAllOnes ||
           specials == Specials::kE8M0 || specials == Specials::kFnuz;
  }
  // Whether the sign bit with a zero magnitude is -0 (FNUZ spends it on NaN,
  // integers have none, unsigned formats have no sign bit).
  constexpr bool has_neg_zero() const {
    return has_sign && specials != Specials::kInt &&
           specials != Specials::kFnuz;
  }
  // Largest exponent of a finite number.
  constexpr int emax() const {
    const int top = (1 << exp_bits) - 1;  // largest biased exponent field
    switch (specials) {
      case Specials::kIeee:
        return top - 1 - bias;
      case Specials::kE8M0:
        return top - 1 - bias;
      default:
        return top - bias;
    }
  }
  // Largest finite significand at emax, as an integer with man_bits fraction
  // bits (so 1.75 with 2 fraction bits is 7).
  constexpr uint64_t max_sig() const {
    const uint64_t all = (uint64_t{2} << man_bits) - 1;
    return specials == Specials::kNanAllOnes ? all - 1 : all;
  }
  constexpr uint64_t storage_mask() const {
    return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  }
  constexpr uint64_t sign_mask() const {
    return has_sign ? uint64_t{1} << (bits - 1) : 0;
  }
};

inline constexpr std::array<FormatDesc, kNumFormats> kFormats = {{
    {Fmt::kE4M3, "e4m3", 8, true, 4, 3, 7, Specials::kNanAllOnes},
    {Fmt::kE5M2, "e5m2", 8, true, 5, 2, 15, Specials::kIeee},
    {Fmt::kE3M2, "e3m2", 6, true, 3, 2, 3, Specials::kNone},
    {Fmt::kE2M3, "e2m3", 6, true, 2, 3, 1, Specials::kNone},
    {Fmt::kE2M1, "e2m1", 4, true, 2, 1, 1, Specials::kNone},
    {Fmt::kE8M0, "e8m0", 8, false, 8, 0, 127, Specials::kE8M0},
    {Fmt::kUE4M3, "ue4m3", 8, false, 4, 3, 7, Specials::kNanAllOnes},
    {Fmt::kInt8, "int8", 8, true, 0, 7, 6, Specials::kInt},
    {Fmt::kF16, "f16", 16, true, 5, 10, 15, Specials::kIeee},
    {Fmt::kBF16, "bf16", 16, true, 8, 7, 127, Specials::kIeee},
    {Fmt::kF32, "f32", 32, true, 8, 23, 127, Specials::kIeee},
    {Fmt::kF64, "f64", 64, true, 11, 52, 1023, Specials::kIeee},
    {Fmt::kTF32, "tf32", 19, true, 8, 10, 127, Specials::kIeee},
    {Fmt::kE8M13, "e8m13", 22, true, 8, 13, 127, Specials::kIeee},
    {Fmt::kE4M3Fnuz, "e4m3fnuz", 8, true, 4, 3, 8, Specials::kFnuz},
    {Fmt::kE5M2Fnuz, "e5m2fnuz", 8, true, 5, 2, 16, Specials::kFnuz},
    {Fmt::kE4M3B11Fnuz, "e4m3b11fnuz", 8, true, 4, 3, 11, Specials::kFnuz},
}};

constexpr const FormatDesc& desc(Fmt f) {
  return kFormats[static_cast<size_t>(f)];
}

std::optional<Fmt> parse_format(std::string_view name);

// Boxed storage: a value of format F is never a bare integer, so bits of
// different formats cannot be mixed by accident.
template <Fmt F>
struct Bits {
  using storage = std::conditional_t<
      desc(F).bits <= 8, uint8_t,
      std::conditional_t<
          desc(F).bits <= 16, uint16_t,
          std::conditional_t<desc(F).bits <= 32, uint32_t, uint64_t>>>;
  storage v;
  static constexpr Fmt format = F;
  friend constexpr bool operator==(Bits a, Bits b) { return a.v == b.v; }
};

using e4m3 = Bits<Fmt::kE4M3>;
using e5m2 = Bits<Fmt::kE5M2>;
using e3m2 = Bits<Fmt::kE3M2>;
using e2m3 = Bits<Fmt::kE2M3>;
using e2m1 = Bits<Fmt::kE2M1>;
using e8m0 = Bits<Fmt::kE8M0>;
using ue4m3 = Bits<Fmt::kUE4M3>;
using mxint8 = Bits<Fmt::kInt8>;
using f16 = Bits<Fmt::kF16>;
using bf16 = Bits<Fmt::kBF16>;
using f32 = Bits<Fmt::kF32>;
using f64 = Bits<Fmt::kF64>;
using tf32 = Bits<Fmt::kTF32>;
using e8m13 = Bits<Fmt::kE8M13>;
using e4m3fnuz = Bits<Fmt::kE4M3Fnuz>;
using e5m2fnuz = Bits<Fmt::kE5M2Fnuz>;
using e4m3b11fnuz = Bits<Fmt::kE4M3B11Fnuz>;

}  // namespace mxc
