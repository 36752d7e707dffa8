// The MX staging loops (emu/fast/quantize_stage.h) compiled for every
// Highway target: plain C++ that the compiler vectorizes under each
// target's attributes, chosen at run time like the kernels (emu/fast/isa.h).
// Before issue 16 these loops were compiled for the baseline and, by a
// per-function attribute, for AVX2; this keeps that speed on x86 and gives
// NEON and SVE their own copies. Checked against the reference by
// tests/test_fast_quantize.cpp (the staged path on every ISA).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/quantize_stage_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "emu/fast/quantize_stage.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::detail::HWY_NAMESPACE {

void RowStage(const MxStage& c, const uint32_t* x, size_t n, size_t B,
              uint8_t* scales, uint32_t* y, uint8_t* flags) {
  row_stage(c, x, n, B, scales, y, flags);
}
void ColAmax(const uint32_t* xb, size_t n, size_t B, size_t w, uint32_t* amax) {
  col_amax(xb, n, B, w, amax);
}
void ColScaleRow(const uint32_t* xr, size_t w, const int32_t* d, uint32_t* y,
                 uint32_t* bad) {
  col_scale_row(xr, w, d, y, bad);
}

}  // namespace mxc::fast::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/hwy_dispatch.h"

namespace mxc::fast::detail {

HWY_EXPORT(RowStage);
HWY_EXPORT(ColAmax);
HWY_EXPORT(ColScaleRow);

void mx_row_stage(Isa isa, const MxStage& c, const uint32_t* x, size_t n,
                  size_t B, uint8_t* scales, uint32_t* y, uint8_t* flags) {
  if (isa != Isa::kScalar) {
    MXC_HWY_DISPATCH(RowStage, isa)(c, x, n, B, scales, y, flags);
    return;
  }
  row_stage(c, x, n, B, scales, y, flags);
}

void mx_col_amax(Isa isa, const uint32_t* xb, size_t n, size_t B, size_t w,
                 uint32_t* amax) {
  if (isa != Isa::kScalar) {
    MXC_HWY_DISPATCH(ColAmax, isa)(xb, n, B, w, amax);
    return;
  }
  col_amax(xb, n, B, w, amax);
}

void mx_col_scale_row(Isa isa, const uint32_t* xr, size_t w, const int32_t* d,
                      uint32_t* y, uint32_t* bad) {
  if (isa != Isa::kScalar) {
    MXC_HWY_DISPATCH(ColScaleRow, isa)(xr, w, d, y, bad);
    return;
  }
  col_scale_row(xr, w, d, y, bad);
}

}  // namespace mxc::fast::detail
#endif  // HWY_ONCE
