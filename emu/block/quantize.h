// Block quantization and dequantization under a profile: MX (E8M0 scale per
// block of 32, or the profile's block) and NVFP4 (UE4M3 scale per 16, FP32
// tensor scale). Inputs are binary32 bit patterns (bf16/f16 sources convert
// exactly to f32 first). docs/block-formats.md states every rule.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "emu/block/profile.h"

namespace mxc {

struct MxBlock {
  uint8_t scale = 0;           // E8M0 encoding
  std::vector<uint8_t> codes;  // element encodings, one per input
};

// The block's amax as the profile takes it: max |x| (NaN if any NaN, unless
// the profile ignores NaN as fmaxf does).
uint32_t block_amax(const MxProfile& p, std::span<const uint32_t> x);
// The E8M0 scale byte the profile selects for this amax.
uint8_t mx_scale_byte(const MxProfile& p, Fmt elem, uint32_t amax);
// One element under a chosen scale byte (the profile's apply rule, element
// rounding and -0 policy).
uint8_t mx_encode_element(const MxProfile& p, Fmt elem, uint8_t scale,
                          uint32_t x);
// How many times mx_encode_element ran in this process (a test hook: the
// fast paths must not take the per-element reference for finite blocks,
// issue 22).
uint64_t mx_encode_element_calls();
MxBlock mx_quantize_block(const MxProfile& p, Fmt elem,
                          std::span<const uint32_t> x);
// Exact dequantization: element * 2^(scale - 127) rounded once to f32 (RNE);
// a NaN scale (0xFF) gives NaN.
std::vector<uint32_t> mx_dequantize_block(Fmt elem, const MxBlock& b);

struct Nvfp4Block {
  uint8_t scale = 0;           // UE4M3 encoding
  std::vector<uint8_t> codes;  // E2M1 encodings
};

// max |x| over a tensor of f32 bit patterns, as f32 bits (+0 for none); a
// NaN element makes it the canonical quiet NaN 0x7FC00000. One branch-free
// pass (the callers' NVFP4 tensor amax when none is given).
uint32_t tensor_amax(std::span<const uint32_t> x);

// Per-tensor encode scale S_enc = fl(448 * 6 / amax_tensor), with the TE
// guards: amax 0 or a zero quotient -> 1.0, an infinite quotient -> FLT_MAX.
uint32_t nvfp4_tensor_scale(uint32_t amax_tensor);
// The tensor-level value a profile's rule takes (the s_enc argument below):
// TE/CUTLASS the encode scale above; torchao two-level its decode scale
// fl(amax_tensor / 2688) (per_tensor_amax_to_scale); single-level 1.0
// (unused).
uint32_t nvfp4_tensor_scale(const Nvfp4Profile& p, uint32_t amax_tensor);
// rbits empty: round to nearest even (cvt.rn.satfinite). Otherwise one
// value per element: stochastic rounding with 8 random bits per element
// (cvt.rs.satfinite.e2m1x4, docs/rounding.md), e.g. from sr_rbits(seed, i).
Nvfp4Block nvfp4_quantize_block(const Nvfp4Profile& p, uint32_t s_enc,
                                std::span<const uint32_t> x,
                                std::span<const uint32_t> rbits = {});
// How many blocks nvfp4_quantize_block computed by its reference code in
// this process (the fast path declined, or rbits given; a test hook like
// mx_encode_element_calls).
uint64_t nvfp4_reference_block_calls();
// q * s exactly, divided by S_enc, rounded once to f32 (RNE).
std::vector<uint32_t> nvfp4_dequantize_block(const Nvfp4Block& b,
                                             uint32_t s_enc);
// The decode of profile p, given the tensor-level value
// nvfp4_tensor_scale(p, amax) returned: TE/CUTLASS q * s / S_enc (above);
// torchao two-level q * s * t (t its decode scale, as torchao's dequantize
// multiplies); single-level q * s. q * s is exact; one rounding to f32.
std::vector<uint32_t> nvfp4_dequantize_block(const Nvfp4Profile& p,
                                             const Nvfp4Block& b,
                                             uint32_t tensor_value);

// Matrices (row-major rows x cols). Rowwise: blocks run along a row (for A
// quantized along K with K = cols); columnwise: blocks run down a column.
// Scales come out row-major: rowwise [row][col/block], columnwise
// [row/block][col]. Lengths must divide by the block.
struct MxMatrix {
  std::vector<uint8_t> scales;
  std::vector<uint8_t> codes;  // row-major, same shape as the input
};
MxMatrix mx_quantize_rowwise(const MxProfile& p, Fmt elem, int rows, int cols,
                             std::span<const uint32_t> x);
MxMatrix mx_quantize_colwise(const MxProfile& p, Fmt elem, int rows, int cols,
                             std::span<const uint32_t> x);
// 2D tiles (t x t, e.g. 32x32 MX weights): one scale from the tile's amax,
// broadcast to the rowwise 1D layout [row][col/t] the GEMM consumes.
MxMatrix mx_quantize_2d(const MxProfile& p, Fmt elem, int rows, int cols,
                        int tile, std::span<const uint32_t> x);

// NVFP4 2D weight tiles (16x16): one UE4M3 scale from the tile's amax,
// broadcast to the rowwise [row][col/16] layout; elements as in
// nvfp4_quantize_block. Rows and cols must divide by 16.
struct Nvfp4Matrix {
  std::vector<uint8_t> scales;
  std::vector<uint8_t> codes;  // row-major
};
Nvfp4Matrix nvfp4_quantize_2d(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                              int cols, std::span<const uint32_t> x);

}  // namespace mxc
