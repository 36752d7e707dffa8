// The NVFP4 kernels of emu/fast/nvfp4_fast.h, one Highway source for every
// target (emu/fast/isa.h). A 16-element block is 16/Lanes vectors.
// Rowwise: per group of blocks, their amaxes, the scale codes by one vector
// multiply (fl(amax * c)) and the in-register UE4M3 conversion; then per
// block one multiply by the table's multiplier and the in-register E2M1
// conversion (quantize_simd-inl.h). Columnwise: up to 256 columns per pass,
// the amax down sixteen rows, the multipliers looked up per column.
// 4over6 rowwise: per block and candidate the codes and error terms along
// the block, each block's error sum in a tree order, and the reference's
// element order only for the rare blocks whose two sums are too close for
// that order to decide (Decide: a proven bound).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/nvfp4_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <algorithm>
#include <vector>

#include "emu/fast/nvfp4_fused.h"
#include "emu/fast/quantize_simd-inl.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::detail {
namespace HWY_NAMESPACE {
namespace {

// Scale codes (one per lane) of finite amaxes: the candidate's scale
// steps (emu/block/nvfp4_plan.h; each one IEEE binary32 operation, as the
// reference's f32_mul / f32_div: Highway's Div is the exact IEEE division
// on x86 and AArch64, the targets built here), then UE4M3; 0x80 in a lane
// whose value became NaN at some step (the block takes the reference).
// kNanCheck false (NvTab::steps_no_nan: no step can make a NaN of a
// finite amax): the caller has set aside the lanes whose amax is NaN or Inf
// and reads nothing else of them.
// One scale step (emu/block/nvfp4_plan.h) on every lane.
HWY_INLINE hn::Vec<hn::RebindToFloat<D16>> ScaleStep(
    const Nvfp4ScaleStep& st, hn::Vec<hn::RebindToFloat<D16>> v) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const auto k = hn::BitCast(df, hn::Set(d, st.k));
  switch (st.op) {
    case Nvfp4ScaleOp::kMul:
      return hn::Mul(v, k);
    case Nvfp4ScaleOp::kDiv:
      return hn::Div(v, k);
    case Nvfp4ScaleOp::kRoundBf16: {
      // Round to nearest even at bit 16 (bf16_rne), finite v >= 0.
      const V16 u = hn::BitCast(d, v);
      const V16 r = hn::Add(hn::Add(u, hn::Set(d, 0x7FFFu)),
                            hn::And(hn::ShiftRight<16>(u), hn::Set(d, 1u)));
      return hn::BitCast(df, hn::And(r, hn::Set(d, 0xFFFF0000u)));
    }
    case Nvfp4ScaleOp::kZeroTo:
      return hn::IfThenElse(hn::Eq(v, hn::Zero(df)), k, v);
    case Nvfp4ScaleOp::kMax:
      return hn::Max(v, k);
    case Nvfp4ScaleOp::kMin:
      return hn::Min(v, k);
  }
  return v;
}

// The scale codes from steps `from` on, `amax` being the value (bits) the
// steps before it made (from = 0: the amax). kNanCheck false
// (NvTab::steps_no_nan: no step can make a NaN of a finite amax): the
// caller has set aside the lanes whose amax is NaN or Inf and reads
// nothing else of them.
template <bool kNanCheck = true>
HWY_INLINE V16 ScaleCodes(const NvTab& t, const Nvfp4Candidate& c, V16 amax,
                          int from = 0) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  auto v = hn::BitCast(df, amax);
  auto nan = hn::IsNaN(v);  // at any step (Max / Min would hide it)
  for (int i = from; i < c.n_steps; ++i) {
    v = ScaleStep(c.steps[static_cast<size_t>(i)], v);
    if (kNanCheck) nan = hn::Or(nan, hn::IsNaN(v));
  }
  V16 code = Cvt<3>(hn::BitCast(d, v), hn::Set(d, t.cs.t), hn::Set(d, t.cs.c0),
                    hn::Set(d, t.cs.max), hn::Set(d, t.ks.sign_bit));
  if (c.zero_code_to != 0)
    code = hn::IfThenElse(hn::Eq(code, hn::Zero(d)),
                          hn::Set(d, uint32_t{c.zero_code_to}), code);
  if (!kNanCheck) return code;
  return hn::IfThenElse(hn::RebindMask(d, nan), hn::Set(d, 0x80u), code);
}

// E2M1 codes of fl(x * op) or fl(x / op); with exact_neg_zero_to_pos an
// exactly -0 quotient gives code 0. y is also returned (4over6 errors).
HWY_INLINE V16 ElemCodes(const NvTab& t, bool divide, V16 x, V16 op) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const auto xf = hn::BitCast(df, x), of = hn::BitCast(df, op);
  const V16 y = hn::BitCast(d, divide ? hn::Div(xf, of) : hn::Mul(xf, of));
  const V16 q = Cvt<1>(y, hn::Set(d, t.ce.t), hn::Set(d, t.ce.c0),
                       hn::Set(d, t.ce.max), hn::Set(d, t.ke.sign_bit));
  if (!t.plan.exact_neg_zero_to_pos) return q;
  return hn::IfThenZeroElse(hn::Eq(y, hn::Set(d, 0x80000000u)), q);
}

// Whether a candidate's scale code is one the kernel takes.
HWY_INLINE bool Exact(const Nvfp4Candidate& c, uint32_t code) {
  return code < 0x80 && c.exact[code];
}

// One block of 16 under the scale code s of candidate c.
HWY_INLINE void Block16(const NvTab& t, const Nvfp4Candidate& c, uint32_t s,
                        const uint32_t* xb, uint8_t* cb) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  const V16 e = hn::Set(d, c.operand[s]);
  for (size_t j = 0; j < 16; j += N)
    StoreBytes(ElemCodes(t, c.divide, hn::LoadU(d, xb + j), e), cb + j);
}

