// The fused MX block quantization kernels (emu/fast/quantize_fused.h) on
// AVX-512F: one pass per block, amax in registers, the scale byte from the
// per-binade table, sixteen elements converted per vector and narrowed to
// bytes (vpmovdb). Rowwise: a block is B/16 contiguous vectors. Columnwise:
// sixteen columns at once (one vector per row, contiguous loads), the amax
// of each lane down B rows, then the same rows converted with per-lane
// constants. Blocks the kernel does not take go to the reference.
#include <algorithm>

#include "emu/fast/isa.h"
#include "emu/fast/quantize_fused.h"
#include "emu/fast/quantize_simd.h"
#if !MXC_X86_KERNELS
#error "x86 kernel on a non-x86 target: see emu/fast/CMakeLists.txt"
#endif

namespace mxc::fast::detail {

namespace {

// One block after its amax: the scale byte, then the elements.
template <int M>
MXC_AVX512 inline void row_block(const MxKern& k, const V16& v, size_t B,
                                 uint32_t amax, const uint32_t* xb, uint8_t* sb,
                                 uint8_t* cb) {
  if (amax >= 0x7F800000u) {
    mx_block_ref(k, xb, 1, B, sb, cb, 1);
    return;
  }
  const uint8_t s = mx_scale_of(k, amax);
  *sb = s;
  const SConst& c = k.sc[s];
  if (static_cast<int32_t>(amax >> 23) > c.lim) {
    mx_block_ref(k, xb, 1, B, sb, cb, 1);
    return;
  }
  const __m512i tt = _mm512_set1_epi32(static_cast<int>(c.t));
  const __m512i cc = _mm512_set1_epi32(static_cast<int>(c.c0));
  const __m512i mm = _mm512_set1_epi32(static_cast<int>(c.max));
  for (size_t j = 0; j < B / 16; ++j) {
    const __m512i e = cvt16<M>(v, _mm512_loadu_si512(xb + 16 * j), tt, cc, mm);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(cb + 16 * j),
                     _mm512_cvtepi32_epi8(e));
  }
}

template <int M>
MXC_AVX512 __m512i block_max(const V16& v, const uint32_t* xb, size_t nv) {
  __m512i mx = _mm512_and_si512(_mm512_loadu_si512(xb), v.abs_mask);
  for (size_t j = 1; j < nv; ++j)
    mx = _mm512_max_epu32(
        mx, _mm512_and_si512(_mm512_loadu_si512(xb + 16 * j), v.abs_mask));
  return mx;
}

template <int M>
MXC_AVX512 void rows_t(const MxKern& k, size_t B, size_t rows, size_t cols,
                       const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const V16 v = v16(k.ek);
  const size_t nb = rows * (cols / B);  // rowwise blocks tile x in order
  const size_t nv = B / 16;
  size_t b = 0;
  // Sixteen blocks at a time: their amaxes by one transposing reduction.
  alignas(64) uint32_t am[16];
  for (; b + 16 <= nb; b += 16) {
    __m512i a[16];
    for (size_t j = 0; j < 16; ++j) a[j] = block_max<M>(v, x + (b + j) * B, nv);
    _mm512_store_si512(am, reduce16(a));
    for (size_t j = 0; j < 16; ++j)
      row_block<M>(k, v, B, am[j], x + (b + j) * B, scales + b + j,
                   codes + (b + j) * B);
  }
  for (; b < nb; ++b) {
    const uint32_t amax =
        _mm512_reduce_max_epu32(block_max<M>(v, x + b * B, nv));
    row_block<M>(k, v, B, amax, x + b * B, scales + b, codes + b * B);
  }
}

// The per-column constants of w columns from their amaxes (am); bad: the
// columns whose block goes to the reference. Lanes past w and bad lanes
// get constants that convert everything to 0 (overwritten later).
inline void col_consts(const MxKern& k, size_t w, const uint32_t* am,
                       uint8_t* sr, uint32_t* tt, uint32_t* cc, uint32_t* mm,
                       uint8_t* bad) {
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
    if (static_cast<int32_t>(a >> 23) > c.lim) continue;
    tt[j] = c.t;
    cc[j] = c.c0;
    mm[j] = c.max;
    bad[j] = 0;
  }
}

constexpr size_t kWide = 256;  // columns per pass (16 vectors)

