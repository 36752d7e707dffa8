// Internal to emu/fast: the NVFP4 tables and kernels behind nvfp4_fast.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/block/nvfp4_plan.h"
#include "emu/block/profile.h"
#include "emu/fast/quantize_fused.h"

namespace mxc::fast::detail {

// Per (profile, tensor value): the profile's plan (emu/block/nvfp4_plan.h)
// and the conversion constants of the scale (UE4M3) and the elements (E2M1).
struct NvTab {
  Nvfp4Plan plan;
  uint32_t tv;  // the tensor value the plan was made for
  ElemK ks, ke;
  SConst cs, ce;
  // The f32 values of the UE4M3 scale codes and of the E2M1 codes (the
  // 4over6 error terms).
  uint32_t sval[128];
  uint32_t eval[16];
  // The most 32-bit lanes of a vector the 4over6 kernel loads whole
  // (SVE's 2048 bits): the tables below are padded for such a load.
  static constexpr size_t kMaxLanes = 64;
  // 4over6: the dequantized value of each scale code s and E2M1 magnitude
  // m, errv[8 * s + m] = fl(fl(fl(q_m * s) * A) / D) (the plan's error
  // constants, by the reference f32_mul / f32_div), padded (zeros) for a
  // whole-vector load at s = 127.
  uint32_t errv[8 * 128 + kMaxLanes];
  // The 4over6 kernel's E2M1 conversion (nvfp4_hwy.cpp MagE2M1), per binade
  // k = E(a) - E(T) of a = min(y, MAX) at or above T (k <= 2 < 4, the
  // fewest lanes of a target that runs it): mag_c[k] = C0 + (k << 23) + (k
  // << 1) (Cvt's C plus the code's binade offset 2k in its last place);
  // one vector of the widest target (entries 4 and up are never indexed).
  uint32_t mag_c[kMaxLanes];
  // Every candidate's operand exact for every scale code (Nvfp4Candidate::
  // exact): the kernels need not look each block's codes up.
  bool exact_all;
  // Every candidate's operand has its sign bit clear (the 4over6 kernel
  // multiplies |x|).
  bool ops_nonneg;
  // Two candidates with the same operand table (so equal scale codes give
  // equal terms and equal error sums: nvfp4_hwy.cpp Decide).
  bool cand_ops_equal;
  // No scale step can make a NaN of a finite amax: every kMul / kDiv
  // constant is finite and not zero (so no 0 * Inf, Inf * 0, 0 / 0 or
  // Inf / Inf), no other constant is NaN (bf16 rounding keeps Inf Inf).
  bool steps_no_nan;
  // Dividing one-candidate plans: per scale code, rcp = RN(1/operand) and
  // the block amaxes (bits) below which the rowwise kernel divides by
  // multiplying by rcp with one correction (nvfp4_hwy.cpp ElemByRecip, where
  // the proof is): 2^100 * operand (0x7F800000 from 2^28 up: every finite
  // amax), for operands in [2^-90, 2^125] not within 2^-22 (relative) of an
  // even integer; 0 (no block) for the others, which the hardware division
  // runs.
  uint32_t rcp[128];
  uint32_t rcp_amax_below[128];
  // How many leading scale steps the two candidates share (the same op and
  // constant; fewer than either candidate's count); 0 with one candidate.
  int shared_steps;
};
void nv_init(NvTab& t, const Nvfp4Profile& p, uint32_t tv);
// The table for (p, tensor value), made once and cached per thread, or
// nullptr when the fast engine is off or the plan does not model this
// tensor value (emu/block/nvfp4_plan.h).
const NvTab* nv_table(const Nvfp4Profile& p, uint32_t tv);
// The candidate's scale steps on a finite amax (hardware binary32
// operations, IEEE round to nearest even, as the reference's f32_mul /
// f32_div), then the UE4M3 code; 0x80 when the value became NaN at a step
// (not modelled: the block takes the reference).
uint8_t nv_scale_code(const Nvfp4Candidate& c, uint32_t amax);
// A finite binary32 rounded to bfloat16 (RNE), as f32 bits.
uint32_t bf16_rne(uint32_t v);

// Blocks whose 4over6 decision the rowwise kernel took from the sums in
// the reference's order (its close calls), this thread
// (fast::nvfp4_close_calls).
uint64_t& nv_close_calls();

// One block with a NaN or Inf (or a scale code whose operand the plan does
// not model exactly): the reference on the gathered elements.
void nv_block_ref(const Nvfp4Profile& p, uint32_t s_enc, const uint32_t* x,
                  size_t stride, uint8_t* scale, uint8_t* codes,
                  size_t cstride);

// One block of n finite elements by the plan, portable (hardware binary32
// operations); false (nothing written) when the block holds a NaN or Inf or
// takes a code the plan does not model exactly.
bool nv_block_plan(const NvTab& t, const uint32_t* x, size_t stride, size_t n,
                   uint8_t* scale, uint8_t* codes, size_t cstride);

// Tests: the rowwise kernel's division by the reciprocal (ElemByRecip,
// nvfp4_hwy.cpp), q[i] = fl(x[i] / op[i]) for |x[i] / op[i]| >= 2^-3 given
// rc[i] = RN(1/op[i]) (x's sign and a magnitude below 0.25 for smaller
// quotients). `isa`: a fused target (not kScalar).
void nv_div_by_recip_simd(Isa isa, const uint32_t* x, const uint32_t* op,
                          const uint32_t* rc, size_t n, uint32_t* q);

// Tests: the 4over6 kernel's E2M1 magnitude codes (MagE2M1, nvfp4_hwy.cpp)
// of n finite y >= 0 (f32 bits) with t's constants: RNE, saturating at 6.
// `isa`: a SIMD target (not kScalar).
void nv_e2m1_mag_simd(Isa isa, const NvTab& t, const uint32_t* y, size_t n,
                      uint32_t* q);

// The kernels, one Highway source for every target (nvfp4_hwy.cpp). Rowwise
// over nb blocks of 16 laid out in order; columnwise over rows (a multiple of
// 16) x cols; 2D 16x16 tiles (false on a NaN or Inf). `isa`: fused_isa() (not
// kScalar). block_amax (rowwise; may be null): the blocks' amaxes as
// fast::abs_max_bits16 gives them, read instead of computed.
void nv_rows_simd(Isa isa, const Nvfp4Profile& p, const NvTab& t, size_t nb,
                  const uint32_t* x, const uint32_t* block_amax,
                  uint8_t* scales, uint8_t* codes);
void nv_cols_simd(Isa isa, const Nvfp4Profile& p, const NvTab& t, size_t rows,
                  size_t cols, const uint32_t* x, uint8_t* scales,
                  uint8_t* codes);
bool nv_2d_simd(Isa isa, const NvTab& t, size_t rows, size_t cols,
                const uint32_t* x, uint8_t* scales, uint8_t* codes);

}  // namespace mxc::fast::detail
