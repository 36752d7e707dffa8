// The gpu_check kernels. Each instruction is inline PTX behind the feature
// macro of the targets that have it, so ptxas checks every instruction for
// exactly the architectures it belongs to; elsewhere the kernel body is
// empty and the probe kernel tells the host the family is absent.
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "gpu_check/device/kernels.h"
#include "gpu_check/host/instr.h"

#if defined(__CUDA_ARCH_SPECIFIC__)
#define MXC_SPEC __CUDA_ARCH_SPECIFIC__
#elif defined(__CUDA_ARCH_FAMILY_SPECIFIC__)
#define MXC_SPEC __CUDA_ARCH_FAMILY_SPECIFIC__
#else
#define MXC_SPEC 0
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define MXC_HAS_MMA80 1
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define MXC_HAS_FP8 1
#endif
// mma.sync FP8 with an f16 accumulator: sm_89+ and PTX ISA 8.7 (CUDA 12.8),
// the gate CUTLASS uses (cute/arch/mma_sm89.hpp:46-48) and ptxas enforces.
#if defined(MXC_HAS_FP8) &&       \
    (__CUDACC_VER_MAJOR__ > 12 || \
     (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
#define MXC_HAS_FP8_F16ACC 1
#endif
#if MXC_SPEC == 1000 || MXC_SPEC == 1030 || MXC_SPEC == 1200 || MXC_SPEC == 1210
#define MXC_HAS_F6F4 1
#endif
#if MXC_SPEC == 1000 || MXC_SPEC == 1030
#define MXC_HAS_RS 1
#endif
#if MXC_SPEC == 1200 || MXC_SPEC == 1210
#define MXC_HAS_MMA120 1
#endif
#if MXC_SPEC == 900
#define MXC_HAS_WGMMA 1
#endif
#if MXC_SPEC == 1000 || MXC_SPEC == 1030
#define MXC_HAS_TCGEN05 1
#endif

namespace mxc::gpu::dev {
namespace {

// TMEM columns of the scale factors (host/tcgen05.h kTc05SfaCol / SfbCol).
#define MXC_TC05_SFA_COL 32u
#define MXC_TC05_SFB_COL 48u

__global__ void probe_kernel(unsigned* out) {
  unsigned f = kFeatIntrinsics;
#ifdef MXC_HAS_MMA80
  f |= kFeatMmaSm80;
#endif
#ifdef MXC_HAS_FP8
  f |= kFeatFp8Cvt | kFeatMmaFp8;
#endif
#ifdef MXC_HAS_FP8_F16ACC
  f |= kFeatMmaFp8F16;
#endif
#ifdef MXC_HAS_F6F4
  f |= kFeatF6F4Cvt;
#endif
#ifdef MXC_HAS_RS
  f |= kFeatCvtRs;
#endif
#ifdef MXC_HAS_MMA120
  f |= kFeatMmaSm120;
#endif
#ifdef MXC_HAS_WGMMA
  f |= kFeatWgmma;
#endif
#ifdef MXC_HAS_TCGEN05
  f |= kFeatTcgen05;
#endif
  *out = f;
}

__device__ __forceinline__ float f(uint32_t x) { return __uint_as_float(x); }

// Two f32 operands -> .b16 d.
#define CVT2_F32_H(ins)                                       \
  {                                                           \
    unsigned short h;                                         \
    asm(ins " %0, %1, %2;" : "=h"(h) : "f"(f(a)), "f"(f(b))); \
    return h;                                                 \
  }
// Two f32 operands -> .b8 d.
#define CVT2_F32_B8(ins)                                       \
  {                                                            \
    uint32_t r;                                                \
    asm("{ .reg .b8 t; " ins " t, %1, %2; cvt.u32.u8 %0, t; }" \
        : "=r"(r)                                              \
        : "f"(f(a)), "f"(f(b)));                               \
    return r;                                                  \
  }
// .b16 source -> .b32 d (f16x2 / bf16x2).
#define CVT1_H_R(ins)                                       \
  {                                                         \
    uint32_t r;                                             \
    asm(ins " %0, %1;" : "=r"(r) : "h"((unsigned short)a)); \
    return r;                                               \
  }
// .b32 source -> .b16 d.
#define CVT1_R_H(ins)                       \
  {                                         \
    unsigned short h;                       \
    asm(ins " %0, %1;" : "=h"(h) : "r"(a)); \
    return h;                               \
  }

// .b32 source, low byte as .b8 -> .b32 d (f16x2 from e2m1x2).
#define CVT1_B8_R(ins)                                     \
  {                                                        \
    uint32_t r;                                            \
    asm("{ .reg .b8 t; cvt.u8.u32 t, %1; " ins " %0, t; }" \
        : "=r"(r)                                          \
        : "r"(a));                                         \
    return r;                                              \
  }

// The cvt instructions with one of the operand shapes above, one row each:
// X(instruction id, shape macro, PTX text), in switch order.
#define MXC_CVT_FP8_ROWS(X)                                            \
  X(kCvtE4m3x2F32, CVT2_F32_H, "cvt.rn.satfinite.e4m3x2.f32")          \
  X(kCvtE4m3x2F32Relu, CVT2_F32_H, "cvt.rn.satfinite.relu.e4m3x2.f32") \
  X(kCvtE5m2x2F32, CVT2_F32_H, "cvt.rn.satfinite.e5m2x2.f32")          \
  X(kCvtE5m2x2F32Relu, CVT2_F32_H, "cvt.rn.satfinite.relu.e5m2x2.f32") \
  X(kCvtE4m3x2F16x2, CVT1_R_H, "cvt.rn.satfinite.e4m3x2.f16x2")        \
  X(kCvtE5m2x2F16x2, CVT1_R_H, "cvt.rn.satfinite.e5m2x2.f16x2")        \
  X(kCvtF16x2E4m3x2, CVT1_H_R, "cvt.rn.f16x2.e4m3x2")                  \
  X(kCvtF16x2E4m3x2Relu, CVT1_H_R, "cvt.rn.relu.f16x2.e4m3x2")         \
  X(kCvtF16x2E5m2x2, CVT1_H_R, "cvt.rn.f16x2.e5m2x2")
#define MXC_CVT_F6F4_ROWS(X)                                            \
  X(kCvtE2m1x2F32, CVT2_F32_B8, "cvt.rn.satfinite.e2m1x2.f32")          \
  X(kCvtE2m1x2F32Relu, CVT2_F32_B8, "cvt.rn.satfinite.relu.e2m1x2.f32") \
  X(kCvtE2m3x2F32, CVT2_F32_H, "cvt.rn.satfinite.e2m3x2.f32")           \
  X(kCvtE2m3x2F32Relu, CVT2_F32_H, "cvt.rn.satfinite.relu.e2m3x2.f32")  \
  X(kCvtE3m2x2F32, CVT2_F32_H, "cvt.rn.satfinite.e3m2x2.f32")           \
  X(kCvtE3m2x2F32Relu, CVT2_F32_H, "cvt.rn.satfinite.relu.e3m2x2.f32")  \
  X(kCvtF16x2E2m1x2, CVT1_B8_R, "cvt.rn.f16x2.e2m1x2")                  \
  X(kCvtF16x2E2m3x2, CVT1_H_R, "cvt.rn.f16x2.e2m3x2")                   \
  X(kCvtF16x2E3m2x2, CVT1_H_R, "cvt.rn.f16x2.e3m2x2")                   \
  X(kCvtUe8m0x2F32Rz, CVT2_F32_H, "cvt.rz.ue8m0x2.f32")                 \
  X(kCvtUe8m0x2F32RzSat, CVT2_F32_H, "cvt.rz.satfinite.ue8m0x2.f32")    \
  X(kCvtUe8m0x2F32Rp, CVT2_F32_H, "cvt.rp.ue8m0x2.f32")                 \
  X(kCvtUe8m0x2F32RpSat, CVT2_F32_H, "cvt.rp.satfinite.ue8m0x2.f32")    \
  X(kCvtUe8m0x2Bf16x2Rz, CVT1_R_H, "cvt.rz.ue8m0x2.bf16x2")             \
  X(kCvtUe8m0x2Bf16x2Rp, CVT1_R_H, "cvt.rp.ue8m0x2.bf16x2")             \
  X(kCvtBf16x2Ue8m0x2, CVT1_H_R, "cvt.rn.bf16x2.ue8m0x2")
#define MXC_CVT_CASE(id, shape, ins) \
  case id:                           \
    shape(ins)

__device__ uint32_t convert_one(int instr, uint32_t a, uint32_t b,
                                uint32_t rb) {
  (void)a;
  (void)b;
  (void)rb;
  switch (instr) {
#ifdef MXC_HAS_FP8
    MXC_CVT_FP8_ROWS(MXC_CVT_CASE)
#endif
#ifdef MXC_HAS_F6F4
    MXC_CVT_F6F4_ROWS(MXC_CVT_CASE)
#endif
#ifdef MXC_HAS_RS
    case kCvtRsE4m3x4:
    case kCvtRsE5m2x4:
    case kCvtRsE2m3x4:
    case kCvtRsE3m2x4: {
      uint32_t r;
      const float x = f(a);
      if (instr == kCvtRsE4m3x4)
        asm("cvt.rs.satfinite.e4m3x4.f32 %0, {%1, %1, %1, %1}, %2;"
            : "=r"(r)
            : "f"(x), "r"(rb));
      else if (instr == kCvtRsE5m2x4)
        asm("cvt.rs.satfinite.e5m2x4.f32 %0, {%1, %1, %1, %1}, %2;"
            : "=r"(r)
            : "f"(x), "r"(rb));
      else if (instr == kCvtRsE2m3x4)
        asm("cvt.rs.satfinite.e2m3x4.f32 %0, {%1, %1, %1, %1}, %2;"
            : "=r"(r)
            : "f"(x), "r"(rb));
      else
        asm("cvt.rs.satfinite.e3m2x4.f32 %0, {%1, %1, %1, %1}, %2;"
            : "=r"(r)
            : "f"(x), "r"(rb));
      return r;
    }
    case kCvtRsE2m1x4: {
      unsigned short h;
      asm("cvt.rs.satfinite.e2m1x4.f32 %0, {%1, %1, %1, %1}, %2;"
          : "=h"(h)
          : "f"(f(a)), "r"(rb));
      return h;
    }
    case kCvtRsF16x2F32: {
      uint32_t r;
      asm("cvt.rs.f16x2.f32 %0, %1, %1, %2;" : "=r"(r) : "f"(f(a)), "r"(rb));
      return r;
    }
    case kCvtRsBf16x2F32: {
      uint32_t r;
      asm("cvt.rs.bf16x2.f32 %0, %1, %1, %2;" : "=r"(r) : "f"(f(a)), "r"(rb));
      return r;
    }
#endif
    case kNvF32x2ToE4m3Sat:
      return __nv_cvt_float2_to_fp8x2(make_float2(f(a), f(b)), __NV_SATFINITE,
                                      __NV_E4M3);
    case kNvF32x2ToE4m3NoSat:
      return __nv_cvt_float2_to_fp8x2(make_float2(f(a), f(b)), __NV_NOSAT,
                                      __NV_E4M3);
    case kNvF32x2ToE5m2Sat:
      return __nv_cvt_float2_to_fp8x2(make_float2(f(a), f(b)), __NV_SATFINITE,
                                      __NV_E5M2);
    case kNvF32x2ToE5m2NoSat:
      return __nv_cvt_float2_to_fp8x2(make_float2(f(a), f(b)), __NV_NOSAT,
                                      __NV_E5M2);
    case kNvE4m3x2ToF16x2: {
      const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(
          static_cast<__nv_fp8x2_storage_t>(a), __NV_E4M3);
      return uint32_t{h.x} | (uint32_t{h.y} << 16);
    }
    case kNvF32x2ToE2m1:
      return __nv_cvt_float2_to_fp4x2(make_float2(f(a), f(b)), __NV_E2M1,
                                      cudaRoundNearest);
    case kNvF32x2ToE2m3:
      return __nv_cvt_float2_to_fp6x2(make_float2(f(a), f(b)), __NV_E2M3,
                                      cudaRoundNearest);
    case kNvF32x2ToE3m2:
      return __nv_cvt_float2_to_fp6x2(make_float2(f(a), f(b)), __NV_E3M2,
                                      cudaRoundNearest);
    case kNvF32ToE8m0RpSat:
      return __nv_cvt_float_to_e8m0(f(a), __NV_SATFINITE, cudaRoundPosInf);
    case kNvF32ToE8m0RzSat:
      return __nv_cvt_float_to_e8m0(f(a), __NV_SATFINITE, cudaRoundZero);
    default:
      break;
  }
  return 0xDEADBEEFu;  // instruction not compiled for this target
}

__global__ void convert_kernel(int instr, const uint32_t* in0,
                               const uint32_t* in1, const uint32_t* rbits,
                               uint32_t* out, size_t n) {
  for (size_t j = blockIdx.x * size_t{blockDim.x} + threadIdx.x; j < n;
       j += size_t{gridDim.x} * blockDim.x) {
    out[j] = convert_one(instr, in0[j], in1[j], rbits[j]);
  }
}

// The warp-level mma.sync instructions, one row each: X(instruction id,
// PTX text). Rows of one list share the operand registers of their
// kernel; each list is compiled only for the targets whose feature macro
// it sits behind (mma_kernel / mma_f16acc_kernel). A new instruction with
// the same registers is one row.
//
// A 4 x .b32, B 2 x .b32, C/D 4 x .f32 per lane (host/fragments.h).
// sm_80+: two .f16/.bf16 or one .tf32 per A/B register.
#define MXC_MMA_SM80_ROWS(X)                                            \
  X(kMmaF16F32, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")    \
  X(kMmaBf16F32, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") \
  X(kMmaTf32F32, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32")
#define MXC_MMA_FP8_ROWS(X)                                             \
  X(kMmaFp8E4E4, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32") \
  X(kMmaFp8E4E5, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32") \
  X(kMmaFp8E5E4, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32") \
  X(kMmaFp8E5E5, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32")
// sm_120a kind::f8f6f4 (FP6/FP4 operands: one element per 8-bit container,
// host/fragments.h operand_coding).
#define MXC_MMA_KIND_ROWS(X)                                            \
  X(kMmaF8f6f4E4E4,                                                     \
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32") \
  X(kMmaF8f6f4E4E5,                                                     \
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e5m2.f32") \
  X(kMmaF8f6f4E5E4,                                                     \
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e4m3.f32") \
  X(kMmaF8f6f4E5E5,                                                     \
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e5m2.f32")
// The FP6/FP4 operand pairs of kind::f8f6f4.
#define MXC_MMA_KIND_SUB_ROWS(X)                                        \
  X(kMmaF8f6f4E2m1E2m1,                                                 \
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32") \
  X(kMmaF8f6f4E2m3E2m3,                                                 \
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m3.f32") \
  X(kMmaF8f6f4E3m2E3m2,                                                 \
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32") \
  X(kMmaF8f6f4E4m3E2m1,                                                 \
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32")
// sm_120a block-scaled kinds: as above plus one scale register each for A
// and B, selectors {byte-id, thread-id} = {0, 0} (host/fragments.h).
#define MXC_MMA_SCALED_ROWS(X)                                     \
  X(kMmaMxf8E4E4,                                                  \
    "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale" \
    ".scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0")                      \
  X(kMmaMxf8E4E5,                                                  \
    "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale" \
    ".scale_vec::1X.f32.e4m3.e5m2.f32.ue8m0")                      \
  X(kMmaMxf8E5E4,                                                  \
    "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale" \
    ".scale_vec::1X.f32.e5m2.e4m3.f32.ue8m0")                      \
  X(kMmaMxf8E5E5,                                                  \
    "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale" \
    ".scale_vec::1X.f32.e5m2.e5m2.f32.ue8m0")                      \
  X(kMmaMxf4,                                                      \
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale"     \
    ".scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0")                      \
  X(kMmaNvf4x2,                                                    \
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale" \
    ".scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0")                      \
  X(kMmaNvf4,                                                      \
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale" \
    ".scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3")
// The FP6/FP4 operand pairs of kind::mxf8f6f4.
#define MXC_MMA_SCALED_SUB_ROWS(X)                                 \
  X(kMmaMxf8E2m1E2m1,                                              \
    "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale" \
    ".scale_vec::1X.f32.e2m1.e2m1.f32.ue8m0")                      \
  X(kMmaMxf8E2m3E2m3,                                              \
    "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale" \
    ".scale_vec::1X.f32.e2m3.e2m3.f32.ue8m0")                      \
  X(kMmaMxf8E3m2E3m2,                                              \
    "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale" \
    ".scale_vec::1X.f32.e3m2.e3m2.f32.ue8m0")                      \
  X(kMmaMxf8E4m3E2m1,                                              \
    "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale" \
    ".scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0")
// f16 accumulator: A 4 x .b32, B 2 x .b32, C/D 2 x .f16x2 per lane
// (host/fragments.h pack_c_f16x2); FP8 needs PTX ISA 8.7 (MXC_HAS_FP8_F16ACC).
#define MXC_MMA_SM80_F16_ROWS(X) \
  X(kMmaF16F16, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16")
#define MXC_MMA_FP8_F16_ROWS(X)                                            \
  X(kMmaFp8F16E4E4, "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16") \
  X(kMmaFp8F16E4E5, "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16") \
  X(kMmaFp8F16E5E4, "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16") \
  X(kMmaFp8F16E5E5, "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16")

#define MXC_MMA_CASE_F32(id, ins)                                             \
  case id:                                                                    \
    asm volatile(ins                                                          \
                 " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])             \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),     \
                   "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));    \
    break;
#define MXC_MMA_CASE_SCALED(id, ins)                                           \
  case id:                                                                     \
    asm volatile(ins                                                           \
                 " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, " \
                 "{%14}, {%15, %16}, {%17}, {%15, %16};"                       \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])              \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),      \
                   "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]),      \
                   "r"(sa), "h"(zero), "h"(zero), "r"(sb));                    \
    break;
#define MXC_MMA_CASE_F16(id, ins)                                         \
  case id:                                                                \
    asm volatile(ins " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"         \
                 : "=r"(d[0]), "=r"(d[1])                                 \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), \
                   "r"(b[1]), "r"(c[0]), "r"(c[1]));                      \
    break;

__global__ void mma_kernel(int instr, const uint32_t* ga, const uint32_t* gb,
                           const uint32_t* gc, const uint32_t* gsa,
                           const uint32_t* gsb, uint32_t* gd, size_t tiles) {
  const size_t t = blockIdx.x * size_t{blockDim.x / 32} + threadIdx.x / 32;
  if (t >= tiles) return;  // whole warps only: blockDim is a multiple of 32
  const unsigned lane = threadIdx.x % 32;
  uint32_t a[4], b[2];
  float c[4], d[4] = {0, 0, 0, 0};
  for (int r = 0; r < 4; ++r) a[r] = ga[(t * 32 + lane) * 4 + r];
  for (int r = 0; r < 2; ++r) b[r] = gb[(t * 32 + lane) * 2 + r];
  for (int r = 0; r < 4; ++r)
    c[r] = __uint_as_float(gc[(t * 32 + lane) * 4 + r]);
  const uint32_t sa = gsa ? gsa[t * 32 + lane] : 0u;
  const uint32_t sb = gsb ? gsb[t * 32 + lane] : 0u;
  const unsigned short zero = 0;
  (void)sa;
  (void)sb;
  (void)zero;
  switch (instr) {
#ifdef MXC_HAS_MMA80
    MXC_MMA_SM80_ROWS(MXC_MMA_CASE_F32)
#endif
#ifdef MXC_HAS_FP8
    MXC_MMA_FP8_ROWS(MXC_MMA_CASE_F32)
#endif
#ifdef MXC_HAS_MMA120
    MXC_MMA_KIND_ROWS(MXC_MMA_CASE_F32)
    MXC_MMA_SCALED_ROWS(MXC_MMA_CASE_SCALED)
    MXC_MMA_KIND_SUB_ROWS(MXC_MMA_CASE_F32)
    MXC_MMA_SCALED_SUB_ROWS(MXC_MMA_CASE_SCALED)
#endif
    default:
      d[0] = d[1] = d[2] = d[3] = __uint_as_float(0xDEADBEEFu);
  }
  for (int r = 0; r < 4; ++r)
    gd[(t * 32 + lane) * 4 + r] = __float_as_uint(d[r]);
}

// mma.sync with an f16 accumulator: C/D are two .f16x2 registers per
// lane (host/fragments.h pack_c_f16x2); one warp per tile.
__global__ void mma_f16acc_kernel(int instr, const uint32_t* ga,
                                  const uint32_t* gb, const uint32_t* gc,
                                  uint32_t* gd, size_t tiles) {
  const size_t t = blockIdx.x * size_t{blockDim.x / 32} + threadIdx.x / 32;
  if (t >= tiles) return;  // whole warps only: blockDim is a multiple of 32
  const unsigned lane = threadIdx.x % 32;
  uint32_t a[4], b[2], c[2], d[2] = {0, 0};
  for (int r = 0; r < 4; ++r) a[r] = ga[(t * 32 + lane) * 4 + r];
  for (int r = 0; r < 2; ++r) b[r] = gb[(t * 32 + lane) * 2 + r];
  for (int r = 0; r < 2; ++r) c[r] = gc[(t * 32 + lane) * 2 + r];
  switch (instr) {
#ifdef MXC_HAS_MMA80
    MXC_MMA_SM80_F16_ROWS(MXC_MMA_CASE_F16)
#endif
#ifdef MXC_HAS_FP8_F16ACC
    MXC_MMA_FP8_F16_ROWS(MXC_MMA_CASE_F16)
#endif
    default:
      d[0] = d[1] = 0xDEADBEEFu;
  }
  for (int r = 0; r < 2; ++r) gd[(t * 32 + lane) * 2 + r] = d[r];
}

// One warpgroup (128 threads) per replay tile: A (64 x 32 bytes) and B
// (8 x 32 bytes) copied into shared memory in the K-major no-swizzle layout
// the host built (host/wgmma.h), D registers preloaded with C (scale-d = 1).
#define WGMMA_F32(ta, tb)                                    \
  asm volatile(                                              \
      "{ .reg .pred p; setp.ne.b32 p, %6, 0; "               \
      "wgmma.mma_async.sync.aligned.m64n8k32.f32." ta "." tb \
      " {%0, %1, %2, %3}, %4, %5, p, 1, 1; }"                \
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])       \
      : "l"(da), "l"(db), "r"(1)                             \
      : "memory")
#define WGMMA_F16(ta, tb)                                    \
  asm volatile(                                              \
      "{ .reg .pred p; setp.ne.b32 p, %4, 0; "               \
      "wgmma.mma_async.sync.aligned.m64n8k32.f16." ta "." tb \
      " {%0, %1}, %2, %3, p, 1, 1; }"                        \
      : "+r"(d[0]), "+r"(d[1])                               \
      : "l"(da), "l"(db), "r"(1)                             \
      : "memory")

// TF32 (CUTLASS v4.7.0-6 cute/arch/mma_sm90_gmma.hpp:3436-3442, SM90
// MMA_64x8x8_F32TF32TF32_SS_TN): scale-d, imm-scale-a, imm-scale-b, no
// transpose operands (tf32 is K-major only). A is 64 x 8 tf32 = 64 x 32
// bytes, so the FP8 smem images, LBO and SBO serve unchanged.
#define WGMMA_TF32()                                       \
  asm volatile(                                            \
      "{ .reg .pred p; setp.ne.b32 p, %6, 0; "             \
      "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32" \
      " {%0, %1, %2, %3}, %4, %5, p, 1, 1; }"              \
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])     \
      : "l"(da), "l"(db), "r"(1)                           \
      : "memory")

