// The CDNA1/2 pairwise datapath (Datapath::kF32Pairwise, gemm_amd.cpp) in
// vector lanes, one Highway source for every target: a lane is an output
// row m (D and C are column-major, n * M + m), A is transposed so that one
// load holds Lanes rows at one k, B's value is a scalar broadcast. Each
// step is the scalar kernel's binary32 operation lane by lane (IEEE RNE
// multiply and add, no contraction: -ffp-contract=off; no FTZ/DAZ), the
// same product rule (an exact zero operand gives +0), the same flushes
// (ftz: a zero exponent field keeps only the sign), the same tree order
// (halves n / 2 and n - n / 2) and the canonical NaN after each chunk.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/gemm_amd_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "emu/fast/fdpa_decode.h"
#include "emu/fast/gemm_fast_impl.h"
#include "emu/fast/hwy_pack-inl.h"
#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::gemm_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DU = hn::ScalableTag<uint32_t>;
using DF = hn::RebindToFloat<DU>;
using VU = hn::Vec<DU>;

HWY_INLINE VU Flush(bool ftz, VU x) {
  if (!ftz) return x;
  const DU d;
  return hn::IfThenElse(
      hn::Eq(hn::And(x, hn::Set(d, 0x7F800000u)), hn::Zero(d)),
      hn::And(x, hn::Set(d, 0x80000000u)), x);
}

// The tree over products lo .. lo + n - 1 (vector i at buf + i * Lanes).
VU Tree(const uint32_t* buf, size_t lo, size_t n, bool ftz) {
  const DU d;
  const DF df;
  if (n == 1) return hn::Load(d, buf + lo * hn::Lanes(d));
  const size_t h = n / 2;
  const auto s = hn::Add(hn::BitCast(df, Tree(buf, lo, h, ftz)),
                         hn::BitCast(df, Tree(buf, lo + h, n - h, ftz)));
  return Flush(ftz, hn::BitCast(d, s));
}

// Rows m0 .. m0 + Lanes - 1 of column n: at[k * M + m] (A as f32 bits,
// transposed), bn[k] (column n of B), c[m] (column n of C as f32 bits);
// D's f32 bits into out[m].
void PairwiseRows(const uint32_t* at, size_t M, const uint32_t* bn, size_t K,
                  size_t L, bool ftz, uint32_t nan, const uint32_t* c,
                  size_t m0, uint32_t* out, uint32_t* buf) {
  const DU d;
  const DF df;
  const size_t N = hn::Lanes(d);
  const VU abs = hn::Set(d, 0x7FFFFFFFu), zero = hn::Zero(d);
  // Product k (flushed): fmaf(a, b, +0), an exact zero product is +0.
  const auto product = [&](size_t k) HWY_ATTR {
    const uint32_t y = bn[k];
    if ((y & 0x7FFFFFFFu) == 0) return zero;
    const VU x = hn::LoadU(d, at + k * M + m0);
    const auto p =
        hn::Mul(hn::BitCast(df, x), hn::Set(df, std::bit_cast<float>(y)));
    return Flush(ftz, hn::IfThenZeroElse(hn::Eq(hn::And(x, abs), zero),
                                         hn::BitCast(d, p)));
  };
  const auto add = [&](VU u, VU v) HWY_ATTR {
    return Flush(
        ftz, hn::BitCast(d, hn::Add(hn::BitCast(df, u), hn::BitCast(df, v))));
  };
  VU acc = hn::LoadU(d, c + m0);
  for (size_t k0 = 0; k0 < K; k0 += L) {
    VU g;
    if (L == 4) {  // CDNA1/2 f16, CDNA2 bf16: halves 2 and 2
      g = add(add(product(k0), product(k0 + 1)),
              add(product(k0 + 2), product(k0 + 3)));
    } else if (L == 2) {  // CDNA1 bf16, CDNA2 bf16 (legacy)
      g = add(product(k0), product(k0 + 1));
    } else {
      for (size_t i = 0; i < L; ++i) hn::Store(product(k0 + i), d, buf + i * N);
      g = Tree(buf, 0, L, ftz);
    }
    if (ftz)
      acc = hn::IfThenZeroElse(
          hn::Eq(hn::And(acc, hn::Set(d, 0x7F800000u)), zero), acc);
    const auto sum = hn::Add(hn::BitCast(df, acc), hn::BitCast(df, g));
    acc = hn::IfThenElse(hn::RebindMask(d, hn::IsNaN(sum)), hn::Set(d, nan),
                         Flush(ftz, hn::BitCast(d, sum)));
  }
  hn::StoreU(acc, d, out + m0);
}

// Every whole group of Lanes rows of every column; returns the number of
// rows done (M rounded down to a multiple of Lanes).
size_t Pairwise(const uint32_t* at, size_t M, size_t N, const uint32_t* b,
                size_t K, size_t L, bool ftz, uint32_t nan, const uint32_t* c,
                uint32_t* out) {
  const size_t V = hn::Lanes(DU());
  const size_t whole = M - M % V;
  // The products of one chunk, vector i at i * Lanes (SVE vectors are
  // sizeless: no arrays of them).
  auto buf = hwy::AllocateAligned<uint32_t>(L * V);
  for (size_t n = 0; n < N; ++n)
    for (size_t m0 = 0; m0 < whole; m0 += V)
      PairwiseRows(at, M, b + n * K, K, L, ftz, nan, c + n * M, m0, out + n * M,
                   buf.get());
  return whole;
}

