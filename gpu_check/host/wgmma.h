// SM90 wgmma.mma_async (FP8, m64nNk32) on the host side: the shared-memory
// matrix descriptor, the canonical K-major no-swizzle ("interleave") smem
// layout, the accumulator fragment of D, and the translation between the
// replay's 16x8x32 tiles (MmaBatch, host/fragments.h) and one m64n8k32
// wgmma per tile. Plain C++; the CPU tests check it against the PTX ISA.
//
// PTX ISA references (PTX ISA 8.x/9.x numbering, 9.7.15.5.1 "Register
// Fragments and Shared Memory Matrix Layouts"):
//  - 9.7.15.5.1.1.3 "Matrix Fragments for wgmma.mma_async.m64nNk32",
//    accumulator D (N/2 .f32 registers or N/4 .f16x2, Figure 153 in 9.x):
//    row = 16 * warp + groupID (+8), col = 8 * (i / 4) + 2 *
//    threadID_in_group + (i & 1) -- our reading of the figure;
//  - 9.7.15.5.1.2 "Shared Memory Matrix Layout" (core matrices of 8 rows x
//    16 bytes, "K major interleaved" = no swizzle) and 9.7.15.5.1.2.1.1/2:
//    K-major no-swizzle LBO = "offset from the first column to the second
//    column of the 8x2 tile" (the next core matrix along K), SBO = "offset
//    from the first 8 rows to the next 8 rows";
//  - 9.7.15.5.1.2.2 "Matrix Descriptor Format": bits 0-13 start address
//    >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4, 49-51 matrix base offset, 62-63
//    swizzle (0 none, 1 128B, 2 64B, 3 32B), each address field encoded as
//    (x & 0x3FFFF) >> 4.
//  - FP8 operands of wgmma must be K-major (no transpose for .e4m3/.e5m2).
//
// TF32 (wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32, also K-major
// only): one m64n8k8 per 16x8x8 replay tile (FragShape::kM16N8K8x32).
// A 64 x 8 tf32 row is 32 bytes, the same bytes as an FP8 row of 32, so
// the same image sizes, LBO and SBO serve: element (row, k) at byte
// kmajor_interleave_offset(row, 4 * k, LBO, SBO), 4 bytes little-endian.
// Source: CUTLASS v4.7.0-6 (7107b05) include/cute/atom/
// mma_traits_sm90_gmma.hpp:81 (Layout_K_INTER_Atom_Bits: 8 rows x 128
// bits, i.e. 4 tf32 per 16-byte core-matrix row, upcast per type at :98)
// and :186 (K-major INTERLEAVE canonical layout ((8,m),(T,2)):((1T,SBO),
// (1,LBO)), T = 128 bits / element bits = 4); the instruction text and the
// same D layout as FP8 (CLayout_64x8) at include/cute/arch/
// mma_sm90_gmma.hpp:3421-3447 (SM90 MMA_64x8x8_F32TF32TF32_SS_TN: "p, %7,
// %8" = scale-d, imm-scale-a, imm-scale-b, no transpose operands) and
// mma_traits_sm90_gmma.hpp:1894-1909.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gpu_check/host/backend.h"
#include "gpu_check/host/fragments.h"

namespace mxc::gpu {

// --- matrix descriptor (wgmma) --------------------------------------------

enum class Swizzle : uint8_t { kNone = 0, k128B = 1, k64B = 2, k32B = 3 };

struct SmemDesc {
  uint32_t addr = 0;  // shared-state-space byte address (multiple of 16)
  uint32_t lbo = 0;   // leading dimension byte offset (K direction)
  uint32_t sbo = 0;   // stride dimension byte offset (M/N direction)
  int base_offset = 0;
  Swizzle swizzle = Swizzle::kNone;
};

// Throws std::invalid_argument for fields that do not fit (not a multiple
// of 16, or >= 2^18 bytes).
uint64_t wgmma_desc_encode(const SmemDesc& d);
SmemDesc wgmma_desc_decode(uint64_t bits);

// Byte offset of element (row, kbyte) of a K-major, no-swizzle operand:
// core matrix (row / 8, kbyte / 16) at (row / 8) * sbo + (kbyte / 16) * lbo,
// inside it row % 8 at 16-byte pitch, kbyte % 16 contiguous.
uint32_t kmajor_interleave_offset(int row, int kbyte, uint32_t lbo, uint32_t sbo);

// The layout gpu_check uses for m64nNk32 FP8 (K = 32 bytes per row, two
// core matrices along K): LBO = 128 (the two K halves adjacent), SBO = 256
// (next 8 rows). LBO != SBO so an exchanged reading of the two fields
// scrambles rows and is caught.
inline constexpr uint32_t kWgmmaLbo = 128;
inline constexpr uint32_t kWgmmaSbo = 256;
inline constexpr int kWgmmaM = 64, kWgmmaN = 8, kWgmmaK = 32;
inline constexpr int kWgmmaABytes = kWgmmaM * kWgmmaK;  // 2048
inline constexpr int kWgmmaBBytes = kWgmmaN * kWgmmaK;  // 256

// --- accumulator fragment ---------------------------------------------------

// D of wgmma m64nN with an f32 accumulator: thread 0..127 of the warpgroup,
// element i (0 <= i < N / 2): (row, col). With an f16 accumulator element i
// is half i % 2 (low half first) of .f16x2 register i / 2.
RowCol wgmma_d_elem(int n, int thread, int i);

// --- replay tiles <-> wgmma operands ---------------------------------------

// One m64n8k32 wgmma per replay tile (16 x 8 x 32): A's 64 rows are the
// tile's 16 rows four times (row r <- tile row r % 16), so each of the four
// warps computes a full copy; B is the tile's 8 columns.
struct WgmmaImages {
  size_t tiles = 0;
  int c_regs = 4;                // per thread: 4 f32 or 2 f16x2
  std::vector<uint32_t> a;       // tiles * 512 words: smem image of A
  std::vector<uint32_t> b;       // tiles * 64 words: smem image of B
  std::vector<uint32_t> c;       // tiles * 128 * c_regs: D registers in
};
// f16acc: C and D are f16 codes (low 16 bits of each replay C/D word).
WgmmaImages wgmma_images(const MmaBatch& b, bool f16acc);
// D registers (tiles * 128 * c_regs) back to replay tiles (tiles * 128,
// packed as pack_c). Each output takes the copy of warp 0 unless another
// warp's copy differs, then the first differing one, so a fault in one
// warp's rows is never hidden.
std::vector<uint32_t> wgmma_fold_d(std::span<const uint32_t> d, size_t tiles, bool f16acc);
// The inverse of wgmma_images for A/B/C (tests; the fake device).
std::vector<uint8_t> wgmma_image_a_tile(std::span<const uint32_t> a_words);  // 64 x 32
std::vector<uint8_t> wgmma_image_b_tile(std::span<const uint32_t> b_words);  // 8 x 32 ([n][k])

// TF32 (m64n8k8): the batch's A / B are plain tiles (tiles * 128 words,
// row-major [16][8]; tiles * 64 words, [n][8]); C/D f32 as above. The
// images have the sizes of the FP8 ones (512 and 64 words per tile).
inline constexpr int kWgmmaKTf32 = 8;
WgmmaImages wgmma_images_tf32(const MmaBatch& b);
std::vector<uint32_t> wgmma_image_a_tile_tf32(std::span<const uint32_t> a_words);  // 64 x 8
std::vector<uint32_t> wgmma_image_b_tile_tf32(std::span<const uint32_t> b_words);  // 8 x 8 ([n][k])

}  // namespace mxc::gpu
