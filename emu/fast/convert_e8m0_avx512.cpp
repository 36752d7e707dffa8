// A dedicated AVX-512 kernel for f32 -> E8M0 (Isa::kAvx512, issue 7;
// called from convert_avx512.cpp's dispatch when Plan::e8m0). E8M0 is
// unsigned (the input's sign is ignored, as Plan::is_signed = false makes
// the generic formulation do), so a finite |x| = 2^(E - 127) * (1 + f/2^23)
// (E >= 1) rounds to the encoding E or E + 1, and the rounding reads only
// the 23 fraction bits. With abs = |x|'s bits, the generic formulation of
// convert_fast.cpp (sig = f + 2^23, sh = 23, offset E - 1) reduces to:
//   RZ, RD (never negative here): E = abs >> 23
//   RU:  (abs + 2^23 - 1) >> 23
//   RNA: (abs + 2^22) >> 23
//   RNE: (abs + 2^22 - 1 + (E & 1)) >> 23      (ties to the even encoding)
//   odd: (abs >> 23) | (f != 0)
// f32 subnormals (E = 0) read as sig = f << 1 at offset -1: the encoding is
// 1 when sig >= 2^23 rounds up to 2^24 and 0 otherwise (also below 2^-127:
// the reference clamps to E8M0's least value, emu/round_pack.cpp). The encoding
// is 1 exactly above a mode's threshold Z; the formulas above give 1 there too,
// but also on part of (0, Z], so zeroing |x| <= Z makes them exact:
//   RU, odd: Z = 2^22 (2^-127 itself is exact; anything above rounds up)
//   RNA: Z = 3 * 2^21 - 1 (the half-way point 1.5 * 2^-127 rounds away)
//   RNE: Z = 3 * 2^21 (the tie goes to the even encoding 0)
// Finite inputs give at most 255 (E = 254 rounding up), above the largest
// finite encoding Plan::max_enc = 254, and Inf/NaN (E = 255) give 255 or
// 256; so min(result, Plan::ovf) is the overflow result when ovf is
// max_enc or max_enc + 1, and Inf and NaN hold ovf after it. Inf and NaN
// inputs are then patched with Plan::inf / Plan::nan where those differ
// from ovf. Preconditions the plan must meet are checked in e8m0_pick;
// anything else returns false (the generic kernel runs).
#include <cstddef>
#include <cstdint>

#include "emu/fast/convert_fast.h"
#include "emu/fast/isa.h"
#if !MXC_X86_KERNELS
#error "x86 kernel on a non-x86 target: see emu/fast/CMakeLists.txt"
#endif
// GCC 12's AVX-512 intrinsics seed their results with a self-initialised
// "undefined" vector, which -W(maybe-)uninitialized flags once inlined (GCC
// bug 105593); the warning is spurious here.
#pragma GCC diagnostic push
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#define MXC_AVX512_E8 MXC_TARGET_AVX512

