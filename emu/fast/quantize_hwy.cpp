// The fused MX block quantization kernels (emu/fast/quantize_fused.h), one
// Highway source for every target (AVX2, AVX-512, NEON, SVE/SVE2, ...;
// emu/fast/isa.h): one pass per block, amax in registers, the scale byte
// from the per-binade table, the elements converted in-register
// (quantize_simd-inl.h) and narrowed to bytes. Rowwise: a block is B/Lanes
// contiguous vectors. Columnwise: up to 256 columns per pass, the amax of
// each column down B rows (rows read in order, contiguous), then the same
// rows converted with per-column constants. Scale bytes near the ends take
// a pre-scale by a power of two (quantize_fused.h, SConst::ps). Blocks
// holding NaN or Inf, and the bytes whose multiplier is not modelled
// (quantize_fast.cpp byte_mult: a NaN one), go to the reference
// (mx_block_ref).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/quantize_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "emu/fast/quantize_fused.h"
#include "emu/fast/quantize_simd-inl.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::detail {
namespace HWY_NAMESPACE {
namespace {

// x * 2^k (ps: 2^k as f32 bits), the pre-scale of the bytes near the ends
// (quantize_fused.h: the conversion of fl(|x| * 2^k) under the constants of
// 2^(d - k) is the reference's code; the sign is x's).
HWY_INLINE V16 PreScale(V16 x, V16 ps) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  return hn::BitCast(d, hn::Mul(hn::BitCast(df, x), hn::BitCast(df, ps)));
}

// The element zero rules of MxKern as template flags (decided once per
// call, so that each profile's loop carries only its own steps).
constexpr int kRuleNegZero = 1, kRuleScaledZero = 2;

// A block's elements under scale byte s with the zero rules R
// (quantize_fast.cpp ZeroStep): the -0 code becomes 0, inputs below the
// byte's limit (SConst::zl) give 0. P: the byte's constants take the
// pre-scale (SConst::ps; the zero rules read x itself).
template <int M, int Z, int R, bool P = false>
HWY_INLINE void RowBlockRules(const MxKern& k, size_t B, uint8_t s,
                              const uint32_t* xb, uint8_t* cb) {
  const SConst& c = k.sc[s];
  const D16 d;
  const size_t N = hn::Lanes(d);
  const V16 tt = hn::Set(d, c.t), cc = hn::Set(d, c.c0), mm = hn::Set(d, c.max);
  const V16 sign = hn::Set(d, k.ek.sign_bit);
  const V16 nz = hn::Set(d, uint32_t{k.neg_zero_code});
  const V16 lim = hn::Set(d, c.zl);
  const V16 abs = hn::Set(d, 0x7FFFFFFFu);
  const V16 ps = hn::Set(d, c.ps);
  for (size_t j = 0; j < B; j += N) {
    const V16 x = hn::LoadU(d, xb + j);
    V16 e = Cvt<M, Z>(P ? PreScale(x, ps) : x, tt, cc, mm, sign);
    if constexpr ((R & kRuleNegZero) != 0)
      e = hn::IfThenZeroElse(hn::Eq(e, nz), e);
    if constexpr ((R & kRuleScaledZero) != 0)
      e = hn::IfThenZeroElse(hn::Lt(hn::And(x, abs), lim), e);
    StoreBytes(e, cb + j);
  }
}

// HalfUpCvt's constants for the element format (quantize_simd-inl.h):
// tb = bits(2^emin), kf = (254 + M) << 23, kc = bits(2^23) + (tb >> (23 -
// M)).
inline uint32_t half_up_tb(const ElemK& e) {
  return static_cast<uint32_t>(128 - e.bias) << 23;
}
inline uint32_t half_up_kf(const ElemK& e) {
  return static_cast<uint32_t>(254 + e.m) << 23;
}
inline uint32_t half_up_kc(const ElemK& e) {
  return 0x4B000000u + (half_up_tb(e) >> (23 - e.m));
}

// microxcaling's rule (MxKern::half_up): every element by HalfUpCvt, then
// the zero rules if the profile has them. kRne (kEven, FP8 elements, whose
// blocks seldom reach below the least normal): vectors with no element
// below T (|x| < 2^(emin + X)) take the cheaper Cvt with ties to even,
// which equals the rule there (quantize_fast.cpp floor_half_up).
template <int M, bool kEven, bool kRne = false>
HWY_INLINE void RowBlockHalfUp(const MxKern& k, size_t B, uint8_t s,
                               const uint32_t* xb, uint8_t* cb) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  const V16 mul = hn::Set(d, half_up_mul(s));
  const V16 tb = hn::Set(d, half_up_tb(k.ek)),
            kf = hn::Set(d, half_up_kf(k.ek));
  const V16 kc = hn::Set(d, half_up_kc(k.ek));
  const V16 mx = hn::Set(d, static_cast<uint32_t>(k.ek.max_enc));
  const V16 sign = hn::Set(d, k.ek.sign_bit);
  const bool rules = k.code_neg_zero || k.scaled_zero;
  const V16 nz =
      hn::Set(d, k.code_neg_zero ? uint32_t{k.neg_zero_code} : 0x100u);
  const SConst& c = k.sc[s];
  const V16 lim = hn::Set(d, k.scaled_zero ? c.zl : 0u);
  const V16 abs = hn::Set(d, 0x7FFFFFFFu);
  const V16 tt = hn::Set(d, c.t), cc = hn::Set(d, c.c0), mm = hn::Set(d, c.max);
  for (size_t j = 0; j < B; j += N) {
    const V16 x = hn::LoadU(d, xb + j);
    V16 e;
    if (kRne && hn::AllFalse(d, hn::Lt(hn::And(x, abs), tt))) {
      e = Cvt<M, kTiesEven>(x, tt, cc, mm, sign);
    } else {
      e = HalfUpCvt<M, kEven>(x, mul, tb, kf, kc, mx, sign);
    }
    if (rules) {
      e = hn::IfThenZeroElse(hn::Eq(e, nz), e);
      e = hn::IfThenZeroElse(hn::Lt(hn::And(x, abs), lim), e);
    }
    StoreBytes(e, cb + j);
  }
}

