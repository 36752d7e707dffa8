// The NVFP4 kernels of emu/fast/nvfp4_fast.h, one Highway source for every
// target (emu/fast/isa.h). A 16-element block is 16/Lanes vectors.
// Rowwise: per group of blocks, their amaxes, the scale codes by one vector
// multiply (fl(amax * c)) and the in-register UE4M3 conversion; then per
// block one multiply by the table's multiplier and the in-register E2M1
// conversion (quantize_simd-inl.h). Columnwise: up to 256 columns per pass,
// the amax down sixteen rows, the multipliers looked up per column.
// 4over6 rowwise: per block and candidate the codes and error terms along
// the block, then the terms of N blocks transposed so that each block's
// error sum is one lane, added in element order (the reference's).
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
HWY_INLINE V16 ScaleCodes(const NvTab& t, const Nvfp4Candidate& c, V16 amax) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  auto v = hn::BitCast(df, amax);
  auto nan = hn::IsNaN(v);  // at any step (Max / Min would hide it)
  for (int i = 0; i < c.n_steps; ++i) {
    const Nvfp4ScaleStep& st = c.steps[static_cast<size_t>(i)];
    const auto k = hn::BitCast(df, hn::Set(d, st.k));
    switch (st.op) {
      case Nvfp4ScaleOp::kMul:
        v = hn::Mul(v, k);
        break;
      case Nvfp4ScaleOp::kDiv:
        v = hn::Div(v, k);
        break;
      case Nvfp4ScaleOp::kRoundBf16: {
        // Round to nearest even at bit 16 (bf16_rne), finite v >= 0.
        const V16 u = hn::BitCast(d, v);
        const V16 r = hn::Add(hn::Add(u, hn::Set(d, 0x7FFFu)),
                              hn::And(hn::ShiftRight<16>(u), hn::Set(d, 1u)));
        v = hn::BitCast(df, hn::And(r, hn::Set(d, 0xFFFF0000u)));
        break;
      }
      case Nvfp4ScaleOp::kZeroTo:
        v = hn::IfThenElse(hn::Eq(v, hn::Zero(df)), k, v);
        break;
      case Nvfp4ScaleOp::kMax:
        v = hn::Max(v, k);
        break;
      case Nvfp4ScaleOp::kMin:
        v = hn::Min(v, k);
        break;
    }
    nan = hn::Or(nan, hn::IsNaN(v));
  }
  V16 code = Cvt<3>(hn::BitCast(d, v), hn::Set(d, t.cs.t), hn::Set(d, t.cs.c0),
                    hn::Set(d, t.cs.max), hn::Set(d, t.ks.sign_bit));
  if (c.zero_code_to != 0)
    code = hn::IfThenElse(hn::Eq(code, hn::Zero(d)),
                          hn::Set(d, uint32_t{c.zero_code_to}), code);
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
// One "unzip" pass over the 16 N values that v0..v15 hold in order (flat
// index f, vector f / N, lane f % N): the even-indexed values, then the
// odd-indexed ones (ConcatEven / ConcatOdd of neighbouring vectors). It
// rotates the bits of f right by one; four passes take f = 16 j + i (block
// j's value i, N blocks in a row) to i * N + j: vector i holds value i of
// every block, block j in lane j. Exact (moves only).
template <class D, class V = hn::Vec<D>>
HWY_INLINE void Unzip16(D d, V& v0, V& v1, V& v2, V& v3, V& v4, V& v5, V& v6,
                        V& v7, V& v8, V& v9, V& v10, V& v11, V& v12, V& v13,
                        V& v14, V& v15) {
  const V e0 = hn::ConcatEven(d, v1, v0), o0 = hn::ConcatOdd(d, v1, v0);
  const V e1 = hn::ConcatEven(d, v3, v2), o1 = hn::ConcatOdd(d, v3, v2);
  const V e2 = hn::ConcatEven(d, v5, v4), o2 = hn::ConcatOdd(d, v5, v4);
  const V e3 = hn::ConcatEven(d, v7, v6), o3 = hn::ConcatOdd(d, v7, v6);
  const V e4 = hn::ConcatEven(d, v9, v8), o4 = hn::ConcatOdd(d, v9, v8);
  const V e5 = hn::ConcatEven(d, v11, v10), o5 = hn::ConcatOdd(d, v11, v10);
  const V e6 = hn::ConcatEven(d, v13, v12), o6 = hn::ConcatOdd(d, v13, v12);
  const V e7 = hn::ConcatEven(d, v15, v14), o7 = hn::ConcatOdd(d, v15, v14);
  v0 = e0, v1 = e1, v2 = e2, v3 = e3, v4 = e4, v5 = e5, v6 = e6, v7 = e7;
  v8 = o0, v9 = o1, v10 = o2, v11 = o3, v12 = o4, v13 = o5, v14 = o6;
  v15 = o7;
}

