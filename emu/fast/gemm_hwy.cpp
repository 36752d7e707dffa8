// The SIMD kernel of the batched GEMM path (emu/fast/gemm_fast_impl.h), one
// Highway source for every target (emu/fast/isa.h): the kLanes output
// columns of a block go Lanes(d) at a time (up to 16 int32 lanes, one
// column each). Per chunk: e_max over the products, the aligned truncated
// terms summed in int32 lanes (T/ST-FDPA) or the group sums (GST-FDPA),
// then the sum S with the addend and the chunk's rounding: in int32 lanes
// by the binary32 conversion where S fits (ChainT32: PackRz32, PackRne16),
// else in 64-bit lanes (PackWide, PackVec); the lanes those leave (results
// out of the normal range of the conversion's format) through the integer
// packers, and the generic kernels' odd lanes through finish_lane (the
// scalar path: detail::finish_sum, hence fdpa_round_sum).
//
// Every variable shift count is clamped to the lane width minus one: the
// shifted magnitudes are below 2^31 (int32 terms) and 2^63 (int64 sums,
// gemm_covers), so the clamp keeps the result (zero) while the count stays
// in range on every ISA (Arm's USHL reads only the count's low byte);
// ShrOrZero leaves the clamp out on x86, whose shifts give 0 past 31.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/gemm_hwy.cpp"
#include <algorithm>
#include <climits>

#include "emu/fast/fdpa_decode.h"
#include "emu/fast/gemm_fast_impl.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// Per-target helpers: after foreach_target.h.
#include "emu/fast/hwy_pack-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::gemm_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace {

using D32 = hn::CappedTag<int32_t, kLanes>;
using V32 = hn::Vec<D32>;
using M32 = hn::Mask<D32>;
// 64-bit lanes for S: half as many per vector (one on HWY_SCALAR), read
// from int32 arrays through D32h.
using D64 = hn::Repartition<int64_t, D32>;
using V64 = hn::Vec<D64>;
using D32h = hn::Rebind<int32_t, D64>;
using DU64 = hn::RebindToUnsigned<D64>;

// Per-lane variable shifts (emu/fast/hwy_pack-inl.h).
using ::mxc::fast::HWY_NAMESPACE::ShlV;
using ::mxc::fast::HWY_NAMESPACE::ShrV;

HWY_ALIGN constexpr int32_t kLaneBit[kLanes] = {
    1 << 0, 1 << 1, 1 << 2,  1 << 3,  1 << 4,  1 << 5,  1 << 6,  1 << 7,
    1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15};

// The lanes l0.. of a 16-bit lane mask, or all lanes when `all`.
HWY_INLINE M32 LaneMask(uint32_t bits, bool all, size_t l0) {
  const D32 d;
  if (all) return hn::Eq(hn::Zero(d), hn::Zero(d));
  return hn::TestBit(hn::Set(d, static_cast<int32_t>(bits)),
                     hn::LoadU(d, kLaneBit + l0));
}

// Per-lane state of one block's lanes l0..l0+N across the chunks.
struct LaneState {
  HWY_ALIGN int32_t c[kLanes];     // C in, D out (c_fmt bits)
  HWY_ALIGN int32_t bad[kLanes];   // -1: the reference takes the lane
  HWY_ALIGN int32_t hold[kLanes];  // -1: the addend is NaN/Inf (kept)
  HWY_ALIGN int32_t emax[kLanes];
  HWY_ALIGN int32_t outside[kLanes];  // C of the instruction (c_outside)
  HWY_ALIGN int32_t asig[kLanes], al[kLanes], ar[kLanes], aneg[kLanes];
  HWY_ALIGN int64_t S[kLanes];
};

// The addend lanes (c_fmt bits), as fdpa.cpp's read() decodes them: the
// significand, exponent and alignment exponent (e_zero if zero), and which
// lanes are special (NaN/Inf), nonzero, negative. (Out parameters: SVE
// vectors cannot be struct members.)
HWY_INLINE void ReadAddend(const GemmPlan& p, V32 c, V32& sig, V32& exp,
                           V32& eff, M32& special, M32& nonzero, M32& neg) {
  const D32 d;
  const hn::RebindToUnsigned<D32> du;
  const int32_t emask = (1 << p.c_ebits) - 1, fmask = (1 << p.c_frac) - 1;
  const V32 e =
      hn::And(hn::BitCast(d, hn::ShiftRightSame(hn::BitCast(du, c), p.c_frac)),
              hn::Set(d, emask));
  special = hn::Eq(e, hn::Set(d, emask));
  const M32 normal = hn::Ne(e, hn::Zero(d));
  const V32 frac = hn::And(c, hn::Set(d, fmask));
  sig = hn::IfThenElse(normal, hn::Or(frac, hn::Set(d, fmask + 1)), frac);
  exp = hn::IfThenElse(normal, hn::Sub(e, hn::Set(d, p.c_bias)),
                       hn::Set(d, 1 - p.c_bias));
  nonzero = hn::Ne(sig, hn::Zero(d));
  eff = hn::IfThenElse(nonzero, exp, hn::Set(d, p.c_zero_exp));
  neg = hn::TestBit(c, hn::Set(d, 1 << (p.c_frac + p.c_ebits)));
}

// The addend's shift counts for e_max (left l, right r, each 0..63), for
// the 64-bit pass.
HWY_INLINE void AddendShifts(const GemmPlan& p, V32 a_sig, V32 a_exp, M32 a_neg,
                             V32 emax, LaneState& s, size_t l0) {
  const D32 d;
  const V32 sh = hn::Sub(hn::Set(d, p.F - p.c_frac), hn::Sub(emax, a_exp));
  const V32 z = hn::Zero(d), k63 = hn::Set(d, 63);
  hn::StoreU(a_sig, d, s.asig + l0);
  hn::StoreU(hn::Min(hn::Max(sh, z), k63), d, s.al + l0);
  hn::StoreU(hn::Min(hn::Max(hn::Sub(z, sh), z), k63), d, s.ar + l0);
  hn::StoreU(hn::VecFromMask(d, a_neg), d, s.aneg + l0);
}

HWY_INLINE V64 Promote(const int32_t* p) {
  return hn::PromoteTo(D64(), hn::LoadU(D32h(), p));
}

// floor(mag * 2^(l - r)) for 0 <= mag < 2^63, counts 0..63.
HWY_INLINE V64 Shift(V64 mag, V64 l, V64 r) {
  const DU64 du;
  return hn::BitCast(D64(), ShrV(ShlV(hn::BitCast(du, mag), hn::BitCast(du, l)),
                                 hn::BitCast(du, r)));
}

// The addend's aligned, signed term for 64-bit lanes i.. of s.
HWY_INLINE V64 AddendTerm(const LaneState& s, size_t i) {
  const D64 d64;
  const V64 t =
      Shift(Promote(s.asig + i), Promote(s.al + i), Promote(s.ar + i));
  return hn::IfThenElse(hn::MaskFromVec(Promote(s.aneg + i)),
                        hn::Sub(hn::Zero(d64), t), t);
}

// The bit width of 64-bit lanes (0 for 0).
HWY_INLINE V64 BitWidth(V64 x) {
  const D64 d;
  const DU64 du;
  auto u = hn::BitCast(du, x);
  V64 bw = hn::Zero(d);
#define MXC_BW_STEP(k)                                                         \
  {                                                                            \
    const auto t = hn::ShiftRight<k>(u);                                       \
    const auto m = hn::Ne(t, hn::Zero(du));                                    \
    u = hn::IfThenElse(m, t, u);                                               \
    bw = hn::Add(                                                              \
        bw, hn::IfThenElseZero(hn::RebindMask(d, m), hn::Set(d, int64_t{k}))); \
  }
  MXC_BW_STEP(32)
  MXC_BW_STEP(16)
  MXC_BW_STEP(8)
  MXC_BW_STEP(4)
  MXC_BW_STEP(2)
  MXC_BW_STEP(1)
#undef MXC_BW_STEP
  return hn::Add(bw, hn::BitCast(d, hn::Min(u, hn::Set(du, 1))));
}

// A NaN/Inf addend with finite products (bad lanes aside) is the chunk's
// result (fdpa.cpp SpecialScan): the lanes hold it, a NaN made canonical.
HWY_INLINE void HoldSpecials(const GemmPlan& p, M32 special, M32 bad,
                             LaneState& s, size_t l0) {
  const D32 d;
  const V32 c = hn::Load(d, s.c + l0);
  const M32 nan =
      hn::And(special,
              hn::Ne(hn::And(c, hn::Set(d, (1 << p.c_frac) - 1)), hn::Zero(d)));
  hn::Store(hn::IfThenElse(nan, hn::Set(d, static_cast<int32_t>(p.c_nan)), c),
            d, s.c + l0);
  hn::Store(hn::VecFromMask(d, hn::AndNot(bad, special)), d, s.hold + l0);
}