// Templated on the instruction so the fence / wgmma / commit / wait
// sequence is straight-line code (a switch between wgmma.fence and the
// wgmma makes ptxas inject warpgroup.arrive/wait, info C7519/C7517).
template <int Instr>
__global__ void __launch_bounds__(128)
    wgmma_kernel(const uint32_t* ga, const uint32_t* gb, const uint32_t* gc,
                 uint32_t* gd, int c_regs, uint32_t lbo, uint32_t sbo) {
  const size_t t = blockIdx.x;
  const unsigned th = threadIdx.x;
  // The accumulator count is a constant so D stays in fixed registers.
  constexpr int kRegs =
      Instr >= kWgmmaF16E4E4 && Instr <= kWgmmaF16E5E5 ? 2 : 4;
  (void)c_regs;
  uint32_t d[4] = {0, 0, 0, 0};
#pragma unroll
  for (int r = 0; r < kRegs; ++r) d[r] = gc[(t * 128 + th) * kRegs + r];
  (void)lbo;
  (void)sbo;
  (void)ga;
  (void)gb;
#ifdef MXC_HAS_WGMMA
  __shared__ __align__(1024) uint32_t sa[512];
  __shared__ __align__(1024) uint32_t sb[64];
  for (unsigned i = th; i < 512; i += 128) sa[i] = ga[t * 512 + i];
  if (th < 64) sb[th] = gb[t * 64 + th];
  // Generic-proxy stores to shared memory become visible to the async
  // proxy (wgmma reads through it) only after fence.proxy.async.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  // Matrix descriptors: start >> 4 (bits 0-13), LBO >> 4 (16-29),
  // SBO >> 4 (32-45), base offset 0, swizzle 0 (no swizzle).
  const uint64_t fields = ((uint64_t{lbo} >> 4) & 0x3FFF) << 16 |
                          ((uint64_t{sbo} >> 4) & 0x3FFF) << 32;
  const uint64_t da =
      ((static_cast<uint64_t>(__cvta_generic_to_shared(sa)) >> 4) & 0x3FFF) |
      fields;
  const uint64_t db =
      ((static_cast<uint64_t>(__cvta_generic_to_shared(sb)) >> 4) & 0x3FFF) |
      fields;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  if constexpr (Instr == kWgmmaF32E4E4) WGMMA_F32("e4m3", "e4m3");
  if constexpr (Instr == kWgmmaF32E4E5) WGMMA_F32("e4m3", "e5m2");
  if constexpr (Instr == kWgmmaF32E5E4) WGMMA_F32("e5m2", "e4m3");
  if constexpr (Instr == kWgmmaF32E5E5) WGMMA_F32("e5m2", "e5m2");
  if constexpr (Instr == kWgmmaF16E4E4) WGMMA_F16("e4m3", "e4m3");
  if constexpr (Instr == kWgmmaF16E4E5) WGMMA_F16("e4m3", "e5m2");
  if constexpr (Instr == kWgmmaF16E5E4) WGMMA_F16("e5m2", "e4m3");
  if constexpr (Instr == kWgmmaF16E5E5) WGMMA_F16("e5m2", "e5m2");
  if constexpr (Instr == kWgmmaF32Tf32) WGMMA_TF32();
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#else
  d[0] = d[1] = d[2] = d[3] = 0xDEADBEEFu;
#endif
#pragma unroll
  for (int r = 0; r < kRegs; ++r) gd[(t * 128 + th) * kRegs + r] = d[r];
}

