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

namespace mxc::cli::bench {
namespace {

// Best of 3 for both sides: the development machine is shared.
template <class F>
double best3(F&& f) {
  return std::min({seconds(f), seconds(f), seconds(f)});
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
  std::vector<uint32_t> x(n);
  for (size_t i = 0; i < n; i += 2) {  // Box-Muller
    const double u1 = (double(g.next() >> 11) + 1.0) * 0x1p-53;
    const double u2 = double(g.next() >> 11) * 0x1p-53;
    const double r = std::sqrt(-2.0 * std::log(u1));
    x[i] = std::bit_cast<uint32_t>(float(r * std::cos(6.283185307179586 * u2)));
    x[i + 1] =
        std::bit_cast<uint32_t>(float(r * std::sin(6.283185307179586 * u2)));
  }
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
}

}  // namespace mxc::cli::bench
