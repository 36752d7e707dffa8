// CUDA's host-callable conversion functions (cuda_fp8.h, cuda_fp6.h,
// cuda_fp4.h, cuda_fp16.h, cuda_bf16.h) as an oracle we did not write. They
// compile with the host compiler; nothing here needs a GPU or nvcc.
#pragma once

#include <cstdint>
#include <optional>

#include "emu/format.h"
#include "emu/rounding.h"

namespace mxc::cuda_oracle {

// Whether this build has the CUDA headers (false: every call returns nullopt).
bool available();

// CUDA's result for the conversion, or nullopt when CUDA offers no host
// function for this (from, to, mode, overflow, relu) combination.
std::optional<uint64_t> convert(Fmt from, Fmt to, uint64_t bits,
                                const RoundSpec& r);

// Where our documented semantics differ from CUDA's host functions on
// purpose, the name of that class of inputs (docs/rounding.md, "Where we
// differ from CUDA's host functions"); nullopt for a real mismatch.
//   "f64-nan-payload": __nv_cvt_double_to_fp8 turns a NaN into a NaN that
//   keeps the input's sign and some payload (E4M3 0xFF, E5M2 0x7E/0xFE),
//   while the float, half and bfloat16 functions and PTX cvt give the
//   canonical NaN 0x7F. We give 0x7F for every source.
std::optional<const char*> deviation_class(Fmt from, Fmt to, uint64_t input,
                                           uint64_t ours, uint64_t cuda);

}  // namespace mxc::cuda_oracle
