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
#include "hwy/cache_control.h"
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

// min(|x|, mx) as f32 bits (x finite, mx non-negative: the order of the
// bits is that of the values). AVX-512 DQ's VRANGEPS does it in one
// operation (imm 0b1010: the smaller magnitude, sign cleared; MXCSR.DAZ is
// clear, so subnormals compare as they are); Highway 1.0 has no op for it.
HWY_INLINE V16 MinAbs(V16 x, V16 mx) {
#if HWY_TARGET == HWY_AVX3
  return V16{_mm512_castps_si512(_mm512_range_ps(
      _mm512_castsi512_ps(x.raw), _mm512_castsi512_ps(mx.raw), 0x0A))};
#else
  return hn::Min(hn::And(x, hn::Set(D16(), 0x7FFFFFFFu)), mx);
#endif
}

// max(E(a) - E(t), 0) in the exponent field (a's sign clear, t a power of
// two's bits): max(a & 0x7F800000, t) - t in one saturating subtract of
// 16-bit lanes, as (a & 0x7F800000) and t are 0 in their low halves and
// their high halves are the exponents << 7 (at most 254 << 7, below 2^15).
// The scalar target (one 32-bit lane, no 16-bit view): Max and Sub.
HWY_INLINE V16 ExpAbove(V16 a, V16 t) {
  const D16 d;
  const V16 e = hn::And(a, hn::Set(d, 0x7F800000u));
#if HWY_TARGET == HWY_SCALAR
  return hn::Sub(hn::Max(e, t), t);
#else
  const hn::Repartition<uint16_t, D16> dw;
  return hn::BitCast(d,
                     hn::SaturatedSub(hn::BitCast(dw, e), hn::BitCast(dw, t)));
#endif
}

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
// The code's sign is sign_src's (x's in the five-argument form below).
template <int M, int kTies = 0>
HWY_INLINE V16 Cvt(V16 x, V16 t, V16 c0, V16 mx, V16 sign_bit, V16 sign_src) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const hn::RebindToSigned<D16> di;
  const V16 a = MinAbs(x, mx);
  const V16 eb = ExpAbove(a, t);
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
  // enc | (sign mask & sign_bit): one ternary-logic op on AVX-512.
  const V16 neg =
      hn::BitCast(d, hn::BroadcastSignBit(hn::BitCast(di, sign_src)));
  return hn::OrAnd(enc, neg, sign_bit);
}
template <int M, int kTies = 0>
HWY_INLINE V16 Cvt(V16 x, V16 t, V16 c0, V16 mx, V16 sign_bit) {
  return Cvt<M, kTies>(x, t, c0, mx, sign_bit, x);
}

