// Fast f32 -> narrow-format conversions (issue 7, docs/performance.md):
// a branch-free integer formulation of the rounding core, written once for
// every SIMD target with Highway (emu/fast/convert_hwy.cpp,
// convert_e8m0_hwy.cpp), the target chosen at run time (emu/fast/isa.h),
// and a scalar path (run_plan_one). Every result is bit-identical to mxc::convert (the
// reference, emu/convert.h); tests/test_fast_convert.cpp checks this on the
// structured case set and, at MXC_TEST_LEVEL=2, on all 2^32 inputs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/fast/isa.h"
#include "emu/format.h"
#include "emu/rounding.h"

namespace mxc::fast {

// Whether the fast path covers f32 -> `to` under `r`: targets E4M3, E5M2,
// E3M2, E2M3, E2M1, E8M0, UE4M3 and the FNUZ FP8 formats; modes RNE, RZ,
// RU, RD, RNA, round-to-odd; every overflow policy; .relu or not. Anything else (stochastic rounding,
// MXINT8, wide targets) goes through the reference in convert_f32_batch.
bool covers(Fmt to, const RoundSpec& r);

// out[i] = convert(kF32, to, in[i], r) for i < n, on best_convert_isa().
// Returns the ISA that ran (kScalar when no SIMD kernel took the inputs).
Isa convert_f32_batch(Fmt to, const RoundSpec& r, const uint32_t* in,
                      uint8_t* out, size_t n);
// The same on a chosen ISA (one the machine lacks runs on the next below).
Isa convert_f32_batch(Isa isa, Fmt to, const RoundSpec& r, const uint32_t* in,
                      uint8_t* out, size_t n);

// A prepared conversion: the per-(format, spec) constants computed once, for
// callers that convert many short batches (block quantization, sweeps).
struct Plan {
  Fmt to = Fmt::kE4M3;
  RoundSpec spec;
  bool covered = false;  // false: every call goes to the reference
  bool e8m0 = false;     // E8M0: no subnormals, the exponent's parity
  bool is_signed = true;
  bool relu = false;    // .relu on a signed target
  bool unsigned_zero = false;  // a zero magnitude never takes the sign (FNUZ)
  int m = 0;            // fraction bits
  int32_t c_sh = 0;     // shift = clamp(c_sh - E, 23 - m, 25)
  int32_t c_off = 0;    // exponent offset = max(E - c_off, 0) << m
  int32_t max_enc = 0;  // largest finite magnitude encoding
  uint32_t sign_bit = 0;
  uint8_t ovf[2] = {0, 0};  // overflow result by sign
  uint8_t inf[2] = {0, 0};  // Inf input result by sign
  uint8_t nan = 0;
};
Plan make_plan(Fmt to, const RoundSpec& r);
// Returns the ISA that ran, as convert_f32_batch.
Isa run_plan(const Plan& p, Isa isa, const uint32_t* in, uint8_t* out,
             size_t n);
uint8_t run_plan_one(const Plan& p, uint32_t x);

namespace detail {
// Whether the FP-unit kernels' special handling applies: the overflow
// result is the largest finite encoding or the one above it, and the
// negative side's overflow and Inf results are the positive side's with the
// sign bit (0 under .relu, the same for an unsigned target), so overflow,
// Inf and NaN fold into one unsigned min plus a NaN blend. (FNUZ: overflow,
// Inf and NaN are all 0x80 = max + 1 on either side, which folds too.)
bool fp_specials_fold(const Plan& p);
// The Highway kernels on `isa` (isa_supported, not kScalar): out[i] for
// the first inputs, a whole number of vectors; they return how many (0
// when the plan is not one they take). convert_hwy.cpp: every covered plan;
// convert_e8m0_hwy.cpp: E8M0 plans whose specials fold into a min.
size_t convert_blocks(Isa isa, const Plan& p, const uint32_t* in,
                      uint8_t* out, size_t n);
size_t e8m0_blocks(Isa isa, const Plan& p, const uint32_t* in, uint8_t* out,
                   size_t n);
// The HWY_TARGET of the code convert_blocks runs for `isa`.
int64_t convert_target(Isa isa);
}  // namespace detail

}  // namespace mxc::fast