// B rows x NV*16 columns (NV = kWide / 16, or 1 with a mask for the last
// columns): the amax of every column in registers (rows read in order,
// contiguous), the constants per column, then the same rows converted.
template <int M, size_t NV>
MXC_AVX512 void col_pass(const MxKern& k, const V16& v, size_t B, size_t cols,
                         size_t w, const uint32_t* xr, uint8_t* sr,
                         uint8_t* cr) {
  const __mmask16 m =
      NV == 1 ? static_cast<__mmask16>((1u << w) - 1u) : __mmask16(0xFFFF);
  alignas(64) uint32_t am[NV * 16], tt[NV * 16], cc[NV * 16], mm[NV * 16];
  uint8_t bad[NV * 16];
  __m512i acc[NV];
  for (size_t j = 0; j < NV; ++j) acc[j] = _mm512_setzero_si512();
  for (size_t i = 0; i < B; ++i) {
    const uint32_t* p = xr + i * cols;
    // The next pass's lines of this row (B rows kWide * 4 bytes apart are
    // too many streams for the hardware prefetchers).
    if (NV > 1)
      for (size_t j = 0; j < NV; j += 4)
        _mm_prefetch(reinterpret_cast<const char*>(p + kWide + 16 * j),
                     _MM_HINT_T0);
    for (size_t j = 0; j < NV; ++j)
      acc[j] = _mm512_max_epu32(
          acc[j], _mm512_and_si512(_mm512_maskz_loadu_epi32(m, p + 16 * j),
                                   v.abs_mask));
  }
  for (size_t j = 0; j < NV; ++j) _mm512_store_si512(am + 16 * j, acc[j]);
  for (size_t j = w; j < NV * 16; ++j) {
    tt[j] = cc[j] = 0x3F800000u;
    mm[j] = 0;
  }
  col_consts(k, w, am, sr, tt, cc, mm, bad);
  for (size_t i = 0; i < B; ++i) {
    const uint32_t* p = xr + i * cols;
    uint8_t* q = cr + i * cols;
    for (size_t j = 0; j < NV; ++j) {
      const __m512i e = cvt16<M>(v, _mm512_maskz_loadu_epi32(m, p + 16 * j),
                                 _mm512_load_si512(tt + 16 * j),
                                 _mm512_load_si512(cc + 16 * j),
                                 _mm512_load_si512(mm + 16 * j));
      _mm512_mask_cvtepi32_storeu_epi8(q + 16 * j, m, e);
    }
  }
  for (size_t j = 0; j < w; ++j) {
    if (bad[j] != 0) mx_block_ref(k, xr + j, cols, B, sr + j, cr + j, cols);
  }
}

template <int M>
MXC_AVX512 void cols_t(const MxKern& k, size_t B, size_t rows, size_t cols,
                       const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const V16 v = v16(k.ek);
  for (size_t r0 = 0; r0 < rows; r0 += B) {
    const uint32_t* xr = x + r0 * cols;
    uint8_t* cr = codes + r0 * cols;
    uint8_t* sr = scales + (r0 / B) * cols;
    size_t c0 = 0;
    for (; c0 + kWide <= cols; c0 += kWide)
      col_pass<M, kWide / 16>(k, v, B, cols, kWide, xr + c0, sr + c0, cr + c0);
    for (; c0 < cols; c0 += 16)
      col_pass<M, 1>(k, v, B, cols, std::min<size_t>(16, cols - c0), xr + c0,
                     sr + c0, cr + c0);
  }
}

}  // namespace

void mx_rows_avx512(const MxKern& k, size_t B, size_t rows, size_t cols,
                    const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  switch (k.ek.m) {
    case 1:
      return rows_t<1>(k, B, rows, cols, x, scales, codes);
    case 2:
      return rows_t<2>(k, B, rows, cols, x, scales, codes);
    default:
      return rows_t<3>(k, B, rows, cols, x, scales, codes);
  }
}

void mx_cols_avx512(const MxKern& k, size_t B, size_t rows, size_t cols,
                    const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  switch (k.ek.m) {
    case 1:
      return cols_t<1>(k, B, rows, cols, x, scales, codes);
    case 2:
      return cols_t<2>(k, B, rows, cols, x, scales, codes);
    default:
      return cols_t<3>(k, B, rows, cols, x, scales, codes);
  }
}

}  // namespace mxc::fast::detail
