#include "emu/block/nvfp4_plan.h"

#include <bit>

#include "emu/arith.h"
#include "emu/convert.h"

namespace mxc {
namespace {

constexpr uint32_t kOne = 0x3F800000u, kSix = 0x40C00000u;
constexpr uint32_t k448 = 0x43E00000u;
constexpr uint32_t kF32Max = 0x7F7FFFFFu;

bool is_nan(uint32_t x) { return (x & 0x7FFFFFFFu) > 0x7F800000u; }

// fminf(x, FLT_MAX) for x >= 0 (NaN -> FLT_MAX, as fminf ignores NaN).
uint32_t min_flt_max(uint32_t x) {
  if (is_nan(x)) return kF32Max;
  return (x & 0x7FFFFFFFu) > kF32Max ? kF32Max : x;
}

// The value of a UE4M3 scale code (the positive E4M3 codes are the same).
uint32_t scale_value(int code) {
  return static_cast<uint32_t>(
      convert(Fmt::kUE4M3, Fmt::kF32, static_cast<uint64_t>(code)));
}

void add(Nvfp4Candidate& c, Nvfp4ScaleOp op, uint32_t k = 0) {
  c.steps[static_cast<size_t>(c.n_steps++)] = {op, k};
}

// Fills the operand of every scale code from op(s_val), s_val the code's
// value (code 0 read as zero_code_to when that is set).
template <class Op>
void operands(Nvfp4Candidate& c, Op op) {
  for (int code = 0; code < 128; ++code) {
    const int read = code == 0 && c.zero_code_to != 0 ? c.zero_code_to : code;
    const uint32_t v = op(scale_value(read));
    c.operand[static_cast<size_t>(code)] = v;
    const bool zero = (v & 0x7FFFFFFFu) == 0,
               inf = (v & 0x7FFFFFFFu) == 0x7F800000u;
    c.exact[static_cast<size_t>(code)] =
        !is_nan(v) && (c.divide ? !zero : !inf);
  }
}

}  // namespace

Nvfp4Plan nvfp4_plan(const Nvfp4Profile& p, uint32_t tv) {
  Nvfp4Plan plan;
  Nvfp4Candidate& c = plan.cand[0];
  // Every rule's tensor value is non-negative (nvfp4_tensor_scale); a
  // negative one would need the reference's clamps on bit patterns. A NaN
  // that a step makes (0 / 0, 0 * Inf) is caught per block by the fast
  // engine, which then runs the reference.
  plan.ok = (tv >> 31) == 0;
  switch (p.rule) {
    case Nvfp4Rule::kTe:
    case Nvfp4Rule::kCutlass: {
      // s = fl(amax * fl(S_enc * fl(1/6))) (quantize.cpp nvfp4_with_amax).
      add(c, Nvfp4ScaleOp::kMul, f32_mul(tv, f32_div(kOne, kSix)));
      const uint32_t s_dec = f32_div(kOne, tv);
      const bool te = p.rule == Nvfp4Rule::kTe;
      operands(c, [&](uint32_t s) {
        return te ? min_flt_max(f32_div(kOne, f32_mul(s, s_dec)))
                  : min_flt_max(f32_mul(tv, f32_div(kOne, s)));
      });
      break;
    }
    case Nvfp4Rule::kTorchao:
    case Nvfp4Rule::kTorchaoSingle: {
      // s = clamp(fl(fl(amax / 6) / t), 2^-6, 448); q = x * fl(fl(1/t) / s)
      // (single-level: no t).
      const bool two = p.rule == Nvfp4Rule::kTorchao;
      add(c, Nvfp4ScaleOp::kDiv, kSix);
      if (two) add(c, Nvfp4ScaleOp::kDiv, tv);
      add(c, Nvfp4ScaleOp::kMax, 0x3C800000u);  // 2^-6
      add(c, Nvfp4ScaleOp::kMin, k448);
      const uint32_t rt = two ? f32_div(kOne, tv) : kOne;
      operands(c, [&](uint32_t s) {
        return two ? f32_div(rt, s) : f32_div(kOne, s);
      });
      break;
    }
    case Nvfp4Rule::kModelopt: {
      // s = fl(amax / fl(6 * t)), 0 -> 1, clamp(2^-9, 448); q = x / fl(s * t).
      const uint32_t six_t = f32_mul(kSix, tv);
      add(c, Nvfp4ScaleOp::kDiv, six_t);
      add(c, Nvfp4ScaleOp::kZeroTo, kOne);
      add(c, Nvfp4ScaleOp::kMax, 0x3B000000u);  // 2^-9
      add(c, Nvfp4ScaleOp::kMin, k448);
      c.divide = true;
      plan.exact_neg_zero_to_pos = true;  // sign taken as y < 0
      operands(c, [&](uint32_t s) { return f32_mul(s, tv); });
      break;
    }
    case Nvfp4Rule::kCompressedTensors: {
      // s = min(fl(g * fl(amax / 6)), 448) (fl(amax / 6) to bf16 first with
      // bf16 statistics), code 0 -> 0.125; q = x / fl(s / g).
      add(c, Nvfp4ScaleOp::kDiv, kSix);
      if (p.stats_bf16) add(c, Nvfp4ScaleOp::kRoundBf16);
      add(c, Nvfp4ScaleOp::kMul, tv);
      add(c, Nvfp4ScaleOp::kMin, k448);
      c.zero_code_to = static_cast<uint8_t>(
          convert(Fmt::kF32, Fmt::kE4M3, 0x3E000000u));  // eps 0.125
      c.divide = true;
      plan.exact_neg_zero_to_pos = true;  // sign(y) * |q|, NaN -> 0
      operands(c, [&](uint32_t s) { return f32_div(s, tv); });
      break;
    }
    case Nvfp4Rule::kTe4over6: {
      // tv is the tensor amax A. S_enc = fminf(fl(D / A), FLT_MAX) (A 0 or
      // a zero quotient -> 1); base = fl(fl(amax / 6) * S_enc); map-to-6
      // min(base, 448) is candidate 0, map-to-4 min(fl(base * 1.5), 448)
      // candidate 1; q = x * fminf(fl(1 / fl(s * fl(1 / S_enc))), FLT_MAX).
      const uint32_t d =
          std::bit_cast<uint32_t>(static_cast<float>(6 * p.four_over_six_e4m3));
      uint32_t s_enc = kOne;
      if ((tv & 0x7FFFFFFFu) != 0) {
        s_enc = min_flt_max(f32_div(d, tv));
        if (s_enc == 0) s_enc = kOne;
      }
      const uint32_t s_dec = f32_div(kOne, s_enc);
      plan.n_cand = 2;
      for (int k = 0; k < 2; ++k) {
        Nvfp4Candidate& ck = plan.cand[static_cast<size_t>(k)];
        add(ck, Nvfp4ScaleOp::kDiv, kSix);
        add(ck, Nvfp4ScaleOp::kMul, s_enc);
        if (k == 1) add(ck, Nvfp4ScaleOp::kMul, 0x3FC00000u);  // 1.5
        add(ck, Nvfp4ScaleOp::kMin, k448);
        operands(ck, [&](uint32_t s) {
          return min_flt_max(f32_div(kOne, f32_mul(s, s_dec)));
        });
      }
      plan.err_a = tv;
      plan.err_d = d;
      plan.err_mse = p.four_over_six_mse;
      break;
    }
  }
  return plan;
}

}  // namespace mxc
