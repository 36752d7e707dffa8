// sr_rbits_fill (emu/block/philox.h) with Philox4x32-10 in vector lanes:
// one Philox counter (a group of four elements) per 64-bit lane, the 32x32
// -> 64-bit products of each round by MulEven. One Highway source for
// every target (emu/fast/isa.h); the scalar ISA and the partial groups at
// either end run mxc::sr_rbits_fill. Equal word for word to sr_rbits
// (tests/test_philox.cpp, on every ISA).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/philox_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <cstddef>
#include <cstdint>

#include "emu/block/philox.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Groups g0 .. g0 + groups - 1 (group g: elements 4g .. 4g + 3) into out,
// four words per group in element order.
void PhiloxGroups(uint64_t seed, uint64_t g0, size_t groups, uint32_t* out) {
#if HWY_TARGET == HWY_SCALAR
  // One 64-bit lane has no 32-bit halves to multiply; never dispatched to
  // (the scalar ISA runs mxc::sr_rbits_fill).
  mxc::sr_rbits_fill(seed, 4 * g0, 4 * groups, out);
#else
  using D = hn::ScalableTag<uint64_t>;
  const D d;
  const hn::Repartition<uint32_t, D> d32;
  const size_t L = hn::Lanes(d);
  const auto lo32 = hn::Set(d, 0xFFFFFFFFull);
  const auto m0 = hn::Set(d32, kPhiloxM4x32_0),
             m1 = hn::Set(d32, kPhiloxM4x32_1);
  HWY_ALIGN uint64_t w[4][HWY_MAX_BYTES / 8];
  for (size_t g = 0; g < groups; g += L) {
    // Lane j: counter {lo32(g0 + g + j), hi32(g0 + g + j), 0, 0}.
    const auto blk = hn::Add(hn::Iota(d, 0), hn::Set(d, g0 + g));
    auto c0 = hn::And(blk, lo32), c1 = hn::ShiftRight<32>(blk);
    auto c2 = hn::Zero(d), c3 = hn::Zero(d);
    uint32_t k0 = static_cast<uint32_t>(seed);
    uint32_t k1 = static_cast<uint32_t>(seed >> 32);
    for (int r = 0; r < 10; ++r) {
      if (r != 0) {
        k0 += kPhiloxW32_0;
        k1 += kPhiloxW32_1;
      }
      // The even 32-bit halves are the counter words (each < 2^32).
      const auto p0 = hn::MulEven(hn::BitCast(d32, c0), m0);
      const auto p1 = hn::MulEven(hn::BitCast(d32, c2), m1);
      const auto n0 = hn::Xor(hn::Xor(hn::ShiftRight<32>(p1), c1),
                              hn::Set(d, uint64_t{k0}));
      const auto n2 = hn::Xor(hn::Xor(hn::ShiftRight<32>(p0), c3),
                              hn::Set(d, uint64_t{k1}));
      c1 = hn::And(p1, lo32);
      c3 = hn::And(p0, lo32);
      c0 = n0;
      c2 = n2;
    }
    hn::Store(c0, d, w[0]);
    hn::Store(c1, d, w[1]);
    hn::Store(c2, d, w[2]);
    hn::Store(c3, d, w[3]);
    const size_t m = groups - g < L ? groups - g : L;
    for (size_t j = 0; j < m; ++j)
      for (size_t k = 0; k < 4; ++k)
        out[4 * (g + j) + k] = static_cast<uint32_t>(w[k][j]);
  }
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace mxc::fast::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/hwy_dispatch.h"
#include "emu/fast/philox_fast.h"

namespace mxc::fast::detail {
HWY_EXPORT(PhiloxGroups);
void philox_groups(Isa isa, uint64_t seed, uint64_t g0, size_t groups,
                   uint32_t* out) {
  MXC_HWY_DISPATCH(PhiloxGroups, isa)(seed, g0, groups, out);
}
}  // namespace mxc::fast::detail

namespace mxc::fast {

void sr_rbits_fill(Isa isa, uint64_t seed, uint64_t first, size_t n,
                   uint32_t* out) {
  if (isa == Isa::kScalar || !isa_supported(isa)) {
    mxc::sr_rbits_fill(seed, first, n, out);
    return;
  }
  // The partial group at the start and at the end: the scalar fill.
  const size_t head = static_cast<size_t>((4 - first % 4) % 4);
  if (head >= n) {
    mxc::sr_rbits_fill(seed, first, n, out);
    return;
  }
  mxc::sr_rbits_fill(seed, first, head, out);
  const size_t groups = (n - head) / 4;
  detail::philox_groups(isa, seed, (first + head) / 4, groups, out + head);
  const size_t done = head + 4 * groups;
  mxc::sr_rbits_fill(seed, first + done, n - done, out + done);
}

}  // namespace mxc::fast
#endif  // HWY_ONCE
