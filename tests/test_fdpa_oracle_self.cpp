// Tests of the FDPA reference model (conformance/oracle/fdpa_oracle.*) ITSELF,
// against the published worked examples, so that it can be trusted as the
// yardstick for the fast fixed-point FDPA. Sources:
//  [T8]    MMA-Sim paper v2 (Xie et al., arXiv:2511.10909v2), Eq. 10 /
//          Table 8, values as quoted by bksaiki/fpy examples/mmasim
//          (`table8_cases`); shared/research/tensor-core-numerics.md §6.
//  [TIE]   bksaiki/fpy examples/mmasim/validate_nv.py, the e_zero tie case
//          (checked there against MMA-Sim); research file §6.
//  [HFP8]  research file §2.1 / §6: Hopper FP8 accumulator truncation.
//  [SPEC]  research file §1.2 (special values, MMA-Sim `dpa_special_values`,
//          paper §4.2) and §1.3 step 4 (overflow to Inf even under RZ,
//          [S-FPy]).
//  [PARAM] research file §0 table (L, F, rho, e_zero per instruction).
// Bit patterns are derived by hand next to each case.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "conformance/oracle/fdpa_oracle.h"

using mxc::fdpa_oracle::exact_dot;
using mxc::fdpa_oracle::fdpa_chain;
using mxc::fdpa_oracle::Operands;
using mxc::fdpa_oracle::Params;
using mxc::fdpa_oracle::Rho;

namespace {

Params params(int L, int F, Rho rho, int e_zero, int G = 0) {
  Params p;
  p.L = L;
  p.G = G;
  p.F = F;
  p.rho = rho;
  p.e_zero = e_zero;
  return p;
}

// Operands with K = n; every element +0 until set.
Operands ops(const char* ab, const char* c_fmt, std::size_t n) {
  Operands o;
  o.a_fmt = ab;
  o.b_fmt = ab;
  o.c_fmt = c_fmt;
  o.a.assign(n, 0);
  o.b.assign(n, 0);
  return o;
}

// f32 patterns used below.
constexpr uint64_t kF32_2p23 = 0x4B000000;    // 2^23: biased 150 = 0x96
constexpr uint64_t kF32_m0_5 = 0xBF000000;    // -0.5
constexpr uint64_t kF32_m0_75 = 0xBF400000;   // -1.5 * 2^-1
constexpr uint64_t kF32_m0_875 = 0xBF600000;  // -1.75 * 2^-1
constexpr uint64_t kF32_one = 0x3F800000;
constexpr uint64_t kF32_nan = 0x7FFFFFFF;     // canonical NaN [SPEC]
constexpr uint64_t kF32_pinf = 0x7F800000;
constexpr uint64_t kF32_ninf = 0xFF800000;

// ---- [T8] d = 2^23 + (-2^13 * 2^10) + (-0.5) + (-0.25) + (-0.125) -------
// Products a*b: (-2^13)(2^10), (-0.5)(1), (-0.25)(1), (-0.125)(1); C = 2^23.
// f16: -2^13 = 0xF000 (E = 28), 2^10 = 0x6400 (E = 25), -0.5 = 0xB800,
//      -0.25 = 0xB400, -0.125 = 0xB000, 1.0 = 0x3C00.
Operands table8_f16(std::size_t K) {
  Operands o = ops("f16", "f32", K);
  const uint64_t a[4] = {0xF000, 0xB800, 0xB400, 0xB000};
  const uint64_t b[4] = {0x6400, 0x3C00, 0x3C00, 0x3C00};
  for (int i = 0; i < 4; ++i) {
    o.a[i] = a[i];
    o.b[i] = b[i];
  }
  o.c = kF32_2p23;
  return o;
}

// e5m2 (1/5/2, bias 15): -2^13 = 0xF0 (E = 28 -> 0x70), 2^10 = 0x64 (E = 25),
// -0.5 = 0xB8 (E = 14), -0.25 = 0xB4, -0.125 = 0xB0, 1.0 = 0x3C. All the
// Table 8 values are powers of two inside e5m2's range, so no scale is needed.
Operands table8_e5m2(std::size_t K) {
  Operands o = ops("e5m2", "f32", K);
  const uint64_t a[4] = {0xF0, 0xB8, 0xB4, 0xB0};
  const uint64_t b[4] = {0x64, 0x3C, 0x3C, 0x3C};
  for (int i = 0; i < 4; ++i) {
    o.a[i] = a[i];
    o.b[i] = b[i];
  }
  o.c = kF32_2p23;
  return o;
}

}  // namespace

