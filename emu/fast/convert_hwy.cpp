// The SIMD path of emu/fast/convert_fast.cpp, one Highway source for every
// target (emu/fast/isa.h: AVX2, AVX3, NEON, SVE, SVE2): the integer
// formulation of run_plan_one, a vector at a time, four vectors stored as
// bytes per step; the inputs left over (fewer than one vector) go to
// run_plan_one. Two kernels:
//  - Lanes: the integer formulation itself (every covered plan);
//  - LanesFp (RNE/RZ/RU/RD, not E8M0, specials folding): the FP unit.
//    x * 2^(m - max(e, emin)) is exact and lands in [0, 2^(m+1)]; rounding
//    it to an integer in the IEEE mode (Round / Trunc / Ceil / Floor: RU/RD
//    on the signed value, so they act on the right side; RNE/RZ, being
//    symmetric, on the magnitude) gives the quotient;
//    the encoding is that integer plus the exponent offset. Specials fold
//    into one unsigned min when the overflow result is max or max+1
//    (detail::fp_specials_fold), Inf/NaN lanes give huge integers there.
// kUZ (signed, not .relu, Plan::unsigned_zero: the FNUZ formats): a
// negative lane whose magnitude encodes as 0 gives +0, not the sign bit
// alone (their NaN).
// Every target's result is checked bit for bit against the reference
// mxc::convert by tests/test_fast_convert.cpp (each ISA isa_available()).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/convert_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "emu/fast/convert_fast.h"
#include "emu/fast/hwy_pack-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
// Highway's baseline fallback is compiled (it must be) but never dispatched:
// Isa::kScalar is run_plan_one (emu/fast/isa.h).
size_t ConvertBlocks(const Plan&, const uint32_t*, uint8_t*, size_t) {
  return 0;
}
#else

using DI = hn::ScalableTag<int32_t>;
using VI = hn::Vec<DI>;

// The integer formulation (convert_fast.cpp, run_plan_one).
template <Round M, bool E8, bool kSigned, bool kRelu, bool kInfDiff, bool kUZ>
HWY_INLINE VI Lanes(const Plan& p, VI x) {
  const DI di;
  const VI zero = hn::Zero(di), one = hn::Set(di, 1);
  const VI abs = hn::And(x, hn::Set(di, 0x7FFFFFFF));
  const VI exp_inf = hn::Set(di, 0x7F800000);
  const VI e = hn::ShiftRight<23>(abs);
  VI sig, sh, off;
  if constexpr (E8) {
    const VI normal = hn::Or(hn::And(abs, hn::Set(di, 0x7FFFFF)),
                             hn::Set(di, 0x800000));
    sig = hn::IfThenElse(hn::Eq(e, zero), hn::ShiftLeft<1>(abs), normal);
    sh = hn::Set(di, 23);
    off = hn::Sub(e, one);
  } else {
    const VI ee = hn::Max(e, one);
    sig = hn::Sub(abs, hn::ShiftLeft<23>(hn::Sub(ee, one)));
    sh = hn::Min(hn::Max(hn::Sub(hn::Set(di, p.c_sh), ee),
                         hn::Set(di, 23 - p.m)),
                 hn::Set(di, 25));
    off = hn::ShiftLeftSame(hn::Max(hn::Sub(ee, hn::Set(di, p.c_off)), zero),
                            p.m);
  }
  // -1 in negative lanes of a signed target, else 0.
  const VI neg = kSigned ? hn::ShiftRight<31>(x) : zero;
  // sh is in [20, 25] here, sig below 2^25: every shift count is in range.
  VI n = hn::Shr(sig, sh);
  // The truncated encoding's last bit (E8M0: the exponent's parity; the
  // virtual zero below 2^-127 is even).
  const VI odd = E8 ? hn::IfThenZeroElse(hn::Eq(n, zero),
                                         hn::And(hn::Add(n, off), one))
                    : hn::And(n, one);
  const VI unit = hn::Shl(one, sh);  // 2^sh
  if constexpr (M == Round::kRNE) {
    const VI halfm1 = hn::Sub(hn::ShiftRight<1>(unit), one);
    n = hn::Shr(hn::Add(hn::Add(sig, halfm1), odd), sh);
  } else if constexpr (M == Round::kRNA) {
    n = hn::Shr(hn::Add(sig, hn::ShiftRight<1>(unit)), sh);
  } else if constexpr (M == Round::kRNZ) {  // up only past the midpoint
    n = hn::Shr(hn::Add(sig, hn::Sub(hn::ShiftRight<1>(unit), one)), sh);
  } else if constexpr (M == Round::kRU || M == Round::kRD) {
    const VI mask = hn::Sub(unit, one);
    const VI add = M == Round::kRU ? hn::AndNot(neg, mask) : hn::And(neg, mask);
    n = hn::Shr(hn::Add(sig, add), sh);
  } else if constexpr (M == Round::kOdd) {
    const VI mask = hn::Sub(unit, one);
    const VI inexact =
        hn::IfThenZeroElse(hn::Eq(hn::And(sig, mask), zero), one);
    n = hn::Add(n, hn::AndNot(odd, inexact));
  }
  VI enc = hn::Add(n, off);
  if constexpr (E8) enc = hn::Max(enc, zero);
  const auto over = hn::Gt(enc, hn::Set(di, p.max_enc));
  VI res = enc;
  VI special = hn::Set(di, p.ovf[0]);
  if constexpr (kSigned) {
    const VI sign_of = kUZ ? hn::IfThenZeroElse(hn::Eq(enc, zero), neg) : neg;
    const VI sign_bit = hn::Set(di, static_cast<int32_t>(p.sign_bit));
    res = hn::Or(res, hn::And(sign_of, sign_bit));
    if constexpr (kRelu) res = hn::AndNot(neg, res);
    special = hn::IfThenElse(hn::MaskFromVec(neg), hn::Set(di, p.ovf[1]),
                             special);
  }
  if constexpr (kInfDiff) {
    VI inf = hn::Set(di, p.inf[0]);
    if constexpr (kSigned) {
      inf = hn::IfThenElse(hn::MaskFromVec(neg), hn::Set(di, p.inf[1]), inf);
    }
    special = hn::IfThenElse(hn::Eq(abs, exp_inf), inf, special);
  }
  res = hn::IfThenElse(over, special, res);
  return hn::IfThenElse(hn::Gt(abs, exp_inf), hn::Set(di, p.nan), res);
}

