// mxc bench rows for the MMA models: products per second of mma_dot (one
// output element per call) and of gemm() on a whole 128x128xK problem (the
// batched path, emu/fast/gemm_fast.h), each against the exact
// arbitrary-precision reference (fdpa_oracle) in the same run.
// docs/performance.md.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "conformance/cli/bench_common.h"
#include "conformance/oracle/fdpa_oracle.h"
#include "emu/fast/gemm_fast.h"
#include "emu/mma/gemm.h"
#include "emu/mma/models.h"

namespace mxc::cli::bench {
namespace {

fdpa_oracle::Params oracle_params(const MmaModel& m) {
  fdpa_oracle::Params p;
  p.L = m.fdpa.L;
  p.G = m.fdpa.G;
  p.F = m.fdpa.F;
  p.e_zero = m.fdpa.e_zero;
  p.rho = m.fdpa.rho == AccRound::kRzE8M13 ? fdpa_oracle::Rho::RzE8M13
                                           : fdpa_oracle::Rho::RzF32;
  return p;
}

// gemm() on M = N = 128, K = 1024 (TN, random finite operands, scales
// around 1, random C) against the oracle on `ocalls` of its output elements,
// whose results must agree bit for bit (a mismatch is printed).
void gemm_row(const MmaModel& m, size_t scale, SplitMix64& g) {
  const Fmt f = m.ab_formats[0];
  const int blk = scale_block(m.scales);
  GemmProblem p;
  p.M = p.N = 128;
  p.K = 1024;
  p.a_fmt = p.b_fmt = f;
  const size_t M = 128, N = 128, K = 1024;
  p.A.resize(M * K);
  p.B.resize(N * K);
  for (auto& v : p.A) v = g.next() & desc(f).storage_mask() & ~uint64_t{0x40};
  for (auto& v : p.B) v = g.next() & desc(f).storage_mask() & ~uint64_t{0x40};
  p.C.resize(M * N);
  for (auto& v : p.C) v = (g.next() & 0x807FFFFFu) | (120u << 23);
  if (blk > 0) {
    p.SA.resize(M * (K / blk));
    p.SB.resize(N * (K / blk));
    const bool ue4m3 = m.scales == ScaleKind::kUe4m3Block16;
    for (auto* s : {&p.SA, &p.SB})
      for (auto& v : *s) v = ue4m3 ? 0x30 + g.next() % 16 : 124 + g.next() % 8;
  }
  const size_t reps = size_t{1} << (scale / 3);
  std::vector<uint64_t> D;
  const double t = seconds([&] {
    for (size_t r = 0; r < reps; ++r) D = gemm(m, p);
  });
  const fdpa_oracle::Params op = oracle_params(m);
  fdpa_oracle::Operands o;
  o.a_fmt = o.b_fmt = std::string(desc(f).name);
  o.c_fmt = "f32";
  if (blk > 0) {
    o.scale_fmt = std::string(desc(scale_format(m.scales)).name);
    o.scale_block = blk;
  }
  const size_t ocalls = size_t{4} << (scale / 2);
  size_t mismatches = 0;
  std::vector<size_t> which(ocalls);
  for (auto& w : which) w = g.next() % (M * N);
  double bt = 0;
  for (size_t w : which) {
    const size_t mm = w % M, n = w / M;
    o.a.assign(p.A.begin() + mm * K, p.A.begin() + (mm + 1) * K);
    o.b.assign(p.B.begin() + n * K, p.B.begin() + (n + 1) * K);
    o.c = p.C[w];
    if (blk > 0) {
      o.sa.assign(p.SA.begin() + mm * (K / blk),
                  p.SA.begin() + (mm + 1) * (K / blk));
      o.sb.assign(p.SB.begin() + n * (K / blk),
                  p.SB.begin() + (n + 1) * (K / blk));
    }
    uint64_t d = 0;
    bt += seconds([&] { d = fdpa_oracle::fdpa_chain(op, o); });
    mismatches += d != D[w] ? 1 : 0;
  }
  row(fmt::format("mma {} gemm 128x128x1024 [{}] (products)", m.name,
                  fast::isa_name(fast::best_gemm_isa()))
          .c_str(),
      double(reps) * M * N * K, t, "exact reference (Boost)",
      double(ocalls) * K, bt);
  if (mismatches != 0)
    fmt::print("  MISMATCH: {} of {} sampled elements differ from the oracle\n",
               mismatches, ocalls);
}

}  // namespace

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
    const fdpa_oracle::Params p = oracle_params(m);
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
    row(fmt::format("mma {} [scalar] (products)", name).c_str(),
        double(calls) * m.k, t, "exact reference (Boost)", double(ocalls) * m.k,
        bt);
    if (sink == 42) fmt::print(" ");
  }
  // 3. Whole GEMMs through gemm() (the batched path) vs the same oracle.
  for (const char* name : mma_names) gemm_row(*find_mma_model(name), scale, g);
}

}  // namespace mxc::cli::bench