// One CTA of 128 threads per replay tile (host/tcgen05.h): A (128 x 32
// bytes) and B (16 x 32 bytes) in shared memory (K-major, no swizzle; FP8
// bytes, padded FP6/FP4 or packed e2m1 as the host laid them out), 64 TMEM
// columns allocated by warp 0: D (f32, or f16 in the low half of each
// word; 16 columns) at column 0, preloaded with C; SFA (block-scaled
// kinds) at columns 32..35 (row m: lane m % 32 of each quadrant, column
// 32 + m / 32), SFB at column 48 (column n: lane n of each quadrant). Thread 0
// issues the MMA; tcgen05.commit arrives on an mbarrier all threads wait on;
// each warp then reads its 32 lanes of D. Operand, D and scale types are in the
// instruction descriptor.

// The tcgen05.mma instruction text of an instruction id.
enum Tc05Asm { kAsmF8f6f4, kAsmMxf8f6f4, kAsmMxf4, kAsmNvf4x2, kAsmNvf4x4 };
template <int I>
constexpr Tc05Asm kTc05AsmOf =
    (I >= kTc05Mxf8E4E4 && I <= kTc05Mxf8E5E5) || I == kTc05Mxf8Sub
        ? kAsmMxf8f6f4
    : I == kTc05Mxf4   ? kAsmMxf4
    : I == kTc05Nvf4x2 ? kAsmNvf4x2
    : I == kTc05Nvf4x4 ? kAsmNvf4x4
                       : kAsmF8f6f4;