// RowBlockHalfUp's constants that do not depend on the block, copied out
// of k once per group (the code stores may alias k: read through it, they
// would be reloaded and broadcast again for every block).
struct HalfUpC {
  uint32_t tb, kf, kc, mx, sign, nz;
  bool rules, scaled_zero;
  explicit HalfUpC(const MxKern& k)
      : tb(half_up_tb(k.ek)),
        kf(half_up_kf(k.ek)),
        kc(half_up_kc(k.ek)),
        mx(static_cast<uint32_t>(k.ek.max_enc)),
        sign(k.ek.sign_bit),
        nz(k.code_neg_zero ? uint32_t{k.neg_zero_code} : 0x100u),
        rules(k.code_neg_zero || k.scaled_zero),
        scaled_zero(k.scaled_zero) {}
};

// One vector of RowBlockHalfUp (the same steps) for a block whose byte s
// has the common path's constants (BConst q: t, c0, max) and zero limit zl.
template <int M, bool kEven, bool kRne>
HWY_INLINE V16 HalfUpVec(const HalfUpC& h, V16 x, uint32_t mul, uint32_t zl,
                         const BConst& q) {
  const D16 d;
  const V16 abs = hn::Set(d, 0x7FFFFFFFu);
  const V16 sign = hn::Set(d, h.sign);
  V16 e;
  if (kRne && hn::AllFalse(d, hn::Lt(hn::And(x, abs), hn::Set(d, q.t)))) {
    e = Cvt<M, kTiesEven>(x, hn::Set(d, q.t), hn::Set(d, q.c0),
                          hn::Set(d, q.max), sign);
  } else {
    e = HalfUpCvt<M, kEven>(x, hn::Set(d, mul), hn::Set(d, h.tb),
                            hn::Set(d, h.kf), hn::Set(d, h.kc),
                            hn::Set(d, h.mx), sign);
  }
  if (h.rules) {
    e = hn::IfThenZeroElse(hn::Eq(e, hn::Set(d, h.nz)), e);
    e = hn::IfThenZeroElse(hn::Lt(hn::And(x, abs), hn::Set(d, zl)), e);
  }
  return e;
}

// The element loop of RowBlock: R -1 plain (no rules), -2 / -3
// microxcaling's rule (ties away / to even), else the zero rules R.
constexpr int kPlain = -1, kHalfUpAway = -2, kHalfUpEven = -3,
              kHalfUpEvenRne = -4;

