// Register fragments of the warp-level mma.sync shapes gpu_check replays:
// which (row, col) of A, B, C/D each lane's element i holds, and packing
// of whole tiles into the per-lane registers (and back). The formulas are
// the PTX ISA's (section 9.7.14.5 "Matrix Fragments for mma.m16n8k32" and
// "... for mma.m16n8k64"; block-scale operands 9.7.14.3 "Block Scaling for
// mma.sync"; the legacy f16/bf16/tf32 shapes "Matrix Fragments for
// mma.m16n8k16 with floating point type" and "... for mma.m16n8k8");
// docs/gpu-check.md repeats them. The tests check pack/unpack
// round trips and the tables' defining properties on the CPU.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace mxc::gpu {

struct RowCol {
  int row, col;
};

enum class FragShape : uint8_t {
  kM16N8K32x8,  // m16n8k32, 8-bit A/B elements (e4m3/e5m2), f32 C/D
  kM16N8K64x4,  // m16n8k64, 4-bit A/B elements (e2m1), f32 C/D
  // 16x8x8 replay tiles of 32-bit A/B operands (tf32 as f32 bit patterns),
  // f32 C/D. Only the wgmma engine runs it (host/wgmma.h
  // wgmma_images_tf32): its MmaBatch holds A and B as plain tiles (A
  // row-major [16][8], B [8][8] as [n][k], one word per element), not in
  // mma.sync lane fragments; C/D as for every shape (pack_c).
  kM16N8K8x32,
  // mma.sync.aligned.m16n8k16 .f16/.bf16: 16-bit A/B elements, two per
  // .b32 register (A 4, B 2 registers), C/D f32 or .f16x2.
  kM16N8K16x16,
  // mma.sync.aligned.m16n8k8 .tf32: one 32-bit A/B element per register
  // (A 4, B 2), in lane fragments (unlike kM16N8K8x32); C/D f32.
  kM16N8K8x32Sync,
};

struct ShapeInfo {
  int m, n, k;
  int elem_bits;  // bits per A/B element in a register
  int a_regs;     // .b32 registers of A per lane
  int b_regs;
  int c_regs;  // f32 accumulators per lane
};
ShapeInfo shape_info(FragShape s);

// Element i (0 <= i < a_regs * 32 / elem_bits) of lane's A fragment:
// its (row m, col k). Element i lives in register i / per_reg, bits
// [(i % per_reg) * elem_bits, +elem_bits) ("low to high" in the ISA).
RowCol a_elem(FragShape s, int lane, int i);
// B fragment element i: (row k, col n).
RowCol b_elem(FragShape s, int lane, int i);
// C/D accumulator i (0..3): (row m, col n).
RowCol c_elem(int lane, int i);

// Where one A/B code sits inside its register element: bits [shift,
// shift + width) of the element, the other bits zero. The replay's tiles
// hold codes; pack_tiles encodes them, mma_output_case decodes them.
//  - 8-bit formats and the packed e2m1 of m16n8k64: the code is the element.
//  - m16n8k32 .kind::f8f6f4 / .kind::mxf8f6f4 with .e3m2 / .e2m3 / .e2m1:
//    each element is an 8-bit container (PTX ISA 9.7.14.5, "Matrix
//    Fragments for mma.m16n8k32": four .e3m2 / .e2m3 / .e2m1 elements per
//    .b32, the same table as 8-bit types). Inside the container (given only
//    as a figure; our reading, unverified on hardware): a 6-bit code in bits
//    5..0, an e2m1 code in bits 5..2 (bits 1..0 zero), i.e. e2m1 sits where
//    the equal-valued e2m3 code (two zero mantissa bits appended) would,
//    which agrees with a public RTX 5090 probe of this instruction.
struct OperandCoding {
  int shift = 0;
  uint8_t mask = 0xFF;
};
OperandCoding operand_coding(FragShape s, std::string_view fmt);
inline uint8_t encode_operand(OperandCoding c, uint8_t code) {
  return static_cast<uint8_t>((code & c.mask) << c.shift);
}
inline uint8_t decode_operand(OperandCoding c, uint8_t elem) {
  return static_cast<uint8_t>((elem >> c.shift) & c.mask);
}
std::vector<uint8_t> encode_operands(OperandCoding c,
                                     std::span<const uint8_t> codes);
