// mxc bench: throughput of the fast paths, each against a baseline measured
// in the same run (a ratio, never an absolute pass/fail): conversions vs
// CUDA's host function, MMA models vs the arbitrary-precision reference,
// block quantization vs memcpy of the same bytes; the 2^32 f32 sweep on 1
// and 2 threads. docs/performance.md.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "conformance/cli/commands.h"
#include "conformance/oracle/cuda_host_oracle.h"
#include "conformance/oracle/fdpa_oracle.h"
#include "conformance/splitmix64.h"
#include "emu/block/profile.h"
#include "emu/block/quantize.h"
#include "emu/convert.h"
#include "emu/fast/convert_fast.h"
#include "emu/fast/quantize_fast.h"
#include "emu/fast/sweep.h"
#include "emu/mma/models.h"

namespace mxc::cli {
namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double seconds(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void row(const char* what, double items, double t, const char* base,
         double bitems, double bt) {
  const double r = items / t, b = bitems / bt;
  fmt::print("{:<40} {:>12.3e}/s   {:<32} {:>12.3e}/s   x{:.{}f}\n", what, r,
             base, b, r / b, r / b < 10 ? 2 : 1);
}

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
                 const std::vector<uint32_t>& in, size_t reps,
                 uint64_t& sink) {
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
          time_fast(fast::Isa::kScalar, c.to, r, rnd, reps, sink),
          base.c_str(), items, baseline(c.to, r, rnd));
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
  const double t1 = seconds([&] {
    sum1 = fast::sweep_f32(Fmt::kE4M3, r, {}, 1, 0, len).checksum;
  });
  const double t2 = seconds([&] {
    sum2 = fast::sweep_f32(Fmt::kE4M3, r, {}, 2, 0, len).checksum;
  });
  row("sweep f32->e4m3, 2 threads", double(len), t2, "same, 1 thread",
      double(len), t1);
  const double full = t1 * double(uint64_t{1} << 32) / double(len);
  fmt::print("  sweep of 2^{} inputs: 1 thread {:.3f} s, 2 threads {:.3f} s; "
             "all 2^32 on 1 thread: {:.2f} s{}{}\n",
             std::bit_width(len) - 1, t1, t2, full,
             len == (uint64_t{1} << 32) ? " (measured)" : " (extrapolated)",
             sum1 == sum2 ? "" : "  CHECKSUM MISMATCH");
}