// ---- The CDNA3 two-stage datapath (Datapath::kTwoStageRd) ----------------
//
// gemm_amd.cpp gemm_two_stage's steps lane by lane, a lane an output row m.
// Stage 1 in int32 lanes: with A's significand stored shifted left by
// s0 = F - frac >= 0, the aligned term of product i of a set is
// (sig_a' * sig_b) >> (e_max - e_i) (aligned() with sh = (e_i - e_max) +
// F - frac <= s0: the left shift is done at decode, the right shift
// truncates the magnitude), then negated for a negative product; the
// caller (gemm_two_stage: `fits`) admits only formats whose terms are
// below 2^(F + 2) and whose L-term sums stay below 2^31. The sets' sums
// are floored onto the joint e_max by arithmetic right shifts. Stage 2:
// C decoded from its f32 bits, P (the sum floored to 31 bits below
// 2^max(e, e_C)) and Cv (C floored to F bits) as int32 floor shifts plus
// power-of-two factors, their exact sum as a double and one RNE
// binary64 -> binary32 conversion (see there). Every variable shift count
// is clamped below the lane width (the shifted values are then 0 or -1 as
// the floor wants). Specials: a NaN/Inf C is kept (NaN made canonical); a
// product >= 2^128 is left to the scalar kernel (the caller does not come
// here when one can occur); a +0 result with a -0 C goes to a scalar check
// of the chunk's product signs (ZeroSign::kIeee). Bad rows/columns (a
// NaN/Inf or over-wide operand or C) are computed on placeholder operands
// and overwritten by the reference (the caller marks them).
namespace ts {

using D32 = hn::ScalableTag<int32_t>;
using V32 = hn::Vec<D32>;
using D64 = hn::Repartition<int64_t, D32>;
using D32h = hn::Rebind<int32_t, D64>;
using DF64 = hn::Repartition<double, D32>;
using DF32h = hn::Rebind<float, DF64>;

// Per-lane variable shifts (emu/fast/hwy_pack-inl.h).
using ::mxc::fast::HWY_NAMESPACE::ShrV;

// A right shift count sh >= 0 for ShrV, where any count >= 31 leaves 0 or
// -1 (the floor): clamped below the lane width, except on x86, whose
// variable shifts (vpsravd) already give the sign for counts >= 32.
HWY_INLINE V32 Count(V32 sh) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  return sh;
#else
  return hn::Min(sh, hn::Set(D32(), 31));
#endif
}

