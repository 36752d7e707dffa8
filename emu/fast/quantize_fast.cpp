#include "emu/fast/quantize_fast.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "emu/block/quantize.h"
#include "emu/convert.h"
#include "emu/fast/convert_fast.h"
#include "emu/fast/fp_env.h"
#include "emu/fast/quantize_fused.h"
#include "emu/fast/quantize_stage.h"
#include "emu/round_pack.h"

namespace mxc::fast {
namespace {

// The scale byte as a function of amax, per binade of amax (biased exponent
// E in 1..254): lo[E] below the significand threshold thr[E], hi[E] from it
// on; slow[E]: this binade goes to mx_scale_byte.
struct ScaleTab {
  // What mx_scale_byte and the element conversion read from the profile.
  ScaleRule scale;
  int clamp_lo, clamp_hi;
  bool above_hi_is_nan;
  uint8_t nan_byte, inf_byte;
  Round round;
  Overflow overflow;
  ApplyRule apply;
  Fmt elem;

  uint8_t lo[256], hi[256], slow[256];
  uint32_t thr[256];
  uint32_t thr_run, run_lo, run_hi;  // quantize_fused.h MxKern
  uint8_t zero_byte;
  Plan plan;
  // The fused kernels' tables (quantize_fused.h).
  detail::EScale etab[256];
  detail::SConst sc[256];
  detail::BConst bc[detail::kBConsts];
  detail::ElemK ek;

