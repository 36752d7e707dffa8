// Tests of the exact reference (conformance/oracle/exact_oracle.*) ITSELF,
// against values derived by hand from the format specifications, so that it
// can be trusted as the yardstick for the emulator. Sources:
//  [OFP8]  OCP 8-bit Floating Point Specification (OFP8) Rev 1.0, table of
//          E4M3/E5M2 parameters (bias, max normal, min normal/subnormal,
//          NaN/Inf encodings) and its conversion section (saturation mode).
//  [MX]    OCP Microscaling Formats (MX) Specification v1.0: FP6 (E2M3,
//          E3M2) and FP4 (E2M1) element tables, E8M0 scale (bias 127,
//          2^-127..2^127, 0xFF NaN, no zero), INT8 element (two's
//          complement with an implicit scale of 2^-6).
//  [754]   IEEE 754-2019 §4.3 (rounding-direction attributes), §7.4
//          (overflow), binary16 (max 65504, min subnormal 2^-24).
//  [RULES] docs/rounding.md, rules 1..8 (the normative definition).
// Derivations are spelled out next to each pinned value.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "conformance/oracle/exact_oracle.h"
#include "compiler_half.h"

using mxc::oracle::exact_convert;
using mxc::oracle::exact_value;
using mxc::oracle::Mode;
using mxc::oracle::neighbours;
using mxc::oracle::Spec;

