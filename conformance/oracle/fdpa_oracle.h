// Arbitrary-precision reference model ("oracle") of the NVIDIA tensor-core
// fused dot-product-add (FDPA): the T-FDPA / ST-FDPA / GST-FDPA algorithm of
// MMA-Sim (Xie et al.) and Khattak & Mikaitis, as restated in
// shared/research/tensor-core-numerics.md, sections 0, 1, 4, 5 and 6.
//
// Independence: this model includes nothing from emu/. It has its own small
// element/scale decoder and does all arithmetic on exact integers
// (Boost.Multiprecision cpp_int), so it can serve as the yardstick for the
// fast fixed-point implementation.
//
// One FDPA (one chunk of L consecutive k, plus C):
//  1. Specials first: a NaN among the chunk's a, b, C or the scales it uses,
//     or any Inf x 0 (also Inf x zero ue4m3 scale), or both +Inf and -Inf
//     among the products and C -> canonical NaN (f32 0x7FFFFFFF, f16 0x7FFF);
//     otherwise an infinite product or C -> that Inf.
//  2. Terms (value = (-1)^neg * mag * 2^(exp - frac)):
//     T/ST: one per product, mag = sig_a*sig_b*sig_SA*sig_SB, frac = sum of
//     the four mbits, exp = exp_a+exp_b(+exp_SA+exp_SB) (field exponents: a
//     subnormal aligns at its format's emin and is not renormalised).
//     GST (G > 0): one per group of G consecutive k: P = the exact signed sum
//     of the G unscaled products in units of 2^(emin_a+emin_b-mbits_a-mbits_b),
//     mag = |P|*sig_SA*sig_SB, exp = exp_SA+exp_SB only; the group's scales
//     are those of its first k. A group is a zero term only when all G
//     products are zero or sig_SA*sig_SB == 0 (a group that cancels to 0
//     keeps its scale exponent).
//     C: decoded f32/f16.
//  3. Zero terms take exp = e_zero; e_max = max exp over all terms.
//  4. Each magnitude is truncated toward zero to a multiple of 2^(e_max-F);
//     the truncated terms are summed exactly: V = S * 2^(e_max-F).
//  5. V is rounded once with rho (RZ to f32, RZ to 13 fraction bits in the
//     f32 exponent range, or RNE to f16); overflow gives +-Inf even under RZ.
//  6. S == 0 gives +0, or -0 if every term is a zero term of negative sign
//     (IEEE sum-of-zeros rule; unverified on hardware, research note U7).
//     A nonzero S that rounds to zero (underflow) keeps the sign of V.
//  7. For K > L the chunks are chained, k = 0..L-1 first; each chunk's C is
//     the previous chunk's rounded result (in c_fmt).
//
// Bit patterns: an element or C pattern wider than its format throws
// std::invalid_argument (tf32 takes a 32-bit f32 pattern whose low 13 bits are
// cleared before decoding, so an f32 NaN whose payload lies only in those
// bits decodes as Inf, exactly like MMA-Sim's x>>13<<13). Scale patterns must
// fit in 8 bits; ue4m3 ignores bit 7.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mxc::fdpa_oracle {

// Rounding of each chunk's result (to the output and between chained chunks).
//  RzF32   : truncate to f32 (24-bit significand, subnormals 2^-149); c_fmt "f32".
//  RzE8M13 : truncate to 13 fraction bits, f32 exponent range (subnormal
//            granularity 2^-139), stored as an f32 pattern whose low 10
//            fraction bits are 0; c_fmt "f32".
//  RneF16  : round to nearest even f16 (subnormals 2^-24); c_fmt "f16".
//  RneF32  : round to nearest even f32 (subnormals 2^-149); c_fmt "f32".
enum class Rho { RzF32, RzE8M13, RneF16, RneF32 };

