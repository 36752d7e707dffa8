// The in-register element conversion of emu/fast/quantize_fused.h, one
// 32-bit lane per element, for every Highway target (per-target include
// guard: included from inside each kernel source's foreach_target pass,
// quantize_hwy.cpp and nvfp4_hwy.cpp).
#if defined(MXC_FAST_QUANTIZE_SIMD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MXC_FAST_QUANTIZE_SIMD_INL_H_
#undef MXC_FAST_QUANTIZE_SIMD_INL_H_
#else
#define MXC_FAST_QUANTIZE_SIMD_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "emu/fast/quantize_fused.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// At most 16 lanes (an NVFP4 block; a divisor of every MX block the fused
// kernels take). The kernels need Lanes(d) to divide 16 (fits16()).
using D16 = hn::CappedTag<uint32_t, 16>;
using V16 = hn::Vec<D16>;

inline bool fits16() { return 16 % hn::Lanes(D16()) == 0; }

// Lanes of x * 2^d encoded, for the constants t, c0, mx of that d
// (quantize_fused.h: SConst) and the format's sign bit (0: unsigned);
// x finite. Steps as in quantize_fused.h: a = min(|x|, MAX),
// eb = max(E(a), E(T)) - E(T) (in the exponent field), C = eb + C0,
// sum = fl(a + C) (IEEE binary32 add, round to nearest even),
// enc = bits(sum) - bits(C) + (eb >> (23 - M)), the sign or-ed in.
// kTies 1 (round to nearest, ties toward zero): an exact tie that the add
// rounded up is one code too high; kTies 2 (ties away): one the add rounded
// down is one code too low. The add's error fl(fl(sum - C) - a) is exact in
// f32 (differences of values within a factor of two, Sterbenz) and equals
// +-(the half quantum fl(C * 2^-24): a power of two, at least 2^-130,
// exact) only at a tie, + when the add rounded it up.
template <int M, int kTies = 0>
HWY_INLINE V16 Cvt(V16 x, V16 t, V16 c0, V16 mx, V16 sign_bit) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const hn::RebindToSigned<D16> di;
  const V16 a = hn::Min(hn::And(x, hn::Set(d, 0x7FFFFFFFu)), mx);
  const V16 eb = hn::Sub(hn::Max(hn::And(a, hn::Set(d, 0x7F800000u)), t), t);
  const V16 c = hn::Add(eb, c0);
  const V16 sum =
      hn::BitCast(d, hn::Add(hn::BitCast(df, a), hn::BitCast(df, c)));
  V16 enc = hn::Add(hn::Sub(sum, c), hn::ShiftRight<23 - M>(eb));
  if constexpr (kTies != 0) {
    const auto cf = hn::BitCast(df, c);
    const auto err =
        hn::Sub(hn::Sub(hn::BitCast(df, sum), cf), hn::BitCast(df, a));
    auto hq = hn::Mul(cf, hn::Set(df, 5.9604644775390625e-8f));  // 2^-24
    if constexpr (kTies == 1) {
      enc = hn::Sub(enc, hn::IfThenElseZero(hn::RebindMask(d, hn::Eq(err, hq)),
                                            hn::Set(d, 1u)));
    } else {
      hq = hn::Neg(hq);
      enc = hn::Add(enc, hn::IfThenElseZero(hn::RebindMask(d, hn::Eq(err, hq)),
                                            hn::Set(d, 1u)));
    }
  }
  const V16 neg = hn::BitCast(d, hn::BroadcastSignBit(hn::BitCast(di, x)));
  return hn::Or(enc, hn::And(neg, sign_bit));
}

// half_up_sub (quantize_fused.h: microxcaling's rule below the least
// normal, exact by the same binary32 operations in the same order) in
// lanes: mul = 2^(127 - s) per lane, q = 2^(m - emin); kEven: kRNE.
template <bool kEven>
HWY_INLINE V16 HalfUpSub(V16 x, V16 mul, V16 q, V16 sign_bit) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const hn::RebindToSigned<D16> di;
  const auto y = hn::Mul(hn::Mul(hn::BitCast(df, x), hn::BitCast(df, mul)),
                         hn::BitCast(df, q));
  const auto ay = hn::Abs(y);
  const auto half = hn::Set(df, 0.5f);
  auto r = hn::Floor(hn::Add(ay, half));
  if constexpr (kEven) {
    const auto h = hn::Mul(hn::Abs(hn::Sub(ay, half)), half);
    r = hn::IfThenElse(hn::Eq(hn::Floor(h), h), hn::Sub(r, hn::Set(df, 1.0f)),
                       r);
  }
  const V16 n = hn::BitCast(d, hn::ConvertTo(di, r));
  const V16 neg = hn::BitCast(d, hn::BroadcastSignBit(hn::BitCast(di, x)));
  const V16 e = hn::Or(n, hn::And(neg, sign_bit));
  return hn::IfThenZeroElse(hn::RebindMask(d, hn::Eq(ay, hn::Zero(df))), e);
}

// Lanes (each < 256) narrowed to bytes at p.
HWY_INLINE void StoreBytes(V16 e, uint8_t* p) {
  const hn::Rebind<uint8_t, D16> d8;
  hn::StoreU(hn::TruncateTo(d8, e), d8, p);
}

// max(|x[0..n)|) as f32 magnitude bits (n a multiple of Lanes(D16())).
HWY_INLINE uint32_t AbsMax(const uint32_t* x, size_t n) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  const V16 abs = hn::Set(d, 0x7FFFFFFFu);
  V16 m = hn::And(hn::LoadU(d, x), abs);
  for (size_t i = N; i < n; i += N)
    m = hn::Max(m, hn::And(hn::LoadU(d, x + i), abs));
  return hn::GetLane(hn::MaxOfLanes(d, m));
}

// The amaxes of Lanes(D16()) consecutive blocks of n elements each (n a
// multiple of Lanes) into am[0 .. Lanes): each block's lanes are max-ed
// into one vector, then the vectors are reduced pairwise, ConcatOdd /
// ConcatEven and Max (lane j of the result is block j): 3 (Lanes - 1)
// shuffles and maxes for the group instead of a MaxOfLanes per block.
HWY_INLINE void GroupAbsMax(const uint32_t* x, size_t n, uint32_t* am) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  const V16 abs = hn::Set(d, 0x7FFFFFFFu);
  V16 v[16];
  for (size_t j = 0; j < N; ++j) {
    const uint32_t* xb = x + j * n;
    V16 m = hn::And(hn::LoadU(d, xb), abs);
    for (size_t i = N; i < n; i += N)
      m = hn::Max(m, hn::And(hn::LoadU(d, xb + i), abs));
    v[j] = m;
  }
#if HWY_TARGET != HWY_SCALAR  // one lane: nothing to reduce
  for (size_t w = N; w > 1; w /= 2)
    for (size_t i = 0; i < w / 2; ++i)
      v[i] = hn::Max(hn::ConcatOdd(d, v[2 * i + 1], v[2 * i]),
                     hn::ConcatEven(d, v[2 * i + 1], v[2 * i]));
#endif
  hn::StoreU(v[0], d, am);
}

}  // namespace HWY_NAMESPACE
}  // namespace mxc::fast::detail
HWY_AFTER_NAMESPACE();

#endif  // MXC_FAST_QUANTIZE_SIMD_INL_H_