// A block's elements under scale byte s whose constants (c: t, c0, max)
// need no pre-scale (E(amax) <= lim): the element loop of R. kB: B at
// compile time (0: not).
template <int M, int Z, int R, size_t kB = 0>
HWY_INLINE void RowBlockElems(const MxKern& k, size_t B_arg, uint8_t s,
                              uint32_t t, uint32_t c0, uint32_t max, V16 sign,
                              const uint32_t* xb, uint8_t* cb) {
  const size_t B = kB != 0 ? kB : B_arg;
  if constexpr (R == kPlain) {
    const D16 d;
    const size_t N = hn::Lanes(d);
    const V16 tt = hn::Set(d, t), cc = hn::Set(d, c0), mm = hn::Set(d, max);
    for (size_t j = 0; j < B; j += N)
      StoreBytes(Cvt<M, Z>(hn::LoadU(d, xb + j), tt, cc, mm, sign), cb + j);
  } else if constexpr (R == kHalfUpAway) {
    RowBlockHalfUp<M, false>(k, B, s, xb, cb);
  } else if constexpr (R == kHalfUpEven || R == kHalfUpEvenRne) {
    RowBlockHalfUp<M, true, R == kHalfUpEvenRne>(k, B, s, xb, cb);
  } else {
    RowBlockRules<M, Z, R>(k, B, s, xb, cb);
  }
}

// One block after its amax: the scale byte, then the elements.
template <int M, int Z, int R>
HWY_INLINE void RowBlock(const MxKern& k, size_t B, uint32_t amax,
                         const uint32_t* xb, uint8_t* sb, uint8_t* cb) {
  if (amax >= 0x7F800000u) {
    mx_block_ref(k, xb, 1, B, sb, cb, 1);
    return;
  }
  const uint8_t s = mx_scale_of(k, amax);
  *sb = s;
  const SConst& c = k.sc[s];
  if (static_cast<int32_t>(amax >> 23) > c.lim) {
    if (static_cast<int32_t>(amax >> 23) <= c.lim_ps) {
      // Near the ends: the pre-scale (SConst::ps); microxcaling's rule
      // needs none (HalfUpCvt multiplies by 2^(127 - s); not its kRne
      // shortcut, whose Cvt constants are those of the byte).
      if constexpr (R == kHalfUpAway) {
        RowBlockHalfUp<M, false>(k, B, s, xb, cb);
      } else if constexpr (R == kHalfUpEven || R == kHalfUpEvenRne) {
        RowBlockHalfUp<M, true>(k, B, s, xb, cb);
      } else {
        RowBlockRules<M, Z, (R > 0 ? R : 0), true>(k, B, s, xb, cb);
      }
    } else if (c.fill != 0x100) {  // one code for every element
      std::fill(cb, cb + B, static_cast<uint8_t>(c.fill));
    } else {
      mx_block_ref(k, xb, 1, B, sb, cb, 1);
    }
    return;
  }
  RowBlockElems<M, Z, R>(k, B, s, c.t, c.c0, c.max,
                         hn::Set(D16(), k.ek.sign_bit), xb, cb);
}

// The block indices (quantize_fused.h BConst) of Lanes amaxes: 2 E + (the
// significand >= thr[E]), kZeroIndex for 0 (E = 255, NaN and Inf, is a
// slow binade: its entries send the block to RowBlock). thr[E] is
// MxKern::thr_run where every E is in its run (one compare; a 16-lane
// gather took a tenth of the MXFP8 rows' samples), else gathered.
HWY_INLINE void BlockIndex(const MxKern& k, const uint32_t* am, uint32_t* ix) {
  const D16 d;
  const hn::RebindToSigned<D16> di;
  const V16 a = hn::Load(d, am);
  const V16 e = hn::ShiftRight<23>(a);
  const auto in_run =
      hn::Lt(hn::Sub(e, hn::Set(d, k.run_lo)), hn::Set(d, k.run_len));
  const V16 th = HWY_LIKELY(hn::AllTrue(d, in_run))
                     ? hn::Set(d, k.thr_run)
                     : hn::GatherIndex(d, k.thr, hn::BitCast(di, e));
  const auto below = hn::Lt(hn::And(a, hn::Set(d, 0x7FFFFFu)), th);
  const V16 i =
      hn::Add(hn::ShiftLeft<1>(e), hn::IfThenZeroElse(below, hn::Set(d, 1u)));
  hn::Store(hn::IfThenElse(hn::Eq(a, hn::Zero(d)), hn::Set(d, kZeroIndex), i),
            d, ix);
}

