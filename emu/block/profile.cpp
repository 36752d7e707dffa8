#include "emu/block/profile.h"

#include <array>

namespace mxc {
namespace {

constexpr std::array kMx = {
    MxProfile{
        "ocp-v1",
        "OCP MX v1.0: FLOOR scale from exponent bits, X clamped to >= -127 "
        "and NaN above 127, elements x/2^X exactly, RNE, normals saturate",
        "OCP Microscaling Formats v1.0 6.3 as implemented by "
        "microsoft/microxcaling mx/mx_ops.py@3b429a84 (_shared_exponents, "
        "_quantize_mx), mx/cpp/shared_exp.cuh@4adf988d; RNE is its "
        "round='even' option (its default 'nearest' is ties-away)",
        Fmt::kE4M3, 32, ScaleRule::kFloor, -127, 127, true, 0xFF, 0xFF, false,
        ApplyRule::kExactDivide, Round::kRNE, Overflow::kSatFinite, false},
    MxProfile{
        "torchao-floor",
        "torchao FLOOR: E(amax) - emax_elem clamped to [-127, 128], Inf/NaN "
        "amax -> 0xFF, x * 2^(127-byte) in f32, RNE cast, saturating",
        "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py@050515e8 "
        "(to_mx, ScaleCalculationMode.FLOOR, _e8m0_scale_to_reciprocal_fp32)",
        Fmt::kE4M3, 32, ScaleRule::kFloor, -127, 128, false, 0xFF, 0xFF, false,
        ApplyRule::kF32MulPow2, Round::kRNE, Overflow::kSatFinite, false},
    MxProfile{
        "torchao-ceil",
        "torchao CEIL: E(amax) + (M != 0) - emax_elem, else as torchao-floor",
        "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py@050515e8",
        Fmt::kE4M3, 32, ScaleRule::kCeil, -127, 128, false, 0xFF, 0xFF, false,
        ApplyRule::kF32MulPow2, Round::kRNE, Overflow::kSatFinite, false},
    MxProfile{
        "torchao-even",
        "torchao EVEN: amax rounded at the element's mantissa width, then "
        "FLOOR; else as torchao-floor",
        "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py@050515e8",
        Fmt::kE4M3, 32, ScaleRule::kEven, -127, 128, false, 0xFF, 0xFF, false,
        ApplyRule::kF32MulPow2, Round::kRNE, Overflow::kSatFinite, false},
    MxProfile{
        "torchao-rceil",
        "torchao RCEIL: E8M0 round-up of fl(amax * fl(1/max_elem)) without "
        "saturation (overflow, Inf, NaN -> 0xFF), x * 2^(127-byte) in f32",
        "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py@050515e8 "
        "(_to_mx_rceil, _f32_to_e8m0_rceil); cases in "
        "torchao/testing/_mxfp8_test_utils.py@5d73a0c1",
        Fmt::kE4M3, 32, ScaleRule::kRceil, -127, 127, false, 0xFF, 0xFF, false,
        ApplyRule::kF32MulPow2, Round::kRNE, Overflow::kSatFinite, false},
    MxProfile{
        "te-mxfp8",
        "TransformerEngine MXFP8: cvt.rp.satfinite.ue8m0x2 of fl(amax * "
        "fl(1/max)) (Inf -> 0xFE), amax by fmaxf (NaN ignored), multiplier "
        "exp2f_rcp (byte 0 -> 1.0), cvt.rn.satfinite",
        "NVIDIA/TransformerEngine transformer_engine/common/util/"
        "ptx_arch_spec.cuh@0b21a82d (float_to_e8m0, mul_cvt), ptx.cuh "
        "(exp2f_rcp)",
        Fmt::kE4M3, 32, ScaleRule::kRceilSat, -127, 127, false, 0xFF, 0xFE, true,
        ApplyRule::kF32MulTeRcp, Round::kRNE, Overflow::kSatFinite, false},
    MxProfile{
        "cutlass-host",
        "CUTLASS host reference (MX output scale factors, st = 1): UE8M0 "
        "round-up of fl(amax * fl(1/max)) saturating at 0xFE for finite, "
        "0xFF for Inf/NaN, x * fl(1/SF) in f32, RNE",
        "NVIDIA/cutlass tools/util/include/cutlass/util/reference/host/"
        "gett.hpp@751eb9a8 (compute_1d_scaling_factor_and_quantized_output); "
        "float_ue8m0_t::convert_from_float (include/cutlass/float8.h)",
        Fmt::kE4M3, 32, ScaleRule::kRceilSat, -127, 127, false, 0xFF, 0xFF, false,
        ApplyRule::kF32MulPow2, Round::kRNE, Overflow::kSatFinite, false},
    MxProfile{
        "deepgemm",
        "DeepGEMM ceil_to_ue8m0: byte = clamp(E(sf) + (M(sf) != 0), 1, 254) "
        "with sf = fl(max(amax, 1e-4) / max_elem), 1x128 blocks, x * "
        "fl(1/sf) in f32, RNE cast",
        "deepseek-ai/DeepGEMM deep_gemm/utils/math.py@38939a4c "
        "(ceil_to_ue8m0, per_token_cast_to_fp8)",
        Fmt::kE4M3, 128, ScaleRule::kDeepgemm, -126, 127, false, 254, 254, false,
        ApplyRule::kF32MulRcp, Round::kRNE, Overflow::kSatFinite, false},
    MxProfile{
        "ml-dtypes-rn",
        "Round-to-nearest scale (ml_dtypes float8_e8m0fnu cast of fl(amax * "
        "fl(1/max)), ties up), x/2^X exactly, RNE, saturating",
        "jax-ml/ml_dtypes float8_e8m0fnu conversion (observed: 3.0 -> 4.0)",
        Fmt::kE4M3, 32, ScaleRule::kRn, -127, 127, false, 0xFF, 0xFF, false,
        ApplyRule::kExactDivide, Round::kRNE, Overflow::kSatFinite, false},
    MxProfile{
        "onednn-rz",
        "Round-toward-zero scale of fl(amax * fl(1/max)), x/2^X exactly, RNE, "
        "saturating",
        "oneDNN MX scale computation (round toward zero), as summarised in "
        "shared/research/peer-libraries.md section 2",
        Fmt::kE4M3, 32, ScaleRule::kRz, -127, 127, false, 0xFF, 0xFF, false,
        ApplyRule::kExactDivide, Round::kRNE, Overflow::kSatFinite, false},
};

constexpr std::array kNv = {
    Nvfp4Profile{
        "te-nvfp4",
        "TransformerEngine NVFP4: S_enc = fl(2688/amax_t) (0 or Inf amax -> "
        "1), s = e4m3_rne_sat(fl(amax_b * fl(S_enc * fl(1/6)))), enc = "
        "min(fl(1/fl(s * fl(1/S_enc))), FLT_MAX), q = cvt.rn.satfinite "
        "(fl(x * enc)); subnormal and zero scales allowed",
        "NVIDIA/TransformerEngine transformer_engine/common/cast/nvfp4/"
        "core_nvfp4.cuh@0718c016; pytorch/custom_recipes/"
        "reference_nvfp4.py@1498424b",
        Nvfp4Rule::kTe},
    Nvfp4Profile{
        "cutlass-host-nvfp4",
        "CUTLASS host reference with st = S_enc: SF = ue4m3(fl(amax_b * "
        "fl(st * fl(1/6)))), q = cvt(fl(x * min(fl(st * fl(1/SF)), "
        "FLT_MAX)))",
        "NVIDIA/cutlass tools/util/include/cutlass/util/reference/host/"
        "gett.hpp@751eb9a8",
        Nvfp4Rule::kCutlass},
};

}  // namespace

std::span<const MxProfile> mx_profiles() { return kMx; }
std::span<const Nvfp4Profile> nvfp4_profiles() { return kNv; }

const MxProfile* find_mx_profile(std::string_view name) {
  for (const auto& p : kMx)
    if (p.name == name) return &p;
  return nullptr;
}
const Nvfp4Profile* find_nvfp4_profile(std::string_view name) {
  for (const auto& p : kNv)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace mxc
