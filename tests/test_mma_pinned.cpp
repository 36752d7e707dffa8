// Worked examples from the published tensor-core models, pinned. Expected
// values are the sources' (MMA-Sim paper v2 Table 8 / Eq. 10 as quoted by
// bksaiki/fpy examples/mmasim; fpy validate_nv.py for the e_zero tie;
// ../shared/research/tensor-core-numerics.md section 6), not our output.
#include <catch2/catch.hpp>

#include <bit>
#include <vector>

#include "emu/convert.h"
#include "emu/mma/fdpa.h"
#include "emu/mma/gemm.h"
#include "emu/mma/models.h"

using namespace mxc;

namespace {

uint64_t enc(Fmt f, double x) {
  return convert(Fmt::kF64, f, std::bit_cast<uint64_t>(x));
}
float as_f32(uint64_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b)); }

// Eq. 10: d = 2^23 + (-2^13 * 2^10) + (-0.5) + (-0.25) + (-0.125), exact -0.875.
double table8(const char* model, Fmt f) {
  const MmaModel* m = find_mma_model(model);
  REQUIRE(m != nullptr);
  std::vector<uint64_t> a(m->k, 0), b(m->k, 0);
  const double av[] = {-8192.0, -0.5, -0.25, -0.125}, bv[] = {1024.0, 1, 1, 1};
  for (int i = 0; i < 4; ++i) {
    a[i] = enc(f, av[i]);
    b[i] = enc(f, bv[i]);
  }
  std::vector<uint64_t> sa, sb;
  if (m->scales != ScaleKind::kNone) {
    sa.assign(m->k / scale_block(m->scales), 0x7F);  // E8M0 1.0
    sb = sa;
  }
  return as_f32(mma_dot(*m, f, f, a, b, enc(Fmt::kF32, 8388608.0), sa, sb));
}

}  // namespace

TEST_CASE("MMA-Sim Table 8 (Eq. 10) per instruction model", "[mma][pinned]") {
  // Table 8: Hopper wgmma e5m2 (F=13) 0.0; Ada e5m2 0.0; Blackwell tcgen05
  // e5m2 -0.75; Blackwell MXFP8 (ST) -0.75; Hopper FP16 (F=25) -0.75.
  CHECK(table8("sm90_wgmma_fp8_f32", Fmt::kE5M2) == 0.0);
  CHECK(table8("sm89_mma_fp8_f32", Fmt::kE5M2) == 0.0);
  CHECK(table8("sm100_tcgen05_f8f6f4_f32", Fmt::kE5M2) == -0.75);
  CHECK(table8("sm120_mma_f8f6f4_f32", Fmt::kE5M2) == -0.75);
  CHECK(table8("sm100_tcgen05_mxf8f6f4", Fmt::kE5M2) == -0.75);
  CHECK(table8("sm120_mma_mxf8f6f4", Fmt::kE5M2) == -0.75);
  CHECK(table8("sm90_wgmma_f16_f32", Fmt::kF16) == -0.75);
  CHECK(table8("sm100_tcgen05_f16_f32", Fmt::kF16) == -0.75);
}

TEST_CASE("Table 8 with F = 23 and 24 (Volta, Ampere rows)", "[mma][pinned]") {
  // Table 8: Volta (F=23) 0.0; Turing/Ampere/Ada FP16 (F=24) -0.5.
  const double av[] = {-8192.0, -0.5, -0.25, -0.125}, bv[] = {1024.0, 1, 1, 1};
  std::vector<uint64_t> a, b;
  for (int i = 0; i < 4; ++i) {
    a.push_back(enc(Fmt::kF16, av[i]));
    b.push_back(enc(Fmt::kF16, bv[i]));
  }
  FdpaOperands o;
  o.a_fmt = o.b_fmt = Fmt::kF16;
  o.c_fmt = Fmt::kF32;
  o.a = a;
  o.b = b;
  o.c = enc(Fmt::kF32, 8388608.0);
  CHECK(as_f32(fdpa_chain({4, 0, 23, AccRound::kRzF32, -131}, o)) == 0.0f);
  CHECK(as_f32(fdpa_chain({4, 0, 24, AccRound::kRzF32, -132}, o)) == -0.5f);
  CHECK(as_f32(fdpa_chain({4, 0, 25, AccRound::kRzF32, -133}, o)) == -0.75f);
}

