// mxc bench: throughput of the fast paths, each against a baseline measured
// in the same run (a ratio, never an absolute pass/fail): conversions vs
// CUDA's host function, MMA models vs the arbitrary-precision reference,
// block quantization vs memcpy of the same bytes; the 2^32 f32 sweep on 1
// and 2 threads. The rows live in bench_*.cpp. docs/performance.md.
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>
#include <string>

#include "conformance/cli/bench_common.h"
#include "conformance/cli/commands.h"
#include "conformance/cli/options.h"
#include "emu/fast/isa.h"

namespace mxc::cli {
namespace bench {

void row(const char* what, double items, double t, const char* base,
         double bitems, double bt) {
  const double r = items / t, b = bitems / bt;
  fmt::print("{:<40} {:>12.3e}/s   {:<32} {:>12.3e}/s   x{:.{}f}\n", what, r,
             base, b, r / b, r / b < 10 ? 2 : 1);
}

}  // namespace bench

namespace {
using namespace bench;

// Peak bytes the rows of `--size scale` allocate: the quant rows hold a
// tensor of n = 2^(14+scale) f32, a DRAM tensor of max(2^24, n) f32 and,
// per set, a copy target (4 bytes), codes (1) and scales (1/16) per
// element (bench_quant.cpp); the other rows stay below 64 MiB.
uint64_t bench_bytes(size_t scale, bool quant) {
  const uint64_t fixed = uint64_t{64} << 20;
  if (!quant) return fixed;
  const uint64_t n = uint64_t{1} << (14 + scale);
  const uint64_t nd = std::max<uint64_t>(uint64_t{1} << 24, n);
  return fixed + 4 * n + nd * 4 + nd + nd / 16 + nd * 4;
}

// The memory this process may use: physical memory, capped by the address
// space and data limits (ulimit -v / -d); 0 when unknown.
uint64_t usable_memory() {
  uint64_t lim = 0;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) lim = uint64_t(pages) * uint64_t(page);
  for (int r : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit rl {};
    if (getrlimit(r, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (lim == 0 || rl.rlim_cur < lim))
      lim = rl.rlim_cur;
  }
  return lim;
}

int run(size_t scale, const std::string& only) {
  auto want = [&](const char* what) { return only.empty() || only == what; };
  const uint64_t need = bench_bytes(scale, want("quant"));
  const uint64_t have = usable_memory();
  if (have != 0 && need > have) {
    std::fprintf(stderr,
                 "mxc bench: error: --size %zu needs about %.1f GiB (the "
                 "quant rows: 2^%zu floats and copies), this process may use "
                 "%.1f GiB (physical memory, ulimit -v/-d); use a smaller "
                 "--size or --only cvt|sweep|mma\n",
                 scale, double(need) / double(1u << 30), 14 + scale,
                 double(have) / double(1u << 30));
    return 2;
  }
  SplitMix64 g(7);
  // Each row names in [brackets] the ISA its fast path ran on.
  const char* forced = fast::isa_forced();
  fmt::print(
      "kernels compiled for: {}; best here: {} ({}){}\n",
      fast::isa_compiled_list(), fast::isa_name(fast::best_convert_isa()),
      fast::isa_target_name(fast::best_convert_isa()),
      *forced != '\0' ? fmt::format(" (MXC_ISA={})", forced) : std::string());
  fmt::print("{:<40} {:>14}   {:<28} {:>14}   ratio\n", "fast path", "rate",
             "baseline", "rate");
  // 1. Conversions and sweeps.
  if (want("cvt")) conversion_rows(scale, g);
  if (want("sweep")) sweep_rows(scale);
  // 2. MMA models vs the exact reference (products per second).
  if (want("mma")) mma_rows(scale, g);
  // 3. Block quantization vs memcpy of the same bytes.
  if (want("quant")) quant_rows(scale, g);
  if (only == "quant-elems") quant_elem_rows(g);
  return 0;
}

}  // namespace

void add_bench(CLI::App& app, int& exit_code) {
  auto scale = std::make_shared<size_t>(4);
  auto only = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand(
      "bench",
      "Measure the fast paths against baselines in the same run (ratios). "
      "Single-threaded except the sweep rows marked 2 threads; sizes grow as "
      "2^size. Each row names in [brackets] the ISA it ran on; the "
      "environment variable MXC_ISA=scalar|avx2|avx512 caps the ISA (for "
      "testing; an ISA this CPU lacks is an error)");
  c->add_option("--size", *scale, "problem size exponent 0..20 (0 = tiny)")
      ->check(integer_in(0, 20))
      ->capture_default_str();
  c->add_option("--only", *only,
                "one group of rows: cvt, sweep, mma, quant, quant-elems (the "
                "profile rows of quant at every MX element format)")
      ->check(CLI::IsMember({"cvt", "sweep", "mma", "quant", "quant-elems"}));
  c->callback([scale, only, &exit_code] {
    try {
      exit_code = run(*scale, *only);
    } catch (const std::bad_alloc&) {
      // The estimate above passed but an allocation did not (other
      // processes, overcommit limits): name the option, not a raw throw.
      std::fprintf(stderr,
                   "mxc bench: error: --size %zu: out of memory allocating "
                   "the benchmark's buffers; use a smaller --size\n",
                   *scale);
      exit_code = 2;
    }
  });
}

}  // namespace mxc::cli
