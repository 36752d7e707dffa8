// Stochastic rounding against its bit-level definition (docs/rounding.md):
// for every value of the random bits the result is one of the two
// neighbours, the number of rbits values that round away from zero equals
// floor(frac * 2^k) computed exactly by the reference, and over all rbits the
// expectation equals the input whenever frac has at most k bits (unbiased).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <boost/multiprecision/cpp_int.hpp>

#include "conformance/cases.h"
#include "conformance/oracle/exact_oracle.h"
#include "conformance/splitmix64.h"
#include "emu/convert.h"
#include "test_level.h"

using namespace mxc;
using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

namespace {

cpp_rational parse_frac(const std::string& s) {
  const auto slash = s.find('/');
  return cpp_rational(cpp_int(s.substr(0, slash)), cpp_int(s.substr(slash + 1)));
}

// Sweep all 2^k rbits for one input; returns the count of results == hi.
void sweep_one(Fmt from, Fmt to, uint64_t x, int k, bool full) {
  oracle::Spec os;
  os.mode = oracle::Mode::SR;
  os.sr_bits = k;
  os.saturate = true;
  const oracle::Neighbours nb =
      oracle::neighbours(desc(from).name, desc(to).name, x, os);
  uint64_t ups = 0, downs = 0;
  RoundSpec r;
  r.mode = Round::kSR;
  r.sr_bits = full ? kSrBitsFull : k;
  r.overflow = Overflow::kSatFinite;
  for (uint64_t rb = 0; rb < (uint64_t{1} << k); ++rb) {
    r.rbits = static_cast<uint32_t>(rb);
    os.rbits = static_cast<uint32_t>(rb);
    const uint64_t got = convert(from, to, x, r);
    REQUIRE(got == oracle::exact_convert(desc(from).name, desc(to).name, x, os));
    if (nb.exact || nb.lo_bits == nb.hi_bits) {  // exact, or both clamp
      REQUIRE(got == nb.lo_bits);
      continue;
    }
    if (got == nb.hi_bits) {
      ++ups;
    } else {
      REQUIRE(got == nb.lo_bits);
      ++downs;
    }
  }
  if (nb.exact || nb.lo_bits == nb.hi_bits) return;
  // P(hi) = floor(f * 2^k) / 2^k, f = frac for x > 0, 1 - frac for x < 0.
  cpp_rational f = parse_frac(nb.frac);
  const bool neg = desc(from).sign_mask() & x;
  if (neg && desc(to).has_sign) f = 1 - f;
  const cpp_rational scaled = f * cpp_rational(cpp_int(1) << k);
  const cpp_int want =
      boost::multiprecision::numerator(scaled) /
      boost::multiprecision::denominator(scaled);
  const uint64_t expect_away = static_cast<uint64_t>(want);
  const uint64_t away = neg && desc(to).has_sign ? downs : ups;
  INFO(fmt::format("{} -> {} x={:X} k={} frac={}", desc(from).name,
                   desc(to).name, x, k, nb.frac));
  CHECK(away == expect_away);
  // Unbiased: if f * 2^k is an integer, the mean over all rbits is x exactly.
  if (boost::multiprecision::denominator(scaled) == 1) {
    CHECK(cpp_rational(cpp_int(away), cpp_int(1) << k) == f);
  }
}

}  // namespace

TEST_CASE("stochastic rounding, 8 random bits (PTX cvt.rs e2m1x4 width)",
          "[sr]") {
  const int n = test::level() <= 0 ? 20 : 300;
  for (Fmt to : {Fmt::kE2M1, Fmt::kE4M3, Fmt::kE5M2, Fmt::kE3M2, Fmt::kE2M3,
                 Fmt::kInt8, Fmt::kUE4M3}) {
    const auto in = boundary_inputs(Fmt::kF32, to, 3);
    SplitMix64 g(0x5C + static_cast<uint64_t>(to));
    for (int i = 0; i < n; ++i) {
      sweep_one(Fmt::kF32, to, in[g.next() % in.size()], 8, false);
    }
  }
}

TEST_CASE("stochastic rounding with every discarded bit (rs-full)", "[sr]") {
  // Pairs whose full width is small enough to sweep all rbits values:
  // bf16 -> e4m3 (7-3 = 4 bits), bf16 -> e2m1 (6 bits), f16 -> e4m3 (7),
  // f16 -> e2m1 (9), f16 -> e5m2 (8).
  const int n = test::level() <= 0 ? 10 : 150;
  const std::pair<Fmt, Fmt> pairs[] = {{Fmt::kBF16, Fmt::kE4M3},
                                       {Fmt::kBF16, Fmt::kE2M1},
                                       {Fmt::kF16, Fmt::kE4M3},
                                       {Fmt::kF16, Fmt::kE2M1},
                                       {Fmt::kF16, Fmt::kE5M2}};
  for (auto [from, to] : pairs) {
    const int k = full_sr_bits(from, to);
    const auto in = boundary_inputs(from, to, 3);
    SplitMix64 g(0xF011 + static_cast<uint64_t>(to));
    for (int i = 0; i < n; ++i) {
      sweep_one(from, to, in[g.next() % in.size()], k, true);
    }
  }
}