// microxcaling's element rule (ApplyRule::kF32FloorHalfUp, reference:
// emu/block/quantize.cpp microxcaling_element) on every lane, normal and
// subnormal alike, as the reference's binary32 operations with the private
// exponent pe = max(E(A), emin) read from A's exponent field: mul = 2^(127
// - s) per block, tb = bits(2^emin), kf = (254 + M) << 23 (so that kf -
// bits(2^pe) = bits(2^(M - pe))), kc = bits(2^23) + (tb >> (23 - M)),
// maxenc the largest finite code.
//   A = fl(x * mul) (half_up_mul: the reference's quotient, rounded once),
//   y = |A| * 2^(M - pe) (exact: a power of two, y < 2^(M + 1), no
//   overflow or underflow for pe >= emin >= -14),
//   r = floor(fl(y + 0.5)), for kEven minus 1 where h = fl(|fl(y - 0.5)| *
//   0.5) is an integer, i.e. where y - 0.5 is an even integer (fl(y - 0.5)
//   is exact for y >= 0.25, Sterbenz, and in [-0.5, -0.25) below, so h =
//   |y - 0.5| / 2 exactly): where y is a half-integer, r = y + 0.5 exactly
//   and the rule gives the even one of r - 1 and r; y is a half-integer
//   exactly when fl(r - 0.5) == y (r - 0.5 is exact: r an integer <= 2^4);
//   code = r + ((pe - emin) << M) (r = 2^(M + 1), a carry, is the next
//   binade's first code; r <= 2^M below 2^emin, where pe = emin), read
//   without a float-to-int conversion: r < 2^23 is an integer, so
//   bits(r + 2^23) = bits(2^23) + r (exact), and pe, emin have no fraction
//   bits: code = bits(r + 2^23) + (bits(2^pe) >> (23 - M)) - kc;
//   clamped to maxenc (the codes order like the values: the reference's
//   clamp), and the sign bit where A < 0 (A = -0 gives +0: torch.sign(-0)
//   = 0; r = 0 with A < 0 gives the -0 code, as the reference).
// The reference takes pe = floor(log2f(|A|)), which is E(A) + 1 where |A|
// is a few ulps (relative distance < 2^-19) below 2^(E + 1): there its
// y' = y / 2 lies in [2^M - 2^(M-19), 2^M), r' = floor(fl(y' + 0.5)) = 2^M
// and the value r' * 2^(pe - M) = 2^(E + 1); here y lies in [2^(M+1) -
// 2^(M-18), 2^(M+1)), r = 2^(M+1), the same value and code; neither |y'| -
// 0.5 nor |y| - 0.5 is an even integer, so kEven changes neither. Below
// 2^emin both take pe = emin. Returns the code; the profile's zero rules
// are the caller's.
template <int M, bool kEven>
HWY_INLINE V16 HalfUpCvt(V16 x, V16 mul, V16 tb, V16 kf, V16 kc, V16 maxenc,
                         V16 sign_bit) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const auto A = hn::Mul(hn::BitCast(df, x), hn::BitCast(df, mul));
  const auto a = hn::Abs(A);
  const V16 pb =
      hn::Max(hn::And(hn::BitCast(d, a), hn::Set(d, 0x7F800000u)), tb);
  const auto y = hn::Mul(a, hn::BitCast(df, hn::Sub(kf, pb)));
  const auto half = hn::Set(df, 0.5f);
  const auto r = hn::Floor(hn::Add(y, half));
  const auto two23 = hn::Set(df, 8388608.0f);
  V16 code = hn::Add(hn::Sub(hn::BitCast(d, hn::Add(r, two23)), kc),
                     hn::ShiftRight<23 - M>(pb));
  if constexpr (kEven) {
    // y a half-integer (r = y + 0.5 exactly, r - 0.5 is exact): the even
    // one of r - 1, r, i.e. r with its low bit cleared (code's low bit is
    // r's, M >= 1).
    const auto tie = hn::RebindMask(d, hn::Eq(hn::Sub(r, half), y));
    code = hn::IfThenElse(tie, hn::And(code, hn::Set(d, ~1u)), code);
  }
  code = hn::Min(code, maxenc);
  const auto neg = hn::RebindMask(d, hn::Lt(A, hn::Zero(df)));
  return hn::IfThenElse(neg, hn::Or(code, sign_bit), code);
}

// Lanes (each < 256) narrowed to bytes at p.
HWY_INLINE void StoreBytes(V16 e, uint8_t* p) {
  const hn::Rebind<uint8_t, D16> d8;
  hn::StoreU(hn::TruncateTo(d8, e), d8, p);
}

// Four vectors of lanes (each < 256) narrowed to 4 Lanes bytes at p, in
// order. On AVX-512 and AVX2 one saturating pack to 16 bits per pair, one to
// 8 bits and one dword permutation (packs work within 128-bit blocks: block
// L of the packed vector holds dwords 4L.. of e0, e1, e2, e3 in turn):
// 4 shuffles for four vectors where StoreBytes (TruncateTo: a byte shuffle
// and a dword permutation on AVX3) takes 8; Highway 1.0 has no ordered
// two-vector demotion. Elsewhere StoreBytes four times.
HWY_INLINE void StoreBytes4(V16 e0, V16 e1, V16 e2, V16 e3, uint8_t* p) {
#if HWY_TARGET == HWY_AVX3
  const __m512i w01 = _mm512_packs_epi32(e0.raw, e1.raw);
  const __m512i w23 = _mm512_packs_epi32(e2.raw, e3.raw);
  const __m512i b = _mm512_packus_epi16(w01, w23);
  const __m512i idx =
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  _mm512_storeu_si512(p, _mm512_permutexvar_epi32(idx, b));
#elif HWY_TARGET == HWY_AVX2
  const __m256i w01 = _mm256_packs_epi32(e0.raw, e1.raw);
  const __m256i w23 = _mm256_packs_epi32(e2.raw, e3.raw);
  const __m256i b = _mm256_packus_epi16(w01, w23);
  const __m256i idx = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                      _mm256_permutevar8x32_epi32(b, idx));
