// SplitMix64 (Steele, Lea, Flood 2014; the constants of Vigna's public-domain
// splitmix64.c): a tiny seeded generator for test-case selection. Same seed,
// same sequence on every machine; never libc rand().
#pragma once

#include <cstdint>

namespace mxc {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

}  // namespace mxc