// A group's amaxes (GroupAbsMax) and block indices (BlockIndex).
struct RowGroupIx {
  HWY_ALIGN uint32_t am[16];
  HWY_ALIGN uint32_t ix[16];
};
template <size_t kB>
HWY_INLINE void RowGroupIndex(const MxKern& k, size_t B, const uint32_t* x,
                              RowGroupIx& g) {
  GroupAbsMax<false, kB>(x, B, g.am);
  BlockIndex(k, g.am, g.ix);
}

// Lanes blocks of B (kB: at compile time, 0: not) from x, their amaxes and
// indices in g: each block the common path from its BConst (one load for
// the byte and the constants), the rest (BConst::ok 0) through RowBlock.
template <int M, int Z, int R, size_t kB>
HWY_INLINE void RowGroup(const MxKern& k, size_t B_arg, const RowGroupIx& g,
                         const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const size_t B = kB != 0 ? kB : B_arg;
  const size_t N = hn::Lanes(D16());
  const uint32_t* am = g.am;
  const uint32_t* ix = g.ix;
  // Locals: the byte stores below may alias k.
  const BConst* bc = k.bc;
  const V16 sign = hn::Set(D16(), k.ek.sign_bit);
  size_t j = 0;
  if constexpr (R == kPlain && kB != 0 && (2 * kB) % 64 == 0) {
    // Two blocks at a time where both take the common path: their
    // 2 kB codes narrowed four vectors at a time (StoreBytes4).
    const D16 d;
    for (; j + 2 <= N; j += 2) {
      const uint32_t* xb = x + j * B;
      PrefetchAhead(xb, 2 * B);
      const BConst& q0 = bc[ix[j]];
      const BConst& q1 = bc[ix[j + 1]];
      if (HWY_UNLIKELY((q0.ok & q1.ok) == 0)) {
        for (size_t u = j; u < j + 2; ++u) {
          const BConst& q = bc[ix[u]];
          if (q.ok == 0) {
            RowBlock<M, Z, R>(k, B, am[u], x + u * B, scales + u,
                              codes + u * B);
          } else {
            scales[u] = q.s;
            RowBlockElems<M, Z, R, kB>(k, B, q.s, q.t, q.c0, q.max, sign,
                                       x + u * B, codes + u * B);
          }
        }
        continue;
      }
      scales[j] = q0.s;
      scales[j + 1] = q1.s;
      // The constants as scalars (SVE vectors are sizeless: no arrays of
      // them), broadcast where used (folded by the unrolled loop).
      const uint32_t tt[2] = {q0.t, q1.t}, cc[2] = {q0.c0, q1.c0},
                     mm[2] = {q0.max, q1.max};
      uint8_t* cb = codes + j * B;
      for (size_t i = 0; i < 2 * kB; i += 4 * N) {
        const size_t h0 = i >= kB, h1 = i + N >= kB, h2 = i + 2 * N >= kB,
                     h3 = i + 3 * N >= kB;
        StoreBytes4(Cvt<M, Z>(hn::LoadU(d, xb + i), hn::Set(d, tt[h0]),
                              hn::Set(d, cc[h0]), hn::Set(d, mm[h0]), sign),
                    Cvt<M, Z>(hn::LoadU(d, xb + i + N), hn::Set(d, tt[h1]),
                              hn::Set(d, cc[h1]), hn::Set(d, mm[h1]), sign),
                    Cvt<M, Z>(hn::LoadU(d, xb + i + 2 * N), hn::Set(d, tt[h2]),
                              hn::Set(d, cc[h2]), hn::Set(d, mm[h2]), sign),
                    Cvt<M, Z>(hn::LoadU(d, xb + i + 3 * N), hn::Set(d, tt[h3]),
                              hn::Set(d, cc[h3]), hn::Set(d, mm[h3]), sign),
                    cb + i);
      }
    }
  }
  if constexpr (R <= kHalfUpAway && kB != 0 && (2 * kB) % 64 == 0) {
    // microxcaling's rule, two blocks at a time as above, the constants
    // that do not depend on the block hoisted (HalfUpC).
    constexpr bool kEven = R != kHalfUpAway, kRne = R == kHalfUpEvenRne;
    const HalfUpC h(k);
    const SConst* sc = k.sc;
    const D16 d;
    for (; j + 2 <= N; j += 2) {
      const uint32_t* xb = x + j * B;
      PrefetchAhead(xb, 2 * B);
      const BConst& q0 = bc[ix[j]];
      const BConst& q1 = bc[ix[j + 1]];
      if (HWY_UNLIKELY((q0.ok & q1.ok) == 0)) {
        for (size_t u = j; u < j + 2; ++u) {
          const BConst& q = bc[ix[u]];
          if (q.ok == 0) {
            RowBlock<M, Z, R>(k, B, am[u], x + u * B, scales + u,
                              codes + u * B);
          } else {
            scales[u] = q.s;
            RowBlockElems<M, Z, R, kB>(k, B, q.s, q.t, q.c0, q.max, sign,
                                       x + u * B, codes + u * B);
          }
        }
        continue;
      }
      scales[j] = q0.s;
      scales[j + 1] = q1.s;
      const uint32_t mul0 = half_up_mul(q0.s), mul1 = half_up_mul(q1.s);
      const uint32_t zl0 = h.scaled_zero ? sc[q0.s].zl : 0u;
      const uint32_t zl1 = h.scaled_zero ? sc[q1.s].zl : 0u;
      uint8_t* cb = codes + j * B;
      for (size_t i = 0; i < 2 * kB; i += 4 * N) {
        // (SVE vectors are sizeless: no arrays of them.)
        const auto vec = [&](size_t v) {
          const bool h1 = i + v * N >= kB;
          return HalfUpVec<M, kEven, kRne>(h, hn::LoadU(d, xb + i + v * N),
                                           h1 ? mul1 : mul0, h1 ? zl1 : zl0,
                                           h1 ? q1 : q0);
        };
        StoreBytes4(vec(0), vec(1), vec(2), vec(3), cb + i);
      }
    }
  }
  for (; j < N; ++j) {
    const uint32_t* xb = x + j * B;
    PrefetchAhead(xb, B);  // spread over the group (quantize_simd-inl.h)
    const BConst& q = bc[ix[j]];
    if (HWY_UNLIKELY(q.ok == 0)) {
      RowBlock<M, Z, R>(k, B, am[j], xb, scales + j, codes + j * B);
      continue;
    }
    scales[j] = q.s;
    RowBlockElems<M, Z, R, kB>(k, B, q.s, q.t, q.c0, q.max, sign, xb,
                               codes + j * B);
  }
}

