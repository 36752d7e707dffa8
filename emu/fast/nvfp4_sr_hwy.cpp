// The NVFP4 stochastic-rounding kernels of emu/fast/nvfp4_sr.h, one
// Highway source for every target (emu/fast/isa.h). Per block: the amax in
// registers, the scale code by the plan's steps (sr_scale_code, once per
// block), one multiply (or divide) by the operand, and the SR cast of
// e2m1_sr (nvfp4_sr_kernel.h) in integer lanes. Rowwise: a block is
// 16/Lanes vectors; columnwise: up to 256 columns per pass, the amax down
// sixteen rows, the operands per column.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/nvfp4_sr_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <algorithm>

#include "emu/fast/nvfp4_sr_kernel.h"
#include "emu/fast/quantize_simd-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::detail {
namespace HWY_NAMESPACE {
namespace {

// e2m1_sr in lanes: y = fl(x * op) or fl(x / op), then both branches of
// the scalar function (|y| < 1: t = floor(512 |y|); else exponent and
// mantissa bits) and a select; the sign or-ed in; with neg_zero_to_pos an
// exactly -0 y gives 0.
HWY_INLINE V16 SrCodes(bool divide, bool neg_zero_to_pos, V16 x, V16 op,
                       V16 rb) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const hn::RebindToSigned<D16> di;
  const auto xf = hn::BitCast(df, x), of = hn::BitCast(df, op);
  const V16 y = hn::BitCast(d, divide ? hn::Div(xf, of) : hn::Mul(xf, of));
  const V16 a = hn::And(y, hn::Set(d, 0x7FFFFFFFu));
  const V16 r = hn::And(rb, hn::Set(d, 0xFFu));
  const V16 ff = hn::Set(d, 0xFFu);
  // |y| < 1 (a clamped to 1 so that the other lanes stay in range).
  const auto af = hn::Min(hn::BitCast(df, a), hn::Set(df, 1.0f));
  const V16 t =
      hn::BitCast(d, hn::ConvertTo(di, hn::Mul(af, hn::Set(df, 512.0f))));
  const V16 lo = hn::Add(hn::ShiftRight<8>(t),
                         hn::ShiftRight<8>(hn::Add(hn::And(t, ff), r)));
  // |y| >= 1 (for |y| < 1 the subtraction wraps, min gives 3, unused).
  const V16 e =
      hn::Min(hn::Sub(hn::ShiftRight<23>(a), hn::Set(d, 127u)), hn::Set(d, 3u));
  const V16 m = hn::And(a, hn::Set(d, 0x7FFFFFu));
  const V16 base = hn::Or(hn::ShiftLeft<1>(hn::Add(e, hn::Set(d, 1u))),
                          hn::ShiftRight<22>(m));
  const V16 carry =
      hn::ShiftRight<8>(hn::Add(hn::And(hn::ShiftRight<14>(m), ff), r));
  const V16 hi = hn::Min(hn::Add(base, carry), hn::Set(d, 7u));
  const V16 code = hn::IfThenElse(hn::Lt(a, hn::Set(d, 0x3F800000u)), lo, hi);
  V16 q = hn::Or(code, hn::And(hn::ShiftRight<28>(y), hn::Set(d, 8u)));
  if (neg_zero_to_pos)
    q = hn::IfThenZeroElse(hn::Eq(y, hn::Set(d, 0x80000000u)), q);
  return q;
}

void NvSrRows(const Nvfp4Profile& p, const NvTab& t, size_t nb,
              const uint32_t* x, const uint32_t* rb, uint8_t* scales,
              uint8_t* codes) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  const Nvfp4Candidate& c = t.plan.cand[0];
  const bool divide = c.divide, nz = t.plan.exact_neg_zero_to_pos;
  for (size_t b = 0; b < nb; ++b) {
    const uint32_t* xb = x + 16 * b;
    const uint32_t* rbb = rb + 16 * b;
    uint8_t* cb = codes + 16 * b;
    const uint32_t amax = AbsMax(xb, 16);
    const uint8_t s = sr_scale_code(c, amax);
    if (s == 0x80) {
      sr_block_ref(p, t.tv, xb, rbb, 1, scales + b, cb, 1);
      continue;
    }
    scales[b] = s;
    const V16 op = hn::Set(d, c.operand[s]);
    for (size_t j = 0; j < 16; j += N)
      StoreBytes(
          SrCodes(divide, nz, hn::LoadU(d, xb + j), op, hn::LoadU(d, rbb + j)),
          cb + j);
  }
}