std::vector<uint8_t> decode_operands(OperandCoding c,
                                     std::span<const uint8_t> elems);

// Tiles on the host: A row-major [m][k] codes, B column-major [n][k] codes
// (column n's K codes contiguous, the ".col" operand), C/D row-major [m][n]
// 32-bit words. Packed: lane-major, lane * regs + r.
// 8-bit and narrower elements (the FP8/FP6/FP4 shapes):
std::vector<uint32_t> pack_a(FragShape s, std::span<const uint8_t> a);
std::vector<uint8_t> unpack_a(FragShape s, std::span<const uint32_t> regs);
std::vector<uint32_t> pack_b(FragShape s, std::span<const uint8_t> b);
std::vector<uint8_t> unpack_b(FragShape s, std::span<const uint32_t> regs);
// Any element width of a lane-fragment shape, one code per 32-bit word
// (kM16N8K16x16: f16/bf16 codes; kM16N8K8x32Sync: tf32 as f32 bit
// patterns). kM16N8K8x32 has no lane fragments: these throw for it.
std::vector<uint32_t> pack_a_words(FragShape s, std::span<const uint32_t> a);
std::vector<uint32_t> unpack_a_words(FragShape s,
                                     std::span<const uint32_t> regs);
std::vector<uint32_t> pack_b_words(FragShape s, std::span<const uint32_t> b);
std::vector<uint32_t> unpack_b_words(FragShape s,
                                     std::span<const uint32_t> regs);
std::vector<uint32_t> pack_c(std::span<const uint32_t> c);
std::vector<uint32_t> unpack_c(std::span<const uint32_t> regs);

// C/D of mma.sync m16n8k32 .f16.{e4m3,e5m2}.{e4m3,e5m2}.f16 (an f16
// accumulator): accumulator i of a lane sits at c_elem(lane, i), as for
// f32, but the lane holds two .f16x2 registers: element i in register
// i / 2, bits [16 * (i % 2), +16) (c0, c1 in the first register, low half
// first). Sources: PTX ISA 9.7.14.5 "Matrix Fragments for mma.m16n8k32",
// C/D ".f16 accumulators: two .f16x2 registers"; CUTLASS v4.7.0-6
// (7107b05) cute/arch/mma_sm89.hpp:180-186 (SM89_16x8x32_F16E4M3E4M3F16_TN:
// CRegisters = DRegisters = uint32_t[2]) and cute/atom/mma_traits_sm89.hpp
// :96-104, which inherit the f32 atom's CLayout SM80_16x8_Row
// (mma_traits_sm89.hpp:65, mma_traits_sm80.hpp:52-54).
inline constexpr int kCRegsF16x2 = 2;
// 16 x 8 row-major f16 codes (low 16 bits of each word; the upper bits are
// ignored) -> 32 lanes x 2 registers, lane-major.
std::vector<uint32_t> pack_c_f16x2(std::span<const uint32_t> c);
std::vector<uint32_t> unpack_c_f16x2(std::span<const uint32_t> regs);
// Whole batches: the replay's C (tiles * 128 words packed as pack_c) to
// the device registers (tiles * 64), and the device's D back.
std::vector<uint32_t> mma_c_to_f16x2(std::span<const uint32_t> c, size_t tiles);
std::vector<uint32_t> mma_d_from_f16x2(std::span<const uint32_t> d,
                                       size_t tiles);

// Block-scale operands with selectors {byte-id, thread-id} = {0, 0}.
// scale_A is M x V (V = 1, 2, 4 for scale_vec::1X/2X/4X), scale_B V x N;
// sa row-major [m][V], sb [n][V]. Lane l holds, in byte v of its scale
// register, SF_A(row (l >> 2) + 8 * (l & 1), v) and SF_B(v, col l >> 2).
// (Thread-id 0 selects lanes with l % 4 in {0, 1} for A and l % 4 == 0
// for B; we fill the other lanes of each quad the same way, so a reading
// in which thread-id selects the other pair gives the same result.)
std::vector<uint32_t> pack_scale_a(std::span<const uint8_t> sa, int vec);
std::vector<uint32_t> pack_scale_b(std::span<const uint8_t> sb, int vec);
std::vector<uint8_t> unpack_scale_a(std::span<const uint32_t> regs, int vec);
std::vector<uint8_t> unpack_scale_b(std::span<const uint32_t> regs, int vec);

}  // namespace mxc::gpu
