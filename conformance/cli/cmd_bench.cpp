// mxc bench: throughput of the fast paths, each against a baseline measured
// in the same run (a ratio, never an absolute pass/fail): conversions vs
// CUDA's host function, MMA models vs the arbitrary-precision reference,
// block quantization vs memcpy of the same bytes. docs/performance.md.
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "conformance/cli/commands.h"
#include "conformance/oracle/cuda_host_oracle.h"
#include "conformance/oracle/fdpa_oracle.h"
#include "conformance/splitmix64.h"
#include "emu/block/profile.h"
#include "emu/block/quantize.h"
#include "emu/convert.h"
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
  fmt::print("{:<40} {:>12.3e}/s   {:<28} {:>12.3e}/s   x{:.1f}\n", what, r,
             base, b, r / b);
}

int run(size_t scale) {
  SplitMix64 g(7);
  fmt::print("{:<40} {:>14}   {:<28} {:>14}   ratio\n", "fast path", "rate",
             "baseline", "rate");
  // 1. f32 -> e4m3 RNE satfinite.
  {
    const size_t n = 1u << 16 << scale;
    std::vector<uint64_t> in(n);
    for (auto& v : in) v = g.next() & 0xFFFFFFFFu;
    RoundSpec r;
    r.overflow = Overflow::kSatFinite;
    uint64_t sink = 0;
    const double t = seconds([&] {
      for (uint64_t v : in) sink += convert(Fmt::kF32, Fmt::kE4M3, v, r);
    });
    if (cuda_oracle::available()) {
      const double bt = seconds([&] {
        for (uint64_t v : in)
          sink += *cuda_oracle::convert(Fmt::kF32, Fmt::kE4M3, v, r);
      });
      row("convert f32->e4m3 (conversions)", double(n), t,
          "CUDA __nv_cvt_float_to_fp8", double(n), bt);
    } else {
      fmt::print("convert f32->e4m3: {:.3e}/s (no CUDA baseline)\n", double(n) / t);
    }
    if (sink == 42) fmt::print(" ");
  }
  // 2. MMA models vs the exact reference (products per second).
  for (const char* name : {"sm90_wgmma_fp8_f32", "sm100_tcgen05_f8f6f4_f32",
                           "sm100_tcgen05_mxf8f6f4",
                           "sm100_tcgen05_mxf4nvf4_4x"}) {
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
  // 3. MXFP8 block quantization vs memcpy of the same bytes.
  {
    const size_t n = 1u << 14 << scale;
    std::vector<uint32_t> x(n), y(n);
    for (auto& v : x) v = static_cast<uint32_t>(g.next()) & 0xBFFFFFFFu;
    const MxProfile& p = *find_mx_profile("te-mxfp8");
    uint64_t sink = 0;
    const double t = seconds([&] {
      for (size_t i = 0; i < n; i += 32)
        sink += mx_quantize_block(p, Fmt::kE4M3,
                                  std::span<const uint32_t>(x).subspan(i, 32))
                    .scale;
    });
    const double bt = seconds([&] {
      for (int rep = 0; rep < 16; ++rep) {
        std::memcpy(y.data(), x.data(), n * 4);
        sink += y[rep];
      }
    });
    row("quantize te-mxfp8 (input bytes)", double(n) * 4, t, "memcpy",
        16.0 * double(n) * 4, bt);
    if (sink == 42) fmt::print(" ");
  }
  return 0;
}

}  // namespace

void add_bench(CLI::App& app, int& exit_code) {
  auto scale = std::make_shared<size_t>(4);
  CLI::App* c = app.add_subcommand(
      "bench",
      "Measure the fast paths against baselines in the same run (ratios). "
      "Single-threaded; sizes grow as 2^size");
  c->add_option("--size", *scale, "problem size exponent (0 = tiny)")
      ->capture_default_str();
  c->callback([scale, &exit_code] { exit_code = run(*scale); });
}

}  // namespace mxc::cli