// Stage 1 of one interleaved set (products k0 + j, k0 + j + split, ...) for
// rows m0..: its e_max and its sum of aligned terms.
HWY_INLINE void SetSum(const TwoStageArgs& a, size_t L, size_t split,
                       bool opmin, size_t m0, size_t n, size_t k0, size_t j,
                       V32& em, V32& s) {
  const D32 d;
  const size_t M = a.M, K = a.K;
  const int32_t* bs = a.b_sig + n * K;
  const int32_t* be = a.b_exp + n * K;
  const int32_t* bn = a.b_neg + n * K;
  const V32 z = hn::Zero(d);
  // The product's exponent (the zero rule: under kFixed a zero product
  // aligns at e_zero).
  const auto pexp = [&](size_t k) HWY_ATTR {
    const V32 e =
        hn::Add(hn::LoadU(d, a.at_exp + k * M + m0), hn::Set(d, be[k]));
    if (opmin) return e;
    if (bs[k] == 0) return hn::Set(d, a.e_zero);
    return hn::IfThenElse(hn::Eq(hn::LoadU(d, a.at_sig + k * M + m0), z),
                          hn::Set(d, a.e_zero), e);
  };
  em = hn::Set(d, INT32_MIN);
  for (size_t k = k0 + j; k < k0 + L; k += split) em = hn::Max(em, pexp(k));
  s = z;
  for (size_t k = k0 + j; k < k0 + L; k += split) {
    const V32 sh = Count(hn::Sub(em, pexp(k)));
    const V32 mag =
        hn::Mul(hn::LoadU(d, a.at_sig + k * M + m0), hn::Set(d, bs[k]));
    const V32 t = ShrV(mag, sh);  // mag >= 0: logical = arithmetic
    const V32 ng =
        hn::Xor(hn::LoadU(d, a.at_neg + k * M + m0), hn::Set(d, bn[k]));
    s = hn::Add(s, hn::Sub(hn::Xor(t, ng), ng));
  }
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
// Stage 1 from the binary32 operands (TwoStageArgs::at_f, b_f): a
// product's term trunc(|x y| 2^(F - e_max)) with its sign is the binary32
// product (exact: both significands together at most 22 bits, and
// two_stage_floats' caller admits only operands whose nonzero products
// are normal) scaled by VSCALEFPS (exact where the result is normal; a
// smaller one truncates to 0 as the integer path's shift does) and
// truncated by the conversion; every term is below 2^(F + 2). Three
// operations a product for the integer path's seven.
constexpr bool kFloatStage1 = true;
HWY_INLINE V32 ScaleTruncF(hn::Vec<hn::Rebind<float, D32>> x,
                           hn::Vec<hn::Rebind<float, D32>> k) {
  return V32{_mm512_cvttps_epi32(_mm512_scalef_ps(x.raw, k.raw))};
}
HWY_INLINE hn::Vec<hn::Rebind<float, D32>> ScalefF(
    hn::Vec<hn::Rebind<float, D32>> x, hn::Vec<hn::Rebind<float, D32>> k) {
  return hn::Vec<hn::Rebind<float, D32>>{_mm512_scalef_ps(x.raw, k.raw)};
}
#else
constexpr bool kFloatStage1 = false;
HWY_INLINE V32 ScaleTruncF(hn::Vec<hn::Rebind<float, D32>> x,
                           hn::Vec<hn::Rebind<float, D32>>) {
  return hn::BitCast(D32(), x);  // not called
}
HWY_INLINE hn::Vec<hn::Rebind<float, D32>> ScalefF(
    hn::Vec<hn::Rebind<float, D32>> x, hn::Vec<hn::Rebind<float, D32>>) {
  return x;  // not called
}
#endif

// SetSum of the one set (split 1) under kOperandMin from the binary32
// operands (kFloatStage1).
HWY_INLINE void SetSumF(const TwoStageArgs& a, size_t L, size_t m0, size_t n,
                        size_t k0, V32& em, V32& s) {
  const D32 d;
  const hn::Rebind<float, D32> df;
  const size_t M = a.M, K = a.K;
  const int32_t* be = a.b_exp + n * K;
  const float* bf = a.b_f + n * K;
  em = hn::Set(d, INT32_MIN);
  for (size_t k = k0; k < k0 + L; ++k)
    em = hn::Max(
        em, hn::Add(hn::LoadU(d, a.at_exp + k * M + m0), hn::Set(d, be[k])));
  const auto xs = hn::ConvertTo(df, hn::Sub(hn::Set(d, a.F), em));
  s = hn::Zero(d);
  for (size_t k = k0; k < k0 + L; ++k)
    s = hn::Add(s, ScaleTruncF(hn::Mul(hn::LoadU(df, a.at_f + k * M + m0),
                                       hn::Set(df, bf[k])),
                               xs));
}

// Whether every product of chunk k0 of (m, n) is a zero of negative sign.
HWY_INLINE bool AllNegZero(const TwoStageArgs& a, size_t m, size_t n,
                           size_t k0) {
  for (size_t k = k0; k < k0 + a.L; ++k) {
    const bool zero = a.at_sig[k * a.M + m] == 0 || a.b_sig[n * a.K + k] == 0;
    const bool neg = (a.at_neg[k * a.M + m] ^ a.b_neg[n * a.K + k]) != 0;
    if (!zero || !neg) return false;
  }
  return true;
}

// 2^(x - 1023) of int32 lanes x (1 <= x <= 2046: the biased exponent) as
// doubles.
HWY_INLINE hn::Vec<DF64> Pow2Biased(hn::Vec<D32h> x) {
  return hn::BitCast(DF64(), hn::ShiftLeft<52>(hn::PromoteTo(D64(), x)));
}

// Stage 1 of chunk k0 of rows m0.. and column n: the joint e_max e and the
// sum S of the sets' terms floored onto it. set_buf: split > 2 only.
template <size_t kL, size_t kSplit, bool kOpmin, bool kFloat>
HWY_INLINE void Stage1(const TwoStageArgs& a, size_t m0, size_t n, size_t k0,
                       int32_t* set_buf, V32& e, V32& S) {
  const size_t L = kL != 0 ? kL : a.L;
  const size_t split = kSplit != 0 ? kSplit : a.split;
  const D32 d;
  const size_t V = hn::Lanes(d);
  if constexpr (kFloat) {
    SetSumF(a, L, m0, n, k0, e, S);  // split 1, kOperandMin
  } else if (split == 1) {
    SetSum(a, L, 1, kOpmin, m0, n, k0, 0, e, S);
  } else if (split == 2) {
    V32 e0, s0, e1, s1;
    SetSum(a, L, 2, kOpmin, m0, n, k0, 0, e0, s0);
    SetSum(a, L, 2, kOpmin, m0, n, k0, 1, e1, s1);
    e = hn::Max(e0, e1);
    S = hn::Add(ShrV(s0, Count(hn::Sub(e, e0))),
                ShrV(s1, Count(hn::Sub(e, e1))));  // arithmetic
  } else {
    int32_t* set_s = set_buf;
    int32_t* set_e = set_buf + split * V;
    e = hn::Set(d, INT32_MIN);
    for (size_t j = 0; j < split; ++j) {
      V32 em, s;
      SetSum(a, L, split, kOpmin, m0, n, k0, j, em, s);
      hn::Store(em, d, set_e + j * V);
      hn::Store(s, d, set_s + j * V);
      e = hn::Max(e, em);
    }
    S = hn::Zero(d);
    for (size_t j = 0; j < split; ++j) {
      const V32 sh = Count(hn::Sub(e, hn::Load(d, set_e + j * V)));
      S = hn::Add(S, ShrV(hn::Load(d, set_s + j * V), sh));  // arithmetic
    }
  }
}

// Stage 2 of chunk k0 of rows m0.. and column n: C's f32 bits c (the
// previous chunk's D) to D's, from stage 1's e and S. buf: 6 vectors of
// scratch.
HWY_INLINE V32 Stage2(const TwoStageArgs& a, size_t split, size_t m0, size_t n,
                      size_t k0, V32 e, V32 S, V32 c, int32_t* buf) {
  const D32 d;
  const hn::RebindToUnsigned<D32> du;
  const DF64 df64;
  const DF32h df32h;
  const size_t V = hn::Lanes(d);
  const int32_t F = a.F;
  // In int32 lanes up to the two exact integers P (the sum floored to 31
  // bits below 2^Mx) and Cv (C floored to F bits), each as a floor right
  // shift done here and a power-of-two factor below.
  const V32 z = hn::Zero(d);
  const V32 ce = hn::And(hn::BitCast(d, hn::ShiftRight<23>(hn::BitCast(du, c))),
                         hn::Set(d, 0xFF));
  const auto special = hn::Eq(ce, hn::Set(d, 0xFF));
  const V32 mant = hn::And(c, hn::Set(d, 0x7FFFFF));
  const V32 c_sig =
      hn::IfThenElse(hn::Ne(ce, z), hn::Or(mant, hn::Set(d, 0x800000)), mant);
  const V32 c_exp = hn::Sub(hn::Max(ce, hn::Set(d, 1)), hn::Set(d, 127));
  const auto c_nz = hn::Ne(c_sig, z);
  const V32 ec = hn::IfThenElse(c_nz, c_exp, hn::Set(d, a.c_zero_exp));
  const V32 Mx = hn::Max(e, ec);
  // P: S * 2^(e - F) floored to 2^(Mx - 31), i.e. Pi = S >> (Mx - E1)
  // (floor) when E1 = e + 31 - F is below Mx, else Pi = S and the factor
  // 2^(E1 - Mx) joins 2^(Mx - 31): Pi * 2^(max(E1, Mx) - 31).
  const V32 E1 = hn::Add(e, hn::Set(d, kTwoStageSumBits - F));
  const V32 Pi = ShrV(S, Count(hn::Max(hn::Sub(Mx, E1), z)));
  // Cv the same way: C = c_sig * 2^(c_exp - 23) floored to 2^(Mx - F),
  // E2 = c_exp - 23 + F: Ci * 2^(max(E2, Mx) - F).
  auto take_c = c_nz;
  if (split > 1)
    take_c = hn::AndNot(hn::Lt(ec, hn::Sub(Mx, hn::Set(d, F + 1))), take_c);
  const V32 cv = hn::IfThenElse(hn::Lt(c, z), hn::Sub(z, c_sig), c_sig);
  const V32 E2 = hn::Add(c_exp, hn::Set(d, F - 23));
  const V32 Ci =
      hn::IfThenElseZero(take_c, ShrV(cv, Count(hn::Max(hn::Sub(Mx, E2), z))));
  // V = P + Cv * 2^(31 - F), |V| < 2^53, times 2^(Mx - 31): the two terms
  // Pi * 2^(max(E1, Mx) - 31) and Ci * 2^(max(E2, Mx) - F) are exact
  // doubles and so is their sum (V * 2^(Mx - 31): an integer below 2^53
  // times a power of two in range); the one binary64 -> binary32
  // conversion rounds it to nearest even (subnormals and the overflow to
  // Inf included; no FTZ/DAZ), which is detail::finish_sum(kRneF32). A
  // zero V gives +0. pe, qe: the factors' biased exponents (the exponents
  // lie in -1022..1023).
  const V32 pe = hn::Add(hn::Max(E1, Mx), hn::Set(d, 1023 - kTwoStageSumBits));
  const V32 qe = hn::Add(hn::Max(E2, Mx), hn::Set(d, 1023 - F));
  const auto half = [&](hn::Vec<D32h> pi, hn::Vec<D32h> ci, hn::Vec<D32h> p2,
                        hn::Vec<D32h> q2) HWY_ATTR {
    // Both products and the sum are exact: one fused multiply-add.
    const auto vd =
        hn::MulAdd(hn::PromoteTo(df64, pi), Pow2Biased(p2),
                   hn::Mul(hn::PromoteTo(df64, ci), Pow2Biased(q2)));
    return hn::DemoteTo(df32h, vd);
  };
  V32 r;
#if HWY_HAVE_SCALABLE || HWY_TARGET == HWY_SCALAR
  // Through memory: SVE vectors have no halves of a fixed type here, and
  // HWY_SCALAR has one lane.
  const D32h d32h;
  const size_t V64n = hn::Lanes(df64);
  float* rb = reinterpret_cast<float*>(buf + 4 * V);
  hn::Store(Pi, d, buf);
  hn::Store(Ci, d, buf + V);
  hn::Store(pe, d, buf + 2 * V);
  hn::Store(qe, d, buf + 3 * V);
  for (size_t i = 0; i < V; i += V64n)
    hn::StoreU(half(hn::LoadU(d32h, buf + i), hn::LoadU(d32h, buf + V + i),
                    hn::LoadU(d32h, buf + 2 * V + i),
                    hn::LoadU(d32h, buf + 3 * V + i)),
               df32h, rb + i);
  r = hn::BitCast(d, hn::Load(hn::RebindToFloat<D32>(), rb));
#else
  // In registers: the low and high halves (a store of the halves and a
  // reload of the whole vector would stall the chain through C).
  const hn::Half<D32> dh;
  const auto lo = half(hn::LowerHalf(dh, Pi), hn::LowerHalf(dh, Ci),
                       hn::LowerHalf(dh, pe), hn::LowerHalf(dh, qe));
  const auto hi = half(hn::UpperHalf(dh, Pi), hn::UpperHalf(dh, Ci),
                       hn::UpperHalf(dh, pe), hn::UpperHalf(dh, qe));
  r = hn::BitCast(d, hn::Combine(hn::RebindToFloat<D32>(), hi, lo));
#endif
  if (!a.ieee_zero)
    r = hn::IfThenZeroElse(hn::Eq(hn::And(r, hn::Set(d, 0x7FFFFFFF)), z), r);
  // The rare lanes: a NaN/Inf C, or C = -0 (under ZeroSign::kIeee a +0
  // result may have to be -0).
  if (HWY_LIKELY(
          hn::AllFalse(d, hn::Or(special, hn::Eq(c, hn::Set(d, INT32_MIN)))))) {
    return r;
  }
  // +0 with C = -0 under ZeroSign::kIeee: -0 when every product is a
  // zero of negative sign (then V = 0), checked from the operands.
  const auto zcheck = hn::AndNot(
      special, hn::And(hn::Eq(r, z), hn::Eq(c, hn::Set(d, INT32_MIN))));
  // A NaN/Inf C is kept (a NaN made canonical).
  r = hn::IfThenElse(special,
                     hn::IfThenElse(hn::Ne(mant, z),
                                    hn::Set(d, static_cast<int32_t>(a.nan)), c),
                     r);
  if (a.ieee_zero && !hn::AllFalse(d, zcheck)) {
    int32_t* zb = buf + 4 * V;
    int32_t* db = buf + 5 * V;
    hn::Store(hn::VecFromMask(d, zcheck), d, zb);
    hn::Store(r, d, db);
    for (size_t i = 0; i < V; ++i)
      if (zb[i] != 0 && AllNegZero(a, m0 + i, n, k0)) db[i] = INT32_MIN;
    r = hn::Load(d, db);
  }
  return r;
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
// F's constants, made once per call of Rows (else a.F is converted per
// chunk).
struct Stage2FConst {
  __m512 f, sum_f, sum;  // F, kTwoStageSumBits - F, kTwoStageSumBits
  __m512d unit;          // 2^(kTwoStageSumBits - F)
  explicit Stage2FConst(int32_t F)
      : f(_mm512_set1_ps(static_cast<float>(F))),
        sum_f(_mm512_set1_ps(static_cast<float>(kTwoStageSumBits - F))),
        sum(_mm512_set1_ps(static_cast<float>(kTwoStageSumBits))),
        unit(_mm512_set1_pd(
            static_cast<double>(int64_t{1} << (kTwoStageSumBits - F)))) {}
};

// Stage2 where stage 1 ran from binary32 operands (kFloatStage1: split 1,
// kOperandMin, every nonzero product at least 2^-126, so its exponent sum
// e >= -126; TwoStage admits 23 <= F <= 30), in binary32 and binary64
// operations, about 30 for Stage2's 54 (1.07x on cdna3_mfma_xf32_f32, whose
// chunks of four products spend the most in stage 2). With Mx = max(e, ec)
// and E1 = e + 31 - F as in Stage2:
//  * ec = getexp(C): C's exponent for a normal C. A subnormal C (getexp
//    below -126) or a zero C (-Inf) aligns at -126 in the model
//    (c_zero_exp = kOperandMinZero); it changes Mx only in a chunk whose
//    products are all zero (else e >= -126), where S = 0 and Cv = C either
//    way (C is a multiple of 2^-149, the grid 2^(Mx - F) at most that).
//  * Cv = floor(C 2^(F - Mx)) 2^(Mx - F): the integer Ci = floor(C 2^(F -
//    Mx)), below 2^(F + 1) in magnitude (|C| < 2^(ec + 1) <= 2^(Mx + 1)),
//    by VSCALEFPS and the conversion both rounding toward -Inf (a result in
//    the subnormal range is floored onto its grid, finer than 1: the floor
//    of the floor is the floor). Where Mx = ec, C 2^(F - ec) is an integer
//    (F >= 23): Stage2's Ci with E2 >= Mx.
//  * P = floor(S 2^(E1 - Mx)) 2^(Mx - 31), S (an integer) scaled by
//    VSCALEFPD and floored by VRNDSCALEPD, exact in binary64: Stage2's Pi
//    2^(max(E1, Mx) - 31).
//  * V = P + Cv = 2^(Mx - 31) B, B = floor(S 2^(E1 - Mx)) + 2^(31 - F) Ci
//    an integer below 2^53 (one exact FMA). B is rounded to binary32 by
//    the one conversion (RNE, the environment's: fp_env.h) and scaled by
//    VSCALEFPS. That is V rounded (RNE commutes with a power of two, and an
//    overflow gives Inf exactly where V rounds to Inf) unless V lies below
//    2^-126: then V is a multiple of 2^-149 (the products' terms, Ci 2^(Mx
//    - F) and the floor of P are, with every nonzero product at least
//    2^-126 and C a binary32), so B has at most 23 significant bits and
//    both roundings are exact.
// A NaN/Inf C, or C = -0 (a +0 result may have to be -0), takes Stage2 for
// the whole vector. V = 0 gives +0, as in Stage2 (no zero rule then acts).
HWY_INLINE V32 Stage2F(const TwoStageArgs& a, const Stage2FConst& k, size_t m0,
                       size_t n, size_t k0, V32 e, V32 S, V32 c, int32_t* buf) {
  constexpr int kRd = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
  const __m512 cf = _mm512_castsi512_ps(c.raw);
  // 0x99: quiet NaN, +Inf, -Inf, signalling NaN.
  const __mmask16 rare = static_cast<__mmask16>(
      _mm512_fpclass_ps_mask(cf, 0x99) |
      _mm512_cmpeq_epi32_mask(c.raw, _mm512_set1_epi32(INT32_MIN)));
  if (HWY_UNLIKELY(rare != 0)) return Stage2(a, 1, m0, n, k0, e, S, c, buf);
  const __m512 ef = _mm512_cvtepi32_ps(e.raw);
  const __m512 mx = _mm512_max_ps(ef, _mm512_getexp_ps(cf));
  const __m512i ci = _mm512_cvt_roundps_epi32(
      _mm512_scalef_round_ps(cf, _mm512_sub_ps(k.f, mx), kRd), kRd);
  const __m512 sh = _mm512_add_ps(_mm512_sub_ps(ef, mx), k.sum_f);  // E1-Mx
  const auto half = [&](__m256i s_h, __m256 sh_h, __m256i ci_h) HWY_ATTR {
    const __m512d p = _mm512_roundscale_pd(
        _mm512_scalef_pd(_mm512_cvtepi32_pd(s_h), _mm512_cvtps_pd(sh_h)), kRd);
    return _mm512_cvtpd_ps(
        _mm512_fmadd_pd(_mm512_cvtepi32_pd(ci_h), k.unit, p));
  };
  const __m256 lo =
      half(_mm512_castsi512_si256(S.raw), _mm512_castps512_ps256(sh),
           _mm512_castsi512_si256(ci));
  const __m256 hi =
      half(_mm512_extracti64x4_epi64(S.raw, 1), _mm512_extractf32x8_ps(sh, 1),
           _mm512_extracti64x4_epi64(ci, 1));
  const __m512 r =
      _mm512_scalef_ps(_mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1),
                       _mm512_sub_ps(mx, k.sum));
  return V32{_mm512_castps_si512(r)};
}
#else
struct Stage2FConst {  // no Stage2F
  explicit Stage2FConst(int32_t) {}
};
#endif

// Stage2, or Stage2F where stage 1 is kFloat's (split 1, kOperandMin).
template <bool kFloat>
HWY_INLINE V32 Stage2Of(const TwoStageArgs& a, const Stage2FConst& k,
                        size_t split, size_t m0, size_t n, size_t k0, V32 e,
                        V32 S, V32 c, int32_t* buf) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (kFloat) return Stage2F(a, k, m0, n, k0, e, S, c, buf);
#endif
  (void)k;
  return Stage2(a, split, m0, n, k0, e, S, c, buf);
}