int run(size_t scale, const std::string& only) {
  auto want = [&](const char* what) { return only.empty() || only == what; };
  SplitMix64 g(7);
  fmt::print("{:<40} {:>14}   {:<28} {:>14}   ratio\n", "fast path", "rate",
             "baseline", "rate");
  // 1. Conversions and sweeps.
  if (want("cvt")) conversion_rows(scale, g);
  if (want("sweep")) sweep_rows(scale);
  // 2. MMA models vs the exact reference (products per second).
  std::vector<const char*> mma_names;
  if (want("mma")) {
    mma_names = {"sm90_wgmma_fp8_f32", "sm100_tcgen05_f8f6f4_f32",
                 "sm100_tcgen05_mxf8f6f4", "sm100_tcgen05_mxf4nvf4_4x"};
  }
  for (const char* name : mma_names) {
    const MmaModel& m = *find_mma_model(name);
    const Fmt f = m.ab_formats[0];
    const int blk = scale_block(m.scales);
    const size_t calls = 256u << scale, ocalls = 16u << scale;
    std::vector<uint64_t> a(m.k), b(m.k), sa, sb;
    for (int k = 0; k < m.k; ++k) {
      a[k] = g.next() & desc(f).storage_mask() & ~uint64_t{0x40};
      b[k] = g.next() & desc(f).storage_mask() & ~uint64_t{0x40};
    }
    if (blk > 0) {
      sa.assign(m.k / blk, m.scales == ScaleKind::kUe4m3Block16 ? 0x38 : 127);
      sb = sa;
    }
    uint64_t sink = 0;
    const double t = seconds([&] {
      for (size_t i = 0; i < calls; ++i)
        sink += mma_dot(m, f, f, a, b, i & 0xFFFF, sa, sb);
    });
    fdpa_oracle::Params p;
    p.L = m.fdpa.L;
    p.G = m.fdpa.G;
    p.F = m.fdpa.F;
    p.e_zero = m.fdpa.e_zero;
    p.rho = m.fdpa.rho == AccRound::kRzE8M13 ? fdpa_oracle::Rho::RzE8M13
                                              : fdpa_oracle::Rho::RzF32;
    fdpa_oracle::Operands o;
    o.a_fmt = o.b_fmt = std::string(desc(f).name);
    o.c_fmt = "f32";
    o.a = a;
    o.b = b;
    if (blk > 0) {
      o.scale_fmt = std::string(desc(scale_format(m.scales)).name);
      o.scale_block = blk;
      o.sa = sa;
      o.sb = sb;
    }
    const double bt = seconds([&] {
      for (size_t i = 0; i < ocalls; ++i) {
        o.c = i & 0xFFFF;
        sink += fdpa_oracle::fdpa_chain(p, o);
      }
    });
    row(fmt::format("mma {} (products)", name).c_str(),
        double(calls) * m.k, t, "exact reference (Boost)",
        double(ocalls) * m.k, bt);
    if (sink == 42) fmt::print(" ");
  }
  // 3. Block quantization (FP32 -> MX, 1D rowwise and columnwise) vs
  // memcpy of the same bytes, on Gaussian data (2^(14+scale) floats, 1 KiB
  // rows); then the per-block API (one MxBlock, a vector, per 32 elements).
  if (want("quant")) {
    const size_t n = size_t{1} << 14 << scale;
    const size_t cols = std::min<size_t>(1024, n / 32), rows = n / cols;
    std::vector<uint32_t> x(n), y(n);
    for (size_t i = 0; i < n; i += 2) {  // Box-Muller
      const double u1 = (double(g.next() >> 11) + 1.0) * 0x1p-53;
      const double u2 = double(g.next() >> 11) * 0x1p-53;
      const double r = std::sqrt(-2.0 * std::log(u1));
      x[i] = std::bit_cast<uint32_t>(float(r * std::cos(6.283185307179586 * u2)));
      x[i + 1] =
          std::bit_cast<uint32_t>(float(r * std::sin(6.283185307179586 * u2)));
    }
    const int reps = 4;
    uint64_t sink = 0;
    // Best of 3 for both sides: the development machine is shared.
    auto best3 = [](auto&& f) {
      return std::min({seconds(f), seconds(f), seconds(f)});
    };
    auto memcpy_time = [&] {
      return best3([&] {
        for (int rep = 0; rep < reps; ++rep) {
          std::memcpy(y.data(), x.data(), n * 4);
          sink += y[static_cast<size_t>(rep)];
        }
      });
    };
    const double bytes = double(reps) * double(n) * 4;
    struct QCase {
      const char* profile;
      Fmt elem;
      const char* label;
    };
    for (const QCase& q : {QCase{"te-mxfp8", Fmt::kE4M3, "MXFP8"},
                           QCase{"ocp-v1", Fmt::kE2M1, "MXFP4"}}) {
      const MxProfile& p = *find_mx_profile(q.profile);
      for (bool colwise : {false, true}) {
        // The fast path into preallocated outputs (as memcpy writes into
        // a preallocated buffer); the public API adds one allocation.
        std::vector<uint8_t> codes(n), scales(n / 32 + 1);
        const double t = best3([&] {
          for (int rep = 0; rep < reps; ++rep) {
            if (colwise) {
              fast::mx_quantize_colwise(p, q.elem, int(rows), int(cols),
                                        x.data(), scales.data(), codes.data());
            } else {
              fast::mx_quantize_rowwise(p, q.elem, int(rows), int(cols),
                                        x.data(), scales.data(), codes.data());
            }
            sink += codes[static_cast<size_t>(rep)] + scales[0];
          }
        });
        const std::string what =
            fmt::format("quantize {} {} {} (B)", q.profile, q.label,
                        colwise ? "col" : "row");
        row(what.c_str(), bytes, t, "memcpy of the same bytes", bytes,
            memcpy_time());
      }
    }
    const MxProfile& p = *find_mx_profile("te-mxfp8");
    const double t = seconds([&] {
      for (size_t i = 0; i < n; i += 32)
        sink += mx_quantize_block(p, Fmt::kE4M3,
                                  std::span<const uint32_t>(x).subspan(i, 32))
                    .scale;
    });
    row("  same MXFP8, mx_quantize_block per 32", double(n) * 4, t,
        "memcpy of the same bytes", bytes, memcpy_time());
    if (sink == 42) fmt::print(" ");
  }
  return 0;
}

}  // namespace

void add_bench(CLI::App& app, int& exit_code) {
  auto scale = std::make_shared<size_t>(4);
  auto only = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand(
      "bench",
      "Measure the fast paths against baselines in the same run (ratios). "
      "Single-threaded except the sweep row (1 vs 2 threads); sizes grow as "
      "2^size");
  c->add_option("--size", *scale, "problem size exponent (0 = tiny)")
      ->capture_default_str();
  c->add_option("--only", *only, "one group of rows: cvt, sweep, mma, quant")
      ->check(CLI::IsMember({"cvt", "sweep", "mma", "quant"}));
  c->callback(
      [scale, only, &exit_code] { exit_code = run(*scale, *only); });
}

}  // namespace mxc::cli
