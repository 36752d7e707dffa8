// The IEEE operand decode of make_gemm_plan (gemm_fast.cpp IeeeLine) as one
// Highway kernel (emu/fast/isa.h): per vector of codes, the 64-bit codes
// narrowed to their low 32 bits (a code with a bit in wide_mask, wider than
// its format, reads as +Inf, which decodes as IeeeLine's narrow() makes it)
// and split into val / exp / sgn / flags by IeeeLine::run's formula, lane
// by lane. IeeeLine::run stays the scalar path (Isa::kScalar, and the
// elements past the last whole vector); the GEMM tests compare every ISA's
// result with the reference.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/gemm_plan_hwy.cpp"
#include "emu/fast/gemm_fast_impl.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::gemm_detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

size_t IeeeDecode(const IeeeDecodeParams& q, const uint64_t* codes, size_t n,
                  int32_t* val, int32_t* exp, uint8_t* sgn, uint8_t* flags) {
#if HWY_TARGET == HWY_SCALAR
  // One lane: no pairs of 32-bit halves to take apart (never run: kernels
  // do not run Highway's scalar target, emu/fast/CMakeLists.txt).
  (void)q, (void)codes, (void)n, (void)val, (void)exp, (void)sgn, (void)flags;
  return 0;
#else
  const hn::ScalableTag<uint32_t> du;
  const hn::RebindToSigned<decltype(du)> di;
  const hn::Repartition<uint64_t, decltype(du)> d64;
  const hn::Rebind<uint8_t, decltype(du)> d8;
  const size_t V = hn::Lanes(du), V64 = hn::Lanes(d64);
  const auto zero = hn::Zero(du), one = hn::Set(du, 1u);
  const auto wide_lo = hn::Set(du, static_cast<uint32_t>(q.wide_mask));
  const auto pos_inf = hn::Set(du, q.pos_inf);
  const auto emask = hn::Set(du, q.emask);
  const auto fmask = hn::Set(du, (1u << q.man) - 1);
  const auto hidden = hn::Set(du, 1u << q.man);
  const auto zexp = hn::Set(di, q.zexp), bias = hn::Set(di, q.bias);
  // Codes wider than 32 bits have a bit in wide_mask's upper half (every
  // format here is at most 32 bits wide).
  const bool upper_wide = (q.wide_mask >> 32) != 0;
  size_t i = 0;
  for (; i + V <= n; i += V) {
    // Element i + j's low half in lane j (little-endian pairs), its high
    // half in lane j of hi.
    const auto a = hn::BitCast(du, hn::LoadU(d64, codes + i));
    const auto b = hn::BitCast(du, hn::LoadU(d64, codes + i + V64));
    const auto lo = hn::ConcatEven(du, b, a);
    auto wide = hn::Ne(hn::And(lo, wide_lo), zero);
    if (upper_wide) wide = hn::Or(wide, hn::Ne(hn::ConcatOdd(du, b, a), zero));
    const auto c =
        hn::ShiftRightSame(hn::IfThenElse(wide, pos_inf, lo), q.drop);
    const auto e = hn::And(hn::ShiftRightSame(c, q.man), emask);
    const auto neg = hn::And(hn::ShiftRightSame(c, q.sign), one);
    const auto special = hn::Eq(e, emask);
    const auto sig = hn::IfThenZeroElse(
        special,
        hn::Or(hn::And(c, fmask), hn::IfThenElseZero(hn::Ne(e, zero), hidden)));
    const auto nm = hn::Neg(hn::BitCast(di, neg));  // 0 or -1
    const auto v = hn::Sub(hn::Xor(hn::BitCast(di, sig), nm), nm);
    const auto sig0 = hn::Eq(sig, zero);
    hn::StoreU(hn::ShiftLeftSame(v, q.shift), di, val + i);
    hn::StoreU(hn::IfThenElse(hn::RebindMask(di, sig0), zexp,
                              hn::Sub(hn::BitCast(di, hn::Max(e, one)), bias)),
               di, exp + i);
    hn::StoreU(hn::DemoteTo(d8, hn::BitCast(di, neg)), d8, sgn + i);
    const auto fl = hn::Or(hn::IfThenElseZero(special, one),
                           hn::IfThenElseZero(sig0, hn::Set(du, 2u)));
    hn::StoreU(hn::DemoteTo(d8, hn::BitCast(di, fl)), d8, flags + i);
  }
  return i;
#endif
}

}  // namespace mxc::fast::gemm_detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/hwy_dispatch.h"

namespace mxc::fast::gemm_detail {

HWY_EXPORT(IeeeDecode);

size_t ieee_decode_simd(Isa isa, const IeeeDecodeParams& q,
                        const uint64_t* codes, size_t n, int32_t* val,
                        int32_t* exp, uint8_t* sgn, uint8_t* flags) {
  return MXC_HWY_DISPATCH(IeeeDecode, isa)(q, codes, n, val, exp, sgn, flags);
}

}  // namespace mxc::fast::gemm_detail
#endif  // HWY_ONCE
