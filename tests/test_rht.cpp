// The 16-point random Hadamard transform. Expected values follow from the
// definition in emu/block/rht.h (Sylvester H16, y = H16 D x / 4) by hand, and
// from NVIDIA/TransformerEngine transformer_engine/pytorch/tensor/
// nvfp4_tensor.py (commit 01634950ba17e76ef8c73ef36039ea4588ef50fb): its
// get_wgrad_sign_vector() and the rows of get_hadamard_matrix().
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "emu/block/rht.h"

using namespace mxc;

namespace {

Dyadic dy(float x) { return Dyadic::from_float(x); }

Dyadic sum_squares(const ExactBlock16& v) {
  Dyadic s;
  for (const Dyadic& t : v) s = s + t * t;
  return s;
}

// Random finite floats spanning a wide exponent range, both signs, some
// zeros and subnormals.
Block16 random_block(std::mt19937& g, int emin, int emax) {
  std::uniform_int_distribution<int> exp(emin, emax);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> pick(0, 15);
  Block16 x;
  for (float& t : x) {
    const int p = pick(g);
    t = p == 0 ? 0.0f : std::ldexp(mant(g), exp(g));
    if (p % 2 == 1) t = -t;
  }
  return x;
}

}  // namespace

TEST_CASE("H16 is the Sylvester Hadamard matrix: H H^T = 16 I", "[rht]") {
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      int dot = 0;
      for (int k = 0; k < 16; ++k) dot += hadamard16(i, k) * hadamard16(j, k);
      CHECK(dot == (i == j ? 16 : 0));
      CHECK(hadamard16(i, j) == hadamard16(j, i));
    }
  }
  // Rows 3 and 15 of TE's get_hadamard_matrix() (before the 1/4 scale).
  const int row3[16] = {1, -1, -1, 1, 1, -1, -1, 1, 1, -1, -1, 1, 1, -1, -1, 1};
  const int row15[16] = {1,  -1, -1, 1,  -1, 1,  1,  -1,
                         -1, 1,  1,  -1, 1,  -1, -1, 1};
  for (int k = 0; k < 16; ++k) {
    CHECK(hadamard16(3, k) == row3[k]);
    CHECK(hadamard16(15, k) == row15[k]);
    CHECK(hadamard16(0, k) == 1);
  }
  // Sylvester recursion H2n = [[Hn, Hn], [Hn, -Hn]] at n = 8.
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      CHECK(hadamard16(i, j + 8) == hadamard16(i, j));
      CHECK(hadamard16(i + 8, j) == hadamard16(i, j));
      CHECK(hadamard16(i + 8, j + 8) == -hadamard16(i, j));
    }
  }
}

TEST_CASE("TE's wgrad sign vector as a mask", "[rht][pinned]") {
  // get_wgrad_sign_vector() and get_sign_from_vector (bit i <- v[i] == -1).
  const int v[16] = {1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1};
  unsigned mask = 0;
  for (int i = 0; i < 16; ++i) mask |= unsigned{v[i] == -1} << i;
  CHECK(mask == 0xD7E8u);
  CHECK(kTeWgradSignMask == 0xD7E8u);
}

TEST_CASE("Hand-computed RHT examples", "[rht][pinned]") {
  SECTION("e_3 with TE's signs: column 3 of H16, times s_3 / 4") {
    // y_j = H[j][3] * s_3 / 4 with s_3 = -1 (bit 3 of 0xD7E8 is set) and
    // H[j][3] = (-1)^popcount(j & 3) = +1, -1, -1, +1 for j % 4 = 0..3.
    Block16 x{};
    x[3] = 1.0f;
    const Block16 expect = {-0.25f, 0.25f,  0.25f,  -0.25f, -0.25f, 0.25f,
                            0.25f,  -0.25f, -0.25f, 0.25f,  0.25f,  -0.25f,
                            -0.25f, 0.25f,  0.25f,  -0.25f};
    CHECK(rht16_f32(x, kTeWgradSignMask) == expect);
    CHECK(rht16_exact_rne(x, kTeWgradSignMask) == expect);
  }
  SECTION("e_0 maps to the first column of H16 (all ones) times s_0 / 4") {
    Block16 x{};
    x[0] = 2.0f;
    Block16 plus, minus;
    plus.fill(0.5f);
    minus.fill(-0.5f);
    CHECK(rht16_f32(x, 0) == plus);
    CHECK(rht16_f32(x, 0x0001) == minus);
    CHECK(rht16_exact_rne(x, 0xFFFF) == minus);
  }
  SECTION("all ones, no signs: only row 0 survives, 16 / 4 = 4") {
    Block16 x;
    x.fill(1.0f);
    Block16 expect{};
    expect[0] = 4.0f;
    CHECK(rht16_f32(x, 0) == expect);
    CHECK(rht16_exact_rne(x, 0) == expect);
  }
  SECTION("x = (1, 2, 0, ...), no signs") {
    // y_j = (1 + 2 * (-1)^(j & 1)) / 4: 0.75 for even j, -0.25 for odd j.
    Block16 x{};
    x[0] = 1.0f;
    x[1] = 2.0f;
    const ExactBlock16 y = rht16_exact(x, 0);
    for (int j = 0; j < 16; ++j) {
      CHECK(y[j] == dy(j % 2 == 0 ? 0.75f : -0.25f));
    }
  }
}

