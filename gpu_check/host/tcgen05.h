// SM100 tcgen05.mma (cta_group::1, M = 128, N = 16; kind::f8f6f4,
// kind::mxf8f6f4.block_scale.scale_vec::1X with K = 32, kind::mxf4 and
// kind::mxf4nvf4 .block_scale.scale_vec::2X/4X with K = 64) on the host
// side: the instruction descriptors, the tcgen05 shared-memory descriptor,
// the shared-memory element packings, and the translation between the
// replay's 16x8xK tiles and one tcgen05.mma per tile. Plain C++; the CPU
// tests check it against the PTX ISA. All of it is unverified on hardware.
//
// PTX ISA 9.x references (chapter 9.7.16 "TensorCore 5th Generation Family
// Instructions"; table numbers differ between ISA versions, the anchors
// are stable):
//  - 9.7.16.4.1 "Shared memory descriptor" (anchor tcgen05-shared-memory-
//    desc-layout): as the wgmma descriptor (host/wgmma.h) plus bits 46-48 =
//    0b001 (fixed), 52 = LBO mode (0: relative), 61-63 swizzle (0: none).
//  - 9.7.16.4.2 "Instruction descriptor":
//    * kind::f8f6f4 (Table 42, anchor tcgen05-instuction-desc-kind-tf32-
//      f16-f8f6f4): 4-5 dtype (F16 0, F32 1), 7-9 atype / 10-12 btype (E4M3
//      0, E5M2 1, E2M3 3, E3M2 4, E2M1 5), 13/14 negate, 15/16 transpose (0:
//      K-major), 17-22 N >> 3, 24-28 M >> 4.
//    * kind::mxf8f6f4 (Table 43 in ISA 9.1, 44 in 9.0; anchor
//      tcgen05-instuction-desc-kind-mxf8f6f4): 4-5 SFB ID, 7-16 as above,
//      17-22 N >> 3, 23 scale type (1: UE8M0), 27-28 M >> 7, 29-30 SFA ID.
//    * kind::mxf4 / kind::mxf4nvf4 (Table 44 in ISA 9.1; anchor
//      tcgen05-instuction-desc-kind-mxf4-mxf4nvf4): 4-5 SFB ID (0 or 2), 7-9
//      atype (E2M1 = 1), 10-11 btype (E2M1 = 1), 12 reserved, 13/14 negate,
//      15/16 transpose (must be 0), 17-22 N >> 3, 23 scale type (UE8M0 1,
//      UE4M3 0; mxf4 only UE8M0), 27-28 M >> 7, 29-30 SFA ID (0 or 2), 31 K
//      dimension (0: dense K = 64).
//  - 9.7.16.10.4 "Packing formats of elements in Tensor and Shared memory":
//    .4.4 (anchor tcgen05-packing-formats-mxf8f6f4-smem) FP4/FP6 operands of
//    the f8f6f4 kinds are "contiguously packed along with padding" (figures
//    202/203): 16 consecutive K elements packed in 8 (FP4) or 12 (FP6) bytes
//    at the start of a 16-byte chunk, the rest padding -- the layout CUDA's
//    CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B / 16U6_ALIGN16B write (cuda.h:
//    "8 byte gaps between every 8 byte chunk", "4 byte gaps between every
//    12 byte chunk"). We assume the section applies to kind::f8f6f4 as to
//    kind::mxf8f6f4, element j of a chunk at bits [w j, w j + w) of the
//    little-endian chunk (low nibble first). .4.6 (anchor
//    tcgen05-packing-formats-mxf4-smem) mxf4 / mxf4nvf4: "two 4-bit
//    elements in a 8-bit container, with no padding" (low nibble = lower k,
//    assumed).
//  - 9.7.16.10.5.4 "Layout D (M = 128 + cta_group::1)": row m of D in TMEM
//    lane m, column n in column n (32-bit elements; an f16 D sits in the low
//    16 bits of its word, 9.7.16.10.4.1). tcgen05.ld/st .32x32b: warp w
//    accesses lanes 32 w .. 32 w + 31, thread lane i its lane, register j
//    column j.
//  - 9.7.16.10.7 "Block Scaling" and CUTLASS tmem_sf_frg
//    (include/cute/atom/mma_traits_sm100_frag.hpp:435-476 at 7107b05, atom
//    ((32, M/32), 4) : ((1, 512), 32) over (dp, column*128) virtual
//    addresses; docs/gpu-check.md): scale_A (M x V) row m in lane m % 32 of
//    each of the four 32-lane partitions ("scale factors ... need to be
//    duplicated to all 32 lane partitions"), column SFA + m / 32 (four
//    columns for M = 128); scale_B (V x N, N = 16) column n in lane n of
//    every partition, one column. scale_vec::1X: one byte, SF ID
//    = byte; 2X: "2-byte aligned sub-column", SF ID = half-word offset (0 or
//    2); 4X: all four bytes, SF ID must be 0. Within a sub-column k-block v
//    is byte v (assumed). gpu_check fills every selectable sub-column with
//    the same scales (1X: byte replicated 4x; 2X: half word replicated 2x)
//    so the ID chosen (0) and the byte/half-word selection cannot change
//    the result; only the byte order inside a 2X/4X sub-column is assumed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gpu_check/host/backend.h"
#include "gpu_check/host/wgmma.h"