  bool same(const MxProfile& p, Fmt e) const {
    return scale == p.scale && clamp_lo == p.clamp_lo &&
           clamp_hi == p.clamp_hi && above_hi_is_nan == p.above_hi_is_nan &&
           nan_byte == p.nan_byte && inf_byte == p.inf_byte &&
           round == p.elem_round && overflow == p.elem_overflow &&
           apply == p.apply && elem == e;
  }
};

// Every apply rule mx_covers takes multiplies by exactly 2^(127 - byte) for
// these bytes (TE's exp2f_rcp maps byte 0 to 1.0 and 254 to +0.0; torchao
// 0.18's division by max(byte << 23, 2^-126) divides by 2^-126 at byte 0:
// a quotient rounded once equals the product by the exact reciprocal).
// The staging loop scales by 2^(127 - byte) for these bytes only; the
// other bytes' blocks are flagged whole (patch, flag 2), which runs them
// by byte_mult's multiplier or fill code.
std::pair<int, int> exact_bytes(const MxProfile& p) {
  if (p.apply == ApplyRule::kF32MulTeRcp) return {1, 253};
  if (p.apply == ApplyRule::kF32DivMinNormal) return {1, 254};
  // torchao 0.18 RCEIL multiplies by 1.0 at byte 0 (not 2^127): byte 0
  // blocks go to the reference.
  if (p.apply == ApplyRule::kF32MulPow2Byte0One) return {1, 254};
  // compressed-tensors 0.20 divides by 2^(byte - 127), a normal or (byte 0)
  // subnormal power of two: the quotient rounded once is the product by
  // the exact reciprocal 2^(127 - byte) for bytes 0..254.
  return {0, 254};
}

// What the profile's apply rule multiplies an element by under scale byte
// s, when that is an exact f32 multiplier rounded once (the product, or a
// quotient by the multiplier's exact reciprocal): 2^d (kPow2), or a
// product that is a zero with x's sign (kZero: TE's exp2f_rcp at byte 254
// multiplies by +0; a division by +Inf, torchao 0.18's (255 << 23) and
// compressed-tensors' 2^128 at byte 255). kFill: the NaN scale under a
// rule whose every element is then one and the same NaN whatever x is:
// x times a NaN multiplier (kF32MulPow2, kF32MulPow2Byte0One, kF32MulRcp:
// emu/arith.h, NaN results are canonical) or microxcaling's x / 2^NaN
// (quantize.cpp microxcaling_element returns kF32Nan first), so the code
// is one constant (fill_code). kNone keeps the reference: kExactDivide's
// NaN scale (the NaN keeps x's sign) and TE's byte 255 (a -Inf
// multiplier: -Inf or, for x = 0, NaN).
struct ByteMult {
  enum Kind : uint8_t { kNone, kPow2, kZero, kFill } kind = kNone;
  int d = 0;
};
ByteMult byte_mult(const MxProfile& p, int s) {
  if (s == 255) {
    switch (p.apply) {
      case ApplyRule::kF32DivMinNormal:
      case ApplyRule::kF32DivPow2CtFp4:
        return {ByteMult::kZero, 0};
      case ApplyRule::kF32MulPow2:
      case ApplyRule::kF32MulPow2Byte0One:
      case ApplyRule::kF32MulRcp:
      case ApplyRule::kF32FloorHalfUp:
        return {ByteMult::kFill, 0};
      case ApplyRule::kExactDivide:
      case ApplyRule::kF32MulTeRcp:
        break;
    }
    return {};
  }
  if (s == 0 && (p.apply == ApplyRule::kF32MulTeRcp ||
                 p.apply == ApplyRule::kF32MulPow2Byte0One))
    return {ByteMult::kPow2, 0};  // multiplies by 1.0
  if (s == 0 && p.apply == ApplyRule::kF32DivMinNormal)
    return {ByteMult::kPow2, 126};  // divides by 2^-126
  if (s == 254 && p.apply == ApplyRule::kF32MulTeRcp)
    return {ByteMult::kZero, 0};
  return {ByteMult::kPow2, 127 - s};
}

// The code of every element under a kFill byte: mx_encode_element's cast
// of that NaN (cast_f32: nan_elem_to_zero, else the conversion; microxcaling
// converts its kF32Nan directly), then its -0 code rule.
uint32_t fill_code(const MxProfile& p, Fmt elem) {
  RoundSpec r;
  r.mode = p.elem_round;
  r.overflow = p.elem_overflow;
  uint64_t code = 0;
  if (p.apply == ApplyRule::kF32FloorHalfUp) {
    code = convert(Fmt::kF32, elem, 0x7FFFFFFFu, r);
  } else if (!p.nan_elem_to_zero) {
    code = convert(Fmt::kF32, elem, canonical_nan(Fmt::kF32), r);
  }
  if (p.neg_zero_to_pos && code == desc(elem).sign_mask()) code = 0;
  return static_cast<uint32_t>(code);
}

void build_fused(ScaleTab& t, const MxProfile& p, Fmt elem) {
  for (int E = 0; E < 256; ++E) {
    t.etab[E] = {t.thr[E], {t.lo[E], t.hi[E]}, t.slow[E], 0};
  }
  t.ek = detail::elem_k(elem);
  // An f32 product x * 2^d that overflows is +-Inf, which the satfinite
  // conversion must map to the largest finite (else limit amax so that the
  // product stays finite). The exact divide never forms the product.
  const bool inf_sat =
      p.apply == ApplyRule::kExactDivide ||
      (t.plan.covered && t.plan.inf[0] == t.ek.max_enc &&
       t.plan.inf[1] == (static_cast<uint32_t>(t.ek.max_enc) | t.ek.sign_bit));
  for (int s = 0; s < 256; ++s) {
    detail::SConst& c = t.sc[s];
    c = {0x3F800000u, 0x3F800000u, 0, -1, detail::kOneF32, 0, 0};
    const ByteMult bm = byte_mult(p, s);
    if (bm.kind == ByteMult::kFill) {
      c.lim = -1;  // RowBlock, ColPass: fill
      c.fill = static_cast<uint16_t>(fill_code(p, elem));
      continue;
    }
    if (bm.kind == ByteMult::kZero) {
      // Every element x * (+0) = +-0: MAX = 0 makes a = 0 and the code a
      // zero with x's sign, as the reference's cast of +-0; the zero rules
      // take every finite input.
      c.lim = 254;
      c.zl = 0x7F800000u;
      continue;
    }
    const int d = bm.d;
    if (bm.kind == ByteMult::kNone || !detail::conv_const_scaled(t.ek, d, c)) {
      c.lim = -1;
      continue;
    }
    c.lim = inf_sat ? 254 : std::min(254, 254 - d);
    c.mul = d >= -126 ? static_cast<uint32_t>(d + 127) << 23
                      : uint32_t{1} << (d + 149);
    c.zl = detail::zero_below(d) + 1;
    if (c.ps != detail::kOneF32) {
      c.lim_ps = static_cast<int16_t>(c.lim);
      c.lim = -1;
    }
  }
  // The block index table (quantize_fused.h BConst): what RowBlock decides
  // from etab and sc for amax in binade E on side h of thr[E] (amax = 0:
  // kZeroIndex, binade 0 for the lim test).
  auto entry = [&](int E, uint8_t s, bool slow) {
    const detail::SConst& c = t.sc[s];
    detail::BConst b{c.t, c.c0, c.max, s, 0, {0, 0}};
    b.ok = !slow && E <= c.lim ? 1 : 0;
    return b;
  };
  for (int E = 0; E < 256; ++E) {
    for (int h = 0; h < 2; ++h)
      t.bc[2 * E + h] = entry(E, t.etab[E].byte[h], t.etab[E].slow != 0);
  }
  t.bc[detail::kZeroIndex] = entry(0, t.zero_byte, false);
}

void build(ScaleTab& t, const MxProfile& p, Fmt elem) {
  auto f = [&](uint32_t amax) { return mx_scale_byte(p, elem, amax); };
  t.zero_byte = f(0);
  t.slow[0] = t.slow[255] = 1;
  for (uint32_t E = 1; E < 255; ++E) {
    const uint32_t b = E << 23;
    const uint8_t lo = f(b), hi = f(b | 0x7FFFFF);
    uint32_t thr = 0x800000;  // never
    if (lo != hi) {
      uint32_t l = 0, h = 0x7FFFFF;  // f(l) == lo, f(h) != lo
      while (h - l > 1) {
        const uint32_t mid = l + (h - l) / 2;
        (f(b | mid) == lo ? l : h) = mid;
      }
      thr = h;
    }
    // Check the one-step shape on samples across the binade.
    bool ok = lo == hi || f(b | thr) == hi;
    for (uint32_t k = 1; ok && k < 64; ++k) {
      const uint32_t m = (k * 0x7FFFFFu / 64u + k * 7919u) & 0x7FFFFF;
      ok = f(b | m) == (m >= thr ? hi : lo);
    }
    if (thr < 0x800000 && thr > 0) ok = ok && f(b | (thr - 1)) == lo;
    t.lo[E] = lo;
    t.hi[E] = hi;
    t.thr[E] = thr;
    t.slow[E] = ok ? 0 : 1;
  }
  t.thr_run = t.thr[127];
  t.run_lo = t.run_hi = 127;
  while (t.run_lo > 1 && t.thr[t.run_lo - 1] == t.thr_run) --t.run_lo;
  while (t.run_hi < 254 && t.thr[t.run_hi + 1] == t.thr_run) ++t.run_hi;
  RoundSpec r;
  r.mode = p.elem_round;
  r.overflow = p.elem_overflow;
  t.plan = make_plan(elem, r);
  build_fused(t, p, elem);
}

const ScaleTab& scale_tab(const MxProfile& p, Fmt elem) {
  static std::mutex mu;
  static std::vector<std::unique_ptr<ScaleTab>> cache;
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& t : cache) {
    if (t->same(p, elem)) return *t;
  }
  auto t = std::make_unique<ScaleTab>();
  t->scale = p.scale;
  t->clamp_lo = p.clamp_lo;
  t->clamp_hi = p.clamp_hi;
  t->above_hi_is_nan = p.above_hi_is_nan;
  t->nan_byte = p.nan_byte;
  t->inf_byte = p.inf_byte;
  t->round = p.elem_round;
  t->overflow = p.elem_overflow;
  t->apply = p.apply;
  t->elem = elem;
  build(*t, p, elem);
  cache.push_back(std::move(t));
  return *cache.back();
}

// The test switches of set_fused_isa and set_portable_isa: -1 is the
// default.
std::atomic<int>& fused_isa_flag() {
  static std::atomic<int> flag{-1};
  return flag;
}
std::atomic<int>& portable_isa_flag() {
  static std::atomic<int> flag{-1};
  return flag;
}

// The fused kernels take satfinite elements rounded to nearest (ties to
// even, toward zero or away), and blocks of a multiple of 16 elements.
bool fused_takes(const MxProfile& p) {
  return fused_isa() != Isa::kScalar &&
         (p.elem_round == Round::kRNE || p.elem_round == Round::kRNZ ||
          p.elem_round == Round::kRNA) &&
         p.elem_overflow == Overflow::kSatFinite && p.block % 16 == 0;
}

// The profile's element zero rules (profile.h) as one step after the
// kernels, over every element (idempotent on the elements the reference
// recomputed, which already follow them):
//  - neg_zero_to_pos: a -0 code becomes +0;
//  - exact_neg_zero_to_pos (TE MXFP4: the scaled f32 is exactly -0), and
//    compressed-tensors' "|y| == 0 -> code 0": an input whose scaled f32
//    x * 2^(127 - byte) is zero gives +0: x = +-0, or |x| * 2^d at most
//    2^-150 (rounds to zero; both rules' apply is that exact product for
//    bytes 0..254). A block with byte 0xFF is left as the kernels wrote
//    it, from the reference;
//  - nan_elem_to_zero needs no step: a NaN element never takes the fast
//    conversion (the kernels recompute it with mx_encode_element).
struct ZeroStep {
  bool code_neg_zero = false, scaled_zero = false;
  uint8_t neg_zero_code = 0;
  const detail::SConst* sc = nullptr;  // [256]: the limits (SConst::zl)
};

using detail::zero_below;

ZeroStep zero_step(const MxProfile& p, Fmt elem) {
  ZeroStep z;
  z.code_neg_zero = p.neg_zero_to_pos;
  z.scaled_zero =
      p.exact_neg_zero_to_pos || p.apply == ApplyRule::kF32DivPow2CtFp4;
  // Only where the rule needs it: this runs once per call, per block for
  // mx_quantize_block.
  if (z.code_neg_zero)
    z.neg_zero_code = static_cast<uint8_t>(desc(elem).sign_mask());
  if (z.scaled_zero) z.sc = scale_tab(p, elem).sc;
  return z;
}

// |x| below this (f32 bits) gives code 0 under scale byte s; 0 (nothing)
// for the NaN scale, whose blocks the reference wrote.
inline uint32_t zero_limit(const ZeroStep& z, uint8_t s) {
  return z.scaled_zero ? z.sc[s].zl : 0u;
}

// Plain loops the compiler vectorizes (a -0 code, then the inputs).
void zero_codes(const ZeroStep& z, uint8_t* codes, size_t n) {
  if (!z.code_neg_zero) return;
  const uint8_t nz = z.neg_zero_code;
  for (size_t i = 0; i < n; ++i) codes[i] = codes[i] == nz ? 0 : codes[i];
}
void zero_inputs(uint32_t lim, const uint32_t* x, uint8_t* codes, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t keep = (x[i] & 0x7FFFFFFFu) >= lim ? 0xFFu : 0u;
    codes[i] = static_cast<uint8_t>(codes[i] & keep);
  }
}

