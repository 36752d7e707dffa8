// Short failure messages for byte-vector comparisons in the fast-path
// tests (Catch2 would print whole vectors), and a pass/fail tally.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mxc::test {

// "" when equal, else the number of differences and the first of them.
inline std::string byte_diff(const std::vector<uint8_t>& f,
                             const std::vector<uint8_t>& r) {
  if (f.size() != r.size())
    return fmt::format("sizes {} vs {}", f.size(), r.size());
  size_t n = 0, first = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != r[i] && n++ == 0) first = i;
  }
  if (n == 0) return "";
  return fmt::format("{} differ, first [{}] {:#04x} vs {:#04x}", n, first,
                     f[first], r[first]);
}

struct Tally {
  uint64_t cases = 0, fails = 0;
};

}  // namespace mxc::test