namespace {

uint64_t f32(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t f64(double d) { return std::bit_cast<uint64_t>(d); }

Spec spec(Mode m, bool sat = false, bool relu = false) {
  Spec s;
  s.mode = m;
  s.saturate = sat;
  s.relu = relu;
  return s;
}

Spec sr(uint32_t r, int k) {
  Spec s;
  s.mode = Mode::SR;
  s.rbits = r;
  s.sr_bits = k;
  return s;
}

uint64_t cv(const char* to, float x, const Spec& s = Spec{}) {
  return exact_convert("f32", to, f32(x), s);
}
uint64_t cvd(const char* to, double x, const Spec& s = Spec{}) {
  return exact_convert("f64", to, f64(x), s);
}

// Exact value string -> double (exact for every value these tests compare:
// numerators below 2^53, power-of-two denominators).
double to_double(const std::string& v) {
  if (v == "NaN") return std::nan("");
  if (v == "+Inf") return INFINITY;
  if (v == "-Inf") return -INFINITY;
  const auto slash = v.find('/');
  if (slash == std::string::npos) return std::stod(v);
  return std::stod(v.substr(0, slash)) / std::stod(v.substr(slash + 1));
}

}  // namespace

TEST_CASE("oracle decodes the spec tables", "[oracle][decode]") {
  // [OFP8] E4M3: max normal S.1111.110 = 1.75*2^8 = 448, min normal
  // S.0001.000 = 2^-6, max subnormal 0.875*2^-6, min subnormal 2^-9,
  // NaN only S.1111.111.
  CHECK(exact_value("e4m3", 0x7E) == "448");
  CHECK(exact_value("e4m3", 0xFE) == "-448");
  CHECK(exact_value("e4m3", 0x08) == "1/64");
  CHECK(exact_value("e4m3", 0x07) == "7/512");
  CHECK(exact_value("e4m3", 0x01) == "1/512");
  CHECK(exact_value("e4m3", 0x78) == "256");
  CHECK(exact_value("e4m3", 0x7F) == "NaN");
  CHECK(exact_value("e4m3", 0xFF) == "NaN");
  CHECK(exact_value("e4m3", 0x80) == "-0");
  CHECK(exact_value("e4m3", 0x00) == "0");
  // [OFP8] E5M2: max normal S.11110.11 = 1.75*2^15 = 57344, min normal
  // 2^-14, min subnormal 2^-16, Inf S.11111.00, NaN S.11111.{01,10,11}.
  CHECK(exact_value("e5m2", 0x7B) == "57344");
  CHECK(exact_value("e5m2", 0x04) == "1/16384");
  CHECK(exact_value("e5m2", 0x01) == "1/65536");
  CHECK(exact_value("e5m2", 0x7C) == "+Inf");
  CHECK(exact_value("e5m2", 0xFC) == "-Inf");
  for (uint64_t b : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}) {
    CHECK(exact_value("e5m2", b) == "NaN");
  }
  // [MX] FP6 E3M2: bias 3, max 1.75*2^4 = 28, min normal 2^-2, max
  // subnormal 0.75*2^-2, min subnormal 0.25*2^-2 = 2^-4; no Inf/NaN.
  CHECK(exact_value("e3m2", 0x1F) == "28");
  CHECK(exact_value("e3m2", 0x3F) == "-28");
  CHECK(exact_value("e3m2", 0x04) == "1/4");
  CHECK(exact_value("e3m2", 0x03) == "3/16");
  CHECK(exact_value("e3m2", 0x01) == "1/16");
  CHECK(exact_value("e3m2", 0x20) == "-0");
  // [MX] FP6 E2M3: bias 1, max 1.875*2^2 = 7.5, min normal 2^0, max
  // subnormal 0.875, min subnormal 0.125 = 2^-3.
  CHECK(exact_value("e2m3", 0x1F) == "15/2");
  CHECK(exact_value("e2m3", 0x08) == "1");
  CHECK(exact_value("e2m3", 0x07) == "7/8");
  CHECK(exact_value("e2m3", 0x01) == "1/8");
  // [MX] FP4 E2M1: the eight magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6.
  const char* e2m1[8] = {"0", "1/2", "1", "3/2", "2", "3", "4", "6"};
  for (uint64_t b = 0; b < 8; ++b) {
    CHECK(exact_value("e2m1", b) == e2m1[b]);
    if (b != 0) CHECK(exact_value("e2m1", b | 8) == std::string("-") + e2m1[b]);
  }
  CHECK(exact_value("e2m1", 0x8) == "-0");
  // [MX] E8M0: 2^(b-127), 0x00 = 2^-127, 0xFE = 2^127, 0xFF = NaN.
  CHECK(exact_value("e8m0", 0x7F) == "1");
  CHECK(exact_value("e8m0", 0x80) == "2");
  CHECK(exact_value("e8m0", 0x7E) == "1/2");
  CHECK(exact_value("e8m0", 0xFE) == "170141183460469231731687303715884105728");
  CHECK(exact_value("e8m0", 0x00) ==
        "1/170141183460469231731687303715884105728");
  CHECK(exact_value("e8m0", 0xFF) == "NaN");
  // ue4m3 ([RULES] formats): E4M3 magnitude in the low 7 bits, bit 7
  // ignored on input, 0x7F NaN.
  CHECK(exact_value("ue4m3", 0x7E) == "448");
  CHECK(exact_value("ue4m3", 0xFE) == "448");
  CHECK(exact_value("ue4m3", 0x01) == "1/512");
  CHECK(exact_value("ue4m3", 0x7F) == "NaN");
  // [MX] INT8: i * 2^-6, -2 .. 127/64.
  CHECK(exact_value("int8", 0x40) == "1");
  CHECK(exact_value("int8", 0x7F) == "127/64");
  CHECK(exact_value("int8", 0x80) == "-2");
  CHECK(exact_value("int8", 0x01) == "1/64");
  CHECK(exact_value("int8", 0xFF) == "-1/64");
  CHECK(exact_value("int8", 0x00) == "0");
  // [754] binary16 / bfloat16 / binary32 / binary64.
  CHECK(exact_value("f16", 0x7BFF) == "65504");
  CHECK(exact_value("f16", 0x0001) == "1/16777216");
  CHECK(exact_value("f16", 0x3C00) == "1");
  CHECK(exact_value("f16", 0x7C00) == "+Inf");
  CHECK(exact_value("f16", 0x7E00) == "NaN");
  CHECK(exact_value("bf16", 0x3F80) == "1");
  CHECK(exact_value("bf16", 0xC040) == "-3");
  CHECK(exact_value("f32", f32(0.1f)) == "13421773/134217728");
  CHECK(exact_value("f64", f64(-0.75)) == "-3/4");
  // Smallest binary64 subnormal 2^-1074 (2^1074 has 324 decimal digits).
  const std::string tiny = exact_value("f64", 1);
  CHECK(tiny.rfind("1/2024022533", 0) == 0);
  CHECK(tiny.size() == 2 + 324);
}

