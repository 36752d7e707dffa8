// mxc bench rows for the MMA models: products per second of mma_dot against
// the exact arbitrary-precision reference (fdpa_oracle). docs/performance.md.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "conformance/cli/bench_common.h"
#include "conformance/oracle/fdpa_oracle.h"
#include "emu/mma/models.h"

namespace mxc::cli::bench {

void mma_rows(size_t scale, SplitMix64& g) {
  // 2. MMA models vs the exact reference (products per second).
  const std::vector<const char*> mma_names = {
      "sm90_wgmma_fp8_f32", "sm100_tcgen05_f8f6f4_f32",
      "sm100_tcgen05_mxf8f6f4", "sm100_tcgen05_mxf4nvf4_4x"};
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
    row(fmt::format("mma {} (products)", name).c_str(), double(calls) * m.k, t,
        "exact reference (Boost)", double(ocalls) * m.k, bt);
    if (sink == 42) fmt::print(" ");
  }
}

}  // namespace mxc::cli::bench