TEST_CASE("fdpa oracle: Table 8 exact value is -0.875 [T8]", "[fdpa_oracle]") {
  CHECK(exact_dot(table8_f16(4)) == "-7/8");
  CHECK(exact_dot(table8_e5m2(32)) == "-7/8");
}

TEST_CASE("fdpa oracle: Table 8, Volta F=23 -> 0.0 [T8][PARAM]",
          "[fdpa_oracle]") {
  // Volta FP16 -> FP32: L = 4, F = 23, RZ-FP32, e_zero -131. e_max = 23, LSB
  // 2^0: -0.5/-0.25/-0.125 truncate to 0 and 2^23 - 2^23 = 0 -> +0.
  CHECK(fdpa_chain(params(4, 23, Rho::RzF32, -131), table8_f16(4)) == 0x0);
}

TEST_CASE("fdpa oracle: Table 8, Turing/Ampere/Ada F=24 -> -0.5 [T8][PARAM]",
          "[fdpa_oracle]") {
  // L = 8 (k = 4..7 are +0 x +0 zero terms at e_zero -132), F = 24: LSB
  // 2^-1 keeps -0.5 only.
  CHECK(fdpa_chain(params(8, 24, Rho::RzF32, -132), table8_f16(8)) ==
        kF32_m0_5);
  // TF32 (L = 4): the same values as f32 patterns (low 13 bits already 0).
  Operands t = ops("tf32", "f32", 4);
  const uint64_t a[4] = {0xC6000000, 0xBF000000, 0xBE800000, 0xBE000000};
  const uint64_t b[4] = {0x44800000, 0x3F800000, 0x3F800000, 0x3F800000};
  for (int i = 0; i < 4; ++i) {
    t.a[i] = a[i];
    t.b[i] = b[i];
  }
  t.c = kF32_2p23;
  CHECK(fdpa_chain(params(4, 24, Rho::RzF32, -132), t) == kF32_m0_5);
}

TEST_CASE("fdpa oracle: Table 8, Hopper wgmma FP16 F=25 -> -0.75 [T8][PARAM]",
          "[fdpa_oracle]") {
  // L = 16, F = 25, e_zero -133: LSB 2^-2 keeps -0.5 and -0.25.
  CHECK(fdpa_chain(params(16, 25, Rho::RzF32, -133), table8_f16(16)) ==
        kF32_m0_75);
}

TEST_CASE("fdpa oracle: Table 8, Hopper wgmma e5m2 F=13 RZ-E8M13 -> 0.0 "
          "[T8][PARAM]",
          "[fdpa_oracle]") {
  // L = 32, F = 13: LSB 2^10, all three small products vanish.
  CHECK(fdpa_chain(params(32, 13, Rho::RzE8M13, -133), table8_e5m2(32)) ==
        0x0);
  // Ada FP8 (L = 16, e_zero -132) too [T8: "Ada e5m2 0.0"].
  CHECK(fdpa_chain(params(16, 13, Rho::RzE8M13, -132), table8_e5m2(16)) ==
        0x0);
}

TEST_CASE("fdpa oracle: Table 8, Blackwell tcgen05 e5m2 F=25 -> -0.75 "
          "[T8][PARAM]",
          "[fdpa_oracle]") {
  CHECK(fdpa_chain(params(32, 25, Rho::RzF32, -133), table8_e5m2(32)) ==
        kF32_m0_75);
  // kind::f16 on Blackwell (L = 16, F = 25) likewise.
  CHECK(fdpa_chain(params(16, 25, Rho::RzF32, -133), table8_f16(16)) ==
        kF32_m0_75);
}

