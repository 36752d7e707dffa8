// The run kernel of the sweep (detail::BinadeRun, emu/fast/sweep.h), one
// Highway source for every target (emu/fast/isa.h). Per vector:
// u = sig + addend advances by one add, the rounded quotient is u >> sh
// (RNE as round half up, odd as floor | 1, both patched afterwards at the
// one input in 2^sh where they differ: a tie, an exact quotient); four
// vectors pack to bytes in input order (every quotient is below 256; the
// lanes hold the inputs in the packs' order, PackSource), then
// one byte add of the run's base code and a sum of bytes (SumsOf8) for the
// checksum. The rest of the run (less than four vectors) and the patches
// go through binade_round. Checked bit for bit against the reference by
// tests/test_fast_sweep.cpp on every ISA isa_available().
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/sweep_hwy.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "emu/fast/hwy_pack-inl.h"
#include "emu/fast/sweep.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
// Never dispatched (emu/fast/isa.h): Isa::kScalar is binade_scalar.
size_t BinadeBlocks(const detail::BinadeRun&, uint32_t, uint8_t*, size_t,
                    uint64_t*) {
  return 0;
}
#else

// Inputs 0..done-1 of the run with `addend` (see the top of this file);
// returns done, a multiple of four vectors, and their byte sum in *sum.
template <bool kOr1>
size_t Blocks(const detail::BinadeRun& r, uint32_t addend, uint8_t* out,
              size_t n, uint64_t* sum) {
  const hn::ScalableTag<uint32_t> du;
  const hn::Repartition<uint8_t, decltype(du)> d8;
  const hn::Repartition<uint64_t, decltype(du)> d64;
  const size_t N = hn::Lanes(du);
  const int sh = static_cast<int>(r.sh);
  const auto step = hn::Set(du, static_cast<uint32_t>(4 * N));
  const auto base = hn::Set(d8, r.base);
  const auto one = hn::Set(d8, uint8_t{1});
  // Vector q holds the inputs PackSource(du, q) of each step, so that the
  // packed bytes come out in input order without a permute.
  const auto s0 = hn::Set(du, r.sig0 + addend);
  auto u0 = hn::Add(s0, PackSource(du, 0));
  auto u1 = hn::Add(s0, PackSource(du, 1));
  auto u2 = hn::Add(s0, PackSource(du, 2));
  auto u3 = hn::Add(s0, PackSource(du, 3));
  auto acc = hn::Zero(d64);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    auto b = PackBytes4Blocked(
        du, hn::ShiftRightSame(u0, sh), hn::ShiftRightSame(u1, sh),
        hn::ShiftRightSame(u2, sh), hn::ShiftRightSame(u3, sh));
    u0 = hn::Add(u0, step);
    u1 = hn::Add(u1, step);
    u2 = hn::Add(u2, step);
    u3 = hn::Add(u3, step);
    if constexpr (kOr1) b = hn::Or(b, one);
    b = hn::Add(b, base);
    hn::StoreU(b, d8, out + i);
    acc = hn::Add(acc, hn::SumsOf8(b));
  }
  *sum = hn::GetLane(hn::SumOfLanes(d64, acc));
  return i;
}

size_t BinadeBlocks(const detail::BinadeRun& r, uint32_t addend, uint8_t* out,
                    size_t n, uint64_t* sum) {
  return r.kind == detail::BinadeRun::kOdd
             ? Blocks<true>(r, addend, out, n, sum)
             : Blocks<false>(r, addend, out, n, sum);
}
#endif  // HWY_TARGET

}  // namespace mxc::fast::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/hwy_dispatch.h"
#include "emu/fast/fp_env.h"

namespace mxc::fast {

HWY_EXPORT(BinadeBlocks);

namespace detail {
namespace {

// After the vector pass: the inputs with sig = res (mod 2^sh) get q, and
// the byte sum follows.
uint64_t patch(const BinadeRun& r, uint8_t* out, size_t n, uint64_t sum) {
  if (r.kind == BinadeRun::kAdd) return sum;
  const uint32_t res = r.kind == BinadeRun::kRne ? 1u << (r.sh - 1) : 0u;
  const size_t period = size_t{1} << r.sh;
  for (size_t i = (res - r.sig0) & (period - 1); i < n; i += period) {
    const auto v = static_cast<uint8_t>(
        binade_round(r, static_cast<uint32_t>(i)) + r.base);
    sum = sum - out[i] + v;
    out[i] = v;
  }
  return sum;
}

uint32_t vector_addend(const BinadeRun& r) {
  switch (r.kind) {
    case BinadeRun::kAdd:
      return r.a;
    case BinadeRun::kRne:
      return 1u << (r.sh - 1);  // round half up; ties patched
    case BinadeRun::kOdd:
      break;  // (sig >> sh) | 1; exact inputs patched
  }
  return 0;
}

}  // namespace

uint64_t binade_simd(Isa isa, const BinadeRun& r, uint8_t* out, size_t n) {
  const FpEnvDefault fp_env;  // fp_env.h
  uint64_t sum = 0;
  const size_t done =
      MXC_HWY_DISPATCH(BinadeBlocks, isa)(r, vector_addend(r), out, n, &sum);
  // The rest of the run (< four vectors) exactly, then the patches.
  BinadeRun rest = r;
  rest.sig0 += static_cast<uint32_t>(done);
  return patch(r, out, done, sum) + binade_scalar(rest, out + done, n - done);
}

}  // namespace detail
}  // namespace mxc::fast
#endif  // HWY_ONCE