TEST_CASE("The exact RHT needs more than a double", "[rht]") {
  // x0 = 2^100, x1 = 2^-100: y_0 = (2^100 + 2^-100) / 4 needs 201 bits.
  Block16 x{};
  x[0] = std::ldexp(1.0f, 100);
  x[1] = std::ldexp(1.0f, -100);
  const ExactBlock16 y = rht16_exact(x, 0);
  const Dyadic want0 = ldexp(dy(x[0]) + dy(x[1]), -2);
  const Dyadic want1 = ldexp(dy(x[0]) - dy(x[1]), -2);
  CHECK(y[0] == want0);
  CHECK(y[1] == want1);
  CHECK(y[0] != dy(std::ldexp(1.0f, 98)));  // not equal to the rounded value
  // RNE: 2^98 + 2^-102 rounds to 2^98; 2^98 - 2^-102 also rounds to 2^98
  // (the f32 spacing just below 2^98 is 2^74).
  CHECK(round_to_f32_rne(y[0]) == std::ldexp(1.0f, 98));
  CHECK(round_to_f32_rne(y[1]) == std::ldexp(1.0f, 98));
  // Inverse recovers both exactly.
  const ExactBlock16 back = rht16_inverse_exact(y, 0);
  CHECK(back[0] == dy(x[0]));
  CHECK(back[1] == dy(x[1]));
}

TEST_CASE("round_to_f32_rne: ties, subnormals, overflow", "[rht]") {
  const Dyadic one = dy(1.0f);
  // 1 + 2^-24 is halfway between 1 and 1 + 2^-23: ties to even -> 1.
  CHECK(round_to_f32_rne(one + Dyadic{1, -24}) == 1.0f);
  // 1 + 3 * 2^-24 is halfway between 1 + 2^-23 and 1 + 2^-22: even is the
  // latter.
  CHECK(round_to_f32_rne(one + Dyadic{3, -24}) == 1.0f + std::ldexp(1.0f, -22));
  CHECK(round_to_f32_rne(one + Dyadic{1, -23}) == 1.0f + std::ldexp(1.0f, -23));
  CHECK(round_to_f32_rne(one + Dyadic{1, -60}) == 1.0f);
  CHECK(round_to_f32_rne(
            one + Dyadic{(boost::multiprecision::cpp_int(1) << 36) + 1, -60}) ==
        1.0f + std::ldexp(1.0f, -23));
  // Subnormals: 2^-150 is half the least subnormal: ties to even (0).
  CHECK(round_to_f32_rne(Dyadic{1, -150}) == 0.0f);
  CHECK(round_to_f32_rne(Dyadic{3, -150}) == std::ldexp(1.0f, -148));
  CHECK(round_to_f32_rne(Dyadic{-5, -151}) == -std::ldexp(1.0f, -149));
  CHECK(round_to_f32_rne(Dyadic{-3, -151}) == -std::ldexp(1.0f, -149));
  // Largest subnormal up to the least normal: (2^23 - 1/2) * 2^-149 ties to
  // even 2^23 * 2^-149 = 2^-126.
  CHECK(round_to_f32_rne(Dyadic{(uint32_t{1} << 24) - 1, -150}) ==
        std::numeric_limits<float>::min());
  // Overflow: max f32 = (2^24 - 1) * 2^104; halfway to 2^128 ties to the
  // even 2^128 -> Inf; just below halfway stays at max.
  const float max = std::numeric_limits<float>::max();
  const Dyadic halfway{(uint64_t{1} << 25) - 1, 103};
  CHECK(std::isinf(round_to_f32_rne(halfway)));
  CHECK(round_to_f32_rne(halfway - Dyadic{1, 0}) == max);
  CHECK(round_to_f32_rne(-halfway) == -std::numeric_limits<float>::infinity());
  CHECK(round_to_f32_rne(Dyadic{}) == 0.0f);
  CHECK(!std::signbit(round_to_f32_rne(Dyadic{})));
  // Every float round-trips.
  for (float f : {1.5f, -0.1f, 3.0e38f, 1.0e-40f, -1.0e-45f, 6.0f}) {
    CHECK(round_to_f32_rne(dy(f)) == f);
  }
}