// Rows m0.. of columns n0 .. n0 + nn - 1 (nn <= kChains) through every
// chunk. kL, kSplit: L and split as constants (0: a's), so that the common
// shapes unroll. buf: Stage1's and Stage2's scratch, then the columns' C.
// The columns' chains are independent, and each is a latency chain through
// C (Stage2 of chunk k0 needs chunk k0 - L's D): the chunk's columns one
// after another overlap them (8 chains ran CDNA3's gemm 1.2-1.35x as fast
// as 2 on AVX-512, docs/performance.md). kNC = kChains (nn == kChains):
// the C of each column in a register; kNC = 0, or a target with sizeless
// vectors (SVE: no arrays of them), in buf.
constexpr size_t kChains = 8;

template <size_t kL, size_t kSplit, bool kOpmin, size_t kNC, bool kFloat>
void Rows(const TwoStageArgs& args, size_t m0, size_t n0, size_t nn,
          int32_t* buf) {
  // A local copy: the stores to buf and out cannot alias it, so its fields
  // (and the constant vectors made from them) stay in registers.
  const TwoStageArgs a = args;
  const Stage2FConst s2k(a.F);
  const size_t L = kL != 0 ? kL : a.L;
  const size_t split = kSplit != 0 ? kSplit : a.split;
  const D32 d;
  const size_t V = hn::Lanes(d);
  int32_t* set_buf = buf + 6 * V;
  const auto* c_in = reinterpret_cast<const int32_t*>(a.c);
  auto* out = reinterpret_cast<int32_t*>(a.out);
#if !HWY_HAVE_SCALABLE
  if constexpr (kNC != 0) {
    V32 c[kNC];
    for (size_t j = 0; j < kNC; ++j)
      c[j] = hn::LoadU(d, c_in + (n0 + j) * a.M + m0);
    for (size_t k0 = 0; k0 < a.K; k0 += L) {
      HWY_UNROLL(kChains)
      for (size_t j = 0; j < kNC; ++j) {
        V32 e, S;
        Stage1<kL, kSplit, kOpmin, kFloat>(a, m0, n0 + j, k0, set_buf, e, S);
        c[j] = Stage2Of<kFloat>(a, s2k, split, m0, n0 + j, k0, e, S, c[j], buf);
      }
    }
    for (size_t j = 0; j < kNC; ++j)
      hn::StoreU(c[j], d, out + (n0 + j) * a.M + m0);
    return;
  }
#endif
  int32_t* cb = set_buf + 2 * split * V;  // nn vectors of C
  for (size_t j = 0; j < nn; ++j)
    hn::Store(hn::LoadU(d, c_in + (n0 + j) * a.M + m0), d, cb + j * V);
  for (size_t k0 = 0; k0 < a.K; k0 += L) {
    for (size_t j = 0; j < nn; ++j) {
      V32 e, S;
      Stage1<kL, kSplit, kOpmin, kFloat>(a, m0, n0 + j, k0, set_buf, e, S);
      hn::Store(Stage2Of<kFloat>(a, s2k, split, m0, n0 + j, k0, e, S,
                                 hn::Load(d, cb + j * V), buf),
                d, cb + j * V);
    }
  }
  for (size_t j = 0; j < nn; ++j)
    hn::StoreU(hn::Load(d, cb + j * V), d, out + (n0 + j) * a.M + m0);
}
}  // namespace ts

