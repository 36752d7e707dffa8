// Rounding modes and overflow policies: the axes every conversion and every
// arithmetic result is rounded along. Semantics: docs/rounding.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mxc {

enum class Round : uint8_t {
  kRNE,  // to nearest, ties to even (IEEE roundTiesToEven, PTX .rn)
  kRZ,   // toward zero (PTX .rz)
  kRU,   // toward +inf (PTX .rp)
  kRD,   // toward -inf (PTX .rm)
  kRNA,  // to nearest, ties away from zero (IEEE roundTiesToAway)
  kOdd,  // round to odd (sticky into the last bit; von Neumann / Boldo)
  kSR,   // stochastic: the discarded bits' top sr_bits bits plus rbits
  kRNZ,  // to nearest, ties toward zero (DeepGEMM's FP4 cast: a value on a
         // midpoint takes the smaller magnitude; docs/rounding.md rule 6)
};

enum class Overflow : uint8_t {
  kFormat,     // OCP non-saturating: Inf if the format has it, else NaN,
               // else the largest finite (IEEE 754 7.4 for directed modes)
  kSatFinite,  // clamp to the largest finite magnitude (PTX .satfinite)
  kInf,        // always +-Inf, whatever the mode: tensor-core accumulators
               // overflow to Inf even under RZ (MMA-Sim; docs/models.md)
};

// Random-bit widths of the two stochastic-rounding definitions (rounding.md).
inline constexpr int kSrBitsPtx = 8;   // PTX cvt.rs to .e2m1x4 (8 bits/element)
inline constexpr int kSrBitsFull = 0;  // every discarded source bit (convert())

// Everything that decides how one value is rounded. Stochastic rounding is a
// pure function of its inputs: the random bits are an argument.
struct RoundSpec {
  Round mode = Round::kRNE;
  Overflow overflow = Overflow::kFormat;
  bool relu = false;       // PTX .relu: negative results become +0
  uint32_t rbits = 0;      // kSR only: the random bits, low sr_bits used
  int sr_bits = kSrBitsPtx;  // kSR only: 1..32, or kSrBitsFull
};

std::optional<Round> parse_round(std::string_view name);
std::string_view round_name(Round r);

// The CLI / vector-header spelling of a rounding: a mode name, plus
// "rs-full" for stochastic rounding with every discarded bit. Returns a
// RoundSpec with mode and sr_bits set (other fields default).
std::optional<RoundSpec> parse_rounding(std::string_view name);
std::string rounding_name(const RoundSpec& r);

}  // namespace mxc