// The error sums of N blocks (terms: block j's 16 terms at 16 j, in
// element order), block j in lane j: the 16 x N terms transposed
// (Unzip16), then one vector add per element, from +0 in element order,
// so that every lane adds its block's terms in the reference's order
// (nv_block_plan; a sum within a vector would reassociate them).
HWY_INLINE hn::Vec<hn::RebindToFloat<D16>> ErrorSums(const float* terms) {
  const hn::RebindToFloat<D16> df;
  const size_t N = hn::Lanes(df);
  auto t0 = hn::Load(df, terms), t1 = hn::Load(df, terms + N),
       t2 = hn::Load(df, terms + 2 * N), t3 = hn::Load(df, terms + 3 * N),
       t4 = hn::Load(df, terms + 4 * N), t5 = hn::Load(df, terms + 5 * N),
       t6 = hn::Load(df, terms + 6 * N), t7 = hn::Load(df, terms + 7 * N),
       t8 = hn::Load(df, terms + 8 * N), t9 = hn::Load(df, terms + 9 * N),
       t10 = hn::Load(df, terms + 10 * N), t11 = hn::Load(df, terms + 11 * N),
       t12 = hn::Load(df, terms + 12 * N), t13 = hn::Load(df, terms + 13 * N),
       t14 = hn::Load(df, terms + 14 * N), t15 = hn::Load(df, terms + 15 * N);
  for (int pass = 0; pass < 4; ++pass)
    Unzip16(df, t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14,
            t15);
  auto e = hn::Add(hn::Zero(df), t0);
  e = hn::Add(e, t1), e = hn::Add(e, t2), e = hn::Add(e, t3);
  e = hn::Add(e, t4), e = hn::Add(e, t5), e = hn::Add(e, t6);
  e = hn::Add(e, t7), e = hn::Add(e, t8), e = hn::Add(e, t9);
  e = hn::Add(e, t10), e = hn::Add(e, t11), e = hn::Add(e, t12);
  e = hn::Add(e, t13), e = hn::Add(e, t14), e = hn::Add(e, t15);
  return e;
}

// The amaxes (magnitude bits) of N blocks of 16 at x, block j in lane j:
// per block the lane-wise max of its 16 / N vectors, then log2(N) halvings
// (the max of the even and the odd lanes of two neighbours; after them
// lane j holds block j's), through the aligned buffer m (16 N values).
HWY_INLINE V16 GroupAbsMax(const uint32_t* x, uint32_t* m) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  const V16 abs = hn::Set(d, 0x7FFFFFFFu);
  for (size_t j = 0; j < N; ++j) {
    V16 v = hn::And(hn::LoadU(d, x + 16 * j), abs);
    for (size_t i = N; i < 16; i += N)
      v = hn::Max(v, hn::And(hn::LoadU(d, x + 16 * j + i), abs));
    hn::Store(v, d, m + j * N);
  }
  for (size_t n = N; n > 1; n /= 2) {
    for (size_t q = 0; q < n / 2; ++q) {
      const V16 a = hn::Load(d, m + 2 * q * N),
                b = hn::Load(d, m + (2 * q + 1) * N);
      hn::Store(hn::Max(hn::ConcatEven(d, b, a), hn::ConcatOdd(d, b, a)), d,
                m + q * N);
    }
  }
  return hn::Load(d, m);
}