#if HWY_TARGET != HWY_SCALAR
// The E2M1 magnitude code of y >= 0 (not NaN): Cvt<1> less its |y| (the
// 4over6 kernel multiplies |x| by a non-negative operand), with Cvt's
// binade constant looked up: a = min(y, MAX), k = E(max(a, T)) - E(T) =
// (max(a, T) - T) >> 23 (T a power of two; k < 4 <= Lanes: NvTab::mag_c).
// Cvt's code is bits(sum) - bits(C) + (k << 1) with C = C0 + (k << 23) and
// sum = fl(a + C); here the constant is C' = C + (k << 1) (NvTab::mag_c):
// C's significand plus 2k units in its last place, an even number, so that
// fl(a + C') = C' + (fl(a + C) - C) (the same nearest multiple of C's
// quantum, the same tie to even) and bits(fl(a + C')) = bits(C) + code.
// C0 is a power of two, so bits(C) has its low 23 bits clear and the code
// (at most 7) is the low three bits of the sum: one And where Cvt subtracts
// a second constant.
HWY_INLINE V16 MagE2M1(V16 y, V16 t, V16 mx, V16 lc) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const hn::Repartition<uint16_t, D16> dw;
  const V16 a = hn::Min(y, mx);
  // max(a, T) - T in one saturating subtract of 16-bit lanes: T's low half
  // is 0, its high half E(T) << 7; a's high half (E(a) << 7) | (its top 7
  // significand bits) minus it saturates at 0 exactly where E(a) < E(T),
  // and >> 23 drops the significand bits either way.
  const auto k = hn::IndicesFromVec(
      d, hn::ShiftRight<23>(hn::BitCast(
             d, hn::SaturatedSub(hn::BitCast(dw, a), hn::BitCast(dw, t)))));
  const V16 c = hn::TableLookupLanes(lc, k);
  const V16 sum =
      hn::BitCast(d, hn::Add(hn::BitCast(df, a), hn::BitCast(df, c)));
  return hn::And(sum, hn::Set(d, 7u));
}

// The sums of N blocks' partial sums (block j's N lanes at m + j N), block
// j in lane j: log2(N) halvings (the sum of the even and the odd lanes of
// two neighbours), as GroupAbsMax (quantize_simd-inl.h). The order of
// the additions is not the reference's: see Decide.
HWY_INLINE hn::Vec<hn::RebindToFloat<D16>> GroupSum(float* m) {
  const hn::RebindToFloat<D16> df;
  const size_t N = hn::Lanes(df);
  for (size_t n = N; n > 1; n /= 2) {
    for (size_t q = 0; q < n / 2; ++q) {
      const auto a = hn::Load(df, m + 2 * q * N),
                 b = hn::Load(df, m + (2 * q + 1) * N);
      hn::Store(hn::Add(hn::ConcatEven(df, b, a), hn::ConcatOdd(df, b, a)), df,
                m + q * N);
    }
  }
  return hn::Load(df, m);
}

// Both candidates of 4over6 on N blocks of 16 at xg (scale codes sc[k],
// < 0x80 or not taken), block j's values at 16 j, elements fl(|x| *
// operand) (the operands are non-negative, so y = fl(x * operand) is the
// same value with x's sign): the E2M1 magnitude codes as 32-bit lanes in
// q[k] (the sign, x's, is added to the kept candidate's only) and each
// block's error terms, |d| or fl(d * d) with d = fl(v - |x|) (v the
// dequantized magnitude, from t.errv; the reference's d = fl(+-v - x) is
// this d or its negation, RNE being symmetric), summed along the block
// into N lanes at part[k] + j N (an order the reference does not use: see
// Decide). kMse is the plan's err_mse (this loop is the kernel's main
// cost: no branch in it; the two candidates interleaved share x).
template <bool kMse>
HWY_INLINE void CandidateTerms(const NvTab& t, const uint32_t* sc0,
                               const uint32_t* sc1, const uint32_t* xg,
                               uint32_t* q0, uint32_t* q1, float* part0,
                               float* part1) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const hn::RebindToSigned<D16> di;
  const size_t N = hn::Lanes(d);
  const V16 abs = hn::Set(d, 0x7FFFFFFFu);
  const V16 ct = hn::Set(d, t.ce.t), cmx = hn::Set(d, t.ce.max);
  const V16 lc = hn::LoadU(d, t.mag_c);
  const uint32_t* op0 = t.plan.cand[0].operand.data();
  const uint32_t* op1 = t.plan.cand[1].operand.data();
  // The 8 values of a scale code fit one vector from 8 lanes up (a lane
  // permute); narrower vectors gather them.
  const bool permute = N >= 8;
  for (size_t j = 0; j < N; ++j) {
    const uint32_t s0 = sc0[j] & 0x7F, s1 = sc1[j] & 0x7F;
    const auto o0 = hn::BitCast(df, hn::Set(d, op0[s0]));
    const auto o1 = hn::BitCast(df, hn::Set(d, op1[s1]));
    const uint32_t *vt0 = t.errv + 8 * s0, *vt1 = t.errv + 8 * s1;
    const V16 tab0 = hn::LoadU(d, vt0), tab1 = hn::LoadU(d, vt1);
    auto acc0 = hn::Zero(df), acc1 = hn::Zero(df);
    for (size_t i = 0; i < 16; i += N) {
      const auto ax =
          hn::BitCast(df, hn::And(hn::LoadU(d, xg + 16 * j + i), abs));
      const V16 m0 = MagE2M1(hn::BitCast(d, hn::Mul(ax, o0)), ct, cmx, lc);
      const V16 m1 = MagE2M1(hn::BitCast(d, hn::Mul(ax, o1)), ct, cmx, lc);
      hn::Store(m0, d, q0 + 16 * j + i);
      hn::Store(m1, d, q1 + 16 * j + i);
      // fl(fl(fl(q * s) * A) / D) from the table (t.errv).
      const V16 v0 = permute
                         ? hn::TableLookupLanes(tab0, hn::IndicesFromVec(d, m0))
                         : hn::GatherIndex(d, vt0, hn::BitCast(di, m0));
      const V16 v1 = permute
                         ? hn::TableLookupLanes(tab1, hn::IndicesFromVec(d, m1))
                         : hn::GatherIndex(d, vt1, hn::BitCast(di, m1));
      const auto d0 = hn::Sub(hn::BitCast(df, v0), ax);
      const auto d1 = hn::Sub(hn::BitCast(df, v1), ax);
      const auto e0 = kMse ? hn::Mul(d0, d0) : hn::Abs(d0);
      const auto e1 = kMse ? hn::Mul(d1, d1) : hn::Abs(d1);
      acc0 = i == 0 ? e0 : hn::Add(acc0, e0);
      acc1 = i == 0 ? e1 : hn::Add(acc1, e1);
    }
    hn::Store(acc0, df, part0 + j * N);
    hn::Store(acc1, df, part1 + j * N);
  }
}

