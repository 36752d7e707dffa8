// The NVFP4 kernels of emu/fast/nvfp4_fast.h, one Highway source for every
// target (emu/fast/isa.h). A 16-element block is 16/Lanes vectors.
// Rowwise: per group of blocks, their amaxes, the scale codes by one vector
// multiply (fl(amax * c)) and the in-register UE4M3 conversion; then per
// block one multiply by the table's multiplier and the in-register E2M1
// conversion (quantize_simd-inl.h). Columnwise: up to 256 columns per pass,
// the amax down sixteen rows, the multipliers looked up per column.
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

// 4over6, rowwise, N blocks at once: both candidates' codes and error
// terms per element (in vectors along the block; the dequantized values
// from the per-scale-code table t.errv), then each block's error sums in
// element order, the reference's (scalar adds, interleaved across the
// group's blocks: a vector sum would reassociate them).
void Rows4over6(const Nvfp4Profile& p, const NvTab& t, size_t nb,
                const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const hn::RebindToSigned<D16> di;
  const size_t N = hn::Lanes(d);
  const Nvfp4Plan& pl = t.plan;
  HWY_ALIGN uint32_t am[16], sc[2][16];
  HWY_ALIGN float terms[2][16 * 16];
  HWY_ALIGN uint8_t qs[2][16 * 16];
  const V16 m7 = hn::Set(d, 7u);
  // The 8 values of a scale code fit one vector from 8 lanes up (a lane
  // permute); narrower vectors gather them.
  const bool permute = N >= 8;
  size_t b = 0;
  for (; b + N <= nb; b += N) {
    const uint32_t* xg = x + b * 16;
    for (size_t j = 0; j < N; ++j) am[j] = AbsMax(xg + 16 * j, 16);
    for (size_t k = 0; k < 2; ++k)
      hn::Store(ScaleCodes(t, pl.cand[k], hn::Load(d, am)), d, sc[k]);
    // Blocks with NaN or Inf run too (no traps; their results are
    // replaced by the reference below).
    for (size_t j = 0; j < N; ++j) {
      for (size_t k = 0; k < 2; ++k) {
        const Nvfp4Candidate& c = pl.cand[k];
        const uint32_t s = sc[k][j] < 0x80 ? sc[k][j] : 0;
        const V16 op = hn::Set(d, c.operand[s]);
        const uint32_t* vt = t.errv + 8 * s;
        const V16 vtab = hn::LoadU(d, vt);
        for (size_t i = 0; i < 16; i += N) {
          const V16 xv = hn::LoadU(d, xg + 16 * j + i);
          const V16 q = ElemCodes(t, c.divide, xv, op);
          StoreBytes(q, qs[k] + 16 * j + i);
          // fl(fl(fl(q * s) * A) / D) from the table (t.errv), the sign of
          // q or-ed in (RNE is symmetric).
          const V16 m = hn::And(q, m7);
          V16 val = permute
                        ? hn::TableLookupLanes(vtab, hn::IndicesFromVec(d, m))
                        : hn::GatherIndex(d, vt, hn::BitCast(di, m));
          val = hn::Or(val, hn::ShiftLeft<28>(hn::And(q, hn::Set(d, 8u))));
          const auto diff = hn::Sub(hn::BitCast(df, val), hn::BitCast(df, xv));
          const auto term = pl.err_mse ? hn::Mul(diff, diff) : hn::Abs(diff);
          hn::Store(term, df, terms[k] + 16 * j + i);
        }
      }
    }
    // The sums, each block's in element order (scalar lanes interleaved
    // across the group's blocks for parallelism).
    float e[2][16] = {};
    for (size_t i = 0; i < 16; ++i) {
      for (size_t j = 0; j < N; ++j) {
        e[0][j] += terms[0][16 * j + i];
        e[1][j] += terms[1][16 * j + i];
      }
    }
    for (size_t j = 0; j < N; ++j) {
      const size_t k = e[1][j] < e[0][j] ? 1 : 0;  // false with a NaN
      if (am[j] >= 0x7F800000u || !Exact(pl.cand[0], sc[0][j]) ||
          !Exact(pl.cand[1], sc[1][j])) {
        nv_block_ref(p, t.tv, xg + 16 * j, 1, scales + b + j,
                     codes + (b + j) * 16, 1);
        continue;
      }
      scales[b + j] = static_cast<uint8_t>(sc[k][j]);
      std::copy(qs[k] + 16 * j, qs[k] + 16 * j + 16, codes + (b + j) * 16);
    }
  }
  for (; b < nb; ++b) {
    if (!nv_block_plan(t, x + b * 16, 1, 16, scales + b, codes + b * 16, 1))
      nv_block_ref(p, t.tv, x + b * 16, 1, scales + b, codes + b * 16, 1);
  }
}

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
void ColPass(const Nvfp4Profile& p, const NvTab& t, size_t xs, size_t cs,
             size_t w, const uint32_t* xr, uint8_t* sr, uint8_t* cr) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  const Nvfp4Candidate& c = t.plan.cand[0];
  HWY_ALIGN uint32_t am[kWide], enc[kWide], sc[kWide];
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
