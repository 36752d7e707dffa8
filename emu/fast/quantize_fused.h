// The fused single-pass block quantization kernels (issue 7,
// docs/performance.md): per block, amax in registers, the scale byte from a
// per-binade table, and the element conversion done in-register from the
// unscaled input, for MX (quantize_fast.cpp) and NVFP4 (nvfp4_fast.cpp).
// Internal to emu/fast.
//
// The conversion of one f32 x (finite) to an element format with m fraction
// bits, least normal exponent emin, largest finite value maxv, RNE
// satfinite, under a power-of-two multiplier 2^d applied exactly
// (y = x * 2^d), computed on a = |x| without forming y:
//   - a := min(a, MAX) with MAX = maxv * 2^-d: everything from maxv up
//     saturates to maxv's encoding under RNE satfinite, and maxv rounds to
//     itself;
//   - with T = 2^(emin - d) (y's least normal, in a's scale), the quantum
//     of y's rounding, in a's scale, is 2^(max(E(a), E(T)) - m), so for
//     C = 2^(max(E(a), E(T)) + 23 - m) the f32 sum fl(a + C) (the hardware
//     add, MXCSR default round to nearest even) rounds a at that quantum and
//     n = bits(sum) - bits(C) is the rounded significand in quanta (2^m and
//     up for a normal y, a subnormal count below; a carry to 2^(m+1) is the
//     next binade, as in the encoding);
//   - the encoding is n + ((E(a) - E(T)) << m) for a >= T, n below:
//     with eb = max(a & 0x7F800000, bits(T)) - bits(T) = (E - E(T)) << 23,
//     C = eb + bits(C0), C0 = 2^(emin - d + 23 - m), the encoding is
//     bits(sum) - C + (eb >> (23 - m));
//   - the sign is or-ed in at the format's top bit.
// It needs T, C0 and MAX normal and C <= 2^127 (checked per scale byte).
//
// Scale bytes near the ends (block amax from about 2^100 up, or tiny and
// f32-subnormal amaxes) put T or C outside the normal range. Those blocks
// run the same conversion on a' = fl(a * 2^k), with the constants of
// 2^(d - k) (SConst::ps = 2^k, a normal f32; conv_const of d - k), which
// is the same result:
//   - k > 0 (small scale bytes): a * 2^k is exact (scaling up does not
//     round; an overflow to +Inf only happens where the reference's own
//     product overflows, and min(Inf, MAX') saturates as the reference's
//     satfinite cast of Inf, checked by SConst::lim as for every byte);
//   - k < 0 (large bytes): a * 2^k rounds only below 2^-126, and k is
//     chosen so that T' = T * 2^k >= 2^(m - 125), i.e. 2^-126 is at most a
//     quarter of the element quantum 2^(E(T') - m) in a''s scale. Those a'
//     (and the exact a * 2^k they replace) are below half the quantum, so
//     fl(a' + C0) = C0 and the code is a zero with x's sign under every
//     rounding the kernels implement: ties to even, toward zero (no tie:
//     the add's error is -a', not +half the quantum) and away (the error
//     -a' is not -half the quantum); the reference (y = fl(x * 2^d) then
//     the cast, or the exact quotient) rounds the same tiny value to the
//     same signed zero. The element rules that look at x itself (the zero
//     rules' limit zero_below(s), microxcaling's half_up_sub on x) read
//     the unscaled x; microxcaling's "below T" test compares a' with T',
//     the same set (a < T <=> a' < T': exact for k > 0; for k < 0 every
//     a' that rounded is at most 2^-126 < T').
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "emu/block/profile.h"
#include "emu/block/quantize.h"
#include "emu/fast/isa.h"