#define TC05_SCALED(kind, vec)                                              \
  asm volatile(                                                             \
      "{ .reg .pred p; setp.ne.b32 p, %4, 0; "                              \
      "tcgen05.mma.cta_group::1.kind::" kind ".block_scale.scale_vec::" vec \
      " [%0], %1, %2, %3, [%5], [%6], p; }" ::"r"(tmem),                    \
      "l"(da), "l"(db), "r"(idesc), "r"(1), "r"(tmem + MXC_TC05_SFA_COL),   \
      "r"(tmem + MXC_TC05_SFB_COL)                                          \
      : "memory")
#define TC05_X16_REGS(p)                                                 \
  "{%" #p "0, %" #p "1, %" #p "2, %" #p "3, %" #p "4, %" #p "5, %" #p    \
  "6, %" #p                                                              \
  "7, "                                                                  \
  "%" #p "8, %" #p "9, %" #p "10, %" #p "11, %" #p "12, %" #p "13, %" #p \
  "14, %" #p "15}"

template <int Instr>
__global__ void __launch_bounds__(128)
    tcgen05_kernel(const uint32_t* ga, const uint32_t* gb, const uint32_t* gc,
                   const uint32_t* gsfa, const uint32_t* gsfb, uint32_t* gd,
                   uint32_t idesc, uint32_t lbo, uint32_t sbo) {
  const size_t t = blockIdx.x;
  const unsigned th = threadIdx.x;
  constexpr Tc05Asm kAsm = kTc05AsmOf<Instr>;
  (void)kAsm;
  uint32_t d[16];
#pragma unroll
  for (int j = 0; j < 16; ++j) d[j] = gc[(t * 128 + th) * 16 + j];
  (void)ga;
  (void)gb;
  (void)gsfa;
  (void)gsfb;
  (void)idesc;
  (void)lbo;
  (void)sbo;
#ifdef MXC_HAS_TCGEN05
  __shared__ __align__(1024) uint32_t sa[1024];
  __shared__ __align__(1024) uint32_t sb[128];
  __shared__ __align__(8) uint64_t mbar;
  __shared__ uint32_t taddr_slot;
  for (unsigned i = th; i < 1024; i += 128) sa[i] = ga[t * 1024 + i];
  sb[th] = gb[t * 128 + th];
  const unsigned warp = th / 32;
  const uint32_t slot =
      static_cast<uint32_t>(__cvta_generic_to_shared(&taddr_slot));
  const uint32_t bar = static_cast<uint32_t>(__cvta_generic_to_shared(&mbar));
  if (warp == 0) {
    asm volatile(
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;" ::
            "r"(slot)
        : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::
                     : "memory");
  }
  if (th == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar)
                 : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = taddr_slot;
  const uint32_t lane_base = tmem + ((32u * warp) << 16);
  // C into D (this warp's 32 lanes, 16 columns).
  asm volatile(
      "tcgen05.st.sync.aligned.32x32b.x16.b32 [%16], " TC05_X16_REGS() ";" ::
          "r"(d[0]),
      "r"(d[1]), "r"(d[2]), "r"(d[3]), "r"(d[4]), "r"(d[5]), "r"(d[6]),
      "r"(d[7]), "r"(d[8]), "r"(d[9]), "r"(d[10]), "r"(d[11]), "r"(d[12]),
      "r"(d[13]), "r"(d[14]), "r"(d[15]), "r"(lane_base)
      : "memory");
  constexpr bool kScaled = kAsm != kAsmF8f6f4;
  if constexpr (kScaled) {
    // SFA (host/tcgen05.h, CUTLASS tmem_sf_frg): row m in lane m % 32 of
    // every lane quadrant, column SFA_COL + m / 32 -- four columns for
    // M = 128. Each warp writes the same four words per lane into its own
    // quadrant (the duplication PTX 9.7.16.10.7 asks for).
    const uint32_t* fa = gsfa + (t * 128 + th) * 4;
    asm volatile(
        "tcgen05.st.sync.aligned.32x32b.x4.b32 [%0], {%1, %2, %3, %4};" ::"r"(
            lane_base + MXC_TC05_SFA_COL),
        "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3])
        : "memory");
    const uint32_t fb = gsfb[t * 128 + th];
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(
                     lane_base + MXC_TC05_SFB_COL),
                 "r"(fb)
                 : "memory");
  }
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (th == 0) {
    // Descriptors: start >> 4, LBO >> 4 << 16, SBO >> 4 << 32, 0b001 << 46.
    const uint64_t fields = ((uint64_t{lbo} >> 4) & 0x3FFF) << 16 |
                            ((uint64_t{sbo} >> 4) & 0x3FFF) << 32 |
                            uint64_t{1} << 46;
    const uint64_t da =
        ((static_cast<uint64_t>(__cvta_generic_to_shared(sa)) >> 4) & 0x3FFF) |
        fields;
    const uint64_t db =
        ((static_cast<uint64_t>(__cvta_generic_to_shared(sb)) >> 4) & 0x3FFF) |
        fields;
    if constexpr (kAsm == kAsmMxf8f6f4) {
      TC05_SCALED("mxf8f6f4", "1X");
    } else if constexpr (kAsm == kAsmMxf4) {
      TC05_SCALED("mxf4", "2X");
    } else if constexpr (kAsm == kAsmNvf4x2) {
      TC05_SCALED("mxf4nvf4", "2X");
    } else if constexpr (kAsm == kAsmNvf4x4) {
      TC05_SCALED("mxf4nvf4", "4X");
    } else {
      asm volatile(
          "{ .reg .pred p; setp.ne.b32 p, %4, 0; "
          "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p; }" ::"r"(
              tmem),
          "l"(da), "l"(db), "r"(idesc), "r"(1)
          : "memory");
    }
    asm volatile(
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 "
        "[%0];" ::"r"(bar)
        : "memory");
  }
  // Wait for phase 0 of the mbarrier (the MMA's completion).
  asm volatile(
      "{ .reg .pred done; WAIT_%=: "
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0; "
      "@!done bra WAIT_%=; }" ::"r"(bar)
      : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x16.b32 " TC05_X16_REGS() ", [%16];"
      : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]), "=r"(d[4]), "=r"(d[5]),
        "=r"(d[6]), "=r"(d[7]), "=r"(d[8]), "=r"(d[9]), "=r"(d[10]),
        "=r"(d[11]), "=r"(d[12]), "=r"(d[13]), "=r"(d[14]), "=r"(d[15])
      : "r"(lane_base)
      : "memory");
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  if (warp == 0) {
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    asm volatile(
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" ::"r"(tmem)
        : "memory");
  }
