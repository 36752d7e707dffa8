// mxc bench: throughput of the fast paths, each against a baseline measured
// in the same run (a ratio, never an absolute pass/fail): conversions vs
// CUDA's host function, MMA models vs the arbitrary-precision reference,
// block quantization vs memcpy of the same bytes; the 2^32 f32 sweep on 1
// and 2 threads. The rows live in bench_*.cpp. docs/performance.md.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "conformance/cli/bench_common.h"
#include "conformance/cli/commands.h"
#include "emu/fast/isa.h"
#include "conformance/cli/options.h"

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

int run(size_t scale, const std::string& only) {
  auto want = [&](const char* what) { return only.empty() || only == what; };
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
  c->add_option("--only", *only, "one group of rows: cvt, sweep, mma, quant")
      ->check(CLI::IsMember({"cvt", "sweep", "mma", "quant"}));
  c->callback([scale, only, &exit_code] { exit_code = run(*scale, *only); });
}

}  // namespace mxc::cli
