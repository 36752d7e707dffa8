// Pinned cases, each with the source that fixes its expected bits. Expected
// values come from the cited documents, not from running the emulator.
#include <catch2/catch.hpp>
#include <limits>

#include "emu/convert.h"

using namespace mxc;

namespace {
RoundSpec rne_nosat() { return RoundSpec{}; }
RoundSpec rne_sat() {
  RoundSpec r;
  r.overflow = Overflow::kSatFinite;
  return r;
}
}  // namespace

TEST_CASE("E4M3 464 -> 448: the tie between 448 and 480 goes to even",
          "[pinned]") {
  // OCP MX v1.0 table 2: E4M3 max normal S.1111.110 = 448; 464 is halfway
  // to the (NaN) code 1.111 x 2^8 = 480, and RNE picks the even 1.110.
  CHECK(f32_to_e4m3(f32_from(464.0f), rne_nosat()).v == 0x7E);
  CHECK(f32_to_e4m3(f32_from(464.0f), rne_sat()).v == 0x7E);
}

TEST_CASE("E4M3 465 -> NaN without saturation, 448 with", "[pinned]") {
  // OCP MX v1.0 5.3.2 (non-saturating overflow of E4M3 yields NaN, as E4M3
  // has no Inf); PTX ISA cvt .satfinite clamps to MAX_NORM.
  CHECK(f32_to_e4m3(f32_from(465.0f), rne_nosat()).v == 0x7F);
  CHECK(f32_to_e4m3(f32_from(465.0f), rne_sat()).v == 0x7E);
}

TEST_CASE("E5M2 61440 -> Inf", "[pinned]") {
  // E5M2 max 57344 = 1.11 x 2^15; 61440 is the midpoint to 2^16, rounding to
  // even carries out of the format: IEEE-style overflow to Inf (OCP 5.3.2).
  CHECK(f32_to_e5m2(f32_from(61440.0f), rne_nosat()).v == 0x7C);
  CHECK(f32_to_e5m2(f32_from(-61440.0f), rne_nosat()).v == 0xFC);
  CHECK(f32_to_e5m2(f32_from(61440.0f), rne_sat()).v == 0x7B);
}

TEST_CASE("negative zero is kept", "[pinned]") {
  // IEEE 754-2019 6.3: the sign of a zero result of a conversion is the
  // sign of the operand. Sign bit placement per OCP MX v1.0 table 1/2.
  CHECK(f32_to_e4m3(f32_from(-0.0f)).v == 0x80);
  CHECK(f32_to_e5m2(f32_from(-0.0f)).v == 0x80);
  CHECK(f32_to_e3m2(f32_from(-0.0f)).v == 0x20);
  CHECK(f32_to_e2m3(f32_from(-0.0f)).v == 0x20);
  CHECK(f32_to_e2m1(f32_from(-0.0f)).v == 0x8);
  CHECK(e4m3_to_f32(e4m3{0x80}).v == 0x80000000u);
}

TEST_CASE("0.25000006 -> E2M1 0.5 (tt-metal#51971)", "[pinned]") {
  // tenstorrent/tt-metal issue 51971: 0.25000006f is just above the midpoint
  // 0.25 between E2M1 0 and 0.5, so RNE must give 0.5 (code 0x1), not 0.
  CHECK(f32_to_e2m1(f32_from(0.25000006f)).v == 0x1);
  CHECK(f32_to_e2m1(f32_from(0.25f)).v == 0x0);  // exact tie -> even (0)
}

TEST_CASE("f64 -431.99999999999994 -> E4M3 -416 without double rounding",
          "[pinned]") {
  // The ml_dtypes double-rounding bug: via f32 this value becomes -432, the
  // exact midpoint of 416 and 448, then ties-to-even gives -448. Rounded once
  // from f64 it is below the midpoint: -416 = S.1111.101 = 0xFD.
  CHECK(f64_to_e4m3(f64_from(-431.99999999999994)).v == 0xFD);
  // And the f32 path does see the midpoint:
  CHECK(f32_to_e4m3(f32_from(-432.0f)).v == 0xFE);
}

TEST_CASE("E8M0 scale conversions (PTX cvt.rz/.rp.ue8m0x2.f32)", "[pinned]") {
  // OCP MX v1.0 5.4.1: E8M0 = 2^(e-127), 0xFF NaN. PTX ISA cvt: only .rz and
  // .rp; .satfinite clamps to 2^127 (0xFE). CUDA cuda_fp8.h documents that
  // results below 2^-127 clip to 2^-127 and the sign is ignored.
  RoundSpec rz, rp;
  rz.mode = Round::kRZ;
  rp.mode = Round::kRU;
  CHECK(f32_to_e8m0(f32_from(1.0f), rz).v == 0x7F);
  CHECK(f32_to_e8m0(f32_from(3.0f), rz).v == 0x80);
  CHECK(f32_to_e8m0(f32_from(3.0f), rp).v == 0x81);
  CHECK(f32_to_e8m0(f32_from(-3.0f), rp).v == 0x81);
  CHECK(f32_to_e8m0(f32_from(0.0f), rp).v == 0x00);
  CHECK(f32_to_e8m0(f32_from(1e-45f), rp).v == 0x00);
  RoundSpec rp_sat = rp;
  rp_sat.overflow = Overflow::kSatFinite;
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(f32_to_e8m0(f32_from(inf), rp).v == 0xFF);
  CHECK(f32_to_e8m0(f32_from(inf), rp_sat).v == 0xFE);
  CHECK(f32_to_e8m0(f32_from(std::nanf("")), rp_sat).v == 0xFF);
}