TEST_CASE("fdpa oracle: Table 8, Blackwell MXFP8 ST-FDPA -> -0.75 [T8][PARAM]",
          "[fdpa_oracle]") {
  // kind::mxf8f6f4.block_scale: ST-FDPA, L = 32, F = 25, RZ-FP32, e_zero -133,
  // one UE8M0 scale per 32-block.
  Operands o = table8_e5m2(32);
  o.scale_fmt = "e8m0";
  o.scale_block = 32;
  SECTION("unit scales 0x7F = 2^0") {
    o.sa = {0x7F};
    o.sb = {0x7F};
    CHECK(fdpa_chain(params(32, 25, Rho::RzF32, -133), o) == kF32_m0_75);
    CHECK(exact_dot(o) == "-7/8");
  }
  SECTION("scales 2^5 and 2^-5 cancel (exponents add exactly)") {
    o.sa = {0x84};  // 132 - 127 = 5
    o.sb = {0x7A};  // 122 - 127 = -5
    CHECK(fdpa_chain(params(32, 25, Rho::RzF32, -133), o) == kF32_m0_75);
  }
  SECTION("powers of two moved from the elements into the scales") {
    // Elements divided by 2^3 in total (a by 2^2, b by 2^1), scales 2^2, 2^1.
    // e5m2: -2^11 = 0xE8 (E = 26), 2^9 = 0x60 (E = 24), -2^-3 = 0xB0,
    // -2^-4 = 0xAC, -2^-5 = 0xA8, 0.5 = 0x38.
    const uint64_t a[4] = {0xE8, 0xB0, 0xAC, 0xA8};
    const uint64_t b[4] = {0x60, 0x38, 0x38, 0x38};
    for (int i = 0; i < 4; ++i) {
      o.a[i] = a[i];
      o.b[i] = b[i];
    }
    o.sa = {0x81};  // 2^2
    o.sb = {0x80};  // 2^1
    CHECK(exact_dot(o) == "-7/8");
    CHECK(fdpa_chain(params(32, 25, Rho::RzF32, -133), o) == kF32_m0_75);
  }
}

TEST_CASE("fdpa oracle: Table 8, NVFP4 GST-FDPA F=35 -> -0.875 [T8][PARAM]",
          "[fdpa_oracle]") {
  // kind::mxf4nvf4 block16 UE4M3: GST, L = 64, G = 16, F = 35, RZ-FP32,
  // e_zero -139. e2m1 (1/2/1, bias 1) holds only +-{0,.5,1,1.5,2,3,4,6}, so:
  //  group 0: 8 products (-4)(4) = -128, scales 2^8 * 2^8  -> -2^23
  //           (e2m1 4 = 0x6, -4 = 0xE; ue4m3 2^8 = 0x78: E = 15, M = 0)
  //  group 1: (-0.5)(1), unit scales (ue4m3 1.0 = 0x38)       -> -0.5
  //           (e2m1 0.5 = 0x1 subnormal, -0.5 = 0x9, 1.0 = 0x2)
  //  group 2: (-0.5)(0.5), unit scales                        -> -0.25
  //  group 3: (-0.5)(0.5) * scale 0.5 (ue4m3 0x30: E = 6)      -> -0.125
  //  C = 2^23.
  // F = 35 below e_max = 23 leaves LSB 2^-12: nothing is truncated.
  Operands o = ops("e2m1", "f32", 64);
  o.scale_fmt = "ue4m3";
  o.scale_block = 16;
  for (int k = 0; k < 8; ++k) {
    o.a[k] = 0xE;
    o.b[k] = 0x6;
  }
  o.a[16] = 0x9;
  o.b[16] = 0x2;
  o.a[32] = 0x9;
  o.b[32] = 0x1;
  o.a[48] = 0x9;
  o.b[48] = 0x1;
  o.sa = {0x78, 0x38, 0x38, 0x30};
  o.sb = {0x78, 0x38, 0x38, 0x38};
  o.c = kF32_2p23;
  const Params gst = params(64, 35, Rho::RzF32, -139, 16);
  CHECK(exact_dot(o) == "-7/8");
  CHECK(fdpa_chain(gst, o) == kF32_m0_875);
  // The ue4m3 sign bit is ignored: 0xB8 reads as 1.0 [research §1.1].
  o.sb[1] = 0xB8;
  CHECK(fdpa_chain(gst, o) == kF32_m0_875);
  // The same operands through an ST-style FDPA with F = 25 lose -0.125.
  CHECK(fdpa_chain(params(64, 25, Rho::RzF32, -133), o) == kF32_m0_75);
}