// The chunk's end for lanes l0..l0+N: S (in s.S) * 2^(e_max - F) rounded
// as detail::finish_sum rounds it, in 64-bit lanes for every AccRound (the
// code ((E - emin) << P) + m, E = max(top, emin), m the significand
// truncated or rounded to nearest even in units of 2^(E - P)); a zero S
// through zero_sum, then the zero-sign rule.
HWY_INLINE V64 PackVec(const detail::AccFormat& a, V64 S, V64 q) {
  const D64 d64;
  const V64 z = hn::Zero(d64), one = hn::Set(d64, 1), k63 = hn::Set(d64, 63);
  const auto neg = hn::Lt(S, z);
  const V64 mag = hn::IfThenElse(neg, hn::Sub(z, S), S);
  const V64 top = hn::Add(q, hn::Sub(BitWidth(mag), one));
  const V64 e = hn::Max(top, hn::Set(d64, int64_t{a.emin}));
  const V64 sh = hn::Sub(q, hn::Sub(e, hn::Set(d64, int64_t{a.P})));
  const V64 rr = hn::Max(hn::Sub(z, sh), z);
  const V64 r = hn::Min(rr, k63);
  V64 mm = Shift(mag, hn::Min(hn::Max(sh, z), k63), r);
  if (a.rne) {
    // rem = the bits shifted out, half = 2^(r-1); r >= 64: below half.
    const DU64 du;
    const V64 back =
        hn::BitCast(d64, ShlV(hn::BitCast(du, mm), hn::BitCast(du, r)));
    const V64 rem = hn::Sub(mag, back);
    const V64 half = hn::ShiftRight<1>(
        hn::BitCast(d64, ShlV(hn::BitCast(du, one), hn::BitCast(du, r))));
    const auto odd = hn::Eq(hn::And(mm, one), one);
    const auto up =
        hn::And(hn::And(hn::Gt(r, z), hn::Lt(rr, hn::Set(d64, 64))),
                hn::Or(hn::Gt(rem, half), hn::And(hn::Eq(rem, half), odd)));
    mm = hn::Add(mm, hn::IfThenElseZero(up, one));
  }
  V64 b = hn::Add(
      hn::ShiftLeftSame(hn::Sub(e, hn::Set(d64, int64_t{a.emin})), a.P), mm);
  b = hn::Min(b, hn::Set(d64, static_cast<int64_t>(a.inf)));
  b = hn::ShiftLeftSame(b, a.out_shift);
  return hn::IfThenElse(neg, hn::Or(b, hn::Set(d64, int64_t{1} << a.sign_bit)),
                        b);
}

// Lanes l0..l0+n (one int32 vector) of a chunk's end: the packed result r
// where the lane is not taken by the reference, not holding a NaN/Inf
// addend and its sum is not zero (szero: zero_sum decides those, rare);
// then the zero-sign rule.
HWY_INLINE void WriteBack(const GemmPlan& p, LaneState& s, size_t l0, size_t n,
                          size_t m, size_t nb, size_t j, V32 r, M32 szero) {
  const D32 d;
  const V32 c = hn::Load(d, s.c + l0);
  if (p.zero_sign == ZeroSign::kPositive)
    r = hn::IfThenZeroElse(
        hn::Eq(hn::And(r, hn::Set(d, static_cast<int32_t>(~p.c_sign))),
               hn::Zero(d)),
        r);
  const M32 skip = hn::Or(hn::MaskFromVec(hn::Load(d, s.bad + l0)),
                          hn::MaskFromVec(hn::Load(d, s.hold + l0)));
  const M32 zs = hn::AndNot(skip, szero);
  hn::Store(hn::IfThenElse(hn::Or(skip, zs), c, r), d, s.c + l0);
  if (hn::AllFalse(d, zs)) return;
  HWY_ALIGN int32_t zl[kLanes];
  hn::Store(hn::VecFromMask(d, zs), d, zl + l0);
  for (size_t i = l0; i < l0 + n; ++i) {  // a sum of zeros
    if (zl[i] == 0) continue;
    s.c[i] = static_cast<int32_t>(zero_sum(p, m, nb, static_cast<int>(i), j,
                                           static_cast<uint32_t>(s.c[i])));
  }
}

void Finish(const GemmPlan& p, LaneState& s, size_t l0, size_t n, size_t m,
            size_t nb, size_t j) {
  const D64 d64;
  const DU64 du64;
  const hn::Rebind<uint32_t, D64> du32h;
  const size_t N64 = hn::Lanes(d64);
  const detail::AccFormat a = detail::acc_format_of(p.rho);
  HWY_ALIGN uint32_t bits[kLanes], zero[kLanes];
  const V64 z = hn::Zero(d64);
  for (size_t i = l0; i < l0 + n; i += N64) {
    const V64 S = hn::LoadU(d64, s.S + i);
    const V64 q = hn::Sub(Promote(s.emax + i), hn::Set(d64, int64_t{p.F}));
    hn::StoreU(hn::TruncateTo(du32h, hn::BitCast(du64, PackVec(a, S, q))),
               du32h, bits + i);
    hn::StoreU(hn::TruncateTo(du32h, hn::BitCast(du64, hn::VecFromMask(
                                                           d64, hn::Eq(S, z)))),
               du32h, zero + i);
  }
  const D32 d;
  const hn::RebindToUnsigned<D32> du;
  WriteBack(p, s, l0, n, m, nb, j, hn::BitCast(d, hn::Load(du, bits + l0)),
            hn::MaskFromVec(hn::BitCast(d, hn::Load(du, zero + l0))));
}

// BitWidth of int32 lanes 0 <= x < 2^31: b = the binary32 exponent of x
// (converted with round-to-nearest-even) plus one, which is the bit width
// or, when x rounded up to a power of two, one more; x < 2^(b - 1) tells
// that case (then x >= 2^(b - 2): one rounding moves one binade at most).
// x = 0 gives 0.
HWY_INLINE V32 BitWidth32(V32 x) {
  const D32 d;
  const hn::Rebind<float, D32> df;
  const V32 z = hn::Zero(d), one = hn::Set(d, 1);
  const V32 b =
      hn::Sub(hn::ShiftRight<23>(hn::BitCast(d, hn::ConvertTo(df, x))),
              hn::Set(d, 126));  // 1..32 for x >= 1, -126 for x = 0
  const M32 up = hn::Eq(ShrV(x, hn::Max(hn::Sub(b, one), z)), z);
  return hn::Max(hn::Sub(b, hn::IfThenElseZero(up, one)), z);
}

// PackVec in int32 lanes for |S| < 2^31 (GemmPlan::sum32): the same code
// ((E - emin) << P) + m, E - emin clamped below Inf's exponent field (the
// result is Inf from there on) so that it stays in 32 bits.
HWY_INLINE V32 PackVec32(const detail::AccFormat& a, V32 S, V32 q) {
  const D32 d;
  const hn::RebindToUnsigned<D32> du;
  const V32 z = hn::Zero(d), one = hn::Set(d, 1), k31 = hn::Set(d, 31);
  const M32 neg = hn::Lt(S, z);
  const V32 mag = hn::IfThenElse(neg, hn::Sub(z, S), S);
  const V32 top = hn::Add(q, hn::Sub(BitWidth32(mag), one));
  const V32 e = hn::Max(top, hn::Set(d, a.emin));
  const V32 sh = hn::Sub(q, hn::Sub(e, hn::Set(d, a.P)));
  const V32 rr = hn::Max(hn::Sub(z, sh), z);
  const V32 r = hn::Min(rr, k31);
  V32 mm = ShrV(ShlV(mag, hn::Min(hn::Max(sh, z), k31)), r);
  if (a.rne) {
    const V32 rem = hn::Sub(mag, ShlV(mm, r));
    const V32 half = hn::BitCast(
        d, hn::ShiftRight<1>(ShlV(hn::Set(du, 1u), hn::BitCast(du, r))));
    const M32 odd = hn::Eq(hn::And(mm, one), one);
    const M32 up =
        hn::And(hn::And(hn::Gt(r, z), hn::Lt(rr, hn::Set(d, 32))),
                hn::Or(hn::Gt(rem, half), hn::And(hn::Eq(rem, half), odd)));
    mm = hn::Add(mm, hn::IfThenElseZero(up, one));
  }
  // E - emin at most Inf's field - 1: with m >= 2^P the code is then at
  // least Inf's, and below 2^31 + 2^P, so the unsigned Min gives Inf.
  const auto inf = static_cast<int32_t>(a.inf);
  const V32 ef =
      hn::Min(hn::Sub(e, hn::Set(d, a.emin)), hn::Set(d, (inf >> a.P) - 1));
  V32 b = hn::BitCast(
      d, hn::Min(hn::BitCast(du, hn::Add(hn::ShiftLeftSame(ef, a.P), mm)),
                 hn::Set(du, static_cast<uint32_t>(inf))));
  b = hn::ShiftLeftSame(b, a.out_shift);
  return hn::IfThenElse(
      neg,
      hn::Or(b, hn::Set(d, static_cast<int32_t>(uint32_t{1} << a.sign_bit))),
      b);
}