// gemm_amd.cpp two_stage_line (ieee_operand per code) for a line of stride
// 1, a vector of codes at a time: the 64-bit codes' low and high 32-bit
// halves taken apart (a bit at or above shift + width, in either half,
// makes the code bad, as does an all-ones exponent field), then the fields
// lane by lane; a bad code is stored as Op{} (0, 0, 0).
size_t TwoStageLine(const IeeeTwoStage& t, const uint64_t* c, size_t n,
                    int32_t s0, int32_t* sig, int32_t* exp, int32_t* neg,
                    int32_t& top, bool& any_bad) {
#if HWY_TARGET == HWY_SCALAR
  // One lane: no pairs of halves (never run: kernels do not run Highway's
  // scalar target, emu/fast/CMakeLists.txt).
  (void)t, (void)c, (void)n, (void)s0, (void)sig, (void)exp, (void)neg;
  (void)top, (void)any_bad;
  return 0;
#else
  const hn::ScalableTag<uint32_t> du;
  const hn::RebindToSigned<decltype(du)> di;
  const hn::Repartition<uint64_t, decltype(du)> d64;
  const size_t V = hn::Lanes(du), V64 = hn::Lanes(d64);
  const auto zero = hn::Zero(du);
  const auto emax = hn::Set(du, t.emax);
  const auto mmask = hn::Set(du, (1u << t.man) - 1);
  const auto hidden = hn::Set(du, 1u << t.man);
  const auto bias = hn::Set(di, t.bias), emin = hn::Set(di, t.emin);
  const auto zexp = hn::Set(di, t.zero_exp);
  // Bits of the low half at or above shift + width (these formats' codes
  // are at most 32 bits wide with the shift).
  const int wbits = t.shift + t.width;
  const auto low_wide = hn::Set(du, wbits >= 32 ? 0u : ~((1u << wbits) - 1));
  auto tp = hn::Set(di, top);
  auto bad_any = hn::Zero(du);
  size_t i = 0;
  for (; i + V <= n; i += V) {
    const auto a = hn::BitCast(du, hn::LoadU(d64, c + i));
    const auto b = hn::BitCast(du, hn::LoadU(d64, c + i + V64));
    const auto lo = hn::ConcatEven(du, b, a);
    const auto hi = hn::ConcatOdd(du, b, a);
    const auto x = hn::ShiftRightSame(lo, t.shift);
    const auto e = hn::And(hn::ShiftRightSame(x, t.man), emax);
    const auto bad =
        hn::Or(hn::Or(hn::Ne(hi, zero), hn::Ne(hn::And(lo, low_wide), zero)),
               hn::Eq(e, emax));
    const auto normal = hn::Ne(e, zero);
    const auto sg = hn::IfThenZeroElse(
        bad, hn::Or(hn::And(x, mmask), hn::IfThenElseZero(normal, hidden)));
    const auto sg0 = hn::RebindMask(di, hn::Eq(sg, zero));
    auto ex = hn::IfThenElse(hn::RebindMask(di, normal),
                             hn::Sub(hn::BitCast(di, e), bias), emin);
    ex = hn::IfThenElse(sg0, zexp, ex);  // (a bad code's sig is 0 too)
    ex = hn::IfThenZeroElse(hn::RebindMask(di, bad), ex);
    const auto ng = hn::IfThenZeroElse(
        bad, hn::And(hn::ShiftRightSame(x, t.width - 1), hn::Set(du, 1u)));
    hn::StoreU(hn::ShiftLeftSame(hn::BitCast(di, sg), s0), di, sig + i);
    hn::StoreU(ex, di, exp + i);
    hn::StoreU(hn::Neg(hn::BitCast(di, ng)), di, neg + i);
    tp = hn::Max(tp, hn::IfThenElse(sg0, hn::Set(di, INT32_MIN / 4),
                                    hn::Add(ex, hn::Set(di, 1))));
    bad_any = hn::Or(bad_any, hn::VecFromMask(du, bad));
  }
  top = hn::GetLane(hn::MaxOfLanes(di, tp));
  any_bad = any_bad || !hn::AllTrue(du, hn::Eq(bad_any, zero));
  return i;
#endif
}

