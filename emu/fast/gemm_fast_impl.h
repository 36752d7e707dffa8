// The decoded operands of a GEMM and the per-block kernels of the batched
// FDPA path (emu/fast/gemm_fast.h). Internal to emu/fast.
//
// Output columns go in blocks of kLanes; one kernel call runs the chains of
// one row of A against one block of columns, chunk by chunk (L products and
// the previous chunk's result C per FDPA, fdpa.h).
//
// T-FDPA / ST-FDPA term k of a chunk: mag = sig_a * sig_SA * sig_b * sig_SB
// (E8M0 scales have significand 1), alignment exponent e = e_a + e_b (+ the
// two scale exponents, folded into e_a and e_b at decode), lsb = e - fa -
// fb - fSA - fSB. With q = e_max - F the aligned term is
// floor(mag * 2^(lsb - q)) = (mag << s0) >> (e_max - e) with s0 = F - fa -
// fb - fSA - fSB; when s0 >= 0 and the products fit int32, A is stored as
// +-(sig_a << s0) so one multiply gives the signed, shifted product (the
// SIMD kernel); otherwise (a wide plan) the int64 scalar kernel shifts by
// s0 - (e_max - e) itself. Every term is below 2^(F + 2) (2^(F + 4) with
// UE4M3 scales), whatever the operand formats.
//
// GST-FDPA: each operand is stored as a signed integer in units of
// 2^(emin - frac) (int16, two per int32 lane for vpmaddwd), so a group's
// exact sum in units of 2^base (base = emin_a + emin_b - fa - fb) is an
// integer dot product; the group term is |sum| * sig_SA * sig_SB at
// e = e_SA + e_SB, aligned as (mag << s0) >> (e_max - e) with
// s0 = F + base - frac_SA - frac_SB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "emu/fast/gemm_fast.h"
#include "emu/fast/isa.h"
#include "emu/format.h"
#include "emu/mma/fdpa.h"
#include "emu/mma/gemm.h"
#include "emu/mma/models.h"