// The binary32 lanes f (integers in 0..2^31, f = 2^31 being the one out
// of int32's range) truncated to int32: on x86 the bare conversion
// instruction, which gives 0x80000000 for 2^31 (hn::ConvertTo adds four
// operations per vector to saturate it to 2^31 - 1). Either result is not
// above |S| < 2^31 and differs from it, so PackRz32 and PackRne16, which
// test f = 2^31 apart, read both alike.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
HWY_INLINE __m128i CvttRaw(__m128 v) { return _mm_cvttps_epi32(v); }
#if HWY_TARGET <= HWY_AVX2
HWY_INLINE __m256i CvttRaw(__m256 v) { return _mm256_cvttps_epi32(v); }
#endif
#if HWY_TARGET <= HWY_AVX3
HWY_INLINE __m512i CvttRaw(__m512 v) { return _mm512_cvttps_epi32(v); }
#endif
#endif
HWY_INLINE V32 TruncToInt(hn::Vec<hn::Rebind<float, D32>> f) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
  return V32{CvttRaw(f.raw)};
#else
  return hn::ConvertTo(D32(), f);
#endif
}

// x86 conversions that Highway 1.0 does not give directly:
// - CvtRz (AVX-512): int32 lanes to binary32 rounding toward zero, by the
//   conversion's embedded rounding control (EVEX; MXCSR untouched). RZ is
//   odd (RZ(-x) = -RZ(x)), so the sign comes with it.
// - F16Bits (F16C, every x86 target from AVX2 on): binary32 lanes to
//   binary16 bits in the low half of each int32 lane, rounding to nearest
//   even by the instruction's immediate (IEEE: subnormals and overflow to
//   Inf as the standard's conversion; the lanes here are normal binary32,
//   so MXCSR.DAZ, which fp_env.h clears anyway, does not apply).
// - F32FromF16 (AVX-512): binary16 bits in the low half of each int32
//   lane to binary32 (exact; NaN stays NaN).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr bool kCvtRz = true;
HWY_INLINE V32 CvtRz(V32 S) {
  return V32{_mm512_castps_si512(
      _mm512_cvt_roundepi32_ps(S.raw, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC))};
}
HWY_INLINE V32 F16Bits(V32 x) {
  return V32{_mm512_cvtepu16_epi32(
      _mm512_cvtps_ph(_mm512_castsi512_ps(x.raw),
                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))};
}
constexpr bool kF16ToF32 = true;
HWY_INLINE hn::Vec<hn::Rebind<float, D32>> F32FromF16(V32 h) {
  return hn::Vec<hn::Rebind<float, D32>>{
      _mm512_cvtph_ps(_mm512_cvtepi32_epi16(h.raw))};
}
// ScaleTrunc (AVX-512): x * 2^k truncated toward zero to int32, the
// scaling exact (VSCALEFPS: no intermediate 2^k to overflow) for the
// results of magnitude below 2^31 it is used for.
HWY_INLINE V32 ScaleTrunc(hn::Vec<hn::Rebind<float, D32>> x, V32 k) {
  return V32{
      _mm512_cvttps_epi32(_mm512_scalef_ps(x.raw, _mm512_cvtepi32_ps(k.raw)))};
}
#else
constexpr bool kCvtRz = false;
HWY_INLINE V32 CvtRz(V32 S) { return S; }  // not called
constexpr bool kF16ToF32 = false;
HWY_INLINE hn::Vec<hn::Rebind<float, D32>> F32FromF16(V32 h) {  // not called
  return hn::BitCast(hn::Rebind<float, D32>(), h);
}
HWY_INLINE V32 ScaleTrunc(hn::Vec<hn::Rebind<float, D32>> x, V32) {
  return hn::BitCast(D32(), x);  // not called
}
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
HWY_INLINE V32 F16Bits(V32 x) {
  return V32{_mm256_cvtepu16_epi32(
      _mm256_cvtps_ph(_mm256_castsi256_ps(x.raw),
                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))};
}
#endif
#endif
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
constexpr bool kF16Bits = true;
#else
constexpr bool kF16Bits = false;
HWY_INLINE V32 F16Bits(V32 x) { return x; }  // not called
#endif

// For f = |S| converted to binary32 (mag = |S| < 2^31, so f <= 2^31): the
// lanes where f rounded up (f > mag), and where f is inexact (f != mag).
// With AVX-512's unsigned compares the bare conversion's 0x80000000 for
// f = 2^31 reads as 2^31 itself; elsewhere f = 2^31 is tested apart.
// (No sum32 plan of the table's models reaches it: their bound on |S|,
// term L + 2^(F+1) in make_gemm_plan, is at most 2^31 - 192,937,984 (the
// legacy FP8 models, L = 16, F = 25; 55 model x format pairs), and f =
// 2^31 needs |S| >= 2^31 - 64. The test stays for models with other
// parameters.)
HWY_INLINE M32 RoundedUp(hn::Vec<hn::Rebind<float, D32>> f, V32 mag,
                         M32& inexact) {
  const V32 back = TruncToInt(f);
  inexact = hn::Ne(back, mag);
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  const hn::RebindToUnsigned<D32> du;
  return hn::RebindMask(D32(),
                        hn::Gt(hn::BitCast(du, back), hn::BitCast(du, mag)));
#else
  const D32 d;
  const M32 sat = hn::Eq(hn::BitCast(d, f), hn::Set(d, 0x4F000000));  // 2^31
  inexact = hn::Or(inexact, sat);
  return hn::Or(hn::Gt(back, mag), sat);
#endif
}
// Whether the int32 lanes x lie outside lo..hi (one unsigned compare).
HWY_INLINE M32 OutsideRange(V32 x, int32_t lo, int32_t hi) {
  const D32 d;
  const hn::RebindToUnsigned<D32> du;
  return hn::RebindMask(d, hn::Gt(hn::BitCast(du, hn::Sub(x, hn::Set(d, lo))),
                                  hn::Set(du, static_cast<uint32_t>(hi - lo))));
}

// Whether PackRz32 rounds for this accumulator format: round toward zero
// to P <= 23 fraction bits in binary32's layout (RZ-FP32, RZ-E8M13).
constexpr bool rz_in_binary32(const detail::AccFormat& a) {
  return !a.rne && a.P <= 23 && a.P + a.out_shift == 23 && a.emin == -126 &&
         a.inf << a.out_shift == 0x7F800000u && a.sign_bit == 31;
}

// PackVec32 for rz_in_binary32 formats by the binary32 conversion: |S|
// converted (round to nearest even, exact up to 24 bits) and stepped back
// by one code where it rounded up (the code below it is then the value
// truncated to 24 bits), its low 23 - P fraction bits cleared (truncation
// of a truncation), and 2^q applied by adding q to the exponent field.
// The live lanes (the others' result is not used) whose result is not
// normal (underflow, overflow) take PackVec32.
HWY_INLINE V32 PackRz32(const detail::AccFormat& a, V32 S, V32 q, M32 live) {
  const D32 d;
  const hn::Rebind<float, D32> df;
  const hn::RebindToUnsigned<D32> du;
  const V32 keep = hn::Set(d, static_cast<int32_t>(~((1u << (23 - a.P)) - 1)));
  if constexpr (kCvtRz) {
    // S converted rounding toward zero (CvtRz: sign included), then as
    // below: low 23 - P bits cleared, 2^q into the exponent field, the
    // lanes whose result is not normal to PackVec32.
    const V32 rz = CvtRz(S);
    const V32 field = hn::Add(hn::BitCast(d, hn::ShiftRight<24>(hn::BitCast(
                                                 du, hn::ShiftLeft<1>(rz)))),
                              q);
    const M32 slow = hn::And(OutsideRange(field, 1, 254), live);
    V32 r = hn::And(hn::Add(rz, hn::ShiftLeft<23>(q)), keep);
    if (!hn::AllFalse(d, slow)) r = hn::IfThenElse(slow, PackVec32(a, S, q), r);
    return r;
  }
  const V32 mag = hn::Abs(S);  // |S| < 2^31 (sum32)
  const auto f = hn::ConvertTo(df, mag);
  const V32 fb = hn::BitCast(d, f);
  M32 inexact;
  const M32 up = RoundedUp(f, mag, inexact);
  const V32 rz = hn::Add(fb, hn::VecFromMask(d, up));  // up: minus one
  // The result's exponent field, normal in 1..254.
  const V32 field = hn::Add(hn::ShiftRight<23>(rz), q);
  const M32 odd = OutsideRange(field, 1, 254);
  V32 r = hn::And(hn::Add(rz, hn::ShiftLeft<23>(q)), keep);
  r = hn::Or(r, hn::And(S, hn::Set(d, INT32_MIN)));
  const M32 slow = hn::And(odd, live);
  if (!hn::AllFalse(d, slow)) r = hn::IfThenElse(slow, PackVec32(a, S, q), r);
  return r;
}

