// Instruction ids and device feature bits shared by the host harness
// (gpu_check/host, plain C++) and the kernels (gpu_check/device, nvcc).
// Kept free of any include so both compilers read the same definitions.
#pragma once

namespace mxc::gpu {

// What the SASS running on the device was compiled with: the probe kernel
// sets these from __CUDA_ARCH__ / __CUDA_ARCH_SPECIFIC__ /
// __CUDA_ARCH_FAMILY_SPECIFIC__, so a family runs only where its
// instructions really exist (an sm_90 pass of an sm_90a kernel reports 0).
enum Feature : unsigned {
  kFeatFp8Cvt = 1u << 0,  // cvt e4m3x2/e5m2x2 (sm_89+)
  kFeatF6F4Cvt =
      1u << 1,  // cvt e2m1x2/e2m3x2/e3m2x2/ue8m0x2 (sm_100a/103a/120a/121a)
  kFeatCvtRs = 1u << 2,   // cvt.rs (sm_100a/sm_103a)
  kFeatMmaFp8 = 1u << 3,  // mma.sync m16n8k32 e4m3/e5m2 (sm_89+)
  kFeatMmaSm120 =
      1u << 4,  // mma.sync kind::f8f6f4 / block_scale (sm_120a/121a)
  kFeatIntrinsics = 1u << 5,  // __nv_cvt_* device intrinsics (always)
  kFeatWgmma = 1u << 6,       // wgmma.mma_async FP8 (sm_90a only)
  kFeatTcgen05 = 1u << 7,     // tcgen05.mma kind::f8f6f4 / mxf8f6f4 / mxf4 /
                              // mxf4nvf4 (sm_100a/103a)
  // mma.sync m16n8k32 .f16.e4m3/.e5m2.f16 (f16 accumulator): sm_89+ and
  // PTX ISA 8.7+ (ptxas 13.0: "mma with FP8 floating point type and FP16
  // accumulation requires PTX ISA .version 8.7"; CUTLASS gates its
  // SM89_16x8x32_F16* atoms on nvcc 12.8, cute/arch/mma_sm89.hpp:46-48).
  kFeatMmaFp8F16 = 1u << 8,
  // mma.sync m16n8k16 .f16/.bf16 and m16n8k8 .tf32 (sm_80+; every target
  // gpu_check builds has them).
  kFeatMmaSm80 = 1u << 9,
};

// Conversion instructions. The device computes one 32-bit result word per
// thread from operands (a, b, rbits) the host prepared; host/families.cpp
// says how cases map onto operands and how results come back out.
enum CvtInstr : int {
  // sm_89+
  kCvtE4m3x2F32 = 0,  // cvt.rn.satfinite.e4m3x2.f32 d, a, b
  kCvtE4m3x2F32Relu,  // cvt.rn.satfinite.relu.e4m3x2.f32
  kCvtE5m2x2F32,
  kCvtE5m2x2F32Relu,
  kCvtE4m3x2F16x2,  // cvt.rn.satfinite.e4m3x2.f16x2 d, a
  kCvtE5m2x2F16x2,
  kCvtF16x2E4m3x2,  // cvt.rn.f16x2.e4m3x2 d, a
  kCvtF16x2E4m3x2Relu,
  kCvtF16x2E5m2x2,
  // sm_100a / sm_103a / sm_120a / sm_121a
  kCvtE2m1x2F32,  // cvt.rn.satfinite.e2m1x2.f32 d(b8), a, b
  kCvtE2m1x2F32Relu,
  kCvtE2m3x2F32,  // cvt.rn.satfinite.e2m3x2.f32 d(b16), a, b
  kCvtE2m3x2F32Relu,
  kCvtE3m2x2F32,
  kCvtE3m2x2F32Relu,
  kCvtF16x2E2m1x2,  // cvt.rn.f16x2.e2m1x2 d, a(b8)
  kCvtF16x2E2m3x2,  // cvt.rn.f16x2.e2m3x2 d, a(b16)
  kCvtF16x2E3m2x2,
  kCvtUe8m0x2F32Rz,     // cvt.rz.ue8m0x2.f32 d, a, b
  kCvtUe8m0x2F32RzSat,  // cvt.rz.satfinite.ue8m0x2.f32
  kCvtUe8m0x2F32Rp,
  kCvtUe8m0x2F32RpSat,
  kCvtUe8m0x2Bf16x2Rz,  // cvt.rz.ue8m0x2.bf16x2 d, a
  kCvtUe8m0x2Bf16x2Rp,
  kCvtBf16x2Ue8m0x2,  // cvt.rn.bf16x2.ue8m0x2 d, a
  // sm_100a / sm_103a: stochastic rounding (the same input in every slot,
  // the same 8 random bits in every byte of rbits: the result does not
  // depend on the unverified slot <-> rbits mapping)
  kCvtRsE4m3x4,  // cvt.rs.satfinite.e4m3x4.f32 d, {a, a, a, a}, rbits
  kCvtRsE5m2x4,
  kCvtRsE2m1x4,  // d .b16
  kCvtRsE2m3x4,
  kCvtRsE3m2x4,
  kCvtRsF16x2F32,  // cvt.rs.f16x2.f32 d, a, a, rbits (13 bits / half)
  kCvtRsBf16x2F32,
  // CUDA device intrinsics (cuda_fp8.h / cuda_fp6.h / cuda_fp4.h)
  kNvF32x2ToE4m3Sat,  // __nv_cvt_float2_to_fp8x2(.., __NV_SATFINITE, __NV_E4M3)
  kNvF32x2ToE4m3NoSat,
  kNvF32x2ToE5m2Sat,
  kNvF32x2ToE5m2NoSat,
  kNvE4m3x2ToF16x2,  // __nv_cvt_fp8x2_to_halfraw2
  kNvF32x2ToE2m1,  // __nv_cvt_float2_to_fp4x2(.., __NV_E2M1, cudaRoundNearest)
  kNvF32x2ToE2m3,  // __nv_cvt_float2_to_fp6x2
  kNvF32x2ToE3m2,
  kNvF32ToE8m0RpSat,  // __nv_cvt_float_to_e8m0(.., __NV_SATFINITE,
                      // cudaRoundPosInf)
  kNvF32ToE8m0RzSat,
  kNumCvtInstr
};

// Warp-level MMA instructions: one warp computes one 16x8 tile from
// fragments the host packed (host/fragments.h).
enum MmaInstr : int {
  kMmaFp8E4E4 = 0,  // mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
  kMmaFp8E4E5,
  kMmaFp8E5E4,
  kMmaFp8E5E5,
  kMmaF8f6f4E4E4,  // mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32
  kMmaF8f6f4E4E5,
  kMmaF8f6f4E5E4,
  kMmaF8f6f4E5E5,
  kMmaMxf8E4E4,  // ...kind::mxf8f6f4.block_scale.scale_vec::1X...ue8m0
  kMmaMxf8E4E5,
  kMmaMxf8E5E4,
  kMmaMxf8E5E5,
  kMmaMxf4,  // m16n8k64 kind::mxf4.block_scale.scale_vec::2X e2m1 ue8m0
  kMmaNvf4,  // m16n8k64 kind::mxf4nvf4.block_scale.scale_vec::4X ue4m3
  // Warpgroup (sm_90a): one wgmma.mma_async.sync.aligned.m64n8k32 per
  // replay tile, operands in shared memory (host/wgmma.h).
  kWgmmaF32E4E4,  // ...m64n8k32.f32.e4m3.e4m3
  kWgmmaF32E4E5,
  kWgmmaF32E5E4,
  kWgmmaF32E5E5,
  kWgmmaF16E4E4,  // ...m64n8k32.f16.e4m3.e4m3
  kWgmmaF16E4E5,
  kWgmmaF16E5E4,
  kWgmmaF16E5E5,
  // 5th-generation tensor core (sm_100a/103a): one tcgen05.mma.cta_group::1
  // M=128 N=16 K=32 per replay tile, D/scales in tensor memory
  // (host/tcgen05.h).
  kTc05F8f6f4E4E4,  // tcgen05.mma.cta_group::1.kind::f8f6f4, D f32
  kTc05F8f6f4E4E5,
  kTc05F8f6f4E5E4,
  kTc05F8f6f4E5E5,
  kTc05Mxf8E4E4,  // ...kind::mxf8f6f4.block_scale.scale_vec::1X, ue8m0
  kTc05Mxf8E4E5,
  kTc05Mxf8E5E4,
  kTc05Mxf8E5E5,
  // sm_120a mma.sync with FP6/FP4 operands, each in an 8-bit register
  // container (host/fragments.h operand_coding).
  kMmaF8f6f4E2m1E2m1,  // ...m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32
  kMmaF8f6f4E2m3E2m3,
  kMmaF8f6f4E3m2E3m2,
  kMmaF8f6f4E4m3E2m1,
  kMmaMxf8E2m1E2m1,  // ...kind::mxf8f6f4.block_scale.scale_vec::1X...e2m1.e2m1...ue8m0
  kMmaMxf8E2m3E2m3,
  kMmaMxf8E3m2E3m2,
  kMmaMxf8E4m3E2m1,
  // tcgen05 (sm_100a/103a) kinds whose operand types live in the
  // instruction descriptor only: one kernel per PTX instruction text.
  kTc05F8f6f4Sub,  // kind::f8f6f4 with FP6/FP4 operands (padded smem, idesc
                   // types)
  kTc05Mxf8Sub,    // kind::mxf8f6f4.block_scale.scale_vec::1X, FP6/FP4 operands
  kTc05Mxf4,       // kind::mxf4.block_scale.scale_vec::2X (e2m1, ue8m0), K = 64
  kTc05Nvf4x2,     // kind::mxf4nvf4.block_scale.scale_vec::2X (ue8m0), K = 64
  kTc05Nvf4x4,  // kind::mxf4nvf4.block_scale.scale_vec::4X (ue4m3 / ue8m0), K =
                // 64
  kTc05F8f6f4F16,  // kind::f8f6f4, D f16 (idesc dtype 0), FP8 operands
  // sm_120a mma.sync m16n8k64 kind::mxf4nvf4.block_scale.scale_vec::2X
  // e2m1 ue8m0 (the NVFP4 kind with MX scales)
  kMmaNvf4x2,
  // sm_89+ (PTX ISA 8.7): mma.sync FP8 with an f16 accumulator, C/D two
  // .f16x2 registers per lane (host/fragments.h pack_c_f16x2).
  kMmaFp8F16E4E4,  // mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16
  kMmaFp8F16E4E5,
  kMmaFp8F16E5E4,
  kMmaFp8F16E5E5,
  // sm_90a wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32: one per
  // 16x8x8 replay tile (host/wgmma.h wgmma_images_tf32).
  kWgmmaF32Tf32,
  // sm_80+ mma.sync (the legacy f16/bf16/tf32 instructions, run by every
  // later generation too): one warp per 16x8 tile, host/fragments.h
  // kM16N8K16x16 / kM16N8K8x32Sync.
  kMmaF16F32,   // mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
  kMmaBf16F32,  // mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
  kMmaF16F16,   // mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
  kMmaTf32F32,  // mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
  kNumMmaInstr
};

}  // namespace mxc::gpu