TEST_CASE("fdpa oracle: Table 8, MXFP4 GST (UE8M0 block32) -> -0.875 "
          "[T8][PARAM]",
          "[fdpa_oracle]") {
  // kind::mxf4 scale_vec::2X: each E8M0 scale covers two 16-groups.
  //  block 0 (groups 0, 1): (-4)(4) = -16 with scales 2^10, 2^9 -> -2^23;
  //                          group 1 all zero (a zero term at e_zero).
  //  block 1 (groups 2, 3): scales 2^-1, 2^0:
  //   group 2: (-1)(1) + (-1)(0.5) = -1.5 -> -0.75
  //   group 3: (-0.5)(0.5)         = -0.25 -> -0.125
  Operands o = ops("e2m1", "f32", 64);
  o.scale_fmt = "e8m0";
  o.scale_block = 32;
  o.a[0] = 0xE;
  o.b[0] = 0x6;
  o.a[32] = 0xA;  // -1
  o.b[32] = 0x2;  // 1
  o.a[33] = 0xA;
  o.b[33] = 0x1;  // 0.5
  o.a[48] = 0x9;
  o.b[48] = 0x1;
  o.sa = {0x89, 0x7E};  // 2^10, 2^-1
  o.sb = {0x88, 0x7F};  // 2^9, 2^0
  o.c = kF32_2p23;
  CHECK(exact_dot(o) == "-7/8");
  CHECK(fdpa_chain(params(64, 35, Rho::RzF32, -139, 16), o) == kF32_m0_875);
}

TEST_CASE("fdpa oracle: GST group cancelling to zero keeps its scale exponent "
          "[PARAM]",
          "[fdpa_oracle]") {
  // Research §4.4: a group whose products cancel to 0 is NOT a zero term.
  // Group 0: (1)(1) + (-1)(1) = 0 with scales 2^100 * 2^100: its exponent
  // 200 sets e_max, so C = 1.0 (exp 0) falls 200 > F = 35 binades below and
  // truncates to 0 -> +0. With group 0 all-zero instead it reads e_zero and
  // C survives exactly.
  Operands o = ops("e2m1", "f32", 64);
  o.scale_fmt = "e8m0";
  o.scale_block = 16;
  o.a[0] = 0x2;
  o.b[0] = 0x2;
  o.a[1] = 0xA;
  o.b[1] = 0x2;
  o.sa = {0xE3, 0x7F, 0x7F, 0x7F};  // 227 - 127 = 100
  o.sb = {0xE3, 0x7F, 0x7F, 0x7F};
  o.c = kF32_one;
  const Params gst = params(64, 35, Rho::RzF32, -139, 16);
  CHECK(fdpa_chain(gst, o) == 0x0);
  CHECK(exact_dot(o) == "1/1");
  o.a[0] = 0x0;
  o.a[1] = 0x8;  // -0
  CHECK(fdpa_chain(gst, o) == kF32_one);
  // A zero scale makes the group a zero term even with nonzero products.
  Operands z = ops("e2m1", "f32", 64);
  z.scale_fmt = "ue4m3";
  z.scale_block = 16;
  z.a[0] = 0x7;  // 6
  z.b[0] = 0x7;
  z.sa = {0x00, 0x38, 0x38, 0x38};  // group 0 scale 0
  z.sb = {0x7E, 0x38, 0x38, 0x38};  // 0x7E = 448
  z.c = kF32_one;
  CHECK(fdpa_chain(gst, z) == kF32_one);
}

TEST_CASE("fdpa oracle: e_zero tie case, FP16 in / FP16 out, F=24 [TIE]",
          "[fdpa_oracle]") {
  // A = [2^-14, 2^-24, 0], B = [2^-11, 2^-24, 1], C = 0 (f16).
  // f16: 2^-14 = 0x0400 (min normal), 2^-11 = 0x1000 (E = 4), 2^-24 = 0x0001
  // (min subnormal: sig 1, aligns at emin -14), 1.0 = 0x3C00.
  // Products: 2^-25 (exp -25) and 2^-48 (sig 1, exp -14-14 = -28, frac 20),
  // plus the zero product and zero C, which align at e_zero.
  // e_zero = -21: e_max = -21, LSB 2^-45, 2^-48 truncated -> exactly 2^-25,
  //   half of the f16 min subnormal -> RNE tie to even -> +0.
  // e_zero = -29: e_max = -25, LSB 2^-49, 2^-48 kept -> above the tie -> 2^-24.
  Operands o = ops("f16", "f16", 8);  // L = 8 (k = 3..7: +0 x +0)
  o.a[0] = 0x0400;
  o.b[0] = 0x1000;
  o.a[1] = 0x0001;
  o.b[1] = 0x0001;
  o.a[2] = 0x0000;
  o.b[2] = 0x3C00;
  o.c = 0x0000;
  CHECK(fdpa_chain(params(8, 24, Rho::RneF16, -21), o) == 0x0000);
  CHECK(fdpa_chain(params(8, 24, Rho::RneF16, -29), o) == 0x0001);
  CHECK(exact_dot(o) == "8388609/281474976710656");  // 2^-25 + 2^-48
}

