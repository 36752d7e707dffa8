#include "emu/mma/gemm.h"

#include <stdexcept>

#include "emu/arith.h"
#include "emu/fast/gemm_fast.h"

namespace mxc {

std::string_view layout_name(GemmLayout l) {
  switch (l) {
    case GemmLayout::kTN: return "TN";
    case GemmLayout::kNN: return "NN";
    case GemmLayout::kNT: return "NT";
    case GemmLayout::kTT: return "TT";
  }
  return "?";
}

bool parse_layout(std::string_view s, GemmLayout* out) {
  for (GemmLayout l : {GemmLayout::kTN, GemmLayout::kNN, GemmLayout::kNT,
                       GemmLayout::kTT}) {
    if (layout_name(l) == s) {
      *out = l;
      return true;
    }
  }
  return false;
}

std::vector<uint64_t> gemm(const MmaModel& m, const GemmProblem& p) {
  const size_t M = p.M, N = p.N, K = p.K;
  const int blk = scale_block(m.scales);
  const size_t L = static_cast<size_t>(m.fdpa.L);
  const size_t S = static_cast<size_t>(p.split_k);
  if (p.split_k < 1 || K % (L * S) != 0 || p.A.size() != M * K ||
      p.B.size() != K * N || p.C.size() != M * N) {
    throw std::invalid_argument(
        "gemm: sizes do not match M, N, K (K a multiple of split_k * L)");
  }
  if (blk > 0 && (K % blk != 0 || p.SA.size() != M * (K / blk) ||
                  p.SB.size() != N * (K / blk))) {
    throw std::invalid_argument("gemm: scale arrays do not match M, N, K");
  }
  if (S > 1 && m.c_fmt != Fmt::kF32) {
    throw std::invalid_argument("gemm: split-K reduces in FP32 only");
  }
  // The batched path (emu/fast/gemm_fast.h; it covers every model in the
  // table, tests/test_fast_gemm.cpp): operands decoded once, bit-identical
  // to the composition below, which stays the oracle and serves split-K.
  if (fast::gemm_covers(m, p)) return fast::gemm_fast(m, p);
  const bool a_kmajor = p.layout == GemmLayout::kTN || p.layout == GemmLayout::kTT;
  const bool b_kmajor = p.layout == GemmLayout::kTN || p.layout == GemmLayout::kNN;
  std::vector<uint64_t> a(K), b(K), D(M * N);
  const size_t nblk = blk > 0 ? K / blk : 0;
  for (size_t n = 0; n < N; ++n) {
    for (size_t k = 0; k < K; ++k) b[k] = b_kmajor ? p.B[n * K + k] : p.B[k * N + n];
    for (size_t mm = 0; mm < M; ++mm) {
      for (size_t k = 0; k < K; ++k)
        a[k] = a_kmajor ? p.A[mm * K + k] : p.A[k * M + mm];
      const std::span<const uint64_t> sa =
          blk > 0 ? std::span<const uint64_t>(p.SA).subspan(mm * nblk, nblk)
                  : std::span<const uint64_t>();
      const std::span<const uint64_t> sb =
          blk > 0 ? std::span<const uint64_t>(p.SB).subspan(n * nblk, nblk)
                  : std::span<const uint64_t>();
      const uint64_t c = p.C[n * M + mm];
      if (S == 1) {
        D[n * M + mm] = mma_dot(m, p.a_fmt, p.b_fmt, a, b, c, sa, sb);
        continue;
      }
      // Split-K: slice s covers k in [s*K/S, (s+1)*K/S) with C = +0; then
      // D = (((C + P0) + P1) + ...) in FP32 round-to-nearest-even.
      const size_t ks = K / S;
      uint64_t acc = c;
      for (size_t s = 0; s < S; ++s) {
        const auto as = std::span<const uint64_t>(a).subspan(s * ks, ks);
        const auto bs = std::span<const uint64_t>(b).subspan(s * ks, ks);
        std::span<const uint64_t> sas, sbs;
        if (blk > 0) {
          sas = sa.subspan(s * ks / blk, ks / blk);
          sbs = sb.subspan(s * ks / blk, ks / blk);
        }
        acc = fp_add(Fmt::kF32, acc, mma_dot(m, p.a_fmt, p.b_fmt, as, bs, 0, sas, sbs));
      }
      D[n * M + mm] = acc;
    }
  }
  return D;
}

}  // namespace mxc