// |S| (below 2^31) rounded to odd at 24 bits, as binary32 bits: the RNE
// conversion stepped back where it rounded up, then the last bit set where
// it was inexact.
HWY_INLINE V32 OddMag24(V32 S) {
  const D32 d;
  const hn::Rebind<float, D32> df;
  const V32 mag = hn::Abs(S);  // |S| < 2^31 (sum32)
  const auto f = hn::ConvertTo(df, mag);
  M32 inexact;
  const M32 up = RoundedUp(f, mag, inexact);
  return hn::Or(hn::Add(hn::BitCast(d, f), hn::VecFromMask(d, up)),
                hn::IfThenElseZero(inexact, hn::Set(d, 1)));
}

// PackVec32 for RNE-FP16 by the binary32 conversion: |S| rounded to odd
// at 24 bits (the conversion stepped back where it rounded up, then the
// last bit set where inexact), scaled by 2^q in the exponent field, then
// rounded to nearest even at 11 bits (the binary32 to binary16 bit
// rounding). Round-to-odd at 24 >= 11 + 2 bits followed by round to
// nearest is the direct round to nearest (Boldo and Melquiond, "Emulation
// of FMA and correctly rounded sums: proved algorithms using rounding to
// odd", IEEE TC 2008). The live lanes whose result is not a normal
// binary16 below 2^16 take PackVec32.
HWY_INLINE V32 PackRne16(const detail::AccFormat& a, V32 S, V32 q, M32 live) {
  const D32 d;
  const hn::Rebind<float, D32> df;
  const hn::RebindToUnsigned<D32> du;
  const V32 one = hn::Set(d, 1);
  if constexpr (kF16Bits) {
    // S rounded to odd at 24 bits as signed binary32 bits (AVX-512: the
    // RZ conversion, its last bit set where inexact; else from |S| as
    // below, the sign put back), 2^q into the exponent field, then the
    // hardware's binary32 to binary16 conversion (F16Bits: RNE, binary16
    // subnormals and overflow to Inf included, as PackVec32's RNE-FP16).
    // Only lanes whose binary32 is not normal take PackVec32.
    V32 odd24;
    if constexpr (kCvtRz) {
      const V32 rz = CvtRz(S);
      const V32 back = TruncToInt(hn::BitCast(df, rz));
      odd24 = hn::Or(rz, hn::IfThenElseZero(hn::Ne(back, S), one));
    } else {
      odd24 = hn::Or(OddMag24(S), hn::And(S, hn::Set(d, INT32_MIN)));
    }
    const V32 field = hn::Add(hn::BitCast(d, hn::ShiftRight<24>(hn::BitCast(
                                                 du, hn::ShiftLeft<1>(odd24)))),
                              q);
    const M32 slow = hn::And(OutsideRange(field, 1, 254), live);
    V32 r = F16Bits(hn::Add(odd24, hn::ShiftLeft<23>(q)));
    if (!hn::AllFalse(d, slow)) r = hn::IfThenElse(slow, PackVec32(a, S, q), r);
    return r;
  }
  const V32 odd24 = OddMag24(S);
  // The unbiased exponent of the result's leading bit: normal binary16
  // in -14..15.
  const V32 e = hn::Add(hn::ShiftRight<23>(odd24), hn::Sub(q, hn::Set(d, 127)));
  const M32 odd = OutsideRange(e, -14, 15);
  const V32 x = hn::Add(odd24, hn::ShiftLeft<23>(q));
  const V32 rounded = hn::Add(
      x, hn::Add(hn::Set(d, 0xFFF), hn::And(hn::ShiftRight<13>(x), one)));
  V32 r = hn::Sub(hn::ShiftRight<13>(rounded), hn::Set(d, 112 << 10));
  r = hn::Or(r, hn::And(hn::ShiftRight<16>(S), hn::Set(d, 0x8000)));
  const M32 slow = hn::And(odd, live);
  if (!hn::AllFalse(d, slow)) r = hn::IfThenElse(slow, PackVec32(a, S, q), r);
  return r;
}

// The chunk's end when its sum S fits int32 (lanes l0..l0+n, one vector).
void Finish32(const GemmPlan& p, LaneState& s, size_t l0, size_t n, size_t m,
              size_t nb, size_t j, V32 S, V32 emax) {
  const D32 d;
  const V32 r = PackVec32(detail::acc_format_of(p.rho), S,
                          hn::Sub(emax, hn::Set(d, p.F)));
  WriteBack(p, s, l0, n, m, nb, j, r, hn::Eq(S, hn::Zero(d)));
}

// FdpaParams::c_outside: an instruction's chain starts from +0 (its C kept
// aside) and ends with C added by add_outside.
void BeginInstruction(const GemmPlan& p, LaneState& s, size_t l0, size_t n,
                      size_t j) {
  if (!p.c_outside || j % p.chunks_per_instr != 0) return;
  for (size_t i = l0; i < l0 + n; ++i) {
    s.outside[i] = s.c[i];
    s.c[i] = 0;
  }
}
// C added outside the FDPA for one vector of lanes (c_fmt f32 or f16):
// the chain's result x plus the instruction's C y, add_outside's IEEE
// round-to-nearest-even add in c_fmt with a canonical NaN, then the
// zero-sign rule.
HWY_INLINE V32 AddOutside(const GemmPlan& p, V32 x, V32 y) {
  const D32 d;
  const hn::Rebind<float, D32> df;
  const V32 z = hn::Zero(d);
  const bool positive = p.zero_sign == ZeroSign::kPositive;
  if (p.c_fmt == Fmt::kF32) {
    // The vector binary32 add is IEEE round-to-nearest-even (no FTZ/DAZ):
    // add_outside's host add, lane by lane; NaN made canonical.
    const auto sum = hn::Add(hn::BitCast(df, x), hn::BitCast(df, y));
    V32 r = hn::IfThenElse(hn::RebindMask(d, hn::IsNaN(sum)),
                           hn::Set(d, static_cast<int32_t>(p.c_nan)),
                           hn::BitCast(d, sum));
    if (positive)
      r = hn::IfThenZeroElse(
          hn::Eq(hn::And(r, hn::Set(d, static_cast<int32_t>(~p.c_sign))), z),
          r);
    return r;
  }
  // binary16: both addends converted exactly to binary32 (NaN and Inf
  // too) and added there (IEEE RNE: Inf - Inf and NaN give NaN, made
  // canonical), the sum rounded to binary16 by PackVec32 (an infinite sum
  // packs to Inf). The two roundings give the correctly rounded binary16
  // sum: 24 >= 2 * 11 + 2 bits make double rounding innocuous for an add
  // (Figueroa, "When is double rounding innocuous?", SIGNUM 1995), and a
  // sum below 2^-14 is a multiple of 2^-24 under 2^-14, exact in both.
  const V32 sgn = hn::Set(d, 0x8000);
  // sig * 2^(max(e, 1) - 25), the power of two built as binary32 bits;
  // e = 31: the binary32 Inf / NaN (payload kept nonzero).
  const auto to_f32 = [&](V32 v) HWY_ATTR {
    const V32 e = hn::And(hn::ShiftRight<10>(v), hn::Set(d, 31));
    const V32 f = hn::And(v, hn::Set(d, 0x3FF));
    const M32 normal = hn::Ne(e, z);
    const V32 sig = hn::IfThenElse(normal, hn::Or(f, hn::Set(d, 0x400)), f);
    const V32 pw = hn::ShiftLeft<23>(
        hn::Add(hn::Max(e, hn::Set(d, 1)), hn::Set(d, 127 - 25)));
    auto val = hn::Mul(hn::ConvertTo(df, sig), hn::BitCast(df, pw));
    val = hn::IfThenElse(
        hn::RebindMask(df, hn::Eq(e, hn::Set(d, 31))),
        hn::BitCast(df, hn::Or(hn::Set(d, 0x7F800000), hn::ShiftLeft<13>(f))),
        val);
    return hn::IfThenElse(hn::RebindMask(df, hn::Ne(hn::And(v, sgn), z)),
                          hn::Neg(val), val);
  };
  if constexpr (kF16ToF32 && kF16Bits) {
    // The same with the hardware's conversions: binary16 to binary32
    // (exact), the binary32 sum rounded to binary16 by F16Bits (RNE, the
    // sum's zero sign kept, Inf to Inf).
    const auto fsum = hn::Add(F32FromF16(x), F32FromF16(y));
    V32 r = F16Bits(hn::BitCast(d, fsum));
    if (positive)
      r = hn::IfThenZeroElse(hn::Eq(hn::And(r, hn::Set(d, 0x7FFF)), z), r);
    return hn::IfThenElse(hn::RebindMask(d, hn::IsNaN(fsum)),
                          hn::Set(d, static_cast<int32_t>(p.c_nan)), r);
  }
  const auto fsum = hn::Add(to_f32(x), to_f32(y));
  const V32 sum = hn::BitCast(d, fsum);
  const V32 a32 = hn::And(sum, hn::Set(d, 0x7FFFFFFF));
  const V32 mag =
      hn::Or(hn::And(a32, hn::Set(d, 0x7FFFFF)), hn::Set(d, 0x800000));
  const V32 q = hn::Sub(hn::ShiftRight<23>(a32), hn::Set(d, 150));
  const M32 neg = hn::Lt(sum, z);
  V32 r = PackVec32(detail::acc_format_of(AccRound::kRneF16),
                    hn::IfThenElse(neg, hn::Sub(z, mag), mag), q);
  // A zero sum keeps the binary32 add's sign: -0 + -0 = -0, else +0.
  r = hn::IfThenElse(hn::Eq(a32, z), hn::IfThenElseZero(neg, sgn), r);
  if (positive)
    r = hn::IfThenZeroElse(hn::Eq(hn::And(r, hn::Set(d, 0x7FFF)), z), r);
  return hn::IfThenElse(hn::RebindMask(d, hn::IsNaN(fsum)),
                        hn::Set(d, static_cast<int32_t>(p.c_nan)), r);
}