// Row-major rows x cols, blocks of B along rows (scales [row][col / B]).
void zero_step_rows(const ZeroStep& z, size_t B, size_t rows, size_t cols,
                    const uint32_t* x, const uint8_t* scales, uint8_t* codes) {
  zero_codes(z, codes, rows * cols);
  if (!z.scaled_zero) return;
  const size_t nb = rows * (cols / B);
  for (size_t b = 0; b < nb; ++b)
    zero_inputs(zero_limit(z, scales[b]), x + b * B, codes + b * B, B);
}

// Row-major rows x cols, blocks of B down columns (scales [row / B][col]).
void zero_step_cols(const ZeroStep& z, size_t B, size_t rows, size_t cols,
                    const uint32_t* x, const uint8_t* scales, uint8_t* codes) {
  zero_codes(z, codes, rows * cols);
  if (!z.scaled_zero) return;
  std::vector<uint32_t> lim(cols);
  for (size_t r = 0; r < rows; ++r) {
    if (r % B == 0) {
      const uint8_t* sr = scales + (r / B) * cols;
      for (size_t c = 0; c < cols; ++c) lim[c] = zero_limit(z, sr[c]);
    }
    const uint32_t* xr = x + r * cols;
    uint8_t* cr = codes + r * cols;
    for (size_t c = 0; c < cols; ++c) {
      const uint32_t keep = (xr[c] & 0x7FFFFFFFu) >= lim[c] ? 0xFFu : 0u;
      cr[c] = static_cast<uint8_t>(cr[c] & keep);
    }
  }
}

