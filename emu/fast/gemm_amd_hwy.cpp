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
#include <bit>
#include <cstddef>
#include <cstdint>

#include "emu/fast/fdpa_decode.h"
#include "emu/fast/gemm_fast_impl.h"
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
// caller admits only formats whose terms are below 2^(F + 2) and whose
// L-term sums stay below 2^31 (two_stage_simd_fits). The sets' sums are
// floored onto the joint e_max by arithmetic right shifts. Stage 2 (C, the
// 31-bit floor, the RNE binary32 pack) runs in int64 lanes, half as many
// per vector, on the stage-1 results stored per group. Every variable
// shift count is clamped below the lane width (the shifted values are
// then 0 or -1 as the floor wants). Specials: a NaN/Inf C is kept (NaN
// made canonical); a product >= 2^128 is left to the scalar kernel (the
// caller does not come here when one can occur); a zero sum with a -0 C
// goes to a scalar check of the chunk's product signs (ZeroSign::kIeee).
namespace ts {

using D32 = hn::ScalableTag<int32_t>;
using V32 = hn::Vec<D32>;
using D64 = hn::Repartition<int64_t, D32>;
using V64 = hn::Vec<D64>;
using D32h = hn::Rebind<int32_t, D64>;
using DU32h = hn::Rebind<uint32_t, D64>;
using DU64 = hn::RebindToUnsigned<D64>;

template <class V>
HWY_INLINE V ShlV(V a, V b) {
#if HWY_HAVE_SCALABLE
  return hn::Shl(a, b);
#else
  return a << b;
#endif
}
template <class V>
HWY_INLINE V ShrV(V a, V b) {
#if HWY_HAVE_SCALABLE
  return hn::Shr(a, b);
#else
  return a >> b;
#endif
}

// floor(v * 2^sh) of signed 64-bit lanes (|v| * 2^max(sh, 0) < 2^63): a
// left shift, or a right shift clamped to 63 rounding toward -Inf
// (~(~v >> r) for a negative v: logical shifts only, as AVX2 has no
// 64-bit arithmetic variable shift).
HWY_INLINE V64 FloorShift(V64 v, V64 sh) {
  const D64 d;
  const DU64 du;
  const V64 z = hn::Zero(d), k63 = hn::Set(d, 63);
  const auto l = hn::BitCast(du, hn::Min(hn::Max(sh, z), k63));
  const auto r = hn::BitCast(du, hn::Min(hn::Max(hn::Sub(z, sh), z), k63));
  const auto u = ShlV(hn::BitCast(du, v), l);
  const auto neg = hn::Lt(v, z);
  return hn::BitCast(
      d, hn::IfThenElse(hn::RebindMask(du, neg), hn::Not(ShrV(hn::Not(u), r)),
                        ShrV(u, r)));
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

// detail::finish_sum(kRneF32, V < 0, q, |V|) for V != 0 (|V| < 2^63): the
// binary32 code ((E - emin) << 23) + m, E = max(top, -126), m the
// significand rounded to nearest even in units of 2^(E - 23), Inf at the
// top; the sign bit of V.
HWY_INLINE V64 PackRneF32(V64 V, V64 q) {
  const D64 d;
  const DU64 du;
  const detail::AccFormat a = detail::acc_format_of(AccRound::kRneF32);
  const V64 z = hn::Zero(d), one = hn::Set(d, 1), k63 = hn::Set(d, 63);
  const auto neg = hn::Lt(V, z);
  const V64 mag = hn::IfThenElse(neg, hn::Sub(z, V), V);
  const V64 top = hn::Add(q, hn::Sub(BitWidth(mag), one));
  const V64 e = hn::Max(top, hn::Set(d, int64_t{a.emin}));
  const V64 sh = hn::Sub(q, hn::Sub(e, hn::Set(d, int64_t{a.P})));
  const V64 rr = hn::Max(hn::Sub(z, sh), z);
  const V64 r = hn::Min(rr, k63);
  const V64 l = hn::Min(hn::Max(sh, z), k63);
  V64 mm = hn::BitCast(d, ShrV(ShlV(hn::BitCast(du, mag), hn::BitCast(du, l)),
                               hn::BitCast(du, r)));
  // rem = the bits shifted out, half = 2^(r-1); r >= 64: below half.
  const V64 back =
      hn::BitCast(d, ShlV(hn::BitCast(du, mm), hn::BitCast(du, r)));
  const V64 rem = hn::Sub(mag, back);
  const V64 half = hn::ShiftRight<1>(
      hn::BitCast(d, ShlV(hn::BitCast(du, one), hn::BitCast(du, r))));
  const auto odd = hn::Eq(hn::And(mm, one), one);
  const auto up =
      hn::And(hn::And(hn::Gt(r, z), hn::Lt(rr, hn::Set(d, 64))),
              hn::Or(hn::Gt(rem, half), hn::And(hn::Eq(rem, half), odd)));
  mm = hn::Add(mm, hn::IfThenElseZero(up, one));
  V64 b = hn::Add(
      hn::ShiftLeftSame(hn::Sub(e, hn::Set(d, int64_t{a.emin})), a.P), mm);
  b = hn::Min(b, hn::Set(d, static_cast<int64_t>(a.inf)));
  return hn::IfThenElse(neg, hn::Or(b, hn::Set(d, int64_t{1} << 31)), b);
}

// Stage 1 of one interleaved set (products k0 + j, k0 + j + split, ...) for
// rows m0..: its e_max and its sum of aligned terms.
HWY_INLINE void SetSum(const TwoStageArgs& a, size_t m0, size_t n, size_t k0,
                       size_t j, V32& em, V32& s) {
  const D32 d;
  const size_t M = a.M, K = a.K;
  const int32_t* bs = a.b_sig + n * K;
  const int32_t* be = a.b_exp + n * K;
  const int32_t* bn = a.b_neg + n * K;
  const V32 k31 = hn::Set(d, 31), z = hn::Zero(d);
  // The product's exponent (the zero rule: under kFixed a zero product
  // aligns at e_zero).
  const auto pexp = [&](size_t k) HWY_ATTR {
    const V32 e = hn::Add(hn::LoadU(d, a.at_exp + k * M + m0), hn::Set(d, be[k]));
    if (a.opmin) return e;
    if (bs[k] == 0) return hn::Set(d, a.e_zero);
    return hn::IfThenElse(hn::Eq(hn::LoadU(d, a.at_sig + k * M + m0), z),
                          hn::Set(d, a.e_zero), e);
  };
  em = hn::Set(d, INT32_MIN);
  for (size_t k = k0 + j; k < k0 + a.L; k += a.split) em = hn::Max(em, pexp(k));
  s = z;
  for (size_t k = k0 + j; k < k0 + a.L; k += a.split) {
    const V32 sh = hn::Min(hn::Sub(em, pexp(k)), k31);
    const V32 mag = hn::Mul(hn::LoadU(d, a.at_sig + k * M + m0), hn::Set(d, bs[k]));
    const V32 t = ShrV(mag, sh);  // mag >= 0: logical = arithmetic
    const V32 ng = hn::Xor(hn::LoadU(d, a.at_neg + k * M + m0), hn::Set(d, bn[k]));
    s = hn::Add(s, hn::Sub(hn::Xor(t, ng), ng));
  }
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

void Rows(const TwoStageArgs& a, size_t m0, size_t n, int32_t* sb, int32_t* eb,
          int32_t* set_s, int32_t* set_e, uint32_t* cs, int32_t* zb) {
  const D32 d;
  const D64 d64;
  const DU64 du64;
  const DU32h du32h;
  const D32h d32h;
  const size_t V = hn::Lanes(d), V64n = hn::Lanes(d64);
  const int32_t F = a.F;
  for (size_t i = 0; i < V; ++i) cs[i] = a.c[n * a.M + m0 + i];
  for (size_t k0 = 0; k0 < a.K; k0 += a.L) {
    // Stage 1.
    V32 e, S;
    if (a.split == 1) {
      SetSum(a, m0, n, k0, 0, e, S);
    } else {
      e = hn::Set(d, INT32_MIN);
      for (size_t j = 0; j < a.split; ++j) {
        V32 em, s;
        SetSum(a, m0, n, k0, j, em, s);
        hn::Store(em, d, set_e + j * V);
        hn::Store(s, d, set_s + j * V);
        e = hn::Max(e, em);
      }
      S = hn::Zero(d);
      const V32 k31 = hn::Set(d, 31);
      for (size_t j = 0; j < a.split; ++j) {
        const V32 sh = hn::Min(hn::Sub(e, hn::Load(d, set_e + j * V)), k31);
        S = hn::Add(S, ShrV(hn::Load(d, set_s + j * V), sh));  // arithmetic
      }
    }
    hn::Store(S, d, sb);
    hn::Store(e, d, eb);
    // Stage 2, 64-bit lanes.
    bool any_zero = false;
    for (size_t i = 0; i < V; i += V64n) {
      const V64 c = hn::BitCast(d64, hn::PromoteTo(du64, hn::LoadU(du32h, cs + i)));
      const V64 e64 = hn::PromoteTo(d64, hn::LoadU(d32h, eb + i));
      const V64 S64 = hn::PromoteTo(d64, hn::LoadU(d32h, sb + i));
      const V64 z = hn::Zero(d64);
      const V64 ce = hn::And(hn::ShiftRight<23>(c), hn::Set(d64, 0xFF));
      const auto special = hn::Eq(ce, hn::Set(d64, 0xFF));
      const V64 mant = hn::And(c, hn::Set(d64, 0x7FFFFF));
      const auto normal = hn::Ne(ce, z);
      const V64 c_sig =
          hn::IfThenElse(normal, hn::Or(mant, hn::Set(d64, 0x800000)), mant);
      const V64 c_exp = hn::Sub(hn::Max(ce, hn::Set(d64, 1)), hn::Set(d64, 127));
      const auto c_nz = hn::Ne(c_sig, z);
      const auto c_neg = hn::Ne(hn::And(c, hn::Set(d64, 0x80000000LL)), z);
      const V64 ec = hn::IfThenElse(c_nz, c_exp, hn::Set(d64, int64_t{a.c_zero_exp}));
      const V64 Mx = hn::Max(e64, ec);
      const V64 P = FloorShift(
          S64, hn::Add(hn::Sub(e64, Mx), hn::Set(d64, int64_t{kTwoStageSumBits - F})));
      auto take_c = c_nz;
      if (a.split > 1)
        take_c = hn::AndNot(hn::Lt(ec, hn::Sub(Mx, hn::Set(d64, int64_t{F + 1}))),
                            take_c);
      const V64 cv = hn::IfThenElse(c_neg, hn::Sub(z, c_sig), c_sig);
      const V64 Cv = hn::IfThenElseZero(
          take_c,
          FloorShift(cv, hn::Sub(hn::Sub(c_exp, hn::Set(d64, 23)),
                                 hn::Sub(Mx, hn::Set(d64, int64_t{F})))));
      const V64 Vs = hn::Add(P, hn::ShiftLeftSame(Cv, kTwoStageSumBits - F));
      const auto vzero = hn::Eq(Vs, z);
      V64 r = PackRneF32(Vs, hn::Sub(Mx, hn::Set(d64, int64_t{kTwoStageSumBits})));
      if (!a.ieee_zero)
        r = hn::IfThenZeroElse(hn::Eq(hn::And(r, hn::Set(d64, 0x7FFFFFFF)), z), r);
      r = hn::IfThenZeroElse(vzero, r);
      // A sum of zeros with C = -0 (ZeroSign::kIeee): the products' signs.
      const auto zcheck = hn::AndNot(
          special, hn::And(vzero, hn::Eq(c, hn::Set(d64, 0x80000000LL))));
      if (a.ieee_zero && !hn::AllFalse(d64, zcheck)) {
        any_zero = true;
        hn::StoreU(hn::TruncateTo(du32h, hn::BitCast(du64, hn::VecFromMask(d64, zcheck))),
                   du32h, reinterpret_cast<uint32_t*>(zb + i));
      } else {
        hn::StoreU(hn::Zero(du32h), du32h, reinterpret_cast<uint32_t*>(zb + i));
      }
      const V64 held = hn::IfThenElse(hn::Ne(mant, z),
                                      hn::Set(d64, int64_t{a.nan}), c);
      r = hn::IfThenElse(special, held, r);
      hn::StoreU(hn::TruncateTo(du32h, hn::BitCast(du64, r)), du32h, cs + i);
    }
    if (any_zero) {
      for (size_t i = 0; i < V; ++i)
        if (zb[i] != 0 && AllNegZero(a, m0 + i, n, k0)) cs[i] = 0x80000000u;
    }
  }
  for (size_t i = 0; i < V; ++i) a.out[n * a.M + m0 + i] = cs[i];
}

}  // namespace ts

size_t TwoStage(const TwoStageArgs& a) {
  const size_t V = hn::Lanes(ts::D32());
  const size_t whole = a.M - a.M % V;
  if (whole == 0) return 0;
  // Per group: S, e, the sets' sums and e_max (split of them), C / D, the
  // zero-check lanes (SVE vectors are sizeless: arrays, not vectors).
  auto buf = hwy::AllocateAligned<int32_t>((5 + 2 * a.split) * V);
  int32_t* sb = buf.get();
  int32_t* eb = sb + V;
  int32_t* zb = eb + V;
  auto* cs = reinterpret_cast<uint32_t*>(zb + V);
  int32_t* set_s = zb + 2 * V;
  int32_t* set_e = set_s + a.split * V;
  for (size_t n = 0; n < a.N; ++n)
    for (size_t m0 = 0; m0 < whole; m0 += V)
      ts::Rows(a, m0, n, sb, eb, set_s, set_e, cs, zb);
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

size_t pairwise_simd(Isa isa, const uint32_t* at, size_t M, size_t N,
                     const uint32_t* b, size_t K, size_t L, bool ftz,
                     uint32_t nan, const uint32_t* c, uint32_t* out) {
  return MXC_HWY_DISPATCH(Pairwise, isa)(at, M, N, b, K, L, ftz, nan, c, out);
}

size_t two_stage_simd(Isa isa, const TwoStageArgs& a) {
  return MXC_HWY_DISPATCH(TwoStage, isa)(a);
}

}  // namespace mxc::fast::gemm_detail
#endif  // HWY_ONCE