TEST_CASE("Table 8 on the NVFP4/MXFP4 GST-FDPA gives the exact -0.875",
          "[mma][pinned]") {
  // Table 8: Blackwell NVFP4 (GST, F = 35) -0.875. E2M1 cannot hold 2^13 or
  // 0.125, so the scales carry them: block 0 (groups 0-1) scales 2^10 and
  // 2^9 make -4 * 4 * 2^19 = -2^23; block 1 (groups 2-3) scales 2^-3 and 1
  // make (-4 - 2 - 1) * 2^-3 = -0.5 - 0.25 - 0.125.
  const MmaModel* m = find_mma_model("sm100_tcgen05_mxf4");
  REQUIRE(m != nullptr);
  std::vector<uint64_t> a(64, 0), b(64, 0);
  a[0] = enc(Fmt::kE2M1, -4);
  b[0] = enc(Fmt::kE2M1, 4);
  a[32] = enc(Fmt::kE2M1, -4);
  a[33] = enc(Fmt::kE2M1, -2);
  a[34] = enc(Fmt::kE2M1, -1);
  b[32] = b[33] = b[34] = enc(Fmt::kE2M1, 1);
  const std::vector<uint64_t> sa = {127 + 10, 127 - 3}, sb = {127 + 9, 127};
  const uint64_t d = mma_dot(*m, Fmt::kE2M1, Fmt::kE2M1, a, b,
                             enc(Fmt::kF32, 8388608.0), sa, sb);
  CHECK(as_f32(d) == -0.875f);
}

TEST_CASE("e_zero decides an exact tie (fpy validate_nv.py)", "[mma][pinned]") {
  // FP16 in, FP16 out, F = 24: A = [2^-14, 2^-24, 0], B = [2^-11, 2^-24, 1],
  // C = 0. With e_zero = -21 the 2^-48 product is truncated and the sum is an
  // exact RNE tie -> 0.0; with e_zero = -29 the result is 2^-24.
  std::vector<uint64_t> a = {enc(Fmt::kF16, 0x1p-14), enc(Fmt::kF16, 0x1p-24),
                             0};
  std::vector<uint64_t> b = {enc(Fmt::kF16, 0x1p-11), enc(Fmt::kF16, 0x1p-24),
                             enc(Fmt::kF16, 1.0)};
  FdpaOperands o;
  o.a_fmt = o.b_fmt = o.c_fmt = Fmt::kF16;
  o.a = a;
  o.b = b;
  o.c = 0;
  CHECK(fdpa_chain({3, 0, 24, AccRound::kRneF16, -21}, o) == 0x0000);
  CHECK(fdpa_chain({3, 0, 24, AccRound::kRneF16, -29}, o) == 0x0001);
}

TEST_CASE("Hopper FP8 truncates C to 13 fraction bits", "[mma][pinned]") {
  // Research file section 6: all products zero, C = 1 + 2^-20 -> D = 1.0 on
  // wgmma FP8 (F = 13, RZ-E8M13); the Blackwell f8f6f4 path keeps C.
  std::vector<uint64_t> z(32, 0);
  const uint64_t c = enc(Fmt::kF32, 1.0 + 0x1p-20);
  const MmaModel* h = find_mma_model("sm90_wgmma_fp8_f32");
  const MmaModel* bw = find_mma_model("sm100_tcgen05_f8f6f4_f32");
  CHECK(mma_dot(*h, Fmt::kE4M3, Fmt::kE4M3, z, z, c) == 0x3F800000);
  CHECK(mma_dot(*bw, Fmt::kE4M3, Fmt::kE4M3, z, z, c) == c);
}