// The FP-unit variant (see the top of this file). kMode: RNE, RZ, RU, RD.
template <Round kMode, bool kSigned, bool kRelu, bool kInfDiff, bool kUZ>
HWY_INLINE VI LanesFp(const Plan& p, VI x) {
  const DI di;
  const hn::RebindToFloat<DI> df;
  const hn::RebindToUnsigned<DI> du;
  const VI abs = hn::And(x, hn::Set(di, 0x7FFFFFFF));
  const VI exp_inf = hn::Set(di, 0x7F800000);
  // The least quantum's exponent field (emin's), and 2^m / 2^e as the bits
  // C - (e's exponent field).
  const VI emin_bits = hn::Set(di, (p.c_off) << 23);
  const VI eq = hn::Max(hn::And(x, exp_inf), emin_bits);
  const VI scale = hn::Sub(hn::Set(di, (254 + p.m) << 23), eq);
  // RNE and RZ are symmetric: round the magnitude, so y >= 0 and the
  // integer needs no Abs. RU/RD round the signed value (their direction
  // depends on the sign).
  constexpr bool kOnSigned =
      kSigned && (kMode == Round::kRU || kMode == Round::kRD);
  const auto v = hn::BitCast(df, kOnSigned ? x : abs);
  auto y = hn::Mul(v, hn::BitCast(df, scale));  // exact
  if constexpr (kMode == Round::kRNE) {
    y = hn::Round(y);
  } else if constexpr (kMode == Round::kRZ) {
    y = hn::Trunc(y);
  } else if constexpr (kMode == Round::kRU) {
    y = hn::Ceil(y);
  } else {
    y = hn::Floor(y);
  }
  // Integral now, |y| <= 2^(m+1) <= 16 for finite inputs.
#if HWY_TARGET == HWY_AVX2
  // cvtps_epi32 is exact on these integral values; Inf/NaN (either sign)
  // give 0x80000000: above every overflow result after the unsigned min
  // below, and the Inf/NaN blends replace them. (Highway's ConvertTo adds
  // a fix-up for out-of-range lanes that is not needed here.)
  VI n{_mm256_cvtps_epi32(y.raw)};
  if constexpr (kOnSigned) n = hn::Abs(n);
#else
  // |y| + 2^23 is exact and its bits less those of 2^23 are |y| (cheaper
  // than ConvertTo, whose x86 version fixes up out-of-range lanes). Inf
  // gives 0x34800000 and NaN at least that: above every overflow result
  // after the unsigned min below, and the Inf/NaN blends replace them.
  const VI n = hn::Sub(
      hn::BitCast(di, hn::Add(kOnSigned ? hn::Abs(y) : y,
                              hn::Set(df, 8388608.0f))),
      hn::Set(di, 0x4B000000));
#endif
  const VI off = hn::ShiftRightSame(hn::Sub(eq, emin_bits), 23 - p.m);
  VI res = hn::BitCast(
      di, hn::Min(hn::BitCast(du, hn::Add(n, off)),
                  hn::BitCast(du, hn::Set(di, p.ovf[0]))));
  if constexpr (kInfDiff) {
    res = hn::IfThenElse(hn::Eq(abs, exp_inf), hn::Set(di, p.inf[0]), res);
  }
  if constexpr (kSigned) {
    if constexpr (kRelu) {
      res = hn::IfThenZeroElse(hn::Lt(x, hn::Zero(di)), res);
    } else {
      const int bits = desc(p.to).bits;
      VI sign = hn::BitCast(
          di, hn::ShiftRightSame(hn::BitCast(du, hn::AndNot(abs, x)),
                                 32 - bits));
      if constexpr (kUZ) {
        sign = hn::IfThenZeroElse(hn::Eq(res, hn::Zero(di)), sign);
      }
      res = hn::Or(res, sign);
    }
  }
  return hn::IfThenElse(hn::Gt(abs, exp_inf), hn::Set(di, p.nan), res);
}