void EndInstruction(const GemmPlan& p, LaneState& s, size_t l0, size_t n,
                    size_t j) {
  if (!p.c_outside || (j + 1) % p.chunks_per_instr != 0) return;
  if (p.c_fmt != Fmt::kF32 && p.c_fmt != Fmt::kF16) {
    for (size_t i = l0; i < l0 + n; ++i) {
      if (s.bad[i] != 0) continue;
      s.c[i] = static_cast<int32_t>(
          add_outside(p, static_cast<uint32_t>(s.c[i]),
                      static_cast<uint32_t>(s.outside[i])));
    }
    return;
  }
  const D32 d;
  for (size_t i = l0; i < l0 + n; i += hn::Lanes(d)) {
    const V32 c = hn::LoadU(d, s.c + i);
    const V32 r = AddOutside(p, c, hn::LoadU(d, s.outside + i));
    const M32 bad = hn::MaskFromVec(hn::LoadU(d, s.bad + i));
    hn::StoreU(hn::IfThenElse(bad, c, r), d, s.c + i);
  }
}

// The chunk's end from the int32 parts of S (the two product accumulators
// and the addend's term) summed in 64-bit lanes and rounded by PackVec, as
// Finish: for the chunks of a plan without sum32 whose S may not fit
// int32.
HWY_INLINE V32 PackWide(const detail::AccFormat& a, V32 acc0, V32 acc1, V32 ts,
                        V32 q) {
  const D32 d;
  const D64 d64;
  const DU64 du64;
  const hn::Rebind<uint32_t, D64> du32h;
  const hn::RebindToUnsigned<D32> du;
  HWY_ALIGN int32_t a0[kLanes], a1[kLanes], at[kLanes], aq[kLanes];
  HWY_ALIGN uint32_t bits[kLanes];
  hn::Store(acc0, d, a0);
  hn::Store(acc1, d, a1);
  hn::Store(ts, d, at);
  hn::Store(q, d, aq);
  for (size_t i = 0; i < hn::Lanes(d); i += hn::Lanes(d64)) {
    const V64 S =
        hn::Add(Promote(at + i), hn::Add(Promote(a0 + i), Promote(a1 + i)));
    hn::StoreU(hn::TruncateTo(
                   du32h, hn::BitCast(du64, PackVec(a, S, Promote(aq + i)))),
               du32h, bits + i);
  }
  return hn::BitCast(d, hn::Load(du, bits));
}

// ChainT32's sums of zeros (zs: the lanes whose S is 0 and that keep C):
// each lane's C becomes zero_sum's signed zero. Out of line: rare, and
// its loop over the lanes would otherwise sit in the chain's loop body.
HWY_NOINLINE V32 ZeroSums(const GemmPlan& p, size_t m, size_t nb, size_t j,
                          size_t l0, M32 zs, V32 c) {
  const D32 d;
  HWY_ALIGN int32_t zl[kLanes], cl[kLanes];
  hn::Store(hn::VecFromMask(d, zs), d, zl);
  hn::Store(c, d, cl);
  for (size_t i = 0; i < hn::Lanes(d); ++i) {
    if (zl[i] == 0) continue;
    cl[i] = static_cast<int32_t>(zero_sum(p, m, nb, static_cast<int>(l0 + i), j,
                                          static_cast<uint32_t>(cl[i])));
  }
  return hn::Load(d, cl);
}

// The end of a chunk as ChainT32 rounds it: PackRz32 or PackRne16.
enum class Pack { kRz32, kRne16 };
// Where C enters ChainT32's chains (FdpaParams::c_outside): as the first
// chunk's addend (kNone); added outside each instruction, whose chain
// starts from +0 (kChained: several chunks per instruction; kEach: one
// chunk per instruction, whose addend is then always +0).
enum class Outside { kNone, kChained, kEach };

// v >> n for v >= 0 and n >= 0, 0 from n = 32 on (n as unsigned: a count
// meant to be clamped to 31). On x86 the variable shift gives 0 for such
// counts by itself, so the clamp (this file's rule, see the top) is left
// to the other ISAs.
HWY_INLINE V32 ShrOrZero(V32 v, V32 n) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  return ShrV(v, n);
#else
  const hn::RebindToUnsigned<D32> du;
  return ShrV(
      v, hn::BitCast(D32(), hn::Min(hn::BitCast(du, n), hn::Set(du, 31u))));
#endif
}

// ReadAddend for ChainT32's C formats, known at compile time from kPack
// (ChainT32Fits, ChainT32Any: kRz32 with c_fmt binary32, kRne16 with
// binary16), so that the chunk loop rebuilds no constant from the plan;
// c_zero_exp: the zero addend's alignment exponent (p.c_zero_exp).
template <Pack kPack>
HWY_INLINE void ReadAddendC(V32 c, V32 c_zero_exp, V32& sig, V32& exp, V32& eff,
                            M32& special, M32& nonzero, M32& neg) {
  constexpr const FormatDesc& f =
      desc(kPack == Pack::kRz32 ? Fmt::kF32 : Fmt::kF16);
  constexpr int kFrac = f.man_bits, kBias = f.bias;
  constexpr int32_t kEmask = (1 << f.exp_bits) - 1, kFmask = (1 << kFrac) - 1;
  const D32 d;
  const hn::RebindToUnsigned<D32> du;
  const V32 e =
      hn::And(hn::BitCast(d, hn::ShiftRight<kFrac>(hn::BitCast(du, c))),
              hn::Set(d, kEmask));
  special = hn::Eq(e, hn::Set(d, kEmask));
  const M32 normal = hn::Ne(e, hn::Zero(d));
  const V32 frac = hn::And(c, hn::Set(d, kFmask));
  sig = hn::IfThenElse(normal, hn::Or(frac, hn::Set(d, kFmask + 1)), frac);
  exp = hn::IfThenElse(normal, hn::Sub(e, hn::Set(d, kBias)),
                       hn::Set(d, 1 - kBias));
  nonzero = hn::Ne(sig, hn::Zero(d));
  eff = hn::IfThenElse(nonzero, exp, c_zero_exp);
  neg = hn::TestBit(
      c, hn::Set(d, static_cast<int32_t>(uint32_t{1} << (kFrac + f.exp_bits))));
}

// ReadAddendC's alignment exponent and special lanes only, for the
// AVX-512 chain (kFloatAddend), which takes the addend's term from its
// value (ScaleTrunc): eff = max(e, 1) - bias, c_zero_exp for a zero.
template <Pack kPack>
HWY_INLINE void ReadAddendExp(V32 c, V32 c_zero_exp, V32& eff, M32& special) {
  constexpr const FormatDesc& f =
      desc(kPack == Pack::kRz32 ? Fmt::kF32 : Fmt::kF16);
  constexpr int kFrac = f.man_bits, kBias = f.bias;
  constexpr auto kMag =
      static_cast<int32_t>((int64_t{1} << (kFrac + f.exp_bits)) - 1);
  const D32 d;
  constexpr int32_t kInf = kMag & ~((1 << kFrac) - 1);  // field all ones
  const V32 mag = hn::And(c, hn::Set(d, kMag));
  special = hn::Gt(mag, hn::Set(d, kInf - 1));
  const V32 e = hn::ShiftRight<kFrac>(mag);
  eff = hn::IfThenElse(hn::Eq(mag, hn::Zero(d)), c_zero_exp,
                       hn::Sub(hn::Max(e, hn::Set(d, 1)), hn::Set(d, kBias)));
}
// Whether ChainT32 takes the addend's term from its value as binary32:
// floor(|c| * 2^(F - e_max)) with c's sign is ReadAddendC's sig shifted
// (c = +-sig * 2^(exp - c_frac)), computed as ScaleTrunc(c, F - e_max)
// (exact: a power-of-two scaling, truncated toward zero).
constexpr bool kFloatAddend = kCvtRz && kF16ToF32;