TEST_CASE("oracle pinned conversions from the brief", "[oracle][pinned]") {
  // 464 is the midpoint of 448 (1.110*2^8, even) and 480 (1.111*2^8, odd,
  // beyond M in the extended set): RNE ties to 448 = 0x7E. [RULES] 6, 8.
  CHECK(cv("e4m3", 464.0f) == 0x7E);
  // 465 is nearer 480 > M: non-saturating RNE overflows; E4M3 has no Inf,
  // so NaN 0x7F. [OFP8] conversion, [RULES] 8.
  CHECK(cv("e4m3", 465.0f) == 0x7F);
  CHECK(cv("e4m3", 465.0f, spec(Mode::RNE, true)) == 0x7E);
  // 61440 is the midpoint of 57344 (1.11*2^15, odd) and 65536 (2^16, even):
  // RNE picks 65536 > M -> Inf 0x7C. [754] 7.4.
  CHECK(cv("e5m2", 61440.0f) == 0x7C);
  CHECK(cv("e5m2", 61440.0f, spec(Mode::RNE, true)) == 0x7B);
  CHECK(cv("e5m2", 61439.0f) == 0x7B);
  // 0.25000006f is just above the midpoint 0.25 of 0 and 0.5 -> 0.5 = 0x1.
  CHECK(cv("e2m1", 0.25000006f) == 0x1);
  CHECK(cv("e2m1", 0.25f) == 0x0);  // exact tie -> 0 (even)
  // -431.99999999999994 lies just inside the midpoint 432 of 416 (1.101*2^8)
  // and 448: nearest is -416 = S.1111.101 = 0xFD.
  CHECK(cvd("e4m3", -431.99999999999994) == 0xFD);
  CHECK(cvd("e4m3", -432.0) == 0xFE);  // tie: 448 (m=110) is even
}

TEST_CASE("oracle NaN handling (rule 1)", "[oracle][special]") {
  const uint64_t qnan = 0x7FC00000, snan_neg = 0xFF800001;
  for (uint64_t b : {qnan, snan_neg}) {
    for (bool relu : {false, true}) {
      for (bool sat : {false, true}) {
        const Spec s = spec(Mode::RNE, sat, relu);
        CHECK(exact_convert("f32", "e4m3", b, s) == 0x7F);
        CHECK(exact_convert("f32", "e5m2", b, s) == 0x7F);
        CHECK(exact_convert("f32", "ue4m3", b, s) == 0x7F);
        CHECK(exact_convert("f32", "e8m0", b, s) == 0xFF);
        CHECK(exact_convert("f32", "f16", b, s) == 0x7FFF);
        CHECK(exact_convert("f32", "bf16", b, s) == 0x7FFF);
        CHECK(exact_convert("f32", "e2m1", b, s) == 0x7);
        CHECK(exact_convert("f32", "e2m3", b, s) == 0x1F);
        CHECK(exact_convert("f32", "e3m2", b, s) == 0x1F);
        CHECK(exact_convert("f32", "int8", b, s) == 0x7F);
      }
    }
  }
  CHECK(exact_convert("e4m3", "f16", 0xFF, Spec{}) == 0x7FFF);
  CHECK(exact_convert("e8m0", "bf16", 0xFF, Spec{}) == 0x7FFF);
  CHECK(exact_convert("e5m2", "e2m1", 0xFD, Spec{}) == 0x7);
}

TEST_CASE("oracle infinity handling (rule 5)", "[oracle][special]") {
  const Spec ne = Spec{}, sat = spec(Mode::RNE, true);
  CHECK(cv("e4m3", INFINITY, ne) == 0x7F);  // no Inf -> NaN
  CHECK(cv("e4m3", -INFINITY, ne) == 0xFF);  // the NaN keeps the sign (rule 5)
  CHECK(cv("e4m3", -INFINITY, sat) == 0xFE);
  CHECK(cv("e5m2", INFINITY, ne) == 0x7C);
  CHECK(cv("e5m2", -INFINITY, ne) == 0xFC);
  CHECK(cv("e5m2", -INFINITY, sat) == 0xFB);
  CHECK(cv("e2m1", INFINITY, ne) == 0x7);  // no Inf, no NaN -> max
  CHECK(cv("e2m1", -INFINITY, ne) == 0xF);
  CHECK(cv("e3m2", -INFINITY, ne) == 0x3F);
  CHECK(cv("e2m3", INFINITY, ne) == 0x1F);
  CHECK(cv("e8m0", INFINITY, ne) == 0xFF);
  CHECK(cv("e8m0", INFINITY, sat) == 0xFE);
  CHECK(cv("e8m0", -INFINITY, sat) == 0xFE);  // rule 2: sign ignored
  CHECK(cv("ue4m3", -INFINITY, ne) == 0x7F);
  CHECK(cv("ue4m3", -INFINITY, sat) == 0x7E);
  CHECK(cv("int8", INFINITY, ne) == 0x7F);
  CHECK(cv("int8", -INFINITY, ne) == 0x80);  // int8 saturates (rule 8)
  CHECK(cv("f16", INFINITY, ne) == 0x7C00);
  CHECK(cv("f16", -INFINITY, sat) == 0xFBFF);
  CHECK(cv("bf16", -INFINITY, ne) == 0xFF80);
  // Directed modes do not change an infinite input (only saturate does).
  CHECK(cv("e5m2", INFINITY, spec(Mode::RZ)) == 0x7C);
}

