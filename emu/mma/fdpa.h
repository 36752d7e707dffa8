// The fused dot-product-add (FDPA) of NVIDIA tensor cores, as published by
// MMA-Sim (Xie et al., arXiv:2511.10909, Algorithms 5, 7-9) and the
// Khattak-Mikaitis models (arXiv:2512.07004): exact products, alignment on
// the sum of operand exponent fields, truncation of every term to F fraction
// bits below the largest exponent, exact integer sum, one rounding at the
// end. Parameters per instruction live in emu/mma/models.cpp; semantics in
// docs/models.md. This is the fast path: 128-bit fixed point, no arbitrary
// precision (conformance/oracle/fdpa_oracle.cpp is the exact reference).
#pragma once

#include <cstdint>
#include <span>

#include "emu/format.h"

namespace mxc {

// How a chunk's exact sum is rounded (output and between chained chunks).
enum class AccRound : uint8_t {
  kRzF32,    // truncate to binary32
  kRzE8M13,  // truncate to 13 fraction bits, binary32 range (Ada/Hopper FP8)
  kRneF16,   // round to nearest even binary16
};

struct FdpaParams {
  int L;      // products per FDPA
  int G;      // 0: T-FDPA / ST-FDPA; > 0: GST-FDPA group size
  int F;      // fraction bits kept below 2^e_max
  AccRound rho;
  int e_zero;  // alignment exponent of zero terms
};

// One output element's operands. a/b hold K element encodings (K a multiple
// of L); scales (if any) hold K / scale_block encodings each.
struct FdpaOperands {
  Fmt a_fmt, b_fmt;
  Fmt c_fmt;       // kF32 or kF16: also the output format
  bool has_scales = false;
  Fmt scale_fmt = Fmt::kE8M0;  // kE8M0 or kUE4M3
  int scale_block = 32;
  std::span<const uint64_t> a, b;
  uint64_t c = 0;
  std::span<const uint64_t> sa, sb;
};

// One FDPA's final rounding: |sum| = mag * 2^exp (sticky: more below) into
// the accumulator format of rho, overflowing to Inf even under RZ.
uint64_t fdpa_round_sum(AccRound rho, bool neg, int exp, uint64_t mag,
                        bool sticky);

// D = chain of FDPAs over K in increasing k: chunk j's C is chunk j-1's
// rounded result. Returns D's encoding in c_fmt.
uint64_t fdpa_chain(const FdpaParams& p, const FdpaOperands& o);

}  // namespace mxc
