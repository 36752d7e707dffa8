#include "emu/mma/models.h"

#include <array>
#include <cassert>

#include "emu/codes.h"
#include "emu/convert.h"

namespace mxc {
namespace {

constexpr Fmt kFp8[] = {Fmt::kE4M3, Fmt::kE5M2};
constexpr Fmt kF8F6F4[] = {Fmt::kE4M3, Fmt::kE5M2, Fmt::kE3M2, Fmt::kE2M3,
                           Fmt::kE2M1};
constexpr Fmt kFp4[] = {Fmt::kE2M1};
constexpr Fmt kHalf[] = {Fmt::kF16, Fmt::kBF16};
constexpr Fmt kTf32[] = {Fmt::kTF32};
constexpr Fmt kF16[] = {Fmt::kF16};
constexpr Fmt kBf16[] = {Fmt::kBF16};
// CDNA3 FP8 (fp8 = E4M3FNUZ) and BF8 (= E5M2FNUZ), any pair.
constexpr Fmt kFp8Fnuz[] = {Fmt::kE4M3Fnuz, Fmt::kE5M2Fnuz};

// Sources (docs/models.md gives the section of each):
//   MMA-Sim   microsoft/MMA-Sim nv_ptx sim.py F/rho/L tables and paper v2
//             Tables 4, 5 (via bksaiki/fpy examples/mmasim)
//   KM        north-numerical-computing/MATLAB-tensor-core models/*TC.m
//   cutlass   NVIDIA/cutlass#1986 (Hopper mma.sync FP8 emulated on FP16)
// mma.sync FP8 on sm_90 / sm_100 (issue 12): the products' FDPAs start
// from +0 and C is added outside with an ordinary RNE add. f32 output: two
// 16-product FDPAs, k mod 4 in {0,1} then {2,3} (the f16 structure with
// RZ-FP32), as the H200 device check of 2026-12-04 separated: the earlier
// single 32-product FDPA differed from the GPU in 79 of 2,188 level-1 cases
// (about 13% of a random sweep); this one in none. KM's captures (narrow
// operand range) agree with both (docs/models.md).
constexpr FdpaParams kMmaSyncFp8F32{.L = 16,
                                    .G = 0,
                                    .F = 25,
                                    .rho = AccRound::kRzF32,
                                    .e_zero = -133,
                                    .k_block = 32,
                                    .k_period = 4,
                                    .k_run = 2,
                                    .c_outside = true};
// f16 output: two 16-product FDPAs, k mod 4 in {0,1} then {2,3}.
constexpr FdpaParams kMmaSyncFp8F16{.L = 16,
                                    .G = 0,
                                    .F = 25,
                                    .rho = AccRound::kRneF16,
                                    .e_zero = -22,
                                    .k_block = 32,
                                    .k_period = 4,
                                    .k_run = 2,
                                    .c_outside = true};

// AMD CDNA MFMA (docs/models.md, "AMD CDNA MFMA"): microsoft/MMA-Sim
// c785138 mmasim/simulator/amd.py (mfma.__init__ picks the datapath and its
// group size per architecture and type) and arithmetic.py.
// CDNA1/2 f16/bf16: f32 products, pairwise f32 adds over groups of L, C
// added per group; CDNA2 flushes subnormals (flush_denormal).
constexpr FdpaParams amd_pairwise(int group, bool ftz) {
  return FdpaParams{.L = group,
                    .G = 0,
                    .F = 0,
                    .rho = AccRound::kRneF32,
                    .e_zero = 0,
                    .zero_exp = ZeroExp::kFixed,
                    .zero_sign = ZeroSign::kIeee,
                    .datapath = Datapath::kF32Pairwise,
                    .ftz = ftz};
}
// CDNA3: amd_fused_dot_rd_add with n_fractional_bits = 24 over groups of
// min(8, k) (f16, bf16), 4 (xf32), 16 (fp8/bf8, is_fp8: two interleaved
// sets); each group's result rounded to f32 by torch.tensor (RNE). A zero
// operand has exponent -126 (extract_significand_exponent); e_zero -252 is
// that of 0 x 0, used only by the `fixed` zero-rule variant.
constexpr FdpaParams amd_two_stage(int group, int split) {
  return FdpaParams{.L = group,
                    .G = 0,
                    .F = 24,
                    .rho = AccRound::kRneF32,
                    .e_zero = -252,
                    .zero_exp = ZeroExp::kOperandMin,
                    .zero_sign = ZeroSign::kIeee,
                    .datapath = Datapath::kTwoStageRd,
                    .split = split};
}
constexpr Evidence kMmaSimAmdRows{EvidenceLevel::kOneModel, 0, "", ""};

constexpr std::array kModels = {
    // Legacy mma.sync f16/bf16/tf32 (issue 24). Parameters: MMA-Sim HEAD
    // c785138 mmasim/simulator/nv_ptx.py lines 17-49 (F per arch: Volta 23,
    // Turing/Ampere/Ada 24, Hopper/Blackwell 25; Ampere/Ada split k16 f16/bf16
    // and k8 tf32 into two chained halves) and KM models/*TC.m (fma, neab);
    // e_zero from the MMA-Sim version FPy quotes (research note U3).
    MmaModel{"sm70_mma_f16_f32",
             "sm70",
             "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32",
             4,
             kF16,
             Fmt::kF32,
             ScaleKind::kNone,
             {4, 0, 23, AccRound::kRzF32, -131},
             Fmt::kF64,
             "MMA-Sim Volta (L=4, F=23, RZ-FP32; e_zero -131 per FPy); KM "
             "V100TC.m fma=4 neab=0 (agree; KM min_exp_limit -1024)",
             Evidence{EvidenceLevel::kProxyCaptures, 5000, "V100",
                      "tests/data/km-hardware-extra/sm70_mma_f16_f32.*"}},
    MmaModel{"sm70_mma_f16_f16",
             "sm70",
             "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16",
             4,
             kF16,
             Fmt::kF16,
             ScaleKind::kNone,
             {4, 0, 23, AccRound::kRneF16, -20},
             Fmt::kF64,
             "MMA-Sim Volta (L=4, F=23, RNE-FP16; e_zero -20 per FPy); KM "
             "V100TC.m fma=4 neab=0 rne (agree; KM min_exp_limit -19)",
             Evidence{EvidenceLevel::kProxyCaptures, 5000, "V100",
                      "tests/data/km-hardware-extra/sm70_mma_f16_f16.*"}},
    MmaModel{"sm75_mma_f16_f32",
             "sm75",
             "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
             8,
             kF16,
             Fmt::kF32,
             ScaleKind::kNone,
             {8, 0, 24, AccRound::kRzF32, -132},
             Fmt::kF64,
             "MMA-Sim Turing (L=8 one FDPA, F=24, RZ-FP32; e_zero -132 per "
             "FPy); KM has no Turing model",
             Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    MmaModel{"sm75_mma_f16_f16",
             "sm75",
             "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",
             8,
             kF16,
             Fmt::kF16,
             ScaleKind::kNone,
             {8, 0, 24, AccRound::kRneF16, -21},
             Fmt::kF64,
             "MMA-Sim Turing (L=8, F=24, RNE-FP16; e_zero -21 per FPy)",
             Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    // sm_86 (A2, GA10x) runs the sm_80 instructions; its captures
    // replay bit for bit through sm80_* (docs/models.md).
    MmaModel{"sm80_mma_f16_f32",
             "sm80",
             "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
             16,
             kF16,
             Fmt::kF32,
             ScaleKind::kNone,
             {8, 0, 24, AccRound::kRzF32, -132},
             Fmt::kF64,
             "MMA-Sim Ampere (k16 as two chained FDPAs of L=8, F=24, "
             "RZ-FP32; e_zero -132); KM A100TC.m/A2TC.m fma=8 neab=1 "
             "min_exp_limit -132 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "A2, A100",
                      "tests/data/km-hardware-extra/sm80_mma_f16_f32.*"}},
    MmaModel{"sm80_mma_bf16_f32",
             "sm80",
             "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
             16,
             kBf16,
             Fmt::kF32,
             ScaleKind::kNone,
             {8, 0, 24, AccRound::kRzF32, -132},
             Fmt::kF64,
             "MMA-Sim Ampere (k16 as two chained FDPAs of L=8, F=24, "
             "RZ-FP32; e_zero -132); KM A100TC.m/A2TC.m fma=8 neab=1 "
             "(agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "A2, A100",
                      "tests/data/km-hardware-extra/sm80_mma_bf16_f32.*"}},
    MmaModel{"sm80_mma_f16_f16",
             "sm80",
             "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
             16,
             kF16,
             Fmt::kF16,
             ScaleKind::kNone,
             {8, 0, 24, AccRound::kRneF16, -21},
             Fmt::kF64,
             "MMA-Sim Ampere (two chained FDPAs of L=8, F=24, RNE-FP16; "
             "e_zero -21 per FPy); KM A100TC.m/A2TC.m fma=8 neab=1 rne "
             "(agree; KM min_exp_limit -20)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "A2, A100",
                      "tests/data/km-hardware-extra/sm80_mma_f16_f16.*"}},
    MmaModel{"sm80_mma_tf32_f32",
             "sm80",
             "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
             8,
             kTf32,
             Fmt::kF32,
             ScaleKind::kNone,
             {4, 0, 24, AccRound::kRzF32, -132},
             Fmt::kF64,
             "MMA-Sim Ampere (k8 as two chained FDPAs of L=4, F=24, "
             "RZ-FP32; e_zero -132); KM A100TC.m/A2TC.m fma=4 neab=1 "
             "(agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "A2, A100",
                      "tests/data/km-hardware-extra/sm80_mma_tf32_f32.*"}},
    MmaModel{"sm89_mma_f16_f32",
             "sm89",
             "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
             16,
             kF16,
             Fmt::kF32,
             ScaleKind::kNone,
             {8, 0, 24, AccRound::kRzF32, -132},
             Fmt::kF64,
             "MMA-Sim Ada Lovelace (k16 as two chained FDPAs of L=8, "
             "F=24, RZ-FP32; e_zero -132); KM AdaTC.m/L40STC.m fma=8 "
             "neab=1 min_exp_limit -132 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "Ada, L40S",
                      "tests/data/km-hardware-extra/sm89_mma_f16_f32.*"}},
    MmaModel{"sm89_mma_bf16_f32",
             "sm89",
             "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
             16,
             kBf16,
             Fmt::kF32,
             ScaleKind::kNone,
             {8, 0, 24, AccRound::kRzF32, -132},
             Fmt::kF64,
             "MMA-Sim Ada Lovelace (k16 as two chained FDPAs of L=8, "
             "F=24, RZ-FP32; e_zero -132); KM AdaTC.m/L40STC.m fma=8 "
             "neab=1 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "Ada, L40S",
                      "tests/data/km-hardware-extra/sm89_mma_bf16_f32.*"}},
    MmaModel{"sm89_mma_f16_f16",
             "sm89",
             "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
             16,
             kF16,
             Fmt::kF16,
             ScaleKind::kNone,
             {8, 0, 24, AccRound::kRneF16, -21},
             Fmt::kF64,
             "MMA-Sim Ada Lovelace (two chained FDPAs of L=8, F=24, "
             "RNE-FP16; e_zero -21 per FPy); KM AdaTC.m/L40STC.m fma=8 "
             "neab=1 rne (agree; KM min_exp_limit -20)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "Ada, L40S",
                      "tests/data/km-hardware-extra/sm89_mma_f16_f16.*"}},
    MmaModel{"sm89_mma_tf32_f32",
             "sm89",
             "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
             8,
             kTf32,
             Fmt::kF32,
             ScaleKind::kNone,
             {4, 0, 24, AccRound::kRzF32, -132},
             Fmt::kF64,
             "MMA-Sim Ada Lovelace (k8 as two chained FDPAs of L=4, "
             "F=24, RZ-FP32; e_zero -132); KM AdaTC.m/L40STC.m fma=4 "
             "neab=1 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "Ada, L40S",
                      "tests/data/km-hardware-extra/sm89_mma_tf32_f32.*"}},
    MmaModel{
        "sm89_mma_fp8_f32",
        "sm89",
        "mma.sync.aligned.m16n8k32.row.col.f32.{e4m3,e5m2}.{e4m3,e5m2}.f32",
        32,
        kFp8,
        Fmt::kF32,
        ScaleKind::kNone,
        {16, 0, 13, AccRound::kRzE8M13, -132},
        Fmt::kF64,
        "MMA-Sim (L=16, F=13, RZ-E8M13, e_zero -132); KM AdaTC.m fma=16 "
        "neab=-10 (agree)",
        Evidence{EvidenceLevel::kCaptures, 10000, "Ada",
                 "km-hardware/sm89_mma_fp8_f32.*"}},
    MmaModel{
        "sm89_mma_fp8_f16",
        "sm89",
        "mma.sync.aligned.m16n8k32.row.col.f16.{e4m3,e5m2}.{e4m3,e5m2}.f16",
        32,
        kFp8,
        Fmt::kF16,
        ScaleKind::kNone,
        {16, 0, 13, AccRound::kRneF16, -21},
        Fmt::kF64,
        "MMA-Sim (L=16, F=13, RNE-FP16, e_zero -21)",
        Evidence{EvidenceLevel::kCaptures, 10000, "Ada",
                 "km-hardware/sm89_mma_fp8_f16.*"}},
    MmaModel{
        "sm90_wgmma_fp8_f32",
        "sm90",
        "wgmma.mma_async.sync.aligned.m64nNk32.f32.{e4m3,e5m2}.{e4m3,e5m2}",
        32,
        kFp8,
        Fmt::kF32,
        ScaleKind::kNone,
        {32, 0, 13, AccRound::kRzE8M13, -133},
        Fmt::kF64,
        "MMA-Sim WGMMA (L=32, F=13, RZ-E8M13, e_zero -133); KM H100TC.m "
        "fma=32 neab=-10 (agree); DeepSeek-V3 3.3.2 'around 14 bits'",
        Evidence{EvidenceLevel::kCaptures, 10000, "H100",
                 "km-hardware/sm90_wgmma_fp8_f32.*"}},
    MmaModel{
        "sm90_wgmma_fp8_f16",
        "sm90",
        "wgmma.mma_async.sync.aligned.m64nNk32.f16.{e4m3,e5m2}.{e4m3,e5m2}",
        32,
        kFp8,
        Fmt::kF16,
        ScaleKind::kNone,
        {32, 0, 13, AccRound::kRneF16, -133},
        Fmt::kF64,
        "MMA-Sim WGMMA (L=32, F=13, RNE-FP16, e_zero -133)",
        Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    MmaModel{"sm90_wgmma_f16_f32",
             "sm90",
             "wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16}",
             16,
             kHalf,
             Fmt::kF32,
             ScaleKind::kNone,
             {16, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim (L=16, F=25, RZ-FP32, e_zero -133); KM H100TC.m fma=16 "
             "neab=2 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 20000, "H100, H200",
                      "km-hardware/sm90_wgmma_f16_f32.*"}},
    MmaModel{"sm90_wgmma_tf32_f32",
             "sm90",
             "wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32",
             8,
             kTf32,
             Fmt::kF32,
             ScaleKind::kNone,
             {8, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim (L=8, F=25, RZ-FP32, e_zero -133; FP32 operands "
             "truncated to TF32); KM H100TC.m fma=8 neab=2 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "H100, H200",
                      "km-hardware/sm90_wgmma_tf32_f32.*"}},
    // mma.sync FP8 on sm_90 (and the legacy mma.sync on sm_100): fitted
    // on every row of the Khattak-Mikaitis captures (docs/models.md).
    MmaModel{
        "sm90_mma_fp8_f32", "sm90",
        "mma.sync.aligned.m16n8k32.row.col.f32.{e4m3,e5m2}.{e4m3,e5m2}.f32", 32,
        kFp8, Fmt::kF32, ScaleKind::kNone, kMmaSyncFp8F32, Fmt::kF64,
        "H200 device check (mxc-gpu, 2026-12-04: 2,188 level-1 cases, "
        "tests/data/h200-device/) and H100+H200 captures (KM "
        "model_validation 109e412 d_H1x0_fp32, 20000 rows: "
        "../shared/oracles/km-hardware/sm90_mma_fp8_f32.*): FDPA over k mod "
        "4 in {0,1} from +0, RZ-FP32, then over {2,3} (L=16, F=25), then C "
        "added by an RNE f32 add",
        Evidence{EvidenceLevel::kCaptures, 20000, "H100, H200",
                 "km-hardware/sm90_mma_fp8_f32.*"}},
    MmaModel{
        "sm90_mma_fp8_f16", "sm90",
        "mma.sync.aligned.m16n8k32.row.col.f16.{e4m3,e5m2}.{e4m3,e5m2}.f16", 32,
        kFp8, Fmt::kF16, ScaleKind::kNone, kMmaSyncFp8F16, Fmt::kF64,
        "H100+H200 captures (KM model_validation d_H1x0_fp16, 20000 "
        "rows, not in ../shared): FDPA over k mod 4 in {0,1} from +0, "
        "RNE-FP16, then FDPA over {2,3} (L=16, F=25), then C by an RNE "
        "f16 add; e_zero -22 (MMA-Sim Hopper mma f16) is not observable "
        "with FP8 products",
        Evidence{
            EvidenceLevel::kCaptures, 20000, "H100, H200",
            "KM model_validation/H1x0/E*/d_H1x0_fp16.txt (not in ../shared)"}},
    MmaModel{
        "sm100_mma_fp8_f32", "sm100",
        "mma.sync.aligned.m16n8k32.row.col.f32.{e4m3,e5m2}.{e4m3,e5m2}.f32 "
        "(legacy mma.sync on sm_100, not tcgen05)",
        32, kFp8, Fmt::kF32, ScaleKind::kNone, kMmaSyncFp8F32, Fmt::kF64,
        "B200 captures (KM model_validation d_B200_fp32, 10000 rows, not "
        "in ../shared): as sm90_mma_fp8_f32 (the captures agree with it "
        "and with the earlier one-FDPA reading alike; only H200 separated "
        "them)",
        Evidence{
            EvidenceLevel::kCaptures, 10000, "B200",
            "KM model_validation/B200/E*/d_B200_fp32.txt (not in ../shared)"}},
    MmaModel{
        "sm100_mma_fp8_f16", "sm100",
        "mma.sync.aligned.m16n8k32.row.col.f16.{e4m3,e5m2}.{e4m3,e5m2}.f16 "
        "(legacy mma.sync on sm_100, not tcgen05)",
        32, kFp8, Fmt::kF16, ScaleKind::kNone, kMmaSyncFp8F16, Fmt::kF64,
        "B200 captures (KM model_validation d_B200_fp16, 10000 rows, not "
        "in ../shared): as sm90_mma_fp8_f16",
        Evidence{
            EvidenceLevel::kCaptures, 10000, "B200",
            "KM model_validation/B200/E*/d_B200_fp16.txt (not in ../shared)"}},
    // Legacy mma.sync f16/bf16/tf32 on sm_90 and sm_100 (MMA-Sim Hopper /
    // Blackwell: F=25, one FDPA per instruction, no split).
    MmaModel{"sm90_mma_f16_f32",
             "sm90",
             "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (legacy "
             "mma.sync on sm_90)",
             16,
             kF16,
             Fmt::kF32,
             ScaleKind::kNone,
             {16, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim Hopper (one FDPA of L=16, F=25, RZ-FP32; e_zero "
             "-133); KM H100TC.m fma=16 neab=2 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "H100, H200",
                      "tests/data/km-hardware-extra/sm90_mma_f16_f32.*"}},
    MmaModel{"sm90_mma_bf16_f32",
             "sm90",
             "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 (legacy "
             "mma.sync on sm_90)",
             16,
             kBf16,
             Fmt::kF32,
             ScaleKind::kNone,
             {16, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim Hopper (one FDPA of L=16, F=25, RZ-FP32; e_zero "
             "-133); KM H100TC.m fma=16 neab=2 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "H100, H200",
                      "tests/data/km-hardware-extra/sm90_mma_bf16_f32.*"}},
    MmaModel{"sm90_mma_f16_f16",
             "sm90",
             "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 (legacy "
             "mma.sync on sm_90)",
             16,
             kF16,
             Fmt::kF16,
             ScaleKind::kNone,
             {16, 0, 25, AccRound::kRneF16, -22},
             Fmt::kF64,
             "MMA-Sim Hopper (one FDPA of L=16, F=25, RNE-FP16; e_zero "
             "-22 per FPy); KM H100TC.m fma=16 neab=2 rne (agree; KM "
             "min_exp_limit -21)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "H100, H200",
                      "tests/data/km-hardware-extra/sm90_mma_f16_f16.*"}},
    MmaModel{"sm90_mma_tf32_f32",
             "sm90",
             "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 (legacy "
             "mma.sync on sm_90)",
             8,
             kTf32,
             Fmt::kF32,
             ScaleKind::kNone,
             {8, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim Hopper (one FDPA of L=8, F=25, RZ-FP32; e_zero "
             "-133); KM H100TC.m fma=8 neab=2 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "H100, H200",
                      "tests/data/km-hardware-extra/sm90_mma_tf32_f32.*"}},
    MmaModel{"sm100_mma_f16_f32",
             "sm100",
             "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (legacy "
             "mma.sync on sm_100)",
             16,
             kF16,
             Fmt::kF32,
             ScaleKind::kNone,
             {16, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim Blackwell (one FDPA of L=16, F=25, RZ-FP32; e_zero "
             "-133); KM B200TC.m fma=16 neab=2 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 5000, "B200",
                      "tests/data/km-hardware-extra/sm100_mma_f16_f32.*"}},
    MmaModel{"sm100_mma_bf16_f32",
             "sm100",
             "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 (legacy "
             "mma.sync on sm_100)",
             16,
             kBf16,
             Fmt::kF32,
             ScaleKind::kNone,
             {16, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim Blackwell (one FDPA of L=16, F=25, RZ-FP32; e_zero "
             "-133); KM B200TC.m fma=16 neab=2 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 5000, "B200",
                      "tests/data/km-hardware-extra/sm100_mma_bf16_f32.*"}},
    MmaModel{"sm100_mma_f16_f16",
             "sm100",
             "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 (legacy "
             "mma.sync on sm_100)",
             16,
             kF16,
             Fmt::kF16,
             ScaleKind::kNone,
             {16, 0, 25, AccRound::kRneF16, -22},
             Fmt::kF64,
             "MMA-Sim Blackwell (one FDPA of L=16, F=25, RNE-FP16; "
             "e_zero -22 per FPy); KM B200TC.m fma=16 neab=2 rne (agree; "
             "KM min_exp_limit -21)",
             Evidence{EvidenceLevel::kProxyCaptures, 5000, "B200",
                      "tests/data/km-hardware-extra/sm100_mma_f16_f16.*"}},
    MmaModel{"sm100_mma_tf32_f32",
             "sm100",
             "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 (legacy "
             "mma.sync on sm_100)",
             8,
             kTf32,
             Fmt::kF32,
             ScaleKind::kNone,
             {8, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim Blackwell (one FDPA of L=8, F=25, RZ-FP32; e_zero "
             "-133); KM B200TC.m fma=8 neab=2 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 5000, "B200",
                      "tests/data/km-hardware-extra/sm100_mma_tf32_f32.*"}},
    MmaModel{"sm100_tcgen05_f16_f32",
             "sm100",
             "tcgen05.mma.cta_group::1.kind::f16 (f16/bf16 -> f32)",
             16,
             kHalf,
             Fmt::kF32,
             ScaleKind::kNone,
             {16, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim TCGen05MMA (L=16, F=25, RZ-FP32, e_zero -133); KM "
             "B200TC.m fma=16 neab=2 (agree)",
             Evidence{EvidenceLevel::kProxyCaptures, 10000, "B200",
                      "km-hardware/sm100_tcgen05_f16_f32.*"}},
    MmaModel{"sm100_tcgen05_tf32_f32",
             "sm100",
             "tcgen05.mma.cta_group::1.kind::tf32",
             8,
             kTf32,
             Fmt::kF32,
             ScaleKind::kNone,
             {8, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim (L=8, F=25, RZ-FP32, e_zero -133); KM B200TC.m fma=8",
             Evidence{EvidenceLevel::kProxyCaptures, 5000, "B200",
                      "km-hardware/sm100_tcgen05_tf32_f32.*"}},
    MmaModel{"sm100_tcgen05_f8f6f4_f32",
             "sm100",
             "tcgen05.mma.cta_group::1.kind::f8f6f4 (-> f32)",
             32,
             kF8F6F4,
             Fmt::kF32,
             ScaleKind::kNone,
             {32, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim TCGen05MMA (F=25, L=32 bytes/itemsize, RZ-FP32, e_zero "
             "-133); KM B200TC.m FP8 fma=32 neab=2 (agree). FP6/FP4 and mixed "
             "pairs inferred from the paper's 'FP8/6/4' grouping",
             Evidence{EvidenceLevel::kTwoModels, 0, "", ""}},
    MmaModel{"sm100_tcgen05_f8f6f4_f16",
             "sm100",
             "tcgen05.mma.cta_group::1.kind::f8f6f4 (-> f16)",
             32,
             kF8F6F4,
             Fmt::kF16,
             ScaleKind::kNone,
             {32, 0, 25, AccRound::kRneF16, -133},
             Fmt::kF64,
             "MMA-Sim (F=25, L=32, RNE-FP16, e_zero -133)",
             Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    MmaModel{"sm100_tcgen05_mxf8f6f4",
             "sm100",
             "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale."
             "scale_vec::1X (ue8m0)",
             32,
             kF8F6F4,
             Fmt::kF32,
             ScaleKind::kUe8m0Block32,
             {32, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim st_fdpa (scale exponents added to each product; L=32, "
             "F=25, RZ-FP32, e_zero -133); FPy Algorithm 8",
             Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    MmaModel{"sm100_tcgen05_mxf4",
             "sm100",
             "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X "
             "(ue8m0, block 32)",
             64,
             kFp4,
             Fmt::kF32,
             ScaleKind::kUe8m0Block32x2,
             {64, 16, 35, AccRound::kRzF32, -139},
             Fmt::kF64,
             "MMA-Sim gst_fdpa (G=16, F=35, L=64, RZ-FP32, e_zero -139); FPy "
             "Algorithm 9, Table 5",
             Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    MmaModel{"sm100_tcgen05_mxf4nvf4_2x",
             "sm100",
             "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale."
             "scale_vec::2X (ue8m0, block 32)",
             64,
             kFp4,
             Fmt::kF32,
             ScaleKind::kUe8m0Block32x2,
             {64, 16, 35, AccRound::kRzF32, -139},
             Fmt::kF64,
             "MMA-Sim gst_fdpa (G=16, F=35, L=64, e_zero -139)",
             Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    MmaModel{"sm100_tcgen05_mxf4nvf4_4x_ue8m0",
             "sm100",
             "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale."
             "scale_vec::4X (ue8m0, block 16)",
             64,
             kFp4,
             Fmt::kF32,
             ScaleKind::kUe8m0Block16,
             {64, 16, 35, AccRound::kRzF32, -139},
             Fmt::kF64,
             "MMA-Sim gst_fdpa; SM100 support of this variant is disputed "
             "(research note U6)",
             Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    MmaModel{"sm100_tcgen05_mxf4nvf4_4x",
             "sm100",
             "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale."
             "scale_vec::4X (ue4m3, block 16: NVFP4)",
             64,
             kFp4,
             Fmt::kF32,
             ScaleKind::kUe4m3Block16,
             {64, 16, 35, AccRound::kRzF32, -139},
             Fmt::kF64,
             "MMA-Sim gst_fdpa (UE4M3 scale sign bit ignored); FPy Alg. 9; "
             "SM100 support disputed (research note U6)",
             Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    MmaModel{"sm120_mma_f8f6f4_f32",
             "sm120",
             "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.*.*.f32",
             32,
             kF8F6F4,
             Fmt::kF32,
             ScaleKind::kNone,
             {32, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim F_table['RTX Blackwell']=25, L_max=32 B, RZ-FP32, e_zero "
             "-133; KM RTXPRO6000TC.m = B200TC (agree)",
             Evidence{EvidenceLevel::kTwoModels, 0, "", ""}},
    MmaModel{"sm120_mma_f8f6f4_f16",
             "sm120",
             "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.*.*.f16",
             32,
             kF8F6F4,
             Fmt::kF16,
             ScaleKind::kNone,
             {32, 0, 25, AccRound::kRneF16, -22},
             Fmt::kF64,
             "MMA-Sim (mma-class FP16 datapath: RNE-FP16, e_zero -22)",
             Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    MmaModel{"sm120_mma_mxf8f6f4",
             "sm120",
             "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale."
             "scale_vec::1X.f32.*.*.f32.ue8m0",
             32,
             kF8F6F4,
             Fmt::kF32,
             ScaleKind::kUe8m0Block32,
             {32, 0, 25, AccRound::kRzF32, -133},
             Fmt::kF64,
             "MMA-Sim st_fdpa (ST-FDPA, L=32, F=25, RZ-FP32, e_zero -133)",
             Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    MmaModel{"sm120_mma_mxf4",
             "sm120",
             "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale."
             "scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0",
             64,
             kFp4,
             Fmt::kF32,
             ScaleKind::kUe8m0Block32x2,
             {64, 16, 35, AccRound::kRzF32, -139},
             Fmt::kF64,
             "MMA-Sim gst_fdpa (G=16, F=35, L=64, e_zero -139)",
             Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    MmaModel{"sm120_mma_mxf4nvf4_4x",
             "sm120",
             "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale."
             "scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
             64,
             kFp4,
             Fmt::kF32,
             ScaleKind::kUe4m3Block16,
             {64, 16, 35, AccRound::kRzF32, -139},
             Fmt::kF64,
             "MMA-Sim gst_fdpa (UE4M3 scales, G=16, F=35, e_zero -139)",
             Evidence{EvidenceLevel::kOneModel, 0, "", ""}},
    MmaModel{"cdna1_mfma_f16_f32", "cdna1",
             "v_mfma_f32_{32x32x8,16x16x16,4x4x4,32x32x4,16x16x4}f16 "
             "(gfx908)",
             8, kF16, Fmt::kF32, ScaleKind::kNone, amd_pairwise(4, false),
             Fmt::kF64,
             "MMA-Sim c785138 amd.py CDNA1 f16: 'pairwise', group_size 4, "
             "no flush (f32 products, ((p0+p1)+(p2+p3)), then C + that, "
             "RNE f32); 10000 MMA-Sim rows replayed bit for bit",
             kMmaSimAmdRows},
    MmaModel{"cdna1_mfma_bf16_f32", "cdna1",
             "v_mfma_f32_{32x32x4,16x16x8,4x4x2,32x32x2,16x16x2}bf16 "
             "(gfx908)",
             4, kBf16, Fmt::kF32, ScaleKind::kNone, amd_pairwise(2, false),
             Fmt::kF64,
             "MMA-Sim c785138 amd.py CDNA1 bf16: 'pairwise', group_size 2, "
             "no flush; 10000 MMA-Sim rows replayed bit for bit",
             kMmaSimAmdRows},
    MmaModel{"cdna2_mfma_f16_f32", "cdna2",
             "v_mfma_f32_{32x32x8,16x16x16,4x4x4,32x32x4,16x16x4}f16 "
             "(gfx90a)",
             8, kF16, Fmt::kF32, ScaleKind::kNone, amd_pairwise(4, true),
             Fmt::kF64,
             "MMA-Sim c785138 amd.py CDNA2 f16: 'pairwise', group_size 4, "
             "flush_denormal (inputs, products, sums); 10000 MMA-Sim rows "
             "replayed bit for bit",
             kMmaSimAmdRows},
    MmaModel{"cdna2_mfma_bf16_f32", "cdna2",
             "v_mfma_f32_{32x32x8,16x16x16,4x4x4,32x32x4,16x16x4}bf16_1k "
             "(gfx90a)",
             8, kBf16, Fmt::kF32, ScaleKind::kNone, amd_pairwise(4, true),
             Fmt::kF64,
             "MMA-Sim c785138 amd.py CDNA2 bf16 '_1k': 'pairwise', "
             "group_size 4, flush_denormal; 10000 MMA-Sim rows replayed bit "
             "for bit",
             kMmaSimAmdRows},
    MmaModel{"cdna2_mfma_bf16_f32_legacy", "cdna2",
             "v_mfma_f32_{32x32x4,16x16x8,4x4x2,32x32x2,16x16x2}bf16 "
             "(the CDNA1 bf16 encodings on gfx90a)",
             4, kBf16, Fmt::kF32, ScaleKind::kNone, amd_pairwise(2, true),
             Fmt::kF64,
             "MMA-Sim c785138 amd.py CDNA2 bf16 without '_1k': 'pairwise', "
             "group_size 2, flush_denormal; 10000 MMA-Sim rows replayed bit "
             "for bit",
             kMmaSimAmdRows},
    MmaModel{"cdna3_mfma_f16_f32", "cdna3",
             "v_mfma_f32_{16x16x16,32x32x8}_f16 (gfx942; not the 4-k "
             "_{2,4,16}b forms: group 4)",
             16, kF16, Fmt::kF32, ScaleKind::kNone, amd_two_stage(8, 1),
             Fmt::kF64,
             "MMA-Sim c785138 amd.py CDNA3 f16: amd_fused_dot_rd_add, "
             "group min(8, k) = 8, F = 24, sum floored to 31 bits and C to "
             "24 below max(e_products, e_C), RNE f32; 10000 MMA-Sim rows "
             "replayed bit for bit",
             kMmaSimAmdRows},
    MmaModel{"cdna3_mfma_bf16_f32", "cdna3",
             "v_mfma_f32_{16x16x16,32x32x8}_bf16 (gfx942; not the 4-k "
             "_{2,4,16}b forms: group 4)",
             16, kBf16, Fmt::kF32, ScaleKind::kNone, amd_two_stage(8, 1),
             Fmt::kF64,
             "MMA-Sim c785138 amd.py CDNA3 bf16: as cdna3_mfma_f16_f32; a "
             "product >= 2^128 gives Inf; 10000 MMA-Sim rows replayed bit "
             "for bit",
             kMmaSimAmdRows},
    MmaModel{"cdna3_mfma_xf32_f32", "cdna3",
             "v_mfma_f32_{16x16x8,32x32x4}_xf32 (gfx942)", 8, kTf32, Fmt::kF32,
             ScaleKind::kNone, amd_two_stage(4, 1), Fmt::kF64,
             "MMA-Sim c785138 amd.py CDNA3 xf32: f32 operands truncated to "
             "tf32 (x >> 13 << 13), amd_fused_dot_rd_add over groups of 4; "
             "10000 MMA-Sim rows replayed bit for bit",
             kMmaSimAmdRows},
    MmaModel{"cdna3_mfma_fp8_f32", "cdna3",
             "v_mfma_f32_{16x16x32,32x32x16}_{fp8,bf8}_{fp8,bf8} (gfx942; "
             "fp8 = e4m3fnuz, bf8 = e5m2fnuz)",
             32, kFp8Fnuz, Fmt::kF32, ScaleKind::kNone, amd_two_stage(16, 2),
             Fmt::kF64,
             "MMA-Sim c785138 amd.py CDNA3 fp8/bf8: amd_fused_dot_rd_add "
             "is_fp8, group 16, even and odd k truncated separately (F = "
             "24), C below M - 25 dropped, RNE f32; 10000 MMA-Sim rows per "
             "operand pair replayed bit for bit",
             kMmaSimAmdRows},
};

}  // namespace

std::span<const MmaModel> mma_models() { return kModels; }

const MmaModel* find_mma_model(std::string_view name) {
  for (const MmaModel& m : kModels) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string_view evidence_name(EvidenceLevel e) {
  switch (e) {
    case EvidenceLevel::kCaptures:
      return "hardware captures";
    case EvidenceLevel::kProxyCaptures:
      return "hardware captures (proxy)";
    case EvidenceLevel::kTwoModels:
      return "two models agree";
    case EvidenceLevel::kOneModel:
      return "one model";
  }
  return "?";
}

std::string model_status(const MmaModel& m) {
  const Evidence& e = m.evidence;
  if (e.capture_rows > 0) {
    return std::string(evidence_name(e.level)) + ": " +
           std::to_string(e.capture_rows) + " rows (" + std::string(e.gpus) +
           ")";
  }
  return "unverified on hardware (" + std::string(evidence_name(e.level)) + ")";
}

std::string_view zero_exp_name(ZeroExp z) {
  return z == ZeroExp::kFixed ? "fixed" : "operand-min";
}
std::string_view zero_sign_name(ZeroSign z) {
  return z == ZeroSign::kIeee ? "ieee" : "positive";
}
std::optional<ZeroExp> parse_zero_exp(std::string_view s) {
  if (s == "fixed") return ZeroExp::kFixed;
  if (s == "operand-min") return ZeroExp::kOperandMin;
  return std::nullopt;
}
std::optional<ZeroSign> parse_zero_sign(std::string_view s) {
  if (s == "ieee") return ZeroSign::kIeee;
  if (s == "positive") return ZeroSign::kPositive;
  return std::nullopt;
}

MmaModel with_zero_rules(const MmaModel& m, ZeroExp e, ZeroSign s) {
  MmaModel r = m;
  r.fdpa.zero_exp = e;
  r.fdpa.zero_sign = s;
  return r;
}

bool operand_code_ok(Fmt f, uint64_t bits) { return code_ok(f, bits); }

int operand_hex_digits(Fmt f) { return code_hex_digits(f); }

int scale_block(ScaleKind s) {
  switch (s) {
    case ScaleKind::kNone:
      return 0;
    case ScaleKind::kUe8m0Block32:
    case ScaleKind::kUe8m0Block32x2:
      return 32;
    case ScaleKind::kUe8m0Block16:
    case ScaleKind::kUe4m3Block16:
      return 16;
  }
  return 0;
}

Fmt scale_format(ScaleKind s) {
  return s == ScaleKind::kUe4m3Block16 ? Fmt::kUE4M3 : Fmt::kE8M0;
}

uint64_t mma_dot(const MmaModel& m, Fmt a_fmt, Fmt b_fmt,
                 std::span<const uint64_t> a, std::span<const uint64_t> b,
                 uint64_t c, std::span<const uint64_t> sa,
                 std::span<const uint64_t> sb) {
  FdpaOperands o;
  o.a_fmt = a_fmt;
  o.b_fmt = b_fmt;
  o.c_fmt = m.c_fmt;
  o.a = a;
  o.b = b;
  o.c = c;
  o.has_scales = m.scales != ScaleKind::kNone;
  o.scale_fmt = scale_format(m.scales);
  o.scale_block = scale_block(m.scales);
  o.sa = sa;
  o.sb = sb;
  if (m.emulate_as == Fmt::kF64) return fdpa_chain(m.fdpa, o);
  // Exact conversion of every operand first (FP8 -> FP16 is exact).
  std::vector<uint64_t> ca(a.size()), cb(b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ca[i] = convert(a_fmt, m.emulate_as, a[i]);
    cb[i] = convert(b_fmt, m.emulate_as, b[i]);
  }
  o.a_fmt = o.b_fmt = m.emulate_as;
  o.a = ca;
  o.b = cb;
  return fdpa_chain(m.fdpa, o);
}

}  // namespace mxc
