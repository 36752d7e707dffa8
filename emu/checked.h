// Size arithmetic that cannot wrap: every product of caller-supplied sizes
// (rows * cols, padded tile counts, buffer lengths) goes through these, so
// a huge argument is an std::invalid_argument naming it instead of a
// wrapped product that passes a size check and then overruns a buffer.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace mxc {

// a * b, or std::invalid_argument("<what>: <a> * <b> overflows ...").
inline size_t checked_mul(size_t a, size_t b, const std::string& what) {
  size_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw std::invalid_argument(what + ": " + std::to_string(a) + " * " +
                                std::to_string(b) +
                                " does not fit in a size (2^64)");
  }
  return r;
}

// x rounded up to a multiple of m (m > 0), or std::invalid_argument.
inline size_t checked_round_up(size_t x, size_t m, const std::string& what) {
  if (x > (~size_t{0}) - (m - 1)) {
    throw std::invalid_argument(what + ": " + std::to_string(x) +
                                " rounded up to a multiple of " +
                                std::to_string(m) + " does not fit in a size");
  }
  return (x + m - 1) / m * m;
}

}  // namespace mxc
