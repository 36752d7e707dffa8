#include "emu/round_pack.h"

#include <bit>
#include <cassert>

namespace mxc {
namespace {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang builtin

// Whether to step the truncated magnitude up to the next representable value,
// given the discarded remainder `rem` out of a field of `shift` bits
// (0 < shift <= 120), whether bits below that field were nonzero, and whether
// the truncated value's encoding ends in a one (ties-to-even and round-to-odd
// look at the last bit of the encoding: for E8M0 that is the exponent's).
bool round_increment(const RoundSpec& r, bool sign, bool trunc_odd, u128 rem,
                     int shift, bool sticky) {
  const u128 half = u128{1} << (shift - 1);
  const bool inexact = rem != 0 || sticky;
  switch (r.mode) {
    case Round::kRNE:
      return rem > half || (rem == half && (sticky || trunc_odd));
    case Round::kRNA:
      return rem >= half;
    case Round::kRNZ:  // a tie keeps the smaller magnitude
      return rem > half || (rem == half && sticky);
    case Round::kRZ:
      return false;
    case Round::kOdd:  // inexact results land on the odd neighbour
      return inexact && !trunc_odd;
    case Round::kRU:
      return inexact && !sign;
    case Round::kRD:
      return inexact && sign;
    case Round::kSR: {
      // docs/rounding.md "Stochastic rounding": keep the top k bits of the
      // discarded field, add k random bits, round up on carry out of k bits.
      const int k = r.sr_bits;
      const u128 top = shift >= k ? rem >> (shift - k) : rem << (k - shift);
      const u128 rb = u128{r.rbits} & ((u128{1} << k) - 1);
      return top + rb >= (u128{1} << k);
    }
  }
  return false;
}

bool overflow_to_max(const RoundSpec& r, bool sign) {
  if (r.overflow == Overflow::kSatFinite) return true;
  if (r.overflow == Overflow::kInf) return false;
  // IEEE 754-2019 7.4: directed roundings toward zero carry an overflow to
  // the largest finite number; round-to-odd truncates likewise.
  switch (r.mode) {
    case Round::kRZ:
    case Round::kOdd:
      return true;
    case Round::kRU:
      return sign;
    case Round::kRD:
      return !sign;
    default:
      return false;
  }
}

uint64_t overflow_result(Fmt f, bool sign, const RoundSpec& r) {
  const FormatDesc& d = desc(f);
  if (overflow_to_max(r, sign)) return max_finite_bits(f, sign);
  if (d.has_inf()) return inf_bits(f, sign);
  // A finite value that overflows keeps its sign in the NaN (CUDA's
  // __nv_cvt_*_to_fp8 with __NV_NOSAT give 0xFF for -465 in E4M3).
  if (d.has_nan()) return canonical_nan(f) | (sign ? d.sign_mask() : 0);
  return max_finite_bits(f, sign);
}

uint64_t round_pack_int(Fmt f, bool sign, int32_t exp, uint64_t sig,
                        bool sticky, const RoundSpec& r) {
  const FormatDesc& d = desc(f);
  const int32_t q = -d.bias;  // fixed quantum 2^-6 for MXINT8
  const int64_t max_pos = (int64_t{1} << d.man_bits) - 1;  // 127
  const int64_t max_neg = int64_t{1} << d.man_bits;        // 128 (-2.0)
  int64_t shift = int64_t{q} - exp;
  uint64_t n;
  bool huge = false;
  if (shift <= 0) {
    huge = -shift >= 62 || (sig >> (62 + shift)) != 0;
    if (!huge && sticky) {  // one zero discarded bit for the sticky to sit in
      sig <<= (1 - shift);
      exp -= static_cast<int32_t>(1 - shift);
      shift = 1;
    }
  }
  if (shift <= 0) {
    n = huge ? 0 : sig << -shift;
  } else {
    const int s = static_cast<int>(shift > 120 ? 120 : shift);
    const u128 rem = s >= 64 ? u128{sig} : u128{sig & ((uint64_t{1} << s) - 1)};
    n = s >= 64 ? 0 : sig >> s;
    if (round_increment(r, sign, (n & 1) != 0, rem, s, sticky)) ++n;
  }
  const uint64_t lim = static_cast<uint64_t>(sign ? max_neg : max_pos);
  if (huge || n > lim) n = lim;  // integers saturate (OCP MX 5.3.3)
  const uint64_t v = sign ? (~n + 1) : n;
  return v & d.storage_mask();
}

}  // namespace

uint64_t canonical_nan(Fmt f) {
  // Exponent and fraction all ones, sign clear: PTX's canonical NaN for f16
  // (0x7FFF), f32 (0x7FFFFFFF), E4M3/E5M2/UE4M3 (0x7F) and E8M0 (0xFF).
  // FNUZ formats have one NaN, the -0 encoding (0x80).
  const FormatDesc& d = desc(f);
  if (d.specials == Specials::kFnuz) return d.sign_mask();
  return (uint64_t{1} << (d.exp_bits + d.man_bits)) - 1;
}

uint64_t max_finite_bits(Fmt f, bool sign) {
  const FormatDesc& d = desc(f);
  if (d.specials == Specials::kInt) {
    return sign ? uint64_t{0x80} : uint64_t{0x7F};
  }
  const uint64_t biased = static_cast<uint64_t>(d.emax() + d.bias);
  const uint64_t frac = d.max_sig() & ((uint64_t{1} << d.man_bits) - 1);
  return (sign ? d.sign_mask() : 0) | (biased << d.man_bits) | frac;
}

uint64_t inf_bits(Fmt f, bool sign) {
  const FormatDesc& d = desc(f);
  assert(d.has_inf());
  const uint64_t top = (uint64_t{1} << d.exp_bits) - 1;
  return (sign ? d.sign_mask() : 0) | (top << d.man_bits);
}

uint64_t zero_bits(Fmt f, bool sign) {
  const FormatDesc& d = desc(f);
  // E8M0 has no zero: its least value 2^-127 (0x00) stands in (CUDA's
  // __nv_cvt_float_to_e8m0 and PTX cvt.ue8m0x2 clamp there too).
  // Integers and FNUZ formats have no negative zero: -0 becomes +0
  // (ml_dtypes float8_e4m3fnuz(-0.0) and torch's fnuz casts give 0x00).
  return sign && d.has_neg_zero() ? d.sign_mask() : 0;
}

uint64_t round_pack(Fmt f, bool sign, int32_t exp, uint64_t sig, bool sticky,
                    const RoundSpec& r) {
  assert(sig != 0);
  const FormatDesc& d = desc(f);
  if (!d.has_sign) sign = false;  // unsigned formats take the magnitude
  if (r.relu && sign) return zero_bits(f, false);
  if (d.specials == Specials::kInt) {
    return round_pack_int(f, sign, exp, sig, sticky, r);
  }

  // Exponent of the leading bit, then the quantum 2^q of the result: the
  // format's ulp at that exponent, never finer than the subnormal ulp.
  const int lead = 63 - std::countl_zero(sig);
  const int64_t e = int64_t{exp} + lead;
  const int64_t q = (e > d.emin() ? e : d.emin()) - d.man_bits;
  int64_t shift64 = q - exp;
  if (sticky && shift64 <= 0) {
    // Give the sticky bit a field to sit below: one discarded (zero) bit.
    // (n stays below 2^(m+1), so sig << (1 - shift64) fits.)
    sig <<= (1 - shift64);
    exp -= static_cast<int32_t>(1 - shift64);
    shift64 = 1;
  }

  // Truncated magnitude in units of 2^q, and the discarded field.
  uint64_t n;
  u128 rem = 0;
  int s = 1;
  if (shift64 <= 0) {
    n = sig << -shift64;  // exact: q >= e - man_bits bounds n below 2^(m+1)
  } else {
    s = static_cast<int>(shift64 > 120 ? 120 : shift64);
    rem = s >= 64 ? u128{sig} : u128{sig & ((uint64_t{1} << s) - 1)};
    n = s >= 64 ? 0 : sig >> s;
  }
  // The encoding's last bit: the significand's, or with no fraction bits
  // (E8M0) the biased exponent's; the virtual zero below E8M0 is even.
  const bool trunc_odd =
      d.man_bits > 0 ? (n & 1) != 0 : n != 0 && ((q + d.bias) & 1) != 0;
  if (round_increment(r, sign, trunc_odd, rem, s, sticky)) ++n;

  int64_t qq = q;
  if (n == (uint64_t{2} << d.man_bits)) {  // carried into a new binade
    n >>= 1;
    ++qq;
  }
  if (n == 0) return zero_bits(f, sign);  // E8M0: clamps to 2^-127

  const uint64_t hidden = uint64_t{1} << d.man_bits;
  if (n < hidden) {  // subnormal (qq == emin - man_bits)
    return (sign ? d.sign_mask() : 0) | n;
  }
  const int64_t res_exp = qq + d.man_bits;
  if (res_exp > d.emax() || (res_exp == d.emax() && n > d.max_sig())) {
    return overflow_result(f, sign, r);
  }
  const uint64_t biased = static_cast<uint64_t>(res_exp + d.bias);
  return (sign ? d.sign_mask() : 0) | (biased << d.man_bits) | (n - hidden);
}

uint64_t encode(Fmt f, const Unpacked& u, const RoundSpec& r) {
  const FormatDesc& d = desc(f);
  switch (u.cls) {
    case Class::kNaN:
      // Formats without NaN receive +max finite: CUDA's host conversions
      // (__nv_cvt_float_to_fp6/fp4) and PTX cvt .satfinite do this.
      if (!d.has_nan()) return max_finite_bits(f, false);
      return canonical_nan(f);
    case Class::kInf: {
      const bool sign = d.has_sign && u.sign;
      if (r.relu && sign) return zero_bits(f, false);
      if (d.has_inf() && r.overflow != Overflow::kSatFinite) {
        return inf_bits(f, sign);
      }
      if (d.has_nan() && r.overflow != Overflow::kSatFinite) {
        return canonical_nan(f) | (sign ? d.sign_mask() : 0);  // as overflow
      }
      return max_finite_bits(f, sign);
    }
    case Class::kZero:
      if (r.relu) return zero_bits(f, false);
      return zero_bits(f, d.has_sign && u.sign);
    default:
      return round_pack(f, u.sign, u.exp, u.sig, false, r);
  }
}

}  // namespace mxc