// nb blocks in order: Lanes blocks at a time (RowGroup), each group's
// amaxes and indices made before the group ahead of it is converted (so
// that their chain, a reduction tree and a gather, overlaps that work); the
// last nb % Lanes one by one.
template <int M, int Z, int R, size_t kB>
void RowsG(const MxKern& k, size_t B, size_t nb, const uint32_t* x,
           uint8_t* scales, uint8_t* codes) {
  const size_t N = hn::Lanes(D16());
  const size_t ng = nb / N;
  RowGroupIx g[2];
  if (ng > 0) RowGroupIndex<kB>(k, B, x, g[0]);
  for (size_t i = 0; i < ng; ++i) {
    const size_t b = i * N;
    if (i + 1 < ng) RowGroupIndex<kB>(k, B, x + (b + N) * B, g[(i + 1) & 1]);
    RowGroup<M, Z, R, kB>(k, B, g[i & 1], x + b * B, scales + b, codes + b * B);
  }
  for (size_t b = ng * N; b < nb; ++b) {
    const uint32_t* xb = x + b * B;
    RowBlock<M, Z, R>(k, B, AbsMax(xb, B), xb, scales + b, codes + b * B);
  }
}

template <int M, int Z, int R>
void RowsT(const MxKern& k, size_t B, size_t nb, const uint32_t* x,
           uint8_t* scales, uint8_t* codes) {
  if (B == 32) return RowsG<M, Z, R, 32>(k, B, nb, x, scales, codes);  // MX
  RowsG<M, Z, R, 0>(k, B, nb, x, scales, codes);
}