// Runs `lanes` over whole groups of four vectors, then single vectors;
// returns how many inputs it did (the rest: fewer than one vector).
template <class F>
HWY_INLINE size_t Loop(const uint32_t* in, uint8_t* out, size_t n, F lanes) {
  const DI di;
  const size_t N = hn::Lanes(di);
  const auto* src = reinterpret_cast<const int32_t*>(in);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const VI r0 = lanes(hn::LoadU(di, src + i));
    const VI r1 = lanes(hn::LoadU(di, src + i + N));
    const VI r2 = lanes(hn::LoadU(di, src + i + 2 * N));
    const VI r3 = lanes(hn::LoadU(di, src + i + 3 * N));
    StoreBytes4(di, r0, r1, r2, r3, out + i);
  }
  for (; i + N <= n; i += N) StoreBytes1(di, lanes(hn::LoadU(di, src + i)), out + i);
  return i;
}

using KernelFn = size_t (*)(const Plan&, const uint32_t*, uint8_t*, size_t);

// The lambdas capture a copy of the plan: the byte stores may alias the
// caller's Plan, which would make the compiler reload and re-broadcast
// every constant per vector; a local copy stays in registers.
template <Round M, bool E8, bool kSigned, bool kRelu, bool kInfDiff,
          bool kUZ = false>
size_t Kernel(const Plan& p, const uint32_t* in, uint8_t* out, size_t n) {
  return Loop(in, out, n, [q = p](VI x) HWY_ATTR {
    return Lanes<M, E8, kSigned, kRelu, kInfDiff, kUZ>(q, x);
  });
}

template <Round M, bool kSigned, bool kRelu, bool kInfDiff, bool kUZ = false>
size_t KernelFp(const Plan& p, const uint32_t* in, uint8_t* out, size_t n) {
  return Loop(in, out, n, [q = p](VI x) HWY_ATTR {
    return LanesFp<M, kSigned, kRelu, kInfDiff, kUZ>(q, x);
  });
}

template <Round M, bool kSigned>
KernelFn PickFp3(bool relu, bool inf_diff, bool uz) {
  if (relu) {
    return inf_diff ? KernelFp<M, kSigned, kSigned, true>
                    : KernelFp<M, kSigned, kSigned, false>;
  }
  if constexpr (kSigned) {
    if (uz) {
      return inf_diff ? KernelFp<M, true, false, true, true>
                      : KernelFp<M, true, false, false, true>;
    }
  }
  return inf_diff ? KernelFp<M, kSigned, false, true>
                  : KernelFp<M, kSigned, false, false>;
}