// two_stage_floats (gemm_fast_impl.h) on this target.
bool TwoStageFloats(const int32_t* sig, const int32_t* exp, const int32_t* neg,
                    size_t n, int32_t frac, float* f, int32_t& lo) {
  if constexpr (!ts::kFloatStage1) {
    (void)sig, (void)exp, (void)neg, (void)n, (void)frac, (void)f, (void)lo;
    return false;
  } else {
    const ts::D32 d;
    const hn::Rebind<float, ts::D32> df;
    const size_t V = hn::Lanes(d);
    const auto z = hn::Zero(d), sign = hn::Set(d, INT32_MIN);
    auto lv = hn::Set(d, lo);
    const auto binade = [&](ts::V32 bits) HWY_ATTR {
      const auto field =
          hn::ShiftRight<23>(hn::And(bits, hn::Set(d, 0x7FFFFFFF)));
      return hn::IfThenElse(hn::Eq(field, z), hn::Set(d, -150),
                            hn::Sub(field, hn::Set(d, 127)));
    };
    size_t i = 0;
    for (; i + V <= n; i += V) {
      const auto sg = hn::LoadU(d, sig + i);
      const auto x = ts::ScalefF(
          hn::ConvertTo(df, sg),
          hn::ConvertTo(df, hn::Sub(hn::LoadU(d, exp + i), hn::Set(d, frac))));
      const auto bits =
          hn::Xor(hn::BitCast(d, x), hn::And(hn::LoadU(d, neg + i), sign));
      hn::StoreU(hn::BitCast(df, bits), df, f + i);
      lv = hn::IfThenElse(hn::Eq(sg, z), lv, hn::Min(lv, binade(bits)));
    }
    HWY_ALIGN int32_t l[hn::MaxLanes(d)];
    hn::Store(lv, d, l);
    for (size_t j = 0; j < V; ++j) lo = std::min(lo, l[j]);
    for (; i < n; ++i) {
      const float x = std::ldexp(static_cast<float>(sig[i]), exp[i] - frac);
      f[i] = neg[i] != 0 ? -x : x;
      if (sig[i] == 0) continue;
      const int fe = std::fpclassify(x) == FP_NORMAL ? std::ilogb(x) : -150;
      lo = std::min(lo, fe);
    }
    return true;
  }
}