// microxcaling's element rule (ApplyRule::kF32FloorHalfUp, profile.h),
// run as the kernels' rounding to nearest (ties away for its kRNA, to even
// for kRNE, satfinite) plus this step after them. Where A = fl(x / 2^X) is
// at least the element's least normal 2^emin the rule is that rounding:
// y = |A| * 2^(m - pe) lies in [2^m, 2^(m+1)), where 0.5 is a multiple of
// y's ulp, so fl(|y| + 0.5) and fl(|y| - 0.5) are exact and
// floor(|y| + 0.5) (minus the kRNE tie mask) rounds y to an integer; a
// log2f rounded one binade high (|A| a few ulps below 2^k) puts y a few
// ulps below 2^m, which gives 2^m: 2^k, as the rounding does; above the
// format, the clamp is the satfinite bound. Below 2^emin (|x| < 2^(emin +
// X)), y has bits under fl(|y| + 0.5)'s precision and the sum rounds
// (double rounding), so those elements take the rule's binary32 steps
// themselves (quantize_fused.h half_up_sub: the reference's operations in
// its order, exact), and zeros give +0 (torch.sign(+-0) = 0). Blocks with
// the NaN scale were written by the reference. The fused kernels run the
// rule's binary32 steps on every element in registers (MxKern::half_up,
// quantize_simd-inl.h HalfUpCvt); the portable path runs half_up_rows/cols
// after it.
bool floor_half_up(const MxProfile& p) {
  return p.apply == ApplyRule::kF32FloorHalfUp;
}

// 2^(emin + X) as f32 bits for scale byte s (0: no element is below it).
uint32_t half_up_limit(Fmt elem, uint8_t s) {
  const int e = 1 - desc(elem).bias + int{s} - 127;
  return e >= -126   ? static_cast<uint32_t>(e + 127) << 23
         : e >= -149 ? uint32_t{1} << (e + 149)
                     : 0u;
}

// Whether any of n elements (stride 1) lies below lim: a loop the compiler
// vectorizes, so that the common block (none) costs one pass.
bool any_below(uint32_t lim, const uint32_t* x, size_t n) {
  uint32_t below = 0;
  for (size_t i = 0; i < n; ++i) below |= (x[i] & 0x7FFFFFFFu) < lim ? 1u : 0u;
  return below != 0;
}

// 2^(m - emin) as f32 bits (detail::half_up_sub's q).
uint32_t half_up_q(Fmt elem) {
  const FormatDesc& d = desc(elem);
  return static_cast<uint32_t>(d.man_bits - (1 - d.bias) + 127) << 23;
}

// The element below lim under scale byte s by the rule: half_up_sub (its
// binary32 steps, exact), then the profile's -0 code rule, as
// mx_encode_element.
inline uint8_t half_up_elem(const MxProfile& p, Fmt elem, uint8_t s,
                            uint32_t v) {
  const FormatDesc& d = desc(elem);
  const uint32_t sb = static_cast<uint32_t>(d.sign_mask());
  uint32_t c = detail::half_up_sub(v, detail::half_up_mul(s), half_up_q(elem),
                                   p.elem_round == Round::kRNE, sb);
  if (p.neg_zero_to_pos && c == sb) c = 0;
  return static_cast<uint8_t>(c);
}

