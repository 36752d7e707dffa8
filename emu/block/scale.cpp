#include "emu/block/scale.h"

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

int scale_even(uint32_t amax, Fmt elem) {
  const int m = desc(elem).man_bits;
  const uint32_t rounded = ((amax & 0x7FFFFFFFu) + (1u << (22 - m))) &
                           0xFF800000u;
  return f32_exp_field(rounded) - elem_emax(elem);
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
