// The staging loop of the MX quantizers' staged path (quantize_fast.cpp),
// the path taken where the fused kernels (quantize_fused.h) decline: an
// element rounding other than RNE satfinite, a block that is not a multiple
// of 16 elements, MXC_ISA=scalar or fast::set_fused_isa(Isa::kScalar). Per
// block of B elements: the scale byte, the inputs times 2^(127 - scale) as
// f32 bits (for run_plan), and a flag for the blocks the reference patches.
// Plain loops that the compiler vectorizes; quantize_stage_hwy.cpp compiles
// them once per Highway target (emu/fast/isa.h) and once for the baseline,
// and mx_row_stage runs the copy for an ISA. Internal to emu/fast.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "emu/fast/quantize_fused.h"

namespace mxc::fast::detail {

struct MxStage {
  MxKern k;
  // The scale bytes whose multiplier is exactly 2^(127 - byte) under the
  // profile's apply rule (TE's exp2f_rcp maps byte 0 to 1.0, 254 to +0.0).
  uint32_t s_lo, s_hi;
};

inline bool stage_block_ok(const MxStage& c, uint8_t s) {
  return s >= c.s_lo && s <= c.s_hi;
}

// x * 2^d as f32 bits when that is an exponent-field add (a normal input
// and result) or x is a zero; `bad` collects the other elements.
[[gnu::always_inline]] inline uint32_t stage_scaled(uint32_t v, int32_t d,
                                                    uint32_t& bad) {
  const int32_t E = static_cast<int32_t>((v >> 23) & 0xFF);
  const bool ok = static_cast<uint32_t>(E - 1) < 254u &&
                  static_cast<uint32_t>(E + d - 1) < 254u;
  const bool zero = (v & 0x7FFFFFFFu) == 0;
  bad |= (ok || zero) ? 0u : 1u;
  return ok ? v + (static_cast<uint32_t>(d) << 23) : v;
}

// Rowwise, one row segment of whole blocks (n a multiple of B): scales to
// `scales`, scaled f32 to y, a per-block flag (1: some element needs the
// reference, 2: the whole block does).
[[gnu::always_inline]] inline void row_stage_b(const MxStage& c,
                                               const uint32_t* x, size_t n,
                                               size_t B, uint8_t* scales,
                                               uint32_t* y, uint8_t* flags) {
  for (size_t b = 0; b * B < n; ++b) {
    const uint32_t* xb = x + b * B;
    uint32_t* yb = y + b * B;
    uint32_t mx = 0;
    for (size_t i = 0; i < B; ++i) mx = std::max(mx, xb[i] & 0x7FFFFFFFu);
    uint8_t s;
    if (mx >= 0x7F800000u) {
      const std::span<const uint32_t> blk(xb, B);
      s = mx_scale_byte(*c.k.p, c.k.elem, block_amax(*c.k.p, blk));
    } else {
      s = mx_scale_of(c.k, mx);
    }
    scales[b] = s;
    if (!stage_block_ok(c, s)) {
      flags[b] = 2;
      for (size_t i = 0; i < B; ++i) yb[i] = 0;
      continue;
    }
    const int32_t d = 127 - int32_t{s};
    uint32_t bad = 0;
    for (size_t i = 0; i < B; ++i) yb[i] = stage_scaled(xb[i], d, bad);
    flags[b] = bad != 0 ? 1 : 0;
  }
}

[[gnu::always_inline]] inline void row_stage(const MxStage& c,
                                             const uint32_t* x, size_t n,
                                             size_t B, uint8_t* scales,
                                             uint32_t* y, uint8_t* flags) {
  if (B == 32) {  // the MX block: a constant trip count unrolls fully
    row_stage_b(c, x, n, 32, scales, y, flags);
  } else {
    row_stage_b(c, x, n, B, scales, y, flags);
  }
}

// Columnwise: the amax of each of w columns down B rows (n apart), and one
// row of w elements scaled by per-column d (`bad` collects per column).
[[gnu::always_inline]] inline void col_amax(const uint32_t* xb, size_t n,
                                            size_t B, size_t w,
                                            uint32_t* amax) {
  for (size_t j = 0; j < w; ++j) amax[j] = 0;
  for (size_t i = 0; i < B; ++i) {
    const uint32_t* xr = xb + i * n;
    for (size_t j = 0; j < w; ++j)
      amax[j] = std::max(amax[j], xr[j] & 0x7FFFFFFFu);
  }
}
[[gnu::always_inline]] inline void col_scale_row(const uint32_t* xr, size_t w,
                                                 const int32_t* d, uint32_t* y,
                                                 uint32_t* bad) {
  for (size_t j = 0; j < w; ++j) y[j] = stage_scaled(xr[j], d[j], bad[j]);
}

// The loops above compiled for `isa` (kScalar: the baseline compile).
void mx_row_stage(Isa isa, const MxStage& c, const uint32_t* x, size_t n,
                  size_t B, uint8_t* scales, uint32_t* y, uint8_t* flags);
void mx_col_amax(Isa isa, const uint32_t* xb, size_t n, size_t B, size_t w,
                 uint32_t* amax);
void mx_col_scale_row(Isa isa, const uint32_t* xr, size_t w, const int32_t* d,
                      uint32_t* y, uint32_t* bad);

}  // namespace mxc::fast::detail
