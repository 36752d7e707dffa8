// Shared pieces of `mxc bench` (docs/performance.md): timing and the row
// printer. Each group of rows lives in its own bench_*.cpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "conformance/splitmix64.h"

namespace mxc::cli::bench {

using Clock = std::chrono::steady_clock;

template <class F>
double seconds(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// One row: the fast path's rate, the baseline's rate, and their ratio.
void row(const char* what, double items, double t, const char* base,
         double bitems, double bt);

// The groups of rows (`mxc bench --only NAME`).
void conversion_rows(size_t scale, SplitMix64& g);
void sweep_rows(size_t scale);
void mma_rows(size_t scale, SplitMix64& g);
void quant_rows(size_t scale, SplitMix64& g);
// The profile rows of quant_rows at every MX element format (--only
// quant-elems).
void quant_elem_rows(SplitMix64& g);

}  // namespace mxc::cli::bench
