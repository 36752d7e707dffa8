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

// Scale codes (one per lane) for finite amaxes: UE4M3 of fl(amax * c).
HWY_INLINE V16 ScaleCodes(const NvTab& t, V16 amax) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const V16 ys = hn::BitCast(
      d, hn::Mul(hn::BitCast(df, amax), hn::BitCast(df, hn::Set(d, t.c))));
  return Cvt<3>(ys, hn::Set(d, t.cs.t), hn::Set(d, t.cs.c0),
                hn::Set(d, t.cs.max), hn::Set(d, t.ks.sign_bit));
}

// E2M1 codes of fl(x * enc).
HWY_INLINE V16 ElemCodes(const NvTab& t, V16 x, V16 enc) {
  const D16 d;
  const hn::RebindToFloat<D16> df;
  const V16 y =
      hn::BitCast(d, hn::Mul(hn::BitCast(df, x), hn::BitCast(df, enc)));
  return Cvt<1>(y, hn::Set(d, t.ce.t), hn::Set(d, t.ce.c0),
                hn::Set(d, t.ce.max), hn::Set(d, t.ke.sign_bit));
}

// One block of 16 under the multiplier enc (f32 bits).
HWY_INLINE void Block16(const NvTab& t, uint32_t enc, const uint32_t* xb,
                        uint8_t* cb) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  const V16 e = hn::Set(d, enc);
  for (size_t j = 0; j < 16; j += N)
    StoreBytes(ElemCodes(t, hn::LoadU(d, xb + j), e), cb + j);
}

}  // namespace

void NvRows(const Nvfp4Profile& p, const NvTab& t, size_t nb, const uint32_t* x,
            uint8_t* scales, uint8_t* codes) {
  const D16 d;
  const size_t N = hn::Lanes(d);
  HWY_ALIGN uint32_t am[16], sc[16];
  // Groups of N blocks: N amaxes, then N scale codes in one vector.
  size_t b = 0;
  for (; b + N <= nb; b += N) {
    const uint32_t* xg = x + b * 16;
    for (size_t j = 0; j < N; ++j) am[j] = AbsMax(xg + 16 * j, 16);
    const V16 s = ScaleCodes(t, hn::Load(d, am));
    hn::Store(s, d, sc);
    StoreBytes(s, scales + b);
    for (size_t j = 0; j < N; ++j) {
      if (am[j] >= 0x7F800000u) {
        nv_block_ref(p, t.s_enc, xg + 16 * j, 1, scales + b + j,
                     codes + (b + j) * 16, 1);
      } else {
        Block16(t, t.enc[sc[j] & 0x7F], xg + 16 * j, codes + (b + j) * 16);
      }
    }
  }
  for (; b < nb; ++b) {
    const uint32_t* xb = x + b * 16;
    const uint32_t amax = AbsMax(xb, 16);
    if (amax >= 0x7F800000u) {
      nv_block_ref(p, t.s_enc, xb, 1, scales + b, codes + b * 16, 1);
      continue;
    }
    const uint32_t s = hn::GetLane(ScaleCodes(t, hn::Set(d, amax)));
    scales[b] = static_cast<uint8_t>(s);
    Block16(t, t.enc[s & 0x7F], xb, codes + b * 16);
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
    const V16 s =
        hn::And(ScaleCodes(t, hn::Load(d, am + j)), hn::Set(d, 0x7Fu));
    hn::Store(s, d, sc + j);
    StoreBytes(s, sr + j);
  }
  for (size_t j = 0; j < w; ++j) enc[j] = t.enc[sc[j]];
  for (size_t i = 0; i < 16; ++i) {
    const uint32_t* q = xr + i * xs;
    uint8_t* o = cr + i * cs;
    for (size_t j = 0; j < w; j += N)
      StoreBytes(ElemCodes(t, hn::LoadU(d, q + j), hn::Load(d, enc + j)),
                 o + j);
  }
  for (size_t j = 0; j < w; ++j) {
    if (am[j] >= 0x7F800000u)
      nv_block_ref(p, t.s_enc, xr + j, xs, sr + j, cr + j, cs);
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
  for (size_t r0 = 0; r0 < R; r0 += 16) {
    for (size_t c0 = 0; c0 < C; c0 += 16) {
      const uint32_t* xt = x + r0 * C + c0;
      uint32_t amax = 0;
      for (size_t i = 0; i < 16; ++i)
        amax = std::max(amax, AbsMax(xt + i * C, 16));
      if (amax >= 0x7F800000u) return false;
      const uint8_t s = static_cast<uint8_t>(
          hn::GetLane(ScaleCodes(t, hn::Set(d, amax))) & 0x7F);
      const uint32_t enc = t.enc[s];
      for (size_t i = 0; i < 16; ++i) {
        scales[(r0 + i) * (C / 16) + c0 / 16] = s;
        Block16(t, enc, xt + i * C, codes + (r0 + i) * C + c0);
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
