// The self-check: the emulator's conversions against the oracles we did not
// write (CUDA's host conversion functions, the exact Boost.Multiprecision
// reference), over structured and random cases. `mxc selfcheck` prints it as
// a table; the test suite runs the same engine at larger sizes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "emu/format.h"
#include "emu/rounding.h"

namespace mxc {

enum class Oracle { kCuda, kExact };

struct ConversionCheck {
  Fmt from;
  Fmt to;
  RoundSpec spec;
  Oracle oracle;
};

struct Mismatch {
  uint64_t input;
  uint64_t got;
  uint64_t expected;
};

struct CheckResult {
  ConversionCheck check;
  uint64_t cases = 0;       // compared
  uint64_t unsupported = 0; // the oracle offers no answer (counted, reported)
  uint64_t mismatches = 0;
  uint64_t deviations = 0;      // documented on-purpose differences
  std::vector<Mismatch> first;  // the first few, for the report
};

std::string spec_label(const RoundSpec& r);
std::string_view oracle_name(Oracle o);

// Compare emulator and oracle on every input.
CheckResult run_check(const ConversionCheck& c,
                      const std::vector<uint64_t>& inputs);

// The checks the self-check runs: every (source, target, mode, overflow)
// combination that the oracle can answer.
std::vector<ConversionCheck> cuda_checks();
std::vector<ConversionCheck> exact_checks();

struct SelfcheckOptions {
  int ulps = 2;                 // boundary walk width
  size_t random_cases = 1 << 14;
  size_t exact_limit = 4000;    // cases per exact-oracle row (sampled)
  uint64_t seed = 1;
  std::function<void(const CheckResult&)> on_row;  // progress
};

std::vector<CheckResult> run_selfcheck(const SelfcheckOptions& o);

}  // namespace mxc