// The rules of k as RowsT's R (microxcaling's rule: see MxRows).
template <int M, int Z>
void RowsR(const MxKern& k, size_t B, size_t nb, const uint32_t* x,
           uint8_t* scales, uint8_t* codes) {
  const int r = (k.code_neg_zero ? kRuleNegZero : 0) |
                (k.scaled_zero ? kRuleScaledZero : 0);
  switch (r) {
    case kRuleNegZero:
      return RowsT<M, Z, kRuleNegZero>(k, B, nb, x, scales, codes);
    case kRuleScaledZero:
      return RowsT<M, Z, kRuleScaledZero>(k, B, nb, x, scales, codes);
    case kRuleNegZero | kRuleScaledZero:
      return RowsT<M, Z, kRuleNegZero | kRuleScaledZero>(k, B, nb, x, scales,
                                                         codes);
    default:
      return RowsT<M, Z, kPlain>(k, B, nb, x, scales, codes);
  }
}

// The per-column constants of w columns from their amaxes (am); bad: the
// columns whose block goes to the reference (their lanes get constants
// that convert everything to 0, overwritten later).
// Returns whether some column's byte takes a pre-scale (SConst::ps).
bool ColConsts(const MxKern& k, size_t w, const uint32_t* am, uint8_t* sr,
               uint32_t* tt, uint32_t* cc, uint32_t* mm, uint8_t* bad) {
  uint32_t scaled = 0;
  for (size_t j = 0; j < w; ++j) {
    const uint32_t a = am[j];
    tt[j] = 0x3F800000u;
    cc[j] = 0x3F800000u;
    mm[j] = 0;
    bad[j] = 1;
    if (a >= 0x7F800000u) continue;
    const uint8_t s = mx_scale_of(k, a);
    sr[j] = s;
    const SConst& c = k.sc[s];
    if (static_cast<int32_t>(a >> 23) > c.lim) {
      if (static_cast<int32_t>(a >> 23) > c.lim_ps) continue;
      scaled = 1;  // near the ends: pre-scaled (SConst::ps)
    }
    tt[j] = c.t;
    cc[j] = c.c0;
    mm[j] = c.max;
    bad[j] = 0;
  }
  return scaled != 0;
}

constexpr size_t kWide = 256;  // columns per pass