// One candidate of 4over6 on N blocks of 16 at xg (scale codes sc, < 0x80
// or not taken), block j's values at 16 j, elements fl(x * operand): the
// E2M1 magnitude codes as 32-bit lanes in q (the sign, sign(x) xor
// sign(operand), is added to the kept candidate's only) and the error terms
// (in terms). kMse is the plan's err_mse (this loop is the kernel's main
// cost: no branch in it).
template <bool kMse>
HWY_INLINE void CandidateTerms(const NvTab& t, const Nvfp4Candidate& c,
                               const uint32_t* sc, const uint32_t* xg,
                               uint32_t* q, float* terms) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const hn::RebindToSigned<D16> di;
  const size_t N = hn::Lanes(d);
  const V16 sign = hn::Set(d, 0x80000000u), zero = hn::Zero(d);
  const V16 ct = hn::Set(d, t.ce.t), cc0 = hn::Set(d, t.ce.c0),
            cmx = hn::Set(d, t.ce.max);
  // The 8 values of a scale code fit one vector from 8 lanes up (a lane
  // permute); narrower vectors gather them.
  const bool permute = N >= 8;
  for (size_t j = 0; j < N; ++j) {
    const uint32_t sj = sc[j] & 0x7F;
    const auto op = hn::BitCast(df, hn::Set(d, c.operand[sj]));
    const uint32_t* vt = t.errv + 8 * sj;
    const V16 vtab = hn::LoadU(d, vt);
    for (size_t i = 0; i < 16; i += N) {
      const auto xf = hn::BitCast(df, hn::LoadU(d, xg + 16 * j + i));
      const V16 y = hn::BitCast(d, hn::Mul(xf, op));
      // The E2M1 magnitude (Cvt<1> with no sign bit).
      const V16 mag = Cvt<1>(y, ct, cc0, cmx, zero);
      const V16 ys = hn::And(y, sign);
      hn::Store(mag, d, q + 16 * j + i);
      // fl(fl(fl(q * s) * A) / D) from the table (t.errv), the sign of y
      // (the code's) or-ed in (RNE is symmetric).
      V16 val = permute ? hn::TableLookupLanes(vtab, hn::IndicesFromVec(d, mag))
                        : hn::GatherIndex(d, vt, hn::BitCast(di, mag));
      val = hn::Or(val, ys);
      const auto diff = hn::Sub(hn::BitCast(df, val), xf);
      hn::Store(kMse ? hn::Mul(diff, diff) : hn::Abs(diff), df,
                terms + 16 * j + i);
    }
  }
}

// 4over6, rowwise, N blocks at once: the amaxes and both candidates' scale
// codes in one vector each; per block and candidate the codes and the error
// terms, in vectors along the block (CandidateTerms); then the error sums
// (ErrorSums: per lane, in element order, as the reference) and each
// block's choice.
template <bool kMse>
void Rows4over6T(const Nvfp4Profile& p, const NvTab& t, size_t nb,
                 const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const D16 d;
  const hn::RebindToSigned<D16> di;
  const size_t N = hn::Lanes(d);
  const Nvfp4Plan& pl = t.plan;
  HWY_ALIGN uint32_t am[16], sc[2][16], take[16], buf[16 * 16];
  HWY_ALIGN uint32_t qs[2][16 * 16];
  HWY_ALIGN float terms[16 * 16];
  // Signed compares (both sides below 2^31).
  const auto code_max = hn::Set(di, 0x7F), flt_max = hn::Set(di, 0x7F7FFFFF);
  size_t b = 0;
  for (; b + N <= nb; b += N) {
    const uint32_t* xg = x + b * 16;
    const V16 amax = GroupAbsMax(xg, buf);
    // Blocks the plan does not take (a NaN or Inf, a NaN scale, an operand
    // the plan does not model) run too (no traps; their results are
    // replaced by the reference below).
    auto off = hn::Gt(hn::BitCast(di, amax), flt_max);  // NaN or Inf
    for (size_t k = 0; k < 2; ++k) {
      const V16 s = ScaleCodes(t, pl.cand[k], amax);
      hn::Store(s, d, sc[k]);
      off = hn::Or(off, hn::Gt(hn::BitCast(di, s), code_max));
    }
    CandidateTerms<kMse>(t, pl.cand[0], sc[0], xg, qs[0], terms);
    const auto e0 = ErrorSums(terms);
    CandidateTerms<kMse>(t, pl.cand[1], sc[1], xg, qs[1], terms);
    const auto e1 = ErrorSums(terms);
    // Candidate 1 only when strictly smaller (false with a NaN).
    const auto one = hn::RebindMask(d, hn::Lt(e1, e0));
    hn::Store(hn::IfThenElseZero(one, hn::Set(d, 1u)), d, take);
    StoreBytes(hn::IfThenElse(one, hn::Load(d, sc[1]), hn::Load(d, sc[0])),
               scales + b);
    for (size_t j = 0; j < N; ++j) {
      const uint32_t k = take[j];
      const uint32_t* qj = qs[k] + 16 * j;
      // The code's sign, that of y = fl(x * op): sign(x) xor sign(op).
      const V16 os =
          hn::Set(d, pl.cand[k].operand[sc[k][j] & 0x7F] & 0x80000000u);
      for (size_t i = 0; i < 16; i += N) {
        const V16 xs = hn::And(hn::Xor(hn::LoadU(d, xg + 16 * j + i), os),
                               hn::Set(d, 0x80000000u));
        StoreBytes(hn::Or(hn::Load(d, qj + i), hn::ShiftRight<28>(xs)),
                   codes + (b + j) * 16 + i);
      }
    }
    if (hn::AllFalse(di, off) && t.exact_all) continue;
    hn::Store(amax, d, am);
    for (size_t j = 0; j < N; ++j) {
      if (am[j] >= 0x7F800000u || !Exact(pl.cand[0], sc[0][j]) ||
          !Exact(pl.cand[1], sc[1][j]))
        nv_block_ref(p, t.tv, xg + 16 * j, 1, scales + b + j,
                     codes + (b + j) * 16, 1);
    }
  }
  for (; b < nb; ++b) {
    if (!nv_block_plan(t, x + b * 16, 1, 16, scales + b, codes + b * 16, 1))
      nv_block_ref(p, t.tv, x + b * 16, 1, scales + b, codes + b * 16, 1);
  }
}