// Which candidate each of N blocks keeps, from sums made in another order
// than the reference's (A0, A1; block j in lane j): 1 where candidate 1
// surely wins, 0 where candidate 0 surely stays, and `close` where only
// the reference's order can tell (the caller then runs the block in that
// order, nv_block_plan).
//
// Why this is exact. Every block's 16 terms t_i are the same non-negative
// binary32 values in both orders (CandidateTerms makes each as the
// reference does); only the order of the 15 additions differs. Let s be
// the exact sum, S the reference's sum (from +0, in element order), A
// ours (any binary tree). With no overflow, each rounded addition is
// (a + b)(1 + e), |e| <= u = 2^-24 (a subnormal result is exact), and each
// t_i takes part in at most 15 of them, so both S and A equal
// sum t_i (1 + th_i), |th_i| <= g = 15u / (1 - 15u) (Higham, Accuracy and
// Stability of Numerical Algorithms, 2nd ed., Lemma 3.1 and section 4.2),
// hence |S - s| <= g s and |A - s| <= g s (the t_i >= 0). So s <= A /
// (1 - g) and |S - A| <= 2 g s <= b A, b = 2g / (1 - g). If A0 >= A1 (1 +
// K 2^-24) with 1 + K 2^-24 > (1 + b) / (1 - b), then S1 <= A1 (1 + b) <
// A0 (1 - b) <= S0: candidate 1 wins; symmetrically A1 >= A0 (1 + K 2^-24)
// gives S1 > S0: candidate 0 stays. In bits: for binary32 x >= 0 (normal
// or subnormal) ulp(x) > x 2^-24 and ulps do not shrink upwards, so
// bits(A0) - bits(A1) >= K gives A0 - A1 >= K ulp(A1) >= A1 K 2^-24 (and
// A0 > 0 = S1 when A1 = 0). K = 64 > 60.0001 (b ~ 30u; static_assert).
// Overflow: with both A < 2^126 (bits < 0x7E800000) every partial sum of
// A is below 2^126 (adding non-negative terms is monotone), s < 2^126 /
// (1 - g), and every partial sum of S is at most s (1 + g) < 2^127: no
// addition overflows. Larger sums, and sums fewer than K bits apart, are
// close. Two exact cases are not: both sums 0 (every term is +0, so S0 =
// S1 = +0) and equal scale codes (with NvTab::cand_ops_equal, which
// Rows4over6 requires: the same operand and table, the same terms: S0 =
// S1); both keep candidate 0 (not strictly smaller).
constexpr int32_t kCloseBits = 64;
static_assert([] {
  const double u = 0x1p-24, g = 15 * u / (1 - 15 * u), b = 2 * g / (1 - g);
  return 1 + kCloseBits * u > (1 + b) / (1 - b) + 1e-12;
}());

// The close lanes are stored as 1 (else 0) at redo (no mask out-parameter:
// SVE masks are sizeless).
HWY_INLINE hn::Mask<D16> Decide(hn::Vec<hn::RebindToFloat<D16>> A0,
                                hn::Vec<hn::RebindToFloat<D16>> A1, V16 sc0,
                                V16 sc1, uint32_t* redo) {
  const D16 d;
  const hn::RebindToSigned<D16> di;
  const auto a0 = hn::BitCast(di, A0), a1 = hn::BitCast(di, A1);
  // Signed (Highway 1.0 has no integer Ge): both in [0, 0x7F800000], no
  // overflow; a difference of at least K, a sum of at least 2^126.
  const auto k = hn::Set(di, kCloseBits - 1);
  const auto one = hn::Gt(hn::Sub(a0, a1), k);
  const auto zero = hn::Gt(hn::Sub(a1, a0), k);
  const auto big = hn::Gt(hn::Max(a0, a1), hn::Set(di, 0x7E7FFFFF));
  const auto exact = hn::Or(hn::RebindMask(di, hn::Eq(sc0, sc1)),
                            hn::Eq(hn::Or(a0, a1), hn::Zero(di)));
  const auto sure = hn::Or(exact, hn::AndNot(big, hn::Or(one, zero)));
  hn::Store(hn::IfThenZeroElse(hn::RebindMask(d, sure), hn::Set(d, 1u)), d,
            redo);
  return hn::RebindMask(d, hn::AndNot(exact, one));
}

// 4over6, rowwise, in chunks of up to kChunk blocks, N at once, in three
// passes (each group's work depends on the one before it; passes let the
// groups of a chunk overlap): (1) the amaxes and both candidates' scale
// codes, one vector each; (2) per block and candidate the codes and the
// error terms summed along the block (CandidateTerms), then across
// (GroupSum), and each block's choice from those sums where it is sure
// (Decide); (3) the kept codes with x's sign. Then the blocks the plan
// does not take (the reference) and the close calls (the reference's
// order: nv_block_plan on that block).
constexpr size_t kChunk = 64;