size_t TwoStage(const TwoStageArgs& a) {
  const size_t V = hn::Lanes(ts::D32());
  const size_t whole = a.M - a.M % V;
  if (whole == 0) return 0;
  // Rows' scratch. SVE vectors are sizeless: arrays, not vectors of
  // vectors.
  auto buf = hwy::AllocateAligned<int32_t>((6 + 2 * a.split + ts::kChains) * V);
  // Row groups outside: a group's A (K x Lanes) stays in cache across n.
  // Per shape, the kernel for kChains columns and the one for fewer.
  using RowsFn =
      void (*)(const TwoStageArgs&, size_t, size_t, size_t, int32_t*);
  RowsFn rows[2] = {a.opmin ? &ts::Rows<0, 0, true, 0, false>
                            : &ts::Rows<0, 0, false, 0, false>,
                    a.opmin ? &ts::Rows<0, 0, true, 0, false>
                            : &ts::Rows<0, 0, false, 0, false>};
  const auto shape = [&](auto l, auto sp) {
    constexpr size_t kL = decltype(l)::value, kS = decltype(sp)::value;
    if (a.opmin) {
      rows[0] = &ts::Rows<kL, kS, true, ts::kChains, false>;
      rows[1] = &ts::Rows<kL, kS, true, 0, false>;
    } else {
      rows[0] = &ts::Rows<kL, kS, false, ts::kChains, false>;
      rows[1] = &ts::Rows<kL, kS, false, 0, false>;
    }
    // The binary32 stage 1 (split 1, kOperandMin; two_stage_floats).
    if constexpr (ts::kFloatStage1 && kS == 1) {
      if (a.opmin && a.at_f != nullptr && a.b_f != nullptr && a.F >= 23 &&
          a.F <= 30) {  // and Stage2F's range of F
        rows[0] = &ts::Rows<kL, kS, true, ts::kChains, true>;
        rows[1] = &ts::Rows<kL, kS, true, 0, true>;
      }
    }
  };
  using std::integral_constant;
  if (a.L == 8 && a.split == 1)  // CDNA3 f16, bf16
    shape(integral_constant<size_t, 8>(), integral_constant<size_t, 1>());
  if (a.L == 4 && a.split == 1)  // CDNA3 xf32
    shape(integral_constant<size_t, 4>(), integral_constant<size_t, 1>());
  if (a.L == 16 && a.split == 2)  // CDNA3 fp8/bf8
    shape(integral_constant<size_t, 16>(), integral_constant<size_t, 2>());
  for (size_t m0 = 0; m0 < whole; m0 += V) {
    for (size_t n = 0; n < a.N; n += ts::kChains) {
      const size_t nn = std::min(ts::kChains, a.N - n);
      rows[nn == ts::kChains ? 0 : 1](a, m0, n, nn, buf.get());
    }
  }
  return whole;
}

}  // namespace HWY_NAMESPACE
}  // namespace mxc::fast::gemm_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/gemm_fast_impl.h"
#include "emu/fast/hwy_dispatch.h"

