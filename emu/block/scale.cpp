#include "emu/block/scale.h"

#include <bit>
#include <cmath>

#include "emu/arith.h"
#include "emu/convert.h"
#include "emu/round_pack.h"

namespace mxc {

int elem_emax(Fmt elem) {
  if (elem == Fmt::kInt8) return 0;
  return desc(elem).emax();
}

uint32_t elem_max_f32(Fmt elem) {
  return static_cast<uint32_t>(
      convert(elem, Fmt::kF32, max_finite_bits(elem, false)));
}

int f32_exp_field(uint32_t amax) {
  return static_cast<int>((amax >> 23) & 0xFF) - 127;
}

int scale_floor(uint32_t amax, Fmt elem) {
  return f32_exp_field(amax) - elem_emax(elem);
}

int scale_ceil(uint32_t amax, Fmt elem) {
  return f32_exp_field(amax) + ((amax & 0x7FFFFF) != 0 ? 1 : 0) -
         elem_emax(elem);
}

uint32_t even_rounded_amax(uint32_t amax, Fmt elem) {
  const uint32_t a = amax & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return a;  // NaN preserved (torchao's nan_mask)
  const int m = desc(elem).man_bits;
  return (a + (1u << (22 - m))) & 0xFF800000u;
}

int scale_even(uint32_t amax, Fmt elem) {
  return f32_exp_field(even_rounded_amax(amax, elem)) - elem_emax(elem);
}

int scale_rceil_log2(uint32_t amax, Fmt elem) {
  const uint32_t q = f32_div(amax & 0x7FFFFFFFu, elem_max_f32(elem));
  if (q == 0) return -1000;
  // q = 2^E * (1 + f) exactly, f in [0, 1) with at most 23 bits.
  int E = f32_exp_field(q);
  uint32_t man = q & 0x7FFFFFu;
  if (E == -127) {  // subnormal: normalise
    const int lz = std::countl_zero(man) - 8;  // leading zeros in 24 bits
    E = -126 - lz;
    man = (man << lz) & 0x7FFFFFu;
  }
  if (man == 0) return E;  // log2 exact
  if (E == 0) return 1;    // log2f(q) > 0
  // log2(q) = E + r, 0 < r < 1. The binary32 nearest E + r is E when r is
  // below half the spacing of binary32 values next to E on the side of
  // E + r (above E for E > 0; below |E| for E < 0, halved when |E| is a
  // power of two). r is far (> 2^-45 relative) from that threshold for
  // every 23-bit f, so the double logarithm decides it exactly.
  const double r = std::log2(1.0 + std::ldexp(static_cast<double>(man), -23));
  const int mag_e = E < 0 ? -E : E;
  const int j = std::bit_width(static_cast<unsigned>(mag_e)) - 1;
  int spacing_exp = j - 23;
  if (E < 0 && (mag_e & (mag_e - 1)) == 0) spacing_exp -= 1;
  return r < std::ldexp(1.0, spacing_exp - 1) ? E : E + 1;
}

int floor_log2f(uint32_t a) {
  a &= 0x7FFFFFFFu;
  // a = 2^E * (1 + f) exactly, f in [0, 1) with at most 23 bits.
  int E = f32_exp_field(a);
  uint32_t man = a & 0x7FFFFFu;
  if (E == -127) {  // subnormal: normalise
    const int lz = std::countl_zero(man) - 8;
    E = -126 - lz;
    man = (man << lz) & 0x7FFFFFu;
  }
  const int k = E + 1;
  if (man == 0 || k == 0) return E;  // exact, or log2 in (-1, 0): kept
  // log2(a) = k - d with 0 < d < 1; the binary32 nearest it is k when d is
  // below half the spacing of binary32 values next to k on the side of
  // k - d (toward zero for k > 0, halved when k is a power of two; away
  // from zero for k < 0). d = -log2(1 - (1 - f) / 2), accurate to a few
  // double ulps by log1p, far from that threshold for every 23-bit f.
  const int mag_k = k < 0 ? -k : k;
  int spacing_exp =
      static_cast<int>(std::bit_width(static_cast<unsigned>(mag_k))) - 1 - 23;
  if (k > 0 && (mag_k & (mag_k - 1)) == 0) spacing_exp -= 1;
  const double half_one_minus_f =
      std::ldexp(static_cast<double>(0x800000u - man), -24);
  const double d = -std::log1p(-half_one_minus_f) / std::log(2.0);
  return d < std::ldexp(1.0, spacing_exp - 1) ? k : E;
}

int scale_floor_log2(uint32_t amax, Fmt elem) {
  constexpr uint32_t kMinNormal = 0x00800000u;  // 2^-126
  const uint32_t a = (amax & 0x7FFFFFFFu) == 0 ? kMinNormal : amax;
  return floor_log2f(a) - elem_emax(elem);
}

uint32_t amax_over_max(uint32_t amax, Fmt elem) {
  const uint32_t rcp = f32_div(0x3F800000u, elem_max_f32(elem));
  return f32_mul(amax & 0x7FFFFFFFu, rcp);
}

namespace {
uint8_t to_e8m0(uint32_t q, Round mode, bool satfinite) {
  RoundSpec r;
  r.mode = mode;
  r.overflow = satfinite ? Overflow::kSatFinite : Overflow::kFormat;
  return static_cast<uint8_t>(convert(Fmt::kF32, Fmt::kE8M0, q, r));
}
}  // namespace

uint8_t scale_rceil(uint32_t amax, Fmt elem, bool satfinite) {
  return to_e8m0(amax_over_max(amax, elem), Round::kRU, satfinite);
}
uint8_t scale_rn(uint32_t amax, Fmt elem) {
  return to_e8m0(amax_over_max(amax, elem), Round::kRNA, false);
}
uint8_t scale_rz(uint32_t amax, Fmt elem) {
  return to_e8m0(amax_over_max(amax, elem), Round::kRZ, false);
}

}  // namespace mxc
