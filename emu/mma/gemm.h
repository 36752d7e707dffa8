// GEMMs composed from instruction models: D = op(A) op(B) + C as, for each
// output element, the model's chain of FDPAs over K in increasing k (one
// accumulator across sequential k-tiles), optionally split-K with an FP32
// reduction. docs/models.md lists what a library kernel must satisfy for a
// replay to be bit-exact against this.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "emu/mma/models.h"

namespace mxc {

// cuBLAS naming: the letters are op(A), op(B) with column-major storage.
//   op(A) = T: A stored K-major, element (m, k) at m*K + k
//   op(A) = N: A stored M-major, element (m, k) at k*M + m
//   op(B) = N: B stored K-major, element (k, n) at n*K + k
//   op(B) = T: B stored N-major, element (k, n) at k*N + n
// TN is the layout tensor cores read natively (both operands K-major).
enum class GemmLayout : uint8_t { kTN, kNN, kNT, kTT };

std::string_view layout_name(GemmLayout l);
bool parse_layout(std::string_view s, GemmLayout* out);

struct GemmProblem {
  int M = 0, N = 0, K = 0;
  GemmLayout layout = GemmLayout::kTN;
  Fmt a_fmt = Fmt::kE4M3, b_fmt = Fmt::kE4M3;
  std::vector<uint64_t> A, B;  // as stored per `layout`
  std::vector<uint64_t> C;     // M x N column-major, model.c_fmt
  // Block scales, one per (row of op(A) or column of op(B), k-block):
  // sa[m * (K/blk) + kb], sb[n * (K/blk) + kb] (plain, not the 128x4 tiles).
  std::vector<uint64_t> SA, SB;
  int split_k = 1;  // >1: K split in contiguous slices, FP32 RNE reduction
};

// D (M x N column-major, model.c_fmt). K must be a multiple of the model's
// L (and of split_k * L when splitting). Throws std::invalid_argument on
// inconsistent sizes.
std::vector<uint64_t> gemm(const MmaModel& m, const GemmProblem& p);

}  // namespace mxc