// B rows x w columns (w a multiple of Lanes, at most kWide), input rows xs
// elements apart, code rows cs bytes apart: the amax of every column (rows
// read in order, contiguous), the constants per column, then the same rows
// converted.
template <int M, int Z>
void ColPass(const MxKern& k, size_t B, size_t xs, size_t cs, size_t w,
             const uint32_t* xr, uint8_t* sr, uint8_t* cr) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  HWY_ALIGN uint32_t am[kWide], tt[kWide], cc[kWide], mm[kWide], ps[kWide];
  uint8_t bad[kWide];
  const V16 abs = hn::Set(d, 0x7FFFFFFFu);
  for (size_t j = 0; j < w; j += N) hn::Store(hn::Zero(d), d, am + j);
  for (size_t i = 0; i < B; ++i) {
    const uint32_t* p = xr + i * xs;
    // The next pass's lines of this row (B rows apart are too many streams
    // for the hardware prefetchers).
    if (w == kWide)
      for (size_t j = 0; j < kWide; j += 64) hwy::Prefetch(p + kWide + j);
    for (size_t j = 0; j < w; j += N)
      hn::Store(hn::Max(hn::Load(d, am + j), hn::And(hn::LoadU(d, p + j), abs)),
                d, am + j);
  }
  // scaled: some column's byte is near the ends (pre-scaled lanes).
  const bool scaled = ColConsts(k, w, am, sr, tt, cc, mm, bad);
  if (scaled)
    for (size_t j = 0; j < w; ++j)
      ps[j] = bad[j] == 0 ? k.sc[sr[j]].ps : kOneF32;
  const V16 sign = hn::Set(d, k.ek.sign_bit);
  const V16 abs8 = hn::Set(d, 0x7FFFFFFFu);
  // Locals (not reloaded through k after each byte store).
  const bool half_up = k.half_up;
  const bool rules = k.code_neg_zero || k.scaled_zero || half_up;
  // As RowBlock: the zero rules with a limit per column (0 for the
  // columns the reference rewrites), microxcaling's rule.
  const V16 nz =
      hn::Set(d, k.code_neg_zero ? uint32_t{k.neg_zero_code} : 0x100u);
  HWY_ALIGN uint32_t zl[kWide], hm[kWide];
  for (size_t j = 0; j < w; ++j) {
    zl[j] = k.scaled_zero && bad[j] == 0 ? k.sc[sr[j]].zl : 0u;
    hm[j] = half_up && bad[j] == 0 ? half_up_mul(sr[j]) : 0u;
  }
  // microxcaling's rule: HalfUpCvt on every element (per-column 2^(127 - s)
  // in hm; 0 for the columns the reference rewrites).
  const V16 tb = hn::Set(d, half_up_tb(k.ek)),
            kf = hn::Set(d, half_up_kf(k.ek));
  const V16 kc = hn::Set(d, half_up_kc(k.ek));
  const V16 mx = hn::Set(d, static_cast<uint32_t>(k.ek.max_enc));
  const bool even = k.hu_even;
  // The rows, compiled twice: without the pre-scale (every pass whose
  // columns' bytes are not near the ends: the loop as before) and with it.
  // microxcaling's rule needs none (HalfUpCvt multiplies by 2^(127 - s)).
  auto rows = [&](auto scaled_tag) {
    constexpr bool kScaled = decltype(scaled_tag)::value;
    for (size_t i = 0; i < B; ++i) {
      const uint32_t* p = xr + i * xs;
      uint8_t* q = cr + i * cs;
      for (size_t j = 0; j < w; j += N) {
        const V16 x = hn::LoadU(d, p + j);
        V16 e;
        if (half_up) {
          const V16 hmv = hn::Load(d, hm + j);
          e = even ? HalfUpCvt<M, true>(x, hmv, tb, kf, kc, mx, sign)
                   : HalfUpCvt<M, false>(x, hmv, tb, kf, kc, mx, sign);
        } else {
          V16 xp = x;
          if constexpr (kScaled) xp = PreScale(x, hn::Load(d, ps + j));
          e = Cvt<M, Z>(xp, hn::Load(d, tt + j), hn::Load(d, cc + j),
                        hn::Load(d, mm + j), sign);
        }
        if (rules) {
          const V16 a = hn::And(x, abs8);
          e = hn::IfThenZeroElse(hn::Eq(e, nz), e);
          e = hn::IfThenZeroElse(hn::Lt(a, hn::Load(d, zl + j)), e);
        }
        StoreBytes(e, q + j);
      }
    }
  };
  if (scaled) {
    rows(std::true_type{});
  } else {
    rows(std::false_type{});
  }
  for (size_t j = 0; j < w; ++j) {
    if (bad[j] == 0) continue;
    // A finite column whose byte has one code for every element
    // (SConst::fill), else the reference.
    if (am[j] < 0x7F800000u && k.sc[sr[j]].fill != 0x100) {
      for (size_t i = 0; i < B; ++i)
        cr[i * cs + j] = static_cast<uint8_t>(k.sc[sr[j]].fill);
    } else {
      mx_block_ref(k, xr + j, xs, B, sr + j, cr + j, cs);
    }
  }
}

template <int M, int Z>
void ColsT(const MxKern& k, size_t B, size_t rows, size_t cols,
           const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const size_t N = hn::Lanes(D16());
  // The last cols % N columns: copied into B x N (zero padded), run there.
  const size_t tail = cols % N, whole = cols - tail;
  std::vector<uint32_t> tx(tail != 0 ? B * N : 0);
  std::vector<uint8_t> tc(tx.size()), ts(N);
  for (size_t r0 = 0; r0 < rows; r0 += B) {
    const uint32_t* xr = x + r0 * cols;
    uint8_t* cr = codes + r0 * cols;
    uint8_t* sr = scales + (r0 / B) * cols;
    for (size_t c0 = 0; c0 < whole; c0 += kWide) {
      const size_t w = std::min(kWide, whole - c0);
      ColPass<M, Z>(k, B, cols, cols, w, xr + c0, sr + c0, cr + c0);
    }
    if (tail == 0) continue;
    for (size_t i = 0; i < B; ++i)
      for (size_t j = 0; j < N; ++j)
        tx[i * N + j] = j < tail ? xr[i * cols + whole + j] : 0u;
    ColPass<M, Z>(k, B, N, N, N, tx.data(), ts.data(), tc.data());
    for (size_t j = 0; j < tail; ++j) {
      sr[whole + j] = ts[j];
      for (size_t i = 0; i < B; ++i) cr[i * cols + whole + j] = tc[i * N + j];
    }
  }
}

}  // namespace

