// Named quantization profiles: every convention choice of one library's MX
// or NVFP4 recipe, fixed in one place (never #ifdefs in the core). Each
// profile's entry in docs/profiles.md cites the source file and commit it
// was read from.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "emu/format.h"
#include "emu/rounding.h"

namespace mxc {

enum class ScaleRule : uint8_t {
  kFloor,     // scale_floor, then clamps
  kCeil,      // scale_ceil, then clamps
  kEven,      // scale_even, then clamps
  kRceil,     // scale_rceil non-saturating (overflow, Inf, NaN -> 0xFF)
  kRceilSat,  // scale_rceil .satfinite (overflow, Inf -> 0xFE; NaN -> 0xFF)
  kRn,        // scale_rn
  kRz,        // scale_rz
  kDeepgemm,  // clamp(E(sf) + (M(sf) != 0), 1, 254), sf = fl(max(amax,
              // fl(1e-4)) / max_elem)
  kRceilLog2,  // torchao 0.18 eager: clamp(ceil(log2f(fl(amax / max_elem))),
               // -127, 127) with log2f rounded to binary32 (one binade low
               // when the quotient is a few ulps above a power of two)
  kFloorLog2,  // microxcaling: floor(log2f(amax)) - emax_elem with log2f
               // rounded to binary32 (one binade high a few ulps below
               // 2^k); amax 0 -> log2(2^-126) (scale_floor_log2)
};

enum class ApplyRule : uint8_t {
  kExactDivide,  // x / 2^X exactly, rounded once into the element format
  kF32MulPow2,   // fl(x * 2^(127 - byte)) in binary32 (byte 0 -> 2^127)
  kF32MulTeRcp,  // TE exp2f_rcp: byte 0 -> 1.0, else 2^(127 - byte) as
                 // (254 - byte) << 23 (254 -> +0.0, 255 -> -Inf)
  kF32MulRcp,    // fl(x * fl(1 / 2^X)) (DeepGEMM; exact for powers of two)
  kF32DivMinNormal,  // fl(x / max(2^X, 2^-126)) with the scale as
                     // byte << 23 (byte 0 divides by 2^-126, byte 255 by
                     // +Inf: finite -> +-0) (torchao 0.18 FLOOR/CEIL/EVEN)
  kF32MulPow2Byte0One,  // fl(x * 2^(127 - byte)) but byte 0 -> 1.0 and
                        // byte 255 -> NaN (torchao 0.18 RCEIL)
  // compressed-tensors 0.20 FP4: y = fl(x / 2^(byte - 127)) (byte 0 ->
  // 2^-127, byte 255 -> +Inf), clamp, RNE; cast_to_fp4's sign(y) * |q|
  // makes a -0 quotient +0 (negatives rounding to 0 stay -0) and
  // pack_fp4_to_uint8 makes a NaN quotient code 0 (x86 int8 cast).
  kF32DivPow2CtFp4,
  kF32FloorHalfUp,  // microxcaling _quantize_elemwise_core, in binary32:
                    // A = fl(x / 2^X), p = max(floor(log2f|A|), emin),
                    // y = A / 2^p * 2^m, q = sign(y) * floor(fl(|y| + 0.5))
                    // (elem_round kRNE: minus 1 where |y| - 0.5 is an even
                    // integer; kRNA: no correction), back by 2^-m * 2^p,
                    // clamped to +-max_elem (MXINT8: +-127/64). sign(-0)
                    // is +0; fl(|y| + 0.5) can round up (double rounding).
};

// One library release's behaviour. Names are versioned, `LIBRARY-MODE@VER`
// (VER a release, or main-COMMIT for unreleased behaviour); the bare
// `LIBRARY-MODE` is an alias (profile_aliases()) of the newest release.
struct MxProfile {
  std::string_view name;
  std::string_view summary;
  std::string_view source;    // repository, file and commit read
  std::string_view versions;  // the library releases this reproduces
  std::string_view evidence;  // "run: <peer test>" or "read only: <cases>"
  Fmt default_elem;
  int block;  // elements per scale
  ScaleRule scale;
  int clamp_lo, clamp_hi;    // unbiased X range for kFloor/kCeil/kEven
  bool above_hi_is_nan;      // X > clamp_hi gives the NaN scale (OCP)
  uint8_t nan_byte;          // scale byte for a NaN amax
  uint8_t inf_byte;          // scale byte for an Inf amax
  bool inf_by_exponent;      // Inf amax instead takes the scale rule with
                             // E(Inf) = 128, then the clamps (torchao 0.18)
  bool amax_ignores_nan;     // amax by fmaxf: NaN elements do not count
  ApplyRule apply;
  Round elem_round;
  Overflow elem_overflow;
  bool neg_zero_to_pos;  // -0 and negatives that round to 0 become +0
  // Casts written as comparisons against the element's midpoints (TE's
  // cast_to_fp4x2, DeepGEMM's _quantize_to_fp4_e2m1): every comparison
  // with NaN is false, so a NaN reaching the cast gives code 0 (+0).
  bool nan_elem_to_zero = false;
  // TE's cast_to_fp4x2 tests `x < -0.0` for the negative codes: a value
  // reaching the cast that is exactly -0 gives +0, while negatives that
  // round to zero keep -0 (unlike neg_zero_to_pos).
  bool exact_neg_zero_to_pos = false;
};

enum class Nvfp4Rule : uint8_t {
  kTe,       // enc = fl(1 / fl(s * fl(1 / S_enc))); q = cvt(fl(x * enc))
  kCutlass,  // enc = min(fl(S_enc * fl(1 / s)), FLT_MAX); q = cvt(fl(x*enc))
  // torchao nvfp4_quantize, two-level: the tensor value is the decode
  // scale t = fl(amax_t / 2688); s = e4m3(clamp(fl(fl(amax_b / 6) / t),
  // 2^-6, 448)); q = e2m1(clamp(fl(x * fl(fl(1 / t) / s)), +-6)).
  kTorchao,
  // torchao nvfp4_quantize, single-level (no tensor scale): s =
  // e4m3(clamp(fl(amax_b / 6), 2^-6, 448)); q = e2m1(clamp(fl(x * fl(1/s)),
  // +-6)).
  kTorchaoSingle,
  // NVIDIA ModelOpt NVFP4QTensor (nvfp4_tensor.py@0.47.0): the tensor value
  // is the decode scale t = fl(amax_t / 2688) (weights_scaling_factor_2);
  // s = fl(amax_b / fl(6 * t)), 0 -> 1.0, e4m3(clamp(s, 2^-9, 448)) (E4M3
  // subnormal scales kept); q = e2m1_rne_sat(fl(x / fl(s * t))) with the
  // sign taken as x < 0 (a -0 quotient gives code 0) and NaN -> code 7.
  kModelopt,
  // compressed-tensors (quantization/utils/helpers.py@0.20.1): the tensor
  // value is the global scale g = fl(fl(1 / max(amax_t, 2^-126)) * 2688)
  // (torch's __rtruediv__), NaN or Inf -> 1.0; s = e4m3(min(fl(g * fl(amax_b / 6)), 448)), 0 -> 0.125
  // (byte 0x20); q = e2m1_rne(clamp(fl(x / fl(s / g)), +-6)) with -0 and
  // NaN -> code 0 (fp4_utils.py cast_to_fp4, nvfp4/helpers.py
  // pack_fp4_to_uint8). With stats_bf16, g and fl(amax_b / 6) are rounded
  // to bf16 (statistics taken in a bf16 weight's dtype).
  kCompressedTensors,
  // TransformerEngine NVFP4 "4over6" (1x16, error in the input domain):
  // the tensor value is the tensor amax A; with D = 6 * four_over_six_e4m3
  // (1536 for the default bound 256, 2688 for 448), S_enc = fminf(fl(D /
  // A), FLT_MAX) (A 0 or S_enc 0 -> 1). Two candidates, map-to-6 with s6 =
  // e4m3(min(base, 448)) and map-to-4 with s4 = e4m3(min(fl(base * 1.5),
  // 448)), base = fl(fl(amax_b / 6) * S_enc), each quantized as kTe; the
  // block keeps map-to-4 only when its error sum over the elements, in
  // order, of |d| (MAE) or fl(d * d) (MSE), d = fl(fl(fl(fl(q_i * s) * A) /
  // D) - x_i), is strictly smaller (ties and NaN keep map-to-6).
  kTe4over6,
};

struct Nvfp4Profile {
  std::string_view name;
  std::string_view summary;
  std::string_view source;
  std::string_view versions;
  std::string_view evidence;
  Nvfp4Rule rule;
  bool amax_ignores_nan = false;  // block amax by fmaxf / PTX max (TE)
  bool stats_bf16 = false;  // kCompressedTensors: bf16 weights' statistics
  // kTe4over6 only: the E4M3 bound of S_enc and of the error denominator
  // (NVTE_NVFP4_4OVER6_E4M3_USE_256: 256, or 448 with "none"), and the
  // error metric (NVTE_NVFP4_4OVER6_ERR_MODE: MAE, or MSE).
  int four_over_six_e4m3 = 256;
  bool four_over_six_mse = false;
};

// Whether the profile's reference takes random bits (NVFP4 stochastic
// rounding, cvt.rs: the TE and CUTLASS rules); the library rules round to
// nearest even and refuse them.
constexpr bool nvfp4_has_sr(const Nvfp4Profile& p) {
  return p.rule == Nvfp4Rule::kTe || p.rule == Nvfp4Rule::kCutlass;
}

// A bare or older name and the versioned profile it stands for.
struct ProfileAlias {
  std::string_view alias;
  std::string_view target;
  std::string_view why;  // e.g. "newest release", "name before versioning"
};
std::span<const ProfileAlias> profile_aliases();
// The versioned name an alias stands for, or the name itself.
std::string_view resolve_profile_name(std::string_view name);

std::span<const MxProfile> mx_profiles();
std::span<const Nvfp4Profile> nvfp4_profiles();
const MxProfile* find_mx_profile(std::string_view name);
const Nvfp4Profile* find_nvfp4_profile(std::string_view name);

}  // namespace mxc