#else
#pragma unroll
  for (int j = 0; j < 16; ++j) d[j] = 0xDEADBEEFu;
#endif
#pragma unroll
  for (int j = 0; j < 16; ++j) gd[(t * 128 + th) * 16 + j] = d[j];
}

__global__ void hang_kernel(volatile unsigned* flag) {
  while (*flag == 0) {
  }
}

int grid_for(size_t n, int block) {
  const size_t g = (n + block - 1) / block;
  return static_cast<int>(g < 65535 ? (g ? g : 1) : 65535);
}

}  // namespace

int launch_probe(unsigned* d_out) {
  probe_kernel<<<1, 1>>>(d_out);
  return static_cast<int>(cudaGetLastError());
}

int launch_convert(int instr, const uint32_t* in0, const uint32_t* in1,
                   const uint32_t* rbits, uint32_t* out, size_t n) {
  convert_kernel<<<grid_for(n, 256), 256>>>(instr, in0, in1, rbits, out, n);
  return static_cast<int>(cudaGetLastError());
}

int launch_mma(int instr, const uint32_t* a, const uint32_t* b,
               const uint32_t* c, const uint32_t* sfa, const uint32_t* sfb,
               uint32_t* d, size_t tiles) {
  // 4 warps per block; the grid covers every tile (one warp each).
  const size_t blocks = (tiles + 3) / 4;
  mma_kernel<<<static_cast<unsigned>(blocks ? blocks : 1), 128>>>(
      instr, a, b, c, sfa, sfb, d, tiles);
  return static_cast<int>(cudaGetLastError());
}