TEST_CASE("fdpa oracle: Hopper FP8 truncates a lone C to E8M13 [HFP8]",
          "[fdpa_oracle]") {
  // All 32 products zero, C = 1 + 2^-20 (f32 0x3F800008). e_max = 0, F = 13:
  // C keeps bits down to 2^-13 -> 1.0.
  Operands o = ops("e4m3", "f32", 32);
  o.c = 0x3F800008;
  CHECK(fdpa_chain(params(32, 13, Rho::RzE8M13, -133), o) == kF32_one);
  // With Blackwell's F = 25 the C passes unchanged.
  CHECK(fdpa_chain(params(32, 25, Rho::RzF32, -133), o) == 0x3F800008);
  // RZ-E8M13 output keeps 13 fraction bits: 1 + 2^-13 + 2^-14 -> 1 + 2^-13,
  // stored with the low 10 f32 fraction bits zero.
  o.c = 0x3F800000 | (1u << 10) | (1u << 9);
  CHECK(fdpa_chain(params(32, 13, Rho::RzE8M13, -133), o) ==
        (0x3F800000 | (1u << 10)));
}

TEST_CASE("fdpa oracle: chaining rounds between chunks [PARAM]",
          "[fdpa_oracle]") {
  // Ampere FP16 -> FP32, L = 8, F = 24: C = 1.0 and one product 2^-24 per
  // chunk (f16 2^-12 = 0x0C00, E = 3). Each chunk gives 1 + 2^-24, which RZ-FP32
  // truncates to 1.0; so two chained chunks give 1.0 while one 16-wide FDPA
  // (F = 24, e_max = 0, LSB 2^-24) gives 1 + 2^-23 exactly.
  Operands o = ops("f16", "f32", 16);
  o.a[0] = o.b[0] = 0x0C00;
  o.a[8] = o.b[8] = 0x0C00;
  o.c = kF32_one;
  CHECK(fdpa_chain(params(8, 24, Rho::RzF32, -132), o) == kF32_one);
  CHECK(fdpa_chain(params(16, 24, Rho::RzF32, -132), o) == 0x3F800001);
  CHECK(exact_dot(o) == "8388609/8388608");
}

TEST_CASE("fdpa oracle: special values [SPEC]", "[fdpa_oracle]") {
  const Params bw = params(32, 25, Rho::RzF32, -133);
  SECTION("NaN scale -> canonical NaN") {
    Operands o = ops("e4m3", "f32", 32);
    o.a[0] = 0x38;  // 1.0
    o.b[0] = 0x38;
    o.scale_fmt = "e8m0";
    o.scale_block = 32;
    o.sa = {0xFF};
    o.sb = {0x7F};
    CHECK(fdpa_chain(bw, o) == kF32_nan);
    CHECK(exact_dot(o) == "nan");
    o.scale_fmt = "ue4m3";
    o.sa = {0xFF};  // bit 7 ignored -> 0x7F, the UE4M3 NaN
    o.sb = {0x38};
    CHECK(fdpa_chain(bw, o) == kF32_nan);
  }
  SECTION("e4m3 NaN element -> NaN; f16 output NaN is 0x7FFF") {
    Operands o = ops("e4m3", "f32", 32);
    o.a[5] = 0xFF;  // S.1111.111
    CHECK(fdpa_chain(bw, o) == kF32_nan);
    Operands h = ops("e4m3", "f16", 32);
    h.a[5] = 0x7F;
    CHECK(fdpa_chain(params(32, 25, Rho::RneF16, -133), h) == 0x7FFF);
  }
  SECTION("Inf * 0 -> NaN") {
    Operands o = ops("e5m2", "f32", 32);
    o.a[3] = 0x7C;  // +Inf
    o.b[3] = 0x00;  // +0
    CHECK(fdpa_chain(bw, o) == kF32_nan);
    CHECK(exact_dot(o) == "nan");
  }
  SECTION("Inf * zero UE4M3 scale -> NaN") {
    Operands o = ops("e5m2", "f32", 32);
    o.a[3] = 0x7C;
    o.b[3] = 0x3C;
    o.scale_fmt = "ue4m3";
    o.scale_block = 32;
    o.sa = {0x00};
    o.sb = {0x38};
    CHECK(fdpa_chain(bw, o) == kF32_nan);
  }
  SECTION("+Inf and -Inf products -> NaN; one sign -> that Inf") {
    Operands o = ops("e5m2", "f32", 32);
    o.a[0] = 0x7C;  // +Inf
    o.b[0] = 0x3C;  // 1.0
    CHECK(fdpa_chain(bw, o) == kF32_pinf);
    CHECK(exact_dot(o) == "+inf");
    o.a[1] = 0xFC;  // -Inf
    o.b[1] = 0x3C;
    CHECK(fdpa_chain(bw, o) == kF32_nan);
    CHECK(exact_dot(o) == "nan");
    o.a[1] = 0x7C;  // +Inf * -1 = -Inf
    o.b[1] = 0xBC;
    CHECK(fdpa_chain(bw, o) == kF32_nan);
    o.a[0] = 0;
    CHECK(fdpa_chain(bw, o) == kF32_ninf);
    // An infinite C against a finite sum.
    Operands c = ops("e5m2", "f32", 32);
    c.c = kF32_ninf;
    c.a[0] = 0x7B;  // 57344, finite
    c.b[0] = 0x7B;
    CHECK(fdpa_chain(bw, c) == kF32_ninf);
  }
  SECTION("NaN in a later chunk propagates through the chain") {
    Operands o = ops("e4m3", "f32", 32);
    o.b[20] = 0x7F;
    CHECK(fdpa_chain(params(16, 13, Rho::RzE8M13, -132), o) == kF32_nan);
  }
}