// The whole chains of rows m.. m + rows - 1 (rows 1 or 2: two independent
// chains interleaved), lanes l0.. of column block nb, for a plan
// (ChainT32Fits): ChunkT's steps with Finish32's end and EndInstruction's
// add outside, C, the instruction's C (c_outside) and the bad lanes kept in
// registers from chunk to chunk, the lane masks of bad and zero operands
// built only for chunks that have any. kL: L known at compile time (the
// loops over the products unrolled), 0 for p.L.
template <size_t kL, Pack kPack, Outside kOut>
void ChainT32(const GemmPlan& p, size_t m0, size_t rows, size_t nb,
              LaneState* st, size_t l0) {
  const D32 d;
  const size_t K = p.K, L = kL != 0 ? kL : static_cast<size_t>(p.L);
  const size_t cpi = p.chunks_per_instr;
  const V32 z = hn::Zero(d);
  const detail::AccFormat a = detail::acc_format_of(p.rho);
  const V32 emax0 = hn::Set(d, INT32_MIN / 2), e_zero = hn::Set(d, p.e_zero);
  const V32 c_zero_exp = hn::Set(d, p.c_zero_exp);
  // The addend's alignment: left by F - c_frac or right by c_frac - F.
  const int addend_ls = std::max(p.F - p.c_frac, 0);
  const V32 addend_rs = hn::Set(d, std::max(p.c_frac - p.F, 0));
  const V32 f = hn::Set(d, p.F);
  const V32 nan = hn::Set(d, static_cast<int32_t>(p.c_nan));
  const V32 fmask = hn::Set(d, (1 << p.c_frac) - 1);
  // Chunk j of row m: C in and out in c, the instruction's C in out
  // (c_outside), the bad lanes in bad.
  // (Inlined: vectors passed by reference stay in registers.)
  const auto chunk = [&](size_t m, size_t j, V32 & c, V32 & out, M32 & bad)
      HWY_ATTR __attribute__((always_inline)) {
    const size_t k0 = j * L;
    const uint32_t b_bad = p.b_bad[nb * p.chunks + j];
    const bool a_bad = p.a_bad[m * p.chunks + j] != 0;
    if (a_bad || b_bad != 0) bad = hn::Or(bad, LaneMask(b_bad, a_bad, l0));
    // BeginInstruction: the chain starts from +0.
    if (kOut == Outside::kEach || (kOut == Outside::kChained && j % cpi == 0)) {
      out = c;
      c = z;
    }
    const int32_t* av = &p.a_val[m * K + k0];
    const int32_t* ae = &p.a_exp[m * K + k0];
    const int32_t* bv = &p.b_val[(nb * K + k0) * kLanes + l0];
    const int32_t* be = &p.b_exp[(nb * K + k0) * kLanes + l0];
    V32 emax = emax0;
    for (size_t k = 0; k < L; ++k)
      emax = hn::Max(emax,
                     hn::Add(hn::Set(d, ae[k]), hn::LoadU(d, be + k * kLanes)));
    V32 a_sig = z, a_exp = z, a_eff = c_zero_exp;
    M32 a_special = hn::Lt(z, z), a_nonzero = a_special, a_neg = a_special;
    M32 hold = a_special;  // none
    if (kOut != Outside::kEach) {
      // (kEach: the addend is +0, the values above.)
      if constexpr (kFloatAddend) {
        ReadAddendExp<kPack>(c, c_zero_exp, a_eff, a_special);
      } else {
        ReadAddendC<kPack>(c, c_zero_exp, a_sig, a_exp, a_eff, a_special,
                           a_nonzero, a_neg);
      }
      // HoldSpecials: a NaN/Inf addend is the chunk's result.
      hold = hn::AndNot(bad, a_special);
      if (!hn::AllFalse(d, a_special))
        c = hn::IfThenElse(hn::And(a_special, hn::Ne(hn::And(c, fmask), z)),
                           nan, c);
    }
    const uint32_t b_zero = p.b_zero[nb * p.chunks + j];
    const bool a_zero = p.a_zero[m * p.chunks + j] != 0;
    if (a_zero || b_zero != 0)
      emax = hn::IfThenElse(LaneMask(b_zero, a_zero, l0), hn::Max(emax, e_zero),
                            emax);
    emax = hn::Max(emax, a_eff);
    const auto term = [&](size_t k) HWY_ATTR {
      const V32 prod =
          hn::Mul(hn::Set(d, av[k]), hn::LoadU(d, bv + k * kLanes));
      const V32 e = hn::Add(hn::Set(d, ae[k]), hn::LoadU(d, be + k * kLanes));
      const V32 v = ShrOrZero(hn::Abs(prod), hn::Sub(emax, e));  // e <= emax
      return hn::IfNegativeThenElse(prod, hn::Sub(z, v), v);
    };
    V32 acc0 = z, acc1 = z;
    size_t k = 0;
    for (; k + 1 < L; k += 2) {
      acc0 = hn::Add(acc0, term(k));
      acc1 = hn::Add(acc1, term(k + 1));
    }
    if (k < L) acc0 = hn::Add(acc0, term(k));
    // The addend's term floor(sig * 2^(F - c_frac - (e_max - e))): e_max
    // >= e for a nonzero addend, and a zero one's count (unsigned, clamped
    // to 31) is any.
    V32 ts = z;
    if constexpr (kOut != Outside::kEach && kFloatAddend) {
      const hn::Rebind<float, D32> df;
      ts = ScaleTrunc(kPack == Pack::kRz32 ? hn::BitCast(df, c) : F32FromF16(c),
                      hn::Sub(f, emax));
    } else if constexpr (kOut != Outside::kEach) {
      const V32 t = ShrOrZero(hn::ShiftLeftSame(a_sig, addend_ls),
                              hn::Add(hn::Sub(emax, a_exp), addend_rs));
      ts = hn::IfThenElse(a_neg, hn::Sub(z, t), t);
    }
    // S in int32, exact under sum32; otherwise exact where |h| < 2^30 - 4
    // (|S - 2h| <= 3), and the chunk takes PackWide where a lane has not.
    // Lanes skipped below (bad, or a NaN/Inf addend, whose ts is then any
    // value: ScaleTrunc gives INT32_MIN) keep C and are not counted.
    const V32 S = hn::Add(ts, hn::Add(acc0, acc1));
    const V32 q = hn::Sub(emax, f);
    M32 big = hn::Lt(z, z);  // none
    if (!p.sum32) {
      const V32 h =
          hn::Add(hn::ShiftRight<1>(ts),
                  hn::Add(hn::ShiftRight<1>(acc0), hn::ShiftRight<1>(acc1)));
      big = hn::AndNot(hn::Or(bad, hold),
                       hn::Gt(hn::Abs(h), hn::Set(d, (1 << 30) - 4)));
    }
    const bool wide = !p.sum32 && !hn::AllFalse(d, big);
    // Skipped lanes and zero sums keep C (then zero_sum); the others take
    // the rounded sum r.
    const M32 skip = hn::Or(bad, hold), szero = hn::AndNot(big, hn::Eq(S, z));
    const M32 live = hn::Not(hn::Or(skip, szero));
    V32 r;
    if (wide) {
      r = PackWide(a, acc0, acc1, ts, q);
    } else {
      r = kPack == Pack::kRz32 ? PackRz32(a, S, q, live)
                               : PackRne16(a, S, q, live);
    }
    // WriteBack's zero-sign rule (ZeroSign::kPositive: a zero result is
    // +0) is left to the end of the chain (gemm_fast's store of D): under
    // that rule the sign of a zero C changes no later chunk (a sum of zeros
    // is +0, zero_sum, and a zero addend's term is 0 whatever its sign;
    // an add outside of two zeros is a zero, whose sign again changes
    // nothing), so a -0 kept in the chain reads as +0 would.
    const M32 zs = hn::AndNot(skip, szero);
    c = hn::IfThenElse(hn::Or(skip, zs), c, r);
    if (HWY_UNLIKELY(!hn::AllFalse(d, zs)))
      c = ZeroSums(p, m, nb, j, l0, zs, c);
    // EndInstruction: C added outside (the bad lanes' result is unused).
    if (kOut == Outside::kEach ||
        (kOut == Outside::kChained && (j + 1) % cpi == 0))
      c = hn::IfThenElse(bad, c, AddOutside(p, c, out));
  };
  V32 c0 = hn::Load(d, st[0].c + l0), out0 = z;
  M32 bad0 = hn::MaskFromVec(hn::Load(d, st[0].bad + l0));
  if (rows == 1) {
    for (size_t j = 0; j < p.chunks; ++j) chunk(m0, j, c0, out0, bad0);
  } else {
    V32 c1 = hn::Load(d, st[1].c + l0), out1 = z;
    M32 bad1 = hn::MaskFromVec(hn::Load(d, st[1].bad + l0));
    for (size_t j = 0; j < p.chunks; ++j) {
      chunk(m0, j, c0, out0, bad0);
      chunk(m0 + 1, j, c1, out1, bad1);
    }
    hn::Store(c1, d, st[1].c + l0);
    hn::Store(hn::VecFromMask(d, bad1), d, st[1].bad + l0);
  }
  hn::Store(c0, d, st[0].c + l0);
  hn::Store(hn::VecFromMask(d, bad0), d, st[0].bad + l0);
}