namespace mxc::fast::detail {
namespace {

// The rounding formula: RZ (also RD), RU, RNA, RNE or odd.
enum class E8 : uint8_t { kRz, kRu, kRna, kRne, kOdd };

struct K8 {
  __m512i abs_mask, exp_inf, addend, bit23, frac, one, zmax, cap, inf, nan,
      perm;
};

MXC_AVX512_E8 K8 constants8(const Plan& p, E8 m) {
  K8 k;
  k.abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
  k.exp_inf = _mm512_set1_epi32(0x7F800000);
  int addend = 0, zmax = 0;
  switch (m) {
    case E8::kRu:
      addend = 0x7FFFFF;
      zmax = 0x400000;
      break;
    case E8::kRna:
      addend = 0x400000;
      zmax = 0x5FFFFF;
      break;
    case E8::kRne:
      addend = 0x3FFFFF;
      zmax = 0x600000;
      break;
    case E8::kOdd:
      zmax = 0x400000;
      break;
    case E8::kRz:
      break;
  }
  k.addend = _mm512_set1_epi32(addend);
  k.zmax = _mm512_set1_epi32(zmax);
  k.bit23 = _mm512_set1_epi32(0x800000);
  k.frac = _mm512_set1_epi32(0x7FFFFF);
  k.one = _mm512_set1_epi32(1);
  k.cap = _mm512_set1_epi32(p.ovf[0]);
  k.inf = _mm512_set1_epi32(p.inf[0]);
  k.nan = _mm512_set1_epi32(p.nan);
  // packs/packus interleave per 128-bit lane: dword d of the packed vector
  // holds input vector d%4's lane d/4.
  k.perm =
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return k;
}

// Sixteen results, each in [0, 255].
template <E8 M, bool kInfFix, bool kNanFix>
MXC_AVX512_E8 inline __m512i sixteen8(const K8& k, __m512i x) {
  const __m512i abs = _mm512_and_si512(x, k.abs_mask);
  __m512i res;
  if constexpr (M == E8::kRz) {
    res = _mm512_min_epi32(_mm512_srli_epi32(abs, 23), k.cap);
  } else {
    __m512i enc;
    if constexpr (M == E8::kOdd) {
      enc = _mm512_srli_epi32(abs, 23);
      enc = _mm512_mask_or_epi32(enc, _mm512_test_epi32_mask(abs, k.frac), enc,
                                 k.one);
    } else {
      __m512i w = _mm512_add_epi32(abs, k.addend);
      if constexpr (M == E8::kRne) {
        w = _mm512_mask_add_epi32(w, _mm512_test_epi32_mask(abs, k.bit23), w,
                                  k.one);
      }
      enc = _mm512_srli_epi32(w, 23);
    }
    res = _mm512_maskz_min_epi32(_mm512_cmpgt_epi32_mask(abs, k.zmax), enc,
                                 k.cap);
  }
  if constexpr (kInfFix) {
    res = _mm512_mask_mov_epi32(res, _mm512_cmpeq_epi32_mask(abs, k.exp_inf),
                                k.inf);
  }
  if constexpr (kNanFix) {
    res = _mm512_mask_mov_epi32(res, _mm512_cmpgt_epi32_mask(abs, k.exp_inf),
                                k.nan);
  }
  return res;
}

template <E8 M, bool kInfFix, bool kNanFix>
MXC_AVX512_E8 void kernel8(const Plan& p, const uint32_t* in, uint8_t* out,
                           size_t n) {
  const K8 k = constants8(p, M);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const uint32_t* s = in + i;
    const __m512i r0 = sixteen8<M, kInfFix, kNanFix>(k, _mm512_loadu_si512(s));
    const __m512i r1 =
        sixteen8<M, kInfFix, kNanFix>(k, _mm512_loadu_si512(s + 16));
    const __m512i r2 =
        sixteen8<M, kInfFix, kNanFix>(k, _mm512_loadu_si512(s + 32));
    const __m512i r3 =
        sixteen8<M, kInfFix, kNanFix>(k, _mm512_loadu_si512(s + 48));
    const __m512i b = _mm512_packus_epi16(_mm512_packs_epi32(r0, r1),
                                          _mm512_packs_epi32(r2, r3));
    _mm512_storeu_si512(out + i, _mm512_permutexvar_epi32(k.perm, b));
  }
  // The tail, sixteen lanes at a time under a mask.
  for (; i < n; i += 16) {
    const size_t left = n - i;
    const __mmask16 live = left >= 16
                               ? __mmask16{0xFFFF}
                               : static_cast<__mmask16>((1u << left) - 1);
    const __m512i r = sixteen8<M, kInfFix, kNanFix>(
        k, _mm512_maskz_loadu_epi32(live, in + i));
    _mm512_mask_cvtusepi32_storeu_epi8(out + i, live, r);
  }
}

using Kernel8Fn = void (*)(const Plan&, const uint32_t*, uint8_t*, size_t);

template <E8 M>
Kernel8Fn pick_fix(bool inf_fix, bool nan_fix) {
  if (inf_fix) {
    return nan_fix ? kernel8<M, true, true> : kernel8<M, true, false>;
  }
  return nan_fix ? kernel8<M, false, true> : kernel8<M, false, false>;
}

Kernel8Fn e8m0_pick(const Plan& p) {
  // The reasoning above needs: E8M0's largest finite encoding 254, results
  // independent of the sign, and an overflow result that min() can give.
  if (!p.covered || !p.e8m0 || p.is_signed || p.relu || p.max_enc != 254 ||
      p.ovf[0] != p.ovf[1] || p.inf[0] != p.inf[1] ||
      (p.ovf[0] != 254 && p.ovf[0] != 255)) {
    return nullptr;
  }
  // After min(), Inf and NaN inputs hold ovf.
  const bool inf_fix = p.inf[0] != p.ovf[0];
  const bool nan_fix = p.nan != p.ovf[0];
  switch (p.spec.mode) {
    case Round::kRZ:
    case Round::kRD:  // E8M0 results are never negative: RD is RZ
      return pick_fix<E8::kRz>(inf_fix, nan_fix);
    case Round::kRU:
      return pick_fix<E8::kRu>(inf_fix, nan_fix);
    case Round::kRNA:
      return pick_fix<E8::kRna>(inf_fix, nan_fix);
    case Round::kRNE:
      return pick_fix<E8::kRne>(inf_fix, nan_fix);
    case Round::kOdd:
      return pick_fix<E8::kOdd>(inf_fix, nan_fix);
    case Round::kSR:
    case Round::kRNZ:  // not covered (convert_fast.cpp covers())
      break;
  }
  return nullptr;
}

}  // namespace

// Declared in convert_avx512.cpp, its only caller (after
// isa_supported(Isa::kAvx512)).
bool e8m0_avx512_run(const Plan& p, const uint32_t* in, uint8_t* out,
                     size_t n) {
  const Kernel8Fn f = e8m0_pick(p);
  if (f == nullptr) return false;
  f(p, in, out, n);
  return true;
}

}  // namespace mxc::fast::detail

#pragma GCC diagnostic pop