namespace mxc::fast::detail {

// Per biased exponent E of amax: the scale byte is byte[0] below the
// significand threshold thr, byte[1] from it on; slow: ask mx_scale_byte.
struct EScale {
  uint32_t thr;
  uint8_t byte[2];
  uint8_t slow, pad;
};

// Per scale byte: the conversion constants above (bits of T, C0, MAX), and
// lim: the largest biased exponent of amax for which the fused conversion
// equals the reference (-1: never, the block's elements go to
// mx_encode_element).
constexpr uint32_t kOneF32 = 0x3F800000u;
struct alignas(32) SConst {  // one per 32 bytes: no entry spans two lines
  uint32_t t, c0, max;
  int32_t lim;
  // The pre-scale 2^k above as f32 bits; 1.0 (kOneF32) for the bytes whose
  // constants are normal as they are (every byte but those near the ends).
  uint32_t ps = kOneF32;
  // The apply rule's multiplier for this byte as f32 bits (quantize_fast.cpp
  // byte_mult: 2^d, or +0 where the rule's product is a zero), and the zero
  // rules' limit: inputs with |x| below zl (f32 bits) give code 0 under
  // scaled_zero (zero_below(d) + 1; every finite x for a zero multiplier;
  // 0 for the bytes whose blocks the reference writes).
  uint32_t mul = 0, zl = 0;
  // 0x100: none; else every element's code (a NaN multiplier: each product
  // is the canonical NaN, quantize_fast.cpp byte_mult kFill). Such a byte
  // has lim -1: the kernels look at fill only for the blocks lim sends off.
  uint16_t fill = 0x100;
  // A pre-scaled byte (ps not 1.0) has lim -1 and its limit here, so that
  // the kernels' common path keeps its one test of lim.
  int16_t lim_ps = -1;
};

// Per block index (mx_block_index: 2 E + (amax's significand >= thr), E
// amax's biased exponent; kZeroIndex for amax = 0): the scale byte s and
// the constants of sc[s], for the row kernels' common path. ok: the block
// takes that path (the binade is not slow, E <= sc[s].lim: no pre-scale, no
// fill, no reference; NaN and Inf blocks, E = 255, are slow), else the
// per-block path with the amax (RowBlock) decides as before. Built from
// etab and sc (quantize_fast.cpp build_fused): the same decisions, read
// with one load per block instead of the chain of lookups and tests.
struct alignas(16) BConst {
  uint32_t t, c0, max;
  uint8_t s, ok, pad[2];
};
constexpr uint32_t kZeroIndex = 512;
constexpr size_t kBConsts = 513;

// One element format's parameters for the conversion above.
struct ElemK {
  int m;
  uint32_t sign_bit;  // 0: unsigned
  int32_t max_enc;
  int32_t bias;      // the target's exponent bias
  uint32_t max_f32;  // its largest finite value as f32 bits
};
ElemK elem_k(Fmt elem);
// The constants for a multiplier 2^d; false when C or T is not normal.
bool conv_const(const ElemK& e, int d, SConst& out);
// The constants for 2^d, with a pre-scale 2^k (out.ps) where d alone
// leaves the normal range (the argument above); false when none fits.
bool conv_const_scaled(const ElemK& e, int d, SConst& out);

struct MxKern {
  const MxProfile* p;
  Fmt elem;
  const EScale* etab;  // [256]
  const SConst* sc;    // [256]
  uint8_t zero_byte;
  ElemK ek;
  // The ties of the elements' rounding to nearest: kTiesEven, kTiesToZero
  // (Round::kRNZ: the midpoint-comparison casts) or kTiesAway (kRNA).
  uint8_t ties = 0;
  // microxcaling's element rule (ApplyRule::kF32FloorHalfUp): every
  // element by its binary32 steps in registers (quantize_simd-inl.h
  // HalfUpCvt), with the tie mask subtracted for Round::kRNE (hu_even).
  bool half_up = false;
  bool hu_even = false;
  // The element zero rules (quantize_fast.cpp ZeroStep), in registers: the
  // code neg_zero_code becomes 0 (code_neg_zero), and inputs with |x|
  // below SConst::zl give 0 (scaled_zero).
  bool code_neg_zero = false, scaled_zero = false;
  uint8_t neg_zero_code = 0;
  // The block index tables (BConst): thr[E] (the significand threshold of
  // etab, contiguous for a vector gather) and bc[kBConsts].
  const uint32_t* thr = nullptr;
  const BConst* bc = nullptr;
  // thr[E] is thr_run for every E in [run_lo, run_lo + run_len) (the run
  // around E = 127; every scale rule's threshold is one significand for all
  // but a few binades at the ends): groups whose amaxes all lie there read
  // it without the gather (run_len 0: none do).
  uint32_t thr_run = 0x800000, run_lo = 0, run_len = 0;
};

// The largest |x| (f32 bits) with x * 2^d rounding to zero in f32:
// 2^(-150 - d) (the tie rounds to the even zero); for d >= 0 only a zero
// (bits 0). d in [-127, 127].
inline uint32_t zero_below(int d) {
  const int k = -150 - d;
  return k < -149   ? 0u
         : k < -126 ? 1u << (k + 149)
                    : static_cast<uint32_t>(k + 127) << 23;
}
constexpr uint8_t kTiesEven = 0, kTiesToZero = 1, kTiesAway = 2;

// microxcaling's element rule (ApplyRule::kF32FloorHalfUp) where
// A = fl(x / 2^X) is below the element's least normal 2^emin (|x| < T):
// the reference (emu/block/quantize.cpp microxcaling_element, SoftFloat
// binary32 ops, round to nearest even, subnormals kept) there computes
// pe = emin, y = fl(fl(A / 2^emin) * 2^m), r = floor(fl(|y| + 0.5)), for
// kRNE minus 1 where h = fl(|fl(|y| - 0.5)| * 0.5) is an integer, and the
// code of sign(y) * r * 2^(emin - m). The same binary32 operations in the
// same order on the host or in vector lanes (IEEE, round to nearest even,
// MXCSR/FPCR default: no flush to zero, as the conversion above assumes;
// -ffp-contract=off) give the same bits:
//   - A = fl(x * 2^-X): 2^-X = 2^(127 - s) is an f32 (2^-127 subnormal
//     for s = 254), so the product and the reference's quotient are the
//     same real number rounded once (an f32-subnormal A included);
//   - A / 2^emin * 2^m = A * 2^(m - emin) exactly (|A| < 2^emin, emin <= 0,
//     so scaling up by a power of two neither overflows nor rounds);
//   - fl(|y| + 0.5) (the sum that can round: the double rounding), floor,
//     fl(|y| - 0.5), * 0.5 (exact), floor and compare, r - 1: the
//     reference's steps, one f32 operation each;
//   - r is an integer in [0, 2^m] (r = 0 cannot take the -1: |y| < 0.5
//     makes h in (0, 0.25]), and r * 2^(emin - m) is the element's value
//     with magnitude code r (a subnormal, or 2^m: the least normal);
//     sign(y) is 0 for y = +-0 (code +0), else x's sign (r = 0: a -0 code).
// Returns the code; the profile's -0 code rule is the caller's.
inline uint32_t half_up_mul(uint8_t s) {  // 2^(127 - s) as f32 bits, s < 255
  return s == 254 ? uint32_t{1} << 22 : static_cast<uint32_t>(254 - s) << 23;
}
inline uint32_t half_up_sub(uint32_t x, uint32_t mul, uint32_t q, bool even,
                            uint32_t sign_bit) {
  const float y = std::bit_cast<float>(x) * std::bit_cast<float>(mul) *
                  std::bit_cast<float>(q);
  const float ay = std::fabs(y);
  float r = std::floor(ay + 0.5f);
  if (even) {
    const float h = std::fabs(ay - 0.5f) * 0.5f;
    if (std::floor(h) == h) r = r - 1.0f;
  }
  if (ay == 0.0f) return 0;
  return static_cast<uint32_t>(r) | ((x >> 31) != 0 ? sign_bit : 0u);
}

// Whether isa's vectors (at most 16 lanes) divide 16.
bool mx_fused_fits(Isa isa);

// One Highway source for every target (quantize_hwy.cpp), run on `isa`
// (fast::fused_isa(), not kScalar). Rowwise (blocks of B along a row; cols
// divisible by B, B by 16) and columnwise (blocks of B down a column; rows
// divisible by B, B by 16).
void mx_rows_simd(Isa isa, const MxKern& k, size_t B, size_t rows, size_t cols,
                  const uint32_t* x, uint8_t* scales, uint8_t* codes);
void mx_cols_simd(Isa isa, const MxKern& k, size_t B, size_t rows, size_t cols,
                  const uint32_t* x, uint8_t* scales, uint8_t* codes);

// One block the kernel does not take (a NaN or Inf element, or a scale byte
// whose multiplier is not modelled: SConst::lim): the reference, elements
// `stride` apart.
void mx_block_ref(const MxKern& k, const uint32_t* x, size_t stride, size_t n,
                  uint8_t* scale, uint8_t* codes, size_t cstride);
// The scale byte for a finite amax (bits < 0x7F800000).
inline uint8_t mx_scale_of(const MxKern& k, uint32_t amax) {
  if (amax == 0) return k.zero_byte;
  const EScale& e = k.etab[amax >> 23];
  if (e.slow != 0) return mx_scale_byte(*k.p, k.elem, amax);
  // Indexed, not selected: where amax's significand falls against thr is
  // data (about even odds for Gaussian block maxima), and compilers made
  // the select a branch (perf: MXFP8 rows spent a fifth of their time in
  // this per-block code).
  return e.byte[(amax & 0x7FFFFFu) >= e.thr ? 1 : 0];
}

}  // namespace mxc::fast::detail
