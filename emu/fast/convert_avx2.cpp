// The AVX2 path of emu/fast/convert_fast.cpp: the same integer formulation,
// eight lanes at a time, four vectors packed into 32 output bytes per step.
// Compiled with a per-function target attribute, so the library still runs
// on machines without AVX2 (best_isa() checks the CPU before calling here).
#include "emu/fast/convert_fast.h"

#include "emu/fast/isa.h"
#if !MXC_X86_KERNELS
#error "x86 kernel on a non-x86 target: see emu/fast/CMakeLists.txt"
#endif
#include <immintrin.h>

#define MXC_AVX2 MXC_TARGET_AVX2

namespace mxc::fast::detail {
namespace {

struct K {
  __m256i abs_mask, exp_inf, mant_mask, hidden, one, ones, zero, c_sh, lo_sh,
      hi_sh, c_off, max_enc, sign_bit, ovf0, ovf1, inf0, inf1, nan, s32, s33,
      perm, emin_bits, scale_c;
  __m128i mcount, offcount, signcount;
};

MXC_AVX2 K constants(const Plan& p) {
  K k;
  k.abs_mask = _mm256_set1_epi32(0x7FFFFFFF);
  k.exp_inf = _mm256_set1_epi32(0x7F800000);
  k.mant_mask = _mm256_set1_epi32(0x7FFFFF);
  k.hidden = _mm256_set1_epi32(0x800000);
  k.one = _mm256_set1_epi32(1);
  k.ones = _mm256_set1_epi32(-1);
  k.zero = _mm256_setzero_si256();
  k.c_sh = _mm256_set1_epi32(p.c_sh);
  k.lo_sh = _mm256_set1_epi32(23 - p.m);
  k.hi_sh = _mm256_set1_epi32(25);
  k.c_off = _mm256_set1_epi32(p.c_off);
  k.max_enc = _mm256_set1_epi32(p.max_enc);
  k.sign_bit = _mm256_set1_epi32(static_cast<int>(p.sign_bit));
  k.ovf0 = _mm256_set1_epi32(p.ovf[0]);
  k.ovf1 = _mm256_set1_epi32(p.ovf[1]);
  k.inf0 = _mm256_set1_epi32(p.inf[0]);
  k.inf1 = _mm256_set1_epi32(p.inf[1]);
  k.nan = _mm256_set1_epi32(p.nan);
  k.s32 = _mm256_set1_epi32(32);
  k.s33 = _mm256_set1_epi32(33);
  k.perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  k.mcount = _mm_cvtsi32_si128(p.m);
  // eight_fp: the least quantum's exponent field, and the bits of 2^m / 2^e
  // as C - (e's exponent field).
  const int emin = p.c_off - 127;  // target emin
  k.emin_bits = _mm256_set1_epi32(p.e8m0 ? 0 : (emin + 127) << 23);
  // (eight_fp is never used for E8M0; see pick_fp.)
  k.scale_c = _mm256_set1_epi32((254 + p.m) << 23);
  k.offcount = _mm_cvtsi32_si128(23 - p.m);
  k.signcount = _mm_cvtsi32_si128(32 - desc(p.to).bits);
  return k;
}

template <Round M, bool E8, bool kSigned, bool kRelu, bool kInfDiff>
MXC_AVX2 inline __m256i eight(const K& k, __m256i x) {
  const __m256i abs = _mm256_and_si256(x, k.abs_mask);
  const __m256i e = _mm256_srli_epi32(abs, 23);
  __m256i sig, sh, off;
  if constexpr (E8) {
    const __m256i normal =
        _mm256_or_si256(_mm256_and_si256(abs, k.mant_mask), k.hidden);
    sig = _mm256_blendv_epi8(normal, _mm256_slli_epi32(abs, 1),
                             _mm256_cmpeq_epi32(e, k.zero));
    sh = _mm256_set1_epi32(23);
    off = _mm256_sub_epi32(e, k.one);
  } else {
    const __m256i ee = _mm256_max_epi32(e, k.one);
    sig = _mm256_sub_epi32(abs,
                           _mm256_slli_epi32(_mm256_sub_epi32(ee, k.one), 23));
    sh = _mm256_min_epi32(
        _mm256_max_epi32(_mm256_sub_epi32(k.c_sh, ee), k.lo_sh), k.hi_sh);
    off = _mm256_sll_epi32(
        _mm256_max_epi32(_mm256_sub_epi32(ee, k.c_off), k.zero), k.mcount);
  }
  const __m256i neg = kSigned ? _mm256_srai_epi32(x, 31) : k.zero;
  __m256i n = _mm256_srlv_epi32(sig, sh);
  // The truncated encoding's last bit (E8M0: the exponent's parity; the
  // virtual zero below 2^-127 is even).
  const __m256i odd =
      E8 ? _mm256_andnot_si256(
               _mm256_cmpeq_epi32(n, k.zero),
               _mm256_and_si256(_mm256_add_epi32(n, off), k.one))
         : _mm256_and_si256(n, k.one);
  if constexpr (M == Round::kRNE) {
    const __m256i halfm1 =
        _mm256_srlv_epi32(k.ones, _mm256_sub_epi32(k.s33, sh));
    n = _mm256_srlv_epi32(
        _mm256_add_epi32(_mm256_add_epi32(sig, halfm1), odd), sh);
  } else if constexpr (M == Round::kRNA) {
    const __m256i half = _mm256_sllv_epi32(k.one, _mm256_sub_epi32(sh, k.one));
    n = _mm256_srlv_epi32(_mm256_add_epi32(sig, half), sh);
  } else if constexpr (M == Round::kRU || M == Round::kRD) {
    const __m256i mask = _mm256_srlv_epi32(k.ones, _mm256_sub_epi32(k.s32, sh));
    const __m256i add = M == Round::kRU ? _mm256_andnot_si256(neg, mask)
                                        : _mm256_and_si256(neg, mask);
    n = _mm256_srlv_epi32(_mm256_add_epi32(sig, add), sh);
  } else if constexpr (M == Round::kOdd) {
    const __m256i mask = _mm256_srlv_epi32(k.ones, _mm256_sub_epi32(k.s32, sh));
    const __m256i inexact = _mm256_andnot_si256(
        _mm256_cmpeq_epi32(_mm256_and_si256(sig, mask), k.zero), k.one);
    n = _mm256_add_epi32(n, _mm256_andnot_si256(odd, inexact));
  }
  __m256i enc = _mm256_add_epi32(n, off);
  if constexpr (E8) enc = _mm256_max_epi32(enc, k.zero);
  const __m256i over = _mm256_cmpgt_epi32(enc, k.max_enc);
  __m256i res = enc;
  if constexpr (kSigned) {
    res = _mm256_or_si256(res, _mm256_and_si256(neg, k.sign_bit));
    if constexpr (kRelu) res = _mm256_andnot_si256(neg, res);
  }
  __m256i special = kSigned ? _mm256_blendv_epi8(k.ovf0, k.ovf1, neg) : k.ovf0;
  if constexpr (kInfDiff) {
    const __m256i inf = kSigned ? _mm256_blendv_epi8(k.inf0, k.inf1, neg)
                                : k.inf0;
    special =
        _mm256_blendv_epi8(special, inf, _mm256_cmpeq_epi32(abs, k.exp_inf));
  }
  res = _mm256_blendv_epi8(res, special, over);
  return _mm256_blendv_epi8(res, k.nan, _mm256_cmpgt_epi32(abs, k.exp_inf));
}

template <Round M, bool E8, bool kSigned, bool kRelu, bool kInfDiff>
MXC_AVX2 size_t kernel(const Plan& p, const uint32_t* in, uint8_t* out,
                       size_t n) {
  const K k = constants(p);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const auto* src = reinterpret_cast<const __m256i*>(in + i);
    const __m256i r0 = eight<M, E8, kSigned, kRelu, kInfDiff>(k, _mm256_loadu_si256(src + 0));
    const __m256i r1 = eight<M, E8, kSigned, kRelu, kInfDiff>(k, _mm256_loadu_si256(src + 1));
    const __m256i r2 = eight<M, E8, kSigned, kRelu, kInfDiff>(k, _mm256_loadu_si256(src + 2));
    const __m256i r3 = eight<M, E8, kSigned, kRelu, kInfDiff>(k, _mm256_loadu_si256(src + 3));
    const __m256i b = _mm256_packus_epi16(_mm256_packs_epi32(r0, r1),
                                          _mm256_packs_epi32(r2, r3));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_permutevar8x32_epi32(b, k.perm));
  }
  return i;
}

