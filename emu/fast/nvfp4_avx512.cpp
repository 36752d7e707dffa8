// The NVFP4 kernels of emu/fast/nvfp4_fast.h on AVX-512F: a 16-element
// block is one vector. Rowwise: sixteen blocks at a time, their amaxes by
// one transposing reduction, the sixteen scale codes by one vector multiply
// (fl(amax * c)) and one in-register UE4M3 conversion; then per block one
// multiply by the table's multiplier and the in-register E2M1 conversion
// (quantize_fused.h). Columnwise: sixteen columns per vector, the amax
// down sixteen rows, the multipliers gathered per lane.
#include <bit>

#include "emu/fast/isa.h"
#include "emu/fast/nvfp4_fused.h"
#include "emu/fast/quantize_simd.h"
#if !MXC_X86_KERNELS
#error "x86 kernel on a non-x86 target: see emu/fast/CMakeLists.txt"
#endif

namespace mxc::fast::detail {

namespace {

struct NvV {
  V16 vs, ve;
  __m512i ts, cs, ms, te, ce, me, inf;
  __m512 c;
};

MXC_AVX512 NvV nv_v(const NvTab& t) {
  NvV v;
  v.vs = v16(t.ks);
  v.ve = v16(t.ke);
  v.ts = _mm512_set1_epi32(static_cast<int>(t.cs.t));
  v.cs = _mm512_set1_epi32(static_cast<int>(t.cs.c0));
  v.ms = _mm512_set1_epi32(static_cast<int>(t.cs.max));
  v.te = _mm512_set1_epi32(static_cast<int>(t.ce.t));
  v.ce = _mm512_set1_epi32(static_cast<int>(t.ce.c0));
  v.me = _mm512_set1_epi32(static_cast<int>(t.ce.max));
  v.inf = _mm512_set1_epi32(0x7F800000);
  v.c = _mm512_set1_ps(std::bit_cast<float>(t.c));
  return v;
}

// Scale codes (one per lane) for finite amaxes.
MXC_AVX512 inline __m512i scale_codes(const NvV& v, __m512i amax) {
  const __m512i ys =
      _mm512_castps_si512(_mm512_mul_ps(_mm512_castsi512_ps(amax), v.c));
  return cvt16<3>(v.vs, ys, v.ts, v.cs, v.ms);
}

// E2M1 codes of fl(x * enc).
MXC_AVX512 inline __m512i elem_codes(const NvV& v, __m512i x, __m512 enc) {
  const __m512i y =
      _mm512_castps_si512(_mm512_mul_ps(_mm512_castsi512_ps(x), enc));
  return cvt16<1>(v.ve, y, v.te, v.ce, v.me);
}

MXC_AVX512 inline void store16(uint8_t* p, __m512i e) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(e));
}

MXC_AVX512 void rows(const Nvfp4Profile& p, const NvTab& t, size_t nb,
                     const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const NvV v = nv_v(t);
  alignas(64) uint32_t sc[16];
  size_t b = 0;
  for (; b + 16 <= nb; b += 16) {
    const uint32_t* xg = x + b * 16;
    __m512i a[16];
    for (size_t j = 0; j < 16; ++j)
      a[j] = _mm512_and_si512(_mm512_loadu_si512(xg + 16 * j), v.vs.abs_mask);
    const __m512i amax = reduce16(a);
    const __mmask16 bad = _mm512_cmpge_epu32_mask(amax, v.inf);
    const __m512i s = scale_codes(v, amax);
    _mm512_store_si512(sc, s);
    store16(scales + b, s);
    for (size_t j = 0; j < 16; ++j) {
      const __m512 enc =
          _mm512_set1_ps(std::bit_cast<float>(t.enc[sc[j] & 0x7F]));
      store16(codes + (b + j) * 16,
              elem_codes(v, _mm512_loadu_si512(xg + 16 * j), enc));
    }
    for (unsigned m = bad, j = 0; m != 0; m >>= 1, ++j) {
      if ((m & 1u) != 0)
        nv_block_ref(p, t.s_enc, xg + 16 * j, 1, scales + b + j,
                     codes + (b + j) * 16, 1);
    }
  }
  for (; b < nb; ++b) {
    const __m512i xv = _mm512_loadu_si512(x + b * 16);
    const uint32_t amax =
        _mm512_reduce_max_epu32(_mm512_and_si512(xv, v.vs.abs_mask));
    if (amax >= 0x7F800000u) {
      nv_block_ref(p, t.s_enc, x + b * 16, 1, scales + b, codes + b * 16, 1);
      continue;
    }
    _mm512_store_si512(
        sc, scale_codes(v, _mm512_set1_epi32(static_cast<int>(amax))));
    scales[b] = static_cast<uint8_t>(sc[0]);
    store16(
        codes + b * 16,
        elem_codes(v, xv,
                   _mm512_set1_ps(std::bit_cast<float>(t.enc[sc[0] & 0x7F]))));
  }
}

constexpr size_t kWide = 256;  // columns per pass (16 vectors)

