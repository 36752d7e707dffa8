// The batched GEMM fast path for 8-bit-or-narrower operands (issue 7,
// docs/performance.md): gemm() (emu/mma/gemm.h) hands a whole problem here
// when gemm_covers holds. A is decoded once per row and B once per column
// (scales folded in per block), then every output element's chain of FDPAs
// runs on the decoded arrays, 16 output columns at a time (one Highway
// source for every SIMD ISA, or a scalar loop): e_max over the chunk, aligned truncated terms summed in
// integers, the model's rounding (detail::finish_sum / fdpa_round_sum).
// An element whose chain meets a NaN, an Inf, a code wider than its format
// or a sum of zeros that needs the signs goes to mma_dot (the reference
// composition). Bit-identical to fdpa_chain_reference per element
// (tests/test_fast_gemm.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "emu/fast/convert_fast.h"
#include "emu/mma/gemm.h"

namespace mxc::fast {

// Whether gemm_fast takes this model and (already validated) problem: no
// operand conversion (emulate_as), no split-K, A/B in E4M3, E5M2, E3M2,
// E2M3, E2M1; T-FDPA, ST-FDPA with E8M0 scales, GST-FDPA with E8M0 or UE4M3
// scales, where the integer sums provably fit their lanes.
bool gemm_covers(const MmaModel& m, const GemmProblem& p);

// The best ISA gemm_fast has here: the best ISA allowed (emu/fast/isa.h)
// or kScalar.
Isa best_gemm_isa();

// D as gemm() returns it, for a covered problem, on `isa` (an ISA the
// machine lacks runs kScalar). `fallbacks`, when
// given, receives the number of elements computed by mma_dot instead.
std::vector<uint64_t> gemm_fast(const MmaModel& m, const GemmProblem& p,
                                Isa isa, size_t* fallbacks = nullptr);
inline std::vector<uint64_t> gemm_fast(const MmaModel& m,
                                       const GemmProblem& p) {
  return gemm_fast(m, p, best_gemm_isa());
}

}  // namespace mxc::fast
