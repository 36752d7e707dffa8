// Properties of the conversions (RapidCheck): round trips, monotonicity,
// directed-rounding bounds, sign symmetry, saturation. These state laws
// every correct rounding obeys; they need no oracle.
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "conformance/cases.h"
#include "emu/convert.h"

using namespace mxc;

namespace {

constexpr Fmt kNarrow[] = {Fmt::kE4M3, Fmt::kE5M2, Fmt::kE3M2, Fmt::kE2M3,
                           Fmt::kE2M1, Fmt::kE8M0, Fmt::kUE4M3, Fmt::kInt8,
                           Fmt::kF16,  Fmt::kBF16};
constexpr Round kDeterministic[] = {Round::kRNE, Round::kRZ,  Round::kRU,
                                    Round::kRD,  Round::kRNA, Round::kOdd};

double value(Fmt f, uint64_t bits) { return to_double(unpack(f, bits)); }

// For ordering results: a NaN can only come from overflow here (NaN inputs
// are excluded), and it keeps the sign of the input (docs/rounding.md rule
// 8), so it orders like that signed infinity.
double order_value(Fmt f, uint64_t bits) {
  const Unpacked u = unpack(f, bits);
  if (u.cls == Class::kNaN) {
    return u.sign ? -std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::infinity();
  }
  return to_double(u);
}

// Random finite-or-special f32 with weight on interesting exponents.
rc::Gen<uint32_t> f32_bits() {
  return rc::gen::oneOf(
      rc::gen::arbitrary<uint32_t>(),
      rc::gen::map(rc::gen::pair(rc::gen::inRange(-20, 20),
                                 rc::gen::arbitrary<uint32_t>()),
                   [](std::pair<int, uint32_t> p) {
                     // Exponents near the narrow formats' ranges.
                     const uint32_t e = static_cast<uint32_t>(127 + p.first);
                     return (p.second & 0x807FFFFFu) | (e << 23);
                   }));
}

Fmt pick_format(int i) { return kNarrow[static_cast<size_t>(i) % 10]; }

}  // namespace

TEST_CASE("every encoding survives decode then encode", "[properties]") {
  for (Fmt f : kNarrow) {
    for (uint64_t b : all_encodings(f)) {
      if (f == Fmt::kUE4M3 && b > 0x7F) continue;  // no sign bit to keep
      const Unpacked u = unpack(f, b);
      const uint64_t w = convert(f, Fmt::kF32, b);
      const uint64_t back = convert(Fmt::kF32, f, w);
      INFO(desc(f).name << " " << b);
      if (u.cls == Class::kNaN) {
        CHECK(back == canonical_nan(f));
      } else {
        CHECK(back == b);
      }
    }
  }
}

TEST_CASE("conversion properties", "[properties]") {
  rc::prop("monotone in every deterministic mode",
           [](uint32_t a0, uint32_t b0, int fi, int mi) {
             const uint32_t a = a0;
             const float x = std::bit_cast<float>(a);
             const float y = std::bit_cast<float>(b0);
             RC_PRE(std::isfinite(x) && std::isfinite(y));
             const Fmt f = pick_format(fi);
             // Unsigned formats take |x| (rounding.md rule 2).
             RC_PRE(desc(f).has_sign || (!std::signbit(x) && !std::signbit(y)));
             RoundSpec r;
             r.mode = kDeterministic[static_cast<size_t>(mi) % 6];
             const double vx = order_value(f, convert(Fmt::kF32, f, a, r));
             const double vy = order_value(f, convert(Fmt::kF32, f, b0, r));
             if (x <= y) {
               RC_ASSERT(vx <= vy);
             } else {
               RC_ASSERT(vx >= vy);
             }
           });

  rc::prop("RD(x) <= x <= RU(x)", [](int fi) {
    const uint32_t a = *f32_bits();
    const double x = std::bit_cast<float>(a);
    RC_PRE(std::isfinite(x));
    const Fmt f = pick_format(fi);
    RC_PRE(desc(f).has_sign || x >= 0);
    RoundSpec up, down;
    up.mode = Round::kRU;
    down.mode = Round::kRD;
    const double vu = order_value(f, convert(Fmt::kF32, f, a, up));
    const double vd = order_value(f, convert(Fmt::kF32, f, a, down));
    if (f == Fmt::kE8M0 || f == Fmt::kInt8 || !desc(f).has_inf()) {
      // Clamping formats: the bound holds inside their finite range.
      const double mx = value(f, max_finite_bits(f, false));
      RC_PRE(std::fabs(x) <= mx);
      RC_PRE(f != Fmt::kE8M0 || x >= std::ldexp(1.0, -127));
      RC_PRE(f != Fmt::kInt8 || x >= -2.0);
    }
    RC_ASSERT(vd <= x);
    RC_ASSERT(x <= vu);
  });

  rc::prop("sign symmetry", [](int fi, int mi) {
    const uint32_t a = *f32_bits();
    const Fmt f = pick_format(fi);
    RC_PRE(desc(f).has_sign && f != Fmt::kInt8);  // int8 range is asymmetric
    RC_PRE(!std::isnan(std::bit_cast<float>(a)));
    const uint32_t na = a ^ 0x80000000u;
    const uint64_t s = desc(f).sign_mask();
    RoundSpec r;
    r.mode = kDeterministic[static_cast<size_t>(mi) % 6];
    if (r.mode == Round::kRU || r.mode == Round::kRD) {
      RoundSpec o = r;
      o.mode = r.mode == Round::kRU ? Round::kRD : Round::kRU;
      RC_ASSERT(convert(Fmt::kF32, f, na, r) == (convert(Fmt::kF32, f, a, o) ^ s));
    } else {
      RC_ASSERT(convert(Fmt::kF32, f, na, r) == (convert(Fmt::kF32, f, a, r) ^ s));
    }
  });

  rc::prop("saturation never produces NaN or Inf", [](int fi, int mi) {
    const uint32_t a = *f32_bits();
    RC_PRE(!std::isnan(std::bit_cast<float>(a)));
    const Fmt f = pick_format(fi);
    RoundSpec r;
    r.mode = kDeterministic[static_cast<size_t>(mi) % 6];
    r.overflow = Overflow::kSatFinite;
    const Unpacked u = unpack(f, convert(Fmt::kF32, f, a, r));
    RC_ASSERT(u.cls != Class::kNaN);
    RC_ASSERT(u.cls != Class::kInf);
  });

  rc::prop("stochastic rounding returns a neighbour of RZ and RU/RD",
           [](int fi, uint32_t rbits) {
             const uint32_t a = *f32_bits();
             RC_PRE(!std::isnan(std::bit_cast<float>(a)));
             const Fmt f = pick_format(fi);
             RoundSpec sr, rz, away;
             sr.mode = Round::kSR;
             sr.rbits = rbits;
             rz.mode = Round::kRZ;
             const bool neg = desc(f).has_sign && (a >> 31) != 0;
             away.mode = neg ? Round::kRD : Round::kRU;
             const uint64_t got = convert(Fmt::kF32, f, a, sr);
             RC_ASSERT(got == convert(Fmt::kF32, f, a, rz) ||
                       got == convert(Fmt::kF32, f, a, away));
           });
}