TEST_CASE("Exact RHT: inverse and orthogonality", "[rht]") {
  std::mt19937 g(20261202);
  for (int trial = 0; trial < 200; ++trial) {
    const Block16 x = random_block(g, -149, 127);
    const uint16_t signs =
        trial == 0 ? kTeWgradSignMask : static_cast<uint16_t>(g() & 0xFFFF);
    const ExactBlock16 ex = to_exact(x);
    const ExactBlock16 y = rht16_exact(x, signs);
    // D H^T / 4 undoes H D / 4 exactly.
    CHECK(rht16_inverse_exact(y, signs) == ex);
    // Orthonormal: the sum of squares is preserved exactly.
    CHECK(sum_squares(y) == sum_squares(ex));
    // With no signs, H / 4 is its own inverse: applying it twice is the
    // identity (H16 H16 = 16 I).
    CHECK(rht16_exact(rht16_exact(x, 0), 0) == ex);
  }
}

TEST_CASE("f32 RHT stays within the documented bound of the exact one",
          "[rht]") {
  // |y_f32 - y_exact| <= gamma_4 * sum|x| / 4 + 2^-150, gamma_4 = 4u/(1-4u)
  // < 5u with u = 2^-24; 5u * S / 4 = 5 * 2^-26 * S.
  std::mt19937 g(7);
  int inexact = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    // Exponents up to 120 keep sums of 16 far from overflow; down to -140
    // exercises subnormal outputs.
    const Block16 x =
        trial % 2 == 0 ? random_block(g, -8, 8) : random_block(g, -140, 120);
    const uint16_t signs = static_cast<uint16_t>(g() & 0xFFFF);
    const ExactBlock16 y = rht16_exact(x, signs);
    const Block16 yf = rht16_f32(x, signs);
    Dyadic s;
    for (float t : x) s = s + abs(dy(t));
    const Dyadic bound = Dyadic{5, -26} * s + Dyadic{1, -150};
    for (size_t j = 0; j < 16; ++j) {
      const Dyadic err = abs(dy(yf[j]) - y[j]);
      CHECK(err <= bound);
      if (!err.is_zero()) ++inexact;
    }
  }
  // The bound is not vacuous: f32 rounding does happen on these inputs.
  CHECK(inexact > 0);
}

TEST_CASE("rht16_f32 follows the documented butterfly order", "[rht]") {
  // Step 2 at h = 1 forms v0 + v1 first. With x = (2^24, 1, 1, 0, ...) and no
  // signs: h=1 gives v0 = fl(2^24 + 1) = 2^24 (tie to even), v1 = 2^24 - 1,
  // v2 = 1, v3 = 1; h=2 gives v0 = fl(2^24 + 1) = 2^24 again. So y_0 =
  // 2^24 / 4 = 2^22, whereas the exact y_0 = (2^24 + 2) / 4 = 2^22 + 0.5.
  Block16 x{};
  x[0] = 16777216.0f;
  x[1] = 1.0f;
  x[2] = 1.0f;
  const Block16 y = rht16_f32(x, 0);
  CHECK(y[0] == 4194304.0f);
  CHECK(rht16_exact_rne(x, 0)[0] == 4194304.5f);
}

TEST_CASE("rht16_rows applies the transform to each 16-element chunk",
          "[rht]") {
  std::mt19937 g(3);
  const size_t rows = 3, cols = 48;
  std::vector<float> m(rows * cols);
  for (float& t : m)
    t = std::ldexp(static_cast<float>(g() % 1000) - 500.0f, -4);
  std::vector<float> out(m.size()), out_exact(m.size());
  rht16_rows_f32(m, out, rows, cols, kTeWgradSignMask);
  rht16_rows_exact_rne(m, out_exact, rows, cols, kTeWgradSignMask);
  for (size_t c = 0; c < rows * cols / 16; ++c) {
    Block16 x;
    for (size_t k = 0; k < 16; ++k) x[k] = m[16 * c + k];
    const Block16 y = rht16_f32(x, kTeWgradSignMask);
    const Block16 ye = rht16_exact_rne(x, kTeWgradSignMask);
    for (size_t k = 0; k < 16; ++k) {
      CHECK(out[16 * c + k] == y[k]);
      CHECK(out_exact[16 * c + k] == ye[k]);
    }
  }
  // In place.
  std::vector<float> inplace = m;
  rht16_rows_f32(inplace, inplace, rows, cols, kTeWgradSignMask);
  CHECK(inplace == out);
  // Bad shapes.
  std::vector<float> small(3 * 8);
  CHECK_THROWS_AS(rht16_rows_f32(small, small, 3, 8, 0), std::invalid_argument);
  CHECK_THROWS_AS(rht16_rows_f32(m, out, rows + 1, cols, 0),
                  std::invalid_argument);
}

TEST_CASE("Exact RHT rejects non-finite inputs", "[rht]") {
  Block16 x{};
  x[5] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_AS(rht16_exact(x, 0), std::invalid_argument);
  x[5] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_AS(rht16_exact(x, 0), std::invalid_argument);
  // The f32 path propagates them as IEEE arithmetic does.
  CHECK(std::isnan(rht16_f32(x, 0)[0]));
}
