// Test depth, from the environment variable MXC_TEST_LEVEL:
//   0  quick (sanitizer builds): structured cases, few random ones
//   1  CI (default): structured cases plus >= 2^24 random inputs
//   2  deep: exhaustive 2^32 f32 sweeps (minutes to hours; never in CI)
#pragma once

#include <cstdlib>

namespace mxc::test {

inline int level() {
  const char* s = std::getenv("MXC_TEST_LEVEL");
  if (s == nullptr || *s == '\0') return 1;
  return std::atoi(s);
}

}  // namespace mxc::test
