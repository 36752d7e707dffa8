// f32 add/mul/div through the rounding core against this machine's IEEE 754
// binary32 hardware (SSE), an implementation we did not write, in all four
// IEEE rounding directions (fesetround).
#include <catch2/catch.hpp>

#include <bit>
#include <cfenv>
#include <cmath>

#include "conformance/splitmix64.h"
#include "emu/arith.h"
#include "test_level.h"

using namespace mxc;

namespace {

uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }

// Operands biased toward interesting exponent differences and specials.
uint32_t draw(SplitMix64& g) {
  const uint64_t r = g.next();
  switch (r & 7) {
    case 0: return static_cast<uint32_t>(r >> 32);  // any pattern
    case 1: return static_cast<uint32_t>((r >> 32) & 0x807FFFFFu);  // subnormal
    case 2: return 0x7F800000u | static_cast<uint32_t>((r >> 40) & 3);  // inf/nan
    default: {
      const uint32_t e = static_cast<uint32_t>(100 + ((r >> 8) % 56));
      return static_cast<uint32_t>((r >> 32) & 0x807FFFFFu) | (e << 23);
    }
  }
}

bool same(uint32_t ours, uint32_t hw) {
  if (std::isnan(std::bit_cast<float>(hw))) {
    return ours == 0x7FFFFFFFu;  // our canonical NaN; x86's is 0xFFC00000
  }
  return ours == hw;
}

}  // namespace

TEST_CASE("f32 add, mul, div match IEEE hardware in every direction",
          "[arith]") {
  const int n = test::level() <= 0 ? 20000 : 1000000;
  const struct {
    int fe;
    Round mode;
  } dirs[] = {{FE_TONEAREST, Round::kRNE},
              {FE_TOWARDZERO, Round::kRZ},
              {FE_UPWARD, Round::kRU},
              {FE_DOWNWARD, Round::kRD}};
  for (const auto& d : dirs) {
    SplitMix64 g(0xA7 + static_cast<uint64_t>(d.fe));
    RoundSpec r;
    r.mode = d.mode;
    uint64_t bad = 0;
    for (int i = 0; i < n; ++i) {
      const uint32_t a = draw(g), b = draw(g);
      float x = std::bit_cast<float>(a), y = std::bit_cast<float>(b);
      std::fesetround(d.fe);
      // Barriers: the operations must happen after fesetround, in SSE regs.
      asm volatile("" : "+x"(x), "+x"(y));
      float s = x + y, p = x * y, q = x / y;
      asm volatile("" : "+x"(s), "+x"(p), "+x"(q));
      std::fesetround(FE_TONEAREST);
      const bool ok =
          same(static_cast<uint32_t>(fp_add(Fmt::kF32, a, b, r)), bits(s)) &&
          same(static_cast<uint32_t>(fp_mul(Fmt::kF32, a, b, r)), bits(p)) &&
          same(static_cast<uint32_t>(fp_div(Fmt::kF32, a, b, r)), bits(q));
      if (!ok && ++bad <= 5) {
        UNSCOPED_INFO("mode " << static_cast<int>(d.mode) << " a=" << std::hex
                              << a << " b=" << b);
      }
    }
    CHECK(bad == 0);
  }
}
