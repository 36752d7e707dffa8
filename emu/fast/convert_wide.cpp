#include "emu/fast/convert_wide.h"
#include "emu/fast/fp_env.h"

#include <stdexcept>

namespace mxc::fast {
namespace {

// One f32 -> IEEE binary16-width format with `kE` exponent and `kM`
// fraction bits (bf16: 8, 7; f16: 5, 10). NaN becomes the canonical
// all-ones magnitude 0x7FFF (as the reference); Inf stays Inf (kFormat) or
// becomes the largest finite (kSatFinite).
template <int kE, int kM, Round kMode, bool kSat>
inline uint16_t one(uint32_t x) {
  // Branch-free (selects only), 32-bit lanes: the loop below vectorises.
  constexpr int32_t kBias = (1 << (kE - 1)) - 1;
  constexpr uint32_t kInfMag = ((1u << kE) - 1) << kM;
  constexpr uint32_t kMaxMag = kInfMag - 1;
  const uint32_t sign = x >> 31;
  const uint32_t mag = x & 0x7FFFFFFFu;
  const uint32_t e = mag >> 23;  // biased; 0 for subnormals
  const uint32_t sig = (mag & 0x7FFFFFu) | (e != 0 ? 0x800000u : 0u);
  // value = sig * 2^(max(e, 1) - 150); target biased exponent te.
  const int32_t te = static_cast<int32_t>(e != 0 ? e : 1) - 127 + kBias;
  // The implicit bit (1 << kM after the shift) adds one to the exponent
  // field, so (te - 1) << kM plus the shifted significand is the magnitude
  // encoding; below the target's normal range the shift grows instead. A
  // shift past 25 discards as much as 25 (sig < 2^24 < half).
  const uint32_t base = te >= 1 ? static_cast<uint32_t>(te - 1) << kM : 0u;
  int32_t shift = (23 - kM) + (te >= 1 ? 0 : 1 - te);
  shift = shift > 25 ? 25 : shift;
  uint32_t q = base + (sig >> shift);
  const uint32_t rem = sig & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  uint32_t up = 0;
  if constexpr (kMode == Round::kRNE) {
    up = (rem > half) | ((rem == half) & (q & 1u));
  } else if constexpr (kMode == Round::kRNA) {
    up = rem >= half;
  } else if constexpr (kMode == Round::kRU) {
    up = (rem != 0) & (sign == 0);
  } else if constexpr (kMode == Round::kRD) {
    up = (rem != 0) & (sign != 0);
  } else if constexpr (kMode == Round::kOdd) {
    q |= rem != 0 ? 1u : 0u;
  }
  q += up;
  // Overflow: the exact value is beyond the largest finite. IEEE 754 7.4
  // (kFormat): Inf when the mode rounds away from zero on that side, else
  // the largest finite; kSatFinite: the largest finite.
  uint32_t ovf = kMaxMag;
  if constexpr (!kSat) {
    if constexpr (kMode == Round::kRNE || kMode == Round::kRNA) {
      ovf = kInfMag;
    } else if constexpr (kMode == Round::kRU) {
      ovf = sign == 0 ? kInfMag : kMaxMag;
    } else if constexpr (kMode == Round::kRD) {
      ovf = sign != 0 ? kInfMag : kMaxMag;
    }
  }
  q = q >= kInfMag ? ovf : q;
  q = mag == 0x7F800000u ? (kSat ? kMaxMag : kInfMag) : q;  // +-Inf
  const uint32_t r = (sign << 15) | q;
  // NaN: the canonical all-ones magnitude, positive (as the reference).
  return static_cast<uint16_t>(mag > 0x7F800000u ? 0x7FFFu : r);
}

template <int kE, int kM, Round kMode, bool kSat>
void loop(const uint32_t* in, uint16_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = one<kE, kM, kMode, kSat>(in[i]);
}

template <int kE, int kM, Round kMode>
void by_sat(bool sat, const uint32_t* in, uint16_t* out, size_t n) {
  if (sat) {
    loop<kE, kM, kMode, true>(in, out, n);
  } else {
    loop<kE, kM, kMode, false>(in, out, n);
  }
}

template <int kE, int kM>
void by_mode(Round mode, bool sat, const uint32_t* in, uint16_t* out,
             size_t n) {
  switch (mode) {
    case Round::kRNE:
      return by_sat<kE, kM, Round::kRNE>(sat, in, out, n);
    case Round::kRZ:
      return by_sat<kE, kM, Round::kRZ>(sat, in, out, n);
    case Round::kRU:
      return by_sat<kE, kM, Round::kRU>(sat, in, out, n);
    case Round::kRD:
      return by_sat<kE, kM, Round::kRD>(sat, in, out, n);
    case Round::kRNA:
      return by_sat<kE, kM, Round::kRNA>(sat, in, out, n);
    case Round::kOdd:
      return by_sat<kE, kM, Round::kOdd>(sat, in, out, n);
    default:
      throw std::invalid_argument("round: not covered");
  }
}

}  // namespace

bool wide_covers(Fmt to, const RoundSpec& r) {
  if (to != Fmt::kBF16 && to != Fmt::kF16) return false;
  if (r.relu) return false;
  if (r.overflow != Overflow::kFormat && r.overflow != Overflow::kSatFinite)
    return false;
  switch (r.mode) {
    case Round::kRNE:
    case Round::kRZ:
    case Round::kRU:
    case Round::kRD:
    case Round::kRNA:
    case Round::kOdd:
      return true;
    default:
      return false;
  }
}

void convert_f32_wide_batch(Fmt to, const RoundSpec& r, const uint32_t* in,
                            uint16_t* out, size_t n) {
  const FpEnvDefault fp_env;  // fp_env.h
  if (!wide_covers(to, r)) {
    throw std::invalid_argument(
        "convert_f32_wide_batch: to/r not covered (check wide_covers)");
  }
  const bool sat = r.overflow == Overflow::kSatFinite;
  if (to == Fmt::kBF16) {
    by_mode<8, 7>(r.mode, sat, in, out, n);
  } else {
    by_mode<5, 10>(r.mode, sat, in, out, n);
  }
}

}  // namespace mxc::fast