template <bool kMse, bool kNanCheck>
void Rows4over6T(const Nvfp4Profile& p, const NvTab& t, size_t nb,
                 const uint32_t* x, const uint32_t* bam, uint8_t* scales,
                 uint8_t* codes) {
  const D16 d;
  const hn::RebindToSigned<D16> di;
  const size_t N = hn::Lanes(d);
  const Nvfp4Plan& pl = t.plan;
  HWY_ALIGN uint32_t am[kChunk], sc[2][kChunk], take[kChunk], redo[kChunk];
  HWY_ALIGN uint32_t qs[2][kChunk * 16];
  HWY_ALIGN float part[2][16 * 16];
  // Signed compares (both sides below 2^31).
  const auto code_max = hn::Set(di, 0x7F), flt_max = hn::Set(di, 0x7F7FFFFF);
  const V16 eight = hn::Set(d, 8u), one_u = hn::Set(d, 1u);
  uint64_t closes = 0;
  size_t b = 0;
  for (; b + N <= nb; b += kChunk) {
    const size_t w = std::min(kChunk, (nb - b) / N * N);  // blocks
    const uint32_t* xc = x + b * 16;
    // Blocks the plan does not take (a NaN or Inf, a NaN scale, an operand
    // the plan does not model) run too (no traps; their results are
    // replaced by the reference below).
    auto off = hn::Gt(hn::Zero(di), hn::Zero(di));
    for (size_t g = 0; g < w; g += N) {
      V16 amax;
      if (bam != nullptr) {  // the caller's (abs_max_bits16)
        amax = hn::LoadU(d, bam + b + g);
        hn::Store(amax, d, am + g);
      } else {
        GroupAbsMax<true, 16>(xc + g * 16, 16, am + g);  // quantize_simd-inl.h
        amax = hn::Load(d, am + g);
      }
      // The steps both candidates begin with, once (without NaN checks
      // only: a NaN check of the shared steps would be one more mask).
      V16 shared = amax;
      int from = 0;
      if (!kNanCheck) {
        auto v = hn::BitCast(hn::RebindToFloat<D16>(), amax);
        for (; from < t.shared_steps; ++from)
          v = ScaleStep(pl.cand[0].steps[static_cast<size_t>(from)], v);
        shared = hn::BitCast(d, v);
      }
      const V16 s0 = ScaleCodes<kNanCheck>(t, pl.cand[0], shared, from),
                s1 = ScaleCodes<kNanCheck>(t, pl.cand[1], shared, from);
      hn::Store(s0, d, sc[0] + g);
      hn::Store(s1, d, sc[1] + g);
      off = hn::Or(off, hn::Gt(hn::BitCast(di, amax), flt_max));  // NaN, Inf
      off = hn::Or(off, hn::Gt(hn::BitCast(di, hn::Or(s0, s1)), code_max));
    }
    // 1 in a lane: some block there is off or a close call.
    V16 any_close = hn::IfThenElseZero(hn::RebindMask(d, off), one_u);
    for (size_t g = 0; g < w; g += N) {
      CandidateTerms<kMse>(t, sc[0] + g, sc[1] + g, xc + g * 16, qs[0] + g * 16,
                           qs[1] + g * 16, part[0], part[1]);
      const auto A0 = GroupSum(part[0]);
      const auto A1 = GroupSum(part[1]);
      const V16 s0 = hn::Load(d, sc[0] + g), s1 = hn::Load(d, sc[1] + g);
      const auto one = Decide(A0, A1, s0, s1, redo + g);
      hn::Store(hn::IfThenElseZero(one, one_u), d, take + g);
      any_close = hn::Or(any_close, hn::Load(d, redo + g));
      StoreBytes(hn::IfThenElse(one, s1, s0), scales + b + g);
    }
    // The kept codes with the code's sign, x's (the operands are
    // non-negative): q | ((x >> 28) & 8), four blocks (64 codes) at a time
    // through StoreBytes4 (w is a multiple of Lanes, which is 4 or more
    // here, or 16 divides it: fits16).
    const auto kept = [&](size_t pos) {  // element pos of the chunk
      const size_t j = pos / 16;
      const V16 q = hn::Load(d, qs[take[j]] + pos);
      return hn::OrAnd(q, hn::ShiftRight<28>(hn::LoadU(d, xc + pos)), eight);
    };
    if (w % 4 == 0) {
      for (size_t pos = 0; pos < 16 * w; pos += 4 * N)
        StoreBytes4(kept(pos), kept(pos + N), kept(pos + 2 * N),
                    kept(pos + 3 * N), codes + b * 16 + pos);
    } else {
      for (size_t pos = 0; pos < 16 * w; pos += N)
        StoreBytes(kept(pos), codes + b * 16 + pos);
    }
    if (t.exact_all && hn::AllTrue(d, hn::Eq(any_close, hn::Zero(d)))) continue;
    for (size_t j = 0; j < w; ++j) {
      const uint32_t* xb = xc + 16 * j;
      uint8_t* cb = codes + (b + j) * 16;
      if (am[j] >= 0x7F800000u || !Exact(pl.cand[0], sc[0][j]) ||
          !Exact(pl.cand[1], sc[1][j])) {
        nv_block_ref(p, t.tv, xb, 1, scales + b + j, cb, 1);
      } else if (redo[j] != 0) {
        // A close call: the reference's order (nv_block_plan sums in it).
        ++closes;
        if (!nv_block_plan(t, xb, 1, 16, scales + b + j, cb, 1))
          nv_block_ref(p, t.tv, xb, 1, scales + b + j, cb, 1);
      }
    }
  }
  if (closes != 0) nv_close_calls() += closes;
  b = nb / N * N;
  for (; b < nb; ++b) {
    if (!nv_block_plan(t, x + b * 16, 1, 16, scales + b, codes + b * 16, 1))
      nv_block_ref(p, t.tv, x + b * 16, 1, scales + b, codes + b * 16, 1);
  }
}

void Rows4over6(const Nvfp4Profile& p, const NvTab& t, size_t nb,
                const uint32_t* x, const uint32_t* bam, uint8_t* scales,
                uint8_t* codes) {
  const Nvfp4Plan& pl = t.plan;
  // The two-candidate plans nvfp4_plan makes (TE 4over6) multiply and keep
  // -0 with non-negative operands, the same for both candidates; a plan
  // that divides, maps -0 to code 0, has a negative operand or two operand
  // tables would need those steps here: the portable plan runs it
  // (nv_block_plan, every rule).
  if (pl.cand[0].divide || pl.cand[1].divide || pl.exact_neg_zero_to_pos ||
      !t.ops_nonneg || !t.cand_ops_equal) {
    for (size_t b = 0; b < nb; ++b)
      if (!nv_block_plan(t, x + b * 16, 1, 16, scales + b, codes + b * 16, 1))
        nv_block_ref(p, t.tv, x + b * 16, 1, scales + b, codes + b * 16, 1);
    return;
  }
  // Off lanes (amax NaN or Inf) are set aside before the scale codes are
  // read, so the NaN checks may go where no step can make one.
  if (t.steps_no_nan) {
    if (pl.err_mse)
      return Rows4over6T<true, false>(p, t, nb, x, bam, scales, codes);
    return Rows4over6T<false, false>(p, t, nb, x, bam, scales, codes);
  }
  if (pl.err_mse)
    return Rows4over6T<true, true>(p, t, nb, x, bam, scales, codes);
  Rows4over6T<false, true>(p, t, nb, x, bam, scales, codes);
}
#else
// HWY_SCALAR (no ConcatEven / ConcatOdd; never dispatched, emu/fast/isa.h:
// Isa::kScalar is the portable loop): the portable plan per block.
void Rows4over6(const Nvfp4Profile& p, const NvTab& t, size_t nb,
                const uint32_t* x, const uint32_t* /*bam*/, uint8_t* scales,
                uint8_t* codes) {
  for (size_t b = 0; b < nb; ++b) {
    if (!nv_block_plan(t, x + b * 16, 1, 16, scales + b, codes + b * 16, 1))
      nv_block_ref(p, t.tv, x + b * 16, 1, scales + b, codes + b * 16, 1);
  }
}
#endif

}  // namespace

