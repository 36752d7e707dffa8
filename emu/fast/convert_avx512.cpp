// The AVX-512 path of emu/fast/convert_fast.cpp (Isa::kAvx512): the AVX2
// kernels of convert_avx2.cpp on sixteen lanes, with mask registers for the
// selects and, in the FP-unit variant, the rounding mode embedded in the
// float-to-int conversion (vcvtps2dq {rn,rd,ru,rz}-sae). Needs AVX-512 F
// and BW (packs to bytes); per-function target attributes, called only
// after isa_supported(Isa::kAvx512). E8M0 goes to its own kernel first
// (convert_e8m0_avx512.cpp); sixteen<E8 = true> serves plans it declines.
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

#define MXC_AVX512 MXC_TARGET_AVX512

namespace mxc::fast::detail {
namespace {

struct K {
  __m512i abs_mask, exp_inf, mant_mask, hidden, one, ones, zero, c_sh, lo_sh,
      hi_sh, c_off, max_enc, sign_bit, ovf0, ovf1, inf0, inf1, nan, s32, s33,
      perm, emin_bits, scale_c;
  __m128i mcount, offcount, signcount;
};

MXC_AVX512 K constants(const Plan& p) {
  K k;
  k.abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
  k.exp_inf = _mm512_set1_epi32(0x7F800000);
  k.mant_mask = _mm512_set1_epi32(0x7FFFFF);
  k.hidden = _mm512_set1_epi32(0x800000);
  k.one = _mm512_set1_epi32(1);
  k.ones = _mm512_set1_epi32(-1);
  k.zero = _mm512_setzero_si512();
  k.c_sh = _mm512_set1_epi32(p.c_sh);
  k.lo_sh = _mm512_set1_epi32(23 - p.m);
  k.hi_sh = _mm512_set1_epi32(25);
  k.c_off = _mm512_set1_epi32(p.c_off);
  k.max_enc = _mm512_set1_epi32(p.max_enc);
  k.sign_bit = _mm512_set1_epi32(static_cast<int>(p.sign_bit));
  k.ovf0 = _mm512_set1_epi32(p.ovf[0]);
  k.ovf1 = _mm512_set1_epi32(p.ovf[1]);
  k.inf0 = _mm512_set1_epi32(p.inf[0]);
  k.inf1 = _mm512_set1_epi32(p.inf[1]);
  k.nan = _mm512_set1_epi32(p.nan);
  k.s32 = _mm512_set1_epi32(32);
  k.s33 = _mm512_set1_epi32(33);
  // packs/packus interleave per 128-bit lane: dword d of the packed vector
  // holds input vector d%4's lane d/4.
  k.perm =
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  k.mcount = _mm_cvtsi32_si128(p.m);
  const int emin = p.c_off - 127;  // target emin (unused for E8M0)
  k.emin_bits = _mm512_set1_epi32(p.e8m0 ? 0 : (emin + 127) << 23);
  k.scale_c = _mm512_set1_epi32((254 + p.m) << 23);
  k.offcount = _mm_cvtsi32_si128(23 - p.m);
  k.signcount = _mm_cvtsi32_si128(32 - desc(p.to).bits);
  return k;
}

// The integer formulation (convert_fast.cpp), as `eight` in convert_avx2.cpp.
template <Round M, bool E8, bool kSigned, bool kRelu, bool kInfDiff>
MXC_AVX512 inline __m512i sixteen(const K& k, __m512i x) {
  const __m512i abs = _mm512_and_si512(x, k.abs_mask);
  const __m512i e = _mm512_srli_epi32(abs, 23);
  __m512i sig, sh, off;
  if constexpr (E8) {
    const __m512i normal =
        _mm512_or_si512(_mm512_and_si512(abs, k.mant_mask), k.hidden);
    sig = _mm512_mask_blend_epi32(_mm512_cmpeq_epi32_mask(e, k.zero), normal,
                                  _mm512_slli_epi32(abs, 1));
    sh = _mm512_set1_epi32(23);
    off = _mm512_sub_epi32(e, k.one);
  } else {
    const __m512i ee = _mm512_max_epi32(e, k.one);
    sig = _mm512_sub_epi32(abs,
                           _mm512_slli_epi32(_mm512_sub_epi32(ee, k.one), 23));
    sh = _mm512_min_epi32(
        _mm512_max_epi32(_mm512_sub_epi32(k.c_sh, ee), k.lo_sh), k.hi_sh);
    off = _mm512_sll_epi32(
        _mm512_max_epi32(_mm512_sub_epi32(ee, k.c_off), k.zero), k.mcount);
  }
  const __mmask16 neg =
      kSigned ? _mm512_cmplt_epi32_mask(x, k.zero) : __mmask16{0};
  __m512i n = _mm512_srlv_epi32(sig, sh);
  // The truncated encoding's last bit (E8M0: the exponent's parity; the
  // virtual zero below 2^-127 is even).
  const __m512i odd =
      E8 ? _mm512_maskz_and_epi32(_mm512_test_epi32_mask(n, n),
                                  _mm512_add_epi32(n, off), k.one)
         : _mm512_and_si512(n, k.one);
  if constexpr (M == Round::kRNE) {
    const __m512i halfm1 =
        _mm512_srlv_epi32(k.ones, _mm512_sub_epi32(k.s33, sh));
    n = _mm512_srlv_epi32(_mm512_add_epi32(_mm512_add_epi32(sig, halfm1), odd),
                          sh);
  } else if constexpr (M == Round::kRNA) {
    const __m512i half = _mm512_sllv_epi32(k.one, _mm512_sub_epi32(sh, k.one));
    n = _mm512_srlv_epi32(_mm512_add_epi32(sig, half), sh);
  } else if constexpr (M == Round::kRU || M == Round::kRD) {
    const __m512i mask = _mm512_srlv_epi32(k.ones, _mm512_sub_epi32(k.s32, sh));
    const __mmask16 up = M == Round::kRU ? static_cast<__mmask16>(~neg) : neg;
    n = _mm512_srlv_epi32(_mm512_mask_add_epi32(sig, up, sig, mask), sh);
  } else if constexpr (M == Round::kOdd) {
    const __m512i mask = _mm512_srlv_epi32(k.ones, _mm512_sub_epi32(k.s32, sh));
    const __mmask16 inexact = _mm512_test_epi32_mask(sig, mask);
    n = _mm512_add_epi32(n, _mm512_maskz_andnot_epi32(inexact, odd, k.one));
  }
  __m512i enc = _mm512_add_epi32(n, off);
  if constexpr (E8) enc = _mm512_max_epi32(enc, k.zero);
  const __mmask16 over = _mm512_cmpgt_epi32_mask(enc, k.max_enc);
  __m512i res = enc;
  if constexpr (kSigned) {
    res = _mm512_mask_or_epi32(res, neg, res, k.sign_bit);
    if constexpr (kRelu) res = _mm512_maskz_mov_epi32(~neg, res);
  }
  __m512i special =
      kSigned ? _mm512_mask_blend_epi32(neg, k.ovf0, k.ovf1) : k.ovf0;
  if constexpr (kInfDiff) {
    const __m512i inf =
        kSigned ? _mm512_mask_blend_epi32(neg, k.inf0, k.inf1) : k.inf0;
    special = _mm512_mask_blend_epi32(_mm512_cmpeq_epi32_mask(abs, k.exp_inf),
                                      special, inf);
  }
  res = _mm512_mask_blend_epi32(over, res, special);
  return _mm512_mask_blend_epi32(_mm512_cmpgt_epi32_mask(abs, k.exp_inf), res,
                                 k.nan);
}

// The FP-unit variant (RNE/RZ/RU/RD, not E8M0; `eight_fp` in
// convert_avx2.cpp): x * 2^(m - max(e, emin)) is exact, and the conversion
// to int32 rounds it in the IEEE mode kRound (embedded, no MXCSR change).
template <int kRound, bool kSigned, bool kRelu, bool kInfDiff>
MXC_AVX512 inline __m512i sixteen_fp(const K& k, __m512i x) {
  const __m512i abs = _mm512_and_si512(x, k.abs_mask);
  const __m512i eq =
      _mm512_max_epi32(_mm512_and_si512(x, k.exp_inf), k.emin_bits);
  const __m512i scale = _mm512_sub_epi32(k.scale_c, eq);
  const __m512 v = _mm512_castsi512_ps(kSigned ? x : abs);
  const __m512i n = _mm512_abs_epi32(_mm512_cvt_roundps_epi32(
      _mm512_mul_ps(v, _mm512_castsi512_ps(scale)), kRound));
  const __m512i off =
      _mm512_srl_epi32(_mm512_sub_epi32(eq, k.emin_bits), k.offcount);
  __m512i res = _mm512_min_epu32(_mm512_add_epi32(n, off), k.ovf0);
  if constexpr (kInfDiff) {
    res = _mm512_mask_blend_epi32(_mm512_cmpeq_epi32_mask(abs, k.exp_inf), res,
                                  k.inf0);
  }
  if constexpr (kSigned) {
    if constexpr (kRelu) {
      res = _mm512_maskz_mov_epi32(
          static_cast<__mmask16>(~_mm512_cmplt_epi32_mask(x, k.zero)), res);
    } else {
      res = _mm512_or_si512(
          res,
          _mm512_srl_epi32(_mm512_andnot_si512(k.abs_mask, x), k.signcount));
    }
  }
  return _mm512_mask_blend_epi32(_mm512_cmpgt_epi32_mask(abs, k.exp_inf), res,
                                 k.nan);
}

// Four vectors of results (each below 256) to 64 bytes in input order.
MXC_AVX512 inline void store64(const K& k, uint8_t* out, __m512i r0, __m512i r1,
                               __m512i r2, __m512i r3) {
  const __m512i b = _mm512_packus_epi16(_mm512_packs_epi32(r0, r1),
                                        _mm512_packs_epi32(r2, r3));
  _mm512_storeu_si512(out, _mm512_permutexvar_epi32(k.perm, b));
}

template <Round M, bool E8, bool kSigned, bool kRelu, bool kInfDiff>
MXC_AVX512 size_t kernel(const Plan& p, const uint32_t* in, uint8_t* out,
                         size_t n) {
  const K k = constants(p);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const uint32_t* s = in + i;
    store64(
        k, out + i,
        sixteen<M, E8, kSigned, kRelu, kInfDiff>(k, _mm512_loadu_si512(s)),
        sixteen<M, E8, kSigned, kRelu, kInfDiff>(k, _mm512_loadu_si512(s + 16)),
        sixteen<M, E8, kSigned, kRelu, kInfDiff>(k, _mm512_loadu_si512(s + 32)),
        sixteen<M, E8, kSigned, kRelu, kInfDiff>(k,
                                                 _mm512_loadu_si512(s + 48)));
  }
  return i;
}

template <int I, bool kSigned, bool kRelu, bool kInfDiff>
MXC_AVX512 size_t kernel_fp(const Plan& p, const uint32_t* in, uint8_t* out,
                            size_t n) {
  const K k = constants(p);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const uint32_t* s = in + i;
    store64(
        k, out + i,
        sixteen_fp<I, kSigned, kRelu, kInfDiff>(k, _mm512_loadu_si512(s)),
        sixteen_fp<I, kSigned, kRelu, kInfDiff>(k, _mm512_loadu_si512(s + 16)),
        sixteen_fp<I, kSigned, kRelu, kInfDiff>(k, _mm512_loadu_si512(s + 32)),
        sixteen_fp<I, kSigned, kRelu, kInfDiff>(k, _mm512_loadu_si512(s + 48)));
  }
  return i;
}

