// mxc selfcheck: the main job for now. Runs the emulator's conversions
// against CUDA's host functions and the exact reference, prints one table row
// per check, and exits 1 on any mismatch.
#include <fmt/format.h>

#include <cstdio>

#include "conformance/cli/commands.h"
#include "conformance/cli/options.h"
#include "conformance/hex_io.h"
#include "conformance/oracle/cuda_host_oracle.h"
#include "conformance/selfcheck.h"

namespace mxc::cli {
namespace {

struct SelfcheckCli {
  size_t random_cases = 1 << 14;
  size_t exact_limit = 4000;
  uint64_t seed = 1;
  bool verbose = false;
};

int run(const SelfcheckCli& o) {
  SelfcheckOptions so;
  so.random_cases = o.random_cases;
  so.exact_limit = o.exact_limit;
  so.seed = o.seed;
  if (!cuda_oracle::available()) {
    fmt::print(stderr,
               "note: built without CUDA headers; the cuda-host oracle rows "
               "are skipped\n");
  }
  size_t done = 0;
  so.on_row = [&](const CheckResult& r) {
    ++done;
    if (r.mismatches || o.verbose) {
      fmt::print("{:<6} -> {:<11} {:<22} {:<9} {:>9} {:>9} {:>9}\n",
                 desc(r.check.from).name, desc(r.check.to).name,
                 spec_label(r.check.spec), oracle_name(r.check.oracle),
                 r.cases, r.mismatches, r.deviations);
      for (const auto& m : r.first) {
        fmt::print("    {} => {}  expected: {}\n",
                   format_hex(r.check.from, m.input),
                   format_hex(r.check.to, m.got),
                   format_hex(r.check.to, m.expected));
      }
    }
    if (done % 50 == 0) fmt::print(stderr, "  ... {} checks\n", done);
  };
  fmt::print("{:<6}    {:<11} {:<22} {:<9} {:>9} {:>9} {:>9}\n", "from", "to",
             "mode", "oracle", "cases", "mismatch", "deviation");
  const auto rows = run_selfcheck(so);

  // Summary per (oracle, target format).
  fmt::print("\nsummary by oracle and target format\n");
  fmt::print("{:<10} {:<11} {:>6} {:>12} {:>10} {:>10}\n", "oracle", "to",
             "checks", "cases", "mismatch", "deviation");
  uint64_t total_bad = 0, total_cases = 0, total_dev = 0;
  for (Oracle orc : {Oracle::kCuda, Oracle::kExact}) {
    for (const FormatDesc& d : kFormats) {
      uint64_t n = 0, cases = 0, bad = 0, dev = 0;
      for (const auto& r : rows) {
        if (r.check.oracle != orc || r.check.to != d.id) continue;
        ++n;
        cases += r.cases;
        bad += r.mismatches;
        dev += r.deviations;
      }
      if (n == 0) continue;
      fmt::print("{:<10} {:<11} {:>6} {:>12} {:>10} {:>10}\n",
                 oracle_name(orc), d.name, n, cases, bad, dev);
      total_bad += bad;
      total_dev += dev;
      total_cases += cases;
    }
  }
  fmt::print(
      "\n{} checks, {} cases compared, {} mismatches, {} documented "
      "deviations (docs/rounding.md): {}\n",
      rows.size(), total_cases, total_bad, total_dev,
      total_bad ? "FAIL" : "PASS");
  return total_bad ? 1 : 0;
}

}  // namespace

void add_selfcheck(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SelfcheckCli>();
  CLI::App* c = app.add_subcommand(
      "selfcheck",
      "Check every conversion of the emulator against CUDA's host conversion "
      "functions and the exact Boost.Multiprecision reference; exit 1 on any "
      "mismatch");
  c->add_option("--random", o->random_cases,
                "random f32/f64 inputs per check (besides the structured "
                "boundary and special cases; 0..2^28)")
      ->check(integer_in(0, int64_t{1} << 28))
      ->capture_default_str();
  c->add_option("--exact-limit", o->exact_limit,
                "cases per exact-reference check (seeded sample; 0..2^28)")
      ->check(integer_in(0, int64_t{1} << 28))
      ->capture_default_str();
  c->add_option("--seed", o->seed, "seed for random inputs (unsigned 64-bit)")
      ->check(unsigned64())
      ->capture_default_str();
  c->add_flag("-v,--verbose", o->verbose, "print every row, not only failures");
  c->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace mxc::cli
