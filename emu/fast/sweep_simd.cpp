// The run kernel of the sweep (detail::BinadeRun, emu/fast/sweep.h) on
// AVX2 (8 lanes) and AVX-512 F+BW (16 lanes). Per vector: u = sig + addend
// advances by one add, the rounded quotient is u >> sh (RNE as round half
// up, odd as floor | 1, both patched afterwards at the one input in 2^sh
// where they differ: a tie, an exact quotient); four vectors pack to bytes
// (saturating packs; every quotient is below 256), then one byte add of
// the run's base code and a psadbw for the checksum. Per-function target
// attributes; sweep_range calls these only after isa_supported().
#include "emu/fast/isa.h"
#include "emu/fast/sweep.h"
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

#define MXC_AVX2 MXC_TARGET_AVX2
#define MXC_AVX512 MXC_TARGET_AVX512

namespace mxc::fast::detail {
namespace {

// Lane j of vector q (0..3) takes input 16 (j / 4) + 4 q + j % 4 of each
// block, so that the two packs (which interleave 128-bit lanes) leave the
// bytes in input order.
constexpr int lane_offset(int q, int j) { return 16 * (j / 4) + 4 * q + j % 4; }

// After the vector pass: the inputs with sig = res (mod 2^sh) get q, and
// the byte sum follows.
uint64_t patch(const BinadeRun& r, uint8_t* out, size_t n, uint64_t sum) {
  if (r.kind == BinadeRun::kAdd) return sum;
  const uint32_t res = r.kind == BinadeRun::kRne ? 1u << (r.sh - 1) : 0u;
  const size_t period = size_t{1} << r.sh;
  for (size_t i = (res - r.sig0) & (period - 1); i < n; i += period) {
    const auto v = static_cast<uint8_t>(
        binade_round(r, static_cast<uint32_t>(i)) + r.base);
    sum = sum - out[i] + v;
    out[i] = v;
  }
  return sum;
}

uint32_t vector_addend(const BinadeRun& r) {
  switch (r.kind) {
    case BinadeRun::kAdd:
      return r.a;
    case BinadeRun::kRne:
      return 1u << (r.sh - 1);  // round half up; ties patched
    case BinadeRun::kOdd:
      break;  // (sig >> sh) | 1; exact inputs patched
  }
  return 0;
}

// The rest of the run (< one block) exactly, then the patches.
uint64_t finish(const BinadeRun& r, uint8_t* out, size_t done, size_t n,
                uint64_t sum) {
  BinadeRun rest = r;
  rest.sig0 += static_cast<uint32_t>(done);
  return patch(r, out, done, sum) + binade_scalar(rest, out + done, n - done);
}

template <bool kOr1>
MXC_AVX2 uint64_t run8(const BinadeRun& r, uint8_t* out, size_t n) {
  const __m128i sh = _mm_cvtsi32_si128(static_cast<int>(r.sh));
  const __m256i step = _mm256_set1_epi32(32);
  const __m256i base = _mm256_set1_epi8(static_cast<char>(r.base));
  const __m256i one = _mm256_set1_epi8(1);
  const __m256i u0 =
      _mm256_set1_epi32(static_cast<int>(r.sig0 + vector_addend(r)));
  __m256i u[4];
  for (int q = 0; q < 4; ++q) {
    u[q] = _mm256_add_epi32(
        u0, _mm256_setr_epi32(lane_offset(q, 0), lane_offset(q, 1),
                              lane_offset(q, 2), lane_offset(q, 3),
                              lane_offset(q, 4), lane_offset(q, 5),
                              lane_offset(q, 6), lane_offset(q, 7)));
  }
  __m256i acc = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i r0 = _mm256_srl_epi32(u[0], sh);
    const __m256i r1 = _mm256_srl_epi32(u[1], sh);
    const __m256i r2 = _mm256_srl_epi32(u[2], sh);
    const __m256i r3 = _mm256_srl_epi32(u[3], sh);
    for (auto& v : u) v = _mm256_add_epi32(v, step);
    __m256i b = _mm256_packus_epi16(_mm256_packus_epi32(r0, r1),
                                    _mm256_packus_epi32(r2, r3));
    if constexpr (kOr1) b = _mm256_or_si256(b, one);
    b = _mm256_add_epi8(b, base);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), b);
    acc = _mm256_add_epi64(acc, _mm256_sad_epu8(b, _mm256_setzero_si256()));
  }
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  return finish(r, out, i, n, lanes[0] + lanes[1] + lanes[2] + lanes[3]);
}

template <bool kOr1>
MXC_AVX512 uint64_t run16(const BinadeRun& r, uint8_t* out, size_t n) {
  const __m128i sh = _mm_cvtsi32_si128(static_cast<int>(r.sh));
  const __m512i step = _mm512_set1_epi32(64);
  const __m512i base = _mm512_set1_epi8(static_cast<char>(r.base));
  const __m512i one = _mm512_set1_epi8(1);
  const __m512i u0 =
      _mm512_set1_epi32(static_cast<int>(r.sig0 + vector_addend(r)));
  __m512i u[4];
  for (int q = 0; q < 4; ++q) {
    alignas(64) int32_t off[16];
    for (int j = 0; j < 16; ++j) off[j] = lane_offset(q, j);
    u[q] = _mm512_add_epi32(u0, _mm512_load_si512(off));
  }
  __m512i acc = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i r0 = _mm512_srl_epi32(u[0], sh);
    const __m512i r1 = _mm512_srl_epi32(u[1], sh);
    const __m512i r2 = _mm512_srl_epi32(u[2], sh);
    const __m512i r3 = _mm512_srl_epi32(u[3], sh);
    for (auto& v : u) v = _mm512_add_epi32(v, step);
    __m512i b = _mm512_packus_epi16(_mm512_packus_epi32(r0, r1),
                                    _mm512_packus_epi32(r2, r3));
    if constexpr (kOr1) b = _mm512_or_si512(b, one);
    b = _mm512_add_epi8(b, base);
    _mm512_storeu_si512(out + i, b);
    acc = _mm512_add_epi64(acc, _mm512_sad_epu8(b, _mm512_setzero_si512()));
  }
  return finish(r, out, i, n,
                static_cast<uint64_t>(_mm512_reduce_add_epi64(acc)));
}

}  // namespace

uint64_t binade_avx2(const BinadeRun& r, uint8_t* out, size_t n) {
  return r.kind == BinadeRun::kOdd ? run8<true>(r, out, n)
                                   : run8<false>(r, out, n);
}

uint64_t binade_avx512(const BinadeRun& r, uint8_t* out, size_t n) {
  return r.kind == BinadeRun::kOdd ? run16<true>(r, out, n)
                                   : run16<false>(r, out, n);
}

}  // namespace mxc::fast::detail

#pragma GCC diagnostic pop
