#include "emu/block/quantize.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <optional>
#include <stdexcept>

#include "emu/arith.h"
#include "emu/block/scale.h"
#include "emu/convert.h"
#include "emu/fast/amax.h"
#include "emu/fast/isa.h"
#include "emu/fast/nvfp4_fast.h"
#include "emu/fast/nvfp4_sr.h"
#include "emu/fast/quantize_fast.h"
#include "emu/round_pack.h"
#include "emu/unpack.h"

namespace mxc {
namespace {

constexpr uint32_t kF32One = 0x3F800000u;
constexpr uint32_t kF32Max = 0x7F7FFFFFu;
constexpr uint32_t kF32Nan = 0x7FFFFFFFu;

bool is_nan(uint32_t x) { return (x & 0x7FFFFFFFu) > 0x7F800000u; }
bool is_inf(uint32_t x) { return (x & 0x7FFFFFFFu) == 0x7F800000u; }

// An f32 rounded to bfloat16 (RNE) and back, as torch's CPU bf16 ops do.
uint32_t to_bf16(uint32_t x) {
  const uint64_t b = convert(Fmt::kF32, Fmt::kBF16, x, RoundSpec{});
  return static_cast<uint32_t>(convert(Fmt::kBF16, Fmt::kF32, b));
}

// Unsigned compare of magnitudes = compare of non-negative f32 values.
uint32_t mag(uint32_t x) { return x & 0x7FFFFFFFu; }

// fminf(x, FLT_MAX) for x >= 0 (NaN -> FLT_MAX, as fminf ignores NaN).
uint32_t min_flt_max(uint32_t x) {
  if (is_nan(x)) return kF32Max;
  return mag(x) > kF32Max ? kF32Max : x;
}

RoundSpec elem_spec(const MxProfile& p) {
  RoundSpec r;
  r.mode = p.elem_round;
  r.overflow = p.elem_overflow;
  return r;
}

// 2^e as binary32 bits, e in [-149, 127].
uint32_t f32_pow2(int e) {
  return e >= -126 ? static_cast<uint32_t>(e + 127) << 23
                   : uint32_t{1} << (e + 149);
}

// floor of a non-negative finite binary32 (torch.floor).
uint32_t f32_floor_nonneg(uint32_t y) {
  const int e = static_cast<int>((y >> 23) & 0xFF) - 127;
  if (e < 0) return 0;
  if (e >= 23) return y;
  return y & ~((uint32_t{1} << (23 - e)) - 1);
}

// microxcaling mx/elemwise_ops.py _quantize_elemwise_core and
// _round_mantissa (round 'nearest' or 'even', saturate_normals=True,
// allow_denorm=True), step by step in binary32 on A = fl(x / 2^X)
// (mx/mx_ops.py _quantize_mx). Returns the quantized value (binary32 bits,
// a value of the element format, or NaN).
uint32_t microxcaling_element(Fmt elem, Round mode, uint8_t scale, uint32_t x) {
  if (scale == 0xFF) return kF32Nan;  // x / 2^NaN
  const uint32_t a = f32_div(x, f32_pow2(int{scale} - 127));
  if (is_nan(a) || is_inf(a)) return a;  // out[A == +-Inf] = +-Inf
  const FormatDesc& d = desc(elem);
  const bool is_int = d.specials == Specials::kInt;
  // bits - 2 of microxcaling's mbits: the fraction bits (MXINT8: 6).
  const int m = is_int ? d.bias : d.man_bits;
  // Private exponent: floor(log2f(|A| + (A == 0))), at least emin.
  int pe = 0;
  if (!is_int) {
    const uint32_t am = mag(a);
    pe = std::max(am == 0 ? 0 : floor_log2f(am), 1 - d.bias);
  }
  const uint32_t y = f32_mul(f32_div(a, f32_pow2(pe)), f32_pow2(m));
  const uint32_t abs_y = mag(y);
  uint32_t r = f32_floor_nonneg(f32_add(abs_y, 0x3F000000u));  // +0.5
  if (mode == Round::kRNE) {
    // (|y| - 0.5) % 2 == 0 (torch.remainder: fmod, exact): |y| - 0.5 is an
    // even integer, i.e. half of it is an integer.
    const uint32_t half =
        f32_mul(mag(f32_add(abs_y, 0xBF000000u)), 0x3F000000u);
    const bool even = f32_floor_nonneg(half) == half;
    if (even) r = f32_add(r, 0xBF800000u);  // - 1.0
  }
  // torch.sign: +1, -1, or +0 for +-0.
  const uint32_t sgn =
      abs_y == 0 ? 0u : ((y >> 31) != 0 ? 0xBF800000u : kF32One);
  uint32_t q = f32_mul(sgn, r);
  q = f32_mul(f32_div(q, f32_pow2(m)), f32_pow2(pe));
  const uint32_t max = elem_max_f32(elem);  // clamp(-max_norm, max_norm)
  if (mag(q) > max) q = (q & 0x80000000u) | max;
  return q;
}

}  // namespace

uint32_t block_amax(const MxProfile& p, std::span<const uint32_t> x) {
  uint32_t m = 0;
  for (uint32_t v : x) {
    if (is_nan(v)) {
      if (p.amax_ignores_nan) continue;
      return kF32Nan;
    }
    m = std::max(m, mag(v));
  }
  return m;
}

uint8_t mx_scale_byte(const MxProfile& p, Fmt elem, uint32_t amax) {
  if (is_nan(amax)) return p.nan_byte;
  // torchao 0.18 FLOOR/CEIL/EVEN read Inf's exponent field (128) like any
  // other amax; the others map Inf to a fixed byte.
  if (is_inf(amax) && !p.inf_by_exponent) return p.inf_byte;
  int X = 0;
  switch (p.scale) {
    case ScaleRule::kFloor:
      X = scale_floor(amax, elem);
      break;
    case ScaleRule::kCeil:
      X = scale_ceil(amax, elem);
      break;
    case ScaleRule::kEven: {
      const uint32_t rounded = even_rounded_amax(amax, elem);
      if (is_inf(rounded) && !p.inf_by_exponent) return p.inf_byte;
      X = f32_exp_field(rounded) - elem_emax(elem);
      break;
    }
    case ScaleRule::kRceilLog2:
      X = scale_rceil_log2(amax, elem);
      break;
    case ScaleRule::kFloorLog2:
      X = scale_floor_log2(amax, elem);
      break;
    case ScaleRule::kRceil:
      return scale_rceil(amax, elem, false);
    case ScaleRule::kRceilSat:
      return scale_rceil(amax, elem, true);
    case ScaleRule::kRn:
      return scale_rn(amax, elem);
    case ScaleRule::kRz:
      return scale_rz(amax, elem);
    case ScaleRule::kDeepgemm: {
      constexpr uint32_t kOneEm4 = 0x38D1B717u;  // fl(1e-4)
      const uint32_t a = std::max(mag(amax), kOneEm4);
      const uint32_t sf = f32_div(a, elem_max_f32(elem));
      const int byte = static_cast<int>((sf >> 23) & 0xFF) +
                       ((sf & 0x7FFFFF) != 0 ? 1 : 0);
      return static_cast<uint8_t>(std::clamp(byte, 1, 254));
    }
  }
  if (X > p.clamp_hi && p.above_hi_is_nan) return 0xFF;
  X = std::clamp(X, p.clamp_lo, p.clamp_hi);
  return static_cast<uint8_t>(X + 127);
}

namespace {

// The profile's rules for what reaches the element cast as NaN or as
// exactly -0 (profile.h: nan_elem_to_zero, exact_neg_zero_to_pos); nullopt
// when the cast itself decides.
std::optional<uint64_t> cast_special(const MxProfile& p, bool nan,
                                     bool neg_zero) {
  if (nan && p.nan_elem_to_zero) return 0;
  if (neg_zero && p.exact_neg_zero_to_pos) return 0;
  return std::nullopt;
}

// The element code of an f32 value already scaled in binary32.
uint64_t cast_f32(const MxProfile& p, Fmt elem, uint32_t scaled) {
  if (const auto c = cast_special(p, is_nan(scaled), scaled == 0x80000000u))
    return *c;
  return convert(Fmt::kF32, elem, scaled, elem_spec(p));
}

}  // namespace

namespace {
std::atomic<uint64_t> encode_element_calls{0};
}  // namespace

uint64_t mx_encode_element_calls() { return encode_element_calls.load(); }

uint8_t mx_encode_element(const MxProfile& p, Fmt elem, uint8_t scale,
                          uint32_t v) {
  encode_element_calls.fetch_add(1, std::memory_order_relaxed);
  const RoundSpec r = elem_spec(p);
  uint64_t code = 0;
  switch (p.apply) {
    case ApplyRule::kExactDivide: {
      // x / 2^X with no intermediate rounding: shift the exact value.
      Unpacked u = unpack(Fmt::kF32, v);
      if (scale == 0xFF) u.cls = Class::kNaN;
      if (u.cls == Class::kNormal || u.cls == Class::kSubnormal)
        u.exp -= static_cast<int>(scale) - 127;
      const auto c = cast_special(p, u.cls == Class::kNaN,
                                  u.cls == Class::kZero && u.sign);
      code = c ? *c : encode(elem, u, r);
      break;
    }
    case ApplyRule::kF32MulPow2: {
      // 2^(127 - byte) as f32 (byte 0 -> 2^127, 254 -> 2^-127); NaN scale
      // -> NaN multiplier.
      const uint32_t mult =
          scale == 0xFF ? kF32Nan
                        : static_cast<uint32_t>(convert(
                              Fmt::kE8M0, Fmt::kF32,
                              static_cast<uint64_t>(254 - int{scale})));
      code = cast_f32(p, elem, f32_mul(v, mult));
      break;
    }
    case ApplyRule::kF32MulTeRcp: {
      // exp2f_rcp: (byte == 0) ? 1 : int_as_float((254 - byte) << 23).
      const uint32_t mult =
          scale == 0 ? kF32One
                     : static_cast<uint32_t>(254 - int{scale}) << 23;
      code = cast_f32(p, elem, f32_mul(v, mult));
      break;
    }
    case ApplyRule::kF32DivMinNormal: {
      // torchao 0.18: scale_fp32 = (byte << 23) as f32 clamped to >= 2^-126
      // (byte 255 is +Inf), data / scale_fp32.
      constexpr uint32_t kMinNormal = 0x00800000u;
      const uint32_t div = std::max(uint32_t{scale} << 23, kMinNormal);
      code = cast_f32(p, elem, f32_div(v, div));
      break;
    }
    case ApplyRule::kF32MulPow2Byte0One: {
      const uint32_t mult =
          scale == 0      ? kF32One
          : scale == 0xFF ? kF32Nan
                          : static_cast<uint32_t>(convert(
                                Fmt::kE8M0, Fmt::kF32,
                                static_cast<uint64_t>(254 - int{scale})));
      code = cast_f32(p, elem, f32_mul(v, mult));
      break;
    }
    case ApplyRule::kF32DivPow2CtFp4: {
      // maybe_convert_from_mx_exp: 2.0 ** (byte - 127) as f32 (255 -> +Inf).
      const uint32_t div =
          scale == 0xFF ? 0x7F800000u
                        : static_cast<uint32_t>(
                              convert(Fmt::kE8M0, Fmt::kF32, scale));
      const uint32_t y = f32_div(v, div);
      if (is_nan(y) || mag(y) == 0) return 0;
      code = convert(Fmt::kF32, elem, y, r);
      break;
    }
    case ApplyRule::kF32MulRcp: {
      const uint32_t sf =
          static_cast<uint32_t>(convert(Fmt::kE8M0, Fmt::kF32, scale));
      code = cast_f32(p, elem, f32_mul(v, f32_div(kF32One, sf)));
      break;
    }
    case ApplyRule::kF32FloorHalfUp:
      // The value is one of the element format's (or NaN): exact.
      code = convert(Fmt::kF32, elem,
                     microxcaling_element(elem, p.elem_round, scale, v), r);
      break;
  }
  if (p.neg_zero_to_pos && unpack(elem, code).cls == Class::kZero) code = 0;
  return static_cast<uint8_t>(code);
}

MxBlock mx_quantize_block(const MxProfile& p, Fmt elem,
                          std::span<const uint32_t> x) {
  MxBlock b;
  b.codes.resize(x.size());
  if (fast::mx_quantize_block(p, elem, x.data(), x.size(), b.scale,
                              b.codes.data())) {
    return b;  // bit-identical fast path (emu/fast/quantize_fast.h)
  }
  b.codes.clear();
  b.scale = mx_scale_byte(p, elem, block_amax(p, x));
  for (uint32_t v : x) b.codes.push_back(mx_encode_element(p, elem, b.scale, v));
  return b;
}

std::vector<uint32_t> mx_dequantize_block(Fmt elem, const MxBlock& b) {
  std::vector<uint32_t> out;
  for (uint8_t c : b.codes) {
    Unpacked u = unpack(elem, c);
    if (b.scale == 0xFF) u.cls = Class::kNaN;
    if (u.cls == Class::kNormal || u.cls == Class::kSubnormal)
      u.exp += static_cast<int>(b.scale) - 127;
    out.push_back(static_cast<uint32_t>(encode(Fmt::kF32, u, RoundSpec{})));
  }
  return out;
}

uint32_t tensor_amax(std::span<const uint32_t> x) {
  // Magnitudes as unsigned integers order like the values; a NaN's is above
  // Inf's (0x7F800000), so the maximum is a NaN exactly when one is present.
  const uint32_t m = fast::abs_max_bits(fast::best_isa(), x.data(), x.size());
  return m > 0x7F800000u ? 0x7FC00000u : m;
}

uint32_t nvfp4_tensor_scale(uint32_t amax_tensor) {
  constexpr uint32_t k2688 = 0x45280000u;  // 448 * 6
  const uint32_t a = mag(amax_tensor);
  if (a == 0) return kF32One;
  const uint32_t s = min_flt_max(f32_div(k2688, a));
  return s == 0 ? kF32One : s;
}

uint32_t nvfp4_tensor_scale(const Nvfp4Profile& p, uint32_t amax_tensor) {
  switch (p.rule) {
    case Nvfp4Rule::kTe:
    case Nvfp4Rule::kCutlass:
      break;
    case Nvfp4Rule::kTorchao:
    case Nvfp4Rule::kModelopt:
      return f32_div(mag(amax_tensor), 0x45280000u);  // amax / (448 * 6)
    case Nvfp4Rule::kTorchaoSingle:
      return kF32One;
    case Nvfp4Rule::kCompressedTensors: {
      // generate_gparam: 2688 / clamp(amax, min=tiny) in the statistics'
      // dtype, then nan_to_num(nan=1, posinf=1, neginf=1). A Python number
      // divided by a tensor is torch's Tensor.__rtruediv__, reciprocal()
      // * 2688: two roundings (1/amax is subnormal for amax > 2^126).
      constexpr uint32_t kTiny = 0x00800000u;  // 2^-126 (f32 and bf16)
      const uint32_t a = mag(amax_tensor);
      uint32_t r = f32_div(kF32One, is_nan(a) ? a : std::max(a, kTiny));
      if (p.stats_bf16) r = to_bf16(r);
      uint32_t g = f32_mul(r, 0x45280000u);
      if (p.stats_bf16) g = to_bf16(g);
      return is_nan(g) || is_inf(g) ? kF32One : g;
    }
    case Nvfp4Rule::kTe4over6:
      return mag(amax_tensor);  // the error sum needs A itself
  }
  return nvfp4_tensor_scale(amax_tensor);
}

namespace {

// torch.clamp(v, lo, hi) on f32 bits for v >= 0 or NaN (NaN propagates).
uint32_t clamp_pos(uint32_t v, uint32_t lo, uint32_t hi) {
  if (is_nan(v)) return v;
  return std::min(std::max(v, lo), hi);
}

// torchao nvfp4_tensor.py@v0.18.0 nvfp4_quantize: block scale and elements.
Nvfp4Block nvfp4_torchao(const Nvfp4Profile& p, uint32_t t, uint32_t amax,
                         std::span<const uint32_t> x) {
  constexpr uint32_t kSix = 0x40C00000u, kE4m3Tiny = 0x3C800000u;  // 2^-6
  constexpr uint32_t k448 = 0x43E00000u;
  uint32_t s = f32_div(amax, kSix);
  if (p.rule == Nvfp4Rule::kTorchao) s = f32_div(s, t);
  s = clamp_pos(s, kE4m3Tiny, k448);
  RoundSpec sat;
  sat.overflow = Overflow::kSatFinite;
  Nvfp4Block b;
  b.scale = static_cast<uint8_t>(convert(Fmt::kF32, Fmt::kE4M3, s, sat));
  const uint32_t s_val =
      static_cast<uint32_t>(convert(Fmt::kE4M3, Fmt::kF32, b.scale));
  const uint32_t rcp = p.rule == Nvfp4Rule::kTorchao
                           ? f32_div(f32_div(kF32One, t), s_val)
                           : f32_div(kF32One, s_val);
  for (uint32_t v : x) {
    // clamp(+-6) then the saturating RNE cast: the same as satfinite.
    b.codes.push_back(static_cast<uint8_t>(
        convert(Fmt::kF32, Fmt::kE2M1, f32_mul(v, rcp), sat)));
  }
  return b;
}

// ModelOpt NVFP4QTensor@0.47.0 (get_weights_scaling_factor, quantize,
// _cast_fp4): block scale and elements under the tensor decode scale t.
Nvfp4Block nvfp4_modelopt(uint32_t t, uint32_t amax,
                          std::span<const uint32_t> x) {
  constexpr uint32_t kSix = 0x40C00000u, k448 = 0x43E00000u;
  constexpr uint32_t kE4m3MinSub = 0x3B000000u;  // 2^-9
  // per_block_amax / (E2M1_MAX * weights_scaling_factor_2); zeros -> 1.0.
  uint32_t s = f32_div(amax, f32_mul(kSix, t));
  if (mag(s) == 0) s = kF32One;
  s = clamp_pos(s, kE4m3MinSub, k448);
  RoundSpec sat;
  sat.overflow = Overflow::kSatFinite;
  Nvfp4Block b;
  b.scale = static_cast<uint8_t>(convert(Fmt::kF32, Fmt::kE4M3, s, sat));
  const uint32_t s_val =
      static_cast<uint32_t>(convert(Fmt::kE4M3, Fmt::kF32, b.scale));
  const uint32_t div = f32_mul(s_val, t);
  for (uint32_t v : x) {
    const uint32_t y = f32_div(v, div);
    // _cast_fp4: sign bit = (y < 0), so -0 is code 0; searchsorted puts NaN
    // past the last bound (code 7, sign 0); otherwise RNE on |y|,
    // saturating at 6 (the odd-bound tie fix-up).
    uint8_t code;
    if (is_nan(y)) {
      code = 0x7;
    } else if (mag(y) == 0) {
      code = 0x0;
    } else {
      code = static_cast<uint8_t>(convert(Fmt::kF32, Fmt::kE2M1, y, sat));
    }
    b.codes.push_back(code);
  }
  return b;
}

// compressed-tensors@0.20.1 NVFP4: calculate_qparams (helpers.py:52-139)
// for the block scale, _quantize (forward_helpers.py:523-545), cast_to_fp4
// (fp4_utils.py:77-97) and pack_fp4_to_uint8 (nvfp4/helpers.py:366-408)
// for the codes; g is the global scale nvfp4_tensor_scale returned.
Nvfp4Block nvfp4_compressed_tensors(const Nvfp4Profile& p, uint32_t g,
                                    uint32_t amax,
                                    std::span<const uint32_t> x) {
  constexpr uint32_t kSix = 0x40C00000u, k448 = 0x43E00000u;
  constexpr uint32_t kEighth = 0x3E000000u;  // _get_dtype_eps(e4m3)
  uint32_t s = f32_div(amax, kSix);          // max_val_pos / (bit_range / 2)
  if (p.stats_bf16) s = to_bf16(s);
  s = clamp_pos(f32_mul(g, s), 0, k448);  // round_to_quantized_type_dtype
  RoundSpec sat;
  sat.overflow = Overflow::kSatFinite;
  Nvfp4Block b;
  b.scale = static_cast<uint8_t>(convert(Fmt::kF32, Fmt::kE4M3, s, sat));
  uint32_t s_val =
      static_cast<uint32_t>(convert(Fmt::kE4M3, Fmt::kF32, b.scale));
  if (mag(s_val) == 0) {  // scales == 0 -> eps
    s_val = kEighth;
    b.scale = static_cast<uint8_t>(convert(Fmt::kF32, Fmt::kE4M3, kEighth));
  }
  const uint32_t div = f32_div(s_val, g);  // scale / global_scale
  for (uint32_t v : x) {
    const uint32_t y = f32_div(v, div);
    // cast_to_fp4: sign(x) * rounded |x| (sign(-0) is 0: -0 -> +0); NaN
    // stays NaN and pack_fp4_to_uint8's int8 cast makes it index 0 (x86).
    uint8_t code = 0;
    if (!is_nan(y) && mag(y) != 0)
      code = static_cast<uint8_t>(convert(Fmt::kF32, Fmt::kE2M1, y, sat));
    b.codes.push_back(code);
  }
  return b;
}

// The block amax: NaN if any element is NaN, or with NaN elements skipped
// for profiles whose kernel takes it with fmaxf / PTX max (TE).
uint32_t nan_max_amax(std::span<const uint32_t> x, bool ignore_nan = false) {
  uint32_t amax = 0;
  for (uint32_t v : x) {
    if (is_nan(v) && ignore_nan) continue;
    if (is_nan(v)) return kF32Nan;
    amax = std::max(amax, mag(v));
  }
  return amax;
}

// 6 * the profile's E4M3 bound as f32 bits (1536 or 2688; exact).
uint32_t te_4over6_denominator(const Nvfp4Profile& p) {
  return std::bit_cast<uint32_t>(static_cast<float>(6 * p.four_over_six_e4m3));
}

// TE compute_global_encode_scaling_factor_FP4<E4M3_MAX>
// (core_nvfp4.cuh@d0067d0da:81-95): fminf(fl(E4M3_MAX * 6 / A), FLT_MAX);
// A == 0 or a zero quotient -> 1.
uint32_t te_4over6_s_enc(const Nvfp4Profile& p, uint32_t amax_t) {
  if (mag(amax_t) == 0) return kF32One;
  const uint32_t s =
      min_flt_max(f32_div(te_4over6_denominator(p), amax_t));
  return s == 0 ? kF32One : s;
}

// One 4over6 candidate (quantize_4over6_nvfp4.cuh@d0067d0da): the UE4M3
// scale of fminf(scale_f32, 448), inv = fminf(fl(1 / fl(s * S_dec)),
// FLT_MAX), codes cvt.rn.satfinite(fl(x * inv)), and the error sum of
// accumulate_dequant_error (190-202; compute_error_rn 113-123: MAE fabsf,
// MSE __fmul_rn(d, d)), element by element in order.
struct Candidate4over6 {
  Nvfp4Block b;
  uint32_t err = 0;
};
Candidate4over6 te_4over6_candidate(const Nvfp4Profile& p, uint32_t scale_f32,
                                    uint32_t s_dec, uint32_t amax_t,
                                    std::span<const uint32_t> x) {
  constexpr uint32_t k448 = 0x43E00000u;
  const uint32_t denom = te_4over6_denominator(p);
  RoundSpec sat;
  sat.overflow = Overflow::kSatFinite;
  Candidate4over6 c;
  // fminf: a NaN operand gives the other one.
  const uint32_t clamped = is_nan(scale_f32) || mag(scale_f32) > k448
                               ? k448
                               : scale_f32;
  c.b.scale =
      static_cast<uint8_t>(convert(Fmt::kF32, Fmt::kUE4M3, clamped, sat));
  const uint32_t s_val =
      static_cast<uint32_t>(convert(Fmt::kUE4M3, Fmt::kF32, c.b.scale));
  const uint32_t inv = min_flt_max(f32_div(kF32One, f32_mul(s_val, s_dec)));
  for (uint32_t v : x) {
    const uint8_t q = static_cast<uint8_t>(
        convert(Fmt::kF32, Fmt::kE2M1, f32_mul(v, inv), sat));
    c.b.codes.push_back(q);
    const uint32_t dq =
        static_cast<uint32_t>(convert(Fmt::kE2M1, Fmt::kF32, q));
    const uint32_t val = f32_div(f32_mul(f32_mul(dq, s_val), amax_t), denom);
    const uint32_t diff = f32_add(val, v ^ 0x80000000u);  // val - x
    c.err = f32_add(c.err, p.four_over_six_mse ? f32_mul(diff, diff)
                                               : diff & 0x7FFFFFFFu);
  }
  return c;
}

// a < b for two error sums (sums of magnitudes from +0: never negative);
// false when either is NaN, as the kernel's float compare.
bool err_less(uint32_t a, uint32_t b) {
  if (is_nan(a) || is_nan(b)) return false;
  return mag(a) < mag(b);
}

Nvfp4Block nvfp4_4over6(const Nvfp4Profile& p, uint32_t amax_t,
                        uint32_t amax_b, std::span<const uint32_t> x) {
  constexpr uint32_t kSix = 0x40C00000u, kOnePointFive = 0x3FC00000u;
  const uint32_t s_enc = te_4over6_s_enc(p, amax_t);
  const uint32_t s_dec = f32_div(kF32One, s_enc);
  const uint32_t base = f32_mul(f32_div(amax_b, kSix), s_enc);
  Candidate4over6 map4 =
      te_4over6_candidate(p, f32_mul(base, kOnePointFive), s_dec, amax_t, x);
  Candidate4over6 map6 = te_4over6_candidate(p, base, s_dec, amax_t, x);
  return err_less(map4.err, map6.err) ? std::move(map4.b) : std::move(map6.b);
}

// The NVFP4 block scale for an amax, and the elements under it.
Nvfp4Block nvfp4_with_amax(const Nvfp4Profile& p, uint32_t s_enc,
                           uint32_t amax, std::span<const uint32_t> x,
                           std::span<const uint32_t> rbits) {
  if (p.rule == Nvfp4Rule::kTorchao || p.rule == Nvfp4Rule::kTorchaoSingle) {
    if (!rbits.empty())
      throw std::invalid_argument(
          "torchao NVFP4 profiles have no stochastic rounding");
    return nvfp4_torchao(p, s_enc, amax, x);
  }
  if (p.rule == Nvfp4Rule::kModelopt) {
    if (!rbits.empty())
      throw std::invalid_argument(
          "ModelOpt NVFP4 profiles have no stochastic rounding");
    return nvfp4_modelopt(s_enc, amax, x);
  }
  if (p.rule == Nvfp4Rule::kCompressedTensors) {
    if (!rbits.empty())
      throw std::invalid_argument(
          "compressed-tensors NVFP4 profiles have no stochastic rounding");
    return nvfp4_compressed_tensors(p, s_enc, amax, x);
  }
  if (p.rule == Nvfp4Rule::kTe4over6) {
    if (!rbits.empty())
      throw std::invalid_argument(
          "TE NVFP4 4over6 has no stochastic rounding in this model");
    return nvfp4_4over6(p, s_enc, amax, x);  // s_enc holds the tensor amax
  }
  constexpr uint32_t kSix = 0x40C00000u;
  const uint32_t inv6 = f32_div(kF32One, kSix);  // fl(1/6) = 0x3E2AAAAB
  // Block decode scale: fl(amax_b * fl(S_enc * fl(1/6))) -> UE4M3, RNE,
  // saturating at 448 (TE and CUTLASS associate it the same way).
  const uint32_t s_f32 = f32_mul(amax, f32_mul(s_enc, inv6));
  RoundSpec sat;
  sat.overflow = Overflow::kSatFinite;
  Nvfp4Block b;
  b.scale = static_cast<uint8_t>(convert(Fmt::kF32, Fmt::kUE4M3, s_f32, sat));
  const uint32_t s_val =
      static_cast<uint32_t>(convert(Fmt::kUE4M3, Fmt::kF32, b.scale));
  uint32_t enc;
  if (p.rule == Nvfp4Rule::kTe) {
    const uint32_t s_dec = f32_div(kF32One, s_enc);
    enc = min_flt_max(f32_div(kF32One, f32_mul(s_val, s_dec)));
  } else {
    enc = min_flt_max(f32_mul(s_enc, f32_div(kF32One, s_val)));
  }
  for (size_t i = 0; i < x.size(); ++i) {
    RoundSpec r = sat;
    if (!rbits.empty()) {
      r.mode = Round::kSR;
      r.sr_bits = kSrBitsPtx;
      r.rbits = rbits[i];
    }
    b.codes.push_back(static_cast<uint8_t>(
        convert(Fmt::kF32, Fmt::kE2M1, f32_mul(x[i], enc), r)));
  }
  return b;
}

}  // namespace

namespace {
std::atomic<uint64_t> nvfp4_reference_blocks{0};
}  // namespace

uint64_t nvfp4_reference_block_calls() {
  return nvfp4_reference_blocks.load();
}

Nvfp4Block nvfp4_quantize_block(const Nvfp4Profile& p, uint32_t s_enc,
                                std::span<const uint32_t> x,
                                std::span<const uint32_t> rbits) {
  if (!rbits.empty() && rbits.size() != x.size()) {
    throw std::invalid_argument("nvfp4_quantize_block: one rbits per element");
  }
  {
    Nvfp4Block b;
    b.codes.resize(x.size());
    // Bit-identical fast paths (emu/fast/nvfp4_fast.h, nvfp4_sr.h).
    if (rbits.empty() ? fast::nvfp4_quantize_block(p, s_enc, x.data(),
                                                   x.size(), b.scale,
                                                   b.codes.data())
                      : fast::nvfp4_quantize_block_sr(
                            p, s_enc, x.data(), rbits.data(), x.size(),
                            b.scale, b.codes.data())) {
      return b;
    }
  }
  nvfp4_reference_blocks.fetch_add(1, std::memory_order_relaxed);
  return nvfp4_with_amax(p, s_enc, nan_max_amax(x, p.amax_ignores_nan), x,
                         rbits);
}

Nvfp4Matrix nvfp4_quantize_2d(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                              int cols, std::span<const uint32_t> x) {
  constexpr int kT = 16;
  if (rows <= 0 || cols <= 0 || rows % kT != 0 || cols % kT != 0 ||
      x.size() != static_cast<size_t>(rows) * cols) {
    throw std::invalid_argument(
        "nvfp4_quantize_2d: rows and cols must be multiples of 16");
  }
  if (p.rule == Nvfp4Rule::kTe4over6) {
    // 16x16 4over6 sums the error over the tile (a warp tree reduction,
    // reference_nvfp4.py@d0067d0da:512-521): not modelled.
    throw std::invalid_argument(
        "nvfp4_quantize_2d: 4over6 16x16 tiles are not modelled");
  }
  Nvfp4Matrix m;
  m.codes.resize(x.size());
  m.scales.resize(static_cast<size_t>(rows) * (cols / kT));
  if (fast::nvfp4_quantize_2d(p, s_enc, rows, cols, x.data(), m.scales.data(),
                              m.codes.data())) {
    return m;  // bit-identical fast path (emu/fast/nvfp4_fast.h)
  }
  std::vector<uint32_t> tile(kT * kT);
  for (int r0 = 0; r0 < rows; r0 += kT) {
    for (int c0 = 0; c0 < cols; c0 += kT) {
      for (int i = 0; i < kT; ++i)
        for (int j = 0; j < kT; ++j)
          tile[i * kT + j] = x[static_cast<size_t>(r0 + i) * cols + c0 + j];
      const uint32_t amax = nan_max_amax(tile, p.amax_ignores_nan);
      for (int i = 0; i < kT; ++i) {
        const Nvfp4Block b = nvfp4_with_amax(
            p, s_enc, amax, std::span<const uint32_t>(tile).subspan(i * kT, kT),
            {});
        m.scales[static_cast<size_t>(r0 + i) * (cols / kT) + c0 / kT] = b.scale;
        std::copy(b.codes.begin(), b.codes.end(),
                  m.codes.begin() + (static_cast<long>(r0 + i) * cols + c0));
      }
    }
  }
  return m;
}

namespace {

// Each element's exact q * s (E2M1 times UE4M3), finished by one rounding.
template <class Finish>
std::vector<uint32_t> nvfp4_decode(const Nvfp4Block& b, Finish finish) {
  const uint32_t s_val =
      static_cast<uint32_t>(convert(Fmt::kUE4M3, Fmt::kF32, b.scale));
  std::vector<uint32_t> out;
  for (uint8_t c : b.codes) {
    const uint32_t q = static_cast<uint32_t>(convert(Fmt::kE2M1, Fmt::kF32, c));
    out.push_back(finish(f32_mul(q, s_val)));  // q * s is exact
  }
  return out;
}

// The block scale byte as the libraries that multiply it into a combined
// factor read it (a signed E4M3 byte).
uint32_t e4m3_scale(const Nvfp4Block& b) {
  return static_cast<uint32_t>(convert(Fmt::kE4M3, Fmt::kF32, b.scale));
}

// q * factor for each code: the rules that fold the block scale and the
// tensor value into one factor first (ModelOpt, compressed-tensors).
std::vector<uint32_t> nvfp4_decode_times(const Nvfp4Block& b,
                                         uint32_t factor) {
  std::vector<uint32_t> out;
  for (uint8_t c : b.codes)
    out.push_back(f32_mul(
        static_cast<uint32_t>(convert(Fmt::kE2M1, Fmt::kF32, c)), factor));
  return out;
}

}  // namespace

std::vector<uint32_t> nvfp4_dequantize_block(const Nvfp4Block& b,
                                             uint32_t s_enc) {
  return nvfp4_decode(b, [&](uint32_t qs) { return f32_div(qs, s_enc); });
}

std::vector<uint32_t> nvfp4_dequantize_block(const Nvfp4Profile& p,
                                             const Nvfp4Block& b,
                                             uint32_t tensor_value) {
  switch (p.rule) {
    case Nvfp4Rule::kTorchao:
      return nvfp4_decode(
          b, [&](uint32_t qs) { return f32_mul(qs, tensor_value); });
    case Nvfp4Rule::kTorchaoSingle:
      return nvfp4_decode(b, [](uint32_t qs) { return qs; });
    case Nvfp4Rule::kCompressedTensors:
      // _dequantize (forward_helpers.py:548-569): q * fl(s / g) (read only).
      return nvfp4_decode_times(b, f32_div(e4m3_scale(b), tensor_value));
    case Nvfp4Rule::kModelopt:
      // NVFP4QTensor.dequantize@0.47.0: q * fl(s * t) (read only).
      return nvfp4_decode_times(b, f32_mul(e4m3_scale(b), tensor_value));
    case Nvfp4Rule::kTe4over6:  // tensor value: the amax; q * s / S_enc
      return nvfp4_dequantize_block(b, te_4over6_s_enc(p, tensor_value));
    default:
      return nvfp4_dequantize_block(b, tensor_value);
  }
}

namespace {

void check_shape(int rows, int cols, size_t n, int along, int block) {
  if (rows <= 0 || cols <= 0 || n != static_cast<size_t>(rows) * cols ||
      along % block != 0) {
    throw std::invalid_argument(
        "quantize: the blocked dimension must be a multiple of the block "
        "size and the data rows*cols long");
  }
}

}  // namespace

MxMatrix mx_quantize_rowwise(const MxProfile& p, Fmt elem, int rows, int cols,
                             std::span<const uint32_t> x) {
  check_shape(rows, cols, x.size(), cols, p.block);
  MxMatrix m;
  m.codes.resize(x.size());
  m.scales.resize(static_cast<size_t>(rows) * (cols / p.block));
  if (fast::mx_quantize_rowwise(p, elem, rows, cols, x.data(), m.scales.data(),
                                m.codes.data())) {
    return m;  // bit-identical fast path (emu/fast/quantize_fast.h)
  }
  m.scales.clear();
  for (int r = 0; r < rows; ++r) {
    for (int c0 = 0; c0 < cols; c0 += p.block) {
      const MxBlock b = mx_quantize_block(
          p, elem, x.subspan(static_cast<size_t>(r) * cols + c0, p.block));
      m.scales.push_back(b.scale);
      std::copy(b.codes.begin(), b.codes.end(),
                m.codes.begin() + static_cast<long>(r) * cols + c0);
    }
  }
  return m;
}

MxMatrix mx_quantize_colwise(const MxProfile& p, Fmt elem, int rows, int cols,
                             std::span<const uint32_t> x) {
  check_shape(rows, cols, x.size(), rows, p.block);
  MxMatrix m;
  m.codes.resize(x.size());
  m.scales.resize(static_cast<size_t>(rows / p.block) * cols);
  if (fast::mx_quantize_colwise(p, elem, rows, cols, x.data(), m.scales.data(),
                                m.codes.data())) {
    return m;  // bit-identical fast path (emu/fast/quantize_fast.h)
  }
  std::vector<uint32_t> col(p.block);
  for (int r0 = 0; r0 < rows; r0 += p.block) {
    for (int c = 0; c < cols; ++c) {
      for (int i = 0; i < p.block; ++i)
        col[i] = x[static_cast<size_t>(r0 + i) * cols + c];
      const MxBlock b = mx_quantize_block(p, elem, col);
      m.scales[static_cast<size_t>(r0 / p.block) * cols + c] = b.scale;
      for (int i = 0; i < p.block; ++i)
        m.codes[static_cast<size_t>(r0 + i) * cols + c] = b.codes[i];
    }
  }
  return m;
}

MxMatrix mx_quantize_2d(const MxProfile& p, Fmt elem, int rows, int cols,
                        int tile, std::span<const uint32_t> x) {
  check_shape(rows, cols, x.size(), cols, tile);
  if (rows % tile != 0) check_shape(rows, cols, x.size(), rows, tile);
  MxMatrix m;
  m.codes.resize(x.size());
  m.scales.resize(static_cast<size_t>(rows) * (cols / tile));
  std::vector<uint32_t> t(static_cast<size_t>(tile) * tile);
  for (int r0 = 0; r0 < rows; r0 += tile) {
    for (int c0 = 0; c0 < cols; c0 += tile) {
      for (int i = 0; i < tile; ++i)
        for (int j = 0; j < tile; ++j)
          t[static_cast<size_t>(i) * tile + j] =
              x[static_cast<size_t>(r0 + i) * cols + c0 + j];
      // One scale from the whole tile; elements quantized with it.
      const uint8_t s = mx_scale_byte(p, elem, block_amax(p, t));
      for (int i = 0; i < tile; ++i) {
        m.scales[static_cast<size_t>(r0 + i) * (cols / tile) + c0 / tile] = s;
        for (int j = 0; j < tile; ++j) {
          m.codes[static_cast<size_t>(r0 + i) * cols + c0 + j] =
              mx_encode_element(p, elem, s,
                                t[static_cast<size_t>(i) * tile + j]);
        }
      }
    }
  }
  return m;
}

}  // namespace mxc
