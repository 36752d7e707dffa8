// Packing of narrow element codes into bytes: FP4 (E2M1) two per byte and
// FP6 (E2M3 / E3M2) four per three bytes. A "code" is the element's bit
// pattern right-aligned in a uint8_t (what mxc::convert returns for e2m1,
// e2m3, e3m2). Layouts, with i the element index and B the output bytes:
//
//   FP4: code[i] = (B[i / 2] >> (4 * (i % 2))) & 0xF
//        element 2i in the LOW nibble, element 2i+1 in the HIGH nibble.
//   FP6: code[i] = bits [6i, 6i + 6) of the little-endian bit stream of B,
//        where stream bit k is bit (k % 8) of B[k / 8]. Four elements fill
//        three bytes exactly:
//          B[0] = c0       | c1 << 6
//          B[1] = c1 >> 2  | c2 << 4
//          B[2] = c2 >> 4  | c3 << 2      (each masked to 8 bits)
//
// Sources and agreement (details in docs/packing-and-rht.md):
//  * PTX ISA, cvt (".e2m1x2"): "the value converted from input a is stored in
//    the upper 4 bits of d and the value converted from input b is stored in
//    the lower 4 bits"; semantics d[7:4] = convert(a), d[3:0] = convert(b).
//    So our element 2i is cvt's SECOND source b and element 2i+1 its FIRST
//    source a: `cvt.rn.satfinite.e2m1x2.f32 d, x[2i+1], x[2i]` yields our
//    byte. cvt.rn.f16x2.e2m1x2 likewise puts the low nibble in the low half.
//  * CUDA 13.0 cuda_fp4.hpp, __nv_cvt_float2_to_fp4x2: issues exactly that
//    cvt with operands (x.y, x.x), and its host fallback computes
//    (fp4(x.y) << 4) | fp4(x.x); __nv_cvt_fp4x2_to_halfraw2 returns the low
//    nibble in .x. So CUDA's float2 .x (the first element in memory) is the
//    low nibble: it agrees with our convention.
//  * FP6: the PTX ISA says sub-byte tensor types (.b6x16_p32, .b6p2x16) "are
//    expected to be packed contiguously in the global memory" and gives the
//    bit order only as figures. CUTLASS/CuTe (cute/container/
//    array_subbyte.hpp, subbyte_reference / subbyte_iterator) stores 6-bit
//    types (cutlass float_e2m3_t / float_e3m2_t, sizeof_bits = 6) in uint8_t
//    storage with element k at bit offset 6k, LSB first, an element that
//    straddles a byte boundary continuing in the low bits of the next byte:
//    the little-endian bit stream above. The PTX cvt .e2m3x2/.e3m2x2
//    REGISTER format is different (one code per byte, 2 MSBs zero; that is
//    the "unpacked" layout, not this one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace mxc {

// FP4: ceil(n / 2) bytes. An odd n pads the last high nibble with code 0.
// Throws std::invalid_argument if any code exceeds 0xF.
std::vector<uint8_t> pack_fp4(std::span<const uint8_t> codes);
// The first n codes of `bytes` (which must hold at least ceil(n / 2) bytes,
// else std::invalid_argument).
std::vector<uint8_t> unpack_fp4(std::span<const uint8_t> bytes, size_t n);

// FP6: 3 * ceil(n / 4) bytes: n is padded with zero codes to a multiple of
// four, so every group of four elements owns whole bytes. Throws
// std::invalid_argument if any code exceeds 0x3F.
std::vector<uint8_t> pack_fp6(std::span<const uint8_t> codes);
// The first n codes of the bit stream; `bytes` must hold at least
// ceil(6n / 8) bytes, else std::invalid_argument.
std::vector<uint8_t> unpack_fp6(std::span<const uint8_t> bytes, size_t n);

// Bytes pack_fp4 / pack_fp6 produce for n codes.
constexpr size_t packed_fp4_bytes(size_t n) { return (n + 1) / 2; }
constexpr size_t packed_fp6_bytes(size_t n) { return 3 * ((n + 3) / 4); }

}  // namespace mxc
