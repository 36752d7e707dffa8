// mxc bench rows for conversions (fast path vs CUDA's host function and the
// reference core) and the f32 sweep (sweep kernel vs run_plan per ISA, 1
// vs 2 threads). docs/performance.md.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "conformance/cli/bench_common.h"
#include "conformance/oracle/cuda_host_batch.h"
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

// *ran: the ISA run_plan ran on (what the row's [brackets] name).
double time_fast(fast::Isa isa, Fmt to, const RoundSpec& r,
                 const std::vector<uint32_t>& in, size_t reps, uint64_t& sink,
                 fast::Isa* ran = nullptr) {
  std::vector<uint8_t> out(in.size());
  const fast::Plan p = fast::make_plan(to, r);
  return seconds([&] {
    for (size_t k = 0; k < reps; ++k) {
      const fast::Isa did = fast::run_plan(p, isa, in.data(), out.data(), in.size());
      if (ran != nullptr) *ran = did;
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
  const fast::Isa best = fast::best_convert_isa();
  const bool cuda = cuda_oracle::available();
  uint64_t sink = 0;
  // The baseline: CUDA's host function inlined in a tight loop
  // (cuda_oracle::convert_f32_batch, compile-time constant arguments);
  // without CUDA headers, the reference core.
  std::vector<uint8_t> bout(n);
  auto baseline = [&](Fmt to, const RoundSpec& r,
                      const std::vector<uint32_t>& in) {
    return seconds([&] {
      for (size_t k = 0; k < reps; ++k) {
        if (!cuda_oracle::convert_f32_batch(to, r, in.data(), bout.data(),
                                            in.size())) {
          for (size_t i = 0; i < in.size(); ++i)
            bout[i] = static_cast<uint8_t>(convert(Fmt::kF32, to, in[i], r));
        }
        sink += bout[k % n];
      }
    });
  };
  // CUDA through the oracle's per-call dispatch (cuda_oracle::convert).
  auto per_call = [&](Fmt to, const RoundSpec& r,
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
    const bool direct = cuda_oracle::batch_function(c.to, r) != nullptr;
    const std::string base = direct
                                 ? fmt::format("CUDA {} (inlined)", c.cuda_name)
                                 : std::string("reference mxc::convert");
    fast::Isa ran = best;
    const double t = time_fast(best, c.to, r, rnd, reps, sink, &ran);
    const std::string what =
        fmt::format("cvt f32->{} {} sat [{}]", desc(c.to).name,
                    round_name(c.mode), fast::isa_name(ran));
    row(what.c_str(), items, t, base.c_str(), items, baseline(c.to, r, rnd));
    if (c.to == Fmt::kE4M3) {
      // The same on sweep-ordered inputs (CUDA's branches predict well),
      // on the other ISAs, against CUDA through the oracle's per-call
      // dispatch, and against our own reference core.
      row("  same, sweep-ordered inputs", items,
          time_fast(best, c.to, r, seq, reps, sink), base.c_str(), items,
          baseline(c.to, r, seq));
      const auto& isas = fast::isa_available();  // every other ISA here
      for (auto it = isas.rbegin(); it != isas.rend(); ++it) {
        if (*it == best) continue;
        const double ti = time_fast(*it, c.to, r, rnd, reps, sink, &ran);
        row(fmt::format("  same, {}", fast::isa_name(ran)).c_str(), items, ti,
            base.c_str(), items, baseline(c.to, r, rnd));
      }
      if (cuda) {
        row("  same", items, t, "CUDA via cuda_oracle::convert", items,
            per_call(c.to, r, rnd));
      }
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
// 2^(24+scale) inputs, capped at all 2^32. The sweep kernel (per-binade
// constants, fast::SweepKernel::kBinade) on each ISA against the generic
// run_plan on AVX2 (the sweep before the kernel), 1 thread each; then 2
// threads against 1; then the other targets on the same inputs, kernel
// against run_plan, both on the best ISA. Below 2^32 the range is the
// prefix 0..len-1 (magnitudes below 2, no overflow), so the extrapolated
// 2^32 time is pessimistic: a full sweep fills the overflow, Inf and NaN
// binades with constants.
void sweep_rows(size_t scale) {
  const uint64_t len = uint64_t{1} << std::min<size_t>(24 + scale, 32);
  const fast::Isa best = fast::best_convert_isa();
  // The generic baseline: the best ISA below AVX-512 (the sweep before the
  // kernel ran on AVX2), elsewhere the best.
  const fast::Isa base_isa =
      best == fast::Isa::kAvx512 ? fast::isa_below(best) : best;
  using K = fast::SweepKernel;
  bool sums_agree = true;
  uint64_t want = 0;
  double cpu = 0;  // the last run's process CPU time (the machine is shared)
  auto run = [&](Fmt to, const RoundSpec& r, unsigned threads, fast::Isa isa,
                 K k, uint64_t n, bool first) {
    uint64_t sum = 0;
    const std::clock_t c0 = std::clock();
    const double t = seconds([&] {
      sum = fast::sweep_f32(to, r, {}, threads, 0, n, isa, k).checksum;
    });
    cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    if (first) want = sum;
    sums_agree = sums_agree && sum == want;
    return t;
  };
  RoundSpec r;
  r.overflow = Overflow::kSatFinite;
  const Fmt e4 = Fmt::kE4M3;
  const double tg = run(e4, r, 1, base_isa, K::kGeneric, len, true);
  const double cg = cpu;
  const double tb = run(e4, r, 1, best, K::kBinade, len, false);
  const double cb = cpu;
  const std::string base =
      fmt::format("generic run_plan [{}], 1 thread", fast::isa_name(base_isa));
  row(fmt::format("sweep f32->e4m3 [kernel, {}], 1 thread",
                  fast::isa_name(best))
          .c_str(),
      double(len), tb, base.c_str(), double(len), tg);
  const auto& isas = fast::isa_available();  // every other ISA here
  for (auto it = isas.rbegin(); it != isas.rend(); ++it) {
    const fast::Isa isa = *it;
    if (isa == best) continue;
    row(fmt::format("  same, [kernel, {}]", fast::isa_name(isa)).c_str(),
        double(len), run(e4, r, 1, isa, K::kBinade, len, false), base.c_str(),
        double(len), tg);
  }
  if (best != base_isa) {
    row(fmt::format("  same, [generic run_plan, {}]", fast::isa_name(best))
            .c_str(),
        double(len), run(e4, r, 1, best, K::kGeneric, len, false), base.c_str(),
        double(len), tg);
  }
  const double t2 = run(e4, r, 2, best, K::kBinade, len, false);
  row("sweep f32->e4m3 [kernel], 2 threads", double(len), t2, "same, 1 thread",
      double(len), tb);
  const double full = double(uint64_t{1} << 32) / double(len);
  fmt::print(
      "  sweep of 2^{} inputs: kernel 1 thread {:.3f} s, 2 threads {:.3f} s; "
      "generic 1 thread {:.3f} s; all 2^32 on 1 thread: kernel {:.2f} s "
      "(cpu {:.2f} s), generic {:.2f} s (cpu {:.2f} s){}{}\n",
      std::bit_width(len) - 1, tb, t2, tg, tb * full, cb * full, tg * full,
      cg * full, len == (uint64_t{1} << 32) ? " (measured)" : " (extrapolated)",
      sums_agree ? "" : "  CHECKSUM MISMATCH");
  const std::string base2 =
      fmt::format("generic run_plan [{}], 1 thread", fast::isa_name(best));
  for (Fmt to : {Fmt::kE5M2, Fmt::kE3M2, Fmt::kE2M3, Fmt::kE2M1, Fmt::kE8M0,
                 Fmt::kUE4M3}) {
    RoundSpec r2 = r;
    if (to == Fmt::kE8M0) r2.mode = Round::kRU;
    const double g = run(to, r2, 1, best, K::kGeneric, len, true);
    const double b = run(to, r2, 1, best, K::kBinade, len, false);
    row(fmt::format("sweep f32->{} {} [kernel, {}], 1 thread", desc(to).name,
                    round_name(r2.mode), fast::isa_name(best))
            .c_str(),
        double(len), b, base2.c_str(), double(len), g);
  }
  if (!sums_agree) fmt::print("  CHECKSUM MISMATCH between sweep kernels\n");
}

}  // namespace mxc::cli::bench