constexpr size_t kWide = 256;  // columns per pass

// 16 rows x w columns (w a multiple of Lanes, at most kWide), rows C apart.
void SrColPass(const Nvfp4Profile& p, const NvTab& t, size_t C, size_t w,
               const uint32_t* xr, const uint32_t* rr, uint8_t* sr,
               uint8_t* cr) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  const Nvfp4Candidate& c = t.plan.cand[0];
  const bool divide = c.divide, nz = t.plan.exact_neg_zero_to_pos;
  HWY_ALIGN uint32_t am[kWide], ops[kWide];
  bool bad[kWide];
  const V16 abs = hn::Set(d, 0x7FFFFFFFu);
  for (size_t j = 0; j < w; j += N) hn::Store(hn::Zero(d), d, am + j);
  for (size_t i = 0; i < 16; ++i)
    for (size_t j = 0; j < w; j += N)
      hn::Store(hn::Max(hn::Load(d, am + j),
                        hn::And(hn::LoadU(d, xr + i * C + j), abs)),
                d, am + j);
  for (size_t j = 0; j < w; ++j) {
    const uint8_t s = sr_scale_code(c, am[j]);
    bad[j] = s == 0x80;
    // A declined column converts under operand 1, overwritten below.
    ops[j] = bad[j] ? 0x3F800000u : c.operand[s];
    sr[j] = bad[j] ? 0 : s;
  }
  for (size_t i = 0; i < 16; ++i)
    for (size_t j = 0; j < w; j += N)
      StoreBytes(SrCodes(divide, nz, hn::LoadU(d, xr + i * C + j),
                         hn::Load(d, ops + j), hn::LoadU(d, rr + i * C + j)),
                 cr + i * C + j);
  for (size_t j = 0; j < w; ++j)
    if (bad[j]) sr_block_ref(p, t.tv, xr + j, rr + j, C, sr + j, cr + j, C);
}

void NvSrCols(const Nvfp4Profile& p, const NvTab& t, size_t R, size_t C,
              const uint32_t* x, const uint32_t* rb, uint8_t* scales,
              uint8_t* codes) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  const size_t tail = C % N, whole = C - tail;
  for (size_t r0 = 0; r0 < R; r0 += 16) {
    const uint32_t* xr = x + r0 * C;
    const uint32_t* rr = rb + r0 * C;
    uint8_t* sr = scales + (r0 / 16) * C;
    uint8_t* cr = codes + r0 * C;
    for (size_t c0 = 0; c0 < whole; c0 += kWide) {
      const size_t w = std::min(kWide, whole - c0);
      SrColPass(p, t, C, w, xr + c0, rr + c0, sr + c0, cr + c0);
    }
    // The last C % N columns: the portable block path per column.
    for (size_t j = whole; j < C; ++j)
      if (!sr_block_plan(t, xr + j, rr + j, C, 16, sr + j, cr + j, C))
        sr_block_ref(p, t.tv, xr + j, rr + j, C, sr + j, cr + j, C);
  }
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace mxc::fast::detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/hwy_dispatch.h"

namespace mxc::fast::detail {

HWY_EXPORT(NvSrRows);
HWY_EXPORT(NvSrCols);

void nv_sr_rows_simd(Isa isa, const Nvfp4Profile& p, const NvTab& t, size_t nb,
                     const uint32_t* x, const uint32_t* rb, uint8_t* scales,
                     uint8_t* codes) {
  MXC_HWY_DISPATCH(NvSrRows, isa)(p, t, nb, x, rb, scales, codes);
}
void nv_sr_cols_simd(Isa isa, const Nvfp4Profile& p, const NvTab& t,
                     size_t rows, size_t cols, const uint32_t* x,
                     const uint32_t* rb, uint8_t* scales, uint8_t* codes) {
  MXC_HWY_DISPATCH(NvSrCols, isa)(p, t, rows, cols, x, rb, scales, codes);
}

}  // namespace mxc::fast::detail
#endif  // HWY_ONCE
