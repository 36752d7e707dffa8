// SM100 tcgen05.mma (cta_group::1, M = 128, N = 16, K = 32; kind::f8f6f4
// and kind::mxf8f6f4.block_scale.scale_vec::1X) on the host side: the
// instruction descriptor, the tcgen05 shared-memory descriptor, and the
// translation between the replay's 16x8x32 tiles and one tcgen05.mma per
// tile. Plain C++; the CPU tests check it against the PTX ISA.
//
// PTX ISA 9.x references (chapter 9.7.16 "TensorCore 5th Generation Family
// Instructions"):
//  - 9.7.16.4.1 "Shared memory descriptor" (anchor tcgen05-shared-memory-
//    desc-layout): as the wgmma descriptor (host/wgmma.h) plus bits 46-48 =
//    0b001 (fixed), 52 = LBO mode (0: relative), 61-63 swizzle (0: none).
//  - 9.7.16.4.2 "Instruction descriptor", Table 42 (kind::f8f6f4): 4-5
//    dtype (F16 0, F32 1), 7-9 atype / 10-12 btype (E4M3 0, E5M2 1, E2M3 3,
//    E3M2 4, E2M1 5), 13/14 negate, 15/16 transpose (0: K-major), 17-22
//    N >> 3, 24-28 M >> 4. Table 44 (kind::mxf8f6f4): 4-5 SFB ID, 7-16 as
//    above, 17-22 N >> 3, 23 scale type (1: UE8M0), 27-28 M >> 7, 29-30 SFA
//    ID.
//  - "Data path layout organization" (Layout D, M = 128, cta_group::1):
//    row m of D in TMEM lane m, column n in column n (32-bit elements).
//    tcgen05.ld/st .32x32b: warp w accesses lanes 32 w .. 32 w + 31, thread
//    lane i its lane, register j column j.
//  - 9.7.16.10.7 "Block Scaling" (9.7.16.10.7.2.x / .3.1 give the 1X
//    layouts as figures; our reading): scale_A (M x 1) row m in lane m,
//    scale_B (1 x N) column n in lane n of every 32-lane partition ("scale
//    factors ... need to be duplicated to all 32 lane partitions");
//    SFA_ID / SFB_ID select the byte. gpu_check writes the same scale in all four bytes so
//    the byte selection does not matter (ID 0 is used).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gpu_check/host/backend.h"
#include "gpu_check/host/wgmma.h"

namespace mxc::gpu {

inline constexpr int kTc05M = 128, kTc05N = 16, kTc05K = 32;
inline constexpr int kTc05ABytes = kTc05M * kTc05K;  // 4096
inline constexpr int kTc05BBytes = kTc05N * kTc05K;  // 512
// TMEM columns (allocated: 64): D at 0..15, SFA at 32, SFB at 48.
inline constexpr int kTc05Cols = 64, kTc05SfaCol = 32, kTc05SfbCol = 48;

// tcgen05 smem descriptor (K-major, no swizzle).
uint64_t tcgen05_smem_desc(uint32_t addr, uint32_t lbo, uint32_t sbo);

enum class F8f6f4Type : uint8_t { kE4M3 = 0, kE5M2 = 1, kE2M3 = 3, kE3M2 = 4, kE2M1 = 5 };
// kind::f8f6f4, dense, K-major A and B, no negation.
uint32_t tcgen05_idesc_f8f6f4(F8f6f4Type a, F8f6f4Type b, bool f32_d, int m, int n);
// kind::mxf8f6f4 (UE8M0 scales), dense, K-major, scale byte IDs.
uint32_t tcgen05_idesc_mxf8f6f4(F8f6f4Type a, F8f6f4Type b, int m, int n, int sfa_id,
                                int sfb_id);

// One M=128 N=16 tcgen05.mma per replay tile: A row r <- tile row r % 16,
// B column n <- tile column n % 8; thread T (0..127) holds D row T, its
// 16 columns in registers 0..15.
struct Tc05Images {
  size_t tiles = 0;
  std::vector<uint32_t> a;    // tiles * 1024 words (smem image)
  std::vector<uint32_t> b;    // tiles * 128 words
  std::vector<uint32_t> c;    // tiles * 128 * 16: C rows, per thread
  std::vector<uint32_t> sfa;  // tiles * 128: thread T's SFA word (lane T)
  std::vector<uint32_t> sfb;  // tiles * 128: thread T's SFB word (lane T)
};
Tc05Images tcgen05_images(const MmaBatch& b, bool scaled);
// D (tiles * 128 * 16) back to replay tiles (tiles * 128, as pack_c); the
// first copy that differs from copy (0, 0) wins, as in wgmma_fold_d.
std::vector<uint32_t> tcgen05_fold_d(std::span<const uint32_t> d, size_t tiles);

}  // namespace mxc::gpu