namespace mxc::gpu {

inline constexpr int kTc05M = 128, kTc05N = 16, kTc05K = 32;
// Both K = 32 (one byte or padded sub-byte element per k) and K = 64
// (packed e2m1) rows are 32 bytes: the images have the same size.
inline constexpr int kTc05RowBytes = 32;
inline constexpr int kTc05ABytes = kTc05M * kTc05RowBytes;  // 4096
inline constexpr int kTc05BBytes = kTc05N * kTc05RowBytes;  // 512
// TMEM columns (allocated: 64): D at 0..15, SFA at 32..35 (M / 32
// columns), SFB at 48.
inline constexpr int kTc05Cols = 64, kTc05SfaCol = 32, kTc05SfbCol = 48;
inline constexpr int kTc05SfaCols = kTc05M / 32;

// tcgen05 smem descriptor (K-major, no swizzle).
uint64_t tcgen05_smem_desc(uint32_t addr, uint32_t lbo, uint32_t sbo);

enum class F8f6f4Type : uint8_t {
  kE4M3 = 0,
  kE5M2 = 1,
  kE2M3 = 3,
  kE3M2 = 4,
  kE2M1 = 5
};
// kind::f8f6f4, dense, K-major A and B, no negation.
uint32_t tcgen05_idesc_f8f6f4(F8f6f4Type a, F8f6f4Type b, bool f32_d, int m,
                              int n);
// kind::mxf8f6f4 (UE8M0 scales), dense, K-major, scale byte IDs.
uint32_t tcgen05_idesc_mxf8f6f4(F8f6f4Type a, F8f6f4Type b, int m, int n,
                                int sfa_id, int sfb_id);
// kind::mxf4 / kind::mxf4nvf4 (E2M1 A and B), dense K = 64, K-major;
// ue8m0 selects the scale type bit; scale IDs 0 or 2 (half-word offsets).
uint32_t tcgen05_idesc_mxf4(bool ue8m0, int m, int n, int sfa_id, int sfb_id);

// How an operand element is laid out in shared memory.
enum class SmemElem : uint8_t {
  kByte,     // one 8-bit code per k (FP8)
  kPad4,     // FP4 in f8f6f4 kinds: 16 k packed in 8 bytes + 8 bytes padding
  kPad6,     // FP6 in f8f6f4 kinds: 16 k packed in 12 bytes + 4 bytes padding
  kPacked4,  // mxf4 / mxf4nvf4: two e2m1 per byte, no padding
};
SmemElem smem_elem_for(F8f6f4Type t);
// Writes / reads the code of element (row, k) of a K-major, no-swizzle
// image (LBO kWgmmaLbo, SBO kWgmmaSbo) starting at word `base` of w.
void tcgen05_put_elem(std::vector<uint32_t>& w, size_t base, int row, int k,
                      uint8_t code, SmemElem e);
uint8_t tcgen05_get_elem(std::span<const uint32_t> w, int row, int k,
                         SmemElem e);

enum class Tc05Kind : uint8_t { kF8f6f4, kMxf8f6f4, kMxf4, kMxf4nvf4 };
// Everything the kernel launch needs to know about a tcgen05 family.
struct Tc05Config {
  Tc05Kind kind = Tc05Kind::kF8f6f4;
  int k = kTc05K;      // 32 or 64
  int scale_vec = 0;   // 0, 1, 2, 4
  bool f16_d = false;  // D f16 (idesc dtype 0)
  SmemElem a_elem = SmemElem::kByte, b_elem = SmemElem::kByte;
  uint32_t idesc = 0;
};
// From the family's header (model, a-fmt, b-fmt), scale_vec and f16_acc.
Tc05Config tcgen05_config(const Family& f);

// One M=128 N=16 tcgen05.mma per replay tile: A row r <- tile row r % 16,
// B column n <- tile column n % 8; thread T (0..127) holds D row T, its
// 16 columns in registers 0..15 (an f16 D in the low 16 bits). Scale words
// per lane: 1X byte x4, 2X (s0 | s1 << 8) x2, 4X s0 | s1 << 8 | s2 << 16 |
// s3 << 24.
struct Tc05Images {
  size_t tiles = 0;
  std::vector<uint32_t> a;    // tiles * 1024 words (smem image)
  std::vector<uint32_t> b;    // tiles * 128 words
  std::vector<uint32_t> c;    // tiles * 128 * 16: C rows, per thread
  // tiles * 128 * kTc05SfaCols: thread T's registers for the x4 store at
  // column kTc05SfaCol (TMEM lane T, columns +0..+3): register j holds the
  // scale word of A row 32 j + T % 32.
  std::vector<uint32_t> sfa;
  std::vector<uint32_t> sfb;  // tiles * 128: thread T's SFB word (lane T)
};
Tc05Images tcgen05_images(const MmaBatch& b, const Family& f);
// The A row whose scale word thread `thread` (0..127) stores in SFA register
// `reg` (column kTc05SfaCol + reg, TMEM lane `thread`): 32 reg + thread % 32.
int tcgen05_sfa_row(int thread, int reg);
// The scale word of one lane: `vec` scales (k-block v in byte v), the
// sub-column replicated over the word.
uint32_t tcgen05_scale_word(std::span<const uint8_t> s, int vec);
// D (tiles * 128 * 16) back to replay tiles (tiles * 128, as pack_c); the
// first copy that differs from copy (0, 0) wins, as in wgmma_fold_d. With
// f16_d only the low 16 bits of each word are D.
std::vector<uint32_t> tcgen05_fold_d(std::span<const uint32_t> d, size_t tiles,
                                     bool f16_d = false);

}  // namespace mxc::gpu