// fl(x / op) for x / op of magnitude 2^-3 or more, and a value of x's sign
// below 0.25 in magnitude (E2M1 code 0 or 8, as the quotient's) for a
// smaller one, by rc = RN(1/op) and one Markstein correction: q0 =
// fl(x * rc), r = fl(x - q0 * op) (fused), q1 = fl(q0 + r * rc) (fused):
// three pipelined operations in place of the hardware division (VDIVPS on
// a 512-bit vector: the dividing rows ran 1.12x faster in cache without
// it). For the operands NvTab::rcp marks (op in [2^-90, 2^125], not within
// 2^-22 relatively of an even integer; the blocks' amax below 2^100 op).
// Why q1 = fl(x / op). Scale the significands a, b of x, op to [1, 2)
// (exact: with those bounds no step leaves the normal range where
// |x / op| >= 2^-3, and r, on a grid of 2^-140 or coarser, is exact where
// it is subnormal); z = a / b, rc = RN(1/b), |b rc - 1| <= 2^-24. Then
// |z - q0| < 2^-23 (z in [1, 2)) or < 1.5 2^-24 (z in (1/2, 1)), and w =
// q0 + r^ rc (r^ the rounded r, |r^ - r| <= 2^-47) has |w - z| <= 2^-46
// (z in [1, 2)) or 3.5 2^-48. fl(w) = fl(z) unless a midpoint mu lies
// between them: with mu = M 2^-24 (or M 2^-25), M odd, D = a 2^47 -
// b M 2^23 (or a 2^48 - b M 2^23) is an integer, not 0 (a quotient is
// never a midpoint), |z - mu| = |D| 2^-47 / b (or |D| 2^-48 / b), so
// |D| <= 3 (or 6). tests/test_fast_nvfp4_recip.cpp enumerates every such
// (a, b, D) (25 million pairs, from the congruence b M = -D modulo 2^24 or
// 2^25) and finds q1 = fl(z) on every one, through this code on every ISA.
// The sign is x's (Cvt's sign_src: a tiny quotient's correction may be
// off). The reference's exactly -0 quotient (exact_neg_zero_to_pos): for
// x = -k 2^-149 (k >= 1) it is -0 when op >= 2k and q0 is -0 when
// rc <= 1/(2k); the two agree unless op is within 2^-22 of 2k.
// The quotient q1 (its sign taken as x's by the caller); q0 as well.
HWY_INLINE V16 DivByRecip(V16 x, V16 op, V16 rc, V16& q0) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const auto xf = hn::BitCast(df, x), rf = hn::BitCast(df, rc);
  const auto q = hn::Mul(xf, rf);
  const auto r = hn::NegMulAdd(q, hn::BitCast(df, op), xf);
  q0 = hn::BitCast(d, q);
  return hn::BitCast(d, hn::MulAdd(r, rf, q));
}
template <bool kNegZero>
HWY_INLINE V16 ElemByRecip(const SConst& ce, uint32_t sign, V16 x, uint32_t op,
                           uint32_t rc) {
  const D16 d;
  V16 q0;
  const V16 y = DivByRecip(x, hn::Set(d, op), hn::Set(d, rc), q0);
  // |y| with x's sign (q0's, rc > 0); kNegZero: the sign of fl(q0 + 0),
  // which is +0 exactly where q0 is -0 (round to nearest, FpEnvDefault),
  // so that an exactly -0 quotient gives code 0 (its magnitude is 0).
  V16 sign_src = x;
  if (kNegZero) {
    const hn::RebindToFloat<D16> df;
    sign_src = hn::BitCast(d, hn::Add(hn::BitCast(df, q0), hn::Zero(df)));
  }
  return Cvt<1>(y, hn::Set(d, ce.t), hn::Set(d, ce.c0), hn::Set(d, ce.max),
                hn::Set(d, sign), sign_src);
}

// Four blocks of 16 at xb, each taking the kernel (amax finite, scale code
// exact), scale codes s[0..4): the elements as ElemCodes (Elem16) with the
// plan's rules as template flags (kDivide: x / operand; kNegZero:
// exact_neg_zero_to_pos), narrowed four vectors at a time (StoreBytes4).
// kRecip (kDivide, every block's operand marked in NvTab::rcp): the
// division by the reciprocal (ElemByRecip).
template <bool kDivide, bool kNegZero>
HWY_INLINE V16 Elem16(const SConst& ce, uint32_t sign, V16 x, uint32_t op) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const auto xf = hn::BitCast(df, x);
  const auto of = hn::BitCast(df, hn::Set(d, op));
  const V16 y = hn::BitCast(d, kDivide ? hn::Div(xf, of) : hn::Mul(xf, of));
  const V16 e = Cvt<1>(y, hn::Set(d, ce.t), hn::Set(d, ce.c0),
                       hn::Set(d, ce.max), hn::Set(d, sign));
  if (!kNegZero) return e;
  return hn::IfThenZeroElse(hn::Eq(y, hn::Set(d, 0x80000000u)), e);
}
template <bool kDivide, bool kNegZero, bool kRecip = false>
HWY_INLINE void Blocks16x4(const NvTab& t, const Nvfp4Candidate& c,
                           const uint32_t* s, const uint32_t* xb, uint8_t* cb) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  // Scalars, broadcast where used (SVE vectors are sizeless: no arrays).
  const uint32_t op[4] = {c.operand[s[0]], c.operand[s[1]], c.operand[s[2]],
                          c.operand[s[3]]};
  const uint32_t rc[4] = {kRecip ? t.rcp[s[0]] : 0u, kRecip ? t.rcp[s[1]] : 0u,
                          kRecip ? t.rcp[s[2]] : 0u, kRecip ? t.rcp[s[3]] : 0u};
  const SConst ce = t.ce;  // a local: the byte stores may alias t
  const uint32_t sg = t.ke.sign_bit;
  const auto elem = [&](size_t i) {
    const V16 v = hn::LoadU(d, xb + i);
    if (kRecip) return ElemByRecip<kNegZero>(ce, sg, v, op[i / 16], rc[i / 16]);
    return Elem16<kDivide, kNegZero>(ce, sg, v, op[i / 16]);
  };
  for (size_t i = 0; i < 64; i += 4 * N)
    StoreBytes4(elem(i), elem(i + N), elem(i + 2 * N), elem(i + 3 * N), cb + i);
}