TEST_CASE("special values in the FDPA (MMA-Sim dpa_special_values)",
          "[mma][pinned]") {
  const MmaModel* m = find_mma_model("sm100_tcgen05_mxf8f6f4");
  std::vector<uint64_t> a(32, enc(Fmt::kE5M2, 1.0)), b = a;
  std::vector<uint64_t> s = {0x7F}, nan_s = {0xFF};
  CHECK(mma_dot(*m, Fmt::kE5M2, Fmt::kE5M2, a, b, 0, s, s) ==
        enc(Fmt::kF32, 32.0));
  // A NaN scale makes the block NaN: canonical 0x7FFFFFFF.
  CHECK(mma_dot(*m, Fmt::kE5M2, Fmt::kE5M2, a, b, 0, nan_s, s) == 0x7FFFFFFF);
  // Inf * 0 -> NaN; +Inf and -Inf products -> NaN; one Inf -> Inf.
  a[0] = 0x7C;  // E5M2 +Inf
  b[0] = 0x00;
  CHECK(mma_dot(*m, Fmt::kE5M2, Fmt::kE5M2, a, b, 0, s, s) == 0x7FFFFFFF);
  b[0] = enc(Fmt::kE5M2, 1.0);
  CHECK(mma_dot(*m, Fmt::kE5M2, Fmt::kE5M2, a, b, 0, s, s) == 0x7F800000);
  a[1] = 0xFC;  // -Inf
  CHECK(mma_dot(*m, Fmt::kE5M2, Fmt::kE5M2, a, b, 0, s, s) == 0x7FFFFFFF);
  // Overflow gives Inf even under RZ: 32 * 57344^2 * 2^127 scales.
  std::vector<uint64_t> big(32, 0x7B), hs = {0xFE};
  CHECK(mma_dot(*m, Fmt::kE5M2, Fmt::kE5M2, big, big, 0, hs, s) == 0x7F800000);
}

TEST_CASE("GEMM layouts read the same logical matrices", "[mma][gemm]") {
  // A 2x32 . 32x3 product in all four layouts gives one D.
  const MmaModel* m = find_mma_model("sm100_tcgen05_f8f6f4_f32");
  const int M = 2, N = 3, K = 32;
  auto av = [](int i, int k) { return 0.25 * ((i * 7 + k * 3) % 9) - 1.0; };
  auto bv = [](int k, int j) { return 0.5 * ((k * 5 + j * 11) % 7) - 1.5; };
  std::vector<uint64_t> D0;
  for (GemmLayout l : {GemmLayout::kTN, GemmLayout::kNN, GemmLayout::kNT,
                       GemmLayout::kTT}) {
    GemmProblem p;
    p.M = M;
    p.N = N;
    p.K = K;
    p.layout = l;
    p.A.resize(M * K);
    p.B.resize(K * N);
    p.C.assign(M * N, 0);
    const bool ak = l == GemmLayout::kTN || l == GemmLayout::kTT;
    const bool bk = l == GemmLayout::kTN || l == GemmLayout::kNN;
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < K; ++k)
        p.A[ak ? i * K + k : k * M + i] = enc(Fmt::kE4M3, av(i, k));
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < N; ++j)
        p.B[bk ? j * K + k : k * N + j] = enc(Fmt::kE4M3, bv(k, j));
    const auto D = gemm(*m, p);
    if (D0.empty()) {
      D0 = D;
      // Exact here (small integers and quarters): check one entry.
      double want = 0;
      for (int k = 0; k < K; ++k) want += av(1, k) * bv(k, 2);
      CHECK(as_f32(D[2 * M + 1]) == static_cast<float>(want));
    } else {
      CHECK(D == D0);
    }
  }
}