void half_up_rows(const MxProfile& p, Fmt elem, size_t B, size_t rows,
                  size_t cols, const uint32_t* x, const uint8_t* scales,
                  uint8_t* codes) {
  if (!floor_half_up(p)) return;
  const size_t nb = rows * (cols / B);
  for (size_t b = 0; b < nb; ++b) {
    const uint8_t s = scales[b];
    if (s == 0xFF) continue;
    const uint32_t lim = half_up_limit(elem, s);
    const uint32_t* xb = x + b * B;
    if (!any_below(lim, xb, B)) continue;
    for (size_t i = 0; i < B; ++i)
      if ((xb[i] & 0x7FFFFFFFu) < lim)
        codes[b * B + i] = half_up_elem(p, elem, s, xb[i]);
  }
}

void half_up_cols(const MxProfile& p, Fmt elem, size_t B, size_t rows,
                  size_t cols, const uint32_t* x, const uint8_t* scales,
                  uint8_t* codes) {
  if (!floor_half_up(p)) return;
  std::vector<uint32_t> lim(cols);
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* sr = scales + (r / B) * cols;
    if (r % B == 0)
      for (size_t c = 0; c < cols; ++c)
        lim[c] = sr[c] == 0xFF ? 0u : half_up_limit(elem, sr[c]);
    const uint32_t* xr = x + r * cols;
    uint32_t below = 0;
    for (size_t c = 0; c < cols; ++c)
      below |= (xr[c] & 0x7FFFFFFFu) < lim[c] ? 1u : 0u;
    if (below == 0) continue;
    for (size_t c = 0; c < cols; ++c)
      if ((xr[c] & 0x7FFFFFFFu) < lim[c])
        codes[r * cols + c] = half_up_elem(p, elem, sr[c], xr[c]);
  }
}

detail::MxKern kern(const MxProfile& p, Fmt elem) {
  const ScaleTab& t = scale_tab(p, elem);
  const uint8_t ties = p.elem_round == Round::kRNZ   ? detail::kTiesToZero
                       : p.elem_round == Round::kRNA ? detail::kTiesAway
                                                     : detail::kTiesEven;
  const ZeroStep z = zero_step(p, elem);
  detail::MxKern k{&p,          elem, t.etab, t.sc,
                   t.zero_byte, t.ek, ties,   floor_half_up(p)};
  k.hu_even = p.elem_round == Round::kRNE;
  k.code_neg_zero = z.code_neg_zero;
  k.scaled_zero = z.scaled_zero;
  k.neg_zero_code = z.neg_zero_code;
  k.thr = t.thr;
  k.thr_run = t.thr_run;
  k.run_lo = t.run_lo;
  k.run_len = t.run_hi - t.run_lo + 1;
  k.bc = t.bc;
  return k;
}

struct Ctx {
  detail::MxStage st;
  const Plan* plan;
  // Whether patch computes the elements the staging cannot scale by the
  // hardware product (patch_by_product).
  bool by_product;
  const MxProfile& p() const { return *st.k.p; }
};

// The elements that the staging's exponent-field add cannot scale (an
// f32-subnormal input, or a product that is f32-subnormal or overflows),
// under a byte s in exact_bytes: every apply rule but kExactDivide forms
// y = fl(x * 2^(127 - s)) in binary32 (exact_bytes: a product by that
// power of two, or a quotient by its exact reciprocal, rounded once), and
// the hardware multiply (IEEE, round to nearest even, no flush to zero, as
// the fused kernels assume) by 2^(127 - s) as an f32 (detail::half_up_mul,
// 2^-127 subnormal for 254) rounds the same real number once; then the
// cast is run_plan_one (bit-identical to convert for every f32 input,
// subnormals and Inf included), the zero rules (ZeroStep) and
// microxcaling's step after it, as for every element. kExactDivide rounds
// x * 2^d once, to the element: fl() differs from it only for an
// f32-subnormal product, below 2^-126, far under half the element's
// smallest quantum (2^-17 for E5M2), which every rounding to nearest and
// toward zero takes to the zero with x's sign either way; other roundings
// (directed away from zero) and an overflowed product (Inf: the format's
// overflow rule on an exact value) keep the per-element reference.
bool patch_by_product(const MxProfile& p) {
  if (p.apply != ApplyRule::kExactDivide) return true;
  return p.elem_round == Round::kRNE || p.elem_round == Round::kRNA ||
         p.elem_round == Round::kRNZ || p.elem_round == Round::kRZ;
}

Ctx make_ctx(const MxProfile& p, Fmt elem) {
  const auto [s_lo, s_hi] = exact_bytes(p);
  return Ctx{
      {kern(p, elem), static_cast<uint32_t>(s_lo), static_cast<uint32_t>(s_hi)},
      &scale_tab(p, elem).plan,
      patch_by_product(p)};
}