// The one-candidate rows for the plan's rules (Blocks16x4).
template <bool kDivide, bool kNegZero, bool kNoNan>
void NvRows1(const Nvfp4Profile& p, const NvTab& t, size_t nb,
             const uint32_t* x, const uint32_t* bam, uint8_t* scales,
             uint8_t* codes) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  const Nvfp4Candidate& c = t.plan.cand[0];
  // The division by the reciprocal needs fused multiply-adds (every target
  // dispatched has them; HWY_SCALAR, never dispatched, does not).
  constexpr bool kRecip = kDivide && HWY_NATIVE_FMA;
  // Every scale code below 0x80 exact (NvTab::exact_all): a block takes the
  // kernel exactly when its amax is finite and its code below 0x80 (else
  // its code's Nvfp4Candidate::exact as well).
  const bool all_exact = t.exact_all;
  // Groups of N blocks: N amaxes (block j in lane j: GroupAbsMax of
  // quantize_simd-inl.h, every target; or the caller's), then N scale codes
  // in one vector, and bit j of ok: block j takes the kernel (with
  // all_exact). One group ahead of the conversion: the amax, scale and
  // mask chain (a division or several steps for some plans) of the next
  // group is independent work while this one's blocks are converted.
  struct Group {
    HWY_ALIGN uint32_t am[16];
    HWY_ALIGN uint32_t sc[16];
    uint64_t ok;
  };
  Group grp[2];
  auto prepare = [&](size_t b, Group& gr) {
    if (bam != nullptr) {  // the caller's (abs_max_bits16)
      hn::Store(hn::LoadU(d, bam + b), d, gr.am);
    } else {
      GroupAbsMax<false, 16>(x + b * 16, 16, gr.am);
    }
    const V16 amax = hn::Load(d, gr.am);
    // kNoNan (NvTab::steps_no_nan): no NaN checks; the lanes whose amax is
    // NaN or Inf fail ok below whatever their code.
    const V16 s = ScaleCodes<!kNoNan>(t, c, amax);
    hn::Store(s, d, gr.sc);
    StoreBytes(s, scales + b);
    const auto ok = hn::And(hn::Lt(amax, hn::Set(d, 0x7F800000u)),
                            hn::Lt(s, hn::Set(d, 0x80u)));
    uint8_t okb[8] = {};
    hn::StoreMaskBits(d, ok, okb);
    gr.ok = 0;
    for (size_t i = 0; i < 8; ++i) gr.ok |= uint64_t{okb[i]} << (8 * i);
  };
  const size_t ng = nb / N;
  if (ng > 0) prepare(0, grp[0]);
  size_t b = 0;
  for (size_t g = 0; g < ng; ++g, b += N) {
    if (g + 1 < ng) prepare(b + N, grp[(g + 1) & 1]);
    const Group& gr = grp[g & 1];
    const uint32_t* am = gr.am;
    const uint32_t* sc = gr.sc;
    const uint32_t* xg = x + b * 16;
    size_t j = 0;
    for (; j + 4 <= N; j += 4) {
      if (((gr.ok >> j) & 0xF) != 0xF) break;
      // Codes below 0x80 whose operand is not exact (Nvfp4Candidate::exact):
      // those blocks one by one below.
      if (!all_exact && !(c.exact[sc[j]] && c.exact[sc[j + 1]] &&
                          c.exact[sc[j + 2]] && c.exact[sc[j + 3]]))
        break;
      PrefetchAhead(xg + 16 * j, 64);  // spread over the group
      // Dividing plans: the reciprocal where every block's operand and
      // amax allow it (NvTab::rcp_amax_below; 0 for an operand it does
      // not take), else the hardware division.
      if (kRecip && am[j] < t.rcp_amax_below[sc[j]] &&
          am[j + 1] < t.rcp_amax_below[sc[j + 1]] &&
          am[j + 2] < t.rcp_amax_below[sc[j + 2]] &&
          am[j + 3] < t.rcp_amax_below[sc[j + 3]]) {
        Blocks16x4<kDivide, kNegZero, kRecip>(t, c, sc + j, xg + 16 * j,
                                              codes + (b + j) * 16);
      } else {
        Blocks16x4<kDivide, kNegZero>(t, c, sc + j, xg + 16 * j,
                                      codes + (b + j) * 16);
      }
    }
    for (; j < N; ++j) {
      PrefetchAhead(xg + 16 * j, 16);
      if (am[j] >= 0x7F800000u || !Exact(c, sc[j])) {
        nv_block_ref(p, t.tv, xg + 16 * j, 1, scales + b + j,
                     codes + (b + j) * 16, 1);
      } else {
        Block16(t, c, sc[j], xg + 16 * j, codes + (b + j) * 16);
      }
    }
  }
  for (; b < nb; ++b) {
    const uint32_t* xb = x + b * 16;
    const uint32_t amax = AbsMax(xb, 16);
    const uint32_t s = amax >= 0x7F800000u
                           ? 0x80u
                           : hn::GetLane(ScaleCodes(t, c, hn::Set(d, amax)));
    if (!Exact(c, s)) {
      nv_block_ref(p, t.tv, xb, 1, scales + b, codes + b * 16, 1);
      continue;
    }
    scales[b] = static_cast<uint8_t>(s);
    Block16(t, c, s, xb, codes + b * 16);
  }
}

void NvRows(const Nvfp4Profile& p, const NvTab& t, size_t nb, const uint32_t* x,
            const uint32_t* bam, uint8_t* scales, uint8_t* codes) {
  if (t.plan.n_cand == 2) return Rows4over6(p, t, nb, x, bam, scales, codes);
  const bool dv = t.plan.cand[0].divide, nz = t.plan.exact_neg_zero_to_pos;
  if (t.steps_no_nan) {
    if (dv && nz)
      return NvRows1<true, true, true>(p, t, nb, x, bam, scales, codes);
    if (dv) return NvRows1<true, false, true>(p, t, nb, x, bam, scales, codes);
    if (nz) return NvRows1<false, true, true>(p, t, nb, x, bam, scales, codes);
    return NvRows1<false, false, true>(p, t, nb, x, bam, scales, codes);
  }
  if (dv && nz)
    return NvRows1<true, true, false>(p, t, nb, x, bam, scales, codes);
  if (dv) return NvRows1<true, false, false>(p, t, nb, x, bam, scales, codes);
  if (nz) return NvRows1<false, true, false>(p, t, nb, x, bam, scales, codes);
  NvRows1<false, false, false>(p, t, nb, x, bam, scales, codes);
}

