// fast::abs_max_bits (emu/fast/amax_hwy.cpp, behind tensor_amax) on every
// ISA against max |x| by value (std::fabs, NaN noticed by x != x): lengths
// around the vector and unroll widths, the maximum at every position, with
// -0, subnormals, Inf and NaN planted.
#include <fmt/format.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "conformance/splitmix64.h"
#include "emu/block/quantize.h"
#include "emu/fast/amax.h"
#include "test_isas.h"

using namespace mxc;

namespace {

// The oracle: the magnitude bits of the largest |x| by value, or NaN.
uint32_t by_value(const std::vector<uint32_t>& x, size_t n) {
  float m = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    const float v = std::fabs(std::bit_cast<float>(x[i]));
    if (v != v) return 0x7FC00000u;
    if (v > m) m = v;
  }
  return std::bit_cast<uint32_t>(m);
}

}  // namespace

TEST_CASE("abs_max_bits equals max |x| by value on every ISA", "[fast][amax]") {
  SplitMix64 g(0x77u);
  for (fast::Isa isa : test::isas()) {
    long cases = 0, fails = 0;
    for (size_t n :
         {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{63}, size_t{64},
          size_t{65}, size_t{129}, size_t{1000},
          // around the kernel's 8192-element chunks (read last
          // chunk first)
          size_t{8191}, size_t{8192}, size_t{8193}, size_t{3 * 8192 + 77}}) {
      for (size_t at = 0; at < n; at += 1 + n / 17) {
        for (int plant = 0; plant < 4; ++plant) {
          std::vector<uint32_t> x(n);
          for (auto& v : x)
            v = static_cast<uint32_t>(g.next()) & 0xBF7FFFFFu;  // < 2
          if (n > 1) x[(at + 1) % n] = 0x80000000u;
          if (n > 2) x[(at + 2) % n] = 0x00000001u;
          const uint32_t big[] = {0x7F7FFFFFu, 0xFF800000u, 0x7FC00001u,
                                  0xFFFFFFFFu};
          x[at] = big[plant];
          const uint32_t m = fast::abs_max_bits(isa, x.data(), n);
          const uint32_t want = by_value(x, n);
          const uint32_t got = m > 0x7F800000u ? 0x7FC00000u : m;
          ++cases;
          if (got != want && ++fails <= 5)
            UNSCOPED_INFO(fmt::format("{} n {} at {}: {:#010x} vs {:#010x}",
                                      fast::isa_name(isa), n, at, got, want));
        }
      }
    }
    INFO(fmt::format("{}: {} arrays", fast::isa_name(isa), cases));
    CHECK(fails == 0);
    CHECK(fast::abs_max_bits(isa, nullptr, 0) == 0u);
  }
}

TEST_CASE("abs_max_bits16 equals abs_max_bits per block of 16 on every ISA",
          "[fast][amax]") {
  SplitMix64 g(0x78u);
  for (fast::Isa isa : test::isas()) {
    long fails = 0;
    for (size_t nb :
         {size_t{0}, size_t{1}, size_t{3}, size_t{15}, size_t{16}, size_t{17},
          size_t{40}, size_t{100},
          // around the kernel's 512-block chunks
          size_t{511}, size_t{512}, size_t{513}, size_t{2 * 512 + 37}}) {
      std::vector<uint32_t> x(16 * nb);
      for (auto& v : x) v = static_cast<uint32_t>(g.next()) & 0xBF7FFFFFu;
      // Blocks of zeros, -0, subnormals, Inf and NaN of both signs.
      const uint32_t plant[] = {0x80000000u, 0x00000001u, 0xFF800000u,
                                0x7FC00001u, 0xFFFFFFFFu, 0x7F7FFFFFu};
      for (size_t b = 0; b < nb; b += 3)
        x[16 * b + g.next() % 16] = plant[g.next() % 6];
      if (nb > 4) std::fill(x.begin() + 64, x.begin() + 80, 0u);
      std::vector<uint32_t> am(nb, 0xDEADBEEFu);
      const uint32_t m = fast::abs_max_bits16(isa, x.data(), nb, am.data());
      if (m != fast::abs_max_bits(fast::Isa::kScalar, x.data(), x.size()))
        ++fails;
      for (size_t b = 0; b < nb; ++b) {
        const uint32_t want =
            fast::abs_max_bits(fast::Isa::kScalar, x.data() + 16 * b, 16);
        if (am[b] != want && ++fails <= 5)
          UNSCOPED_INFO(fmt::format("{} nb {} block {}: {:#010x} vs {:#010x}",
                                    fast::isa_name(isa), nb, b, am[b], want));
      }
    }
    INFO(fast::isa_name(isa));
    CHECK(fails == 0);
  }
}
