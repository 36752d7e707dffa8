// mxc bench rows for conversions (fast path vs CUDA's host function and the
// reference core) and the f32 sweep (1 vs 2 threads). docs/performance.md.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "conformance/cli/bench_common.h"
#include "conformance/oracle/cuda_host_oracle.h"
#include "emu/convert.h"
#include "emu/fast/convert_fast.h"
#include "emu/fast/sweep.h"

namespace mxc::cli::bench {

// Conversion rows: the fast batch path (best ISA and scalar) against CUDA's
// host function called in a tight loop on the same inputs, and against the
// reference core. A working set of 64 Ki inputs (in L2) is converted
// 2^scale times, so the rows measure compute, not DRAM.
struct ConvCase {
  Fmt to;
  Round mode;
  Overflow overflow;
  const char* cuda_name;
};

double time_fast(fast::Isa isa, Fmt to, const RoundSpec& r,
                 const std::vector<uint32_t>& in, size_t reps, uint64_t& sink) {
  std::vector<uint8_t> out(in.size());
  const fast::Plan p = fast::make_plan(to, r);
  return seconds([&] {
    for (size_t k = 0; k < reps; ++k) {
      fast::run_plan(p, isa, in.data(), out.data(), in.size());
      sink += out[k % out.size()];
    }
  });
}

void conversion_rows(size_t scale, SplitMix64& g) {
  const size_t n = size_t{1} << 16, reps = size_t{1} << scale;
  const double items = double(n) * double(reps);
  std::vector<uint32_t> rnd(n), seq(n);
  for (auto& v : rnd) v = static_cast<uint32_t>(g.next());
  for (size_t i = 0; i < n; ++i)  // sweep order: consecutive encodings
    seq[i] = 0x3F000000u + static_cast<uint32_t>(i) * 97u;
  const fast::Isa best = fast::best_isa();
  const bool cuda = cuda_oracle::available();
  uint64_t sink = 0;
  auto baseline = [&](Fmt to, const RoundSpec& r,
                      const std::vector<uint32_t>& in) {
    return seconds([&] {
      for (size_t k = 0; k < reps; ++k)
        for (uint32_t v : in)
          sink += cuda ? *cuda_oracle::convert(Fmt::kF32, to, v, r)
                       : convert(Fmt::kF32, to, v, r);
    });
  };
  const ConvCase cases[] = {
      {Fmt::kE4M3, Round::kRNE, Overflow::kSatFinite, "__nv_cvt_float_to_fp8"},
      {Fmt::kE5M2, Round::kRNE, Overflow::kSatFinite, "__nv_cvt_float_to_fp8"},
      {Fmt::kE3M2, Round::kRNE, Overflow::kSatFinite, "__nv_cvt_float_to_fp6"},
      {Fmt::kE2M3, Round::kRNE, Overflow::kSatFinite, "__nv_cvt_float_to_fp6"},
      {Fmt::kE2M1, Round::kRNE, Overflow::kSatFinite, "__nv_cvt_float_to_fp4"},
      {Fmt::kE8M0, Round::kRU, Overflow::kSatFinite, "__nv_cvt_float_to_e8m0"},
  };
  for (const ConvCase& c : cases) {
    RoundSpec r;
    r.mode = c.mode;
    r.overflow = c.overflow;
    const std::string what =
        fmt::format("cvt f32->{} {} sat [{}]", desc(c.to).name,
                    round_name(c.mode), fast::isa_name(best));
    const std::string base = fmt::format("{}{}", cuda ? "CUDA " : "reference ",
                                         cuda ? c.cuda_name : "mxc::convert");
    const double t = time_fast(best, c.to, r, rnd, reps, sink);
    row(what.c_str(), items, t, base.c_str(), items, baseline(c.to, r, rnd));
    if (c.to == Fmt::kE4M3) {
      // The same on sweep-ordered inputs (CUDA's branches predict well),
      // on the scalar fallback, and against our own reference core.
      row("  same, sweep-ordered inputs", items,
          time_fast(best, c.to, r, seq, reps, sink), base.c_str(), items,
          baseline(c.to, r, seq));
      row("  same, scalar fallback", items,
          time_fast(fast::Isa::kScalar, c.to, r, rnd, reps, sink), base.c_str(),
          items, baseline(c.to, r, rnd));
      const double rt = seconds([&] {
        for (size_t k = 0; k < reps; ++k)
          for (uint32_t v : rnd) sink += convert(Fmt::kF32, c.to, v, r);
      });
      row("  same", items, t, "reference mxc::convert", items, rt);
    }
  }
  if (sink == 42) fmt::print(" ");
}

// The 2^32 sweep (f32 -> e4m3 RNE satfinite, fast path only, checksummed):
// 2^(24+scale) inputs, capped at all 2^32; 2 threads against 1.
void sweep_rows(size_t scale) {
  const uint64_t len = uint64_t{1} << std::min<size_t>(24 + scale, 32);
  RoundSpec r;
  r.overflow = Overflow::kSatFinite;
  uint64_t sum1 = 0, sum2 = 0;
  const double t1 = seconds(
      [&] { sum1 = fast::sweep_f32(Fmt::kE4M3, r, {}, 1, 0, len).checksum; });
  const double t2 = seconds(
      [&] { sum2 = fast::sweep_f32(Fmt::kE4M3, r, {}, 2, 0, len).checksum; });
  row("sweep f32->e4m3, 2 threads", double(len), t2, "same, 1 thread",
      double(len), t1);
  const double full = t1 * double(uint64_t{1} << 32) / double(len);
  fmt::print(
      "  sweep of 2^{} inputs: 1 thread {:.3f} s, 2 threads {:.3f} s; "
      "all 2^32 on 1 thread: {:.2f} s{}{}\n",
      std::bit_width(len) - 1, t1, t2, full,
      len == (uint64_t{1} << 32) ? " (measured)" : " (extrapolated)",
      sum1 == sum2 ? "" : "  CHECKSUM MISMATCH");
}

}  // namespace mxc::cli::bench
