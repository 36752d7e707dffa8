#include "emu/fast/convert_fast.h"

#include <algorithm>

#include "emu/convert.h"
#include "emu/round_pack.h"
#include "emu/fast/fp_env.h"

namespace mxc::fast {

// The formulation (all integer, no branch on the value in the SIMD path).
// An f32 x with biased exponent E and fraction f is |x| = sig * 2^(E - 150)
// with sig = f + 2^23 for E >= 1; for E = 0 the same holds with E := 1 and
// sig = f, except that for E8M0 (least value 2^-127 < 2^-126) the subnormal
// is read as sig = f << 1 at E = 0. The target's quantum is
// 2^(max(E - 127, emin) - m), i.e. a right shift of sig by
// sh = 23 - m + max(0, emin + 127 - E), capped at 25 (then n = 0 and the
// whole sig is the discarded field, below half). n = sig >> sh is the
// truncated magnitude in quanta; rounding adds 0 or 1 from the discarded
// bits; the encoding is n + (max(E - 127 - emin, 0) << m), which carries
// into the exponent field by itself (E8M0: n + E - 1, clamped at 0). A
// negative result takes the sign bit, except a zero one in a format without
// -0 (FNUZ: the sign bit alone is its NaN).
// Above the largest finite encoding (and for E = 255) the result is the
// overflow / Inf / NaN constant, taken from the reference core itself.

bool covers(Fmt to, const RoundSpec& r) {
  switch (to) {
    case Fmt::kE4M3:
    case Fmt::kE5M2:
    case Fmt::kE3M2:
    case Fmt::kE2M3:
    case Fmt::kE2M1:
    case Fmt::kE8M0:
    case Fmt::kUE4M3:
    case Fmt::kE4M3Fnuz:
    case Fmt::kE5M2Fnuz:
    case Fmt::kE4M3B11Fnuz:
      break;
    default:
      return false;
  }
  return r.mode != Round::kSR;
}

Plan make_plan(Fmt to, const RoundSpec& r) {
  Plan p;
  p.to = to;
  p.spec = r;
  p.covered = covers(to, r);
  if (!p.covered) return p;
  const FormatDesc& d = desc(to);
  p.e8m0 = d.specials == Specials::kE8M0;
  p.is_signed = d.has_sign;
  p.relu = r.relu && d.has_sign;
  p.unsigned_zero = d.has_sign && !d.has_neg_zero();
  p.m = d.man_bits;
  p.c_sh = 150 - d.man_bits + d.emin();
  p.c_off = 127 + d.emin();
  p.max_enc = static_cast<int32_t>(max_finite_bits(to, false));
  p.sign_bit = static_cast<uint32_t>(d.sign_mask());
  for (int s = 0; s < 2; ++s) {
    // 2^300: beyond every narrow format in every mode.
    p.ovf[s] = static_cast<uint8_t>(round_pack(to, s != 0, 300, 1, false, r));
    Unpacked inf;
    inf.cls = Class::kInf;
    inf.sign = s != 0;
    p.inf[s] = static_cast<uint8_t>(encode(to, inf, r));
  }
  p.nan = static_cast<uint8_t>(convert(Fmt::kF32, to, 0x7FC00000u, r));
  return p;
}

uint8_t run_plan_one(const Plan& p, uint32_t x) {
  if (!p.covered) {
    return static_cast<uint8_t>(convert(Fmt::kF32, p.to, x, p.spec));
  }
  const uint32_t abs = x & 0x7FFFFFFFu;
  const bool neg = p.is_signed && (x >> 31) != 0;
  if (abs > 0x7F800000u) return p.nan;
  if (abs == 0x7F800000u) return p.inf[neg];
  const int32_t e = static_cast<int32_t>(abs >> 23);
  uint32_t sig;
  int32_t sh, off;
  if (p.e8m0) {
    sig = e != 0 ? (abs & 0x7FFFFFu) | 0x800000u : abs << 1;
    sh = 23;
    off = e - 1;
  } else {
    const int32_t ee = std::max(e, 1);
    sig = abs - (static_cast<uint32_t>(ee - 1) << 23);
    sh = std::min(std::max(p.c_sh - ee, 23 - p.m), 25);
    off = std::max(ee - p.c_off, 0) << p.m;
  }
  const uint32_t n = sig >> sh;
  const uint32_t rem = sig & ((1u << sh) - 1);
  const uint32_t half = 1u << (sh - 1);
  const bool odd = n != 0 && ((static_cast<int32_t>(n) + off) & 1) != 0;
  bool inc = false;
  switch (p.spec.mode) {
    case Round::kRNE:
      inc = rem > half || (rem == half && odd);
      break;
    case Round::kRNA:
      inc = rem >= half;
      break;
    case Round::kRZ:
      break;
    case Round::kRU:
      inc = rem != 0 && !neg;
      break;
    case Round::kRD:
      inc = rem != 0 && neg;
      break;
    case Round::kOdd:
      inc = rem != 0 && !odd;
      break;
    case Round::kRNZ:  // ties toward zero: up only past the midpoint
      inc = rem > half;
      break;
    case Round::kSR:  // not covered
      break;
  }
  const int32_t enc =
      std::max(static_cast<int32_t>(n) + (inc ? 1 : 0) + off, 0);
  if (enc > p.max_enc) return p.ovf[neg];
  if (neg && p.relu) return 0;
  if (enc == 0 && p.unsigned_zero) return 0;  // FNUZ: -0 is +0 (0x80 is NaN)
  return static_cast<uint8_t>(static_cast<uint32_t>(enc) |
                              (neg ? p.sign_bit : 0u));
}

Isa run_plan(const Plan& p, Isa isa, const uint32_t* in, uint8_t* out,
             size_t n) {
  const FpEnvDefault fp_env;  // fp_env.h
  // An ISA the machine lacks (or MXC_ISA excludes): the best one below.
  if (isa != Isa::kScalar && !isa_supported(isa)) isa = isa_below(isa);
  size_t done = 0;
  if (p.covered && isa != Isa::kScalar) {
    if (p.e8m0) done = detail::e8m0_blocks(isa, p, in, out, n);
    if (done == 0) done = detail::convert_blocks(isa, p, in, out, n);
  }
  for (size_t i = done; i < n; ++i) out[i] = run_plan_one(p, in[i]);
  return done > 0 ? isa : Isa::kScalar;
}

Isa convert_f32_batch(Isa isa, Fmt to, const RoundSpec& r, const uint32_t* in,
                      uint8_t* out, size_t n) {
  const FpEnvDefault fp_env;  // fp_env.h
  return run_plan(make_plan(to, r), isa, in, out, n);
}

Isa convert_f32_batch(Fmt to, const RoundSpec& r, const uint32_t* in,
                      uint8_t* out, size_t n) {
  const FpEnvDefault fp_env;  // fp_env.h
  return convert_f32_batch(best_convert_isa(), to, r, in, out, n);
}

namespace detail {
bool fp_specials_fold(const Plan& p) {
  const uint32_t o = p.ovf[0];
  if (o != static_cast<uint32_t>(p.max_enc) &&
      o != static_cast<uint32_t>(p.max_enc) + 1) {
    return false;
  }
  if (!p.is_signed) return p.ovf[1] == p.ovf[0] && p.inf[1] == p.inf[0];
  if (p.relu) return p.ovf[1] == 0 && p.inf[1] == 0;
  return p.ovf[1] == (p.ovf[0] | p.sign_bit) &&
         p.inf[1] == (p.inf[0] | p.sign_bit);
}
}  // namespace detail

}  // namespace mxc::fast