TEST_CASE("oracle zeros and relu (rules 2-4)", "[oracle][special]") {
  CHECK(cv("e4m3", -0.0f) == 0x80);
  CHECK(cv("e5m2", -0.0f) == 0x80);
  CHECK(cv("e2m1", -0.0f) == 0x8);
  CHECK(cv("e3m2", -0.0f) == 0x20);
  CHECK(cv("e2m3", -0.0f) == 0x20);
  CHECK(cv("f16", -0.0f) == 0x8000);
  CHECK(cv("int8", -0.0f) == 0x00);
  CHECK(cv("e8m0", 0.0f) == 0x00);
  CHECK(cv("e8m0", -0.0f) == 0x00);
  CHECK(cv("ue4m3", -0.0f) == 0x00);
  const Spec relu = spec(Mode::RNE, false, true);
  CHECK(cv("e4m3", -0.0f, relu) == 0x00);
  CHECK(cv("e4m3", -1.0f, relu) == 0x00);
  CHECK(cv("e4m3", -1e-30f, relu) == 0x00);
  CHECK(cv("e5m2", -INFINITY, relu) == 0x00);
  CHECK(cv("int8", -1.0f, relu) == 0x00);
  CHECK(cv("e2m1", 1.0f, relu) == 0x2);
  // Unsigned targets drop the sign before relu (rule 2).
  CHECK(cv("e8m0", -4.0f, relu) == 0x81);
  CHECK(cv("ue4m3", -448.0f, relu) == 0x7E);
}

TEST_CASE("oracle directed rounding and overflow (rules 6, 8)",
          "[oracle][overflow]") {
  // [754] 7.4: RZ and the directed mode pointing toward zero give +-M.
  CHECK(cv("e4m3", 1000.0f, spec(Mode::RZ)) == 0x7E);
  CHECK(cv("e4m3", 1000.0f, spec(Mode::RD)) == 0x7E);
  CHECK(cv("e4m3", 1000.0f, spec(Mode::RU)) == 0x7F);
  CHECK(cv("e4m3", -1000.0f, spec(Mode::RU)) == 0xFE);
  CHECK(cv("e4m3", -1000.0f, spec(Mode::RD)) == 0xFF);  // negative overflow: NaN keeps the sign (rule 8)
  CHECK(cv("e4m3", 1000.0f, spec(Mode::Odd)) == 0x7E);
  CHECK(cv("e4m3", 1000.0f, spec(Mode::RNA)) == 0x7F);
  CHECK(cv("e5m2", 1e6f) == 0x7C);
  CHECK(cv("e5m2", 1e6f, spec(Mode::RZ)) == 0x7B);
  CHECK(cv("e5m2", -1e6f, spec(Mode::RD)) == 0xFC);
  CHECK(cv("e5m2", -1e6f, spec(Mode::RU)) == 0xFB);
  CHECK(cv("e5m2", 57345.0f, spec(Mode::RU)) == 0x7C);
  CHECK(cv("e5m2", 57345.0f, spec(Mode::RU, true)) == 0x7B);
  // 480 is in the extended set (1.111*2^8) but > M.
  CHECK(cv("e4m3", 480.0f) == 0x7F);
  CHECK(cv("e4m3", 480.0f, spec(Mode::RZ)) == 0x7E);
  CHECK(cv("e4m3", 449.0f, spec(Mode::RU)) == 0x7F);
  CHECK(cv("e4m3", 449.0f, spec(Mode::RD)) == 0x7E);
  // e2m1: 7 is the tie of 6 (1.1*2^2, odd) and 8 (even) -> 8 > M; no
  // Inf/NaN -> 6. Any magnitude -> 6.
  CHECK(cv("e2m1", 7.0f) == 0x7);
  CHECK(cv("e2m1", -100.0f) == 0xF);
  CHECK(cv("e3m2", 1e9f, spec(Mode::RU)) == 0x1F);
  // [754] binary16: overflow threshold 65520 (midpoint of 65504 and 2^16).
  CHECK(cv("f16", 65519.0f) == 0x7BFF);
  CHECK(cv("f16", 65520.0f) == 0x7C00);
  CHECK(cv("f16", -65520.0f, spec(Mode::RZ)) == 0xFBFF);
  CHECK(cv("bf16", 3.4e38f) == 0x7F80);  // above (2-2^-8)*2^127
  CHECK(cv("bf16", 3.389e38f) == 0x7F7F);  // max (2-2^-7)*2^127
  CHECK(cv("bf16", 3.38e38f) == 0x7F7E);   // below the midpoint 3.3829e38
  // Odd: 500 truncates to 480 (odd) > M -> M.
  CHECK(cv("e4m3", 500.0f, spec(Mode::Odd)) == 0x7E);
}