#else
  const size_t N = hn::Lanes(D16());
  StoreBytes(e0, p);
  StoreBytes(e1, p + N);
  StoreBytes(e2, p + 2 * N);
  StoreBytes(e3, p + 3 * N);
#endif
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

// The input lines kPrefetchBytes ahead of x[0, n), one prefetch per
// 64-byte line. The row kernels stream their input from L3 or memory (a
// 2^20-element f32 tensor is twice L2), and the hardware prefetchers alone
// left the amax load a quarter of the MXFP8 rows' samples (perf). Issued
// once per block while the blocks of the group before are converted (MX and
// one-candidate NVFP4 rows), not in a burst with the group's amax loads,
// which filled the line-fill buffers (the prefetch itself then stalled: a
// sixth of the samples). 4 KiB: 2 and 8 KiB measured slower or the same,
// prefetcht1 slower. The address is made as an integer: a prefetch past
// the end of x neither faults nor reads, and forms no out-of-range pointer.
constexpr uintptr_t kPrefetchBytes = 4096;

HWY_INLINE void PrefetchAhead(const uint32_t* x, size_t n) {
  for (size_t i = 0; i < n; i += 16)
    hwy::Prefetch(reinterpret_cast<const uint32_t*>(
        reinterpret_cast<uintptr_t>(x + i) + kPrefetchBytes));
}

// The amaxes of Lanes(D16()) consecutive blocks of n elements each (n a
// multiple of Lanes) into am[0 .. Lanes): each block's lanes are max-ed
// into one vector, then the vectors are reduced pairwise, ConcatOdd /
// ConcatEven and Max (lane j of the result is block j): 3 (Lanes - 1)
// shuffles and maxes for the group instead of a MaxOfLanes per block.
// kPrefetch: each block's lines kPrefetchBytes ahead with its loads (for
// callers that do not spread them, PrefetchAhead).
// kN: n known at compile time (0: not), so that the loops unroll and the
// block vectors stay in registers.
template <bool kPrefetch = true, size_t kN = 0>
HWY_INLINE void GroupAbsMax(const uint32_t* x, size_t n_arg, uint32_t* am) {
  const size_t n = kN != 0 ? kN : n_arg;
#if HWY_HAVE_SCALABLE || HWY_TARGET == HWY_SCALAR
  // SVE vectors are sizeless (no arrays of them); one lane has nothing to
  // reduce: a MaxOfLanes per block.
  for (size_t j = 0; j < hn::Lanes(D16()); ++j) am[j] = AbsMax(x + j * n, n);
#else
  const D16 d;
  const size_t N = hn::Lanes(d);
  const V16 abs = hn::Set(d, 0x7FFFFFFFu);
  V16 v[16];
  for (size_t j = 0; j < N; ++j) {
    const uint32_t* xb = x + j * n;
    if constexpr (kPrefetch) PrefetchAhead(xb, n);
    V16 m = hn::And(hn::LoadU(d, xb), abs);
    for (size_t i = N; i < n; i += N)
      m = hn::Max(m, hn::And(hn::LoadU(d, xb + i), abs));
    v[j] = m;
  }
  for (size_t w = N; w > 1; w /= 2)
    for (size_t i = 0; i < w / 2; ++i)
      v[i] = hn::Max(hn::ConcatOdd(d, v[2 * i + 1], v[2 * i]),
                     hn::ConcatEven(d, v[2 * i + 1], v[2 * i]));
  hn::StoreU(v[0], d, am);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace mxc::fast::detail
HWY_AFTER_NAMESPACE();

#endif  // MXC_FAST_QUANTIZE_SIMD_INL_H_