using KernelFn = size_t (*)(const Plan&, const uint32_t*, uint8_t*, size_t);

// The FP-unit variant for RNE/RZ/RU/RD (every target but E8M0): x * 2^(m - max(e, emin)) is exact and lands in
// [0, 2^(m+1)]; _mm256_round_ps rounds it to an integer in the IEEE mode
// (on the signed value, so RU/RD act on the right side); the encoding is
// that integer plus the exponent offset. Specials fold into one unsigned
// min when the overflow result is max or max+1 (true for every policy here
// but relu; make_plan checks), Inf/NaN lanes give huge integers there.
template <int kRoundImm, bool E8, bool kSigned, bool kRelu, bool kInfDiff>
MXC_AVX2 inline __m256i eight_fp(const K& k, __m256i x) {
  const __m256i abs = _mm256_and_si256(x, k.abs_mask);
  const __m256i eq = _mm256_max_epi32(_mm256_and_si256(x, k.exp_inf),
                                      k.emin_bits);
  const __m256i scale = _mm256_sub_epi32(k.scale_c, eq);
  const __m256 v = _mm256_castsi256_ps(kSigned ? x : abs);
  const __m256 y = _mm256_round_ps(
      _mm256_mul_ps(v, _mm256_castsi256_ps(scale)), kRoundImm);
  __m256i n = _mm256_abs_epi32(_mm256_cvtps_epi32(y));
  static_assert(!E8, "E8M0 uses the integer kernel");
  const __m256i off =
      _mm256_srl_epi32(_mm256_sub_epi32(eq, k.emin_bits), k.offcount);
  __m256i res = _mm256_min_epu32(_mm256_add_epi32(n, off), k.ovf0);
  if constexpr (kInfDiff) {
    res = _mm256_blendv_epi8(res, k.inf0, _mm256_cmpeq_epi32(abs, k.exp_inf));
  }
  if constexpr (kSigned) {
    if constexpr (kRelu) {
      res = _mm256_andnot_si256(_mm256_srai_epi32(x, 31), res);
    } else {
      res = _mm256_or_si256(
          res, _mm256_srl_epi32(_mm256_andnot_si256(k.abs_mask, x),
                                k.signcount));
    }
  }
  return _mm256_blendv_epi8(res, k.nan, _mm256_cmpgt_epi32(abs, k.exp_inf));
}

