// The ISAs a fast-path test checks (emu/fast/isa.h): every one this build
// and CPU dispatch to, the scalar path first, and their names for the
// line each test prints about what ran.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "emu/fast/isa.h"

namespace mxc::test {

inline const std::vector<fast::Isa>& isas() { return fast::isa_available(); }

// "scalar, avx2 (AVX2)": MXC_ISA names, Highway's target in parentheses.
inline std::string isa_list() {
  std::string s;
  for (fast::Isa i : isas()) {
    s += fmt::format("{}{}", s.empty() ? "" : ", ", fast::isa_name(i));
    if (i != fast::Isa::kScalar)
      s += fmt::format(" ({})", fast::isa_target_name(i));
  }
  return s;
}

}  // namespace mxc::test
