// The in-register element conversion of emu/fast/quantize_fused.h for 16
// f32 lanes (AVX-512F). Only included by translation units whose functions
// carry the same target attribute; callers check avx512_ok() first.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports false -Wmaybe-uninitialized warnings inside the inlined
// AVX-512 intrinsics (the `__Y = __Y` of _mm512_undefined_epi32 in
// avx512fintrin.h). Only the kernels' translation units include this file.
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include "emu/fast/isa.h"
#include "emu/fast/quantize_fused.h"

#define MXC_AVX512 MXC_TARGET_AVX512

namespace mxc::fast::detail {

struct V16 {
  __m512i abs_mask, exp_mask, sign_bit;
};

MXC_AVX512 inline V16 v16(const ElemK& e) {
  V16 v;
  v.abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
  v.exp_mask = _mm512_set1_epi32(0x7F800000);
  v.sign_bit = _mm512_set1_epi32(static_cast<int>(e.sign_bit));
  return v;
}

// Sixteen encodings (one per 32-bit lane) of x * 2^d for the constants
// t, c0, mx of that d (quantize_fused.h: SConst); x finite.
template <int M>
MXC_AVX512 inline __m512i cvt16(const V16& v, __m512i x, __m512i t, __m512i c0,
                                __m512i mx) {
  const __m512i a = _mm512_min_epu32(_mm512_and_si512(x, v.abs_mask), mx);
  const __m512i eb =
      _mm512_sub_epi32(_mm512_max_epu32(_mm512_and_si512(a, v.exp_mask), t), t);
  const __m512i c = _mm512_add_epi32(eb, c0);
  const __m512 sum =
      _mm512_add_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(c));
  const __m512i enc =
      _mm512_add_epi32(_mm512_sub_epi32(_mm512_castps_si512(sum), c),
                       _mm512_srli_epi32(eb, 23 - M));
  const __mmask16 neg = _mm512_cmplt_epi32_mask(x, _mm512_setzero_si512());
  return _mm512_mask_or_epi32(enc, neg, enc, v.sign_bit);
}

// The max of each of 16 vectors of magnitudes, lane j for a[j]: a
// transposing tree of 128-bit, 64-bit and 32-bit shuffles (a[] is
// overwritten), then one permutation back to block order.
MXC_AVX512 inline __m512i reduce16(__m512i* a) {
  for (int i = 0; i < 8; ++i) {  // lanes 0-7: a[2i], 8-15: a[2i+1]
    const __m512i u = _mm512_shuffle_i32x4(a[2 * i], a[2 * i + 1], 0x44);
    const __m512i v = _mm512_shuffle_i32x4(a[2 * i], a[2 * i + 1], 0xEE);
    a[i] = _mm512_max_epu32(u, v);
  }
  for (int i = 0; i < 4; ++i) {  // 128-bit lane q: block 4i + q
    const __m512i u = _mm512_shuffle_i32x4(a[2 * i], a[2 * i + 1], 0x88);
    const __m512i v = _mm512_shuffle_i32x4(a[2 * i], a[2 * i + 1], 0xDD);
    a[i] = _mm512_max_epu32(u, v);
  }
  for (int i = 0; i < 2; ++i) {  // lane q: [q, q, 4+q, 4+q] (+8i)
    const __m512i u = _mm512_unpacklo_epi64(a[2 * i], a[2 * i + 1]);
    const __m512i v = _mm512_unpackhi_epi64(a[2 * i], a[2 * i + 1]);
    a[i] = _mm512_max_epu32(u, v);
  }
  const __m512 p0 = _mm512_castsi512_ps(a[0]), p1 = _mm512_castsi512_ps(a[1]);
  // Lane 4q + r: block 4r + q.
  const __m512i m =
      _mm512_max_epu32(_mm512_castps_si512(_mm512_shuffle_ps(p0, p1, 0x88)),
                       _mm512_castps_si512(_mm512_shuffle_ps(p0, p1, 0xDD)));
  const __m512i idx =
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_epi32(idx, m);
}

}  // namespace mxc::fast::detail