void Rows4over6(const Nvfp4Profile& p, const NvTab& t, size_t nb,
                const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const Nvfp4Plan& pl = t.plan;
  // The two-candidate plans nvfp4_plan makes (TE 4over6) multiply and keep
  // -0; a plan that divides or maps -0 to code 0 would need those steps
  // here: the portable plan runs it (nv_block_plan, every rule).
  if (pl.cand[0].divide || pl.cand[1].divide || pl.exact_neg_zero_to_pos) {
    for (size_t b = 0; b < nb; ++b)
      if (!nv_block_plan(t, x + b * 16, 1, 16, scales + b, codes + b * 16, 1))
        nv_block_ref(p, t.tv, x + b * 16, 1, scales + b, codes + b * 16, 1);
    return;
  }
  if (pl.err_mse) return Rows4over6T<true>(p, t, nb, x, scales, codes);
  Rows4over6T<false>(p, t, nb, x, scales, codes);
}
#else
// HWY_SCALAR (no ConcatEven / ConcatOdd; never dispatched, emu/fast/isa.h:
// Isa::kScalar is the portable loop): the portable plan per block.
void Rows4over6(const Nvfp4Profile& p, const NvTab& t, size_t nb,
                const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  for (size_t b = 0; b < nb; ++b) {
    if (!nv_block_plan(t, x + b * 16, 1, 16, scales + b, codes + b * 16, 1))
      nv_block_ref(p, t.tv, x + b * 16, 1, scales + b, codes + b * 16, 1);
  }
}
#endif

}  // namespace

void NvRows(const Nvfp4Profile& p, const NvTab& t, size_t nb, const uint32_t* x,
            uint8_t* scales, uint8_t* codes) {
  if (t.plan.n_cand == 2) return Rows4over6(p, t, nb, x, scales, codes);
  const D16 d;
  const size_t N = hn::Lanes(d);
  const Nvfp4Candidate& c = t.plan.cand[0];
  HWY_ALIGN uint32_t am[16], sc[16];
  // Groups of N blocks: N amaxes, then N scale codes in one vector.
  size_t b = 0;
  for (; b + N <= nb; b += N) {
    const uint32_t* xg = x + b * 16;
    for (size_t j = 0; j < N; ++j) am[j] = AbsMax(xg + 16 * j, 16);
    const V16 s = ScaleCodes(t, c, hn::Load(d, am));
    hn::Store(s, d, sc);
    StoreBytes(s, scales + b);
    for (size_t j = 0; j < N; ++j) {
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

void nv_rows_simd(Isa isa, const Nvfp4Profile& p, const NvTab& t, size_t nb,
                  const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  MXC_HWY_DISPATCH(NvRows, isa)(p, t, nb, x, scales, codes);
}
void nv_cols_simd(Isa isa, const Nvfp4Profile& p, const NvTab& t, size_t R,
                  size_t C, const uint32_t* x, uint8_t* scales,
                  uint8_t* codes) {
  MXC_HWY_DISPATCH(NvCols, isa)(p, t, R, C, x, scales, codes);
}
bool nv_2d_simd(Isa isa, const NvTab& t, size_t R, size_t C, const uint32_t* x,
                uint8_t* scales, uint8_t* codes) {
  return MXC_HWY_DISPATCH(Nv2d, isa)(t, R, C, x, scales, codes);
}

}  // namespace mxc::fast::detail
#endif  // HWY_ONCE
