// Same floats on every host (issue 16): the build compiles with
// -ffp-contract=off (top-level CMakeLists.txt), so a*b+c is a rounded
// product then a rounded sum on every target. Without it GCC fuses the two
// into one FMA wherever the target has one (AArch64 always: fmadd), which
// this test catches when it runs there (scripts/test-aarch64, under
// qemu-user). On x86 without FMA in the target it passes either way.
#include <catch2/catch.hpp>
#include <cmath>

namespace {

// Out of line, so the operands are not constants the compiler could fold
// before contraction happens.
[[gnu::noinline]] double mul_add(double a, double b, double c) {
  return a * b + c;
}
[[gnu::noinline]] float mul_add_f(float a, float b, float c) {
  return a * b + c;
}

}  // namespace

TEST_CASE("a*b+c is not contracted into an FMA", "[fp-contract]") {
  // a*b = 1 - 2^-60 exactly, which rounds to 1 in binary64: unfused
  // (1 - 1) = 0; fused, fma(a, b, -1) = -2^-60 (IEEE 754-2019 5.4.1).
  volatile double a = 1 + std::ldexp(1.0, -30), b = 1 - std::ldexp(1.0, -30);
  CHECK(std::fma(a, b, -1.0) == -std::ldexp(1.0, -60));  // the two differ
  CHECK(mul_add(a, b, -1.0) == 0.0);
  // binary32: a*b = 1 - 2^-26, below half an ulp (2^-25) under 1: rounds
  // to 1.
  volatile float af = 1 + std::ldexp(1.0f, -13), bf = 1 - std::ldexp(1.0f, -13);
  CHECK(std::fma(af, bf, -1.0f) == -std::ldexp(1.0f, -26));
  CHECK(mul_add_f(af, bf, -1.0f) == 0.0f);
}
