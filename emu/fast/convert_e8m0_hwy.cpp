// A dedicated kernel for f32 -> E8M0 (issue 7), one Highway source for
// every target (emu/fast/isa.h); convert_fast.cpp's run_plan tries it first
// for E8M0 plans. E8M0 is unsigned (the input's sign is ignored, as
// Plan::is_signed = false makes the generic formulation do), so a finite
// |x| = 2^(E - 127) * (1 + f/2^23) (E >= 1) rounds to the encoding E or
// E + 1, and the rounding reads only the 23 fraction bits. With abs = |x|'s
// bits, the generic formulation of convert_fast.cpp (sig = f + 2^23,
// sh = 23, offset E - 1) reduces to:
//   RZ, RD (never negative here): E = abs >> 23
//   RU:  (abs + 2^23 - 1) >> 23
//   RNA: (abs + 2^22) >> 23
//   RNE: (abs + 2^22 - 1 + (E & 1)) >> 23      (ties to the even encoding)
//   odd: (abs >> 23) | (f != 0)
// f32 subnormals (E = 0) read as sig = f << 1 at offset -1: the encoding is
// 1 when sig >= 2^23 rounds up to 2^24 and 0 otherwise (also below 2^-127:
// the reference clamps to E8M0's least value, emu/round_pack.cpp). The
// encoding is 1 exactly above a mode's threshold Z; the formulas above give
// 1 there too, but also on part of (0, Z], so zeroing |x| <= Z makes them
// exact:
//   RU, odd: Z = 2^22 (2^-127 itself is exact; anything above rounds up)
//   RNA: Z = 3 * 2^21 - 1 (the half-way point 1.5 * 2^-127 rounds away)
//   RNE: Z = 3 * 2^21 (the tie goes to the even encoding 0)
// Finite inputs give at most 255 (E = 254 rounding up), above the largest
// finite encoding Plan::max_enc = 254, and Inf/NaN (E = 255) give 255 or
// 256; so min(result, Plan::ovf) is the overflow result when ovf is
// max_enc or max_enc + 1, and Inf and NaN hold ovf after it. Inf and NaN
// inputs are then patched with Plan::inf / Plan::nan where those differ
// from ovf. Preconditions the plan must meet are checked in PickE8; any
// other plan returns 0 (the generic kernel of convert_hwy.cpp runs).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/convert_e8m0_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "emu/fast/convert_fast.h"
#include "emu/fast/hwy_pack-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
// Never dispatched (emu/fast/isa.h): Isa::kScalar is run_plan_one.
size_t E8m0Blocks(const Plan&, const uint32_t*, uint8_t*, size_t) { return 0; }
#else

using DI = hn::ScalableTag<int32_t>;
using VI = hn::Vec<DI>;

// The rounding formula: RZ (also RD), RU, RNA, RNE or odd.
enum class E8 : uint8_t { kRz, kRu, kRna, kRne, kOdd };

struct E8Consts {
  int32_t addend = 0, zmax = 0;
};

constexpr E8Consts consts(E8 m) {
  switch (m) {
    case E8::kRu:
      return {0x7FFFFF, 0x400000};
    case E8::kRna:
      return {0x400000, 0x5FFFFF};
    case E8::kRne:
      return {0x3FFFFF, 0x600000};
    case E8::kOdd:
      return {0, 0x400000};
    case E8::kRz:
      break;
  }
  return {0, 0};
}

// Results, each in [0, 255].
template <E8 M, bool kInfFix, bool kNanFix>
HWY_INLINE VI LanesE8(const Plan& p, VI x) {
  const DI di;
  constexpr E8Consts c = consts(M);
  const VI abs = hn::And(x, hn::Set(di, 0x7FFFFFFF));
  const VI exp_inf = hn::Set(di, 0x7F800000);
  const VI cap = hn::Set(di, p.ovf[0]);
  VI res;
  if constexpr (M == E8::kRz) {
    res = hn::Min(hn::ShiftRight<23>(abs), cap);
  } else {
    VI enc;
    if constexpr (M == E8::kOdd) {
      enc = hn::ShiftRight<23>(abs);
      const VI inexact = hn::IfThenZeroElse(
          hn::Eq(hn::And(abs, hn::Set(di, 0x7FFFFF)), hn::Zero(di)),
          hn::Set(di, 1));
      enc = hn::Or(enc, inexact);
    } else {
      VI w = hn::Add(abs, hn::Set(di, c.addend));
      if constexpr (M == E8::kRne) {
        // + (E & 1): bit 23 of abs.
        w = hn::Add(w, hn::And(hn::ShiftRight<23>(abs), hn::Set(di, 1)));
      }
      // Logical shift: for Inf/NaN inputs w passes 2^31.
      const hn::RebindToUnsigned<DI> du;
      enc = hn::BitCast(di, hn::ShiftRight<23>(hn::BitCast(du, w)));
    }
    res = hn::IfThenElseZero(hn::Gt(abs, hn::Set(di, c.zmax)),
                             hn::Min(enc, cap));
  }
  if constexpr (kInfFix) {
    res = hn::IfThenElse(hn::Eq(abs, exp_inf), hn::Set(di, p.inf[0]), res);
  }
  if constexpr (kNanFix) {
    res = hn::IfThenElse(hn::Gt(abs, exp_inf), hn::Set(di, p.nan), res);
  }
  return res;
}