// 16 rows x NV*16 columns (NV = kWide / 16, or 1 with a mask for the last
// columns): the amaxes in registers (rows read in order), sixteen scale
// codes per vector, the multipliers gathered per lane, then the same rows.
template <size_t NV>
MXC_AVX512 void col_pass(const Nvfp4Profile& p, const NvTab& t, const NvV& v,
                         size_t C, size_t w, const uint32_t* xr, uint8_t* sr,
                         uint8_t* cr) {
  const __mmask16 m =
      NV == 1 ? static_cast<__mmask16>((1u << w) - 1u) : __mmask16(0xFFFF);
  __m512i acc[NV];
  __m512 enc[NV];
  for (size_t j = 0; j < NV; ++j) acc[j] = _mm512_setzero_si512();
  for (size_t i = 0; i < 16; ++i) {
    const uint32_t* q = xr + i * C;
    if (NV > 1)
      for (size_t j = 0; j < NV; j += 4)
        _mm_prefetch(reinterpret_cast<const char*>(q + kWide + 16 * j),
                     _MM_HINT_T0);
    for (size_t j = 0; j < NV; ++j)
      acc[j] = _mm512_max_epu32(
          acc[j], _mm512_and_si512(_mm512_maskz_loadu_epi32(m, q + 16 * j),
                                   v.vs.abs_mask));
  }
  unsigned bad[NV];
  for (size_t j = 0; j < NV; ++j) {
    bad[j] = _mm512_mask_cmpge_epu32_mask(m, acc[j], v.inf);
    const __m512i s =
        _mm512_and_si512(scale_codes(v, acc[j]), _mm512_set1_epi32(0x7F));
    _mm512_mask_cvtepi32_storeu_epi8(sr + 16 * j, m, s);
    enc[j] = _mm512_castsi512_ps(
        _mm512_i32gather_epi32(s, reinterpret_cast<const int*>(t.enc), 4));
  }
  for (size_t i = 0; i < 16; ++i) {
    const uint32_t* q = xr + i * C;
    uint8_t* o = cr + i * C;
    for (size_t j = 0; j < NV; ++j)
      _mm512_mask_cvtepi32_storeu_epi8(
          o + 16 * j, m,
          elem_codes(v, _mm512_maskz_loadu_epi32(m, q + 16 * j), enc[j]));
  }
  for (size_t j = 0; j < NV; ++j) {
    for (unsigned bm = bad[j], l = 0; bm != 0; bm >>= 1, ++l) {
      if ((bm & 1u) != 0)
        nv_block_ref(p, t.s_enc, xr + 16 * j + l, C, sr + 16 * j + l,
                     cr + 16 * j + l, C);
    }
  }
}

MXC_AVX512 void cols(const Nvfp4Profile& p, const NvTab& t, size_t R, size_t C,
                     const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const NvV v = nv_v(t);
  for (size_t r0 = 0; r0 < R; r0 += 16) {
    const uint32_t* xr = x + r0 * C;
    uint8_t* cr = codes + r0 * C;
    uint8_t* sr = scales + (r0 / 16) * C;
    size_t c0 = 0;
    for (; c0 + kWide <= C; c0 += kWide)
      col_pass<kWide / 16>(p, t, v, C, kWide, xr + c0, sr + c0, cr + c0);
    for (; c0 < C; c0 += 16)
      col_pass<1>(p, t, v, C, C - c0 < 16 ? C - c0 : 16, xr + c0, sr + c0,
                  cr + c0);
  }
}

MXC_AVX512 bool tiles(const NvTab& t, size_t R, size_t C, const uint32_t* x,
                      uint8_t* scales, uint8_t* codes) {
  const NvV v = nv_v(t);
  alignas(64) uint32_t sc[16];
  for (size_t r0 = 0; r0 < R; r0 += 16) {
    for (size_t c0 = 0; c0 < C; c0 += 16) {
      const uint32_t* xt = x + r0 * C + c0;
      __m512i mx = _mm512_setzero_si512();
      for (size_t i = 0; i < 16; ++i)
        mx = _mm512_max_epu32(
            mx,
            _mm512_and_si512(_mm512_loadu_si512(xt + i * C), v.vs.abs_mask));
      const uint32_t amax = _mm512_reduce_max_epu32(mx);
      if (amax >= 0x7F800000u) return false;
      _mm512_store_si512(
          sc, scale_codes(v, _mm512_set1_epi32(static_cast<int>(amax))));
      const uint8_t s = static_cast<uint8_t>(sc[0] & 0x7F);
      const __m512 enc = _mm512_set1_ps(std::bit_cast<float>(t.enc[s]));
      for (size_t i = 0; i < 16; ++i) {
        scales[(r0 + i) * (C / 16) + c0 / 16] = s;
        store16(codes + (r0 + i) * C + c0,
                elem_codes(v, _mm512_loadu_si512(xt + i * C), enc));
      }
    }
  }
  return true;
}

}  // namespace

void nv_rows_avx512(const Nvfp4Profile& p, const NvTab& t, size_t nb,
                    const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  rows(p, t, nb, x, scales, codes);
}
void nv_cols_avx512(const Nvfp4Profile& p, const NvTab& t, size_t R, size_t C,
                    const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  cols(p, t, R, C, x, scales, codes);
}
bool nv_2d_avx512(const NvTab& t, size_t R, size_t C, const uint32_t* x,
                  uint8_t* scales, uint8_t* codes) {
  return tiles(t, R, C, x, scales, codes);
}

}  // namespace mxc::fast::detail
