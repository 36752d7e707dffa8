// The CDNA1/2 pairwise datapath (Datapath::kF32Pairwise, gemm_amd.cpp) in
// vector lanes, one Highway source for every target: a lane is an output
// row m (D and C are column-major, n * M + m), A is transposed so that one
// load holds Lanes rows at one k, B's value is a scalar broadcast. Each
// step is the scalar kernel's binary32 operation lane by lane (IEEE RNE
// multiply and add, no contraction: -ffp-contract=off; no FTZ/DAZ), the
// same product rule (an exact zero operand gives +0), the same flushes
// (ftz: a zero exponent field keeps only the sign), the same tree order
// (halves n / 2 and n - n / 2) and the canonical NaN after each chunk.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/gemm_amd_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <bit>
#include <cstddef>
#include <cstdint>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::gemm_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DU = hn::ScalableTag<uint32_t>;
using DF = hn::RebindToFloat<DU>;
using VU = hn::Vec<DU>;

HWY_INLINE VU Flush(bool ftz, VU x) {
  if (!ftz) return x;
  const DU d;
  return hn::IfThenElse(
      hn::Eq(hn::And(x, hn::Set(d, 0x7F800000u)), hn::Zero(d)),
      hn::And(x, hn::Set(d, 0x80000000u)), x);
}

// The tree over products lo .. lo + n - 1 (vector i at buf + i * Lanes).
VU Tree(const uint32_t* buf, size_t lo, size_t n, bool ftz) {
  const DU d;
  const DF df;
  if (n == 1) return hn::Load(d, buf + lo * hn::Lanes(d));
  const size_t h = n / 2;
  const auto s = hn::Add(hn::BitCast(df, Tree(buf, lo, h, ftz)),
                         hn::BitCast(df, Tree(buf, lo + h, n - h, ftz)));
  return Flush(ftz, hn::BitCast(d, s));
}

// Rows m0 .. m0 + Lanes - 1 of column n: at[k * M + m] (A as f32 bits,
// transposed), bn[k] (column n of B), c[m] (column n of C as f32 bits);
// D's f32 bits into out[m].
void PairwiseRows(const uint32_t* at, size_t M, const uint32_t* bn, size_t K,
                  size_t L, bool ftz, uint32_t nan, const uint32_t* c,
                  size_t m0, uint32_t* out, uint32_t* buf) {
  const DU d;
  const DF df;
  const size_t N = hn::Lanes(d);
  const VU abs = hn::Set(d, 0x7FFFFFFFu), zero = hn::Zero(d);
  // Product k (flushed): fmaf(a, b, +0), an exact zero product is +0.
  const auto product = [&](size_t k) HWY_ATTR {
    const uint32_t y = bn[k];
    if ((y & 0x7FFFFFFFu) == 0) return zero;
    const VU x = hn::LoadU(d, at + k * M + m0);
    const auto p =
        hn::Mul(hn::BitCast(df, x), hn::Set(df, std::bit_cast<float>(y)));
    return Flush(ftz, hn::IfThenZeroElse(hn::Eq(hn::And(x, abs), zero),
                                         hn::BitCast(d, p)));
  };
  const auto add = [&](VU u, VU v) HWY_ATTR {
    return Flush(
        ftz, hn::BitCast(d, hn::Add(hn::BitCast(df, u), hn::BitCast(df, v))));
  };
  VU acc = hn::LoadU(d, c + m0);
  for (size_t k0 = 0; k0 < K; k0 += L) {
    VU g;
    if (L == 4) {  // CDNA1/2 f16, CDNA2 bf16: halves 2 and 2
      g = add(add(product(k0), product(k0 + 1)),
              add(product(k0 + 2), product(k0 + 3)));
    } else if (L == 2) {  // CDNA1 bf16, CDNA2 bf16 (legacy)
      g = add(product(k0), product(k0 + 1));
    } else {
      for (size_t i = 0; i < L; ++i) hn::Store(product(k0 + i), d, buf + i * N);
      g = Tree(buf, 0, L, ftz);
    }
    if (ftz)
      acc = hn::IfThenZeroElse(
          hn::Eq(hn::And(acc, hn::Set(d, 0x7F800000u)), zero), acc);
    const auto sum = hn::Add(hn::BitCast(df, acc), hn::BitCast(df, g));
    acc = hn::IfThenElse(hn::RebindMask(d, hn::IsNaN(sum)), hn::Set(d, nan),
                         Flush(ftz, hn::BitCast(d, sum)));
  }
  hn::StoreU(acc, d, out + m0);
}

// Every whole group of Lanes rows of every column; returns the number of
// rows done (M rounded down to a multiple of Lanes).
size_t Pairwise(const uint32_t* at, size_t M, size_t N, const uint32_t* b,
                size_t K, size_t L, bool ftz, uint32_t nan, const uint32_t* c,
                uint32_t* out) {
  const size_t V = hn::Lanes(DU());
  const size_t whole = M - M % V;
  // The products of one chunk, vector i at i * Lanes (SVE vectors are
  // sizeless: no arrays of them).
  auto buf = hwy::AllocateAligned<uint32_t>(L * V);
  for (size_t n = 0; n < N; ++n)
    for (size_t m0 = 0; m0 < whole; m0 += V)
      PairwiseRows(at, M, b + n * K, K, L, ftz, nan, c + n * M, m0, out + n * M,
                   buf.get());
  return whole;
}

}  // namespace HWY_NAMESPACE
}  // namespace mxc::fast::gemm_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/gemm_fast_impl.h"
#include "emu/fast/hwy_dispatch.h"

namespace mxc::fast::gemm_detail {

HWY_EXPORT(Pairwise);

size_t pairwise_simd(Isa isa, const uint32_t* at, size_t M, size_t N,
                     const uint32_t* b, size_t K, size_t L, bool ftz,
                     uint32_t nan, const uint32_t* c, uint32_t* out) {
  return MXC_HWY_DISPATCH(Pairwise, isa)(at, M, N, b, K, L, ftz, nan, c, out);
}

}  // namespace mxc::fast::gemm_detail
#endif  // HWY_ONCE
