// The wide fast path (emu/fast/convert_wide.h) against the reference
// mxc::convert: every f32 high half-word (sign, exponent, top fraction
// bits) times low half-words that decide rounding (0, 1, just below, at
// and above every target's half-ulp and ulp for bf16 and f16, all ones),
// for every covered mode and overflow policy.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "emu/convert.h"
#include "emu/fast/convert_wide.h"

using namespace mxc;

TEST_CASE("Wide fast path equals the reference (f32 -> bf16, f16)",
          "[fast][convert]") {
  const std::vector<uint32_t> lows = {
      0x0000, 0x0001, 0x0002, 0x0FFF, 0x1000, 0x1001, 0x1FFF, 0x2000,
      0x2001, 0x3000, 0x5000, 0x7FFF, 0x8000, 0x8001, 0xC000, 0xE000,
      0xF000, 0xFFFE, 0xFFFF, 0x4000, 0x6001, 0x9FFF, 0xA000, 0x0800};
  std::vector<uint32_t> in;
  in.reserve(65536 * lows.size());
  for (uint32_t hi = 0; hi < 65536; ++hi)
    for (uint32_t lo : lows) in.push_back(hi << 16 | lo);
  std::vector<uint16_t> out(in.size());
  int covered = 0;
  for (Fmt to : {Fmt::kBF16, Fmt::kF16}) {
    for (Round m : {Round::kRNE, Round::kRZ, Round::kRU, Round::kRD,
                    Round::kRNA, Round::kOdd}) {
      for (Overflow ov : {Overflow::kFormat, Overflow::kSatFinite}) {
        RoundSpec r;
        r.mode = m;
        r.overflow = ov;
        REQUIRE(fast::wide_covers(to, r));
        ++covered;
        fast::convert_f32_wide_batch(to, r, in.data(), out.data(), in.size());
        size_t bad = 0;
        uint32_t first = 0;
        for (size_t i = 0; i < in.size(); ++i) {
          if (out[i] != convert(Fmt::kF32, to, in[i], r)) {
            if (bad++ == 0) first = in[i];
          }
        }
        INFO("to " << static_cast<int>(to) << " mode " << static_cast<int>(m)
                   << " overflow " << static_cast<int>(ov)
                   << " first bad input " << first);
        CHECK(bad == 0);
      }
    }
  }
  CHECK(covered == 24);
}

TEST_CASE("Wide fast path declines what it does not cover", "[fast]") {
  RoundSpec r;
  CHECK_FALSE(fast::wide_covers(Fmt::kE4M3, r));
  CHECK_FALSE(fast::wide_covers(Fmt::kF32, r));
  r.relu = true;
  CHECK_FALSE(fast::wide_covers(Fmt::kBF16, r));
  r.relu = false;
  r.overflow = Overflow::kInf;
  CHECK_FALSE(fast::wide_covers(Fmt::kBF16, r));
  r.overflow = Overflow::kFormat;
  r.mode = Round::kSR;
  CHECK_FALSE(fast::wide_covers(Fmt::kF16, r));
  uint32_t x = 0;
  uint16_t y = 0;
  CHECK_THROWS_AS(fast::convert_f32_wide_batch(Fmt::kF16, r, &x, &y, 1),
                  std::invalid_argument);
}