TEST_CASE("oracle subnormals, ties and signed zero results (rule 6)",
          "[oracle][ties]") {
  const float h = std::ldexp(1.0f, -10);  // half the E4M3 min subnormal 2^-9
  CHECK(cv("e4m3", h) == 0x00);           // tie 0 (even) vs 2^-9 (odd)
  CHECK(cv("e4m3", -h) == 0x80);          // zero keeps the sign
  CHECK(cv("e4m3", h, spec(Mode::RNA)) == 0x01);
  CHECK(cv("e4m3", -h, spec(Mode::RNA)) == 0x81);
  CHECK(cv("e4m3", h, spec(Mode::RU)) == 0x01);
  CHECK(cv("e4m3", -h, spec(Mode::RU)) == 0x80);
  CHECK(cv("e4m3", -h, spec(Mode::RD)) == 0x81);
  CHECK(cv("e4m3", -h, spec(Mode::RZ)) == 0x80);
  CHECK(cv("e4m3", h, spec(Mode::Odd)) == 0x01);
  CHECK(cv("e4m3", 3 * h) == 0x02);                     // 1.5 units: 2 even
  CHECK(cv("e4m3", 3 * h, spec(Mode::Odd)) == 0x01);    // 1 unit is odd
  CHECK(cv("e4m3", 1.5f * h) == 0x01);                  // 0.75 units
  CHECK(cv("e4m3", 15 * h) == 0x08);  // 7.5 units: tie 7 (odd) / 2^-6 (even)
  // e5m2 below 2^-16: tiny values.
  CHECK(cv("e5m2", 1e-30f) == 0x00);
  CHECK(cv("e5m2", -1e-30f, spec(Mode::RD)) == 0x81);
  // [754] binary16: 2^-25 is the tie between 0 and 2^-24.
  CHECK(cv("f16", std::ldexp(1.0f, -25)) == 0x0000);
  CHECK(cv("f16", std::nextafter(std::ldexp(1.0f, -25), 1.0f)) == 0x0001);
  // bfloat16 ties in the normal range: 1+2^-8 -> 1 (even), 1+3*2^-8 -> even.
  CHECK(cv("bf16", 1.00390625f) == 0x3F80);
  CHECK(cv("bf16", 1.01171875f) == 0x3F82);
  CHECK(cv("bf16", 1.01171875f, spec(Mode::RZ)) == 0x3F81);
  // e2m3 and e3m2 midpoints.
  CHECK(cv("e2m3", 7.25f) == 0x1E);   // 7.0 (m=110) even vs 7.5 (m=111)
  CHECK(cv("e2m3", 7.3f) == 0x1F);
  CHECK(cv("e3m2", 26.0f) == 0x1E);   // 24 (m=10) even vs 28 (m=11)
  CHECK(cv("e3m2", 30.0f) == 0x1F);   // 28 odd vs 32 even > M -> max
  CHECK(cv("e3m2", 0.03125f) == 0x00);  // 2^-5: tie 0 / 2^-4
  CHECK(cv("e3m2", -0.03125f, spec(Mode::RNA)) == 0x21);
}