template <E8 M, bool kInfFix, bool kNanFix>
size_t KernelE8(const Plan& plan, const uint32_t* in, uint8_t* out, size_t n) {
  // A local copy: the byte stores may alias the caller's Plan (see
  // convert_hwy.cpp's Kernel).
  const Plan p = plan;
  const DI di;
  const size_t N = hn::Lanes(di);
  const auto* src = reinterpret_cast<const int32_t*>(in);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const VI r0 = LanesE8<M, kInfFix, kNanFix>(p, hn::LoadU(di, src + i));
    const VI r1 = LanesE8<M, kInfFix, kNanFix>(p, hn::LoadU(di, src + i + N));
    const VI r2 =
        LanesE8<M, kInfFix, kNanFix>(p, hn::LoadU(di, src + i + 2 * N));
    const VI r3 =
        LanesE8<M, kInfFix, kNanFix>(p, hn::LoadU(di, src + i + 3 * N));
    StoreBytes4(di, r0, r1, r2, r3, out + i);
  }
  for (; i + N <= n; i += N) {
    StoreBytes1(di, LanesE8<M, kInfFix, kNanFix>(p, hn::LoadU(di, src + i)),
                out + i);
  }
  return i;
}

using KernelE8Fn = size_t (*)(const Plan&, const uint32_t*, uint8_t*, size_t);

template <E8 M>
KernelE8Fn PickFix(bool inf_fix, bool nan_fix) {
  if (inf_fix) {
    return nan_fix ? KernelE8<M, true, true> : KernelE8<M, true, false>;
  }
  return nan_fix ? KernelE8<M, false, true> : KernelE8<M, false, false>;
}

KernelE8Fn PickE8(const Plan& p) {
  // The reasoning above needs: E8M0's largest finite encoding 254, results
  // independent of the sign, and an overflow result that min() can give.
  if (!p.covered || !p.e8m0 || p.is_signed || p.relu || p.max_enc != 254 ||
      p.ovf[0] != p.ovf[1] || p.inf[0] != p.inf[1] ||
      (p.ovf[0] != 254 && p.ovf[0] != 255)) {
    return nullptr;
  }
  // After min(), Inf and NaN inputs hold ovf.
  const bool inf_fix = p.inf[0] != p.ovf[0];
  const bool nan_fix = p.nan != p.ovf[0];
  switch (p.spec.mode) {
    case Round::kRZ:
    case Round::kRD:  // E8M0 results are never negative: RD is RZ
      return PickFix<E8::kRz>(inf_fix, nan_fix);
    case Round::kRU:
      return PickFix<E8::kRu>(inf_fix, nan_fix);
    case Round::kRNA:
      return PickFix<E8::kRna>(inf_fix, nan_fix);
    case Round::kRNE:
      return PickFix<E8::kRne>(inf_fix, nan_fix);
    case Round::kOdd:
      return PickFix<E8::kOdd>(inf_fix, nan_fix);
    case Round::kSR:
    case Round::kRNZ:  // not covered (convert_fast.cpp covers())
      break;
  }
  return nullptr;
}

size_t E8m0Blocks(const Plan& p, const uint32_t* in, uint8_t* out, size_t n) {
  const KernelE8Fn f = PickE8(p);
  return f == nullptr ? 0 : f(p, in, out, n);
}
#endif  // HWY_TARGET

}  // namespace mxc::fast::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/hwy_dispatch.h"

namespace mxc::fast {

HWY_EXPORT(E8m0Blocks);

size_t detail::e8m0_blocks(Isa isa, const Plan& p, const uint32_t* in,
                           uint8_t* out, size_t n) {
  return MXC_HWY_DISPATCH(E8m0Blocks, isa)(p, in, out, n);
}

}  // namespace mxc::fast
#endif  // HWY_ONCE
