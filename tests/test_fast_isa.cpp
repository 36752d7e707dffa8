// The ISA dispatch (emu/fast/isa.h, issue 16): every ISA this CPU offers
// runs the code compiled for that Highway target, and the names agree.
#include <catch2/catch.hpp>
#include <cstdio>

#include "emu/fast/isa.h"

using namespace mxc;

TEST_CASE("isa: MXC_HWY_DISPATCH runs the target it names", "[fast][isa]") {
  const auto& isas = fast::isa_available();
  REQUIRE(!isas.empty());
  CHECK(isas.front() == fast::Isa::kScalar);
  CHECK(isas.back() == fast::best_isa());
  std::string ran;
  for (fast::Isa i : isas) {
    INFO(fast::isa_name(i) << " (" << fast::isa_target_name(i) << ")");
    CHECK(fast::isa_supported(i));
    CHECK(fast::parse_isa(fast::isa_name(i)) == i);
    if (i == fast::Isa::kScalar) {
      CHECK(fast::isa_hwy_target(i) == 0);
      CHECK(fast::isa_probe_target(i) == 0);
    } else {
      // The target bit comes from isa.cpp's table; the probe's value from
      // the code the dispatch table entry holds (HWY_TARGET there).
      CHECK(fast::isa_hwy_target(i) != 0);
      CHECK(fast::isa_probe_target(i) == fast::isa_hwy_target(i));
    }
    ran += std::string(ran.empty() ? "" : ", ") + fast::isa_name(i) + "=" +
           fast::isa_target_name(i);
  }
  std::printf("isa: targets dispatched and checked here: %s (compiled: %s)\n",
              ran.c_str(), fast::isa_compiled_list());
}

TEST_CASE("isa: isa_below steps down the available list", "[fast][isa]") {
  const auto& isas = fast::isa_available();
  CHECK(fast::isa_below(fast::Isa::kScalar) == fast::Isa::kScalar);
  for (size_t k = 1; k < isas.size(); ++k)
    CHECK(fast::isa_below(isas[k]) == isas[k - 1]);
}
