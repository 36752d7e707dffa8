// Structured input sets for conversion checks (TestFloat's idea of pattern
// tables, derived per target format): inputs within a few ulps of every
// representable value and every midpoint of the target, the overflow and
// underflow edges, all specials, and seeded random bit patterns.
#pragma once

#include <cstdint>
#include <vector>

#include "emu/format.h"

namespace mxc {

// Every encoding of a source format that is special or extreme: zeros, Infs,
// several NaNs (quiet/signalling, both signs), least/greatest subnormal and
// normal, one, both signs.
std::vector<uint64_t> special_inputs(Fmt src);

// For target `dst`: every finite value v, every midpoint between neighbours,
// the virtual values above the largest finite (max + ulp/2, max + ulp,
// max + 3ulp/2) and half the least subnormal, each as the nearest `src`
// encodings within +-ulps source ulps, with both signs. Sorted, unique.
std::vector<uint64_t> boundary_inputs(Fmt src, Fmt dst, int ulps);

// TestFloat-style pattern table, re-derived per target: for every source
// exponent from two below the target's least subnormal to two above its
// largest finite, the significands with one bit set (walking one) and with
// one bit clear (walking zero), both signs.
std::vector<uint64_t> walking_inputs(Fmt src, Fmt dst);

// n seeded uniformly random bit patterns of the source format.
std::vector<uint64_t> random_inputs(Fmt src, uint64_t seed, size_t n);

// The input set of one conversion check, in this order: every source
// encoding when the source has at most `exhaustive_bits` bits; otherwise the
// boundary inputs (+-ulps), the specials, the walking patterns (if asked)
// and `random` seeded random patterns.
struct InputSet {
  int exhaustive_bits = 16;
  int ulps = 2;
  bool walking = false;
  size_t random = 0;
  uint64_t seed = 1;
};
std::vector<uint64_t> conversion_inputs(Fmt src, Fmt dst, const InputSet& s);

// At most `cap` inputs: `in` itself if it is small enough, else the source
// format's specials followed by seeded draws from `in`.
std::vector<uint64_t> sample_inputs(Fmt src, std::vector<uint64_t> in,
                                    size_t cap, uint64_t seed);

// Every encoding of a format with at most 16 bits.
std::vector<uint64_t> all_encodings(Fmt f);

}  // namespace mxc
