#include "emu/arith.h"

#include <bit>

#include "emu/round_pack.h"
#include "emu/unpack.h"

namespace mxc {
namespace {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

// Zero result sign of an exact cancellation (IEEE 754 6.3): +0, but -0 when
// rounding toward -inf.
bool cancel_sign(const RoundSpec& r) { return r.mode == Round::kRD; }

// Round |v| = mag * 2^exp where mag may exceed 64 bits: shift into 64 bits,
// folding what falls off into the sticky bit.
uint64_t pack_wide(Fmt f, bool neg, int exp, u128 mag, bool sticky,
                   const RoundSpec& r) {
  while ((mag >> 63) != 0) {
    sticky |= (mag & 1) != 0;
    mag >>= 1;
    ++exp;
  }
  return round_pack(f, neg, exp, static_cast<uint64_t>(mag), sticky, r);
}

}  // namespace

uint64_t fp_add(Fmt f, uint64_t a, uint64_t b, const RoundSpec& r) {
  const Unpacked x = unpack(f, a), y = unpack(f, b);
  if (x.cls == Class::kNaN || y.cls == Class::kNaN) return canonical_nan(f);
  if (x.cls == Class::kInf || y.cls == Class::kInf) {
    if (x.cls == Class::kInf && y.cls == Class::kInf && x.sign != y.sign)
      return canonical_nan(f);
    return inf_bits(f, x.cls == Class::kInf ? x.sign : y.sign);
  }
  if (x.cls == Class::kZero && y.cls == Class::kZero) {
    return zero_bits(f, x.sign == y.sign ? x.sign : cancel_sign(r));
  }
  if (x.cls == Class::kZero) return b;
  if (y.cls == Class::kZero) return a;
  const Unpacked& big = x.exp >= y.exp ? x : y;
  const Unpacked& small = x.exp >= y.exp ? y : x;
  // Beyond `far` binades apart the smaller operand is below a quarter of
  // big's last place (sig < 2^(man+1)), so it only matters as a sticky bit.
  const int far = 123 - desc(f).man_bits;
  if (big.exp - small.exp > far) {
    // The sum is big nudged by less than a guard bit, which a sticky bit
    // below two guard bits expresses exactly.
    const uint64_t g = big.sig << 2;
    const bool same = big.sign == small.sign;
    return round_pack(f, big.sign, big.exp - 2, same ? g : g - 1, true, r);
  }
  // Exact sum on the smaller exponent: below 2^(man + 1 + far + 1) = 2^125.
  const i128 B = static_cast<i128>(big.sig) << (big.exp - small.exp);
  const i128 A = static_cast<i128>(small.sig);
  i128 S = (big.sign ? -B : B) + (small.sign ? -A : A);
  if (S == 0) return zero_bits(f, cancel_sign(r));
  const bool neg = S < 0;
  return pack_wide(f, neg, small.exp, static_cast<u128>(neg ? -S : S), false,
                   r);
}

uint64_t fp_mul(Fmt f, uint64_t a, uint64_t b, const RoundSpec& r) {
  const Unpacked x = unpack(f, a), y = unpack(f, b);
  const bool neg = x.sign != y.sign;
  if (x.cls == Class::kNaN || y.cls == Class::kNaN) return canonical_nan(f);
  if (x.cls == Class::kInf || y.cls == Class::kInf) {
    if (x.cls == Class::kZero || y.cls == Class::kZero) return canonical_nan(f);
    return inf_bits(f, neg);
  }
  if (x.cls == Class::kZero || y.cls == Class::kZero) return zero_bits(f, neg);
  const u128 p = static_cast<u128>(x.sig) * y.sig;  // exact
  return pack_wide(f, neg, x.exp + y.exp, p, false, r);
}

uint64_t fp_div(Fmt f, uint64_t a, uint64_t b, const RoundSpec& r) {
  const Unpacked x = unpack(f, a), y = unpack(f, b);
  const bool neg = x.sign != y.sign;
  if (x.cls == Class::kNaN || y.cls == Class::kNaN) return canonical_nan(f);
  if (x.cls == Class::kInf) {
    if (y.cls == Class::kInf) return canonical_nan(f);
    return inf_bits(f, neg);
  }
  if (y.cls == Class::kInf) return zero_bits(f, neg);
  if (y.cls == Class::kZero) {
    if (x.cls == Class::kZero) return canonical_nan(f);
    return inf_bits(f, neg);  // division by zero
  }
  if (x.cls == Class::kZero) return zero_bits(f, neg);
  // Quotient with 64 extra bits: q = floor(x.sig * 2^64 / y.sig), remainder
  // nonzero -> sticky. x.sig, y.sig < 2^53 so the dividend fits 128 bits.
  const u128 num = static_cast<u128>(x.sig) << 64;
  const u128 q = num / y.sig;
  const bool sticky = (num % y.sig) != 0;
  return pack_wide(f, neg, x.exp - y.exp - 64, q, sticky, r);
}

}  // namespace mxc