TEST_CASE("NaN into formats without NaN gives +MAX_NORM", "[pinned]") {
  // PTX ISA cvt .satfinite: "For .e2m1x2, .e2m3x2, .e3m2x2 ... NaN results
  // are converted to positive MAX_NORM".
  const f32 nan = f32{0xFFC00000u};  // negative quiet NaN
  CHECK(f32_to_e2m1(nan).v == 0x7);
  CHECK(f32_to_e2m3(nan).v == 0x1F);
  CHECK(f32_to_e3m2(nan).v == 0x1F);
  CHECK(f32_to_e4m3(nan).v == 0x7F);  // canonical NaN, sign dropped
}

TEST_CASE("MXINT8 element: int8 * 2^-6 (OCP MX v1.0 5.3.3)", "[pinned]") {
  CHECK(f32_to_mxint8(f32_from(1.0f)).v == 0x40);
  CHECK(f32_to_mxint8(f32_from(-2.0f)).v == 0x80);
  CHECK(f32_to_mxint8(f32_from(5.0f)).v == 0x7F);   // saturates
  CHECK(f32_to_mxint8(f32_from(-5.0f)).v == 0x80);  // saturates to -2
  CHECK(f32_to_mxint8(f32_from(0.0078125f)).v == 0x00);  // 0.5 ulp: even
  CHECK(f32_to_mxint8(f32_from(0.0234375f)).v == 0x02);  // 1.5 ulp: even
  CHECK(mxint8_to_f32(mxint8{0xC0}).v == f32_from(-1.0f).v);
}

TEST_CASE("FNUZ FP8: no -0, 0x80 the only NaN, ties past max overflow",
          "[pinned]") {
  // Expected bits from running ml_dtypes 0.5.4 (float8_e4m3fnuz,
  // float8_e5m2fnuz, float8_e4m3b11fnuz astype from float32) and torch
  // 2.12.1 (.to(torch.float8_e4m3fnuz / float8_e5m2fnuz)), which agree.
  auto cvt = [](Fmt to, float x) {
    return convert(Fmt::kF32, to, f32_from(x).v, RoundSpec{});
  };
  const float inf = std::numeric_limits<float>::infinity();
  for (Fmt f : {Fmt::kE4M3Fnuz, Fmt::kE5M2Fnuz, Fmt::kE4M3B11Fnuz}) {
    CHECK(cvt(f, -0.0f) == 0x00);
    CHECK(cvt(f, -1e-30f) == 0x00);  // rounds to zero: +0, not 0x80
    CHECK(cvt(f, inf) == 0x80);
    CHECK(cvt(f, -inf) == 0x80);
    CHECK(cvt(f, std::numeric_limits<float>::quiet_NaN()) == 0x80);
    CHECK(cvt(f, 1e10f) == 0x80);
    CHECK(cvt(f, -1e10f) == 0x80);
  }
  CHECK(cvt(Fmt::kE4M3Fnuz, 240.0f) == 0x7F);  // max = 1.111 x 2^7
  CHECK(cvt(Fmt::kE4M3Fnuz, 248.0f) == 0x80);  // tie -> even 256: overflow
  CHECK(cvt(Fmt::kE5M2Fnuz, 240.0f) == 0x60);
  CHECK(cvt(Fmt::kE5M2Fnuz, 57344.0f) == 0x7F);  // max = 1.11 x 2^15
  CHECK(cvt(Fmt::kE5M2Fnuz, 61440.0f) == 0x80);
  CHECK(cvt(Fmt::kE4M3B11Fnuz, 30.0f) == 0x7F);  // max = 1.111 x 2^4
  CHECK(cvt(Fmt::kE4M3B11Fnuz, 31.0f) == 0x80);
  // Decoding: 0x80 is NaN, the least subnormal of e4m3fnuz is 2^-10.
  CHECK(unpack(Fmt::kE4M3Fnuz, 0x80).cls == Class::kNaN);
  CHECK(to_double(unpack(Fmt::kE4M3Fnuz, 0x01)) == 0x1p-10);
  CHECK(to_double(unpack(Fmt::kE5M2Fnuz, 0x01)) == 0x1p-17);
}
