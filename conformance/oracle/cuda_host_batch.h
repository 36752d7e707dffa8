// CUDA's host conversion functions in a tight loop, as a throughput
// baseline for `mxc bench` (docs/performance.md): the function is called
// directly with compile-time constant arguments, so the compiler can inline
// it (the per-call dispatch of cuda_oracle::convert is not measured).
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/format.h"
#include "emu/rounding.h"

namespace mxc::cuda_oracle {

// The name of the CUDA function the batch calls for f32 -> `to` under
// `r`, or nullptr when there is no direct batch for it (or no CUDA headers).
// Direct batches: E4M3/E5M2 RNE (satfinite or not), E2M3/E3M2/E2M1 RNE
// satfinite, E8M0 RZ/RU (satfinite or not).
const char* batch_function(Fmt to, const RoundSpec& r);

// out[i] = CUDA's f32 -> `to` for in[i]; false (nothing written) when
// batch_function is nullptr.
bool convert_f32_batch(Fmt to, const RoundSpec& r, const uint32_t* in,
                       uint8_t* out, size_t n);

}  // namespace mxc::cuda_oracle