template <Round M>
KernelFn PickFp2(const Plan& p, bool inf_diff) {
  if (!p.is_signed) return PickFp3<M, false>(false, inf_diff, false);
  return PickFp3<M, true>(p.relu, inf_diff, p.unsigned_zero);
}

KernelFn PickFp(const Plan& p) {
  // E8M0 keeps the integer kernel: near 2^127 its scale 2^-127 would be
  // subnormal, which the exponent-field arithmetic cannot form.
  if (p.e8m0 || !detail::fp_specials_fold(p)) return nullptr;
  const bool inf_diff = p.inf[0] != p.ovf[0];
  switch (p.spec.mode) {
    case Round::kRNE:
      return PickFp2<Round::kRNE>(p, inf_diff);
    case Round::kRZ:
      return PickFp2<Round::kRZ>(p, inf_diff);
    case Round::kRU:
      return PickFp2<Round::kRU>(p, inf_diff);
    case Round::kRD:
      return PickFp2<Round::kRD>(p, inf_diff);
    default:
      return nullptr;
  }
}

template <Round M, bool E8, bool kSigned>
KernelFn Pick3(bool relu, bool inf_diff, bool uz) {
  if (relu) {
    return inf_diff ? Kernel<M, E8, kSigned, kSigned, true>
                    : Kernel<M, E8, kSigned, kSigned, false>;
  }
  if constexpr (kSigned && !E8) {
    if (uz) {
      return inf_diff ? Kernel<M, false, true, false, true, true>
                      : Kernel<M, false, true, false, false, true>;
    }
  }
  return inf_diff ? Kernel<M, E8, kSigned, false, true>
                  : Kernel<M, E8, kSigned, false, false>;
}

template <Round M>
KernelFn Pick2(const Plan& p, bool inf_diff) {
  if (p.e8m0) return Pick3<M, true, false>(false, inf_diff, false);
  if (!p.is_signed) return Pick3<M, false, false>(false, inf_diff, false);
  return Pick3<M, false, true>(p.relu, inf_diff, p.unsigned_zero);
}

KernelFn Pick(const Plan& p) {
  if (const KernelFn f = PickFp(p)) return f;
  const bool inf_diff = p.inf[0] != p.ovf[0] || p.inf[1] != p.ovf[1];
  switch (p.spec.mode) {
    case Round::kRNE:
      return Pick2<Round::kRNE>(p, inf_diff);
    case Round::kRNA:
      return Pick2<Round::kRNA>(p, inf_diff);
    case Round::kRZ:
      return Pick2<Round::kRZ>(p, inf_diff);
    case Round::kRU:
      return Pick2<Round::kRU>(p, inf_diff);
    case Round::kRD:
      return Pick2<Round::kRD>(p, inf_diff);
    case Round::kOdd:
      return Pick2<Round::kOdd>(p, inf_diff);
    case Round::kRNZ:
      return Pick2<Round::kRNZ>(p, inf_diff);
    case Round::kSR:  // not covered (convert_fast.cpp covers())
      break;
  }
  return nullptr;
}

// out[i] for the first inputs, a whole number of vectors; returns how many
// (0 when the plan is not one these kernels take).
size_t ConvertBlocks(const Plan& p, const uint32_t* in, uint8_t* out,
                     size_t n) {
  const KernelFn f = Pick(p);
  return f == nullptr ? 0 : f(p, in, out, n);
}
#endif  // HWY_TARGET

int64_t ConvertTarget() { return HWY_TARGET; }

}  // namespace mxc::fast::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/hwy_dispatch.h"
#include "emu/fast/fp_env.h"

namespace mxc::fast {

HWY_EXPORT(ConvertBlocks);
HWY_EXPORT(ConvertTarget);

namespace detail {

size_t convert_blocks(Isa isa, const Plan& p, const uint32_t* in,
                      uint8_t* out, size_t n) {
  const FpEnvDefault fp_env;  // fp_env.h
  return MXC_HWY_DISPATCH(ConvertBlocks, isa)(p, in, out, n);
}

int64_t convert_target(Isa isa) {
  return MXC_HWY_DISPATCH(ConvertTarget, isa)();
}

}  // namespace detail
}  // namespace mxc::fast
#endif  // HWY_ONCE