int launch_mma_f16acc(int instr, const uint32_t* a, const uint32_t* b,
                      const uint32_t* c, uint32_t* d, size_t tiles) {
  const size_t blocks = (tiles + 3) / 4;
  mma_f16acc_kernel<<<static_cast<unsigned>(blocks ? blocks : 1), 128>>>(
      instr, a, b, c, d, tiles);
  return static_cast<int>(cudaGetLastError());
}

namespace {

// The instruction ids with a templated kernel: a new one is one entry.
template <int... I>
struct Ids {};
using WgmmaIds = Ids<kWgmmaF32E4E4, kWgmmaF32E4E5, kWgmmaF32E5E4, kWgmmaF32E5E5,
                     kWgmmaF16E4E4, kWgmmaF16E4E5, kWgmmaF16E5E4, kWgmmaF16E5E5,
                     kWgmmaF32Tf32>;
using Tcgen05Ids =
    Ids<kTc05F8f6f4E4E4, kTc05F8f6f4E4E5, kTc05F8f6f4E5E4, kTc05F8f6f4E5E5,
        kTc05Mxf8E4E4, kTc05Mxf8E4E5, kTc05Mxf8E5E4, kTc05Mxf8E5E5,
        kTc05F8f6f4Sub, kTc05Mxf8Sub, kTc05Mxf4, kTc05Nvf4x2, kTc05Nvf4x4,
        kTc05F8f6f4F16>;

// Launches kernel<I> for the I of the list that equals instr (Launch is a
// generic lambda taking std::integral_constant<int, I>); false if none.
template <int... I, typename Launch>
bool launch_one_of(Ids<I...>, int instr, Launch launch) {
  return ((instr == I && (launch(std::integral_constant<int, I>{}), true)) ||
          ...);
}

}  // namespace

