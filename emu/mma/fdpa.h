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
  kRneF32,   // round to nearest even binary32 (AMD MFMA)
};

// The arithmetic of one chunk of L products and its addend C (docs/models.md,
// "AMD CDNA MFMA"). kFdpa is the NVIDIA FDPA above; the AMD datapaths follow
// microsoft/MMA-Sim c785138 mmasim/simulator/arithmetic.py.
enum class Datapath : uint8_t {
  kFdpa,  // every term, C included, truncated to F bits below their joint
          // e_max, summed exactly, rounded once with rho
  // CDNA3 (amd_fused_dot_rd_add): the products alone are truncated to F
  // bits below the products' e_max and summed exactly (per interleaved set,
  // see `split`); with M = max(that e_max, C's exponent) the sum is floored
  // (toward -Inf) to kTwoStageSumBits = 31 bits below 2^M and C is floored
  // to F bits below 2^M; their exact sum is rounded once with rho. A finite
  // product of magnitude >= 2^128 makes the chunk +-Inf (NaN if both).
  kTwoStageRd,
  // CDNA1/2 (pairwise_dot): each product rounded to f32 (RNE, as fmaf(a, b,
  // +0)), the L products summed by a balanced tree of f32 RNE adds (halves
  // of L / 2), then C + that sum by an f32 RNE add. F, e_zero and the zero
  // rules do not apply (IEEE signed zeros throughout).
  kF32Pairwise,
};

// kTwoStageRd: bits of the products' sum kept below 2^M (MMA-Sim's 31).
inline constexpr int kTwoStageSumBits = 31;

// The alignment exponent of a zero term (docs/models.md, "Zero rules").
enum class ZeroExp : uint8_t {
  kFixed,       // a per-model constant e_zero (KM min_exp_limit; MMA-Sim
                // paper v2 / FPy e_zero)
  kOperandMin,  // a zero operand has exponent -126 (MMA-Sim HEAD
                // extract_significand_exponent): a zero product aligns at
                // -126 + the partner's exponent + the scale exponents, a zero
                // C at -126, an all-zero GST group at e_SA + e_SB
};

// The sign of a zero FDPA result.
enum class ZeroSign : uint8_t {
  kIeee,      // -0 when every term is a negative zero, or a negative sum
              // rounds to zero; +0 otherwise
  kPositive,  // always +0 (MMA-Sim, Khattak-Mikaitis)
};

struct FdpaParams {
  int L;      // products per FDPA
  int G;      // 0: T-FDPA / ST-FDPA; > 0: GST-FDPA group size
  int F;      // fraction bits kept below 2^e_max
  AccRound rho;
  int e_zero;  // alignment exponent of zero terms (ZeroExp::kFixed)
  ZeroExp zero_exp = ZeroExp::kFixed;
  ZeroSign zero_sign = ZeroSign::kPositive;
  // Instruction structure. With k_block == 0, D is one chain of FDPAs over
  // K in increasing k with C as the first chunk's addend. With k_block > 0,
  // K is cut into instructions of k_block elements, each its own chain:
  //  * k_period > 0 permutes an instruction's k: chunk j takes the k with
  //    (k mod k_period) in [j * k_run, (j + 1) * k_run), in increasing k
  //    (k_period / k_run chunks of L = k_block * k_run / k_period);
  //  * c_outside: the chain starts from +0 and C is added afterwards with
  //    one round-to-nearest-even add in the C/D format (an ordinary FADD).
  //    Without it, C is the first chunk's addend.
  //  Instruction i's C is instruction i-1's D.
  int k_block = 0;
  int k_period = 0;
  int k_run = 0;
  bool c_outside = false;
  Datapath datapath = Datapath::kFdpa;
  // kTwoStageRd: the chunk's products form `split` interleaved sets (by k
  // mod split), each truncated to F bits below its own e_max and summed;
  // each set's sum is then floored to F bits below the sets' joint e_max.
  // With split > 1, a C more than F + 1 binades below 2^M is dropped (taken
  // as 0) instead of floored. CDNA3 FP8/BF8: 2 (MMA-Sim is_fp8); else 1.
  int split = 1;
  // kF32Pairwise: flush to zero (CDNA2): A/B subnormal in their own format
  // and a subnormal C become +0 first; each product, partial sum and
  // accumulated sum below 2^-126 becomes a zero of its sign.
  bool ftz = false;
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

// D = chain of FDPAs over K (in the order and instruction structure of p):
// chunk j's C is chunk j-1's rounded result. Returns D's encoding in c_fmt.
uint64_t fdpa_chain(const FdpaParams& p, const FdpaOperands& o);

}  // namespace mxc
