// The sweep kernel (fast::sweep_range, emu/fast/sweep.h): consecutive f32
// encodings, cut at binade boundaries. Within one binade (fixed sign and
// biased exponent E) the shift, the exponent offset and the sign of
// run_plan_one's formulation (emu/fast/convert_fast.cpp) are constant, so
// each result is a rounded quotient of sig = sig0 + i plus one base code,
// and only the rounding is left per element (detail::BinadeRun). The
// rounded quotient is monotone in i, so its two ends tell whether a run
// overflows nowhere (the run kernel), everywhere (the plan's overflow
// constant) or somewhere (run_plan on the run's inputs: one run per sign).
// E = 255 is Inf at f = 0 and NaN elsewhere (the plan's constants).
#include <algorithm>
#include <cstring>

#include "emu/fast/sweep.h"
#include "emu/fast/fp_env.h"

namespace mxc::fast {
namespace detail {

uint32_t binade_round(const BinadeRun& r, uint32_t i) {
  const uint32_t sig = r.sig0 + i;
  switch (r.kind) {
    case BinadeRun::kAdd:
      return (sig + r.a) >> r.sh;
    case BinadeRun::kRne: {
      const uint32_t u = sig + (1u << (r.sh - 1)) - 1u;
      return (u + ((u >> r.sh) & 1u)) >> r.sh;
    }
    case BinadeRun::kOdd: {
      const uint32_t n = sig >> r.sh;
      const uint32_t c = (sig + ((1u << r.sh) - 1u)) >> r.sh;
      return n | ((n ^ c) & 1u);
    }
  }
  return 0;
}

uint64_t binade_scalar(const BinadeRun& r, uint8_t* out, size_t n) {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    out[i] = static_cast<uint8_t>(binade_round(r, static_cast<uint32_t>(i)) +
                                  r.base);
    sum += out[i];
  }
  return sum;
}

}  // namespace detail

namespace {

uint64_t fill(uint8_t* out, size_t n, uint8_t v) {
  std::memset(out, v, n);
  return uint64_t{v} * n;
}

// run_plan over first..first+n-1 (the run that crosses the overflow
// threshold, E8M0's E = 0 binade, uncovered specs).
uint64_t generic(const Plan& p, Isa isa, uint32_t first, uint8_t* out,
                 size_t n) {
  constexpr size_t kBlock = 1024;
  uint32_t in[kBlock];
  uint64_t sum = 0;
  for (size_t b = 0; b < n; b += kBlock) {
    const size_t len = std::min(kBlock, n - b);
    for (size_t i = 0; i < len; ++i)
      in[i] = first + static_cast<uint32_t>(b + i);
    run_plan(p, isa, in, out + b, len);
    for (size_t i = 0; i < len; ++i) sum += out[b + i];
  }
  return sum;
}

uint64_t run_kernel(Isa isa, const detail::BinadeRun& r, uint8_t* out,
                    size_t n) {
  // An ISA the machine lacks (or MXC_ISA excludes): the best one below.
  if (isa != Isa::kScalar && !isa_supported(isa)) isa = isa_below(isa);
  if (isa != Isa::kScalar) return detail::binade_simd(isa, r, out, n);
  return detail::binade_scalar(r, out, n);
}

// first..first+n-1 lie in one binade.
uint64_t binade(const Plan& p, Isa isa, uint32_t first, uint8_t* out,
                size_t n) {
  const uint32_t e = (first >> 23) & 0xFFu;
  const bool neg = p.is_signed && (first >> 31) != 0;
  const uint32_t f = first & 0x7FFFFFu;
  if (e == 255) {
    if (f != 0) return fill(out, n, p.nan);
    out[0] = p.inf[neg];
    return out[0] + fill(out + 1, n - 1, p.nan);
  }
  // E8M0 at E = 0 clamps the encoding at 0 (off = -1); m = 0 elsewhere
  // would make the exponent offset odd: both stay with run_plan.
  if (p.e8m0 ? e == 0 : p.m == 0) return generic(p, isa, first, out, n);
  // sig, sh and off as in run_plan_one.
  uint32_t sig0, sh;
  int32_t off;
  if (p.e8m0) {
    sig0 = f | 0x800000u;
    sh = 23;
    off = static_cast<int32_t>(e) - 1;
  } else {
    const int32_t ee = std::max(static_cast<int32_t>(e), 1);
    sig0 = e != 0 ? f | 0x800000u : f;
    sh = static_cast<uint32_t>(std::min(std::max(p.c_sh - ee, 23 - p.m), 25));
    off = std::max(ee - p.c_off, 0) << p.m;
  }
  const uint32_t half = 1u << (sh - 1), ulp_m1 = (1u << sh) - 1u;
  detail::BinadeRun r;
  r.sh = sh;
  uint32_t& a = r.a;
  switch (p.spec.mode) {
    case Round::kRZ:
    case Round::kSR:  // not covered: never reached
    case Round::kRNZ:
      break;
    case Round::kRNA:
      a = half;
      break;
    case Round::kRU:
      a = neg ? 0 : ulp_m1;
      break;
    case Round::kRD:
      a = neg ? ulp_m1 : 0;
      break;
    case Round::kRNE:
      // E8M0 (sh = 23, sig in [2^23, 2^24)): the truncated quotient is 1,
      // so the tie-breaking parity (1 + off) & 1 is constant.
      if (p.e8m0) {
        a = half - 1 + ((1u + static_cast<uint32_t>(off)) & 1u);
      } else {
        r.kind = detail::BinadeRun::kRne;
      }
      break;
    case Round::kOdd:
      if (p.e8m0) {
        a = ((1u + static_cast<uint32_t>(off)) & 1u) != 0 ? 0 : ulp_m1;
      } else {
        r.kind = detail::BinadeRun::kOdd;
      }
      break;
  }
  r.sig0 = sig0;
  const auto last = static_cast<uint32_t>(n - 1);
  if (off + static_cast<int32_t>(detail::binade_round(r, 0)) > p.max_enc)
    return fill(out, n, p.ovf[neg]);
  if (off + static_cast<int32_t>(detail::binade_round(r, last)) > p.max_enc)
    return generic(p, isa, first, out, n);
  if (neg && p.relu) return fill(out, n, 0);
  r.base =
      static_cast<uint8_t>(off + static_cast<int32_t>(neg ? p.sign_bit : 0));
  return run_kernel(isa, r, out, n);
}

}  // namespace

uint64_t sweep_range(const Plan& p, Isa isa, uint32_t first, uint8_t* out,
                     size_t n) {
  const FpEnvDefault fp_env;  // fp_env.h
  if (!p.covered) return generic(p, isa, first, out, n);
  uint64_t sum = 0;
  size_t done = 0;
  while (done < n) {
    const uint32_t x = first + static_cast<uint32_t>(done);
    const size_t to_end = (size_t{1} << 23) - (x & 0x7FFFFFu);
    const size_t len = std::min(n - done, to_end);
    sum += binade(p, isa, x, out + done, len);
    done += len;
  }
  return sum;
}

}  // namespace mxc::fast