int launch_wgmma(int instr, const uint32_t* a, const uint32_t* b,
                 const uint32_t* c, uint32_t* d, int c_regs, uint32_t lbo,
                 uint32_t sbo, size_t tiles) {
  if (tiles == 0) return 0;
  const unsigned g = static_cast<unsigned>(tiles);
  const bool known = launch_one_of(WgmmaIds{}, instr, [&](auto i) {
    wgmma_kernel<decltype(i)::value><<<g, 128>>>(a, b, c, d, c_regs, lbo, sbo);
  });
  if (!known) return static_cast<int>(cudaErrorInvalidValue);
  return static_cast<int>(cudaGetLastError());
}

int launch_tcgen05(int instr, const uint32_t* a, const uint32_t* b,
                   const uint32_t* c, const uint32_t* sfa, const uint32_t* sfb,
                   uint32_t* d, uint32_t idesc, uint32_t lbo, uint32_t sbo,
                   size_t tiles) {
  if (tiles == 0) return 0;
  const unsigned g = static_cast<unsigned>(tiles);
  const bool known = launch_one_of(Tcgen05Ids{}, instr, [&](auto i) {
    tcgen05_kernel<decltype(i)::value>
        <<<g, 128>>>(a, b, c, sfa, sfb, d, idesc, lbo, sbo);
  });
  if (!known) return static_cast<int>(cudaErrorInvalidValue);
  return static_cast<int>(cudaGetLastError());
}

int launch_hang(unsigned* d_flag) {
  hang_kernel<<<1, 1>>>(d_flag);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace mxc::gpu::dev
