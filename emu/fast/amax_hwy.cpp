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

#include "emu/fast/quantize_simd-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Both kernels read x in chunks of 32 KiB, the last chunk first, each
// chunk forward: the pass that follows over the same x (the NVFP4 kernels,
// which need the tensor amax first, start at the first element) then finds
// the start of x still in the cache, the chunks read last, instead of its
// end (1.06x for te-nvfp4 at 2^20 elements from Python, where x does not fit
// the L2). The results do not depend on the order (a maximum).
constexpr size_t kChunkBlocks = 512;  // a multiple of every Lanes fits16 takes
constexpr size_t kChunkElems = 16 * kChunkBlocks;  // of 4 Lanes on every target

uint32_t AbsMaxBits(const uint32_t* x, size_t n) {
  const hn::ScalableTag<uint32_t> d;
  const size_t N = hn::Lanes(d);
  const auto abs = hn::Set(d, 0x7FFFFFFFu);
  const size_t whole = n / (4 * N) * (4 * N);
  uint32_t m = 0;
  for (size_t i = whole; i < n; ++i) m = std::max(m, x[i] & 0x7FFFFFFFu);
  // Four accumulators: the max's latency, not the loads, would bound one.
  auto m0 = hn::Set(d, m), m1 = m0, m2 = m0, m3 = m0;
  for (size_t end = whole; end > 0;) {
    const size_t begin = end > kChunkElems ? end - kChunkElems : 0;
    for (size_t i = begin; i < end; i += 4 * N) {
      m0 = hn::Max(m0, hn::And(hn::LoadU(d, x + i), abs));
      m1 = hn::Max(m1, hn::And(hn::LoadU(d, x + i + N), abs));
      m2 = hn::Max(m2, hn::And(hn::LoadU(d, x + i + 2 * N), abs));
      m3 = hn::Max(m3, hn::And(hn::LoadU(d, x + i + 3 * N), abs));
    }
    end = begin;
  }
  return hn::GetLane(
      hn::MaxOfLanes(d, hn::Max(hn::Max(m0, m1), hn::Max(m2, m3))));
}

// Groups of Lanes blocks by GroupAbsMax (quantize_simd-inl.h: block j of
// the group in lane j), the rest one by one.
uint32_t AbsMaxBits16(const uint32_t* x, size_t nb, uint32_t* am) {
  const D16 d;
  // Vectors that do not divide a block (SVE at 384 bits): block by block.
  const size_t N = fits16() ? hn::Lanes(d) : nb + 1;
  const size_t whole = nb / N * N;
  uint32_t r = 0;
  for (size_t b = whole; b < nb; ++b) {
    uint32_t a = 0;
    for (size_t i = 0; i < 16; ++i)
      a = std::max(a, x[16 * b + i] & 0x7FFFFFFFu);
    am[b] = a;
    r = std::max(r, a);
  }
  auto m = hn::Set(d, r);
  for (size_t end = whole; end > 0;) {
    const size_t begin = end > kChunkBlocks ? end - kChunkBlocks : 0;
    for (size_t b = begin; b < end; b += N) {
      HWY_ALIGN uint32_t g[16];
      GroupAbsMax<true, 16>(x + 16 * b, 16, g);
      const auto v = hn::Load(d, g);
      hn::StoreU(v, d, am + b);
      m = hn::Max(m, v);
    }
    end = begin;
  }
  return hn::GetLane(hn::MaxOfLanes(d, m));
}

}  // namespace HWY_NAMESPACE
}  // namespace mxc::fast::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/amax.h"
#include "emu/fast/hwy_dispatch.h"

namespace mxc::fast::detail {
HWY_EXPORT(AbsMaxBits);
HWY_EXPORT(AbsMaxBits16);
uint32_t abs_max_bits_simd(Isa isa, const uint32_t* x, size_t n) {
  return MXC_HWY_DISPATCH(AbsMaxBits, isa)(x, n);
}
uint32_t abs_max_bits16_simd(Isa isa, const uint32_t* x, size_t nb,
                             uint32_t* am) {
  return MXC_HWY_DISPATCH(AbsMaxBits16, isa)(x, nb, am);
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

uint32_t abs_max_bits16(Isa isa, const uint32_t* x, size_t nb, uint32_t* am) {
  if (isa == Isa::kScalar || !isa_supported(isa)) {
    uint32_t m = 0;
    for (size_t b = 0; b < nb; ++b) {
      am[b] = 0;
      for (size_t i = 0; i < 16; ++i)
        am[b] = std::max(am[b], x[16 * b + i] & 0x7FFFFFFFu);
      m = std::max(m, am[b]);
    }
    return m;
  }
  return detail::abs_max_bits16_simd(isa, x, nb, am);
}

}  // namespace mxc::fast
#endif  // HWY_ONCE
