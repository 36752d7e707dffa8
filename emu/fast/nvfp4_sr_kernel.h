// Internal to emu/fast: the kernels behind nvfp4_sr.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/block/profile.h"
#include "emu/fast/isa.h"
#include "emu/fast/nvfp4_fused.h"

namespace mxc::fast::detail {

// The E2M1 code of y (binary32 bits, not NaN) under
// cvt.rs.satfinite.e2m1x4 with the random byte rb & 0xFF: keep the top 8
// discarded bits, add rb, round up on a carry out of 8 bits; 6 and up
// (Inf included) saturate to 6. The sign is kept (-0 gives code 8).
uint32_t e2m1_sr(uint32_t y, uint32_t rb);

// The scale code of a block of amax `amax` (|x| bits) under candidate c, or
// 0x80 when the plan does not model the block: amax Inf or NaN, a scale
// step that became NaN, or a code whose operand is not exact. The one rule
// the portable and the vector SR paths share.
inline uint8_t sr_scale_code(const Nvfp4Candidate& c, uint32_t amax) {
  if (amax >= 0x7F800000u) return 0x80;
  const uint8_t s = nv_scale_code(c, amax);
  return s < 0x80 && c.exact[s] ? s : 0x80;
}

// One block of n elements by the plan, portable (hardware binary32),
// elements and random bits `stride` apart; false (nothing written) when the
// block holds a NaN or Inf or takes a scale code the plan does not model.
bool sr_block_plan(const NvTab& t, const uint32_t* x, const uint32_t* rb,
                   size_t stride, size_t n, uint8_t* scale, uint8_t* codes,
                   size_t cstride);

// A 16-element block the plan does not model (NaN, Inf, a code not
// modelled exactly), elements and random bits `stride` apart: the
// reference with its random bits.
void sr_block_ref(const Nvfp4Profile& p, uint32_t s_enc, const uint32_t* x,
                  const uint32_t* rb, size_t stride, uint8_t* scale,
                  uint8_t* codes, size_t cstride);

// The Highway kernels (nvfp4_sr_hwy.cpp): rowwise over nb blocks of 16 in
// order, columnwise over rows (a multiple of 16) x cols. `isa`: fused_isa()
// (not kScalar); t.plan has one candidate.
void nv_sr_rows_simd(Isa isa, const Nvfp4Profile& p, const NvTab& t, size_t nb,
                     const uint32_t* x, const uint32_t* rb, uint8_t* scales,
                     uint8_t* codes);
void nv_sr_cols_simd(Isa isa, const Nvfp4Profile& p, const NvTab& t,
                     size_t rows, size_t cols, const uint32_t* x,
                     const uint32_t* rb, uint8_t* scales, uint8_t* codes);

}  // namespace mxc::fast::detail
