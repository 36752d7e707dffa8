#include "gpu_check/host/families.h"

#include <array>

#include "gpu_check/host/instr.h"

namespace mxc::gpu {
namespace {

// One conversion family: the instruction, the vector header it is checked
// against (op=convert from/to/round/overflow/relu) and how cases map onto
// its operands (Slots; src_shift, dst_shift, dst_mask as in Family).
struct CvtRow {
  const char* name;
  const char* ptx;
  int instr;  // CvtInstr
  const char* from;
  const char* to;
  const char* round;
  const char* overflow;
  bool relu;
  unsigned needs;  // Feature bits
  Slots slots;
  int src_shift;
  int dst_shift;
  uint32_t dst_mask;
};

// One MMA family: the instruction, the model it is checked against
// (op=mma model/a-fmt/b-fmt), where it runs and how tiles map onto it.
struct MmaRow {
  const char* name;
  const char* ptx;
  int instr;  // MmaInstr
  const char* model;
  const char* a_fmt;
  const char* b_fmt;
  unsigned needs;          // Feature bits
  std::array<int, 4> ccs;  // compute capabilities (0: unused slot)
  FragShape shape;
  int scale_vec;  // 0: no block scales; else 1, 2, 4
  MmaEngine engine;
  bool f16_acc;
  const char* note;  // what is assumed / unverified
};

// The compute capabilities of a row (0: unused slot).
constexpr std::array<int, 4> cc(int a, int b = 0, int c = 0, int d = 0) {
  return {a, b, c, d};
}

// Notes shared by several rows.
constexpr const char* kNoteSm80Frag =
    "model per docs/models.md; A/B lane fragments per host/fragments.h "
    "(PTX ISA fragment figures, the CUTLASS SM80 atoms agree; unverified on "
    "hardware)";
constexpr const char* kNoteSm80FragF16 =
    "model per docs/models.md; A/B lane fragments per host/fragments.h, C/D "
    "f16x2 registers per pack_c_f16x2 (PTX ISA fragment figures; unverified "
    "on hardware)";
constexpr const char* kNoteSm90 =
    "model fitted to the H200 device check and H100/H200 mma.sync captures "
    "(docs/models.md)";
constexpr const char* kNoteSm100 =
    "model fitted to B200 mma.sync captures (docs/models.md)";
constexpr const char* kNoteSm89F16 =
    "model per docs/models.md (MMA-Sim; Ada captures agree); C/D f16x2 "
    "registers per host/fragments.h pack_c_f16x2 (unverified on hardware)";
constexpr const char* kNoteSm90F16 =
    "model fitted to H100/H200 mma.sync f16 captures (docs/models.md); C/D "
    "f16x2 registers per host/fragments.h pack_c_f16x2 (H200 device check: "
    "pass)";
constexpr const char* kNoteSm100F16 =
    "model fitted to B200 mma.sync f16 captures (docs/models.md); C/D f16x2 "
    "registers per host/fragments.h pack_c_f16x2 (unverified on hardware)";
constexpr const char* kNoteMxf8Scales =
    "scale operand lanes per host/fragments.h (selectors 0, 0)";
constexpr const char* kNoteWgmma =
    "descriptor LBO/SBO reading and D fragment per host/wgmma.h (H200 device "
    "check: pass)";
constexpr const char* kNoteTc05 =
    "instruction/smem descriptors and TMEM layout per host/tcgen05.h "
    "(unverified on hardware)";
constexpr const char* kNoteTc05Scales =
    "scale lanes per host/tcgen05.h, byte replicated (unverified on hardware)";
constexpr const char* kNoteScaleByte =
    "scale byte v = k-block v of the row (assumed; ISA gives it as a figure)";
constexpr const char* kNoteContainer =
    "one element per 8-bit register container: e2m1 in bits 5..2, e2m3/e3m2 in "
    "bits 5..0 (host/fragments.h operand_coding; figure reading, unverified on "
    "hardware)";
constexpr const char* kNoteContainerScaled =
    "one element per 8-bit register container: e2m1 in bits 5..2, e2m3/e3m2 in "
    "bits 5..0 (host/fragments.h operand_coding; figure reading, unverified on "
    "hardware); scale lanes per host/fragments.h";
constexpr const char* kNoteTc05Sub =
    "FP6/FP4 in shared memory as 16 k packed in 8 (FP4) or 12 (FP6) bytes + "
    "padding per 16-byte chunk (PTX ISA 9.7.16.10.4.4, assumed for both f8f6f4 "
    "kinds), types in the instruction descriptor (host/tcgen05.h; unverified "
    "on hardware)";
constexpr const char* kNoteTc05SubScaled =
    "FP6/FP4 in shared memory as 16 k packed in 8 (FP4) or 12 (FP6) bytes + "
    "padding per 16-byte chunk (PTX ISA 9.7.16.10.4.4, assumed for both f8f6f4 "
    "kinds), types in the instruction descriptor (host/tcgen05.h; unverified "
    "on hardware); scale lanes per host/tcgen05.h";
constexpr const char* kNoteTc05Fp4 =
    "two e2m1 per smem byte, low nibble = lower k (PTX ISA 9.7.16.10.4.6); "
    "scale sub-column k-block v in byte v, replicated over the TMEM word; "
    "idesc per the mxf4/mxf4nvf4 table (host/tcgen05.h; unverified on "
    "hardware)";
constexpr const char* kNoteTc05F16 =
    "f16 D unpacked in TMEM (PTX ISA 9.7.16.10.4.1), upper half ignored "
    "(host/tcgen05.h; unverified on hardware)";

// name, ptx, instr, from, to, round, overflow, relu, needs, slots,
// src_shift, dst_shift, dst_mask
constexpr CvtRow kCvtRows[] = {
    // --- sm_89+: FP8
    {"cvt.e4m3x2.f32", "cvt.rn.satfinite.e4m3x2.f32", kCvtE4m3x2F32, "f32",
     "e4m3", "rne", "satfinite", false, kFeatFp8Cvt, Slots::kPairAB, 0, 8,
     0xFFu},
    {"cvt.e4m3x2.f32.relu", "cvt.rn.satfinite.relu.e4m3x2.f32",
     kCvtE4m3x2F32Relu, "f32", "e4m3", "rne", "satfinite", true, kFeatFp8Cvt,
     Slots::kPairAB, 0, 8, 0xFFu},
    {"cvt.e5m2x2.f32", "cvt.rn.satfinite.e5m2x2.f32", kCvtE5m2x2F32, "f32",
     "e5m2", "rne", "satfinite", false, kFeatFp8Cvt, Slots::kPairAB, 0, 8,
     0xFFu},
    {"cvt.e5m2x2.f32.relu", "cvt.rn.satfinite.relu.e5m2x2.f32",
     kCvtE5m2x2F32Relu, "f32", "e5m2", "rne", "satfinite", true, kFeatFp8Cvt,
     Slots::kPairAB, 0, 8, 0xFFu},
    {"cvt.e4m3x2.f16x2", "cvt.rn.satfinite.e4m3x2.f16x2", kCvtE4m3x2F16x2,
     "f16", "e4m3", "rne", "satfinite", false, kFeatFp8Cvt, Slots::kPairPacked,
     16, 8, 0xFFu},
    {"cvt.e5m2x2.f16x2", "cvt.rn.satfinite.e5m2x2.f16x2", kCvtE5m2x2F16x2,
     "f16", "e5m2", "rne", "satfinite", false, kFeatFp8Cvt, Slots::kPairPacked,
     16, 8, 0xFFu},
    {"cvt.f16x2.e4m3x2", "cvt.rn.f16x2.e4m3x2", kCvtF16x2E4m3x2, "e4m3", "f16",
     "rne", "format", false, kFeatFp8Cvt, Slots::kPairPacked, 8, 16, 0xFFFFu},
    {"cvt.f16x2.e4m3x2.relu", "cvt.rn.relu.f16x2.e4m3x2", kCvtF16x2E4m3x2Relu,
     "e4m3", "f16", "rne", "format", true, kFeatFp8Cvt, Slots::kPairPacked, 8,
     16, 0xFFFFu},
    {"cvt.f16x2.e5m2x2", "cvt.rn.f16x2.e5m2x2", kCvtF16x2E5m2x2, "e5m2", "f16",
     "rne", "format", false, kFeatFp8Cvt, Slots::kPairPacked, 8, 16, 0xFFFFu},
    // --- sm_100a / sm_103a / sm_120a / sm_121a: FP6, FP4, UE8M0
    {"cvt.e2m1x2.f32", "cvt.rn.satfinite.e2m1x2.f32", kCvtE2m1x2F32, "f32",
     "e2m1", "rne", "satfinite", false, kFeatF6F4Cvt, Slots::kPairAB, 0, 4,
     0xFu},
    {"cvt.e2m1x2.f32.relu", "cvt.rn.satfinite.relu.e2m1x2.f32",
     kCvtE2m1x2F32Relu, "f32", "e2m1", "rne", "satfinite", true, kFeatF6F4Cvt,
     Slots::kPairAB, 0, 4, 0xFu},
    {"cvt.e2m3x2.f32", "cvt.rn.satfinite.e2m3x2.f32", kCvtE2m3x2F32, "f32",
     "e2m3", "rne", "satfinite", false, kFeatF6F4Cvt, Slots::kPairAB, 0, 8,
     0x3Fu},
    {"cvt.e2m3x2.f32.relu", "cvt.rn.satfinite.relu.e2m3x2.f32",
     kCvtE2m3x2F32Relu, "f32", "e2m3", "rne", "satfinite", true, kFeatF6F4Cvt,
     Slots::kPairAB, 0, 8, 0x3Fu},
    {"cvt.e3m2x2.f32", "cvt.rn.satfinite.e3m2x2.f32", kCvtE3m2x2F32, "f32",
     "e3m2", "rne", "satfinite", false, kFeatF6F4Cvt, Slots::kPairAB, 0, 8,
     0x3Fu},
    {"cvt.e3m2x2.f32.relu", "cvt.rn.satfinite.relu.e3m2x2.f32",
     kCvtE3m2x2F32Relu, "f32", "e3m2", "rne", "satfinite", true, kFeatF6F4Cvt,
     Slots::kPairAB, 0, 8, 0x3Fu},
    {"cvt.f16x2.e2m1x2", "cvt.rn.f16x2.e2m1x2", kCvtF16x2E2m1x2, "e2m1", "f16",
     "rne", "format", false, kFeatF6F4Cvt, Slots::kPairPacked, 4, 16, 0xFFFFu},
    {"cvt.f16x2.e2m3x2", "cvt.rn.f16x2.e2m3x2", kCvtF16x2E2m3x2, "e2m3", "f16",
     "rne", "format", false, kFeatF6F4Cvt, Slots::kPairPacked, 8, 16, 0xFFFFu},
    {"cvt.f16x2.e3m2x2", "cvt.rn.f16x2.e3m2x2", kCvtF16x2E3m2x2, "e3m2", "f16",
     "rne", "format", false, kFeatF6F4Cvt, Slots::kPairPacked, 8, 16, 0xFFFFu},
    {"cvt.ue8m0x2.f32.rz", "cvt.rz.ue8m0x2.f32", kCvtUe8m0x2F32Rz, "f32",
     "e8m0", "rz", "format", false, kFeatF6F4Cvt, Slots::kPairAB, 0, 8, 0xFFu},
    {"cvt.ue8m0x2.f32.rz.satfinite", "cvt.rz.satfinite.ue8m0x2.f32",
     kCvtUe8m0x2F32RzSat, "f32", "e8m0", "rz", "satfinite", false, kFeatF6F4Cvt,
     Slots::kPairAB, 0, 8, 0xFFu},
    {"cvt.ue8m0x2.f32.rp", "cvt.rp.ue8m0x2.f32", kCvtUe8m0x2F32Rp, "f32",
     "e8m0", "ru", "format", false, kFeatF6F4Cvt, Slots::kPairAB, 0, 8, 0xFFu},
    {"cvt.ue8m0x2.f32.rp.satfinite", "cvt.rp.satfinite.ue8m0x2.f32",
     kCvtUe8m0x2F32RpSat, "f32", "e8m0", "ru", "satfinite", false, kFeatF6F4Cvt,
     Slots::kPairAB, 0, 8, 0xFFu},
    {"cvt.ue8m0x2.bf16x2.rz", "cvt.rz.ue8m0x2.bf16x2", kCvtUe8m0x2Bf16x2Rz,
     "bf16", "e8m0", "rz", "format", false, kFeatF6F4Cvt, Slots::kPairPacked,
     16, 8, 0xFFu},
    {"cvt.ue8m0x2.bf16x2.rp", "cvt.rp.ue8m0x2.bf16x2", kCvtUe8m0x2Bf16x2Rp,
     "bf16", "e8m0", "ru", "format", false, kFeatF6F4Cvt, Slots::kPairPacked,
     16, 8, 0xFFu},
    {"cvt.bf16x2.ue8m0x2", "cvt.rn.bf16x2.ue8m0x2", kCvtBf16x2Ue8m0x2, "e8m0",
     "bf16", "rne", "format", false, kFeatF6F4Cvt, Slots::kPairPacked, 8, 16,
     0xFFFFu},
    // --- sm_100a / sm_103a: stochastic rounding (host/instr.h)
    {"cvt.rs.e4m3x4.f32", "cvt.rs.satfinite.e4m3x4.f32", kCvtRsE4m3x4, "f32",
     "e4m3", "rs", "satfinite", false, kFeatCvtRs, Slots::kRsX4, 0, 8, 0xFFu},
    {"cvt.rs.e5m2x4.f32", "cvt.rs.satfinite.e5m2x4.f32", kCvtRsE5m2x4, "f32",
     "e5m2", "rs", "satfinite", false, kFeatCvtRs, Slots::kRsX4, 0, 8, 0xFFu},
    {"cvt.rs.e2m1x4.f32", "cvt.rs.satfinite.e2m1x4.f32", kCvtRsE2m1x4, "f32",
     "e2m1", "rs", "satfinite", false, kFeatCvtRs, Slots::kRsX4, 0, 4, 0xFu},
    {"cvt.rs.e2m3x4.f32", "cvt.rs.satfinite.e2m3x4.f32", kCvtRsE2m3x4, "f32",
     "e2m3", "rs", "satfinite", false, kFeatCvtRs, Slots::kRsX4, 0, 8, 0x3Fu},
    {"cvt.rs.e3m2x4.f32", "cvt.rs.satfinite.e3m2x4.f32", kCvtRsE3m2x4, "f32",
     "e3m2", "rs", "satfinite", false, kFeatCvtRs, Slots::kRsX4, 0, 8, 0x3Fu},
    {"cvt.rs.f16x2.f32", "cvt.rs.f16x2.f32", kCvtRsF16x2F32, "f32", "f16",
     "rs-full", "format", false, kFeatCvtRs, Slots::kRsX2, 0, 16, 0xFFFFu},
    {"cvt.rs.bf16x2.f32", "cvt.rs.bf16x2.f32", kCvtRsBf16x2F32, "f32", "bf16",
     "rs-full", "format", false, kFeatCvtRs, Slots::kRsX2, 0, 16, 0xFFFFu},
    // --- CUDA device intrinsics (every target; software where no cvt)
    {"nv.float2_to_fp8x2.e4m3.satfinite",
     "__nv_cvt_float2_to_fp8x2(x, __NV_SATFINITE, __NV_E4M3)",
     kNvF32x2ToE4m3Sat, "f32", "e4m3", "rne", "satfinite", false,
     kFeatIntrinsics, Slots::kPairXY, 0, 8, 0xFFu},
    {"nv.float2_to_fp8x2.e4m3.nosat",
     "__nv_cvt_float2_to_fp8x2(x, __NV_NOSAT, __NV_E4M3)", kNvF32x2ToE4m3NoSat,
     "f32", "e4m3", "rne", "format", false, kFeatIntrinsics, Slots::kPairXY, 0,
     8, 0xFFu},
    {"nv.float2_to_fp8x2.e5m2.satfinite",
     "__nv_cvt_float2_to_fp8x2(x, __NV_SATFINITE, __NV_E5M2)",
     kNvF32x2ToE5m2Sat, "f32", "e5m2", "rne", "satfinite", false,
     kFeatIntrinsics, Slots::kPairXY, 0, 8, 0xFFu},
    {"nv.float2_to_fp8x2.e5m2.nosat",
     "__nv_cvt_float2_to_fp8x2(x, __NV_NOSAT, __NV_E5M2)", kNvF32x2ToE5m2NoSat,
     "f32", "e5m2", "rne", "format", false, kFeatIntrinsics, Slots::kPairXY, 0,
     8, 0xFFu},
    {"nv.fp8x2_to_halfraw2.e4m3", "__nv_cvt_fp8x2_to_halfraw2(x, __NV_E4M3)",
     kNvE4m3x2ToF16x2, "e4m3", "f16", "rne", "format", false, kFeatIntrinsics,
     Slots::kPairPacked, 8, 16, 0xFFFFu},
    {"nv.float2_to_fp4x2.e2m1",
     "__nv_cvt_float2_to_fp4x2(x, __NV_E2M1, cudaRoundNearest)", kNvF32x2ToE2m1,
     "f32", "e2m1", "rne", "satfinite", false, kFeatIntrinsics, Slots::kPairXY,
     0, 4, 0xFu},
    {"nv.float2_to_fp6x2.e2m3",
     "__nv_cvt_float2_to_fp6x2(x, __NV_E2M3, cudaRoundNearest)", kNvF32x2ToE2m3,
     "f32", "e2m3", "rne", "satfinite", false, kFeatIntrinsics, Slots::kPairXY,
     0, 8, 0x3Fu},
    {"nv.float2_to_fp6x2.e3m2",
     "__nv_cvt_float2_to_fp6x2(x, __NV_E3M2, cudaRoundNearest)", kNvF32x2ToE3m2,
     "f32", "e3m2", "rne", "satfinite", false, kFeatIntrinsics, Slots::kPairXY,
     0, 8, 0x3Fu},
    {"nv.float_to_e8m0.rp.satfinite",
     "__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf)",
     kNvF32ToE8m0RpSat, "f32", "e8m0", "ru", "satfinite", false,
     kFeatIntrinsics, Slots::kSingle, 0, 0, 0xFFu},
    {"nv.float_to_e8m0.rz.satfinite",
     "__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero)",
     kNvF32ToE8m0RzSat, "f32", "e8m0", "rz", "satfinite", false,
     kFeatIntrinsics, Slots::kSingle, 0, 0, 0xFFu},
};

// name, ptx, instr, model, a-fmt, b-fmt, needs, ccs, shape, scale_vec,
// engine, f16_acc, note
constexpr MmaRow kMmaRows[] = {
    // --- warp-level MMA, FP8 (per e4m3/e5m2 pair: the sm_89/90/100 models
    // of the same mma.sync -- on sm_100 the legacy warp-level path, not
    // tcgen05 -- the f16 accumulator (PTX ISA 8.7+), and the sm_120a kinds)
    {"mma.m16n8k32.f32.e4m3.e4m3@sm89",
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", kMmaFp8E4E4,
     "sm89_mma_fp8_f32", "e4m3", "e4m3", kFeatMmaFp8, cc(89),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, ""},
    {"mma.m16n8k32.f32.e4m3.e4m3@sm90",
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", kMmaFp8E4E4,
     "sm90_mma_fp8_f32", "e4m3", "e4m3", kFeatMmaFp8, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, kNoteSm90},
    {"mma.m16n8k32.f32.e4m3.e4m3@sm100",
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", kMmaFp8E4E4,
     "sm100_mma_fp8_f32", "e4m3", "e4m3", kFeatMmaFp8, cc(100, 103),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, kNoteSm100},
    {"mma.m16n8k32.f16.e4m3.e4m3@sm89",
     "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16", kMmaFp8F16E4E4,
     "sm89_mma_fp8_f16", "e4m3", "e4m3", kFeatMmaFp8F16, cc(89),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, true, kNoteSm89F16},
    {"mma.m16n8k32.f16.e4m3.e4m3@sm90",
     "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16", kMmaFp8F16E4E4,
     "sm90_mma_fp8_f16", "e4m3", "e4m3", kFeatMmaFp8F16, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, true, kNoteSm90F16},
    {"mma.m16n8k32.f16.e4m3.e4m3@sm100",
     "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16", kMmaFp8F16E4E4,
     "sm100_mma_fp8_f16", "e4m3", "e4m3", kFeatMmaFp8F16, cc(100, 103),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, true, kNoteSm100F16},
    {"mma.m16n8k32.kind::f8f6f4.f32.e4m3.e4m3",
     "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32",
     kMmaF8f6f4E4E4, "sm120_mma_f8f6f4_f32", "e4m3", "e4m3", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, ""},
    {"mma.m16n8k32.kind::mxf8f6f4.1X.e4m3.e4m3",
     "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::"
     "1X.f32.e4m3.e4m3.f32.ue8m0",
     kMmaMxf8E4E4, "sm120_mma_mxf8f6f4", "e4m3", "e4m3", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 1, MmaEngine::kSync, false,
     kNoteMxf8Scales},
    {"mma.m16n8k32.f32.e4m3.e5m2@sm89",
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", kMmaFp8E4E5,
     "sm89_mma_fp8_f32", "e4m3", "e5m2", kFeatMmaFp8, cc(89),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, ""},
    {"mma.m16n8k32.f32.e4m3.e5m2@sm90",
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", kMmaFp8E4E5,
     "sm90_mma_fp8_f32", "e4m3", "e5m2", kFeatMmaFp8, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, kNoteSm90},
    {"mma.m16n8k32.f32.e4m3.e5m2@sm100",
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", kMmaFp8E4E5,
     "sm100_mma_fp8_f32", "e4m3", "e5m2", kFeatMmaFp8, cc(100, 103),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, kNoteSm100},
    {"mma.m16n8k32.f16.e4m3.e5m2@sm89",
     "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16", kMmaFp8F16E4E5,
     "sm89_mma_fp8_f16", "e4m3", "e5m2", kFeatMmaFp8F16, cc(89),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, true, kNoteSm89F16},
    {"mma.m16n8k32.f16.e4m3.e5m2@sm90",
     "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16", kMmaFp8F16E4E5,
     "sm90_mma_fp8_f16", "e4m3", "e5m2", kFeatMmaFp8F16, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, true, kNoteSm90F16},
    {"mma.m16n8k32.f16.e4m3.e5m2@sm100",
     "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16", kMmaFp8F16E4E5,
     "sm100_mma_fp8_f16", "e4m3", "e5m2", kFeatMmaFp8F16, cc(100, 103),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, true, kNoteSm100F16},
    {"mma.m16n8k32.kind::f8f6f4.f32.e4m3.e5m2",
     "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e5m2.f32",
     kMmaF8f6f4E4E5, "sm120_mma_f8f6f4_f32", "e4m3", "e5m2", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, ""},
    {"mma.m16n8k32.kind::mxf8f6f4.1X.e4m3.e5m2",
     "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::"
     "1X.f32.e4m3.e5m2.f32.ue8m0",
     kMmaMxf8E4E5, "sm120_mma_mxf8f6f4", "e4m3", "e5m2", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 1, MmaEngine::kSync, false,
     kNoteMxf8Scales},
    {"mma.m16n8k32.f32.e5m2.e4m3@sm89",
     "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", kMmaFp8E5E4,
     "sm89_mma_fp8_f32", "e5m2", "e4m3", kFeatMmaFp8, cc(89),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, ""},
    {"mma.m16n8k32.f32.e5m2.e4m3@sm90",
     "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", kMmaFp8E5E4,
     "sm90_mma_fp8_f32", "e5m2", "e4m3", kFeatMmaFp8, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, kNoteSm90},
    {"mma.m16n8k32.f32.e5m2.e4m3@sm100",
     "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", kMmaFp8E5E4,
     "sm100_mma_fp8_f32", "e5m2", "e4m3", kFeatMmaFp8, cc(100, 103),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, kNoteSm100},
    {"mma.m16n8k32.f16.e5m2.e4m3@sm89",
     "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16", kMmaFp8F16E5E4,
     "sm89_mma_fp8_f16", "e5m2", "e4m3", kFeatMmaFp8F16, cc(89),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, true, kNoteSm89F16},
    {"mma.m16n8k32.f16.e5m2.e4m3@sm90",
     "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16", kMmaFp8F16E5E4,
     "sm90_mma_fp8_f16", "e5m2", "e4m3", kFeatMmaFp8F16, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, true, kNoteSm90F16},
    {"mma.m16n8k32.f16.e5m2.e4m3@sm100",
     "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16", kMmaFp8F16E5E4,
     "sm100_mma_fp8_f16", "e5m2", "e4m3", kFeatMmaFp8F16, cc(100, 103),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, true, kNoteSm100F16},
    {"mma.m16n8k32.kind::f8f6f4.f32.e5m2.e4m3",
     "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e4m3.f32",
     kMmaF8f6f4E5E4, "sm120_mma_f8f6f4_f32", "e5m2", "e4m3", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, ""},
    {"mma.m16n8k32.kind::mxf8f6f4.1X.e5m2.e4m3",
     "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::"
     "1X.f32.e5m2.e4m3.f32.ue8m0",
     kMmaMxf8E5E4, "sm120_mma_mxf8f6f4", "e5m2", "e4m3", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 1, MmaEngine::kSync, false,
     kNoteMxf8Scales},
    {"mma.m16n8k32.f32.e5m2.e5m2@sm89",
     "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", kMmaFp8E5E5,
     "sm89_mma_fp8_f32", "e5m2", "e5m2", kFeatMmaFp8, cc(89),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, ""},
    {"mma.m16n8k32.f32.e5m2.e5m2@sm90",
     "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", kMmaFp8E5E5,
     "sm90_mma_fp8_f32", "e5m2", "e5m2", kFeatMmaFp8, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, kNoteSm90},
    {"mma.m16n8k32.f32.e5m2.e5m2@sm100",
     "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", kMmaFp8E5E5,
     "sm100_mma_fp8_f32", "e5m2", "e5m2", kFeatMmaFp8, cc(100, 103),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, kNoteSm100},
    {"mma.m16n8k32.f16.e5m2.e5m2@sm89",
     "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16", kMmaFp8F16E5E5,
     "sm89_mma_fp8_f16", "e5m2", "e5m2", kFeatMmaFp8F16, cc(89),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, true, kNoteSm89F16},
    {"mma.m16n8k32.f16.e5m2.e5m2@sm90",
     "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16", kMmaFp8F16E5E5,
     "sm90_mma_fp8_f16", "e5m2", "e5m2", kFeatMmaFp8F16, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, true, kNoteSm90F16},
    {"mma.m16n8k32.f16.e5m2.e5m2@sm100",
     "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16", kMmaFp8F16E5E5,
     "sm100_mma_fp8_f16", "e5m2", "e5m2", kFeatMmaFp8F16, cc(100, 103),
     FragShape::kM16N8K32x8, 0, MmaEngine::kSync, true, kNoteSm100F16},
    {"mma.m16n8k32.kind::f8f6f4.f32.e5m2.e5m2",
     "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e5m2.f32",
     kMmaF8f6f4E5E5, "sm120_mma_f8f6f4_f32", "e5m2", "e5m2", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false, ""},
    {"mma.m16n8k32.kind::mxf8f6f4.1X.e5m2.e5m2",
     "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::"
     "1X.f32.e5m2.e5m2.f32.ue8m0",
     kMmaMxf8E5E5, "sm120_mma_mxf8f6f4", "e5m2", "e5m2", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 1, MmaEngine::kSync, false,
     kNoteMxf8Scales},
    // --- warpgroup MMA (sm_90a)
    {"wgmma.m64n8k32.f32.e4m3.e4m3",
     "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 (smem descriptors, "
     "no swizzle)",
     kWgmmaF32E4E4, "sm90_wgmma_fp8_f32", "e4m3", "e4m3", kFeatWgmma, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kWgmma, false, kNoteWgmma},
    {"wgmma.m64n8k32.f16.e4m3.e4m3",
     "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3 (smem descriptors, "
     "no swizzle)",
     kWgmmaF16E4E4, "sm90_wgmma_fp8_f16", "e4m3", "e4m3", kFeatWgmma, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kWgmma, true, kNoteWgmma},
    {"wgmma.m64n8k32.f32.e4m3.e5m2",
     "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 (smem descriptors, "
     "no swizzle)",
     kWgmmaF32E4E5, "sm90_wgmma_fp8_f32", "e4m3", "e5m2", kFeatWgmma, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kWgmma, false, kNoteWgmma},
    {"wgmma.m64n8k32.f16.e4m3.e5m2",
     "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e5m2 (smem descriptors, "
     "no swizzle)",
     kWgmmaF16E4E5, "sm90_wgmma_fp8_f16", "e4m3", "e5m2", kFeatWgmma, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kWgmma, true, kNoteWgmma},
    {"wgmma.m64n8k32.f32.e5m2.e4m3",
     "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e4m3 (smem descriptors, "
     "no swizzle)",
     kWgmmaF32E5E4, "sm90_wgmma_fp8_f32", "e5m2", "e4m3", kFeatWgmma, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kWgmma, false, kNoteWgmma},
    {"wgmma.m64n8k32.f16.e5m2.e4m3",
     "wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e4m3 (smem descriptors, "
     "no swizzle)",
     kWgmmaF16E5E4, "sm90_wgmma_fp8_f16", "e5m2", "e4m3", kFeatWgmma, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kWgmma, true, kNoteWgmma},
    {"wgmma.m64n8k32.f32.e5m2.e5m2",
     "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2 (smem descriptors, "
     "no swizzle)",
     kWgmmaF32E5E5, "sm90_wgmma_fp8_f32", "e5m2", "e5m2", kFeatWgmma, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kWgmma, false, kNoteWgmma},
    {"wgmma.m64n8k32.f16.e5m2.e5m2",
     "wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e5m2 (smem descriptors, "
     "no swizzle)",
     kWgmmaF16E5E5, "sm90_wgmma_fp8_f16", "e5m2", "e5m2", kFeatWgmma, cc(90),
     FragShape::kM16N8K32x8, 0, MmaEngine::kWgmma, true, kNoteWgmma},
    {"wgmma.m64n8k8.f32.tf32.tf32",
     "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 (smem descriptors, no "
     "swizzle)",
     kWgmmaF32Tf32, "sm90_wgmma_tf32_f32", "tf32", "tf32", kFeatWgmma, cc(90),
     FragShape::kM16N8K8x32, 0, MmaEngine::kWgmma, false,
     "tf32 operands as f32 bit patterns; 32-bit K-major smem layout per "
     "host/wgmma.h (CUTLASS-derived; H200 device check: pass)"},
    // --- 5th-generation tensor core (sm_100a / sm_103a)
    {"tcgen05.mma.kind::f8f6f4.f32.e4m3.e4m3",
     "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 e4m3.e4m3 -> f32 "
     "(smem descriptors, D in TMEM)",
     kTc05F8f6f4E4E4, "sm100_tcgen05_f8f6f4_f32", "e4m3", "e4m3", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 0, MmaEngine::kTcgen05, false,
     kNoteTc05},
    {"tcgen05.mma.kind::mxf8f6f4.1X.e4m3.e4m3",
     "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X M=128 "
     "N=16 K=32 e4m3.e4m3 ue8m0 (scales in TMEM via tcgen05.st)",
     kTc05Mxf8E4E4, "sm100_tcgen05_mxf8f6f4", "e4m3", "e4m3", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 1, MmaEngine::kTcgen05, false,
     kNoteTc05Scales},
    {"tcgen05.mma.kind::f8f6f4.f32.e4m3.e5m2",
     "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 e4m3.e5m2 -> f32 "
     "(smem descriptors, D in TMEM)",
     kTc05F8f6f4E4E5, "sm100_tcgen05_f8f6f4_f32", "e4m3", "e5m2", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 0, MmaEngine::kTcgen05, false,
     kNoteTc05},
    {"tcgen05.mma.kind::mxf8f6f4.1X.e4m3.e5m2",
     "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X M=128 "
     "N=16 K=32 e4m3.e5m2 ue8m0 (scales in TMEM via tcgen05.st)",
     kTc05Mxf8E4E5, "sm100_tcgen05_mxf8f6f4", "e4m3", "e5m2", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 1, MmaEngine::kTcgen05, false,
     kNoteTc05Scales},
    {"tcgen05.mma.kind::f8f6f4.f32.e5m2.e4m3",
     "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 e5m2.e4m3 -> f32 "
     "(smem descriptors, D in TMEM)",
     kTc05F8f6f4E5E4, "sm100_tcgen05_f8f6f4_f32", "e5m2", "e4m3", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 0, MmaEngine::kTcgen05, false,
     kNoteTc05},
    {"tcgen05.mma.kind::mxf8f6f4.1X.e5m2.e4m3",
     "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X M=128 "
     "N=16 K=32 e5m2.e4m3 ue8m0 (scales in TMEM via tcgen05.st)",
     kTc05Mxf8E5E4, "sm100_tcgen05_mxf8f6f4", "e5m2", "e4m3", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 1, MmaEngine::kTcgen05, false,
     kNoteTc05Scales},
    {"tcgen05.mma.kind::f8f6f4.f32.e5m2.e5m2",
     "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 e5m2.e5m2 -> f32 "
     "(smem descriptors, D in TMEM)",
     kTc05F8f6f4E5E5, "sm100_tcgen05_f8f6f4_f32", "e5m2", "e5m2", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 0, MmaEngine::kTcgen05, false,
     kNoteTc05},
    {"tcgen05.mma.kind::mxf8f6f4.1X.e5m2.e5m2",
     "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X M=128 "
     "N=16 K=32 e5m2.e5m2 ue8m0 (scales in TMEM via tcgen05.st)",
     kTc05Mxf8E5E5, "sm100_tcgen05_mxf8f6f4", "e5m2", "e5m2", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 1, MmaEngine::kTcgen05, false,
     kNoteTc05Scales},
    // --- sm_120a mma.sync m16n8k64 FP4 block-scaled kinds
    {"mma.m16n8k64.kind::mxf4.2X.e2m1.e2m1",
     "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X."
     "f32.e2m1.e2m1.f32.ue8m0",
     kMmaMxf4, "sm120_mma_mxf4", "e2m1", "e2m1", kFeatMmaSm120, cc(120, 121),
     FragShape::kM16N8K64x4, 2, MmaEngine::kSync, false, kNoteScaleByte},
    {"mma.m16n8k64.kind::mxf4nvf4.2X.e2m1.e2m1",
     "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::"
     "2X.f32.e2m1.e2m1.f32.ue8m0",
     kMmaNvf4x2, "sm120_mma_mxf4", "e2m1", "e2m1", kFeatMmaSm120, cc(120, 121),
     FragShape::kM16N8K64x4, 2, MmaEngine::kSync, false,
     "compared with kind::mxf4's model (same operands, UE8M0 scales per 32 k: "
     "assumed to be the same datapath); scale byte v = k-block v of the row "
     "(assumed; ISA gives it as a figure)"},
    {"mma.m16n8k64.kind::mxf4nvf4.4X.e2m1.e2m1",
     "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::"
     "4X.f32.e2m1.e2m1.f32.ue4m3",
     kMmaNvf4, "sm120_mma_mxf4nvf4_4x", "e2m1", "e2m1", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K64x4, 4, MmaEngine::kSync, false,
     kNoteScaleByte},
    // --- FP6/FP4 operands of the f8f6f4 kinds (representative pairs)
    {"mma.m16n8k32.kind::f8f6f4.f32.e2m1.e2m1",
     "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32",
     kMmaF8f6f4E2m1E2m1, "sm120_mma_f8f6f4_f32", "e2m1", "e2m1", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false,
     kNoteContainer},
    {"mma.m16n8k32.kind::mxf8f6f4.1X.e2m1.e2m1",
     "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::"
     "1X.f32.e2m1.e2m1.f32.ue8m0",
     kMmaMxf8E2m1E2m1, "sm120_mma_mxf8f6f4", "e2m1", "e2m1", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 1, MmaEngine::kSync, false,
     kNoteContainerScaled},
    {"tcgen05.mma.kind::f8f6f4.f32.e2m1.e2m1",
     "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 e2m1.e2m1 -> f32 "
     "(smem descriptors, D in TMEM)",
     kTc05F8f6f4Sub, "sm100_tcgen05_f8f6f4_f32", "e2m1", "e2m1", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 0, MmaEngine::kTcgen05, false,
     kNoteTc05Sub},
    {"tcgen05.mma.kind::mxf8f6f4.1X.e2m1.e2m1",
     "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X M=128 "
     "N=16 K=32 e2m1.e2m1 ue8m0 (scales in TMEM via tcgen05.st)",
     kTc05Mxf8Sub, "sm100_tcgen05_mxf8f6f4", "e2m1", "e2m1", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 1, MmaEngine::kTcgen05, false,
     kNoteTc05SubScaled},
    {"mma.m16n8k32.kind::f8f6f4.f32.e2m3.e2m3",
     "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m3.f32",
     kMmaF8f6f4E2m3E2m3, "sm120_mma_f8f6f4_f32", "e2m3", "e2m3", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false,
     kNoteContainer},
    {"mma.m16n8k32.kind::mxf8f6f4.1X.e2m3.e2m3",
     "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::"
     "1X.f32.e2m3.e2m3.f32.ue8m0",
     kMmaMxf8E2m3E2m3, "sm120_mma_mxf8f6f4", "e2m3", "e2m3", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 1, MmaEngine::kSync, false,
     kNoteContainerScaled},
    {"tcgen05.mma.kind::f8f6f4.f32.e2m3.e2m3",
     "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 e2m3.e2m3 -> f32 "
     "(smem descriptors, D in TMEM)",
     kTc05F8f6f4Sub, "sm100_tcgen05_f8f6f4_f32", "e2m3", "e2m3", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 0, MmaEngine::kTcgen05, false,
     kNoteTc05Sub},
    {"tcgen05.mma.kind::mxf8f6f4.1X.e2m3.e2m3",
     "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X M=128 "
     "N=16 K=32 e2m3.e2m3 ue8m0 (scales in TMEM via tcgen05.st)",
     kTc05Mxf8Sub, "sm100_tcgen05_mxf8f6f4", "e2m3", "e2m3", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 1, MmaEngine::kTcgen05, false,
     kNoteTc05SubScaled},
    {"mma.m16n8k32.kind::f8f6f4.f32.e3m2.e3m2",
     "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32",
     kMmaF8f6f4E3m2E3m2, "sm120_mma_f8f6f4_f32", "e3m2", "e3m2", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false,
     kNoteContainer},
    {"mma.m16n8k32.kind::mxf8f6f4.1X.e3m2.e3m2",
     "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::"
     "1X.f32.e3m2.e3m2.f32.ue8m0",
     kMmaMxf8E3m2E3m2, "sm120_mma_mxf8f6f4", "e3m2", "e3m2", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 1, MmaEngine::kSync, false,
     kNoteContainerScaled},
    {"tcgen05.mma.kind::f8f6f4.f32.e3m2.e3m2",
     "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 e3m2.e3m2 -> f32 "
     "(smem descriptors, D in TMEM)",
     kTc05F8f6f4Sub, "sm100_tcgen05_f8f6f4_f32", "e3m2", "e3m2", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 0, MmaEngine::kTcgen05, false,
     kNoteTc05Sub},
    {"tcgen05.mma.kind::mxf8f6f4.1X.e3m2.e3m2",
     "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X M=128 "
     "N=16 K=32 e3m2.e3m2 ue8m0 (scales in TMEM via tcgen05.st)",
     kTc05Mxf8Sub, "sm100_tcgen05_mxf8f6f4", "e3m2", "e3m2", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 1, MmaEngine::kTcgen05, false,
     kNoteTc05SubScaled},
    {"mma.m16n8k32.kind::f8f6f4.f32.e4m3.e2m1",
     "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32",
     kMmaF8f6f4E4m3E2m1, "sm120_mma_f8f6f4_f32", "e4m3", "e2m1", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 0, MmaEngine::kSync, false,
     kNoteContainer},
    {"mma.m16n8k32.kind::mxf8f6f4.1X.e4m3.e2m1",
     "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::"
     "1X.f32.e4m3.e2m1.f32.ue8m0",
     kMmaMxf8E4m3E2m1, "sm120_mma_mxf8f6f4", "e4m3", "e2m1", kFeatMmaSm120,
     cc(120, 121), FragShape::kM16N8K32x8, 1, MmaEngine::kSync, false,
     kNoteContainerScaled},
    {"tcgen05.mma.kind::f8f6f4.f32.e4m3.e2m1",
     "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 e4m3.e2m1 -> f32 "
     "(smem descriptors, D in TMEM)",
     kTc05F8f6f4Sub, "sm100_tcgen05_f8f6f4_f32", "e4m3", "e2m1", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 0, MmaEngine::kTcgen05, false,
     kNoteTc05Sub},
    {"tcgen05.mma.kind::mxf8f6f4.1X.e4m3.e2m1",
     "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X M=128 "
     "N=16 K=32 e4m3.e2m1 ue8m0 (scales in TMEM via tcgen05.st)",
     kTc05Mxf8Sub, "sm100_tcgen05_mxf8f6f4", "e4m3", "e2m1", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 1, MmaEngine::kTcgen05, false,
     kNoteTc05SubScaled},
    // --- tcgen05 kind::mxf4 / kind::mxf4nvf4 (K = 64, packed e2m1)
    {"tcgen05.mma.kind::mxf4.2X.e2m1.e2m1",
     "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X (ue8m0) "
     "M=128 N=16 K=64 e2m1.e2m1 (packed e2m1 in smem, scales in TMEM)",
     kTc05Mxf4, "sm100_tcgen05_mxf4", "e2m1", "e2m1", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K64x4, 2, MmaEngine::kTcgen05, false,
     kNoteTc05Fp4},
    {"tcgen05.mma.kind::mxf4nvf4.2X.e2m1.e2m1",
     "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X "
     "(ue8m0) M=128 N=16 K=64 e2m1.e2m1 (packed e2m1 in smem, scales in TMEM)",
     kTc05Nvf4x2, "sm100_tcgen05_mxf4nvf4_2x", "e2m1", "e2m1", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K64x4, 2, MmaEngine::kTcgen05, false,
     kNoteTc05Fp4},
    {"tcgen05.mma.kind::mxf4nvf4.4X.e2m1.e2m1",
     "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X "
     "(ue4m3: NVFP4) M=128 N=16 K=64 e2m1.e2m1 (packed e2m1 in smem, scales in "
     "TMEM)",
     kTc05Nvf4x4, "sm100_tcgen05_mxf4nvf4_4x", "e2m1", "e2m1", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K64x4, 4, MmaEngine::kTcgen05, false,
     kNoteTc05Fp4},
    {"tcgen05.mma.kind::mxf4nvf4.4X.ue8m0.e2m1.e2m1",
     "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X "
     "(ue8m0) M=128 N=16 K=64 e2m1.e2m1 (packed e2m1 in smem, scales in TMEM)",
     kTc05Nvf4x4, "sm100_tcgen05_mxf4nvf4_4x_ue8m0", "e2m1", "e2m1",
     kFeatTcgen05, cc(100, 103), FragShape::kM16N8K64x4, 4, MmaEngine::kTcgen05,
     false, kNoteTc05Fp4},
    // --- tcgen05 kind::f8f6f4 with an f16 accumulator
    {"tcgen05.mma.kind::f8f6f4.f16.e4m3.e4m3",
     "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 e4m3.e4m3 -> f16 "
     "(idesc dtype F16; D in the low half of each TMEM word)",
     kTc05F8f6f4F16, "sm100_tcgen05_f8f6f4_f16", "e4m3", "e4m3", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 0, MmaEngine::kTcgen05, true,
     kNoteTc05F16},
    {"tcgen05.mma.kind::f8f6f4.f16.e4m3.e5m2",
     "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 e4m3.e5m2 -> f16 "
     "(idesc dtype F16; D in the low half of each TMEM word)",
     kTc05F8f6f4F16, "sm100_tcgen05_f8f6f4_f16", "e4m3", "e5m2", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 0, MmaEngine::kTcgen05, true,
     kNoteTc05F16},
    {"tcgen05.mma.kind::f8f6f4.f16.e5m2.e4m3",
     "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 e5m2.e4m3 -> f16 "
     "(idesc dtype F16; D in the low half of each TMEM word)",
     kTc05F8f6f4F16, "sm100_tcgen05_f8f6f4_f16", "e5m2", "e4m3", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 0, MmaEngine::kTcgen05, true,
     kNoteTc05F16},
    {"tcgen05.mma.kind::f8f6f4.f16.e5m2.e5m2",
     "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 e5m2.e5m2 -> f16 "
     "(idesc dtype F16; D in the low half of each TMEM word)",
     kTc05F8f6f4F16, "sm100_tcgen05_f8f6f4_f16", "e5m2", "e5m2", kFeatTcgen05,
     cc(100, 103), FragShape::kM16N8K32x8, 0, MmaEngine::kTcgen05, true,
     kNoteTc05F16},
    // --- sm_80+ mma.sync f16/bf16/tf32 (the legacy instructions, one model
    // per generation that runs them: sm_80/86/87, sm_89, sm_90, sm_100/103)
    {"mma.m16n8k16.f32.f16.f16@sm80",
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", kMmaF16F32,
     "sm80_mma_f16_f32", "f16", "f16", kFeatMmaSm80, cc(80, 86, 87),
     FragShape::kM16N8K16x16, 0, MmaEngine::kSync, false, kNoteSm80Frag},
    {"mma.m16n8k16.f32.f16.f16@sm89",
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", kMmaF16F32,
     "sm89_mma_f16_f32", "f16", "f16", kFeatMmaSm80, cc(89),
     FragShape::kM16N8K16x16, 0, MmaEngine::kSync, false, kNoteSm80Frag},
    {"mma.m16n8k16.f32.f16.f16@sm90",
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", kMmaF16F32,
     "sm90_mma_f16_f32", "f16", "f16", kFeatMmaSm80, cc(90),
     FragShape::kM16N8K16x16, 0, MmaEngine::kSync, false, kNoteSm80Frag},
    {"mma.m16n8k16.f32.f16.f16@sm100",
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", kMmaF16F32,
     "sm100_mma_f16_f32", "f16", "f16", kFeatMmaSm80, cc(100, 103),
     FragShape::kM16N8K16x16, 0, MmaEngine::kSync, false, kNoteSm80Frag},
    {"mma.m16n8k16.f32.bf16.bf16@sm80",
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", kMmaBf16F32,
     "sm80_mma_bf16_f32", "bf16", "bf16", kFeatMmaSm80, cc(80, 86, 87),
     FragShape::kM16N8K16x16, 0, MmaEngine::kSync, false, kNoteSm80Frag},
    {"mma.m16n8k16.f32.bf16.bf16@sm89",
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", kMmaBf16F32,
     "sm89_mma_bf16_f32", "bf16", "bf16", kFeatMmaSm80, cc(89),
     FragShape::kM16N8K16x16, 0, MmaEngine::kSync, false, kNoteSm80Frag},
    {"mma.m16n8k16.f32.bf16.bf16@sm90",
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", kMmaBf16F32,
     "sm90_mma_bf16_f32", "bf16", "bf16", kFeatMmaSm80, cc(90),
     FragShape::kM16N8K16x16, 0, MmaEngine::kSync, false, kNoteSm80Frag},
    {"mma.m16n8k16.f32.bf16.bf16@sm100",
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", kMmaBf16F32,
     "sm100_mma_bf16_f32", "bf16", "bf16", kFeatMmaSm80, cc(100, 103),
     FragShape::kM16N8K16x16, 0, MmaEngine::kSync, false, kNoteSm80Frag},
    {"mma.m16n8k16.f16.f16.f16@sm80",
     "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", kMmaF16F16,
     "sm80_mma_f16_f16", "f16", "f16", kFeatMmaSm80, cc(80, 86, 87),
     FragShape::kM16N8K16x16, 0, MmaEngine::kSync, true, kNoteSm80FragF16},
    {"mma.m16n8k16.f16.f16.f16@sm89",
     "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", kMmaF16F16,
     "sm89_mma_f16_f16", "f16", "f16", kFeatMmaSm80, cc(89),
     FragShape::kM16N8K16x16, 0, MmaEngine::kSync, true, kNoteSm80FragF16},
    {"mma.m16n8k16.f16.f16.f16@sm90",
     "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", kMmaF16F16,
     "sm90_mma_f16_f16", "f16", "f16", kFeatMmaSm80, cc(90),
     FragShape::kM16N8K16x16, 0, MmaEngine::kSync, true, kNoteSm80FragF16},
    {"mma.m16n8k16.f16.f16.f16@sm100",
     "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", kMmaF16F16,
     "sm100_mma_f16_f16", "f16", "f16", kFeatMmaSm80, cc(100, 103),
     FragShape::kM16N8K16x16, 0, MmaEngine::kSync, true, kNoteSm80FragF16},
    {"mma.m16n8k8.f32.tf32.tf32@sm80",
     "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", kMmaTf32F32,
     "sm80_mma_tf32_f32", "tf32", "tf32", kFeatMmaSm80, cc(80, 86, 87),
     FragShape::kM16N8K8x32Sync, 0, MmaEngine::kSync, false, kNoteSm80Frag},
    {"mma.m16n8k8.f32.tf32.tf32@sm89",
     "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", kMmaTf32F32,
     "sm89_mma_tf32_f32", "tf32", "tf32", kFeatMmaSm80, cc(89),
     FragShape::kM16N8K8x32Sync, 0, MmaEngine::kSync, false, kNoteSm80Frag},
    {"mma.m16n8k8.f32.tf32.tf32@sm90",
     "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", kMmaTf32F32,
     "sm90_mma_tf32_f32", "tf32", "tf32", kFeatMmaSm80, cc(90),
     FragShape::kM16N8K8x32Sync, 0, MmaEngine::kSync, false, kNoteSm80Frag},
    {"mma.m16n8k8.f32.tf32.tf32@sm100",
     "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", kMmaTf32F32,
     "sm100_mma_tf32_f32", "tf32", "tf32", kFeatMmaSm80, cc(100, 103),
     FragShape::kM16N8K8x32Sync, 0, MmaEngine::kSync, false, kNoteSm80Frag},
};

std::vector<Family> build() {
  std::vector<Family> v;
  for (const CvtRow& r : kCvtRows) {
    Family f;
    f.name = r.name;
    f.ptx = r.ptx;
    f.kind = FamilyKind::kConvert;
    f.instr = r.instr;
    f.header.kv["op"] = "convert";
    f.header.kv["from"] = r.from;
    f.header.kv["to"] = r.to;
    f.header.kv["round"] = r.round;
    f.header.kv["overflow"] = r.overflow;
    f.header.kv["relu"] = r.relu ? "1" : "0";
    f.needs = r.needs;
    f.slots = r.slots;
    f.src_shift = r.src_shift;
    f.dst_shift = r.dst_shift;
    f.dst_mask = r.dst_mask;
    v.push_back(std::move(f));
  }
  for (const MmaRow& r : kMmaRows) {
    Family f;
    f.name = r.name;
    f.ptx = r.ptx;
    f.kind = FamilyKind::kMma;
    f.instr = r.instr;
    f.header.kv["op"] = "mma";
    f.header.kv["model"] = r.model;
    f.header.kv["a-fmt"] = r.a_fmt;
    f.header.kv["b-fmt"] = r.b_fmt;
    f.needs = r.needs;
    for (int c : r.ccs)
      if (c != 0) f.ccs.push_back(c);
    f.shape = r.shape;
    f.scale_vec = r.scale_vec;
    f.engine = r.engine;
    f.f16_acc = r.f16_acc;
    f.note = r.note;
    v.push_back(std::move(f));
  }
  // --- cuBLASLt (host/families_gemm.cpp) ----------------------------------
  add_gemm_families(v);
  return v;
}

}  // namespace

const std::vector<Family>& families() {
  static const std::vector<Family> f = build();
  return f;
}

const Family* find_family(const std::string& name) {
  for (const Family& f : families())
    if (f.name == name) return &f;
  return nullptr;
}

std::string kind_name(FamilyKind k) {
  switch (k) {
    case FamilyKind::kConvert:
      return "convert";
    case FamilyKind::kMma:
      return "mma";
    case FamilyKind::kGemm:
      return "cublaslt";
  }
  return "?";
}

bool family_matches(const Family& f, const std::string& filter) {
  if (filter == f.name || filter == kind_name(f.kind)) return true;
  if (filter == "gemm" && f.kind == FamilyKind::kGemm) return true;
  if (f.name.size() > filter.size() &&
      f.name.compare(0, filter.size(), filter) == 0) {
    const char c = f.name[filter.size()];
    return c == '.' || c == '@';
  }
  return false;
}

}  // namespace mxc::gpu