// Tests (nv_e2m1_mag_simd): MagE2M1 of n values y >= 0, finite (what the
// 4over6 kernel gives it), with t's constants, as 32-bit codes.
void MagE2M1N(const NvTab& t, const uint32_t* y, size_t n, uint32_t* q) {
#if HWY_TARGET != HWY_SCALAR
  const D16 d;
  const size_t N = hn::Lanes(d);
  const V16 ct = hn::Set(d, t.ce.t), cmx = hn::Set(d, t.ce.max);
  const V16 lc = hn::LoadU(d, t.mag_c);
  size_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreU(MagE2M1(hn::LoadU(d, y + i), ct, cmx, lc), d, q + i);
  for (; i < n; ++i) q[i] = hn::GetLane(MagE2M1(hn::Set(d, y[i]), ct, cmx, lc));
#else
  // Never dispatched (emu/fast/isa.h: Isa::kScalar is the portable loop,
  // and HWY_SCALAR has no MagE2M1).
  for (size_t i = 0; i < n; ++i) q[i] = 0xFFFFFFFFu;
  (void)t;
  (void)y;
#endif
}

// Tests (nv_div_by_recip_simd): DivByRecip on n elements.
void DivByRecipN(const uint32_t* x, const uint32_t* op, const uint32_t* rc,
                 size_t n, uint32_t* q) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  V16 q0;
  const hn::RebindToFloat<D16> df;
  const auto one = [&](V16 xv, V16 ov, V16 rv) {  // with x's sign
    return hn::BitCast(d,
                       hn::CopySign(hn::BitCast(df, DivByRecip(xv, ov, rv, q0)),
                                    hn::BitCast(df, xv)));
  };
  for (; i + N <= n; i += N)
    hn::StoreU(
        one(hn::LoadU(d, x + i), hn::LoadU(d, op + i), hn::LoadU(d, rc + i)), d,
        q + i);
  for (; i < n; ++i)
    q[i] = hn::GetLane(
        one(hn::Set(d, x[i]), hn::Set(d, op[i]), hn::Set(d, rc[i])));
}

namespace {

constexpr size_t kWide = 256;  // columns per pass

// 16 rows x w columns (w a multiple of Lanes, at most kWide), input rows xs
// elements apart, code rows cs bytes apart: the amaxes (rows read in
// order), the scale codes, the multipliers per column, then the same rows.
// The amaxes of w columns (a multiple of Lanes) down 16 rows xs apart.
HWY_INLINE void ColAbsMax(size_t xs, size_t w, const uint32_t* xr,
                          uint32_t* am) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  const V16 abs = hn::Set(d, 0x7FFFFFFFu);
  for (size_t j = 0; j < w; j += N) hn::Store(hn::Zero(d), d, am + j);
  for (size_t i = 0; i < 16; ++i) {
    const uint32_t* q = xr + i * xs;
    if (w == kWide)
      for (size_t j = 0; j < kWide; j += 64) hwy::Prefetch(q + kWide + j);
    for (size_t j = 0; j < w; j += N)
      hn::Store(hn::Max(hn::Load(d, am + j), hn::And(hn::LoadU(d, q + j), abs)),
                d, am + j);
  }
}

#if HWY_TARGET != HWY_SCALAR
// 4over6 down columns (ColPass's layout): a block is a column, one lane,
// its elements the 16 rows, so each block's error sum is one lane added
// row by row, in element order (the reference's). The dequantized values
// are gathered per lane from t.errv (each column has its own scale code).
// Plans that multiply and keep -0 only (Rows4over6).
template <bool kMse>
void ColPass4over6(const Nvfp4Profile& p, const NvTab& t, size_t xs, size_t cs,
                   size_t w, const uint32_t* xr, uint8_t* sr, uint8_t* cr) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const hn::RebindToSigned<D16> di;
  const size_t N = hn::Lanes(d);
  const Nvfp4Plan& pl = t.plan;
  HWY_ALIGN uint32_t am[kWide], sc[2][kWide], op[2][kWide], row[2][kWide];
  HWY_ALIGN uint32_t q[2][16 * 16];
  ColAbsMax(xs, w, xr, am);
  for (size_t k = 0; k < 2; ++k) {
    const Nvfp4Candidate& c = pl.cand[k];
    for (size_t j = 0; j < w; j += N)
      hn::Store(ScaleCodes(t, c, hn::Load(d, am + j)), d, sc[k] + j);
    for (size_t j = 0; j < w; ++j) {
      op[k][j] = c.operand[sc[k][j] & 0x7F];
      row[k][j] = 8 * (sc[k][j] & 0x7F);
    }
  }
  const V16 sign = hn::Set(d, 0x80000000u), zero = hn::Zero(d);
  const V16 ct = hn::Set(d, t.ce.t), cc0 = hn::Set(d, t.ce.c0),
            cmx = hn::Set(d, t.ce.max);
  const auto errv = reinterpret_cast<const int32_t*>(t.errv);
  for (size_t j = 0; j < w; j += N) {
    auto e0 = hn::Zero(df), e1 = hn::Zero(df);
    for (size_t i = 0; i < 16; ++i) {
      const auto xf = hn::BitCast(df, hn::LoadU(d, xr + i * xs + j));
      for (size_t k = 0; k < 2; ++k) {
        const V16 y = hn::BitCast(
            d, hn::Mul(xf, hn::BitCast(df, hn::Load(d, op[k] + j))));
        // The signed E2M1 code, as ElemCodes; the value
        // fl(fl(fl(q * s) * A) / D) from t.errv with the code's sign.
        const V16 mag = Cvt<1>(y, ct, cc0, cmx, zero);
        const V16 ys = hn::And(y, sign);
        hn::Store(hn::Or(mag, hn::ShiftRight<28>(ys)), d, q[k] + i * N);
        const auto idx = hn::BitCast(di, hn::Add(hn::Load(d, row[k] + j), mag));
        const V16 val =
            hn::Or(hn::BitCast(d, hn::GatherIndex(di, errv, idx)), ys);
        const auto diff = hn::Sub(hn::BitCast(df, val), xf);
        const auto term = kMse ? hn::Mul(diff, diff) : hn::Abs(diff);
        if (k == 0) {
          e0 = hn::Add(e0, term);
        } else {
          e1 = hn::Add(e1, term);
        }
      }
    }
    // Candidate 1 only when strictly smaller (false with a NaN).
    const auto one = hn::RebindMask(d, hn::Lt(e1, e0));
    StoreBytes(
        hn::IfThenElse(one, hn::Load(d, sc[1] + j), hn::Load(d, sc[0] + j)),
        sr + j);
    for (size_t i = 0; i < 16; ++i)
      StoreBytes(hn::IfThenElse(one, hn::Load(d, q[1] + i * N),
                                hn::Load(d, q[0] + i * N)),
                 cr + i * cs + j);
  }
  for (size_t j = 0; j < w; ++j) {
    if (am[j] >= 0x7F800000u || !Exact(pl.cand[0], sc[0][j]) ||
        !Exact(pl.cand[1], sc[1][j]))
      nv_block_ref(p, t.tv, xr + j, xs, sr + j, cr + j, cs);
  }
}
#endif