inline bool elem_fast(uint32_t v, int32_t d) {
  uint32_t bad = 0;
  (void)detail::stage_scaled(v, d, bad);
  return bad == 0;
}

constexpr size_t kChunk = 2048;  // elements staged per run_plan call

bool finite(const uint32_t* x, size_t stride, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if ((x[i * stride] & 0x7FFFFFFFu) >= 0x7F800000u) return false;
  return true;
}

// flag 1: the elements the staging could not scale (patch_by_product);
// flag 2: a byte outside exact_bytes, the whole block: its byte_mult fill
// code or multiplier (finite blocks), else the reference.
void patch(const Ctx& c, uint8_t flag, uint8_t s, const uint32_t* x,
           size_t stride, size_t n, uint8_t* codes, size_t cstride) {
  const int32_t d = 127 - int32_t{s};
  const bool exact_divide = c.p().apply == ApplyRule::kExactDivide;
  const float mul = std::bit_cast<float>(detail::half_up_mul(s));
  // A byte outside exact_bytes whose multiplier is modelled (byte_mult:
  // 1.0, 2^126, +0): every element is y = fl(x * mul), the rule's
  // product, cast by the plan.
  // Finite blocks only (NaN and Inf elements keep the reference).
  const detail::SConst& sc = c.st.k.sc[s];
  if (flag == 2 && sc.fill != 0x100 && finite(x, stride, n)) {
    for (size_t i = 0; i < n; ++i)
      codes[i * cstride] = static_cast<uint8_t>(sc.fill);
    return;
  }
  if (flag == 2 && (sc.lim >= 0 || sc.lim_ps >= 0) &&
      c.p().apply != ApplyRule::kExactDivide && finite(x, stride, n)) {
    const float m2 = std::bit_cast<float>(sc.mul);
    for (size_t i = 0; i < n; ++i)
      codes[i * cstride] = run_plan_one(
          *c.plan,
          std::bit_cast<uint32_t>(std::bit_cast<float>(x[i * stride]) * m2));
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = x[i * stride];
    if (flag == 2 || !elem_fast(v, d)) {
      if (flag == 1 && c.by_product && (v & 0x7FFFFFFFu) < 0x7F800000u) {
        const uint32_t y =
            std::bit_cast<uint32_t>(std::bit_cast<float>(v) * mul);
        if (!exact_divide || (y & 0x7FFFFFFFu) < 0x7F800000u) {
          codes[i * cstride] = run_plan_one(*c.plan, y);
          continue;
        }
      }
      codes[i * cstride] = mx_encode_element(c.p(), c.st.k.elem, s, v);
    }
  }
}

void rows_impl(const Ctx& c, int rows, int cols, const uint32_t* x,
               uint8_t* scales, uint8_t* codes) {
  const size_t B = static_cast<size_t>(c.p().block);
  const size_t n = static_cast<size_t>(cols);
  const size_t chunk = std::max(B, kChunk / B * B);
  std::vector<uint32_t> y(std::min(chunk, n));
  std::vector<uint8_t> flags(y.size() / B + 1);
  const Isa isa = portable_isa();
  for (size_t r = 0; r < static_cast<size_t>(rows); ++r) {
    const uint32_t* xr = x + r * n;
    uint8_t* sr = scales + r * (n / B);
    uint8_t* cr = codes + r * n;
    for (size_t c0 = 0; c0 < n; c0 += chunk) {
      const size_t len = std::min(chunk, n - c0);
      detail::mx_row_stage(isa, c.st, xr + c0, len, B, sr + c0 / B, y.data(),
                           flags.data());
      run_plan(*c.plan, isa, y.data(), cr + c0, len);
      for (size_t b = 0; b * B < len; ++b) {
        if (flags[b] != 0)
          patch(c, flags[b], sr[c0 / B + b], xr + c0 + b * B, 1, B,
                cr + c0 + b * B, 1);
      }
    }
  }
}

}  // namespace

bool mx_covers(const MxProfile& p, Fmt elem) {
  switch (elem) {
    case Fmt::kE4M3:
    case Fmt::kE5M2:
    case Fmt::kE3M2:
    case Fmt::kE2M3:
    case Fmt::kE2M1:
      break;
    default:
      return false;
  }
  // The rules these kernels implement (checked bit-exact against the
  // reference in tests/test_fast_quantize.cpp); any other rule declines, and
  // mx_quantize_* fall back to the reference path.
  switch (p.apply) {
    case ApplyRule::kExactDivide:
    case ApplyRule::kF32MulPow2:
    case ApplyRule::kF32MulTeRcp:
    case ApplyRule::kF32MulRcp:
    case ApplyRule::kF32DivMinNormal:     // torchao 0.18 FLOOR/CEIL/EVEN
    case ApplyRule::kF32MulPow2Byte0One:  // torchao 0.18 RCEIL
    case ApplyRule::kF32DivPow2CtFp4:  // compressed-tensors 0.20 (+ ZeroStep)
    case ApplyRule::kF32FloorHalfUp:   // microxcaling (+ half_up_rows/cols)
      break;
  }
  // inf_by_exponent (torchao 0.18) changes the scale of an Inf amax only,
  // and a block with an Inf or NaN takes the reference's scale byte.
  // kRceilLog2 (torchao 0.18 RCEIL, ModelOpt) is monotone in amax with at
  // most one step per binade (docs/performance.md "MX quantization"), so the
  // per-binade table is exact for it; so is kFloorLog2 (microxcaling: one
  // binade high a few ulps below 2^k), and build() checks the shape.
  RoundSpec r;
  r.mode = p.elem_round;
  r.overflow = p.elem_overflow;
  // The element zero rules run as a step after the kernels (ZeroStep).
  return p.block > 0 && covers(elem, r);
}

