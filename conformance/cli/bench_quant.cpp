// mxc bench rows for block quantization: FP32 -> MXFP8 / MXFP4 / NVFP4 (1D,
// rows and columns) against memcpy of the same bytes, measured side by side
// on a cache-resident tensor and on a DRAM-sized one. docs/performance.md.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "conformance/cli/bench_common.h"
#include "emu/block/profile.h"
#include "emu/block/quantize.h"
#include "emu/fast/isa.h"
#include "emu/fast/nvfp4_fast.h"
#include "emu/fast/quantize_fast.h"
#include "emu/format.h"

namespace mxc::cli::bench {
namespace {

// Best of 3 for both sides: the development machine is shared.
template <class F>
double best3(F&& f) {
  return std::min({seconds(f), seconds(f), seconds(f)});
}

// The seconds of one call of f, for a call far shorter than the clock's
// noise (a profile row quantizes 256 KiB: tens of microseconds, where one
// timed call swung a row by 20% from run to run): after a warm-up call,
// enough calls a sample for about 2 ms, the best of 5 samples.
template <class F>
double per_call(F&& f) {
  const double once = std::max(seconds(f), 1e-7);
  const int reps = static_cast<int>(std::clamp(2e-3 / once, 1.0, 1e5));
  double best = 1e30;
  for (int s = 0; s < 5; ++s) {
    best = std::min(best, seconds([&] {
                            for (int r = 0; r < reps; ++r) f();
                          }) / reps);
  }
  return best;
}

struct QCase {
  const char* profile;
  Fmt elem;  // kE2M1 with an NVFP4 profile: NVFP4
  const char* label;
  bool nvfp4;
};

constexpr QCase kCases[] = {{"te-mxfp8", Fmt::kE4M3, "MXFP8", false},
                            {"ocp-v1", Fmt::kE2M1, "MXFP4", false},
                            {"te-nvfp4", Fmt::kE2M1, "NVFP4", true}};

// One set of rows over x (rows x cols, 1024 columns): every case rowwise and
// columnwise, each next to memcpy of the same 4n bytes into a preallocated
// buffer (the quantizers also write into preallocated outputs).
void quant_set(const std::vector<uint32_t>& x, size_t cols, int reps,
               const char* where, bool with_portable) {
  const size_t n = x.size(), rows = n / cols;
  std::vector<uint32_t> y(n, 0);
  std::vector<uint8_t> codes(n, 0), scales(n / 16 + 1, 0);
  uint64_t sink = 0;
  auto memcpy_time = [&] {
    return best3([&] {
      for (int rep = 0; rep < reps; ++rep) {
        std::memcpy(y.data(), x.data(), n * 4);
        sink += y[static_cast<size_t>(rep)];
      }
    });
  };
  const double bytes = double(reps) * double(n) * 4;
  uint32_t amax_t = 0;  // NVFP4's tensor amax: a separate pass, not timed
  for (uint32_t v : x) amax_t = std::max(amax_t, v & 0x7FFFFFFFu);
  const uint32_t s_enc = nvfp4_tensor_scale(amax_t);
  for (const QCase& q : kCases) {
    for (bool colwise : {false, true}) {
      for (bool fused : {true, false}) {
        if (!fused && !with_portable) continue;
        fast::set_fused_isa(fused ? fast::best_isa() : fast::Isa::kScalar);
        const int R = int(rows), C = int(cols);
        const double t = best3([&] {
          for (int rep = 0; rep < reps; ++rep) {
            if (q.nvfp4) {
              const Nvfp4Profile& p = *find_nvfp4_profile(q.profile);
              if (colwise) {
                fast::nvfp4_quantize_colwise(p, s_enc, R, C, x.data(),
                                             scales.data(), codes.data());
              } else {
                fast::nvfp4_quantize_rowwise(p, s_enc, R, C, x.data(),
                                             scales.data(), codes.data());
              }
            } else {
              const MxProfile& p = *find_mx_profile(q.profile);
              if (colwise) {
                fast::mx_quantize_colwise(p, q.elem, R, C, x.data(),
                                          scales.data(), codes.data());
              } else {
                fast::mx_quantize_rowwise(p, q.elem, R, C, x.data(),
                                          scales.data(), codes.data());
              }
            }
            sink += codes[static_cast<size_t>(rep)] + scales[0];
          }
        });
        fast::reset_fused_isa();
        // The fused kernels run on the best ISA (one Highway source); the
        // portable path stages on AVX2 and converts on the best conversion
        // ISA.
        const fast::Isa isa =
            fused ? fast::fused_isa() : fast::best_convert_isa();
        const std::string what =
            fused ? fmt::format("quantize {} {} {} {} [{}]", q.profile, q.label,
                                colwise ? "col" : "row", where,
                                fast::isa_name(isa))
                  : fmt::format("  same, portable path [{}]",
                                fast::isa_name(isa));
        row(what.c_str(), bytes, t, "memcpy of the same bytes", bytes,
            memcpy_time());
      }
    }
  }
  if (sink == 42) fmt::print(" ");
}

// Every profile (MX at its default element format, or with every_elem at
// each MX element format; NVFP4 at E2M1), rowwise, through the entry point a
// caller uses (emu/block/quantize.h, which takes the fast engine or the
// reference): the rate, the engine that ran ("fast" or "REFERENCE": the rule
// is not on the fast path yet, issue 22), and the ratio to the fastest row of
// this table.
void profile_rows(const std::vector<uint32_t>& x, size_t cols,
                  bool every_elem) {
  const int R = int(x.size() / cols), C = int(cols);
  struct Row {
    std::string what;
    double rate;
  };
  std::vector<Row> rows;
  uint64_t sink = 0;
  uint32_t amax_t = 0;
  for (uint32_t v : x) amax_t = std::max(amax_t, v & 0x7FFFFFFFu);
  for (const MxProfile& p : mx_profiles()) {
    if (p.block <= 0 || C % p.block != 0) continue;
    // microxcaling's rule also at FP6/FP4, where many Gaussian elements
    // fall below the element's least normal (its double-rounding range).
    std::vector<Fmt> elems{p.default_elem};
    if (every_elem) {
      elems = {Fmt::kE4M3, Fmt::kE5M2, Fmt::kE3M2, Fmt::kE2M3, Fmt::kE2M1};
    } else if (p.apply == ApplyRule::kF32FloorHalfUp) {
      elems.insert(elems.end(), {Fmt::kE3M2, Fmt::kE2M3, Fmt::kE2M1});
    }
    for (const Fmt elem : elems) {
      const bool fast_ok = fast::mx_covers(p, elem);
      const double t = per_call([&] {
        const MxMatrix m = mx_quantize_rowwise(p, elem, R, C, x);
        sink += m.codes[0] + m.scales[0];
      });
      rows.push_back({fmt::format("  {} {} [{}]", p.name, desc(elem).name,
                                  fast_ok ? "fast" : "REFERENCE"),
                      double(x.size()) / t});
    }
  }
  std::vector<uint8_t> scales(x.size() / 16 + 1), codes(x.size());
  for (const Nvfp4Profile& p : nvfp4_profiles()) {
    const uint32_t s_enc = nvfp4_tensor_scale(p, amax_t);
    bool fast_ok = true;
    const double t = per_call([&] {
      fast_ok = fast::nvfp4_quantize_rowwise(p, s_enc, R, C, x.data(),
                                             scales.data(), codes.data());
      if (!fast_ok) {
        for (size_t i = 0; i < x.size(); i += 16) {
          const Nvfp4Block b = nvfp4_quantize_block(
              p, s_enc, std::span<const uint32_t>(x).subspan(i, 16));
          codes[i] = static_cast<uint8_t>(b.codes[0]);
        }
      }
      sink += codes[0] + scales[0];
    });
    rows.push_back(
        {fmt::format("  {} NVFP4 [{}]", p.name, fast_ok ? "fast" : "REFERENCE"),
         double(x.size()) / t});
  }
  double best = 0;
  for (const Row& r : rows) best = std::max(best, r.rate);
  int slow = 0;
  fmt::print(
      "every profile{}, rowwise, {} KiB of f32 ({} rows x {} columns), "
      "elements/s and the ratio to the fastest row:\n",
      every_elem ? " x element" : "", x.size() * 4 / 1024, R, C);
  for (const Row& r : rows) {
    fmt::print("{:<58} {:>11.3e}/s   x{:.3f} of the fastest\n", r.what, r.rate,
               r.rate / best);
    slow += r.rate < 0.5 * best;
  }
  fmt::print(
      "{} of {} profile rows below 50% of the fastest (issue 22 target: "
      "none)\n",
      slow, rows.size());
  if (sink == 42) fmt::print(" ");
}

// n standard Gaussian f32 values (Box-Muller; n even).
std::vector<uint32_t> gaussian(size_t n, SplitMix64& g) {
  std::vector<uint32_t> x(n);
  for (size_t i = 0; i < n; i += 2) {
    const double u1 = (double(g.next() >> 11) + 1.0) * 0x1p-53;
    const double u2 = double(g.next() >> 11) * 0x1p-53;
    const double r = std::sqrt(-2.0 * std::log(u1));
    x[i] = std::bit_cast<uint32_t>(float(r * std::cos(6.283185307179586 * u2)));
    x[i + 1] =
        std::bit_cast<uint32_t>(float(r * std::sin(6.283185307179586 * u2)));
  }
  return x;
}

}  // namespace

void quant_rows(size_t scale, SplitMix64& g) {
  // 3. Block quantization (FP32 -> MXFP8 / MXFP4 / NVFP4, 1D rowwise and
  // columnwise) vs memcpy of the same bytes, input bytes per second, on
  // Gaussian data in 4 KiB rows (1024 columns): first a tensor of
  // 2^(14+scale) floats (4 MiB at --size 6: cache-resident on the
  // development machine), then 64 MiB of f32 (DRAM); then the per-block API
  // (one MxBlock, a vector, per 32 elements).
  const size_t n = size_t{1} << 14 << scale;
  const size_t cols = std::min<size_t>(1024, n / 32);
  const std::vector<uint32_t> x = gaussian(n, g);
  const std::string cache = fmt::format("({} KiB)", n * 4 / 1024);
  quant_set(x, cols, 4, cache.c_str(), true);
  {
    // 64 MiB: the same Gaussian values tiled (the cache sees fresh lines).
    const size_t nd = std::max<size_t>(size_t{1} << 24, n);
    std::vector<uint32_t> xd(nd);
    for (size_t i = 0; i < nd; i += n)
      std::copy(x.begin(), x.end(), xd.begin() + static_cast<long>(i));
    const std::string dram = fmt::format("({} MiB)", nd * 4 >> 20);
    quant_set(xd, 1024, 2, dram.c_str(), false);
  }
  {
    uint64_t sink = 0;
    std::vector<uint32_t> y(n);
    const MxProfile& p = *find_mx_profile("te-mxfp8");
    const double t = seconds([&] {
      for (size_t i = 0; i < n; i += 32)
        sink += mx_quantize_block(p, Fmt::kE4M3,
                                  std::span<const uint32_t>(x).subspan(i, 32))
                    .scale;
    });
    const double tm = best3([&] {
      std::memcpy(y.data(), x.data(), n * 4);
      sink += y[0];
    });
    row("  te-mxfp8 MXFP8, mx_quantize_block per 32", double(n) * 4, t,
        "memcpy of the same bytes", double(n) * 4, tm);
    if (sink == 42) fmt::print(" ");
  }
  {
    // Every profile: 2^16 floats (256 KiB, cache-resident), 256 columns.
    const size_t np = size_t{1} << 16;
    profile_rows(std::vector<uint32_t>(
                     x.begin(), x.begin() + static_cast<long>(std::min(np, n))),
                 256, false);
  }
}

void quant_elem_rows(SplitMix64& g) {
  // The profile table of quant_rows at every MX element format: 2^16
  // Gaussian floats (256 KiB, cache-resident), 256 columns.
  profile_rows(gaussian(size_t{1} << 16, g), 256, true);
}

}  // namespace mxc::cli::bench
