#include "emu/unpack.h"

#include <cmath>
#include <limits>

namespace mxc {

std::string_view class_name(Class c) {
  switch (c) {
    case Class::kZero:
      return "zero";
    case Class::kSubnormal:
      return "subnormal";
    case Class::kNormal:
      return "normal";
    case Class::kInf:
      return "inf";
    case Class::kNaN:
      return "nan";
  }
  return "?";
}

Unpacked unpack(Fmt f, uint64_t bits) {
  const FormatDesc& d = desc(f);
  Unpacked u;
  bits &= d.storage_mask();
  if (d.specials == Specials::kInt) {
    // MXINT8 (OCP MX v1.0 5.3.3): two's complement, value = i * 2^-6.
    const int64_t i = static_cast<int8_t>(static_cast<uint8_t>(bits));
    u.sign = i < 0;
    u.sig = static_cast<uint64_t>(i < 0 ? -i : i);
    u.exp = -d.bias;
    u.cls = u.sig == 0 ? Class::kZero : Class::kNormal;
    return u;
  }
  u.sign = (bits & d.sign_mask()) != 0;
  const uint64_t frac = bits & ((uint64_t{1} << d.man_bits) - 1);
  const int biased = static_cast<int>((bits >> d.man_bits) &
                                      ((uint64_t{1} << d.exp_bits) - 1));
  const int top = (1 << d.exp_bits) - 1;
  switch (d.specials) {
    case Specials::kIeee:
      if (biased == top) {
        u.cls = frac == 0 ? Class::kInf : Class::kNaN;
        return u;
      }
      break;
    case Specials::kNanAllOnes:
      if (biased == top && frac == (uint64_t{1} << d.man_bits) - 1) {
        u.cls = Class::kNaN;
        return u;
      }
      break;
    case Specials::kFnuz:
      // The -0 encoding (sign bit alone) is the only NaN; all else finite.
      if (bits == d.sign_mask()) {
        u.cls = Class::kNaN;
        return u;
      }
      break;
    case Specials::kE8M0:
      // OCP MX v1.0 5.4.1: 0xFF is NaN; 0x00 is 2^-127 (no zero).
      if (biased == top) {
        u.cls = Class::kNaN;
        return u;
      }
      u.cls = Class::kNormal;
      u.sig = 1;
      u.exp = biased - d.bias;
      return u;
    default:
      break;
  }
  if (biased == 0) {
    if (frac == 0) {
      u.cls = Class::kZero;
      return u;
    }
    u.cls = Class::kSubnormal;
    u.sig = frac;
    u.exp = d.emin() - d.man_bits;
    return u;
  }
  u.cls = Class::kNormal;
  u.sig = frac | (uint64_t{1} << d.man_bits);
  u.exp = biased - d.bias - d.man_bits;
  return u;
}

double to_double(const Unpacked& u) {
  switch (u.cls) {
    case Class::kZero:
      return u.sign ? -0.0 : 0.0;
    case Class::kInf:
      return u.sign ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
    case Class::kNaN:
      return std::numeric_limits<double>::quiet_NaN();
    default: {
      const double m = std::ldexp(static_cast<double>(u.sig), u.exp);
      return u.sign ? -m : m;
    }
  }
}

}  // namespace mxc