void set_fused_isa(Isa isa) { fused_isa_flag().store(static_cast<int>(isa)); }
void reset_fused_isa() {
  fused_isa_flag().store(-1);
  portable_isa_flag().store(-1);
}
void set_portable_isa(Isa isa) {
  portable_isa_flag().store(static_cast<int>(isa));
}
Isa portable_isa() {
  const int f = portable_isa_flag().load();
  if (f < 0) return best_convert_isa();
  const Isa isa = static_cast<Isa>(f);
  return isa_supported(isa) ? isa : Isa::kScalar;
}
Isa fused_isa() {
  const int f = fused_isa_flag().load();
  const Isa isa = f < 0 ? best_isa() : static_cast<Isa>(f);
  if (isa == Isa::kScalar || !isa_supported(isa) || !detail::mx_fused_fits(isa))
    return Isa::kScalar;
  return isa;
}

namespace detail {

ElemK elem_k(Fmt elem) {
  const FormatDesc& d = desc(elem);
  ElemK e;
  e.m = d.man_bits;
  e.sign_bit = d.has_sign ? static_cast<uint32_t>(d.sign_mask()) : 0u;
  e.max_enc = static_cast<int32_t>(max_finite_bits(elem, false));
  e.bias = d.bias;
  e.max_f32 = static_cast<uint32_t>(
      convert(elem, Fmt::kF32, static_cast<uint64_t>(e.max_enc)));
  return e;
}

bool conv_const_scaled(const ElemK& e, int d, SConst& out) {
  out.ps = kOneF32;
  if (conv_const(e, d, out)) return true;
  // The smallest |k| that makes the constants normal (quantize_fused.h:
  // a' = fl(a * 2^k), the constants of 2^(d - k)); for k < 0, T' at least
  // 2^(m - 125) so that every a' that rounds is below half the quantum.
  const int emin = 1 - e.bias;
  for (int j = 1; j <= 126; ++j) {
    for (const int k : {j, -j}) {
      if (k < 0 && emin - (d - k) < e.m - 125) continue;
      if (conv_const(e, d - k, out)) {
        out.ps = static_cast<uint32_t>(k + 127) << 23;
        return true;
      }
    }
  }
  return false;
}

bool conv_const(const ElemK& e, int d, SConst& out) {
  const int emin = 1 - e.bias;
  const int emax = static_cast<int>(e.max_f32 >> 23) - 127;
  const int kt = emin - d;       // T = 2^kt
  const int kc = kt + 23 - e.m;  // C0 = 2^kc
  const int kx = emax - d;       // MAX = maxv * 2^-d, exponent kx
  const int ktop = std::max(kx, kt) + 23 - e.m;  // the largest C
  if (kt < -126 || kx < -126 || kx > 127 || ktop > 127) return false;
  out.t = static_cast<uint32_t>(kt + 127) << 23;
  out.c0 = static_cast<uint32_t>(kc + 127) << 23;
  out.max = (static_cast<uint32_t>(kx + 127) << 23) | (e.max_f32 & 0x7FFFFFu);
  return true;
}

void mx_block_ref(const MxKern& k, const uint32_t* x, size_t stride, size_t n,
                  uint8_t* scale, uint8_t* codes, size_t cstride) {
  std::vector<uint32_t> buf(n);
  for (size_t i = 0; i < n; ++i) buf[i] = x[i * stride];
  const std::span<const uint32_t> blk(buf);
  const uint8_t s = mx_scale_byte(*k.p, k.elem, block_amax(*k.p, blk));
  *scale = s;
  for (size_t i = 0; i < n; ++i)
    codes[i * cstride] = mx_encode_element(*k.p, k.elem, s, buf[i]);
}

}  // namespace detail

