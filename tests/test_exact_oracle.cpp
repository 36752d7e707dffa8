// The emulator against the independent exact reference (Boost.Multiprecision
// rationals, enumerating the target's values; conformance/oracle/), for every
// rounding mode, overflow policy and .relu, on the structured boundary cases
// (+-2 source ulps around every value and midpoint of the target) and specials.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "conformance/cases.h"
#include "conformance/hex_io.h"
#include "conformance/selfcheck.h"
#include "conformance/splitmix64.h"
#include "test_level.h"

using namespace mxc;

namespace {

std::vector<uint64_t> inputs_for(const ConversionCheck& c, int level) {
  InputSet set;
  set.exhaustive_bits = 8;
  set.ulps = 2;
  // f16/bf16 targets have ~10^5 boundary inputs: sample them (seeded).
  return sample_inputs(c.from, conversion_inputs(c.from, c.to, set),
                       level <= 0 ? 400 : 6000,
                       0x5EED ^ static_cast<uint64_t>(c.to));
}

}  // namespace

TEST_CASE("conversions match the exact reference in every mode",
          "[exact][oracle]") {
  const int level = test::level();
  const auto checks = exact_checks();
  REQUIRE(checks.size() > 500);
  uint64_t total = 0;
  for (const auto& c : checks) {
    const CheckResult r = run_check(c, inputs_for(c, level));
    total += r.cases;
    INFO(fmt::format("{} -> {} {} : {} cases, {} mismatches",
                     desc(c.from).name, desc(c.to).name, spec_label(c.spec),
                     r.cases, r.mismatches));
    for (const auto& m : r.first) {
      UNSCOPED_INFO(fmt::format("  {} => {} expected: {}",
                                format_hex(c.from, m.input),
                                format_hex(c.to, m.got),
                                format_hex(c.to, m.expected)));
    }
    CHECK(r.unsupported == 0);
    CHECK(r.mismatches == 0);
  }
  CHECK(total > 100000);
}