namespace mxc::fast::gemm_detail {

HWY_EXPORT(Pairwise);
HWY_EXPORT(TwoStage);
HWY_EXPORT(TwoStageLine);
HWY_EXPORT(TwoStageFloats);

bool two_stage_floats(Isa isa, const int32_t* sig, const int32_t* exp,
                      const int32_t* neg, size_t n, int32_t frac, float* f,
                      int32_t& lo) {
  return MXC_HWY_DISPATCH(TwoStageFloats, isa)(sig, exp, neg, n, frac, f, lo);
}

size_t pairwise_simd(Isa isa, const uint32_t* at, size_t M, size_t N,
                     const uint32_t* b, size_t K, size_t L, bool ftz,
                     uint32_t nan, const uint32_t* c, uint32_t* out) {
  return MXC_HWY_DISPATCH(Pairwise, isa)(at, M, N, b, K, L, ftz, nan, c, out);
}

size_t two_stage_line_simd(Isa isa, const IeeeTwoStage& t, const uint64_t* c,
                           size_t n, int32_t s0, int32_t* sig, int32_t* exp,
                           int32_t* neg, int32_t& top, bool& any_bad) {
  return MXC_HWY_DISPATCH(TwoStageLine, isa)(t, c, n, s0, sig, exp, neg, top,
                                             any_bad);
}

size_t two_stage_simd(Isa isa, const TwoStageArgs& a) {
  return MXC_HWY_DISPATCH(TwoStage, isa)(a);
}

}  // namespace mxc::fast::gemm_detail
#endif  // HWY_ONCE