namespace mxc::fast::gemm_detail {

constexpr int kLanes = 16;
// The exponent stored for a zero T/ST operand: a product with a zero factor
// has e < kNonzeroMin, so the e_max pass tells zero products apart.
constexpr int32_t kZeroExp = -(1 << 20);
constexpr int32_t kNonzeroMin = -(1 << 19);

struct GemmPlan {
  bool gst = false;
  // T/ST: the products are formed and aligned in int64 by the scalar kernel
  // (a_val / b_val hold +-sig unshifted) because the int32 lanes of the SIMD
  // kernel cannot hold them (gemm_covers says which).
  bool wide = false;
  // T/ST narrow plans whose chunk sum (L products and the addend's term,
  // below 2^(F + 1)) provably stays below 2^31: the SIMD kernel ends the
  // chunk in int32 lanes.
  bool sum32 = false;
  int L = 0, G = 0, F = 0, e_zero = 0;
  ZeroExp zero_exp = ZeroExp::kFixed;
  ZeroSign zero_sign = ZeroSign::kPositive;
  // The alignment exponent of a zero addend: e_zero, or -126 (kOperandMin).
  int32_t c_zero_exp = 0;
  AccRound rho = AccRound::kRzF32;
  Fmt c_fmt = Fmt::kF32;
  int c_frac = 23, c_ebits = 8, c_bias = 127;
  uint32_t c_sign = 0x80000000u, c_nan = 0x7FFFFFFFu;
  int s0 = 0;
  size_t M = 0, N = 0, K = 0, chunks = 0, nblocks = 0;
  // Instruction structure (fdpa.h): chunks per instruction (0: one chain
  // over K) and whether each instruction's chain starts from +0 with C added
  // afterwards by an RNE add in c_fmt. The k permutation is applied at
  // decode: the arrays below hold k in visiting order.
  size_t chunks_per_instr = 0;
  bool c_outside = false;
  // T / ST-FDPA: a_*[m * K + k]; b_*[(nb * K + k) * kLanes + lane]. val is
  // +-(sig << s0) (+-sig when wide), with the scale significand folded in;
  // exp the alignment exponent (scale exponents folded in; kZeroExp for a
  // zero operand under ZeroExp::kFixed). sgn: the operand's sign bit (the
  // sign of a product of zeros, for ZeroSign::kIeee).
  std::vector<int32_t> a_val, a_exp, b_val, b_exp;
  std::vector<uint8_t> a_sgn, b_sgn;
  // GST-FDPA: pairs of int16 values / nonzero indicators (k even in the low
  // half): a_*[m * K/2 + t], b_*[(nb * K/2 + t) * kLanes + lane]; group
  // scales a_s*[m * K/G + g], b_s*[(nb * K/G + g) * kLanes + lane].
  std::vector<int32_t> a_pair, a_ind, b_pair, b_ind;
  std::vector<int32_t> a_ssig, a_sexp, b_ssig, b_sexp;
  // Per chunk: a NaN/Inf or an over-wide code (the reference takes the
  // element) and, for T/ST under ZeroExp::kFixed, a zero operand:
  // a_*[m * chunks + j], b_*[nb * chunks + j] (lane masks).
  std::vector<uint8_t> a_bad, a_zero;
  std::vector<uint16_t> b_bad, b_zero;
};

// A per-thread array of n elements, its contents unspecified (every user
// writes each element it reads): the storage is taken from this thread's
// pool for (T, kSlot) and given back on destruction, up to
// kScratchKeepBytes (gemm_fast.h); arrays alive at once take different
// slots (a second one in the same slot would allocate, and only one would
// be kept).
template <class T, int kSlot>
class Scratch {
 public:
  explicit Scratch(size_t n) : v_(std::move(pool())) { v_.resize(n); }
  ~Scratch() {
    if (v_.capacity() * sizeof(T) <= kScratchKeepBytes) pool() = std::move(v_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  T& operator[](size_t i) { return v_[i]; }
  T* data() { return v_.data(); }

 private:
  static std::vector<T>& pool() {
    thread_local std::vector<T> p;
    return p;
  }
  std::vector<T> v_;
};

// Whether the T/ST products of this model and A/B formats fit the int32
// lanes of the SIMD kernel (else the plan is wide: the int64 scalar kernel).
bool t_fits_int32(const MmaModel& m, Fmt a_fmt, Fmt b_fmt);

// Runs the chains of row m against column block nb: c[kLanes] holds C in
// (c_fmt bits) and D out. Returns the lanes whose result must come from the
// reference instead (a NaN/Inf or over-wide operand or scale in the lane's
// chain). block_simd: one Highway source (gemm_hwy.cpp) run on `isa`
// (isa_supported, not kScalar, simd_fits, !p.wide).
uint32_t block_scalar(const GemmPlan& p, size_t m, size_t nb, uint32_t* c);
uint32_t block_simd(Isa isa, const GemmPlan& p, size_t m, size_t nb,
                    uint32_t* c);
// block_simd for rows m and m + 1 of a T/ST plan at once (two independent
// chains interleaved): the bad lanes of row m in bits 0..15, of m + 1 in
// bits 16..31.
uint32_t block2_simd(Isa isa, const GemmPlan& p, size_t m, size_t nb,
                     uint32_t* c0, uint32_t* c1);
// Whether isa's vectors (at most kLanes int32 lanes) divide kLanes.
bool simd_fits(Isa isa);

// The decode of an IEEE operand format (f16, bf16, tf32) into a T/ST plan's
// val / exp / sgn and per-element flags (gemm_fast.cpp IeeeLine, whose
// scalar loop is the formula): a code with a bit in wide_mask (wider than
// its format) reads as pos_inf; the code shifted right by drop (TF32's
// 13 low zero bits) has its fraction in bits 0..man - 1, its exponent field
// (emask) above, its sign at bit sign; val = +-sig << shift, exp the
// alignment exponent (zexp for a zero significand), flags bit 0 NaN/Inf,
// bit 1 a zero significand.
struct IeeeDecodeParams {
  uint64_t wide_mask;
  int drop, man, sign;
  uint32_t emask;
  int32_t bias, zexp, shift;
  uint32_t pos_inf;
};
// The first elements of codes[0, n) decoded on isa (not kScalar; a
// multiple of its lanes, possibly 0); returns how many. The caller decodes
// the rest.
size_t ieee_decode_simd(Isa isa, const IeeeDecodeParams& q,
                        const uint64_t* codes, size_t n, int32_t* val,
                        int32_t* exp, uint8_t* sgn, uint8_t* flags);

// The end of chunk j for one lane whose exact sum is S * 2^q: the rounded
// result (S != 0), or the signed sum of zeros (S == 0: +0 unless every term
// is a negative zero under ZeroSign::kIeee, which zero_sum decides from the
// chunk's operand signs and the addend c_in); ZeroSign::kPositive maps a
// result that rounds to -0 to +0.
uint32_t finish_lane(const GemmPlan& p, int64_t S, int32_t q, size_t m,
                     size_t nb, int lane, size_t j, uint32_t c_in);
uint32_t zero_sum(const GemmPlan& p, size_t m, size_t nb, int lane, size_t j,
                  uint32_t c_in);
// C added outside the FDPA (FdpaParams::c_outside): the chain's result s
// plus C, one IEEE round-to-nearest-even add in c_fmt (canonical NaN), then
// the zero-sign rule.
uint32_t add_outside(const GemmPlan& p, uint32_t s, uint32_t c);

// Operand access per layout (gemm.h): A[m][k] and B[k][n] of op(A), op(B).
struct Access {
  const GemmProblem& p;
  bool a_kmajor, b_kmajor;
  explicit Access(const GemmProblem& q)
      : p(q),
        a_kmajor(q.layout == GemmLayout::kTN || q.layout == GemmLayout::kTT),
        b_kmajor(q.layout == GemmLayout::kTN || q.layout == GemmLayout::kNN) {}
  uint64_t a(size_t m, size_t k) const {
    return a_kmajor ? p.A[m * p.K + k] : p.A[k * p.M + m];
  }
  uint64_t b(size_t k, size_t n) const {
    return b_kmajor ? p.B[n * p.K + k] : p.B[k * p.N + n];
  }
};

// The AMD CDNA datapaths (Datapath::kF32Pairwise, kTwoStageRd;
// gemm_amd.cpp): whether gemm_amd takes the problem, and D (column-major,
// as gemm()) with bad[n * M + m] set for the elements whose chain meets a
// NaN/Inf or over-wide operand or C code (the caller takes them to the
// reference; D there is unset).
bool amd_covers(const MmaModel& m, const GemmProblem& p);
// isa: the pairwise datapath's vector kernel (gemm_amd_hwy.cpp) on a SIMD
// ISA; kScalar, or the two-stage datapath: the scalar kernels.
void gemm_amd(const MmaModel& m, const GemmProblem& p, Isa isa,
              std::vector<uint64_t>& D, std::vector<uint8_t>& bad);
// gemm_amd_hwy.cpp: the pairwise chain of every column n and the rows in
// whole groups of Lanes (returns how many rows, from 0), on decoded
// operands: at[k * M + m] (A as f32 bits, transposed), b[n * K + k],
// c[n * M + m]; D's f32 bits into out[n * M + m].
size_t pairwise_simd(Isa isa, const uint32_t* at, size_t M, size_t N,
                     const uint32_t* b, size_t K, size_t L, bool ftz,
                     uint32_t nan, const uint32_t* c, uint32_t* out);

// The CDNA3 two-stage datapath (Datapath::kTwoStageRd) on decoded
// operands, for the vector kernel (gemm_amd_hwy.cpp). A transposed:
// at_*[k * M + m]; B: b_*[n * K + k]. sig: the significand (A's shifted
// left by F - frac, so that a product is the term before its alignment
// shift; the caller checks that every term and the L-term sums fit int32),
// exp: the operand exponent (fdpa.cpp read(), the zero rule applied), neg:
// 0 or -1. c[n * M + m]: C's f32 bits; D's into out[n * M + m].
struct TwoStageArgs {
  const int32_t *at_sig, *at_exp, *at_neg;
  const int32_t *b_sig, *b_exp, *b_neg;
  size_t M, N, K, L, split;
  int32_t F;
  bool opmin;          // ZeroExp::kOperandMin (else a zero product: e_zero)
  int32_t e_zero;      // FdpaParams::e_zero
  int32_t c_zero_exp;  // the alignment exponent of a zero C
  bool ieee_zero;      // ZeroSign::kIeee
  uint32_t nan;        // canonical f32 NaN
  const uint32_t* c;
  uint32_t* out;
  // Split 1 under kOperandMin on AVX-512, where two_stage_floats admitted
  // the operands: each as its binary32 value (at_f[k * M + m], b_f[n * K +
  // k]); else nullptr.
  const float *at_f = nullptr, *b_f = nullptr;
};
// Every column and the rows in whole groups of int32 Lanes; returns the
// number of rows done (from 0).
size_t two_stage_simd(Isa isa, const TwoStageArgs& a);
// Stage 1 from binary32 operands (TwoStageArgs::at_f / b_f): f[i] =
// (-1)^neg sig * 2^(exp - frac) for n decoded operands (sig, exp, neg as
// two_stage_line writes them, frac: their fraction bits plus the shift
// applied to sig), exact (the three formats are binary32 values); lo
// lowered to the least binade of a nonzero one (a binary32 subnormal reads
// as -150). Returns false where isa's kernel has no such stage 1 (then f
// is not written).
bool two_stage_floats(Isa isa, const int32_t* sig, const int32_t* exp,
                      const int32_t* neg, size_t n, int32_t frac, float* f,
                      int32_t& lo);
// How many TF32 codes (every f32 pattern's top 19 bits, with low bits set
// and over-wide, both zero rules) the two-stage datapath's field decode
// reads differently from read_code + unpack (gemm_amd.cpp; 0 expected).
size_t two_stage_tf32_mismatches();
// How many f16, bf16 and TF32 codes (every code, each also over-wide; both
// zero rules; all in one line) the two-stage datapath's line decode
// (gemm_amd.cpp two_stage_line, on isa) reads differently from read_code +
// unpack, its bad flag and its magnitude bound included (0 expected).
size_t two_stage_line_mismatches(Isa isa);

// An f16, bf16 or TF32 operand format read directly by the two-stage
// datapath (gemm_amd.cpp ieee_two_stage; width 0: not one of them).
struct IeeeTwoStage {
  int shift;      // TF32: 13 (kTf32LowBits)
  int width;      // 1 + E + M: a code with bits above shift + width is bad
  int man;        // M
  uint32_t emax;  // 2^E - 1
  int32_t bias, emin;
  bool opmin;
  int32_t zero_exp;  // a zero's exp: -126 under kOperandMin, else emin
};
// gemm_amd.cpp two_stage_line for a line of stride 1 on isa (not kScalar,
// supported), up to its last whole vector; returns how many codes it did.
// top and any_bad are raised as two_stage_line raises them.
size_t two_stage_line_simd(Isa isa, const IeeeTwoStage& t, const uint64_t* c,
                           size_t n, int32_t s0, int32_t* sig, int32_t* exp,
                           int32_t* neg, int32_t& top, bool& any_bad);

}  // namespace mxc::fast::gemm_detail