void ColPass(const Nvfp4Profile& p, const NvTab& t, size_t xs, size_t cs,
             size_t w, const uint32_t* xr, uint8_t* sr, uint8_t* cr) {
#if HWY_TARGET != HWY_SCALAR
  if (t.plan.n_cand == 2) {
    if (t.plan.err_mse) return ColPass4over6<true>(p, t, xs, cs, w, xr, sr, cr);
    return ColPass4over6<false>(p, t, xs, cs, w, xr, sr, cr);
  }
#endif
  const D16 d;
  const size_t N = hn::Lanes(d);
  const Nvfp4Candidate& c = t.plan.cand[0];
  HWY_ALIGN uint32_t am[kWide], enc[kWide], sc[kWide];
  ColAbsMax(xs, w, xr, am);
  for (size_t j = 0; j < w; j += N) {
    const V16 s = ScaleCodes(t, c, hn::Load(d, am + j));
    hn::Store(s, d, sc + j);
    StoreBytes(s, sr + j);
  }
  for (size_t j = 0; j < w; ++j) enc[j] = c.operand[sc[j] & 0x7F];
  for (size_t i = 0; i < 16; ++i) {
    const uint32_t* q = xr + i * xs;
    uint8_t* o = cr + i * cs;
    for (size_t j = 0; j < w; j += N)
      StoreBytes(
          ElemCodes(t, c.divide, hn::LoadU(d, q + j), hn::Load(d, enc + j)),
          o + j);
  }
  for (size_t j = 0; j < w; ++j) {
    if (am[j] >= 0x7F800000u || !Exact(c, sc[j]))
      nv_block_ref(p, t.tv, xr + j, xs, sr + j, cr + j, cs);
  }
}

}  // namespace

void NvCols(const Nvfp4Profile& p, const NvTab& t, size_t R, size_t C,
            const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const size_t N = hn::Lanes(D16());
  // The last C % N columns: copied into 16 x N (zero padded), run there.
  const size_t tail = C % N, whole = C - tail;
  std::vector<uint32_t> tx(tail != 0 ? 16 * N : 0);
  std::vector<uint8_t> tc(tx.size()), ts(N);
  for (size_t r0 = 0; r0 < R; r0 += 16) {
    const uint32_t* xr = x + r0 * C;
    uint8_t* cr = codes + r0 * C;
    uint8_t* sr = scales + (r0 / 16) * C;
    for (size_t c0 = 0; c0 < whole; c0 += kWide) {
      const size_t w = std::min(kWide, whole - c0);
      ColPass(p, t, C, C, w, xr + c0, sr + c0, cr + c0);
    }
    if (tail == 0) continue;
    for (size_t i = 0; i < 16; ++i)
      for (size_t j = 0; j < N; ++j)
        tx[i * N + j] = j < tail ? xr[i * C + whole + j] : 0u;
    ColPass(p, t, N, N, N, tx.data(), ts.data(), tc.data());
    for (size_t j = 0; j < tail; ++j) {
      sr[whole + j] = ts[j];
      for (size_t i = 0; i < 16; ++i) cr[i * C + whole + j] = tc[i * N + j];
    }
  }
}

bool Nv2d(const NvTab& t, size_t R, size_t C, const uint32_t* x,
          uint8_t* scales, uint8_t* codes) {
  const D16 d;
  const Nvfp4Candidate& c = t.plan.cand[0];
  for (size_t r0 = 0; r0 < R; r0 += 16) {
    for (size_t c0 = 0; c0 < C; c0 += 16) {
      const uint32_t* xt = x + r0 * C + c0;
      uint32_t amax = 0;
      for (size_t i = 0; i < 16; ++i)
        amax = std::max(amax, AbsMax(xt + i * C, 16));
      if (amax >= 0x7F800000u) return false;
      const uint32_t s = hn::GetLane(ScaleCodes(t, c, hn::Set(d, amax)));
      if (!Exact(c, s)) return false;
      for (size_t i = 0; i < 16; ++i) {
        scales[(r0 + i) * (C / 16) + c0 / 16] = static_cast<uint8_t>(s);
        Block16(t, c, s, xt + i * C, codes + (r0 + i) * C + c0);
      }
    }
  }
  return true;
}

}  // namespace HWY_NAMESPACE
}  // namespace mxc::fast::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/hwy_dispatch.h"

namespace mxc::fast::detail {

HWY_EXPORT(NvRows);
HWY_EXPORT(NvCols);
HWY_EXPORT(Nv2d);
HWY_EXPORT(DivByRecipN);
HWY_EXPORT(MagE2M1N);

void nv_rows_simd(Isa isa, const Nvfp4Profile& p, const NvTab& t, size_t nb,
                  const uint32_t* x, const uint32_t* block_amax,
                  uint8_t* scales, uint8_t* codes) {
  MXC_HWY_DISPATCH(NvRows, isa)(p, t, nb, x, block_amax, scales, codes);
}
void nv_cols_simd(Isa isa, const Nvfp4Profile& p, const NvTab& t, size_t R,
                  size_t C, const uint32_t* x, uint8_t* scales,
                  uint8_t* codes) {
  MXC_HWY_DISPATCH(NvCols, isa)(p, t, R, C, x, scales, codes);
}
void nv_div_by_recip_simd(Isa isa, const uint32_t* x, const uint32_t* op,
                          const uint32_t* rc, size_t n, uint32_t* q) {
  MXC_HWY_DISPATCH(DivByRecipN, isa)(x, op, rc, n, q);
}
void nv_e2m1_mag_simd(Isa isa, const NvTab& t, const uint32_t* y, size_t n,
                      uint32_t* q) {
  MXC_HWY_DISPATCH(MagE2M1N, isa)(t, y, n, q);
}
bool nv_2d_simd(Isa isa, const NvTab& t, size_t R, size_t C, const uint32_t* x,
                uint8_t* scales, uint8_t* codes) {
  return MXC_HWY_DISPATCH(Nv2d, isa)(t, R, C, x, scales, codes);
}

}  // namespace mxc::fast::detail
#endif  // HWY_ONCE
