// Per-target helpers of the Highway kernels (emu/fast/isa.h): per-lane
// variable shifts, and results of int32 lanes, each in [0, 255], stored as
// bytes in input order. Included by a kernel file once per target (after
// hwy/foreach_target.h), hence the HWY_TARGET_TOGGLE guard instead of
// #pragma once.
#if defined(MXC_FAST_HWY_PACK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MXC_FAST_HWY_PACK_INL_H_
#undef MXC_FAST_HWY_PACK_INL_H_
#else
#define MXC_FAST_HWY_PACK_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::HWY_NAMESPACE {

// Per-lane variable shifts, every target (operators on fixed-size targets;
// Shl/Shr on the scalable ones, Highway 1.0). Used by the GEMM kernels.
template <class V>
HWY_INLINE V ShlV(V a, V b) {
#if HWY_HAVE_SCALABLE
  return hwy::HWY_NAMESPACE::Shl(a, b);
#else
  return a << b;
#endif
}
template <class V>
HWY_INLINE V ShrV(V a, V b) {
#if HWY_HAVE_SCALABLE
  return hwy::HWY_NAMESPACE::Shr(a, b);
#else
  return a >> b;
#endif
}

#if HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
// Four vectors r0..r3 to one vector of bytes: r0's lanes first. Each value
// is below 256, so keeping the low byte (ConcatEven of the 16-bit halves,
// then of the bytes; little-endian lanes) is exact.
// On AVX2 ConcatEven costs four instructions per pair (two masks, a pack,
// a permute); two saturating packs and one dword permute do the whole
// step (the hand-written AVX2 kernels' sequence before issue 16).
template <class DI, class V = hwy::HWY_NAMESPACE::Vec<DI>>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::Repartition<uint8_t, DI>>
PackBytes4(DI, V r0, V r1, V r2, V r3) {
  namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET == HWY_AVX2
  // packs/packus interleave 128-bit halves: dword d of the packed vector
  // holds vector d % 4's lanes 4 (d / 4) .. 4 (d / 4) + 3 in {0, 4, 1, 5,
  // 2, 6, 3, 7} order; values below 256 pass both packs unchanged.
  const __m256i b = _mm256_packus_epi16(_mm256_packs_epi32(r0.raw, r1.raw),
                                        _mm256_packs_epi32(r2.raw, r3.raw));
  return hn::Vec256<uint8_t>{_mm256_permutevar8x32_epi32(
      b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))};
#else
  const hn::Repartition<uint16_t, DI> d16;
  const hn::Repartition<uint8_t, DI> d8;
  const auto h01 =
      hn::ConcatEven(d16, hn::BitCast(d16, r1), hn::BitCast(d16, r0));
  const auto h23 =
      hn::ConcatEven(d16, hn::BitCast(d16, r3), hn::BitCast(d16, r2));
  return hn::ConcatEven(d8, hn::BitCast(d8, h23), hn::BitCast(d8, h01));
#endif
}

// For kernels that choose which input each lane holds (the sweep, whose
// inputs are consecutive integers): PackBytes4Blocked packs without the
// cross-block step of PackBytes4, and PackSource(du, q) gives, per lane of
// vector q (0..3), the input among 4 Lanes(du) consecutive ones it must
// hold for the packed bytes to come out in input order. On x86 the packs
// work per 128-bit block, so lane j of vector q takes input
// 16 (j / 4) + 4 q + j % 4 (the order of the hand-written AVX2/AVX-512
// sweep kernels before issue 16); elsewhere ConcatEven keeps lane order,
// and lane j takes q Lanes(du) + j.
template <class DU>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<DU> PackSource(DU du, uint32_t q) {
  namespace hn = hwy::HWY_NAMESPACE;
  const auto j = hn::Iota(du, 0);
#if HWY_ARCH_X86 && (HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3)
  return hn::Add(hn::Add(hn::ShiftLeft<2>(hn::And(j, hn::Set(du, ~3u))),
                         hn::And(j, hn::Set(du, 3u))),
                 hn::Set(du, 4 * q));
#else
  return hn::Add(j, hn::Set(du, q * static_cast<uint32_t>(hn::Lanes(du))));
#endif
}

template <class DI, class V = hwy::HWY_NAMESPACE::Vec<DI>>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::Repartition<uint8_t, DI>>
PackBytes4Blocked(DI di, V r0, V r1, V r2, V r3) {
  namespace hn = hwy::HWY_NAMESPACE;
#if HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
  return hn::Vec256<uint8_t>{
      _mm256_packus_epi16(_mm256_packus_epi32(r0.raw, r1.raw),
                          _mm256_packus_epi32(r2.raw, r3.raw))};
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_AVX3
  return hn::Vec512<uint8_t>{
      _mm512_packus_epi16(_mm512_packus_epi32(r0.raw, r1.raw),
                          _mm512_packus_epi32(r2.raw, r3.raw))};
#else
  return PackBytes4(di, r0, r1, r2, r3);
#endif
}

template <class DI, class V = hwy::HWY_NAMESPACE::Vec<DI>>
HWY_INLINE void StoreBytes4(DI di, V r0, V r1, V r2, V r3, uint8_t* out) {
  namespace hn = hwy::HWY_NAMESPACE;
  hn::StoreU(PackBytes4(di, r0, r1, r2, r3), hn::Repartition<uint8_t, DI>(),
             out);
}

// One vector: Lanes(di) bytes.
template <class DI, class V = hwy::HWY_NAMESPACE::Vec<DI>>
HWY_INLINE void StoreBytes1(DI, V r, uint8_t* out) {
  namespace hn = hwy::HWY_NAMESPACE;
  const hn::Rebind<uint8_t, DI> d8;
  hn::StoreU(hn::DemoteTo(d8, r), d8, out);
}
#endif

}  // namespace mxc::fast::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MXC_FAST_HWY_PACK_INL_H_