TEST_CASE("fdpa oracle: overflow gives Inf even under RZ [SPEC]",
          "[fdpa_oracle]") {
  const Params amp = params(8, 24, Rho::RzF32, -132);
  // bf16 2^104 = 0x7380 (E = 231), 1.0 = 0x3F80; C = FLT_MAX = 2^128 - 2^104.
  Operands o = ops("bf16", "f32", 8);
  o.a[0] = 0x7380;
  o.b[0] = 0x3F80;
  o.c = 0x7F7FFFFF;
  CHECK(fdpa_chain(amp, o) == kF32_pinf);  // exactly 2^128
  o.a[0] = 0x7300;                         // 2^103: 2^128 - 2^103 < 2^128
  CHECK(fdpa_chain(amp, o) == 0x7F7FFFFF);
  o.a[0] = 0xF380;  // -2^104 with C = -FLT_MAX -> -Inf
  o.c = 0xFF7FFFFF;
  CHECK(fdpa_chain(amp, o) == kF32_ninf);
  // Scaled products: 1.0 * 2^127 * 2^127 = 2^254 -> +Inf.
  Operands s = ops("e4m3", "f32", 32);
  s.a[0] = s.b[0] = 0x38;
  s.scale_fmt = "e8m0";
  s.scale_block = 32;
  s.sa = {0xFE};
  s.sb = {0xFE};
  CHECK(fdpa_chain(params(32, 25, Rho::RzF32, -133), s) == kF32_pinf);
  CHECK(fdpa_chain(params(32, 13, Rho::RzE8M13, -133), s) == kF32_pinf);
  // f16 output, RNE: 65504 + 16 = 65520 rounds up to 2^16 -> Inf; 65504 + 8
  // rounds back to 65504 (0x7BFF). f16 65504 = 0x7BFF, 16 = 0x4C00, 8 = 0x4800.
  Operands h = ops("f16", "f16", 8);
  h.a[0] = 0x4C00;
  h.b[0] = 0x3C00;
  h.c = 0x7BFF;
  const Params ampf16 = params(8, 24, Rho::RneF16, -21);
  CHECK(fdpa_chain(ampf16, h) == 0x7C00);
  h.a[0] = 0x4800;
  CHECK(fdpa_chain(ampf16, h) == 0x7BFF);
}

TEST_CASE("fdpa oracle: sign of an exact zero result [research U7]",
          "[fdpa_oracle]") {
  Params bw = params(32, 25, Rho::RzF32, -133);
  bw.zero_sign = Params::ZeroSign::Ieee;
  Operands o = ops("e4m3", "f32", 32);
  for (auto& x : o.a) x = 0x80;  // -0 * +0 = -0 for every product
  o.c = 0x80000000;              // C = -0
  CHECK(fdpa_chain(bw, o) == 0x80000000);
  // MMA-Sim HEAD / Khattak-Mikaitis: always +0 (ZeroSign::Positive).
  Params pos = bw;
  pos.zero_sign = Params::ZeroSign::Positive;
  CHECK(fdpa_chain(pos, o) == 0x0);
  o.a[7] = 0x00;  // one +0 product -> +0
  CHECK(fdpa_chain(bw, o) == 0x0);
  // Cancellation x - x gives +0.
  Operands c = ops("e4m3", "f32", 32);
  c.a[0] = 0x38;
  c.b[0] = 0x38;
  c.a[1] = 0xB8;
  c.b[1] = 0x38;
  c.c = 0x80000000;
  CHECK(fdpa_chain(bw, c) == 0x0);
}