struct Params {
  int L = 0;       // products per FDPA (chunk); K must be a multiple of L
  int G = 0;       // 0: T-FDPA / ST-FDPA. >0: GST-FDPA group size (L % G == 0)
  int F = 0;       // fraction bits kept below 2^e_max (>= 0)
  Rho rho = Rho::RzF32;
  int e_zero = 0;  // alignment exponent given to zero terms (ZeroExp::Fixed)
  // Step 3 variants. Fixed: zero terms at e_zero. OperandMin: no zero term;
  // a zero element, scale or C has exponent -126 in the exponent sums of
  // step 2 (MMA-Sim HEAD), so a zero product aligns at -126 + the partner's
  // exponent (+ scales), a zero C at -126, an all-zero GST group at
  // exp_SA + exp_SB.
  enum class ZeroExp { Fixed, OperandMin } zero_exp = ZeroExp::Fixed;
  // Step 6 variants. Ieee: as step 6. Positive: every zero result is +0.
  enum class ZeroSign { Ieee, Positive } zero_sign = ZeroSign::Positive;
  // Instruction structure (step 7 variants). k_block == 0: step 7. Else K is
  // cut into instructions of k_block elements; instruction i's C is
  // instruction i-1's D. In an instruction the chunks take, with k_period >
  // 0, first the k whose (k mod k_period) < k_run, then those in
  // [k_run, 2 k_run), ... (each in increasing k); with c_outside the chunks
  // chain from +0 and C is added to their result exactly, rounded once to
  // nearest even in c_fmt (IEEE add: NaN -> canonical NaN, Inf - Inf -> NaN,
  // overflow -> Inf, x + (-x) = +0, -0 + -0 = -0).
  int k_block = 0;
  int k_period = 0;
  int k_run = 0;
  bool c_outside = false;
  // The chunk arithmetic. Fdpa: steps 1-6 above. The AMD MFMA datapaths
  // (c_fmt "f32", no scales, G == 0, k_block == 0; microsoft/MMA-Sim c785138
  // mmasim/simulator/arithmetic.py, restated here):
  //  TwoStageRd (CDNA3, amd_fused_dot_rd_add): step 1, then a finite
  //    product >= 2^128 in magnitude gives +-Inf (NaN when both signs).
  //    The chunk's products split into `split` sets by position (i mod
  //    split); set j with e_j = max of its product exponents (zero rules as
  //    step 3) sums its products each truncated toward zero to a multiple of
  //    2^(e_j - F); e = max e_j; with split > 1 each set sum is rounded down
  //    (toward -Inf) to a multiple of 2^(e - F) and they are added. With M =
  //    max(e, exponent of C), that sum is rounded down to a multiple of
  //    2^(M - 31) and C to a multiple of 2^(M - F) (with split > 1, C is 0
  //    if its exponent is below M - F - 1); their exact sum is rounded with
  //    rho. A zero sum is step 6.
  //  F32Pairwise (CDNA1/2, pairwise_dot): each product a*b rounded to f32
  //    (as fmaf(a, b, +0): an exact zero product is +0), the chunk summed
  //    as a balanced binary tree (first half, second half) of f32 RNE adds,
  //    then C + the tree by an f32 RNE add; IEEE specials, signed zeros.
  //    ftz: A/B subnormals of their own format and a subnormal C are +0
  //    first; every product and sum of magnitude below 2^-126 becomes a
  //    zero of its sign. F, e_zero and the zero rules are not used.
  enum class Datapath { Fdpa, TwoStageRd, F32Pairwise } datapath =
      Datapath::Fdpa;
  int split = 1;
  bool ftz = false;
};

struct Operands {
  // "e4m3","e5m2","e3m2","e2m3","e2m1","f16","bf16","tf32","e4m3fnuz",
  // "e5m2fnuz" (FNUZ: 0x80 is NaN, no Inf, no -0)
  std::string a_fmt, b_fmt;
  std::string c_fmt;       // "f32" or "f16" (also the output format)
  std::string scale_fmt;   // "" (no scales), "e8m0", "ue4m3"
  int scale_block = 0;     // consecutive k sharing one scale; 0 when no scales
  std::vector<uint64_t> a, b;     // K element bit patterns each
  uint64_t c = 0;                 // C bit pattern (c_fmt)
  std::vector<uint64_t> sa, sb;   // K/scale_block scale bit patterns each
};

// D bits in c_fmt. Throws std::invalid_argument on inconsistent input
// (unknown format, K not a positive multiple of L, L % G != 0, wrong scale
// counts, rho not matching c_fmt, pattern too wide).
uint64_t fdpa_chain(const Params& p, const Operands& o);

// Exact sum_k a_k*b_k*sa*sb + c (no truncation, no intermediate rounding, no
// grouping) as a reduced fraction "num/den" with den > 0 (den is a power of
// two; zero is "0/1", the sign of zero is not represented), or "nan", "+inf",
// "-inf" by the special-value rules of step 1 applied over the whole K.
std::string exact_dot(const Operands& o);

}  // namespace mxc::fdpa_oracle
