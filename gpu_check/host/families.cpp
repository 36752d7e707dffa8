#include "gpu_check/host/families.h"

#include <tuple>

#include "gpu_check/host/instr.h"

namespace mxc::gpu {
namespace {

vec::Header cvt_header(const char* from, const char* to, const char* round,
                       const char* overflow, bool relu) {
  vec::Header h;
  h.kv["op"] = "convert";
  h.kv["from"] = from;
  h.kv["to"] = to;
  h.kv["round"] = round;
  h.kv["overflow"] = overflow;
  h.kv["relu"] = relu ? "1" : "0";
  return h;
}

Family cvt(std::string name, std::string ptx, int instr, vec::Header h,
           unsigned needs, Slots slots, int src_shift, int dst_shift,
           uint32_t dst_mask, std::vector<int> ccs = {}) {
  Family f;
  f.name = std::move(name);
  f.ptx = std::move(ptx);
  f.kind = FamilyKind::kConvert;
  f.instr = instr;
  f.header = std::move(h);
  f.needs = needs;
  f.ccs = std::move(ccs);
  f.slots = slots;
  f.src_shift = src_shift;
  f.dst_shift = dst_shift;
  f.dst_mask = dst_mask;
  return f;
}

Family mma(std::string name, std::string ptx, int instr, const char* model,
           const char* af, const char* bf, unsigned needs, std::vector<int> ccs,
           FragShape shape, int scale_vec, std::string note = "") {
  Family f;
  f.name = std::move(name);
  f.ptx = std::move(ptx);
  f.kind = FamilyKind::kMma;
  f.instr = instr;
  f.header.kv["op"] = "mma";
  f.header.kv["model"] = model;
  f.header.kv["a-fmt"] = af;
  f.header.kv["b-fmt"] = bf;
  f.needs = needs;
  f.ccs = std::move(ccs);
  f.shape = shape;
  f.scale_vec = scale_vec;
  f.note = std::move(note);
  return f;
}

std::vector<Family> build() {
  std::vector<Family> v;
  const unsigned k8 = kFeatFp8Cvt, k64 = kFeatF6F4Cvt, krs = kFeatCvtRs;
  // --- sm_89+: FP8 ---------------------------------------------------------
  for (const auto& [to, relu, id] : {std::tuple{"e4m3", false, kCvtE4m3x2F32},
                                     {"e4m3", true, kCvtE4m3x2F32Relu},
                                     {"e5m2", false, kCvtE5m2x2F32},
                                     {"e5m2", true, kCvtE5m2x2F32Relu}}) {
    const std::string t = to;
    v.push_back(cvt(
        "cvt." + t + "x2.f32" + (relu ? ".relu" : ""),
        "cvt.rn.satfinite" + std::string(relu ? ".relu." : ".") + t + "x2.f32",
        id, cvt_header("f32", to, "rne", "satfinite", relu), k8, Slots::kPairAB,
        0, 8, 0xFF));
  }
  v.push_back(cvt("cvt.e4m3x2.f16x2", "cvt.rn.satfinite.e4m3x2.f16x2",
                  kCvtE4m3x2F16x2,
                  cvt_header("f16", "e4m3", "rne", "satfinite", false), k8,
                  Slots::kPairPacked, 16, 8, 0xFF));
  v.push_back(cvt("cvt.e5m2x2.f16x2", "cvt.rn.satfinite.e5m2x2.f16x2",
                  kCvtE5m2x2F16x2,
                  cvt_header("f16", "e5m2", "rne", "satfinite", false), k8,
                  Slots::kPairPacked, 16, 8, 0xFF));
  v.push_back(cvt("cvt.f16x2.e4m3x2", "cvt.rn.f16x2.e4m3x2", kCvtF16x2E4m3x2,
                  cvt_header("e4m3", "f16", "rne", "format", false), k8,
                  Slots::kPairPacked, 8, 16, 0xFFFF));
  v.push_back(cvt("cvt.f16x2.e4m3x2.relu", "cvt.rn.relu.f16x2.e4m3x2",
                  kCvtF16x2E4m3x2Relu,
                  cvt_header("e4m3", "f16", "rne", "format", true), k8,
                  Slots::kPairPacked, 8, 16, 0xFFFF));
  v.push_back(cvt("cvt.f16x2.e5m2x2", "cvt.rn.f16x2.e5m2x2", kCvtF16x2E5m2x2,
                  cvt_header("e5m2", "f16", "rne", "format", false), k8,
                  Slots::kPairPacked, 8, 16, 0xFFFF));
  // --- sm_100a / sm_103a / sm_120a / sm_121a: FP6, FP4, UE8M0 -------------
  for (const auto& [to, relu, id, shift, mask] :
       {std::tuple{"e2m1", false, kCvtE2m1x2F32, 4, 0xFu},
        {"e2m1", true, kCvtE2m1x2F32Relu, 4, 0xFu},
        {"e2m3", false, kCvtE2m3x2F32, 8, 0x3Fu},
        {"e2m3", true, kCvtE2m3x2F32Relu, 8, 0x3Fu},
        {"e3m2", false, kCvtE3m2x2F32, 8, 0x3Fu},
        {"e3m2", true, kCvtE3m2x2F32Relu, 8, 0x3Fu}}) {
    const std::string t = to;
    v.push_back(cvt(
        "cvt." + t + "x2.f32" + (relu ? ".relu" : ""),
        "cvt.rn.satfinite" + std::string(relu ? ".relu." : ".") + t + "x2.f32",
        id, cvt_header("f32", to, "rne", "satfinite", relu), k64,
        Slots::kPairAB, 0, shift, mask));
  }
  v.push_back(cvt("cvt.f16x2.e2m1x2", "cvt.rn.f16x2.e2m1x2", kCvtF16x2E2m1x2,
                  cvt_header("e2m1", "f16", "rne", "format", false), k64,
                  Slots::kPairPacked, 4, 16, 0xFFFF));
  v.push_back(cvt("cvt.f16x2.e2m3x2", "cvt.rn.f16x2.e2m3x2", kCvtF16x2E2m3x2,
                  cvt_header("e2m3", "f16", "rne", "format", false), k64,
                  Slots::kPairPacked, 8, 16, 0xFFFF));
  v.push_back(cvt("cvt.f16x2.e3m2x2", "cvt.rn.f16x2.e3m2x2", kCvtF16x2E3m2x2,
                  cvt_header("e3m2", "f16", "rne", "format", false), k64,
                  Slots::kPairPacked, 8, 16, 0xFFFF));
  for (const auto& [ptx, round, sat, id] :
       {std::tuple{"cvt.rz.ue8m0x2.f32", "rz", false, kCvtUe8m0x2F32Rz},
        {"cvt.rz.satfinite.ue8m0x2.f32", "rz", true, kCvtUe8m0x2F32RzSat},
        {"cvt.rp.ue8m0x2.f32", "ru", false, kCvtUe8m0x2F32Rp},
        {"cvt.rp.satfinite.ue8m0x2.f32", "ru", true, kCvtUe8m0x2F32RpSat}}) {
    v.push_back(cvt(
        std::string("cvt.ue8m0x2.f32.") + (round[1] == 'z' ? "rz" : "rp") +
            (sat ? ".satfinite" : ""),
        ptx, id,
        cvt_header("f32", "e8m0", round, sat ? "satfinite" : "format", false),
        k64, Slots::kPairAB, 0, 8, 0xFF));
  }
  v.push_back(cvt("cvt.ue8m0x2.bf16x2.rz", "cvt.rz.ue8m0x2.bf16x2",
                  kCvtUe8m0x2Bf16x2Rz,
                  cvt_header("bf16", "e8m0", "rz", "format", false), k64,
                  Slots::kPairPacked, 16, 8, 0xFF));
  v.push_back(cvt("cvt.ue8m0x2.bf16x2.rp", "cvt.rp.ue8m0x2.bf16x2",
                  kCvtUe8m0x2Bf16x2Rp,
                  cvt_header("bf16", "e8m0", "ru", "format", false), k64,
                  Slots::kPairPacked, 16, 8, 0xFF));
  v.push_back(cvt("cvt.bf16x2.ue8m0x2", "cvt.rn.bf16x2.ue8m0x2",
                  kCvtBf16x2Ue8m0x2,
                  cvt_header("e8m0", "bf16", "rne", "format", false), k64,
                  Slots::kPairPacked, 8, 16, 0xFFFF));
  // --- sm_100a / sm_103a: stochastic rounding ------------------------------
  for (const auto& [to, id, shift, mask] :
       {std::tuple{"e4m3", kCvtRsE4m3x4, 8, 0xFFu},
        {"e5m2", kCvtRsE5m2x4, 8, 0xFFu},
        {"e2m1", kCvtRsE2m1x4, 4, 0xFu},
        {"e2m3", kCvtRsE2m3x4, 8, 0x3Fu},
        {"e3m2", kCvtRsE3m2x4, 8, 0x3Fu}}) {
    const std::string t = to;
    v.push_back(cvt("cvt.rs." + t + "x4.f32",
                    "cvt.rs.satfinite." + t + "x4.f32", id,
                    cvt_header("f32", to, "rs", "satfinite", false), krs,
                    Slots::kRsX4, 0, shift, mask));
  }
  v.push_back(cvt("cvt.rs.f16x2.f32", "cvt.rs.f16x2.f32", kCvtRsF16x2F32,
                  cvt_header("f32", "f16", "rs-full", "format", false), krs,
                  Slots::kRsX2, 0, 16, 0xFFFF));
  v.push_back(cvt("cvt.rs.bf16x2.f32", "cvt.rs.bf16x2.f32", kCvtRsBf16x2F32,
                  cvt_header("f32", "bf16", "rs-full", "format", false), krs,
                  Slots::kRsX2, 0, 16, 0xFFFF));
  // --- CUDA device intrinsics (every target; software where no cvt) -------
  const unsigned ki = kFeatIntrinsics;
  v.push_back(cvt("nv.float2_to_fp8x2.e4m3.satfinite",
                  "__nv_cvt_float2_to_fp8x2(x, __NV_SATFINITE, __NV_E4M3)",
                  kNvF32x2ToE4m3Sat,
                  cvt_header("f32", "e4m3", "rne", "satfinite", false), ki,
                  Slots::kPairXY, 0, 8, 0xFF));
  v.push_back(cvt("nv.float2_to_fp8x2.e4m3.nosat",
                  "__nv_cvt_float2_to_fp8x2(x, __NV_NOSAT, __NV_E4M3)",
                  kNvF32x2ToE4m3NoSat,
                  cvt_header("f32", "e4m3", "rne", "format", false), ki,
                  Slots::kPairXY, 0, 8, 0xFF));
  v.push_back(cvt("nv.float2_to_fp8x2.e5m2.satfinite",
                  "__nv_cvt_float2_to_fp8x2(x, __NV_SATFINITE, __NV_E5M2)",
                  kNvF32x2ToE5m2Sat,
                  cvt_header("f32", "e5m2", "rne", "satfinite", false), ki,
                  Slots::kPairXY, 0, 8, 0xFF));
  v.push_back(cvt("nv.float2_to_fp8x2.e5m2.nosat",
                  "__nv_cvt_float2_to_fp8x2(x, __NV_NOSAT, __NV_E5M2)",
                  kNvF32x2ToE5m2NoSat,
                  cvt_header("f32", "e5m2", "rne", "format", false), ki,
                  Slots::kPairXY, 0, 8, 0xFF));
  v.push_back(cvt("nv.fp8x2_to_halfraw2.e4m3",
                  "__nv_cvt_fp8x2_to_halfraw2(x, __NV_E4M3)", kNvE4m3x2ToF16x2,
                  cvt_header("e4m3", "f16", "rne", "format", false), ki,
                  Slots::kPairPacked, 8, 16, 0xFFFF));
  v.push_back(cvt("nv.float2_to_fp4x2.e2m1",
                  "__nv_cvt_float2_to_fp4x2(x, __NV_E2M1, cudaRoundNearest)",
                  kNvF32x2ToE2m1,
                  cvt_header("f32", "e2m1", "rne", "satfinite", false), ki,
                  Slots::kPairXY, 0, 4, 0xF));
  v.push_back(cvt("nv.float2_to_fp6x2.e2m3",
                  "__nv_cvt_float2_to_fp6x2(x, __NV_E2M3, cudaRoundNearest)",
                  kNvF32x2ToE2m3,
                  cvt_header("f32", "e2m3", "rne", "satfinite", false), ki,
                  Slots::kPairXY, 0, 8, 0x3F));
  v.push_back(cvt("nv.float2_to_fp6x2.e3m2",
                  "__nv_cvt_float2_to_fp6x2(x, __NV_E3M2, cudaRoundNearest)",
                  kNvF32x2ToE3m2,
                  cvt_header("f32", "e3m2", "rne", "satfinite", false), ki,
                  Slots::kPairXY, 0, 8, 0x3F));
  v.push_back(cvt("nv.float_to_e8m0.rp.satfinite",
                  "__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf)",
                  kNvF32ToE8m0RpSat,
                  cvt_header("f32", "e8m0", "ru", "satfinite", false), ki,
                  Slots::kSingle, 0, 0, 0xFF));
  v.push_back(cvt("nv.float_to_e8m0.rz.satfinite",
                  "__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero)",
                  kNvF32ToE8m0RzSat,
                  cvt_header("f32", "e8m0", "rz", "satfinite", false), ki,
                  Slots::kSingle, 0, 0, 0xFF));
  // --- warp-level MMA -------------------------------------------------------
  const char* f8[] = {"e4m3", "e5m2"};
  for (int i = 0; i < 4; ++i) {
    const char* a = f8[i >> 1];
    const char* b = f8[i & 1];
    const std::string ab = std::string(a) + "." + b;
    v.push_back(mma("mma.m16n8k32.f32." + ab + "@sm89",
                    "mma.sync.aligned.m16n8k32.row.col.f32." + ab + ".f32",
                    kMmaFp8E4E4 + i, "sm89_mma_fp8_f32", a, b, kFeatMmaFp8,
                    {89}, FragShape::kM16N8K32x8, 0));
    v.push_back(mma(
        "mma.m16n8k32.f32." + ab + "@sm90",
        "mma.sync.aligned.m16n8k32.row.col.f32." + ab + ".f32", kMmaFp8E4E4 + i,
        "sm90_mma_fp8_f32", a, b, kFeatMmaFp8, {90}, FragShape::kM16N8K32x8, 0,
        "model fitted to H100/H200 mma.sync captures (docs/models.md)"));
    // The legacy warp-level mma.sync on sm_100 (not tcgen05): the same
    // kernel, the model fitted to B200 captures.
    v.push_back(mma(
        "mma.m16n8k32.f32." + ab + "@sm100",
        "mma.sync.aligned.m16n8k32.row.col.f32." + ab + ".f32", kMmaFp8E4E4 + i,
        "sm100_mma_fp8_f32", a, b, kFeatMmaFp8, {100, 103},
        FragShape::kM16N8K32x8, 0,
        "model fitted to B200 mma.sync captures (docs/models.md)"));
    // The same instructions with an f16 accumulator (PTX ISA 8.7+, sm_89+:
    // kFeatMmaFp8F16), C/D as two .f16x2 registers per lane.
    for (const auto& [cc_tag, model, ccs, note] :
         {std::tuple{"@sm89", "sm89_mma_fp8_f16", std::vector<int>{89},
                     "model per docs/models.md (MMA-Sim; Ada captures agree)"},
          {"@sm90", "sm90_mma_fp8_f16", std::vector<int>{90},
           "model fitted to H100/H200 mma.sync f16 captures (docs/models.md)"},
          {"@sm100", "sm100_mma_fp8_f16", std::vector<int>{100, 103},
           "model fitted to B200 mma.sync f16 captures (docs/models.md)"}}) {
      Family h =
          mma("mma.m16n8k32.f16." + ab + cc_tag,
              "mma.sync.aligned.m16n8k32.row.col.f16." + ab + ".f16",
              kMmaFp8F16E4E4 + i, model, a, b, kFeatMmaFp8F16, ccs,
              FragShape::kM16N8K32x8, 0,
              std::string(note) +
                  "; C/D f16x2 registers per host/fragments.h pack_c_f16x2 "
                  "(unverified on hardware)");
      h.f16_acc = true;
      v.push_back(h);
    }
    v.push_back(
        mma("mma.m16n8k32.kind::f8f6f4.f32." + ab,
            "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32." + ab + ".f32",
            kMmaF8f6f4E4E4 + i, "sm120_mma_f8f6f4_f32", a, b, kFeatMmaSm120,
            {120, 121}, FragShape::kM16N8K32x8, 0));
    v.push_back(
        mma("mma.m16n8k32.kind::mxf8f6f4.1X." + ab,
            "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale."
            "scale_vec::1X.f32." +
                ab + ".f32.ue8m0",
            kMmaMxf8E4E4 + i, "sm120_mma_mxf8f6f4", a, b, kFeatMmaSm120,
            {120, 121}, FragShape::kM16N8K32x8, 1,
            "scale operand lanes per host/fragments.h (selectors 0, 0)"));
  }
  // --- warpgroup MMA (sm_90a) ------------------------------------------------
  for (int i = 0; i < 4; ++i) {
    const char* a = f8[i >> 1];
    const char* b = f8[i & 1];
    const std::string ab = std::string(a) + "." + b;
    for (const bool f16 : {false, true}) {
      const std::string d = f16 ? "f16" : "f32";
      Family w =
          mma("wgmma.m64n8k32." + d + "." + ab,
              "wgmma.mma_async.sync.aligned.m64n8k32." + d + "." + ab +
                  " (smem descriptors, no swizzle)",
              (f16 ? kWgmmaF16E4E4 : kWgmmaF32E4E4) + i,
              f16 ? "sm90_wgmma_fp8_f16" : "sm90_wgmma_fp8_f32", a, b,
              kFeatWgmma, {90}, FragShape::kM16N8K32x8, 0,
              "descriptor LBO/SBO reading and D fragment per host/wgmma.h "
              "(unverified on hardware)");
      w.engine = MmaEngine::kWgmma;
      w.f16_acc = f16;
      v.push_back(w);
    }
  }
  {
    Family w = mma("wgmma.m64n8k8.f32.tf32.tf32",
                   "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32"
                   " (smem descriptors, no swizzle)",
                   kWgmmaF32Tf32, "sm90_wgmma_tf32_f32", "tf32", "tf32",
                   kFeatWgmma, {90}, FragShape::kM16N8K8x32, 0,
                   "tf32 operands as f32 bit patterns; 32-bit K-major smem "
                   "layout per host/wgmma.h (CUTLASS-derived; unverified on "
                   "hardware)");
    w.engine = MmaEngine::kWgmma;
    v.push_back(w);
  }
  // --- 5th-generation tensor core (sm_100a / sm_103a) ------------------------
  for (int i = 0; i < 4; ++i) {
    const char* a = f8[i >> 1];
    const char* b = f8[i & 1];
    const std::string ab = std::string(a) + "." + b;
    Family t =
        mma("tcgen05.mma.kind::f8f6f4.f32." + ab,
            "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 " + ab +
                " -> f32 (smem descriptors, D in TMEM)",
            kTc05F8f6f4E4E4 + i, "sm100_tcgen05_f8f6f4_f32", a, b, kFeatTcgen05,
            {100, 103}, FragShape::kM16N8K32x8, 0,
            "instruction/smem descriptors and TMEM layout per host/tcgen05.h "
            "(unverified on hardware)");
    t.engine = MmaEngine::kTcgen05;
    v.push_back(t);
    Family x = mma("tcgen05.mma.kind::mxf8f6f4.1X." + ab,
                   "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_"
                   "vec::1X M=128 "
                   "N=16 K=32 " +
                       ab + " ue8m0 (scales in TMEM via tcgen05.st)",
                   kTc05Mxf8E4E4 + i, "sm100_tcgen05_mxf8f6f4", a, b,
                   kFeatTcgen05, {100, 103}, FragShape::kM16N8K32x8, 1,
                   "scale lanes per host/tcgen05.h, byte replicated "
                   "(unverified on hardware)");
    x.engine = MmaEngine::kTcgen05;
    v.push_back(x);
  }
  v.push_back(mma(
      "mma.m16n8k64.kind::mxf4.2X.e2m1.e2m1",
      "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X."
      "f32.e2m1.e2m1.f32.ue8m0",
      kMmaMxf4, "sm120_mma_mxf4", "e2m1", "e2m1", kFeatMmaSm120, {120, 121},
      FragShape::kM16N8K64x4, 2,
      "scale byte v = k-block v of the row (assumed; ISA gives it as a "
      "figure)"));
  v.push_back(mma(
      "mma.m16n8k64.kind::mxf4nvf4.2X.e2m1.e2m1",
      "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale."
      "scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0",
      kMmaNvf4x2, "sm120_mma_mxf4", "e2m1", "e2m1", kFeatMmaSm120, {120, 121},
      FragShape::kM16N8K64x4, 2,
      "compared with kind::mxf4's model (same operands, UE8M0 scales per 32 "
      "k: assumed to be the same datapath); scale byte v = k-block v of the "
      "row (assumed; ISA gives it as a figure)"));
  v.push_back(mma("mma.m16n8k64.kind::mxf4nvf4.4X.e2m1.e2m1",
                  "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_"
                  "scale.scale_vec::4X."
                  "f32.e2m1.e2m1.f32.ue4m3",
                  kMmaNvf4, "sm120_mma_mxf4nvf4_4x", "e2m1", "e2m1",
                  kFeatMmaSm120, {120, 121}, FragShape::kM16N8K64x4, 4,
                  "scale byte v = k-block v of the row (assumed; ISA gives it "
                  "as a figure)"));
  // --- FP6/FP4 operands of the f8f6f4 kinds (representative pairs) -------
  struct SubPair {
    const char* a;
    const char* b;
  };
  const SubPair sub[] = {
      {"e2m1", "e2m1"}, {"e2m3", "e2m3"}, {"e3m2", "e3m2"}, {"e4m3", "e2m1"}};
  const char* container_note =
      "one element per 8-bit register container: e2m1 in bits 5..2, e2m3/e3m2 "
      "in "
      "bits 5..0 (host/fragments.h operand_coding; figure reading, unverified "
      "on hardware)";
  for (int i = 0; i < 4; ++i) {
    const std::string ab = std::string(sub[i].a) + "." + sub[i].b;
    v.push_back(mma(
        "mma.m16n8k32.kind::f8f6f4.f32." + ab,
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32." + ab + ".f32",
        kMmaF8f6f4E2m1E2m1 + i, "sm120_mma_f8f6f4_f32", sub[i].a, sub[i].b,
        kFeatMmaSm120, {120, 121}, FragShape::kM16N8K32x8, 0, container_note));
    v.push_back(mma(
        "mma.m16n8k32.kind::mxf8f6f4.1X." + ab,
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale."
        "scale_vec::1X.f32." +
            ab + ".f32.ue8m0",
        kMmaMxf8E2m1E2m1 + i, "sm120_mma_mxf8f6f4", sub[i].a, sub[i].b,
        kFeatMmaSm120, {120, 121}, FragShape::kM16N8K32x8, 1,
        std::string(container_note) + "; scale lanes per host/fragments.h"));
    const char* smem_note =
        "FP6/FP4 in shared memory as 16 k packed in 8 (FP4) or 12 (FP6) bytes "
        "+ padding "
        "per 16-byte chunk (PTX ISA 9.7.16.10.4.4, assumed for both f8f6f4 "
        "kinds), types in "
        "the instruction descriptor (host/tcgen05.h; unverified on hardware)";
    Family t =
        mma("tcgen05.mma.kind::f8f6f4.f32." + ab,
            "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 " + ab +
                " -> f32 (smem descriptors, D in TMEM)",
            kTc05F8f6f4Sub, "sm100_tcgen05_f8f6f4_f32", sub[i].a, sub[i].b,
            kFeatTcgen05, {100, 103}, FragShape::kM16N8K32x8, 0, smem_note);
    t.engine = MmaEngine::kTcgen05;
    v.push_back(t);
    Family x = mma("tcgen05.mma.kind::mxf8f6f4.1X." + ab,
                   "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_"
                   "vec::1X M=128 "
                   "N=16 K=32 " +
                       ab + " ue8m0 (scales in TMEM via tcgen05.st)",
                   kTc05Mxf8Sub, "sm100_tcgen05_mxf8f6f4", sub[i].a, sub[i].b,
                   kFeatTcgen05, {100, 103}, FragShape::kM16N8K32x8, 1,
                   std::string(smem_note) + "; scale lanes per host/tcgen05.h");
    x.engine = MmaEngine::kTcgen05;
    v.push_back(x);
  }
  // --- tcgen05 kind::mxf4 / kind::mxf4nvf4 (K = 64, packed e2m1) ----------
  struct Fp4Kind {
    const char* name;
    const char* ptx;
    int instr;
    const char* model;
    int vec;
  };
  const Fp4Kind fp4[] = {
      {"tcgen05.mma.kind::mxf4.2X.e2m1.e2m1",
       "kind::mxf4.block_scale.scale_vec::2X (ue8m0)", kTc05Mxf4,
       "sm100_tcgen05_mxf4", 2},
      {"tcgen05.mma.kind::mxf4nvf4.2X.e2m1.e2m1",
       "kind::mxf4nvf4.block_scale.scale_vec::2X (ue8m0)", kTc05Nvf4x2,
       "sm100_tcgen05_mxf4nvf4_2x", 2},
      {"tcgen05.mma.kind::mxf4nvf4.4X.e2m1.e2m1",
       "kind::mxf4nvf4.block_scale.scale_vec::4X (ue4m3: NVFP4)", kTc05Nvf4x4,
       "sm100_tcgen05_mxf4nvf4_4x", 4},
      {"tcgen05.mma.kind::mxf4nvf4.4X.ue8m0.e2m1.e2m1",
       "kind::mxf4nvf4.block_scale.scale_vec::4X (ue8m0)", kTc05Nvf4x4,
       "sm100_tcgen05_mxf4nvf4_4x_ue8m0", 4},
  };
  for (const Fp4Kind& k : fp4) {
    Family t = mma(
        k.name,
        std::string("tcgen05.mma.cta_group::1.") + k.ptx +
            " M=128 N=16 K=64 e2m1.e2m1 (packed e2m1 in smem, scales in TMEM)",
        k.instr, k.model, "e2m1", "e2m1", kFeatTcgen05, {100, 103},
        FragShape::kM16N8K64x4, k.vec,
        "two e2m1 per smem byte, low nibble = lower k (PTX ISA 9.7.16.10.4.6); "
        "scale "
        "sub-column k-block v in byte v, replicated over the TMEM word; idesc "
        "per the "
        "mxf4/mxf4nvf4 table (host/tcgen05.h; unverified on hardware)");
    t.engine = MmaEngine::kTcgen05;
    v.push_back(t);
  }
  // --- tcgen05 kind::f8f6f4 with an f16 accumulator ------------------------
  for (int i = 0; i < 4; ++i) {
    const char* a = f8[i >> 1];
    const char* b = f8[i & 1];
    const std::string ab = std::string(a) + "." + b;
    Family t = mma(
        "tcgen05.mma.kind::f8f6f4.f16." + ab,
        "tcgen05.mma.cta_group::1.kind::f8f6f4 M=128 N=16 K=32 " + ab +
            " -> f16 (idesc dtype F16; D in the low half of each TMEM word)",
        kTc05F8f6f4F16, "sm100_tcgen05_f8f6f4_f16", a, b, kFeatTcgen05,
        {100, 103}, FragShape::kM16N8K32x8, 0,
        "f16 D unpacked in TMEM (PTX ISA 9.7.16.10.4.1), upper half ignored "
        "(host/tcgen05.h; unverified on hardware)");
    t.engine = MmaEngine::kTcgen05;
    t.f16_acc = true;
    v.push_back(t);
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