template <int kRoundImm, bool E8, bool kSigned, bool kRelu, bool kInfDiff>
MXC_AVX2 size_t kernel_fp(const Plan& p, const uint32_t* in, uint8_t* out,
                          size_t n) {
  const K k = constants(p);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const auto* src = reinterpret_cast<const __m256i*>(in + i);
    const __m256i r0 =
        eight_fp<kRoundImm, E8, kSigned, kRelu, kInfDiff>(k, _mm256_loadu_si256(src));
    const __m256i r1 = eight_fp<kRoundImm, E8, kSigned, kRelu, kInfDiff>(
        k, _mm256_loadu_si256(src + 1));
    const __m256i r2 = eight_fp<kRoundImm, E8, kSigned, kRelu, kInfDiff>(
        k, _mm256_loadu_si256(src + 2));
    const __m256i r3 = eight_fp<kRoundImm, E8, kSigned, kRelu, kInfDiff>(
        k, _mm256_loadu_si256(src + 3));
    const __m256i b = _mm256_packus_epi16(_mm256_packs_epi32(r0, r1),
                                          _mm256_packs_epi32(r2, r3));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_permutevar8x32_epi32(b, k.perm));
  }
  return i;
}

template <int I, bool E8, bool kSigned>
KernelFn pick_fp3(bool relu, bool inf_diff) {
  if (relu) {
    return inf_diff ? kernel_fp<I, E8, kSigned, kSigned, true>
                    : kernel_fp<I, E8, kSigned, kSigned, false>;
  }
  return inf_diff ? kernel_fp<I, E8, kSigned, false, true>
                  : kernel_fp<I, E8, kSigned, false, false>;
}

template <int I>
KernelFn pick_fp2(const Plan& p, bool inf_diff) {
  if (!p.is_signed) return pick_fp3<I, false, false>(false, inf_diff);
  return pick_fp3<I, false, true>(p.relu, inf_diff);
}

using detail::fp_specials_fold;

KernelFn pick_fp(const Plan& p) {
  // E8M0 keeps the integer kernel: near 2^127 its scale 2^-127 would be
  // subnormal, which the exponent-field arithmetic cannot form.
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

bool avx2_run(const Plan& p, const uint32_t* in, uint8_t* out, size_t n) {
  const KernelFn f = pick(p);
  if (f == nullptr) return false;
  const size_t done = f(p, in, out, n);
  for (size_t i = done; i < n; ++i) out[i] = run_plan_one(p, in[i]);
  return true;
}

}  // namespace mxc::fast::detail

