// The batched GEMM fast path (issues 7, 22; docs/performance.md): gemm()
// (emu/mma/gemm.h) hands a whole problem here when gemm_covers holds, which
// it does for every model of the table and every FdpaParams (F, rho, e_zero,
// both zero rules, the instruction structure: k_block, the k permutation,
// C added outside the FDPA), every A/B format with an exponent field
// (f16, bf16, tf32 and the 8-bit-or-narrower ones; emulate_as converts at
// decode) and f32 or f16 C/D. A is decoded once per row and B once per
// column (scales folded in per block, k in the model's visiting order),
// then every output element's chain of FDPAs runs on the decoded arrays, 16
// output columns at a time (one Highway source for every SIMD ISA, int32
// product lanes and 64-bit sums; an int64 scalar kernel where int32 cannot
// hold the aligned products): e_max over the chunk, aligned truncated terms
// summed in integers, the model's rounding in integers
// (detail::finish_sum), C outside by an IEEE RNE add in c_fmt. Only an
// element whose chain meets a NaN or Inf operand or scale, or a code wider
// than its format, goes to mma_dot (the reference composition); NaN/Inf
// addends (overflow mid-chain) stay here. The AMD CDNA datapaths
// (Datapath::kF32Pairwise with ftz, kTwoStageRd with split) run exact
// scalar kernels on the same decoded-once operands on every ISA
// (emu/fast/gemm_amd.cpp says why scalar). Bit-identical to
// fdpa_chain_reference per element (tests/test_fast_gemm.cpp), to the
// km-hardware GPU captures (tests/test_km_hardware.cpp) and to the MMA-Sim
// AMD rows (tests/test_mmasim_amd.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "emu/fast/convert_fast.h"
#include "emu/mma/gemm.h"

namespace mxc::fast {

// Whether gemm_fast takes this model and (already validated) problem: no
// split-K; C/D f32 or f16; A/B formats with at most 23 fraction bits;
// T-FDPA and ST-FDPA (E8M0 or UE4M3 scales) with F + 4 + log2(L + 1) <= 62
// (the int64 kernel's bound; every table model also fits the int32 SIMD
// lanes), GST-FDPA on the 8-bit-or-narrower formats where its int16/int32
// group sums provably fit. Every model in mma_models() is covered
// (tests/test_fast_gemm.cpp walks them); the AMD datapaths with unscaled
// operands, f32 C/D and one chain (fdpa.cpp check_chain).
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

// The most bytes of per-call working storage a thread keeps for its next
// GEMM call (gemm_detail::Scratch, the plan's arrays, the Python binding's
// operand vectors); larger arrays are freed. Arrays allocated afresh per
// call cost a page fault per 4 KiB whenever glibc gave them back between
// calls.
inline constexpr size_t kScratchKeepBytes = size_t{64} << 20;

}  // namespace mxc::fast
