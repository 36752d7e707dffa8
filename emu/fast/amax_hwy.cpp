// The largest magnitude of an f32 array as bits (emu/fast/amax.h), one
// Highway source for every target (emu/fast/isa.h). Unsigned 32-bit max is
// not in the x86-64 baseline (SSE4.1's pmaxud), so the plain loop of the
// baseline build ran at a third of a memory pass.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/amax_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

uint32_t AbsMaxBits(const uint32_t* x, size_t n) {
  const hn::ScalableTag<uint32_t> d;
  const size_t N = hn::Lanes(d);
  const auto abs = hn::Set(d, 0x7FFFFFFFu);
  // Four accumulators: the max's latency, not the loads, would bound one.
  auto m0 = hn::Zero(d), m1 = m0, m2 = m0, m3 = m0;
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    m0 = hn::Max(m0, hn::And(hn::LoadU(d, x + i), abs));
    m1 = hn::Max(m1, hn::And(hn::LoadU(d, x + i + N), abs));
    m2 = hn::Max(m2, hn::And(hn::LoadU(d, x + i + 2 * N), abs));
    m3 = hn::Max(m3, hn::And(hn::LoadU(d, x + i + 3 * N), abs));
  }
  uint32_t m =
      hn::GetLane(hn::MaxOfLanes(d, hn::Max(hn::Max(m0, m1), hn::Max(m2, m3))));
  for (; i < n; ++i) m = std::max(m, x[i] & 0x7FFFFFFFu);
  return m;
}

}  // namespace HWY_NAMESPACE
}  // namespace mxc::fast::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/amax.h"
#include "emu/fast/hwy_dispatch.h"

namespace mxc::fast::detail {
HWY_EXPORT(AbsMaxBits);
uint32_t abs_max_bits_simd(Isa isa, const uint32_t* x, size_t n) {
  return MXC_HWY_DISPATCH(AbsMaxBits, isa)(x, n);
}
}  // namespace mxc::fast::detail

namespace mxc::fast {

uint32_t abs_max_bits(Isa isa, const uint32_t* x, size_t n) {
  if (isa == Isa::kScalar || !isa_supported(isa)) {
    uint32_t m = 0;
    for (size_t i = 0; i < n; ++i) m = std::max(m, x[i] & 0x7FFFFFFFu);
    return m;
  }
  return detail::abs_max_bits_simd(isa, x, n);
}

}  // namespace mxc::fast
#endif  // HWY_ONCE