TEST_CASE(
    "fdpa oracle: a negative sum that underflows: -0 (ieee), +0 "
    "(positive) [research U7]",
    "[fdpa_oracle]") {
  // ST-FDPA e4m3, scales 2^-75 each: -1 * 1 * 2^-150 lies below the f32
  // subnormal 2^-149; S != 0 and RZ-FP32 gives a zero of V's sign (IEEE).
  Params st = params(32, 25, Rho::RzF32, -133);
  Operands o = ops("e4m3", "f32", 32);
  o.scale_fmt = "e8m0";
  o.scale_block = 32;
  o.sa = {127 - 75};
  o.sb = {127 - 75};
  o.a[0] = 0xB8;  // -1.0
  o.b[0] = 0x38;  // 1.0
  st.zero_sign = Params::ZeroSign::Ieee;
  CHECK(fdpa_chain(st, o) == 0x80000000);
  st.zero_sign = Params::ZeroSign::Positive;
  CHECK(fdpa_chain(st, o) == 0x0);
}

TEST_CASE(
    "fdpa oracle: zero-term exponent, fixed e_zero vs operand-min "
    "(MMA-Sim HEAD extract_significand_exponent)",
    "[fdpa_oracle]") {
  // Hopper FP8 (L=32, F=13, RZ-E8M13). A[0] = +0 against B[0] = 448 =
  // 1.75 * 2^8; every other product 0 * 0; C = (1 + 2^-12 + 2^-13) * 2^-120
  // (f32 0x03800C00).
  Params h = params(32, 13, Rho::RzE8M13, -133);
  Operands o = ops("e4m3", "f32", 32);
  o.b[0] = 0x7E;
  o.c = 0x03800C00;
  // fixed: zero terms at -133, e_max = -120 (C), window 2^-133: C whole.
  CHECK(fdpa_chain(h, o) == 0x03800C00);
  // operand-min: the zero product aligns at -126 + 8 = -118 > -120; window
  // 2^-131 drops C's 2^-132 and 2^-133 bits: 2^-120.
  h.zero_exp = Params::ZeroExp::OperandMin;
  CHECK(fdpa_chain(h, o) == 0x03800000);

  // GST (MXFP4, G=16, F=35): block 0 (groups 0, 1) all-zero products under
  // scale 2^100; block 1 has 1.0 * 1.0 at scale 1. fixed: the zero groups
  // sit at e_zero, D = 1.0. operand-min: an all-zero group keeps
  // e_SA + e_SB = 100, the window unit 2^65 truncates the 1.0 away: +0.
  Params g = params(64, 35, Rho::RzF32, -139, 16);
  Operands q = ops("e2m1", "f32", 64);
  q.scale_fmt = "e8m0";
  q.scale_block = 32;
  q.sa = {127 + 100, 127};
  q.sb = {127, 127};
  q.a[32] = 0x2;  // e2m1 1.0
  q.b[32] = 0x2;
  CHECK(fdpa_chain(g, q) == kF32_one);
  g.zero_exp = Params::ZeroExp::OperandMin;
  CHECK(fdpa_chain(g, q) == 0x0);
}

