// Launchers of the gpu_check kernels (gpu_check/device/kernels.cu). Plain
// C++ declarations: pointers are device pointers, the return value a
// cudaError_t as int (0 = success), so callers need no CUDA headers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mxc::gpu::dev {

// Writes the Feature bits of the SASS that runs on this device to *d_out.
int launch_probe(unsigned* d_out);
// out[j] = instr(in0[j], in1[j], rbits[j]) for j < n.
int launch_convert(int instr, const uint32_t* in0, const uint32_t* in1,
                   const uint32_t* rbits, uint32_t* out, size_t n);
// One warp per tile: a[t*32*4 + lane*4 + r], b[t*32*2 + lane*2 + r],
// c/d[t*32*4 + lane*4 + r], sfa/sfb[t*32 + lane] (unused without scales).
int launch_mma(int instr, const uint32_t* a, const uint32_t* b,
               const uint32_t* c, const uint32_t* sfa, const uint32_t* sfb,
               uint32_t* d, size_t tiles);
// mma.sync with an f16 accumulator (kMmaFp8F16*, kMmaF16F16), one warp per
// tile:
// a/b as launch_mma, c/d[t*32*2 + lane*2 + r] two .f16x2 registers per lane
// (host/fragments.h mma_c_to_f16x2 / mma_d_from_f16x2).
int launch_mma_f16acc(int instr, const uint32_t* a, const uint32_t* b,
                      const uint32_t* c, uint32_t* d, size_t tiles);
// One warpgroup per tile: a[t*512 + w], b[t*64 + w] are the shared-memory
// images of host/wgmma.h (K-major, no swizzle, LBO/SBO bytes), c/d
// [(t*128 + thread)*c_regs + r] the accumulator registers (4 f32 or 2
// f16x2). tiles <= 2^31 - 1.
int launch_wgmma(int instr, const uint32_t* a, const uint32_t* b,
                 const uint32_t* c, uint32_t* d, int c_regs, uint32_t lbo,
                 uint32_t sbo, size_t tiles);
// One 128-thread CTA per tile: a[t*1024 + w], b[t*128 + w] shared-memory
// images (8-bit, padded FP6/FP4 or packed e2m1 elements as host/tcgen05.h
// laid them out), c/d[(t*128 + thread)*16 + col] D rows (f32, or f16 in the
// low half), sfa/sfb[t*128 + thread] scale words (block-scaled kinds only);
// idesc the 32-bit instruction descriptor (operand, D and scale types).
// instr picks the instruction text (kind and scale_vec).
int launch_tcgen05(int instr, const uint32_t* a, const uint32_t* b,
                   const uint32_t* c, const uint32_t* sfa, const uint32_t* sfb,
                   uint32_t* d, uint32_t idesc, uint32_t lbo, uint32_t sbo,
                   size_t tiles);
// A kernel that never returns (watchdog test: mxc-gpu run --only hang).
int launch_hang(unsigned* d_flag);

}  // namespace mxc::gpu::dev