// Z: the ties of the rounding to nearest (quantize_fused.h MxKern::ties).
template <int Z>
void RowsM(const MxKern& k, size_t B, size_t nb, const uint32_t* x,
           uint8_t* scales, uint8_t* codes) {
  switch (k.ek.m) {
    case 1:
      return RowsR<1, Z>(k, B, nb, x, scales, codes);
    case 2:
      return RowsR<2, Z>(k, B, nb, x, scales, codes);
    default:
      return RowsR<3, Z>(k, B, nb, x, scales, codes);
  }
}

// microxcaling's rule (its own ties: HalfUpCvt).
template <int R>
void RowsHalfUpM(const MxKern& k, size_t B, size_t nb, const uint32_t* x,
                 uint8_t* scales, uint8_t* codes) {
  switch (k.ek.m) {
    case 1:
      return RowsT<1, 0, R>(k, B, nb, x, scales, codes);
    case 2:
      return RowsT<2, 0, R>(k, B, nb, x, scales, codes);
    default:
      return RowsT<3, 0, R>(k, B, nb, x, scales, codes);
  }
}

template <int Z>
void ColsM(const MxKern& k, size_t B, size_t rows, size_t cols,
           const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  switch (k.ek.m) {
    case 1:
      return ColsT<1, Z>(k, B, rows, cols, x, scales, codes);
    case 2:
      return ColsT<2, Z>(k, B, rows, cols, x, scales, codes);
    default:
      return ColsT<3, Z>(k, B, rows, cols, x, scales, codes);
  }
}

void MxRows(const MxKern& k, size_t B, size_t rows, size_t cols,
            const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const size_t nb = rows * (cols / B);  // rowwise blocks tile x in order
  if (k.half_up) {
    // FP8 (emax - emin >= 8): most vectors have no element below T.
    const int emin = 1 - k.ek.bias;
    const int emax = static_cast<int>(k.ek.max_f32 >> 23) - 127;
    if (k.hu_even && emax - emin >= 8)
      return RowsHalfUpM<kHalfUpEvenRne>(k, B, nb, x, scales, codes);
    if (k.hu_even) return RowsHalfUpM<kHalfUpEven>(k, B, nb, x, scales, codes);
    return RowsHalfUpM<kHalfUpAway>(k, B, nb, x, scales, codes);
  }
  if (k.ties == kTiesToZero) return RowsM<1>(k, B, nb, x, scales, codes);
  if (k.ties == kTiesAway) return RowsM<2>(k, B, nb, x, scales, codes);
  RowsM<0>(k, B, nb, x, scales, codes);
}

void MxCols(const MxKern& k, size_t B, size_t rows, size_t cols,
            const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  if (k.ties == kTiesToZero)
    return ColsM<1>(k, B, rows, cols, x, scales, codes);
  if (k.ties == kTiesAway) return ColsM<2>(k, B, rows, cols, x, scales, codes);
  ColsM<0>(k, B, rows, cols, x, scales, codes);
}

bool MxFits() { return fits16(); }

}  // namespace HWY_NAMESPACE
}  // namespace mxc::fast::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/hwy_dispatch.h"

namespace mxc::fast::detail {

HWY_EXPORT(MxRows);
HWY_EXPORT(MxCols);
HWY_EXPORT(MxFits);

bool mx_fused_fits(Isa isa) { return MXC_HWY_DISPATCH(MxFits, isa)(); }

void mx_rows_simd(Isa isa, const MxKern& k, size_t B, size_t rows, size_t cols,
                  const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  MXC_HWY_DISPATCH(MxRows, isa)(k, B, rows, cols, x, scales, codes);
}
void mx_cols_simd(Isa isa, const MxKern& k, size_t B, size_t rows, size_t cols,
                  const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  MXC_HWY_DISPATCH(MxCols, isa)(k, B, rows, cols, x, scales, codes);
}

}  // namespace mxc::fast::detail
#endif  // HWY_ONCE
