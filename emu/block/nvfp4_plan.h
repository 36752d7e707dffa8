// An NVFP4 profile compiled, under one tensor-level value, to the steps the
// fast engine executes (emu/fast/nvfp4_fast.h; issue 22: "a profile compiles
// to a plan; one kernel runs every plan"). emu/block owns what each rule
// means; the plan says it as data, so emu/fast knows no library by name.
// The reference (nvfp4_quantize_block, quantize.cpp) stays the oracle:
// tests/test_fast_nvfp4.cpp checks every plan against it bit for bit.
//
// Per block of 16 finite elements (blocks holding NaN or Inf take the
// reference), for each candidate:
//   1. v = the block amax as binary32, then the scale steps in order, each
//      one IEEE binary32 operation rounded to nearest even (a block whose v
//      becomes NaN at any step takes the reference);
//   2. scale code = UE4M3 (= the positive E4M3 codes) of v, RNE satfinite;
//      code 0 becomes zero_code_to when set;
//   3. each element y = fl(x * operand[code]) or fl(x / operand[code]);
//   4. the E2M1 code of y, RNE satfinite; with exact_neg_zero_to_pos a y
//      that is exactly -0 gives code 0.
// With two candidates (TE 4over6) the block keeps candidate 1 only when its
// error sum is strictly smaller than candidate 0's, the sum over the
// elements in order, from +0, of |d| (or fl(d * d) when err_mse),
// d = fl(fl(fl(fl(q * s) * err_a) / err_d) - x), q the element's E2M1
// value and s the block scale's value.
#pragma once

#include <array>
#include <cstdint>

#include "emu/block/profile.h"

namespace mxc {

enum class Nvfp4ScaleOp : uint8_t {
  kMul,        // v = fl(v * k)
  kDiv,        // v = fl(v / k)
  kRoundBf16,  // v = v rounded to bfloat16 (RNE) and back
  kZeroTo,     // v == 0 -> k
  kMax,        // v = max(v, k)
  kMin,        // v = min(v, k)
};

struct Nvfp4ScaleStep {
  Nvfp4ScaleOp op;
  uint32_t k;  // binary32 bits
};

struct Nvfp4Candidate {
  std::array<Nvfp4ScaleStep, 6> steps{};
  int n_steps = 0;
  uint8_t zero_code_to = 0;  // 0: code 0 stays 0
  bool divide = false;       // elements x / operand instead of x * operand
  // Per scale code: the element operand (binary32 bits), and whether the
  // steps above model it exactly (a multiplier that is Inf or NaN, a
  // divisor that is 0 or NaN, make 0 * Inf, 0 / 0 reach the cast: those
  // blocks take the reference).
  std::array<uint32_t, 128> operand{};
  std::array<bool, 128> exact{};
};

struct Nvfp4Plan {
  // False: the tensor value is outside what the steps model (negative);
  // the caller runs the reference.
  bool ok = false;
  int n_cand = 1;
  std::array<Nvfp4Candidate, 2> cand;
  bool exact_neg_zero_to_pos = false;
  uint32_t err_a = 0, err_d = 0;  // n_cand == 2: the error terms' constants
  bool err_mse = false;
};

// The plan of profile p for the tensor-level value nvfp4_tensor_scale(p, .)
// returned (the s_enc argument of nvfp4_quantize_block).
Nvfp4Plan nvfp4_plan(const Nvfp4Profile& p, uint32_t tensor_value);

}  // namespace mxc