using KernelFn = size_t (*)(const Plan&, const uint32_t*, uint8_t*, size_t);

template <int I, bool kSigned>
KernelFn pick_fp3(bool relu, bool inf_diff) {
  if (relu) {
    return inf_diff ? kernel_fp<I, kSigned, kSigned, true>
                    : kernel_fp<I, kSigned, kSigned, false>;
  }
  return inf_diff ? kernel_fp<I, kSigned, false, true>
                  : kernel_fp<I, kSigned, false, false>;
}

template <int I>
KernelFn pick_fp2(const Plan& p, bool inf_diff) {
  if (!p.is_signed) return pick_fp3<I, false>(false, inf_diff);
  return pick_fp3<I, true>(p.relu, inf_diff);
}

using detail::fp_specials_fold;

KernelFn pick_fp(const Plan& p) {
  // E8M0 keeps the integer kernel: its scale near 2^127 would be subnormal.
  if (p.e8m0 || !fp_specials_fold(p)) return nullptr;
  const bool inf_diff = p.inf[0] != p.ovf[0];
  constexpr int kNoExc = _MM_FROUND_NO_EXC;
  switch (p.spec.mode) {
    case Round::kRNE:
      return pick_fp2<_MM_FROUND_TO_NEAREST_INT | kNoExc>(p, inf_diff);
    case Round::kRZ:
      return pick_fp2<_MM_FROUND_TO_ZERO | kNoExc>(p, inf_diff);
    case Round::kRU:
      return pick_fp2<_MM_FROUND_TO_POS_INF | kNoExc>(p, inf_diff);
    case Round::kRD:
      return pick_fp2<_MM_FROUND_TO_NEG_INF | kNoExc>(p, inf_diff);
    default:
      return nullptr;
  }
}