TEST_CASE(
    "fdpa oracle: k permutation and C outside the FDPA (sm90 mma.sync "
    "FP8 structure)",
    "[fdpa_oracle]") {
  // f16 output, L=16, F=25: e5m2 products 2048 (k=0), 1 (k=1), 1 (k=2).
  Operands o = ops("e5m2", "f16", 32);
  o.a[0] = 0x68;  // 2^11
  o.b[0] = 0x3C;  // 1.0
  o.a[1] = o.b[1] = 0x3C;
  o.a[2] = o.b[2] = 0x3C;
  o.c = 0x3C00;  // 1.0
  Params p = params(16, 25, Rho::RneF16, -22);
  p.k_block = 32;
  // Increasing k, C inside: 2048+1+1+1 = 2051 in one FDPA, RNE f16 (ulp 2,
  // tie) -> 2052 = 0x6802.
  CHECK(fdpa_chain(p, o) == 0x6802);
  // k mod 4 in {0,1} first: 2048+1 = 2049 -> 2048 (tie to even); then {2,3}:
  // 2048+1 -> 2048; C outside: 2048 + 1 -> 2048 = 0x6800.
  p.k_period = 4;
  p.k_run = 2;
  p.c_outside = true;
  CHECK(fdpa_chain(p, o) == 0x6800);
  // Same order, C inside (first chunk's addend): 2048+1+1 = 2050, then
  // +1 = 2051 -> 2052.
  p.c_outside = false;
  CHECK(fdpa_chain(p, o) == 0x6802);

  // f32: P = 1.0 (e4m3 1 x 1), C = 1.5 * 2^-24 (0x33C00000). C inside with
  // RZ-FP32: 1 + 1.5 * 2^-24 -> 1.0. C outside, RNE add: 0.75 ulp -> up.
  Operands f = ops("e4m3", "f32", 32);
  f.a[0] = f.b[0] = 0x38;
  f.c = 0x33C00000;
  Params q = params(32, 25, Rho::RzF32, -133);
  CHECK(fdpa_chain(q, f) == kF32_one);
  q.k_block = 32;
  q.c_outside = true;
  CHECK(fdpa_chain(q, f) == 0x3F800001);
  // Inconsistent structures are refused.
  Params bad = params(16, 25, Rho::RneF16, -22);
  bad.k_period = 4;
  bad.k_run = 2;
  CHECK_THROWS_AS(fdpa_chain(bad, o), std::invalid_argument);  // no k_block
  bad.k_block = 32;
  bad.k_run = 1;  // 4 chunks of 8 != L
  CHECK_THROWS_AS(fdpa_chain(bad, o), std::invalid_argument);
}

TEST_CASE("fdpa oracle: subnormal results and TF32 truncation",
          "[fdpa_oracle]") {
  // bf16 2^-75 * 2^-74 = 2^-149 (sig 2^14, frac 14, exp -149), the f32 min
  // subnormal. The zero C and products align at e_zero = -132 = e_max, and
  // F = 24 keeps bits down to 2^-156, so the product survives the alignment.
  const Params amp = params(8, 24, Rho::RzF32, -132);
  Operands o = ops("bf16", "f32", 8);
  o.a[0] = 0x1A00;  // 2^-75: E = 52 -> 52 << 7
  o.b[0] = 0x1A80;  // 2^-74: E = 53
  CHECK(fdpa_chain(amp, o) == 0x00000001);
  // RZ-E8M13: granularity 2^-139, so 2^-149 truncates to 0 (sign of V kept
  // under ZeroSign::Ieee; +0 under Positive).
  o.a[0] = 0x9A00;  // -2^-75
  Params e813 = params(8, 24, Rho::RzE8M13, -132);
  e813.zero_sign = Params::ZeroSign::Ieee;
  CHECK(fdpa_chain(e813, o) == 0x80000000);
  e813.zero_sign = Params::ZeroSign::Positive;
  CHECK(fdpa_chain(e813, o) == 0x0);
  CHECK(fdpa_chain(amp, o) == 0x80000001);
  // TF32 drops the low 13 bits of the f32 pattern: 1 + 2^-23 reads as 1.0.
  Operands t = ops("tf32", "f32", 4);
  t.a[0] = 0x3F800001;
  t.b[0] = 0x3F800000;
  CHECK(fdpa_chain(params(4, 24, Rho::RzF32, -132), t) == kF32_one);
  CHECK(exact_dot(t) == "1/1");
}

TEST_CASE("fdpa oracle: rejects inconsistent input", "[fdpa_oracle]") {
  Operands o = ops("e4m3", "f32", 32);
  CHECK_THROWS_AS(fdpa_chain(params(24, 25, Rho::RzF32, -133), o),
                  std::invalid_argument);  // K % L != 0
  CHECK_THROWS_AS(fdpa_chain(params(32, 25, Rho::RneF16, -133), o),
                  std::invalid_argument);  // rho vs c_fmt
  CHECK_THROWS_AS(fdpa_chain(params(32, 25, Rho::RzF32, -133, 12), o),
                  std::invalid_argument);  // L % G != 0
  o.a[0] = 0x100;
  CHECK_THROWS_AS(fdpa_chain(params(32, 25, Rho::RzF32, -133), o),
                  std::invalid_argument);  // pattern wider than e4m3
  Operands s = ops("e4m3", "f32", 32);
  s.scale_fmt = "e8m0";
  s.scale_block = 32;
  CHECK_THROWS_AS(exact_dot(s), std::invalid_argument);  // missing scales
  s.a_fmt = "e9m9";
  CHECK_THROWS_AS(exact_dot(s), std::invalid_argument);
}