TEST_CASE("oracle e8m0 target (rules 2, 7)", "[oracle][e8m0]") {
  const double t128 = std::ldexp(1.0, -128);
  CHECK(cvd("e8m0", t128, spec(Mode::RU)) == 0x00);
  CHECK(cvd("e8m0", t128, spec(Mode::RZ)) == 0x00);
  CHECK(cvd("e8m0", t128) == 0x00);
  CHECK(cvd("e8m0", std::ldexp(1.0, -200), spec(Mode::RU)) == 0x00);
  CHECK(cvd("e8m0", std::ldexp(1.0, -127)) == 0x00);
  CHECK(cv("e8m0", 1.0f) == 0x7F);
  CHECK(cv("e8m0", -4.0f) == 0x81);
  CHECK(cv("e8m0", 1.4f) == 0x7F);
  CHECK(cv("e8m0", 1.6f) == 0x80);
  CHECK(cv("e8m0", 1.4f, spec(Mode::RU)) == 0x80);
  CHECK(cv("e8m0", 1.6f, spec(Mode::RZ)) == 0x7F);
  CHECK(cv("e8m0", 1.6f, spec(Mode::RD)) == 0x7F);
  // Ties: the candidate with the even biased exponent (encoding LSB 0).
  CHECK(cv("e8m0", 3.0f) == 0x80);   // 2 (0x80) vs 4 (0x81)
  CHECK(cv("e8m0", 1.5f) == 0x80);   // 1 (0x7F) vs 2 (0x80)
  CHECK(cv("e8m0", 3.0f, spec(Mode::RNA)) == 0x81);
  CHECK(cv("e8m0", 3.0f, spec(Mode::Odd)) == 0x81);
  // Overflow: 2^128 is in the extended set, > M = 2^127.
  const double t = std::ldexp(1.0, 128);
  CHECK(cvd("e8m0", t) == 0xFF);
  CHECK(cvd("e8m0", t, spec(Mode::RNE, true)) == 0xFE);
  CHECK(cvd("e8m0", t, spec(Mode::RZ)) == 0xFE);
  CHECK(cvd("e8m0", t, spec(Mode::RD)) == 0xFE);
  CHECK(cvd("e8m0", 1.4 * std::ldexp(1.0, 127)) == 0xFE);
  CHECK(cvd("e8m0", 1.6 * std::ldexp(1.0, 127)) == 0xFF);
  CHECK(cvd("e8m0", 1.1 * std::ldexp(1.0, 127), spec(Mode::RU)) == 0xFF);
}

TEST_CASE("oracle int8 target (rules 4, 6, 8)", "[oracle][int8]") {
  const float q = 1.0f / 64;
  CHECK(cv("int8", 1.0f) == 0x40);
  CHECK(cv("int8", -2.0f) == 0x80);
  CHECK(cv("int8", 2.0f) == 0x7F);
  CHECK(cv("int8", -3.0f) == 0x80);
  CHECK(cv("int8", 127 * q) == 0x7F);
  CHECK(cv("int8", 0.5f * q) == 0x00);  // tie 0 (even) / 1
  CHECK(cv("int8", -0.5f * q) == 0x00);  // no -0
  CHECK(cv("int8", 0.5f * q, spec(Mode::RNA)) == 0x01);
  CHECK(cv("int8", -0.5f * q, spec(Mode::RNA)) == 0xFF);
  CHECK(cv("int8", 1.5f * q) == 0x02);
  CHECK(cv("int8", 2.5f * q) == 0x02);
  CHECK(cv("int8", -1.9f * q, spec(Mode::RZ)) == 0xFF);
  CHECK(cv("int8", -0.1f * q, spec(Mode::RD)) == 0xFF);
  CHECK(cv("int8", -0.1f * q, spec(Mode::RU)) == 0x00);
  CHECK(cv("int8", 0.3f * q, spec(Mode::Odd)) == 0x01);
  CHECK(cv("int8", 2.3f * q, spec(Mode::Odd)) == 0x03);
  CHECK(cv("int8", 127.5f * q) == 0x7F);    // -> 128, saturates
  CHECK(cv("int8", -128.5f * q) == 0x80);   // -> -128 (even)
  CHECK(cv("int8", -129.5f * q) == 0x80);   // -> -130, saturates
  CHECK(cv("int8", 1e30f, spec(Mode::RNE)) == 0x7F);
}