// Issue 12: the zero rules and the mma.sync FP8 structure on the emulator,
// with the expectations derived by hand in tests/test_fdpa_oracle_self.cpp
// (same operands, same bits).
TEST_CASE("zero-term exponent: fixed vs operand-min (MMA-Sim HEAD)",
          "[mma][pinned]") {
  const MmaModel* h = find_mma_model("sm90_wgmma_fp8_f32");
  REQUIRE(h != nullptr);
  std::vector<uint64_t> a(32, 0), b(32, 0);
  b[0] = 0x7E;                    // 448 against A[0] = +0
  const uint64_t c = 0x03800C00;  // (1 + 2^-12 + 2^-13) * 2^-120
  const MmaModel fixed =
      with_zero_rules(*h, ZeroExp::kFixed, ZeroSign::kPositive);
  const MmaModel opmin =
      with_zero_rules(*h, ZeroExp::kOperandMin, ZeroSign::kPositive);
  CHECK(mma_dot(fixed, Fmt::kE4M3, Fmt::kE4M3, a, b, c) == 0x03800C00);
  CHECK(mma_dot(opmin, Fmt::kE4M3, Fmt::kE4M3, a, b, c) == 0x03800000);

  const MmaModel* g = find_mma_model("sm100_tcgen05_mxf4");
  REQUIRE(g != nullptr);
  std::vector<uint64_t> x(64, 0), y(64, 0);
  x[32] = y[32] = 0x2;  // e2m1 1.0
  const std::vector<uint64_t> sa = {127 + 100, 127}, sb = {127, 127};
  CHECK(mma_dot(with_zero_rules(*g, ZeroExp::kFixed, ZeroSign::kPositive),
                Fmt::kE2M1, Fmt::kE2M1, x, y, 0, sa, sb) == 0x3F800000);
  CHECK(mma_dot(with_zero_rules(*g, ZeroExp::kOperandMin, ZeroSign::kPositive),
                Fmt::kE2M1, Fmt::kE2M1, x, y, 0, sa, sb) == 0);
}

TEST_CASE("sign of a zero result: ieee vs positive", "[mma][pinned]") {
  const MmaModel* m = find_mma_model("sm100_tcgen05_f8f6f4_f32");
  REQUIRE(m != nullptr);
  std::vector<uint64_t> a(32, 0x80), b(32, 0);  // every product -0
  const MmaModel ieee = with_zero_rules(*m, ZeroExp::kFixed, ZeroSign::kIeee);
  CHECK(mma_dot(ieee, Fmt::kE4M3, Fmt::kE4M3, a, b, 0x80000000) == 0x80000000);
  CHECK(mma_dot(*m, Fmt::kE4M3, Fmt::kE4M3, a, b, 0x80000000) == 0);  // default
  // A negative sum below the f32 subnormals (ST-FDPA, scales 2^-75 each).
  const MmaModel* st = find_mma_model("sm100_tcgen05_mxf8f6f4");
  std::vector<uint64_t> x(32, 0), y(32, 0);
  x[0] = 0xB8;
  y[0] = 0x38;
  const std::vector<uint64_t> s = {127 - 75};
  CHECK(mma_dot(with_zero_rules(*st, ZeroExp::kFixed, ZeroSign::kIeee),
                Fmt::kE4M3, Fmt::kE4M3, x, y, 0, s, s) == 0x80000000);
  CHECK(mma_dot(*st, Fmt::kE4M3, Fmt::kE4M3, x, y, 0, s, s) == 0);
}

TEST_CASE("mma.sync FP8 on sm_90: C outside, k mod 4 grouping (captures)",
          "[mma][pinned]") {
  const MmaModel* f16 = find_mma_model("sm90_mma_fp8_f16");
  const MmaModel* f32 = find_mma_model("sm90_mma_fp8_f32");
  REQUIRE(f16 != nullptr);
  REQUIRE(f32 != nullptr);
  std::vector<uint64_t> a(32, 0), b(32, 0);
  a[0] = 0x68;  // e5m2 2048
  b[0] = 0x3C;
  a[1] = b[1] = a[2] = b[2] = 0x3C;
  // {0,1}: 2049 -> 2048; {2,3}: 2049 -> 2048; + C = 1: 2049 -> 2048.
  CHECK(mma_dot(*f16, Fmt::kE5M2, Fmt::kE5M2, a, b, 0x3C00) == 0x6800);
  std::vector<uint64_t> x(32, 0), y(32, 0);
  x[0] = y[0] = 0x38;
  // 1.0 + 1.5 * 2^-24 by an RNE f32 add: 1 + 2^-23.
  CHECK(mma_dot(*f32, Fmt::kE4M3, Fmt::kE4M3, x, y, 0x33C00000) == 0x3F800001);
  // The wgmma path keeps C inside its FDPA (RZ-E8M13): 1.0.
  CHECK(mma_dot(*find_mma_model("sm90_wgmma_fp8_f32"), Fmt::kE4M3, Fmt::kE4M3,
                x, y, 0x33C00000) == 0x3F800000);
}