// ChainT32 with L unrolled where the table's small L have it, and the
// chunk's end by the binary32 conversion where the format allows it. C
// outside the FDPA occurs in the table with L = 16 only (the legacy
// mma.sync FP8 models): other L take the generic loop there, which keeps
// the instantiations (and this file's compile time under the sanitizers)
// down.
template <Pack kPack, Outside kOut>
void ChainT32L(const GemmPlan& p, size_t m0, size_t rows, size_t nb,
               LaneState* st, size_t l0) {
  if constexpr (kOut != Outside::kNone) {
    if (p.L == 16) return ChainT32<16, kPack, kOut>(p, m0, rows, nb, st, l0);
    return ChainT32<0, kPack, kOut>(p, m0, rows, nb, st, l0);
  } else {
    switch (p.L) {
      case 4:
        return ChainT32<4, kPack, kOut>(p, m0, rows, nb, st, l0);
      case 8:
        return ChainT32<8, kPack, kOut>(p, m0, rows, nb, st, l0);
      case 16:
        return ChainT32<16, kPack, kOut>(p, m0, rows, nb, st, l0);
      case 32:
        return ChainT32<32, kPack, kOut>(p, m0, rows, nb, st, l0);
      default:
        return ChainT32<0, kPack, kOut>(p, m0, rows, nb, st, l0);
    }
  }
}
// Whether ChainT32 runs the plan: a chunk end PackRz32 or PackRne16
// rounds, and with c_outside an add in f32 or f16 (every such table
// model; the rest take ChunkT).
bool ChainT32Fits(const GemmPlan& p) {
  // sum32, or int32 product accumulators (not wide) and addend term (F + 1
  // <= 30) whose sum ChainT32 checks per chunk.
  if (p.wide || p.F + 1 > 30) return false;
  if (p.c_outside && p.chunks_per_instr == 0) return false;
  return (rz_in_binary32(detail::acc_format_of(p.rho)) &&
          p.c_fmt == Fmt::kF32) ||
         (p.rho == AccRound::kRneF16 && p.c_fmt == Fmt::kF16);
}
template <Pack kPack>
void ChainT32O(const GemmPlan& p, size_t m0, size_t rows, size_t nb,
               LaneState* st, size_t l0) {
  if (!p.c_outside)
    return ChainT32L<kPack, Outside::kNone>(p, m0, rows, nb, st, l0);
  if (p.chunks_per_instr == 1)
    return ChainT32L<kPack, Outside::kEach>(p, m0, rows, nb, st, l0);
  return ChainT32L<kPack, Outside::kChained>(p, m0, rows, nb, st, l0);
}
void ChainT32Any(const GemmPlan& p, size_t m0, size_t rows, size_t nb,
                 LaneState* st, size_t l0) {
  if (p.c_fmt == Fmt::kF32)
    return ChainT32O<Pack::kRz32>(p, m0, rows, nb, st, l0);
  return ChainT32O<Pack::kRne16>(p, m0, rows, nb, st, l0);
}

// Chunk j of a T/ST chain for row m, lanes l0.. of column block nb.
HWY_INLINE void ChunkT(const GemmPlan& p, size_t m, size_t nb, LaneState& s,
                       size_t l0, size_t j) {
  const D32 d;
  const D64 d64;
  const size_t N = hn::Lanes(d), N64 = hn::Lanes(d64);
  const size_t K = p.K, L = static_cast<size_t>(p.L);
  const V32 z = hn::Zero(d), k31 = hn::Set(d, 31);
  // Whether the addend's aligned term fits int32 (left shifts of its
  // c_frac + 1 significand bits by at most F - c_frac).
  const bool addend32 = p.F + 1 <= 30;
  {
    const size_t k0 = j * L;
    M32 bad = hn::Or(hn::MaskFromVec(hn::Load(d, s.bad + l0)),
                     LaneMask(p.b_bad[nb * p.chunks + j],
                              p.a_bad[m * p.chunks + j] != 0, l0));
    const M32 any_zero = LaneMask(p.b_zero[nb * p.chunks + j],
                                  p.a_zero[m * p.chunks + j] != 0, l0);
    const int32_t* av = &p.a_val[m * K + k0];
    const int32_t* ae = &p.a_exp[m * K + k0];
    const int32_t* bv = &p.b_val[(nb * K + k0) * kLanes + l0];
    const int32_t* be = &p.b_exp[(nb * K + k0) * kLanes + l0];
    BeginInstruction(p, s, l0, N, j);
    // e_max over the products (kFixed zero products: below kNonzeroMin).
    V32 emax = hn::Set(d, INT32_MIN / 2);
    for (size_t k = 0; k < L; ++k)
      emax = hn::Max(emax,
                     hn::Add(hn::Set(d, ae[k]), hn::LoadU(d, be + k * kLanes)));
    V32 a_sig, a_exp, a_eff;
    M32 a_special, a_nonzero, a_neg;
    ReadAddend(p, hn::Load(d, s.c + l0), a_sig, a_exp, a_eff, a_special,
               a_nonzero, a_neg);
    HoldSpecials(p, a_special, bad, s, l0);
    emax = hn::IfThenElse(any_zero, hn::Max(emax, hn::Set(d, p.e_zero)), emax);
    emax = hn::Max(emax, a_eff);
    // Aligned, truncated products: two int32 accumulators (k even / odd).
    // The term of product k, truncated toward zero.
    const auto term = [&](size_t k) HWY_ATTR {
      const V32 prod =
          hn::Mul(hn::Set(d, av[k]), hn::LoadU(d, bv + k * kLanes));
      const V32 e = hn::Add(hn::Set(d, ae[k]), hn::LoadU(d, be + k * kLanes));
      const V32 v = ShrV(hn::Abs(prod), hn::Min(hn::Sub(emax, e), k31));
      return hn::IfNegativeThenElse(prod, hn::Sub(z, v), v);
    };
    V32 acc0 = z, acc1 = z;
    size_t k = 0;
    for (; k + 1 < L; k += 2) {
      acc0 = hn::Add(acc0, term(k));
      acc1 = hn::Add(acc1, term(k + 1));
    }
    if (k < L) acc0 = hn::Add(acc0, term(k));
    hn::Store(hn::VecFromMask(d, bad), d, s.bad + l0);
    hn::Store(emax, d, s.emax + l0);
    HWY_ALIGN int32_t a0[kLanes], a1[kLanes], at[kLanes];
    hn::Store(acc0, d, a0 + l0);
    hn::Store(acc1, d, a1 + l0);
    if (p.sum32) {
      // |S| < 2^31 (GemmPlan::sum32): the whole end in int32 lanes.
      const V32 sh = hn::Sub(hn::Set(d, p.F - p.c_frac), hn::Sub(emax, a_exp));
      const V32 t = ShrV(ShlV(a_sig, hn::Max(sh, z)),
                         hn::Min(hn::Max(hn::Sub(z, sh), z), k31));
      const V32 S =
          hn::Add(hn::IfThenElse(a_neg, hn::Sub(z, t), t), hn::Add(acc0, acc1));
      Finish32(p, s, l0, N, m, nb, j, S, emax);
      EndInstruction(p, s, l0, N, j);
      return;
    }
    if (addend32) {
      // The addend's aligned term in int32: sig < 2^(c_frac + 1) shifted
      // left by at most F - c_frac stays below 2^31 (addend32); a right
      // shift past 30 leaves 0.
      const V32 sh = hn::Sub(hn::Set(d, p.F - p.c_frac), hn::Sub(emax, a_exp));
      const V32 t = ShrV(ShlV(a_sig, hn::Max(sh, z)),
                         hn::Min(hn::Max(hn::Sub(z, sh), z), k31));
      hn::Store(hn::IfThenElse(a_neg, hn::Sub(z, t), t), d, at + l0);
      for (size_t i = l0; i < l0 + N; i += N64)
        hn::StoreU(
            hn::Add(Promote(at + i), hn::Add(Promote(a0 + i), Promote(a1 + i))),
            d64, s.S + i);
    } else {
      AddendShifts(p, a_sig, a_exp, a_neg, emax, s, l0);
      for (size_t i = l0; i < l0 + N; i += N64)
        hn::StoreU(hn::Add(AddendTerm(s, i),
                           hn::Add(Promote(a0 + i), Promote(a1 + i))),
                   d64, s.S + i);
    }
    Finish(p, s, l0, N, m, nb, j);
    EndInstruction(p, s, l0, N, j);
  }
}

void BlockT(const GemmPlan& p, size_t m, size_t nb, LaneState& s, size_t l0) {
  if (ChainT32Fits(p)) return ChainT32Any(p, m, 1, nb, &s, l0);
  for (size_t j = 0; j < p.chunks; ++j) ChunkT(p, m, nb, s, l0, j);
}