TEST_CASE("oracle stochastic rounding and neighbours", "[oracle][sr]") {
  // 1.25 lies halfway between 1 (0x2) and 1.5 (0x3) in e2m1: f = 1/2.
  CHECK(cv("e2m1", 1.25f, sr(0, 1)) == 0x2);  // floor(1/2*2)+0 = 1 < 2
  CHECK(cv("e2m1", 1.25f, sr(1, 1)) == 0x3);  // 1+1 >= 2
  CHECK(cv("e2m1", 1.25f, sr(127, 8)) == 0x2);
  CHECK(cv("e2m1", 1.25f, sr(128, 8)) == 0x3);
  CHECK(cv("e2m1", 1.25f, sr(0x100 | 127, 8)) == 0x2);  // r masked to k bits
  CHECK(cv("e2m1", -1.25f, sr(128, 8)) == 0xB);  // away from zero
  CHECK(cv("e2m1", -1.25f, sr(127, 8)) == 0xA);
  CHECK(cv("e2m1", 1.5f, sr(0xFFFFFFFF, 32)) == 0x3);  // exact: unchanged
  // 1.1f = 9227469/2^23; f = (x-1)/0.5 = 838861/4194304; floor(f*2^8) = 51,
  // so exactly 51 of the 256 values of r round away.
  int away = 0;
  for (uint32_t r = 0; r < 256; ++r) away += cv("e2m1", 1.1f, sr(r, 8)) == 0x3;
  CHECK(away == 51);
  auto n = neighbours("f32", "e2m1", f32(1.1f), sr(0, 8));
  CHECK(n.lo_bits == 0x2);
  CHECK(n.hi_bits == 0x3);
  CHECK(n.frac == "838861/4194304");
  CHECK_FALSE(n.exact);
  n = neighbours("f32", "e2m1", f32(-1.25f), sr(0, 8));
  CHECK(n.lo_bits == 0xB);  // -1.5
  CHECK(n.hi_bits == 0xA);  // -1
  CHECK(n.frac == "1/2");
  n = neighbours("f32", "e2m1", f32(-3.75f), Spec{});
  CHECK(n.lo_bits == 0xE);  // -4
  CHECK(n.hi_bits == 0xD);  // -3
  CHECK(n.frac == "1/4");   // (x - (-4)) / (-3 - (-4))
  n = neighbours("f32", "e2m1", f32(3.0f), Spec{});
  CHECK(n.exact);
  CHECK(n.lo_bits == 0x5);
  CHECK(n.hi_bits == 0x5);
  CHECK(n.frac == "0/1");
  // Beyond M: 470 between 448 and 480 (f = 22/32 = 11/16); the hi candidate
  // encodes as NaN without saturation, as 448 with it.
  CHECK(cv("e4m3", 470.0f, sr(4, 4)) == 0x7E);  // 11 + 4 < 16
  CHECK(cv("e4m3", 470.0f, sr(5, 4)) == 0x7F);  // 11 + 5 >= 16
  Spec s = sr(5, 4);
  s.saturate = true;
  CHECK(cv("e4m3", 470.0f, s) == 0x7E);
  n = neighbours("f32", "e4m3", f32(470.0f), sr(0, 4));
  CHECK(n.lo_bits == 0x7E);
  CHECK(n.hi_bits == 0x7F);
  CHECK(n.frac == "11/16");
  // e8m0 below 2^-127: candidates 0 (virtual, clamps to 0x00) and 2^-127.
  n = neighbours("f64", "e8m0", f64(std::ldexp(1.0, -128)), sr(0, 8));
  CHECK(n.lo_bits == 0x00);
  CHECK(n.hi_bits == 0x00);
  CHECK(n.frac == "1/2");
  // relu on a negative input: forced, exact.
  n = neighbours("f32", "e4m3", f32(-1.1f), spec(Mode::SR, false, true));
  CHECK(n.exact);
  CHECK(n.lo_bits == 0x00);
}