template <Round M, bool E8, bool kSigned>
KernelFn pick3(bool relu, bool inf_diff) {
  if (relu) {
    return inf_diff ? kernel<M, E8, kSigned, kSigned, true>
                    : kernel<M, E8, kSigned, kSigned, false>;
  }
  return inf_diff ? kernel<M, E8, kSigned, false, true>
                  : kernel<M, E8, kSigned, false, false>;
}

template <Round M>
KernelFn pick2(const Plan& p, bool inf_diff) {
  if (p.e8m0) return pick3<M, true, false>(false, inf_diff);
  if (!p.is_signed) return pick3<M, false, false>(false, inf_diff);
  return pick3<M, false, true>(p.relu, inf_diff);
}

KernelFn pick(const Plan& p) {
  if (const KernelFn f = pick_fp(p)) return f;
  const bool inf_diff = p.inf[0] != p.ovf[0] || p.inf[1] != p.ovf[1];
  switch (p.spec.mode) {
    case Round::kRNE:
      return pick2<Round::kRNE>(p, inf_diff);
    case Round::kRNA:
      return pick2<Round::kRNA>(p, inf_diff);
    case Round::kRZ:
      return pick2<Round::kRZ>(p, inf_diff);
    case Round::kRU:
      return pick2<Round::kRU>(p, inf_diff);
    case Round::kRD:
      return pick2<Round::kRD>(p, inf_diff);
    case Round::kOdd:
      return pick2<Round::kOdd>(p, inf_diff);
    case Round::kSR:
    case Round::kRNZ:  // not covered (convert_fast.cpp covers())
      break;
  }
  return nullptr;
}

}  // namespace

// The dedicated E8M0 kernel (convert_e8m0_avx512.cpp): false where the plan
// is not one it handles.
bool e8m0_avx512_run(const Plan& p, const uint32_t* in, uint8_t* out, size_t n);

bool avx512_run(const Plan& p, const uint32_t* in, uint8_t* out, size_t n) {
  if (p.e8m0 && e8m0_avx512_run(p, in, out, n)) return true;
  const KernelFn f = pick(p);
  if (f == nullptr) return false;
  const size_t done = f(p, in, out, n);
  // The tail (< 64 inputs) on AVX2 where it takes a block, else scalar.
  if (done < n && !avx2_run(p, in + done, out + done, n - done)) {
    for (size_t i = done; i < n; ++i) out[i] = run_plan_one(p, in[i]);
  }
  return true;
}

}  // namespace mxc::fast::detail

#pragma GCC diagnostic pop