// Rows m and m + 1 chunk by chunk: two independent chains in one loop body
// (the out-of-order core overlaps them; one chain's chunks are serial).
void BlockT2(const GemmPlan& p, size_t m, size_t nb, LaneState* s, size_t l0) {
  if (ChainT32Fits(p)) return ChainT32Any(p, m, 2, nb, s, l0);
  for (size_t j = 0; j < p.chunks; ++j) {
    ChunkT(p, m, nb, s[0], l0, j);
    ChunkT(p, m + 1, nb, s[1], l0, j);
  }
}

void BlockGst(const GemmPlan& p, size_t m, size_t nb, LaneState& s, size_t l0) {
  const D32 d;
  const D64 d64;
  const DU64 du64;
  const size_t N = hn::Lanes(d), N64 = hn::Lanes(d64);
  const size_t G = static_cast<size_t>(p.G), ng = static_cast<size_t>(p.L) / G;
  const size_t K2 = p.K / 2, KG = p.K / G;
  const V32 z = hn::Zero(d);
  // Per group: |sum| * sig_SA * sig_SB (as uint32), its exponent, its sign.
  HWY_ALIGN int32_t gmag[64 * kLanes], gexp[64 * kLanes], gneg[64 * kLanes];
  for (size_t j = 0; j < p.chunks; ++j) {
    M32 bad = hn::Or(hn::MaskFromVec(hn::Load(d, s.bad + l0)),
                     LaneMask(p.b_bad[nb * p.chunks + j],
                              p.a_bad[m * p.chunks + j] != 0, l0));
    BeginInstruction(p, s, l0, N, j);
    V32 a_sig, a_exp, a_eff;
    M32 a_special, a_nonzero, a_neg;
    ReadAddend(p, hn::Load(d, s.c + l0), a_sig, a_exp, a_eff, a_special,
               a_nonzero, a_neg);
    HoldSpecials(p, a_special, bad, s, l0);
    V32 emax = a_eff;
    // kFixed: a zero group aligns at e_zero; kOperandMin: at e_SA + e_SB.
    const bool fixed = p.zero_exp == ZeroExp::kFixed;
    for (size_t g = 0; g < ng; ++g) {
      const size_t gi = j * ng + g, t0 = gi * G / 2;
      const int32_t* ap = &p.a_pair[m * K2 + t0];
      const int32_t* ai = &p.a_ind[m * K2 + t0];
      const int32_t* bp = &p.b_pair[(nb * K2 + t0) * kLanes + l0];
      const int32_t* bi = &p.b_ind[(nb * K2 + t0) * kLanes + l0];
      V32 sum = z, nz = z;
      for (size_t t = 0; t < G / 2; ++t) {
        // The two int16 halves (k even low), products summed exactly.
        const V32 b = hn::LoadU(d, bp + t * kLanes);
        const V32 b_lo = hn::ShiftRight<16>(hn::ShiftLeft<16>(b));
        const V32 b_hi = hn::ShiftRight<16>(b);
        const int32_t a_lo = static_cast<int16_t>(ap[t]), a_hi = ap[t] >> 16;
        sum = hn::Add(sum, hn::Add(hn::Mul(hn::Set(d, a_lo), b_lo),
                                   hn::Mul(hn::Set(d, a_hi), b_hi)));
        nz = hn::Or(nz,
                    hn::And(hn::Set(d, ai[t]), hn::LoadU(d, bi + t * kLanes)));
      }
      const V32 ssig =
          hn::Mul(hn::Set(d, p.a_ssig[m * KG + gi]),
                  hn::LoadU(d, &p.b_ssig[(nb * KG + gi) * kLanes + l0]));
      const V32 se =
          hn::Add(hn::Set(d, p.a_sexp[m * KG + gi]),
                  hn::LoadU(d, &p.b_sexp[(nb * KG + gi) * kLanes + l0]));
      const M32 nonzero = hn::And(hn::Ne(nz, z), hn::Ne(ssig, z));
      hn::Store(hn::VecFromMask(d, hn::Lt(sum, z)), d, gneg + g * kLanes + l0);
      // Below 2^32 (gemm_covers): an unsigned product.
      const hn::RebindToUnsigned<D32> du;
      hn::Store(hn::BitCast(d, hn::Mul(hn::BitCast(du, hn::Abs(sum)),
                                       hn::BitCast(du, ssig))),
                d, gmag + g * kLanes + l0);
      hn::Store(se, d, gexp + g * kLanes + l0);
      emax = hn::Max(
          emax, fixed ? hn::IfThenElse(nonzero, se, hn::Set(d, p.e_zero)) : se);
    }
    hn::Store(hn::VecFromMask(d, bad), d, s.bad + l0);
    hn::Store(emax, d, s.emax + l0);
    AddendShifts(p, a_sig, a_exp, a_neg, emax, s, l0);
    // The group shifts e_max - e, clamped to 0..63 (a group outside e_max
    // has magnitude 0).
    const V32 k63 = hn::Set(d, 63);
    for (size_t g = 0; g < ng; ++g) {
      int32_t* ge = gexp + g * kLanes + l0;
      hn::Store(hn::Min(hn::Max(hn::Sub(emax, hn::Load(d, ge)), z), k63), d,
                ge);
    }
    const V64 s0 = hn::Set(d64, int64_t{p.s0});
    for (size_t i = l0; i < l0 + N; i += N64) {
      V64 S = AddendTerm(s, i);
      for (size_t g = 0; g < ng; ++g) {
        const size_t o = g * kLanes + i;
        const V64 mag = hn::BitCast(
            d64,
            hn::PromoteTo(
                du64, hn::LoadU(hn::Rebind<uint32_t, D64>(),
                                reinterpret_cast<const uint32_t*>(gmag + o))));
        const V64 t = Shift(mag, s0, Promote(gexp + o));
        S = hn::Add(S, hn::IfThenElse(hn::MaskFromVec(Promote(gneg + o)),
                                      hn::Sub(hn::Zero(d64), t), t));
      }
      hn::StoreU(S, d64, s.S + i);
    }
    Finish(p, s, l0, N, m, nb, j);
    EndInstruction(p, s, l0, N, j);
  }
}

}  // namespace

uint32_t Block(const GemmPlan& p, size_t m, size_t nb, uint32_t* c) {
  const size_t N = hn::Lanes(D32());
  LaneState s;
  for (int i = 0; i < kLanes; ++i) {
    s.c[i] = static_cast<int32_t>(c[i]);
    s.bad[i] = 0;
    s.hold[i] = 0;
  }
  for (size_t l0 = 0; l0 < kLanes; l0 += N) {
    if (p.gst) {
      BlockGst(p, m, nb, s, l0);
    } else {
      BlockT(p, m, nb, s, l0);
    }
  }
  uint32_t bad = 0;
  for (int i = 0; i < kLanes; ++i) {
    c[i] = static_cast<uint32_t>(s.c[i]);
    if (s.bad[i] != 0) bad |= 1u << i;
  }
  return bad;
}

// Block for rows m and m + 1 (T/ST plans): c0, c1 as Block's c; returns
// the bad lanes of row m in bits 0..15 and of row m + 1 in bits 16..31.
uint32_t Block2(const GemmPlan& p, size_t m, size_t nb, uint32_t* c0,
                uint32_t* c1) {
  const size_t N = hn::Lanes(D32());
  LaneState s[2];
  for (int i = 0; i < kLanes; ++i) {
    s[0].c[i] = static_cast<int32_t>(c0[i]);
    s[1].c[i] = static_cast<int32_t>(c1[i]);
    s[0].bad[i] = s[0].hold[i] = s[1].bad[i] = s[1].hold[i] = 0;
  }
  for (size_t l0 = 0; l0 < kLanes; l0 += N) BlockT2(p, m, nb, s, l0);
  uint32_t bad = 0;
  for (int i = 0; i < kLanes; ++i) {
    c0[i] = static_cast<uint32_t>(s[0].c[i]);
    c1[i] = static_cast<uint32_t>(s[1].c[i]);
    if (s[0].bad[i] != 0) bad |= 1u << i;
    if (s[1].bad[i] != 0) bad |= 1u << (i + kLanes);
  }
  return bad;
}

bool Fits() { return kLanes % hn::Lanes(D32()) == 0; }

}  // namespace HWY_NAMESPACE
}  // namespace mxc::fast::gemm_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/hwy_dispatch.h"

namespace mxc::fast::gemm_detail {

HWY_EXPORT(Block);
HWY_EXPORT(Block2);
HWY_EXPORT(Fits);

bool simd_fits(Isa isa) { return MXC_HWY_DISPATCH(Fits, isa)(); }

uint32_t block_simd(Isa isa, const GemmPlan& p, size_t m, size_t nb,
                    uint32_t* c) {
  return MXC_HWY_DISPATCH(Block, isa)(p, m, nb, c);
}

uint32_t block2_simd(Isa isa, const GemmPlan& p, size_t m, size_t nb,
                     uint32_t* c0, uint32_t* c1) {
  return MXC_HWY_DISPATCH(Block2, isa)(p, m, nb, c0, c1);
}

}  // namespace mxc::fast::gemm_detail
#endif  // HWY_ONCE