TEST_CASE("oracle argument checking", "[oracle]") {
  CHECK_THROWS_AS(exact_convert("f16", "f32", 0, Spec{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(exact_convert("f16", "f64", 0, Spec{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(exact_convert("fp8", "e4m3", 0, Spec{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(exact_convert("f32", "e4m3", 0, sr(0, 0)),
                  std::invalid_argument);
  CHECK_THROWS_AS(exact_convert("f32", "e4m3", 0, sr(0, 33)),
                  std::invalid_argument);
  CHECK(mxc::oracle::known_format("ue4m3"));
  CHECK_FALSE(mxc::oracle::known_format("e4m3fn"));
  // Inputs are masked to the storage width.
  CHECK(exact_value("e2m1", 0xF2) == "1");
}

TEST_CASE("oracle agrees with IEEE hardware/compiler conversions",
          "[oracle][ieee]") {
  std::mt19937_64 g(0xC0FFEE);
  std::vector<uint32_t> in;
  for (uint32_t b : {0x00000000u, 0x80000000u, 0x7F7FFFFFu, 0x00000001u,
                     0x477FEFFFu, 0x477FF000u, 0x33000000u, 0x33000001u,
                     0x3F808000u, 0x3F818000u, 0x7F7F8000u, 0x7F7F7FFFu}) {
    in.push_back(b);
  }
  for (int i = 0; i < 20000; ++i) in.push_back(static_cast<uint32_t>(g()));
  // Values near the f16 range, where most f32 patterns are not.
  for (int i = 0; i < 20000; ++i) {
    const uint32_t e = 100 + static_cast<uint32_t>(g() % 45);  // 2^-27..2^17
    in.push_back(static_cast<uint32_t>(g() & 0x807FFFFF) | (e << 23));
  }
  for (uint32_t b : in) {
    const float x = std::bit_cast<float>(b);
    if (std::isnan(x)) continue;
    // bfloat16 RNE by the well-known carry trick on the f32 bits.
    const uint32_t bf =
        static_cast<uint32_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
    INFO("f32 bits " << std::hex << b);
    REQUIRE(exact_convert("f32", "bf16", b, Spec{}) == bf);
    // bf16 RZ is plain truncation of the f32 bits (finite inputs).
    REQUIRE(exact_convert("f32", "bf16", b, spec(Mode::RZ)) == (b >> 16));
#if MXC_HAVE_COMPILER_HALF
    // binary16 RNE by the compiler (libgcc __truncsfhf2 / F16C).
    const CompilerHalf hf = static_cast<CompilerHalf>(x);
    REQUIRE(exact_convert("f32", "f16", b, Spec{}) ==
            std::bit_cast<uint16_t>(hf));
    const double xd = static_cast<double>(x) * 1.0000001;
    const CompilerHalf hd = static_cast<CompilerHalf>(xd);
    REQUIRE(exact_convert("f64", "f16", f64(xd), Spec{}) ==
            std::bit_cast<uint16_t>(hd));
#endif
  }
#if MXC_HAVE_COMPILER_HALF
  // Decoding: every f16 value, widened by the compiler, has the same exact
  // value as the oracle's own f16 decode.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float w = static_cast<float>(
        std::bit_cast<CompilerHalf>(static_cast<uint16_t>(h)));
    if (std::isnan(w)) continue;
    REQUIRE(exact_value("f16", h) == exact_value("f32", f32(w)));
  }
#else
  WARN("this compiler has no binary16 type (tests/compiler_half.h): the f16 "
       "checks against it did not run");
#endif
}

TEST_CASE("oracle rounding-mode properties on random inputs",
          "[oracle][properties]") {
  // Within each target's finite range: RD(x) <= x <= RU(x), RD/RU are
  // adjacent or equal, RZ/RNE/RNA/Odd/SR pick one of them, RZ is the one of
  // smaller magnitude, and negation commutes with rounding (RU <-> RD).
  struct T {
    const char* name;
    double max;
    uint64_t sign;
  };
  const T targets[] = {{"e4m3", 448, 0x80}, {"e5m2", 57344, 0x80},
                       {"e3m2", 28, 0x20},  {"e2m3", 7.5, 0x20},
                       {"e2m1", 6, 0x8},    {"f16", 65504, 0x8000},
                       {"bf16", 3.38e38, 0x8000}};
  std::mt19937_64 g(12345);
  for (const T& t : targets) {
    for (int i = 0; i < 1500; ++i) {
      const double lg = std::log2(t.max) - 30.0 * std::ldexp(
          static_cast<double>(g() >> 11), -53);
      float x = static_cast<float>(std::exp2(lg));
      if (x > t.max) x = static_cast<float>(t.max);
      const uint64_t b = f32(x);
      INFO(t.name << " x=" << x);
      const uint64_t rd = exact_convert("f32", t.name, b, spec(Mode::RD));
      const uint64_t ru = exact_convert("f32", t.name, b, spec(Mode::RU));
      const double vd = to_double(exact_value(t.name, rd));
      const double vu = to_double(exact_value(t.name, ru));
      REQUIRE(vd <= x);
      REQUIRE(x <= vu);
      REQUIRE((rd == ru) == (vd == x));
      for (Mode m : {Mode::RZ, Mode::RNE, Mode::RNA, Mode::Odd, Mode::SR}) {
        Spec s = spec(m);
        s.rbits = static_cast<uint32_t>(g());
        const uint64_t r = exact_convert("f32", t.name, b, s);
        REQUIRE((r == rd || r == ru));
        if (m == Mode::RZ) REQUIRE(r == rd);
        REQUIRE(exact_convert("f32", t.name, f32(-x), s) == (r | t.sign));
      }
      REQUIRE(exact_convert("f32", t.name, f32(-x), spec(Mode::RU)) ==
              (rd | t.sign));
      REQUIRE(exact_convert("f32", t.name, f32(-x), spec(Mode::RD)) ==
              (ru | t.sign));
      // Nearest modes really are nearest.
      const uint64_t rn = exact_convert("f32", t.name, b, Spec{});
      const double vn = to_double(exact_value(t.name, rn));
      REQUIRE(std::fabs(vn - x) <= std::fabs(vd - x));
      REQUIRE(std::fabs(vn - x) <= std::fabs(vu - x));
    }
  }
}
