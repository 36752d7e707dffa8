// The AVX-512 kernel of the batched GEMM path (emu/fast/gemm_fast_impl.h):
// 16 output columns per vector, one 32-bit lane each. Per function target
// attributes; gemm_fast.cpp calls it only when the CPU has AVX-512 F, BW,
// CD, DQ and VL. Lanes whose rounding is not the common normal-binary32 RZ
// case, and every lane under RNE-FP16, finish through finish_lane (the
// scalar path: detail::finish_sum, hence fdpa_round_sum).
// GCC 12 reports its own AVX-512 intrinsics' _mm512_undefined_* operands as
// maybe-uninitialized once inlined (GCC bug 105593); nothing here reads one.
#pragma GCC diagnostic push
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <climits>

#include "emu/fast/isa.h"
#if !MXC_X86_KERNELS
#error "x86 kernel on a non-x86 target: see emu/fast/CMakeLists.txt"
#endif

#include "emu/fast/gemm_fast_impl.h"

namespace mxc::fast::gemm_detail {
namespace {

#define MXC_AVX512 MXC_TARGET_AVX512

// The addend lanes (c_fmt bits), as fdpa.cpp's read() decodes them.
struct AddendV {
  __m512i sig, exp, eff;  // eff: the alignment exponent (e_zero if zero)
  __mmask16 special, nonzero, neg;
};

MXC_AVX512 AddendV read_addend(const GemmPlan& p, __m512i c) {
  const int32_t emask = (1 << p.c_ebits) - 1, fmask = (1 << p.c_frac) - 1;
  const __m512i e = _mm512_and_si512(_mm512_srli_epi32(c, p.c_frac),
                                     _mm512_set1_epi32(emask));
  AddendV a;
  a.special = _mm512_cmpeq_epi32_mask(e, _mm512_set1_epi32(emask));
  const __mmask16 normal = _mm512_test_epi32_mask(e, e);
  a.sig = _mm512_mask_or_epi32(_mm512_and_si512(c, _mm512_set1_epi32(fmask)),
                               normal,
                               _mm512_and_si512(c, _mm512_set1_epi32(fmask)),
                               _mm512_set1_epi32(fmask + 1));
  a.exp = _mm512_mask_sub_epi32(_mm512_set1_epi32(1 - p.c_bias), normal, e,
                                _mm512_set1_epi32(p.c_bias));
  a.nonzero = _mm512_test_epi32_mask(a.sig, a.sig);
  a.eff = _mm512_mask_mov_epi32(_mm512_set1_epi32(p.e_zero), a.nonzero, a.exp);
  a.neg =
      _mm512_test_epi32_mask(c, _mm512_set1_epi32(1 << (p.c_frac + p.c_ebits)));
  return a;
}

MXC_AVX512 inline __m512i lo64(__m512i x) {
  return _mm512_cvtepi32_epi64(_mm512_castsi512_si256(x));
}
MXC_AVX512 inline __m512i hi64(__m512i x) {
  return _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(x, 1));
}

// floor(mag * 2^sh) per 64-bit lane, mag >= 0, from 32-bit shift counts.
MXC_AVX512 inline __m512i shift64(__m512i mag, __m512i sh) {
  const __m512i z = _mm512_setzero_si512();
  return _mm512_srlv_epi64(_mm512_sllv_epi64(mag, _mm512_max_epi64(sh, z)),
                           _mm512_max_epi64(_mm512_sub_epi64(z, sh), z));
}

// The addend's aligned term (both halves, signed) for e_max `emax`.
MXC_AVX512 void addend_terms(const GemmPlan& p, const AddendV& a, __m512i emax,
                             __m512i& s_lo, __m512i& s_hi) {
  const __m512i sh = _mm512_sub_epi32(_mm512_set1_epi32(p.F - p.c_frac),
                                      _mm512_sub_epi32(emax, a.exp));
  const __m512i z = _mm512_setzero_si512();
  __m512i lo = shift64(lo64(a.sig), lo64(sh));
  __m512i hi = shift64(hi64(a.sig), hi64(sh));
  lo = _mm512_mask_sub_epi64(lo, static_cast<__mmask8>(a.neg), z, lo);
  hi = _mm512_mask_sub_epi64(hi, static_cast<__mmask8>(a.neg >> 8), z, hi);
  s_lo = lo;
  s_hi = hi;
}

// Normal binary32 results under RZ (RZ-FP32, RZ-E8M13), as
// detail::finish_sum packs them; `ok` marks those lanes.
MXC_AVX512 __m256i pack_rz(const GemmPlan& p, __m512i S, __m512i q,
                           __mmask8& ok) {
  const __m512i z = _mm512_setzero_si512();
  const __mmask8 neg = _mm512_cmplt_epi64_mask(S, z);
  const __m512i mag = _mm512_abs_epi64(S);
  const __m512i bw =
      _mm512_sub_epi64(_mm512_set1_epi64(64), _mm512_lzcnt_epi64(mag));
  const __m512i top =
      _mm512_add_epi64(q, _mm512_sub_epi64(bw, _mm512_set1_epi64(1)));
  ok = _mm512_test_epi64_mask(S, S) &
       _mm512_cmpge_epi64_mask(top, _mm512_set1_epi64(-126)) &
       _mm512_cmple_epi64_mask(top, _mm512_set1_epi64(127));
  const __m512i l =
      _mm512_max_epi64(_mm512_sub_epi64(_mm512_set1_epi64(24), bw), z);
  const __m512i r =
      _mm512_max_epi64(_mm512_sub_epi64(bw, _mm512_set1_epi64(24)), z);
  const __m512i m24 = _mm512_srlv_epi64(_mm512_sllv_epi64(mag, l), r);
  __m512i bits = _mm512_or_si512(
      _mm512_slli_epi64(_mm512_add_epi64(top, _mm512_set1_epi64(127)), 23),
      _mm512_and_si512(m24, _mm512_set1_epi64(0x7FFFFF)));
  if (p.rho == AccRound::kRzE8M13)
    bits = _mm512_andnot_si512(_mm512_set1_epi64(0x3FF), bits);
  bits = _mm512_mask_or_epi64(bits, neg, bits, _mm512_set1_epi64(0x80000000));
  return _mm512_cvtepi64_epi32(bits);
}

// The chunk's end for all lanes: c = round(S * 2^q); lanes the vector pack
// leaves go through finish_lane. Returns the lanes that need the reference.
MXC_AVX512 __mmask16 finish(const GemmPlan& p, __m512i s_lo, __m512i s_hi,
                            __m512i q32, __mmask16 any_nz, __mmask16 bad,
                            __m512i& c) {
  __mmask16 ok = 0;
  if (p.rho != AccRound::kRneF16) {
    __mmask8 ok_lo = 0, ok_hi = 0;
    const __m256i b_lo = pack_rz(p, s_lo, lo64(q32), ok_lo);
    const __m256i b_hi = pack_rz(p, s_hi, hi64(q32), ok_hi);
    ok = static_cast<__mmask16>(ok_lo | (ok_hi << 8));
    c = _mm512_mask_mov_epi32(
        c, ok, _mm512_inserti64x4(_mm512_castsi256_si512(b_lo), b_hi, 1));
  }
  const __mmask16 rest = static_cast<__mmask16>(~ok & ~bad);
  if (rest == 0) return 0;
  alignas(64) int64_t S[kLanes];
  alignas(64) int32_t q[kLanes];
  alignas(64) uint32_t out[kLanes];
  _mm512_store_si512(S, s_lo);
  _mm512_store_si512(S + 8, s_hi);
  _mm512_store_si512(q, q32);
  _mm512_store_si512(out, c);
  __mmask16 newbad = 0;
  for (int lane = 0; lane < kLanes; ++lane) {
    if (((rest >> lane) & 1) == 0) continue;
    if (!finish_lane(p, S[lane], q[lane], ((any_nz >> lane) & 1) != 0,
                     out[lane]))
      newbad = static_cast<__mmask16>(newbad | (1u << lane));
  }
  c = _mm512_load_si512(out);
  return newbad;
}

MXC_AVX512 uint32_t block_t(const GemmPlan& p, size_t m, size_t nb,
                            uint32_t* cio) {
  const size_t K = p.K, L = static_cast<size_t>(p.L);
  const __m512i z = _mm512_setzero_si512();
  __m512i c = _mm512_loadu_si512(cio);
  __mmask16 bad = 0;
  for (size_t j = 0; j < p.chunks; ++j) {
    const size_t k0 = j * L;
    bad = static_cast<__mmask16>(bad | p.b_bad[nb * p.chunks + j] |
                                 (p.a_bad[m * p.chunks + j] != 0 ? 0xFFFF : 0));
    const __mmask16 any_zero =
        static_cast<__mmask16>(p.b_zero[nb * p.chunks + j] |
                               (p.a_zero[m * p.chunks + j] != 0 ? 0xFFFF : 0));
    const int32_t* av = &p.a_val[m * K + k0];
    const int32_t* ae = &p.a_exp[m * K + k0];
    const int32_t* bv = &p.b_val[(nb * K + k0) * kLanes];
    const int32_t* be = &p.b_exp[(nb * K + k0) * kLanes];
    // e_max over the products (zero products: below kNonzeroMin).
    __m512i emax = _mm512_set1_epi32(INT32_MIN / 2);
    for (size_t k = 0; k < L; ++k) {
      const __m512i e = _mm512_add_epi32(_mm512_set1_epi32(ae[k]),
                                         _mm512_loadu_si512(be + k * kLanes));
      emax = _mm512_max_epi32(emax, e);
    }
    const AddendV a = read_addend(p, c);
    bad = static_cast<__mmask16>(bad | a.special);
    const __mmask16 any_nz = static_cast<__mmask16>(
        _mm512_cmpgt_epi32_mask(emax, _mm512_set1_epi32(kNonzeroMin)) |
        a.nonzero);
    emax = _mm512_mask_max_epi32(emax, any_zero, emax,
                                 _mm512_set1_epi32(p.e_zero));
    emax = _mm512_max_epi32(emax, a.eff);
    // Aligned, truncated products: two int32 accumulators (k even / odd).
    __m512i acc0 = z, acc1 = z;
    size_t k = 0;
    for (; k + 1 < L; k += 2) {
      for (int h = 0; h < 2; ++h) {
        const size_t kk = k + static_cast<size_t>(h);
        const __m512i prod = _mm512_mullo_epi32(
            _mm512_set1_epi32(av[kk]), _mm512_loadu_si512(bv + kk * kLanes));
        const __m512i e = _mm512_add_epi32(
            _mm512_set1_epi32(ae[kk]), _mm512_loadu_si512(be + kk * kLanes));
        __m512i v = _mm512_srlv_epi32(_mm512_abs_epi32(prod),
                                      _mm512_sub_epi32(emax, e));
        v = _mm512_mask_sub_epi32(v, _mm512_movepi32_mask(prod), z, v);
        if (h == 0) {
          acc0 = _mm512_add_epi32(acc0, v);
        } else {
          acc1 = _mm512_add_epi32(acc1, v);
        }
      }
    }
    if (k < L) {
      const __m512i prod = _mm512_mullo_epi32(
          _mm512_set1_epi32(av[k]), _mm512_loadu_si512(bv + k * kLanes));
      const __m512i e = _mm512_add_epi32(_mm512_set1_epi32(ae[k]),
                                         _mm512_loadu_si512(be + k * kLanes));
      __m512i v =
          _mm512_srlv_epi32(_mm512_abs_epi32(prod), _mm512_sub_epi32(emax, e));
      v = _mm512_mask_sub_epi32(v, _mm512_movepi32_mask(prod), z, v);
      acc0 = _mm512_add_epi32(acc0, v);
    }
    __m512i s_lo, s_hi;
    addend_terms(p, a, emax, s_lo, s_hi);
    s_lo = _mm512_add_epi64(s_lo, _mm512_add_epi64(lo64(acc0), lo64(acc1)));
    s_hi = _mm512_add_epi64(s_hi, _mm512_add_epi64(hi64(acc0), hi64(acc1)));
    const __m512i q = _mm512_sub_epi32(emax, _mm512_set1_epi32(p.F));
    bad =
        static_cast<__mmask16>(bad | finish(p, s_lo, s_hi, q, any_nz, bad, c));
  }
  _mm512_storeu_si512(cio, c);
  return bad;
}

MXC_AVX512 uint32_t block_gst(const GemmPlan& p, size_t m, size_t nb,
                              uint32_t* cio) {
  const size_t G = static_cast<size_t>(p.G), ng = static_cast<size_t>(p.L) / G;
  const size_t K2 = p.K / 2, KG = p.K / G;
  const __m512i z = _mm512_setzero_si512();
  __m512i c = _mm512_loadu_si512(cio);
  __mmask16 bad = 0;
  __m512i gmag[64], gexp[64];
  __mmask16 gneg[64];
  for (size_t j = 0; j < p.chunks; ++j) {
    bad = static_cast<__mmask16>(bad | p.b_bad[nb * p.chunks + j] |
                                 (p.a_bad[m * p.chunks + j] != 0 ? 0xFFFF : 0));
    const AddendV a = read_addend(p, c);
    bad = static_cast<__mmask16>(bad | a.special);
    __m512i emax = a.eff;
    __mmask16 any_nz = a.nonzero;
    for (size_t g = 0; g < ng; ++g) {
      const size_t gi = j * ng + g, t0 = gi * G / 2;
      const int32_t* ap = &p.a_pair[m * K2 + t0];
      const int32_t* ai = &p.a_ind[m * K2 + t0];
      const int32_t* bp = &p.b_pair[(nb * K2 + t0) * kLanes];
      const int32_t* bi = &p.b_ind[(nb * K2 + t0) * kLanes];
      __m512i sum = z, nz = z;
      for (size_t t = 0; t < G / 2; ++t) {
        sum = _mm512_add_epi32(
            sum, _mm512_madd_epi16(_mm512_set1_epi32(ap[t]),
                                   _mm512_loadu_si512(bp + t * kLanes)));
        // nz |= a_ind & b_ind
        nz = _mm512_ternarylogic_epi32(nz, _mm512_set1_epi32(ai[t]),
                                       _mm512_loadu_si512(bi + t * kLanes),
                                       0xF8);
      }
      const __m512i ssig = _mm512_mullo_epi32(
          _mm512_set1_epi32(p.a_ssig[m * KG + gi]),
          _mm512_loadu_si512(&p.b_ssig[(nb * KG + gi) * kLanes]));
      const __m512i se = _mm512_add_epi32(
          _mm512_set1_epi32(p.a_sexp[m * KG + gi]),
          _mm512_loadu_si512(&p.b_sexp[(nb * KG + gi) * kLanes]));
      const __mmask16 nonzero = static_cast<__mmask16>(
          _mm512_test_epi32_mask(nz, nz) & _mm512_test_epi32_mask(ssig, ssig));
      gneg[g] = _mm512_movepi32_mask(sum);
      gmag[g] = _mm512_mullo_epi32(_mm512_abs_epi32(sum), ssig);
      gexp[g] = se;
      emax = _mm512_max_epi32(
          emax,
          _mm512_mask_mov_epi32(_mm512_set1_epi32(p.e_zero), nonzero, se));
      any_nz = static_cast<__mmask16>(any_nz | nonzero);
    }
    __m512i s_lo, s_hi;
    addend_terms(p, a, emax, s_lo, s_hi);
    const __m512i s0 = _mm512_set1_epi64(p.s0);
    for (size_t g = 0; g < ng; ++g) {
      // (mag << s0) >> (e_max - e); a zero group has mag 0.
      const __m512i d = _mm512_sub_epi32(emax, gexp[g]);
      __m512i lo = _mm512_srlv_epi64(
          _mm512_sllv_epi64(
              _mm512_cvtepu32_epi64(_mm512_castsi512_si256(gmag[g])), s0),
          lo64(d));
      __m512i hi = _mm512_srlv_epi64(
          _mm512_sllv_epi64(
              _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(gmag[g], 1)), s0),
          hi64(d));
      lo = _mm512_mask_sub_epi64(lo, static_cast<__mmask8>(gneg[g]), z, lo);
      hi =
          _mm512_mask_sub_epi64(hi, static_cast<__mmask8>(gneg[g] >> 8), z, hi);
      s_lo = _mm512_add_epi64(s_lo, lo);
      s_hi = _mm512_add_epi64(s_hi, hi);
    }
    const __m512i q = _mm512_sub_epi32(emax, _mm512_set1_epi32(p.F));
    bad =
        static_cast<__mmask16>(bad | finish(p, s_lo, s_hi, q, any_nz, bad, c));
  }
  _mm512_storeu_si512(cio, c);
  return bad;
}

}  // namespace

uint32_t block_avx512(const GemmPlan& p, size_t m, size_t nb, uint32_t* c) {
  return p.gst ? block_gst(p, m, nb, c) : block_t(p, m, nb, c);
}

}  // namespace mxc::fast::gemm_detail