bool mx_quantize_block(const MxProfile& p, Fmt elem, const uint32_t* x,
                       size_t n, uint8_t& scale, uint8_t* codes) {
  const FpEnvDefault fp_env;  // fp_env.h
  if (!mx_covers(p, elem) || n == 0 || n > kChunk) return false;
  const bool fused = n % 16 == 0 && fused_takes(p);
  if (fused) {
    detail::mx_rows_simd(fused_isa(), kern(p, elem), n, 1, n, x, &scale, codes);
  } else {
    const Ctx c = make_ctx(p, elem);
    uint32_t y[kChunk];
    uint8_t flag = 0;
    const Isa isa = portable_isa();
    detail::mx_row_stage(isa, c.st, x, n, n, &scale, y, &flag);
    run_plan(*c.plan, isa, y, codes, n);
    if (flag != 0) patch(c, flag, scale, x, 1, n, codes, 1);
  }
  // The fused kernels ran the zero rules and microxcaling's step
  // themselves (MxKern: code_neg_zero, scaled_zero, half_up).
  if (!fused) {
    zero_step_rows(zero_step(p, elem), n, 1, n, x, &scale, codes);
    half_up_rows(p, elem, n, 1, n, x, &scale, codes);
  }
  return true;
}

bool mx_quantize_rowwise(const MxProfile& p, Fmt elem, int rows, int cols,
                         const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const FpEnvDefault fp_env;  // fp_env.h
  if (!mx_covers(p, elem)) return false;
  const bool fused = fused_takes(p);
  if (fused) {
    detail::mx_rows_simd(
        fused_isa(), kern(p, elem), static_cast<size_t>(p.block),
        static_cast<size_t>(rows), static_cast<size_t>(cols), x, scales, codes);
  } else {
    rows_impl(make_ctx(p, elem), rows, cols, x, scales, codes);
  }
  if (fused) return true;  // the kernels ran the steps below (MxKern)
  zero_step_rows(zero_step(p, elem), static_cast<size_t>(p.block),
                 static_cast<size_t>(rows), static_cast<size_t>(cols), x,
                 scales, codes);
  half_up_rows(p, elem, static_cast<size_t>(p.block), static_cast<size_t>(rows),
               static_cast<size_t>(cols), x, scales, codes);
  return true;
}

namespace {

// The column kernels: the fused ones, or the portable staged path.
void colwise_kernels(const MxProfile& p, Fmt elem, int rows, int cols,
                     const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  if (fused_takes(p)) {
    detail::mx_cols_simd(
        fused_isa(), kern(p, elem), static_cast<size_t>(p.block),
        static_cast<size_t>(rows), static_cast<size_t>(cols), x, scales, codes);
    return;
  }
  const Ctx c = make_ctx(p, elem);
  const size_t B = static_cast<size_t>(p.block);
  const size_t n = static_cast<size_t>(cols);
  const size_t W = std::min<size_t>(n, 512);
  std::vector<uint32_t> amax(W), y(W), col(B), bad(W);
  std::vector<uint8_t> s(W), ok(W);
  std::vector<int32_t> d(W);
  const Isa isa = portable_isa();
  for (size_t r0 = 0; r0 < static_cast<size_t>(rows); r0 += B) {
    for (size_t c0 = 0; c0 < n; c0 += W) {
      const size_t w = std::min(W, n - c0);
      const uint32_t* xb = x + r0 * n + c0;
      detail::mx_col_amax(isa, xb, n, B, w, amax.data());
      uint8_t* sb = scales + (r0 / B) * n + c0;
      for (size_t j = 0; j < w; ++j) {
        if (amax[j] >= 0x7F800000u) {
          for (size_t i = 0; i < B; ++i) col[i] = xb[i * n + j];
          s[j] = mx_scale_byte(p, elem, block_amax(p, col));
        } else {
          s[j] = detail::mx_scale_of(c.st.k, amax[j]);
        }
        sb[j] = s[j];
        ok[j] = detail::stage_block_ok(c.st, s[j]) ? 1 : 0;
        d[j] = 127 - int32_t{s[j]};
        bad[j] = ok[j] ? 0 : 1;
      }
      for (size_t i = 0; i < B; ++i) {
        const uint32_t* xr = xb + i * n;
        detail::mx_col_scale_row(isa, xr, w, d.data(), y.data(), bad.data());
        run_plan(*c.plan, isa, y.data(), codes + (r0 + i) * n + c0, w);
      }
      for (size_t j = 0; j < w; ++j) {
        if (bad[j] != 0)
          patch(c, ok[j] ? 1 : 2, s[j], xb + j, n, B, codes + r0 * n + c0 + j,
                n);
      }
    }
  }
}

}  // namespace

bool mx_quantize_colwise(const MxProfile& p, Fmt elem, int rows, int cols,
                         const uint32_t* x, uint8_t* scales, uint8_t* codes) {
  const FpEnvDefault fp_env;  // fp_env.h
  if (!mx_covers(p, elem)) return false;
  colwise_kernels(p, elem, rows, cols, x, scales, codes);
  if (fused_takes(p)) return true;  // the kernels ran the steps (MxKern)
  zero_step_cols(zero_step(p, elem), static_cast<size_t>(p.block),
                 static_cast<size_t>(rows), static_cast<size_t>(cols), x,
                 scales, codes);
  half_up_cols(p, elem, static_cast<size_t>(p.block), static_cast<size_t>(rows),
               static_cast<size_t>(cols), x, scales, codes);
  return true;
}

}  // namespace mxc::fast
