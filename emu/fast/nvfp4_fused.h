// Internal to emu/fast: the NVFP4 tables and kernels behind nvfp4_fast.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/block/profile.h"
#include "emu/fast/quantize_fused.h"

namespace mxc::fast::detail {

// Per (rule, S_enc): c = fl(S_enc * fl(1/6)) and the element multiplier of
// every UE4M3 scale code, filled from the reference formulas on first use.
struct NvTab {
  Nvfp4Rule rule;
  uint32_t s_enc;
  uint32_t c;
  uint32_t enc[128];
  uint64_t have[2];
  // The conversion constants (multiplier 2^0) of the scale (UE4M3) and
  // the elements (E2M1).
  ElemK ks, ke;
  SConst cs, ce;

  uint32_t get(uint8_t code) {
    if (((have[code >> 6] >> (code & 63)) & 1) == 0) fill(code);
    return enc[code];
  }
  void fill(uint8_t code);
  void fill_all() {
    for (int i = 0; i < 128; ++i) (void)get(static_cast<uint8_t>(i));
  }
};

// One block with a NaN or Inf (or otherwise not taken): the public
// nvfp4_quantize_block on the gathered elements.
void nv_block_ref(const Nvfp4Profile& p, uint32_t s_enc, const uint32_t* x,
                  size_t stride, uint8_t* scale, uint8_t* codes,
                  size_t cstride);

// The kernels, one Highway source for every target (nvfp4_hwy.cpp); the
// table filled (fill_all). Rowwise over nb blocks of 16 laid out in order;
// columnwise over rows (a multiple of 16) x cols; 2D 16x16 tiles (false on
// a NaN or Inf).
// `isa`: fused_isa() (not kScalar).
void nv_rows_simd(Isa isa, const Nvfp4Profile& p, const NvTab& t, size_t nb,
                  const uint32_t* x, uint8_t* scales, uint8_t* codes);
void nv_cols_simd(Isa isa, const Nvfp4Profile& p, const NvTab& t, size_t rows,
                  size_t cols, const uint32_t* x, uint8_t* scales,
                  uint8_t* codes);
bool nv_2d_simd(Isa isa, const NvTab& t, size_t rows, size_t cols,
                const uint32_t* x, uint8_t* scales, uint8_t* codes);

}  // namespace mxc::fast::detail
