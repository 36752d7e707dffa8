#include "emu/block/profile.h"

#include <array>

namespace mxc {
namespace {

// Source commits: pytorch/ao v0.18.0 is the wheel torchao==0.18.0 (the
// file read is torchao/prototype/mx_formats/mx_tensor.py as installed);
// main-5d73a0c1 is pytorch/ao 5d73a0c10 (#4725), unchanged in that file up
// to 36027d82d. TransformerEngine's exp2f_rcp changed in 71971e33d (#2647),
// first released in v2.13.
constexpr char kTorchao018[] =
    "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py@v0.18.0 (to_mx, "
    "_to_mx_rceil), custom_fp_utils.py@v0.18.0 (_f32_to_floatx_unpacked)";
constexpr char kTorchaoMain[] =
    "pytorch/ao torchao/prototype/mx_formats/mx_tensor.py@5d73a0c1 (to_mx, "
    "_f32_to_e8m0_rceil, _e8m0_scale_to_reciprocal_fp32); cases in "
    "torchao/testing/_mxfp8_test_utils.py@5d73a0c1";
constexpr char kTorchao018Run[] =
    "run: tests/peers/test_torchao_mx.py (torchao==0.18.0, "
    "tests/peers/requirements.txt)";
constexpr char kTorchaoMainRead[] =
    "read only: torchao's 18 named MXFP8 cases in tests/test_block_pinned.cpp "
    "(_mxfp8_test_utils.py@5d73a0c1)";

// NVIDIA ModelOpt: nvidia-modelopt==0.47.0 as installed from PyPI (the
// files read are the wheel's modelopt/torch/quantization/...).
constexpr char kModelopt047Mx[] =
    "NVIDIA/Model-Optimizer modelopt/torch/quantization/qtensor/"
    "mxfp8_tensor.py@0.47.0 (_compute_e8m0_exponent, quantize_with_scale), "
    "utils/core_utils.py@0.47.0 (reduce_block_amax)";
constexpr char kModelopt047Run[] =
    "run: tests/peers/test_modelopt.py (nvidia-modelopt==0.47.0, "
    "tests/peers/requirements.txt)";

// compressed-tensors: compressed-tensors==0.20.1 as installed from PyPI.
constexpr char kCompressedTensors020Nv[] =
    "vllm-project/compressed-tensors src/compressed_tensors/quantization/"
    "utils/helpers.py@0.20.1 (calculate_qparams, generate_gparam), "
    "lifecycle/forward_helpers.py@0.20.1 (_quantize), utils/fp4_utils.py@"
    "0.20.1 (cast_to_fp4), compressors/nvfp4/helpers.py@0.20.1 "
    "(pack_fp4_to_uint8)";
constexpr char kCompressedTensors020Mx[] =
    "vllm-project/compressed-tensors src/compressed_tensors/quantization/"
    "utils/mxfp_utils.py@0.20.1 (generate_mx_scales, round_to_power_2, "
    "maybe_convert_from_mx_exp), utils/helpers.py@0.20.1 "
    "(calculate_qparams), utils/fp4_utils.py@0.20.1 (cast_to_fp4), "
    "compressors/nvfp4/helpers.py@0.20.1 (pack_fp4_to_uint8), "
    "compressors/mx_utils.py@0.20.1 (compress_mx_scale)";
constexpr char kCompressedTensors020Run[] =
    "run: tests/peers/test_compressed_tensors.py (compressed-tensors==0.20.1, "
    "tests/peers/requirements.txt)";

// microsoft/microxcaling has no releases; 7bc41952 is main's head
// (7bc41952de394f5cc5e782baf132e7c7542eb4e4), read and run locally on CPU.
constexpr char kMicroxcaling[] =
    "microsoft/microxcaling mx/mx_ops.py@7bc41952 (_shared_exponents, "
    "_quantize_mx), mx/elemwise_ops.py@7bc41952 (_quantize_elemwise_core, "
    "_round_mantissa), mx/formats.py@7bc41952 (_get_format_params)";
constexpr char kMicroxcalingRun[] =
    "read, and run locally at 7bc41952 (not on PyPI; not in CI): pinned "
    "cases in tests/test_block_pinned.cpp from that run";

// AMD Quark 0.13 is the PyPI wheel amd-quark==0.13 (files as installed).
constexpr char kQuarkFp4[] =
    "amd-quark 0.13 quark/torch/kernel/hw_emulation/"
    "hw_emulation_interface.py (fake_quantize_mx), quark/torch/quantization/"
    "utils.py (even_round), hw_emulation/csrc/mx/funcs.cuh "
    "(fake_quantize_element: mantissa 0 -> +0.0)";
constexpr char kQuarkFp8[] =
    "amd-quark 0.13 quark/torch/kernel/hw_emulation/"
    "hw_emulation_interface.py (fake_quantize_mx, "
    "fake_quantize_fp8_per_channel_with_scale), quark/torch/quantization/"
    "utils.py (even_round)";
constexpr char kQuarkRun[] =
    "run: tests/peers/test_quark.py (amd-quark==0.13, "
    "tests/peers/requirements.txt)";

constexpr std::array kMx = {
    MxProfile{
        .name = "ocp-v1",
        .summary =
            "OCP MX v1.0: FLOOR scale from exponent bits, X clamped to >= "
            "-127 and NaN above 127, elements x/2^X exactly, RNE, normals "
            "saturate",
        .source =
            "OCP Microscaling Formats v1.0 6.3 as implemented by "
            "microsoft/microxcaling mx/mx_ops.py@3b429a84 (_shared_exponents, "
            "_quantize_mx), mx/cpp/shared_exp.cuh@4adf988d; RNE is its "
            "round='even' option (its default 'nearest' is ties-away)",
        .versions = "OCP MX v1.0 (the specification, not one library)",
        .evidence = "read only: tests/test_block_pinned.cpp (spec examples)",
        .default_elem = Fmt::kE4M3, .block = 32, .scale = ScaleRule::kFloor,
        .clamp_lo = -127, .clamp_hi = 127, .above_hi_is_nan = true,
        .nan_byte = 0xFF, .inf_byte = 0xFF, .inf_by_exponent = false,
        .amax_ignores_nan = false, .apply = ApplyRule::kExactDivide,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = false},
    // torchao 0.18.0 (the release users install). FLOOR/CEIL/EVEN: the
    // exponent of the f32 amax (Inf has E = 128: X = 128 - emax_elem after
    // the [-127, 128] clamp, byte 255 - emax_elem), scale as byte << 23
    // clamped to >= 2^-126, x / scale, clamp(+-max) for fp8, RNE cast.
    MxProfile{
        .name = "torchao-floor@0.18",
        .summary =
            "torchao 0.18 FLOOR: E(amax) - emax_elem clamped to [-127, 128] "
            "(Inf amax -> byte 255-emax, NaN -> 0xFF), x / max(2^X, "
            "2^-126) in f32 (NaN scale divides by +Inf), RNE, saturating",
        .source = kTorchao018,
        .versions = "torchao 0.18.0",
        .evidence = kTorchao018Run,
        .default_elem = Fmt::kE4M3, .block = 32, .scale = ScaleRule::kFloor,
        .clamp_lo = -127, .clamp_hi = 128, .above_hi_is_nan = false,
        .nan_byte = 0xFF, .inf_byte = 0xFF, .inf_by_exponent = true,
        .amax_ignores_nan = false, .apply = ApplyRule::kF32DivMinNormal,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = false},
    MxProfile{
        .name = "torchao-ceil@0.18",
        .summary =
            "torchao 0.18 CEIL: E(amax) + (M != 0) - emax_elem, else as "
            "torchao-floor@0.18",
        .source = kTorchao018,
        .versions = "torchao 0.18.0",
        .evidence = kTorchao018Run,
        .default_elem = Fmt::kE4M3, .block = 32, .scale = ScaleRule::kCeil,
        .clamp_lo = -127, .clamp_hi = 128, .above_hi_is_nan = false,
        .nan_byte = 0xFF, .inf_byte = 0xFF, .inf_by_exponent = true,
        .amax_ignores_nan = false, .apply = ApplyRule::kF32DivMinNormal,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = false},
    MxProfile{
        .name = "torchao-even@0.18",
        .summary =
            "torchao 0.18 EVEN: amax rounded half-up at the element's "
            "mantissa width (a carry past FLT_MAX gives Inf: byte "
            "255-emax), then FLOOR; else as torchao-floor@0.18",
        .source = kTorchao018,
        .versions = "torchao 0.18.0",
        .evidence = kTorchao018Run,
        .default_elem = Fmt::kE4M3, .block = 32, .scale = ScaleRule::kEven,
        .clamp_lo = -127, .clamp_hi = 128, .above_hi_is_nan = false,
        .nan_byte = 0xFF, .inf_byte = 0xFF, .inf_by_exponent = true,
        .amax_ignores_nan = false, .apply = ApplyRule::kF32DivMinNormal,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = false},
    MxProfile{
        .name = "torchao-rceil@0.18",
        .summary =
            "torchao 0.18 RCEIL (eager): clamp(ceil(log2f(fl(amax / max))), "
            "-127, 127), Inf -> 0xFE, NaN -> 0xFF; x * 2^(127-byte) with "
            "byte 0 -> x1.0; clamp(+-max); RNE",
        .source = kTorchao018,
        .versions = "torchao 0.18.0",
        .evidence = kTorchao018Run,
        .default_elem = Fmt::kE4M3, .block = 32,
        .scale = ScaleRule::kRceilLog2, .clamp_lo = -127, .clamp_hi = 127,
        .above_hi_is_nan = false, .nan_byte = 0xFF, .inf_byte = 0xFE,
        .inf_by_exponent = false, .amax_ignores_nan = false,
        .apply = ApplyRule::kF32MulPow2Byte0One, .elem_round = Round::kRNE,
        .elem_overflow = Overflow::kSatFinite, .neg_zero_to_pos = false},
    // torchao main after #4725 (unreleased when 0.18.0 shipped).
    MxProfile{
        .name = "torchao-floor@main-5d73a0c1",
        .summary =
            "torchao main FLOOR: E(amax) - emax_elem clamped to [-127, 128], "
            "Inf/NaN amax -> 0xFF, x * 2^(127-byte) in f32 (byte 0 -> "
            "2^127), RNE cast, saturating",
        .source = kTorchaoMain,
        .versions = "torchao main from 5d73a0c1 (#4725), unreleased",
        .evidence = kTorchaoMainRead,
        .default_elem = Fmt::kE4M3, .block = 32, .scale = ScaleRule::kFloor,
        .clamp_lo = -127, .clamp_hi = 128, .above_hi_is_nan = false,
        .nan_byte = 0xFF, .inf_byte = 0xFF, .inf_by_exponent = false,
        .amax_ignores_nan = false, .apply = ApplyRule::kF32MulPow2,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = false},
    MxProfile{
        .name = "torchao-ceil@main-5d73a0c1",
        .summary =
            "torchao main CEIL: E(amax) + (M != 0) - emax_elem, else as "
            "torchao-floor@main-5d73a0c1",
        .source = kTorchaoMain,
        .versions = "torchao main from 5d73a0c1 (#4725), unreleased",
        .evidence = kTorchaoMainRead,
        .default_elem = Fmt::kE4M3, .block = 32, .scale = ScaleRule::kCeil,
        .clamp_lo = -127, .clamp_hi = 128, .above_hi_is_nan = false,
        .nan_byte = 0xFF, .inf_byte = 0xFF, .inf_by_exponent = false,
        .amax_ignores_nan = false, .apply = ApplyRule::kF32MulPow2,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = false},
    MxProfile{
        .name = "torchao-even@main-5d73a0c1",
        .summary =
            "torchao main EVEN: amax rounded half-up at the element's "
            "mantissa width (a carry past FLT_MAX is non-finite: 0xFF), then "
            "FLOOR; else as torchao-floor@main-5d73a0c1",
        .source = kTorchaoMain,
        .versions = "torchao main from 5d73a0c1 (#4725), unreleased",
        .evidence = kTorchaoMainRead,
        .default_elem = Fmt::kE4M3, .block = 32, .scale = ScaleRule::kEven,
        .clamp_lo = -127, .clamp_hi = 128, .above_hi_is_nan = false,
        .nan_byte = 0xFF, .inf_byte = 0xFF, .inf_by_exponent = false,
        .amax_ignores_nan = false, .apply = ApplyRule::kF32MulPow2,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = false},
    MxProfile{
        .name = "torchao-rceil@main-5d73a0c1",
        .summary =
            "torchao main RCEIL: E8M0 round-up of fl(amax * fl(1/max_elem)) "
            "without saturation (overflow, Inf, NaN -> 0xFF), x * "
            "2^(127-byte) in f32",
        .source = kTorchaoMain,
        .versions = "torchao main from 5d73a0c1 (#4725), unreleased",
        .evidence = kTorchaoMainRead,
        .default_elem = Fmt::kE4M3, .block = 32, .scale = ScaleRule::kRceil,
        .clamp_lo = -127, .clamp_hi = 127, .above_hi_is_nan = false,
        .nan_byte = 0xFF, .inf_byte = 0xFF, .inf_by_exponent = false,
        .amax_ignores_nan = false, .apply = ApplyRule::kF32MulPow2,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = false},
    MxProfile{
        .name = "te-mxfp8@2.12",
        .summary =
            "TransformerEngine MXFP8 up to v2.12: cvt.rp.satfinite.ue8m0x2 of "
            "fl(amax * fl(1/max)) (Inf -> 0xFE), amax by fmaxf (NaN "
            "ignored), multiplier exp2f_rcp (byte 0 -> 1.0, 254 -> +0.0), "
            "cvt.rn.satfinite",
        .source =
            "NVIDIA/TransformerEngine transformer_engine/common/util/"
            "ptx_arch_spec.cuh@0b21a82d (float_to_e8m0, mul_cvt), "
            "util/ptx.cuh@71971e33d^ (exp2f_rcp before #2647)",
        .versions = "TransformerEngine up to v2.12",
        .evidence = "read only: tests/test_block_pinned.cpp (TE cases)",
        .default_elem = Fmt::kE4M3, .block = 32,
        .scale = ScaleRule::kRceilSat, .clamp_lo = -127, .clamp_hi = 127,
        .above_hi_is_nan = false, .nan_byte = 0xFF, .inf_byte = 0xFE,
        .inf_by_exponent = false, .amax_ignores_nan = true,
        .apply = ApplyRule::kF32MulTeRcp, .elem_round = Round::kRNE,
        .elem_overflow = Overflow::kSatFinite, .neg_zero_to_pos = false},
    MxProfile{
        .name = "te-mxfp8@2.13",
        .summary =
            "TransformerEngine MXFP8 from v2.13: as te-mxfp8@2.12 but "
            "exp2f_rcp maps byte 0 -> x2^127, 254 -> x2^-127, 255 -> NaN",
        .source =
            "NVIDIA/TransformerEngine transformer_engine/common/util/"
            "ptx.cuh@71971e33d (exp2f_rcp, #2647), tests/cpp/"
            "test_common.h@71971e33d; float_to_e8m0 as te-mxfp8@2.12",
        .versions = "TransformerEngine v2.13 to v2.18 (main d0067d0da)",
        .evidence = "read only: tests/test_block_pinned.cpp (TE cases)",
        .default_elem = Fmt::kE4M3, .block = 32,
        .scale = ScaleRule::kRceilSat, .clamp_lo = -127, .clamp_hi = 127,
        .above_hi_is_nan = false, .nan_byte = 0xFF, .inf_byte = 0xFE,
        .inf_by_exponent = false, .amax_ignores_nan = true,
        .apply = ApplyRule::kF32MulPow2, .elem_round = Round::kRNE,
        .elem_overflow = Overflow::kSatFinite, .neg_zero_to_pos = false},
    MxProfile{
        .name = "cutlass-host",
        .summary =
            "CUTLASS host reference (MX output scale factors, st = 1): UE8M0 "
            "round-up of fl(amax * fl(1/max)) saturating at 0xFE for finite, "
            "0xFF for Inf/NaN, x * fl(1/SF) in f32, RNE",
        .source =
            "NVIDIA/cutlass tools/util/include/cutlass/util/reference/host/"
            "gett.hpp@751eb9a8 (compute_1d_scaling_factor_and_quantized_"
            "output); float_ue8m0_t::convert_from_float "
            "(include/cutlass/float8.h)",
        .versions = "CUTLASS at 751eb9a8",
        .evidence = "read only: tests/test_block_pinned.cpp",
        .default_elem = Fmt::kE4M3, .block = 32,
        .scale = ScaleRule::kRceilSat, .clamp_lo = -127, .clamp_hi = 127,
        .above_hi_is_nan = false, .nan_byte = 0xFF, .inf_byte = 0xFF,
        .inf_by_exponent = false, .amax_ignores_nan = false,
        .apply = ApplyRule::kF32MulPow2, .elem_round = Round::kRNE,
        .elem_overflow = Overflow::kSatFinite, .neg_zero_to_pos = false},
    MxProfile{
        .name = "deepgemm",
        .summary =
            "DeepGEMM ceil_to_ue8m0: byte = clamp(E(sf) + (M(sf) != 0), 1, "
            "254) with sf = fl(max(amax, 1e-4) / max_elem), 1x128 blocks, x "
            "* fl(1/sf) in f32, RNE cast",
        .source =
            "deepseek-ai/DeepGEMM deep_gemm/utils/math.py@38939a4c "
            "(ceil_to_ue8m0, per_token_cast_to_fp8)",
        .versions = "DeepGEMM at 38939a4c",
        .evidence = "read only: tests/test_block_pinned.cpp",
        .default_elem = Fmt::kE4M3, .block = 128,
        .scale = ScaleRule::kDeepgemm, .clamp_lo = -126, .clamp_hi = 127,
        .above_hi_is_nan = false, .nan_byte = 254, .inf_byte = 254,
        .inf_by_exponent = false, .amax_ignores_nan = false,
        .apply = ApplyRule::kF32MulRcp, .elem_round = Round::kRNE,
        .elem_overflow = Overflow::kSatFinite, .neg_zero_to_pos = false},
    MxProfile{
        .name = "ml-dtypes-rn",
        .summary =
            "Round-to-nearest scale (ml_dtypes float8_e8m0fnu cast of "
            "fl(amax * fl(1/max)), ties up), x/2^X exactly, RNE, saturating",
        .source =
            "jax-ml/ml_dtypes float8_e8m0fnu conversion (observed: 3.0 -> "
            "4.0)",
        .versions = "ml_dtypes 0.5.4 (e8m0 cast behaviour)",
        .evidence =
            "run (the scale byte where fl(amax/max) is a normal f32): "
            "tests/peers/test_ml_dtypes.py; zero and subnormal quotients "
            "differ (named variation ml-dtypes-subnormal-q)",
        .default_elem = Fmt::kE4M3, .block = 32, .scale = ScaleRule::kRn,
        .clamp_lo = -127, .clamp_hi = 127, .above_hi_is_nan = false,
        .nan_byte = 0xFF, .inf_byte = 0xFF, .inf_by_exponent = false,
        .amax_ignores_nan = false, .apply = ApplyRule::kExactDivide,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = false},
    MxProfile{
        .name = "onednn-rz",
        .summary =
            "Round-toward-zero scale of fl(amax * fl(1/max)), x/2^X exactly, "
            "RNE, saturating",
        .source =
            "oneDNN MX scale computation (round toward zero), as summarised "
            "in shared/research/peer-libraries.md section 2",
        .versions = "oneDNN (UNCONFIRMED against its source)",
        .evidence = "read only: survey summary",
        .default_elem = Fmt::kE4M3, .block = 32, .scale = ScaleRule::kRz,
        .clamp_lo = -127, .clamp_hi = 127, .above_hi_is_nan = false,
        .nan_byte = 0xFF, .inf_byte = 0xFF, .inf_by_exponent = false,
        .amax_ignores_nan = false, .apply = ApplyRule::kExactDivide,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = false},
    // --- NVIDIA ModelOpt 0.47.0 (nvidia-modelopt on PyPI), issue 14 ---
    // MXFP8QTensor.quantize: amax per block of 32 (torch amax/amin: NaN
    // propagates), descale = fl(amax / 448), X = ceil(log2(descale)) in f32
    // where descale > 0 else -127 (so NaN -> byte 0), clamp [-127, 127];
    // x * exp2(127 - byte) in f32, clamp(+-448), RNE cast.
    MxProfile{
        .name = "modelopt-mxfp8@0.47",
        .summary =
            "NVIDIA ModelOpt MXFP8QTensor: clamp(ceil(log2f(fl(amax / "
            "448))), -127, 127) (descale 0 or NaN -> -127: NaN amax -> byte "
            "0, Inf -> 0xFE); x * 2^(127-byte) in f32 (byte 0 -> 2^127); "
            "clamp(+-448); RNE",
        .source = kModelopt047Mx,
        .versions = "nvidia-modelopt 0.47.0",
        .evidence = kModelopt047Run,
        .default_elem = Fmt::kE4M3, .block = 32,
        .scale = ScaleRule::kRceilLog2, .clamp_lo = -127, .clamp_hi = 127,
        .above_hi_is_nan = false, .nan_byte = 0x00, .inf_byte = 0xFE,
        .inf_by_exponent = false, .amax_ignores_nan = false,
        .apply = ApplyRule::kF32MulPow2, .elem_round = Round::kRNE,
        .elem_overflow = Overflow::kSatFinite, .neg_zero_to_pos = false},
    // --- end ModelOpt ---
    // --- compressed-tensors 0.20.1 (PyPI), issue 14 ---
    // MXFP4 scheme: generate_mx_scales (EVEN: amax + half an ulp at FP4's
    // one mantissa bit, mantissa masked off, floor(log2) - 2), the float
    // scale 2^(byte-127) (non-finite amax: 2^128 = +Inf), x / scale,
    // clamp(+-6), cast_to_fp4 (RNE), pack_fp4_to_uint8. A NaN amax becomes
    // -Inf or NaN in round_to_power_2's integer masking and NaN through
    // log2, which the uint8 cast makes byte 0 (observed on x86-64: both
    // NaN signs; elements then x * 2^127). Verified for E2M1
    // only (its MXFP8 scheme rounds amax at 1 bit too: not this rule).
    MxProfile{
        .name = "compressed-tensors-mxfp4@0.20",
        .summary =
            "compressed-tensors MXFP4: amax rounded half-up at 1 mantissa "
            "bit, then FLOOR (X >= -127; Inf amax or a carry past FLT_MAX "
            "-> 0xFF = scale +Inf, all codes 0, stored by the compressor "
            "as 0x7F; NaN amax -> byte 0 on x86); fl(x / 2^X), clamp(+-6), "
            "RNE; a -0 quotient and NaN -> code 0",
        .source = kCompressedTensors020Mx,
        .versions = "compressed-tensors 0.20.1",
        .evidence = kCompressedTensors020Run,
        .default_elem = Fmt::kE2M1, .block = 32, .scale = ScaleRule::kEven,
        .clamp_lo = -127, .clamp_hi = 128, .above_hi_is_nan = false,
        .nan_byte = 0x00, .inf_byte = 0xFF, .inf_by_exponent = false,
        .amax_ignores_nan = false, .apply = ApplyRule::kF32DivPow2CtFp4,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = false},
    // --- end compressed-tensors ---
    // microsoft/microxcaling (the OCP MX spec authors' reference), its
    // pure-PyTorch path (_quantize_mx with custom_cuda=False), f32 tensors.
    MxProfile{
        .name = "microxcaling@7bc41952",
        .summary =
            "microxcaling, round='nearest' (its default): X = floor(log2f("
            "amax)) - emax_elem in f32 (one binade high a few ulps below "
            "2^k; all-zero block log2(2^-126): MXINT8 X = -126), < -127 -> "
            "-127, > 127 or Inf/NaN -> NaN; elements sign(y) * floor(fl(|y| "
            "+ 0.5)) in f32 (ties away; double rounding), -0 -> +0, clamped "
            "to +-max (MXINT8 +-127/64)",
        .source = kMicroxcaling,
        .versions = "microxcaling at 7bc41952 (main; no releases)",
        .evidence = kMicroxcalingRun,
        .default_elem = Fmt::kE4M3, .block = 32,
        .scale = ScaleRule::kFloorLog2, .clamp_lo = -127, .clamp_hi = 127,
        .above_hi_is_nan = true, .nan_byte = 0xFF, .inf_byte = 0xFF,
        .inf_by_exponent = false, .amax_ignores_nan = false,
        .apply = ApplyRule::kF32FloorHalfUp, .elem_round = Round::kRNA,
        .elem_overflow = Overflow::kSatFinite, .neg_zero_to_pos = false},
    MxProfile{
        .name = "microxcaling-even@7bc41952",
        .summary =
            "microxcaling, round='even': as microxcaling@7bc41952 but exact "
            "ties (|y| - 0.5 even) go down: RNE computed as floor(fl(|y| + "
            "0.5)) - tie mask in f32",
        .source = kMicroxcaling,
        .versions = "microxcaling at 7bc41952 (main; no releases)",
        .evidence = kMicroxcalingRun,
        .default_elem = Fmt::kE4M3, .block = 32,
        .scale = ScaleRule::kFloorLog2, .clamp_lo = -127, .clamp_hi = 127,
        .above_hi_is_nan = true, .nan_byte = 0xFF, .inf_byte = 0xFF,
        .inf_by_exponent = false, .amax_ignores_nan = false,
        .apply = ApplyRule::kF32FloorHalfUp, .elem_round = Round::kRNE,
        .elem_overflow = Overflow::kSatFinite, .neg_zero_to_pos = false},
    // AMD Quark 0.13 (pip amd-quark==0.13), fake_quantize_mx with its
    // default scale_calculation_mode="even": the path Quark's MX
    // quantizers take for f32 (and, through fake_quantize_mx, bf16) tensors.
    MxProfile{
        .name = "quark-mxfp4@0.13",
        .summary =
            "AMD Quark 0.13 MXFP4/MXFP6 (scale mode 'even'): amax rounded "
            "half-up at the element's mantissa width, then FLOOR, clamped to "
            "[-127, 127] (Inf amax or a carry past FLT_MAX -> 0xFE, NaN -> "
            "0xFF); x / 2^X in f32, RNE, saturating; every zero result +0",
        .source = kQuarkFp4,
        .versions = "amd-quark 0.13",
        .evidence = kQuarkRun,
        .default_elem = Fmt::kE2M1, .block = 32, .scale = ScaleRule::kEven,
        .clamp_lo = -127, .clamp_hi = 127, .above_hi_is_nan = false,
        .nan_byte = 0xFF, .inf_byte = 0xFE, .inf_by_exponent = false,
        .amax_ignores_nan = false, .apply = ApplyRule::kExactDivide,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = true},
    MxProfile{
        .name = "quark-mxfp8@0.13",
        .summary =
            "AMD Quark 0.13 MXFP8 (scale mode 'even'): scale as "
            "quark-mxfp4@0.13; x / 2^X in f32, clamp(+-max), torch's RNE "
            "float8 cast (-0 kept)",
        .source = kQuarkFp8,
        .versions = "amd-quark 0.13",
        .evidence = kQuarkRun,
        .default_elem = Fmt::kE4M3, .block = 32, .scale = ScaleRule::kEven,
        .clamp_lo = -127, .clamp_hi = 127, .above_hi_is_nan = false,
        .nan_byte = 0xFF, .inf_byte = 0xFE, .inf_by_exponent = false,
        .amax_ignores_nan = false, .apply = ApplyRule::kExactDivide,
        .elem_round = Round::kRNE, .elem_overflow = Overflow::kSatFinite,
        .neg_zero_to_pos = false},
    // --- issue 14, read-only conventions (prof-read): TE MXFP4, DeepGEMM
    // FP4. Both casts are Python comparisons against the E2M1 midpoints.
    MxProfile{
        .name = "te-mxfp4@2.10",
        .summary =
            "TransformerEngine MXFP4 reference (pow_2_scales): clamp(ceil("
            "log2(fl(amax / 6))), -127, 127) with log2 rounded to f32, Inf "
            "-> 0xFE, NaN -> 0xFF; x * fl(1/2^X); clamp(+-6); RNE by "
            "midpoint comparisons: NaN -> +0, an exact -0 -> +0",
        .source =
            "NVIDIA/TransformerEngine transformer_engine/pytorch/"
            "custom_recipes/reference_nvfp4.py@d0067d0da (cast_to_e8 "
            "118-127, pow_2_scales branch 702-707, clamp and cast_to_fp4x2 "
            "773-777 and 49-71; same code in custom_recipes/"
            "quantization_nvfp4.py@v2.10); the CUDA kernel refuses "
            "pow2 MXFP4 (common/transpose/"
            "quantize_transpose_vector_blockwise_fp4.cu@d0067d0da:785-787)",
        .versions =
            "TransformerEngine v2.10 to v2.18 and main d0067d0da (Python "
            "reference recipe only)",
        .evidence =
            "read, run locally at d0067d0da (the reference's "
            "_quantize_blockwise_reference on CPU, hostile blocks); pinned "
            "in tests/test_block_pinned.cpp",
        .default_elem = Fmt::kE2M1, .block = 32,
        .scale = ScaleRule::kRceilLog2, .clamp_lo = -127, .clamp_hi = 127,
        .above_hi_is_nan = false, .nan_byte = 0xFF, .inf_byte = 0xFE,
        .inf_by_exponent = false, .amax_ignores_nan = false,
        .apply = ApplyRule::kF32MulPow2, .elem_round = Round::kRNE,
        .elem_overflow = Overflow::kSatFinite, .neg_zero_to_pos = false,
        .nan_elem_to_zero = true, .exact_neg_zero_to_pos = true},
    MxProfile{
        .name = "deepgemm-fp4@54e22612",
        .summary =
            "DeepGEMM per_token_cast_to_fp4 (use_ue8m0): byte = clamp(E(sf) "
            "+ (M(sf) != 0), 1, 254), sf = fl(max(amax, 1e-4) / 6); x * "
            "fl(1/sf); E2M1 by counting midpoints exceeded: ties toward "
            "zero, no -0, NaN -> +0, saturating",
        .source =
            "deepseek-ai/DeepGEMM deep_gemm/utils/math.py@54e22612 "
            "(_quantize_to_fp4_e2m1 73-82, per_token_cast_to_fp4 85-98, "
            "ceil_to_ue8m0 13-16)",
        .versions =
            "DeepGEMM from 54e22612 (#364; before it, 7f2a703e used "
            "torch.bucketize, not compared)",
        .evidence =
            "read, run locally at 54e22612 (per_token_cast_to_fp4 on CPU, "
            "hostile blocks); pinned in tests/test_block_pinned.cpp",
        .default_elem = Fmt::kE2M1, .block = 32,
        .scale = ScaleRule::kDeepgemm, .clamp_lo = -126, .clamp_hi = 127,
        .above_hi_is_nan = false, .nan_byte = 254, .inf_byte = 254,
        .inf_by_exponent = false, .amax_ignores_nan = false,
        .apply = ApplyRule::kF32MulRcp, .elem_round = Round::kRNZ,
        .elem_overflow = Overflow::kSatFinite, .neg_zero_to_pos = true,
        .nan_elem_to_zero = true},
};

constexpr std::array kNv = {
    Nvfp4Profile{
        .name = "te-nvfp4",
        .summary =
            "TransformerEngine NVFP4: S_enc = fl(2688/amax_t) (0 or Inf amax "
            "-> 1), s = e4m3_rne_sat(fl(amax_b * fl(S_enc * fl(1/6)))), enc "
            "= min(fl(1/fl(s * fl(1/S_enc))), FLT_MAX), q = "
            "cvt.rn.satfinite (fl(x * enc)); subnormal and zero scales "
            "allowed; block amax by fmaxf / PTX max (NaN elements ignored)",
        .source =
            "NVIDIA/TransformerEngine transformer_engine/common/cast/nvfp4/"
            "core_nvfp4.cuh@0718c016; pytorch/custom_recipes/"
            "reference_nvfp4.py@1498424b; block amax: cast/nvfp4/"
            "quantize_transpose_nvfp4.cuh@d0067d0da (fmaxf, lines 529, 533, "
            "654; ptx::abs_max_2x = max.xorsign.abs without .NaN, "
            "util/ptx.cuh:696)",
        .versions = "TransformerEngine at 0718c016 to d0067d0da (v2.18)",
        .evidence = "read only: tests/test_block_pinned.cpp",
        .rule = Nvfp4Rule::kTe,
        .amax_ignores_nan = true},
    Nvfp4Profile{
        .name = "cutlass-host-nvfp4",
        .summary =
            "CUTLASS host reference with st = S_enc: SF = ue4m3(fl(amax_b * "
            "fl(st * fl(1/6)))), q = cvt(fl(x * min(fl(st * fl(1/SF)), "
            "FLT_MAX)))",
        .source =
            "NVIDIA/cutlass tools/util/include/cutlass/util/reference/host/"
            "gett.hpp@751eb9a8",
        .versions = "CUTLASS at 751eb9a8",
        .evidence = "read only: tests/test_block_pinned.cpp",
        .rule = Nvfp4Rule::kCutlass},
    Nvfp4Profile{
        .name = "torchao-nvfp4@0.18",
        .summary =
            "torchao nvfp4_quantize, two-level: t = fl(amax_t / 2688); s = "
            "e4m3(clamp(fl(fl(amax_b / 6) / t), 2^-6, 448)) (no subnormal or "
            "zero scales); q = e2m1(clamp(fl(x * fl(fl(1/t) / s)), +-6)), "
            "RNE; tensor amax 0 -> t = 0",
        .source =
            "pytorch/ao torchao/prototype/mx_formats/nvfp4_tensor.py@v0.18.0 "
            "(nvfp4_quantize, per_tensor_amax_to_scale)",
        .versions = "torchao 0.18.0",
        .evidence = "run: tests/peers/test_torchao_nvfp4.py",
        .rule = Nvfp4Rule::kTorchao},
    Nvfp4Profile{
        .name = "torchao-nvfp4-single@0.18",
        .summary =
            "torchao nvfp4_quantize without a tensor scale: s = "
            "e4m3(clamp(fl(amax_b / 6), 2^-6, 448)); q = e2m1(clamp(fl(x * "
            "fl(1/s)), +-6)), RNE (--tensor-amax is ignored)",
        .source =
            "pytorch/ao torchao/prototype/mx_formats/nvfp4_tensor.py@v0.18.0 "
            "(nvfp4_quantize, per_tensor_scale=None)",
        .versions = "torchao 0.18.0",
        .evidence = "run: tests/peers/test_torchao_nvfp4.py",
        .rule = Nvfp4Rule::kTorchaoSingle},
    // --- NVIDIA ModelOpt 0.47.0, issue 14 ---
    Nvfp4Profile{
        .name = "modelopt-nvfp4@0.47",
        .summary =
            "NVIDIA ModelOpt NVFP4QTensor: t = fl(amax_t / 2688); s = "
            "fl(amax_b / fl(6 * t)), 0 -> 1.0, e4m3(clamp(s, 2^-9, 448)) "
            "(subnormal scales kept); q = e2m1(fl(x / fl(s * t))), RNE, "
            "saturating, -0 -> +0, NaN -> code 7",
        .source =
            "NVIDIA/Model-Optimizer modelopt/torch/quantization/qtensor/"
            "nvfp4_tensor.py@0.47.0 (get_weights_scaling_factor(_2), "
            "quantize, _cast_fp4), utils/core_utils.py@0.47.0 "
            "(reduce_block_amax)",
        .versions = "nvidia-modelopt 0.47.0",
        .evidence = kModelopt047Run,
        .rule = Nvfp4Rule::kModelopt},
    // --- end ModelOpt ---
    // --- compressed-tensors 0.20.1 (PyPI), issue 14 ---
    Nvfp4Profile{
        .name = "compressed-tensors-nvfp4@0.20",
        .summary =
            "compressed-tensors NVFP4 (f32 weights): g = fl(fl(1 / "
            "max(amax_t, 2^-126)) * 2688), NaN/Inf -> 1; s = e4m3(min(fl(g * "
            "fl(amax_b / 6)), 448)), 0 -> 0.125 (0x20); q = e2m1(clamp(fl(x "
            "/ fl(s / g)), +-6)), RNE, -0 and NaN -> code 0",
        .source = kCompressedTensors020Nv,
        .versions = "compressed-tensors 0.20.1",
        .evidence = kCompressedTensors020Run,
        .rule = Nvfp4Rule::kCompressedTensors},
    Nvfp4Profile{
        .name = "compressed-tensors-nvfp4-bf16@0.20",
        .summary =
            "compressed-tensors NVFP4 for bf16 weights (statistics in bf16): "
            "as compressed-tensors-nvfp4@0.20 with g and fl(amax_b / 6) "
            "rounded to bf16",
        .source = kCompressedTensors020Nv,
        .versions = "compressed-tensors 0.20.1",
        .evidence = kCompressedTensors020Run,
        .rule = Nvfp4Rule::kCompressedTensors,
        .stats_bf16 = true},
    // --- end compressed-tensors ---
    // --- issue 14, read-only conventions (prof-read): TE NVFP4 4over6.
    Nvfp4Profile{
        .name = "te-nvfp4-4over6@2.17",
        .summary =
            "TransformerEngine NVFP4 4over6 (MAE, 1x16, E4M3 bound 256): "
            "tensor value = tensor amax A, S_enc = fl(1536/A); per block the "
            "map-to-6 scale e4m3(base) or the map-to-4 scale "
            "e4m3(fl(base*1.5)), base = fl(fl(amax_b/6)*S_enc), whichever "
            "gives the smaller f32 error sum (ties: map-to-6); elements as "
            "te-nvfp4",
        .source =
            "NVIDIA/TransformerEngine transformer_engine/common/cast/nvfp4/"
            "quantize_4over6_nvfp4.cuh@d0067d0da (compute_scale_pair "
            "125-146, accumulate_dequant_error 190-202, fmaxf amax 169-170), "
            "core_nvfp4.cuh@d0067d0da:81-95; pytorch/custom_recipes/"
            "reference_nvfp4.py@d0067d0da (_quantize_blockwise_4over6_"
            "reference 523-648); added in dc9af4abc (#2972)",
        .versions = "TransformerEngine v2.17 to v2.18 and main d0067d0da",
        .evidence =
            "read, run locally at d0067d0da (the Python reference, 1x16 MAE "
            "e4m3_max 256, on CPU); pinned in tests/test_block_pinned.cpp",
        .rule = Nvfp4Rule::kTe4over6,
        .amax_ignores_nan = true},
    Nvfp4Profile{
        .name = "te-nvfp4-4over6-mse@2.17",
        .summary =
            "te-nvfp4-4over6@2.17 with NVTE_NVFP4_4OVER6_ERR_MODE=MSE: the "
            "error sum adds fl(d * d) instead of |d|",
        .source =
            "as te-nvfp4-4over6@2.17; compute_error_rn "
            "(quantize_4over6_nvfp4.cuh@d0067d0da:113-123)",
        .versions = "TransformerEngine v2.17 to v2.18 and main d0067d0da",
        .evidence =
            "read, run locally at d0067d0da (the Python reference, 1x16 MSE "
            "e4m3_max 256, on CPU)",
        .rule = Nvfp4Rule::kTe4over6,
        .amax_ignores_nan = true,
        .four_over_six_mse = true},
    Nvfp4Profile{
        .name = "te-nvfp4-4over6-448@2.17",
        .summary =
            "te-nvfp4-4over6@2.17 with nvfp4_4over6_e4m3_use_256=\"none\": "
            "S_enc = fl(2688/A) and the error denominator 2688 (map-to-4 "
            "scales may then clamp at 448)",
        .source =
            "as te-nvfp4-4over6@2.17; compute_global_encode_scaling_factor_"
            "FP4<448> (core_nvfp4.cuh@d0067d0da:81-95); docs/envvars.rst "
            "NVTE_NVFP4_4OVER6_E4M3_USE_256",
        .versions = "TransformerEngine v2.17 to v2.18 and main d0067d0da",
        .evidence =
            "read, run locally at d0067d0da (the Python reference, 1x16 MAE "
            "e4m3_max 448, on CPU)",
        .rule = Nvfp4Rule::kTe4over6,
        .amax_ignores_nan = true,
        .four_over_six_e4m3 = 448},
};

// Bare names: the newest released behaviour. Every pre-versioning name
// keeps resolving.
constexpr std::array kAliases = {
    ProfileAlias{"torchao-floor", "torchao-floor@0.18", "newest release"},
    ProfileAlias{"torchao-ceil", "torchao-ceil@0.18", "newest release"},
    ProfileAlias{"torchao-even", "torchao-even@0.18", "newest release"},
    ProfileAlias{"torchao-rceil", "torchao-rceil@0.18", "newest release"},
    ProfileAlias{"te-mxfp8", "te-mxfp8@2.13", "newest release (v2.18)"},
    ProfileAlias{"torchao-nvfp4", "torchao-nvfp4@0.18", "newest release"},
    ProfileAlias{"torchao-nvfp4-single", "torchao-nvfp4-single@0.18",
                 "newest release"},
    // --- NVIDIA ModelOpt, issue 14 ---
    ProfileAlias{"modelopt-mxfp8", "modelopt-mxfp8@0.47", "newest release"},
    ProfileAlias{"modelopt-nvfp4", "modelopt-nvfp4@0.47", "newest release"},
    // --- end ModelOpt ---
    // --- compressed-tensors, issue 14 ---
    ProfileAlias{"compressed-tensors-nvfp4", "compressed-tensors-nvfp4@0.20",
                 "newest release"},
    ProfileAlias{"compressed-tensors-nvfp4-bf16",
                 "compressed-tensors-nvfp4-bf16@0.20", "newest release"},
    ProfileAlias{"compressed-tensors-mxfp4", "compressed-tensors-mxfp4@0.20",
                 "newest release"},
    // --- end compressed-tensors ---
    ProfileAlias{"quark-mxfp4", "quark-mxfp4@0.13", "newest release"},
    ProfileAlias{"quark-mxfp8", "quark-mxfp8@0.13", "newest release"},
    // issue 14, prof-read
    ProfileAlias{"te-mxfp4", "te-mxfp4@2.10", "newest release (v2.18)"},
    ProfileAlias{"te-nvfp4-4over6", "te-nvfp4-4over6@2.17",
                 "newest release (v2.18)"},
    ProfileAlias{"te-nvfp4-4over6-mse", "te-nvfp4-4over6-mse@2.17",
                 "newest release (v2.18)"},
    ProfileAlias{"te-nvfp4-4over6-448", "te-nvfp4-4over6-448@2.17",
                 "newest release (v2.18)"},
    ProfileAlias{"deepgemm-fp4", "deepgemm-fp4@54e22612",
                 "newest commit read (DeepGEMM has no releases)"},
};

}  // namespace

std::span<const MxProfile> mx_profiles() { return kMx; }
std::span<const Nvfp4Profile> nvfp4_profiles() { return kNv; }

std::span<const ProfileAlias> profile_aliases() { return kAliases; }

std::string_view resolve_profile_name(std::string_view name) {
  for (const auto& a : kAliases)
    if (a.alias == name) return a.target;
  return name;
}

const MxProfile* find_mx_profile(std::string_view name) {
  name = resolve_profile_name(name);
  for (const auto& p : kMx)
    if (p.name == name) return &p;
  return nullptr;
}
const Nvfp4Profile* find_nvfp4_profile(std::string_view name) {
  name = resolve_profile_name(name);
  for (const auto& p : kNv)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace mxc
