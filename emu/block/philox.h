// Philox4x32 counter-based random bits (Salmon, Moraes, Dror, Shaw, "Parallel
// Random Numbers: As Easy as 1, 2, 3", SC'11, section 3.3; the Random123
// library's philox.h defines the same round function, multipliers and Weyl
// key increments). The generator is a pure function of (counter, key): no
// state, so any element's random bits can be recomputed from its index.
// See docs/packing-and-rht.md for the stochastic-rounding bit mapping.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace mxc {

// SC'11 table 2 / Random123 PHILOX_M4x32_0, _1: the two round multipliers.
inline constexpr uint32_t kPhiloxM4x32_0 = 0xD2511F53u;
inline constexpr uint32_t kPhiloxM4x32_1 = 0xCD9E8D57u;
// Random123 PHILOX_W32_0, _1: the Weyl sequence added to the key after each
// round (golden ratio and sqrt(3) - 1, as 32-bit fractions).
inline constexpr uint32_t kPhiloxW32_0 = 0x9E3779B9u;
inline constexpr uint32_t kPhiloxW32_1 = 0xBB67AE85u;

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

// Philox4x32 with `Rounds` rounds. One round, with (hi, lo) the upper and
// lower 32 bits of a 64-bit product:
//   (hi0, lo0) = M0 * c0,  (hi1, lo1) = M1 * c2
//   c' = {hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0}
// and between rounds the key is bumped: k0 += W0, k1 += W1 (mod 2^32). The
// first round uses the key as given.
template <int Rounds>
constexpr PhiloxCounter philox4x32(PhiloxCounter c, PhiloxKey k) {
  static_assert(Rounds >= 0 && Rounds <= 16, "Random123 defines 0..16 rounds");
  for (int r = 0; r < Rounds; ++r) {
    if (r != 0) {
      k[0] += kPhiloxW32_0;
      k[1] += kPhiloxW32_1;
    }
    const uint64_t p0 = uint64_t{kPhiloxM4x32_0} * c[0];
    const uint64_t p1 = uint64_t{kPhiloxM4x32_1} * c[2];
    const auto hi0 = static_cast<uint32_t>(p0 >> 32);
    const auto lo0 = static_cast<uint32_t>(p0);
    const auto hi1 = static_cast<uint32_t>(p1 >> 32);
    const auto lo1 = static_cast<uint32_t>(p1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
  }
  return c;
}

// Philox4x32-10, the Crush-resistant default of SC'11 and the variant that
// cuRAND's CURAND_RNG_PSEUDO_PHILOX4_32_10 names.
constexpr PhiloxCounter philox4x32_10(PhiloxCounter counter, PhiloxKey key) {
  return philox4x32<10>(counter, key);
}

// The 32 random bits that stochastic rounding of element `element_index`
// draws under `seed`:
//   key     = {lo32(seed), hi32(seed)}
//   counter = {lo32(i / 4), hi32(i / 4), 0, 0}
//   rbits   = philox4x32_10(counter, key)[i % 4]
// so one Philox call serves four consecutive elements, and element i's bits
// depend only on (seed, i): reproducible whatever order or tiling computes
// them. This mapping is this project's convention, not a hardware one (PTX
// cvt.rs takes rbits as an operand and says nothing of how they are made).
constexpr uint32_t sr_rbits(uint64_t seed, uint64_t element_index) {
  const uint64_t block = element_index / 4;
  const PhiloxKey key = {static_cast<uint32_t>(seed),
                         static_cast<uint32_t>(seed >> 32)};
  const PhiloxCounter ctr = {static_cast<uint32_t>(block),
                             static_cast<uint32_t>(block >> 32), 0u, 0u};
  return philox4x32_10(ctr, key)[element_index % 4];
}

// sr_rbits(seed, first + j) for j in [0, n) into out, one Philox call per
// four elements (sr_rbits makes one per element and keeps a quarter).
inline void sr_rbits_fill(uint64_t seed, uint64_t first, size_t n,
                          uint32_t* out) {
  const PhiloxKey key = {static_cast<uint32_t>(seed),
                         static_cast<uint32_t>(seed >> 32)};
  size_t j = 0;
  while (j < n) {
    const uint64_t i = first + j, block = i / 4;
    const PhiloxCounter r = philox4x32_10(
        {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0u,
         0u},
        key);
    for (uint64_t k = i % 4; k < 4 && j < n; ++k, ++j) out[j] = r[k];
  }
}

}  // namespace mxc
