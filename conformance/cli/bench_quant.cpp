// mxc bench rows for block quantization: FP32 -> MX (1D, rows and columns)
// against memcpy of the same bytes. docs/performance.md.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "conformance/cli/bench_common.h"
#include "emu/block/profile.h"
#include "emu/block/quantize.h"
#include "emu/fast/quantize_fast.h"

namespace mxc::cli::bench {

void quant_rows(size_t scale, SplitMix64& g) {
  // 3. Block quantization (FP32 -> MX, 1D rowwise and columnwise) vs
  // memcpy of the same bytes, on Gaussian data (2^(14+scale) floats, 1 KiB
  // rows); then the per-block API (one MxBlock, a vector, per 32 elements).
  {
    const size_t n = size_t{1} << 14 << scale;
    const size_t cols = std::min<size_t>(1024, n / 32), rows = n / cols;
    std::vector<uint32_t> x(n), y(n);
    for (size_t i = 0; i < n; i += 2) {  // Box-Muller
      const double u1 = (double(g.next() >> 11) + 1.0) * 0x1p-53;
      const double u2 = double(g.next() >> 11) * 0x1p-53;
      const double r = std::sqrt(-2.0 * std::log(u1));
      x[i] =
          std::bit_cast<uint32_t>(float(r * std::cos(6.283185307179586 * u2)));
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
        const std::string what = fmt::format("quantize {} {} {} (B)", q.profile,
                                             q.label, colwise ? "col" : "row");
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
}

}  // namespace mxc::cli::bench
