#include "emu/fast/nvfp4_fast.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "emu/arith.h"
#include "emu/block/quantize.h"
#include "emu/convert.h"
#include "emu/fast/convert_fast.h"
#include "emu/fast/fp_env.h"
#include "emu/fast/nvfp4_fused.h"
#include "emu/fast/quantize_fast.h"
#include "emu/round_pack.h"

namespace mxc::fast {
namespace detail {

namespace {

RoundSpec sat_rne() {
  RoundSpec r;
  r.overflow = Overflow::kSatFinite;
  return r;
}

struct Plans {
  Plan scale, elem;
  // The in-register conversion clamps at the largest finite value, so it
  // needs +-Inf to convert to it (cvt.rn.satfinite), as checked here.
  bool inf_sat;
};

const Plans& plans() {
  static const Plans ps = [] {
    Plans q;
    q.scale = make_plan(Fmt::kUE4M3, sat_rne());
    q.elem = make_plan(Fmt::kE2M1, sat_rne());
    const uint64_t mx_s = max_finite_bits(Fmt::kUE4M3, false);
    const uint64_t mx_e = max_finite_bits(Fmt::kE2M1, false);
    q.inf_sat =
        convert(Fmt::kF32, Fmt::kUE4M3, 0x7F800000u, sat_rne()) == mx_s &&
        convert(Fmt::kF32, Fmt::kE2M1, 0x7F800000u, sat_rne()) == mx_e &&
        convert(Fmt::kF32, Fmt::kE2M1, 0xFF800000u, sat_rne()) ==
            (mx_e | max_finite_bits(Fmt::kE2M1, true));
    return q;
  }();
  return ps;
}

float as_f(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t as_u(float f) { return std::bit_cast<uint32_t>(f); }

// The block's max magnitude, or >= 0x7F800000 when it holds a NaN or Inf.
uint32_t amax_of(const uint32_t* x, size_t stride, size_t n) {
  uint32_t m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, x[i * stride] & 0x7FFFFFFFu);
  return m;
}

}  // namespace

uint8_t nv_scale_code(const Nvfp4Candidate& c, uint32_t amax) {
  float v = as_f(amax);
  bool nan = false;  // at any step (max / min would hide it)
  for (int i = 0; i < c.n_steps; ++i) {
    const Nvfp4ScaleStep& st = c.steps[static_cast<size_t>(i)];
    const float k = as_f(st.k);
    switch (st.op) {
      case Nvfp4ScaleOp::kMul:
        v = v * k;
        break;
      case Nvfp4ScaleOp::kDiv:
        v = v / k;
        break;
      case Nvfp4ScaleOp::kRoundBf16:
        v = as_f(bf16_rne(as_u(v)));
        break;
      case Nvfp4ScaleOp::kZeroTo:
        if (v == 0) v = k;
        break;
      case Nvfp4ScaleOp::kMax:
        v = std::max(v, k);
        break;
      case Nvfp4ScaleOp::kMin:
        v = std::min(v, k);
        break;
    }
    nan = nan || v != v;
  }
  if (nan) return 0x80;
  const uint8_t code = run_plan_one(plans().scale, as_u(v));
  return code == 0 && c.zero_code_to != 0 ? c.zero_code_to : code;
}

namespace {

// The E2M1 code of one element under operand `op`.
uint8_t elem_code(const Nvfp4Plan& pl, bool divide, float op, uint32_t x) {
  const float y = divide ? as_f(x) / op : as_f(x) * op;
  if (pl.exact_neg_zero_to_pos && as_u(y) == 0x80000000u) return 0;
  return run_plan_one(plans().elem, as_u(y));
}

// n elements under operand op, the rule's branches taken once.
template <bool kDivide, bool kNegZero>
void elem_codes(float op, const uint32_t* x, size_t stride, size_t n,
                uint8_t* codes, size_t cstride) {
  const Plan& pe = plans().elem;
  for (size_t i = 0; i < n; ++i) {
    const float v = as_f(x[i * stride]);
    const uint32_t y = as_u(kDivide ? v / op : v * op);
    codes[i * cstride] = kNegZero && y == 0x80000000u ? 0 : run_plan_one(pe, y);
  }
}

}  // namespace

uint32_t bf16_rne(uint32_t v) {
  // Round to nearest even at bit 16 (finite v; a carry into the exponent
  // is the next binade or Inf, as the RNE conversion).
  return (v + 0x7FFFu + ((v >> 16) & 1u)) & 0xFFFF0000u;
}

bool nv_block_plan(const NvTab& t, const uint32_t* x, size_t stride, size_t n,
                   uint8_t* scale, uint8_t* codes, size_t cstride) {
  const uint32_t amax = amax_of(x, stride, n);
  if (amax >= 0x7F800000u) return false;
  const Nvfp4Plan& pl = t.plan;
  uint8_t s[2];
  for (int k = 0; k < pl.n_cand; ++k) {
    const Nvfp4Candidate& c = pl.cand[static_cast<size_t>(k)];
    s[k] = nv_scale_code(c, amax);
    if (s[k] >= 0x80 || !c.exact[s[k]]) return false;
  }
  int take = 0;
  if (pl.n_cand == 2) {
    // The error sums, element by element in order (4over6).
    float err[2] = {0.0f, 0.0f};
    for (int k = 0; k < 2; ++k) {
      const Nvfp4Candidate& c = pl.cand[static_cast<size_t>(k)];
      const float op = as_f(c.operand[s[k]]);
      const uint32_t* val = t.errv + 8 * s[k];
      for (size_t i = 0; i < n; ++i) {
        const uint8_t q = elem_code(pl, c.divide, op, x[i * stride]);
        // fl(fl(fl(q * s) * A) / D): the table, the sign of q (RNE is
        // symmetric).
        const uint32_t v = val[q & 7] | (uint32_t{q & 8u} << 28);
        const float diff = as_f(v) - as_f(x[i * stride]);
        err[k] += pl.err_mse ? diff * diff : std::fabs(diff);
      }
    }
    take = err[1] < err[0] ? 1 : 0;  // false with a NaN: candidate 0
  }
  const Nvfp4Candidate& c = pl.cand[static_cast<size_t>(take)];
  const float op = as_f(c.operand[s[take]]);
  *scale = s[take];
  if (c.divide) {
    if (pl.exact_neg_zero_to_pos)
      elem_codes<true, true>(op, x, stride, n, codes, cstride);
    else
      elem_codes<true, false>(op, x, stride, n, codes, cstride);
  } else {
    if (pl.exact_neg_zero_to_pos)
      elem_codes<false, true>(op, x, stride, n, codes, cstride);
    else
      elem_codes<false, false>(op, x, stride, n, codes, cstride);
  }
  return true;
}

void nv_init(NvTab& t, const Nvfp4Profile& p, uint32_t tv) {
  t.plan = nvfp4_plan(p, tv);
  t.tv = tv;
  t.ks = elem_k(Fmt::kUE4M3);
  t.ke = elem_k(Fmt::kE2M1);
  (void)conv_const(t.ks, 0, t.cs);
  (void)conv_const(t.ke, 0, t.ce);
  // MagE2M1's binades (T a power of two: Cvt's eb is k << 23; C0 a power
  // of two: the code is the sum's low three bits).
  if ((t.ce.t & 0x7FFFFFu) != 0 || (t.ce.c0 & 0x7FFFFFu) != 0 ||
      (t.ce.max >> 23) - (t.ce.t >> 23) >= 4) {
    std::fprintf(stderr,
                 "mxc internal error: E2M1 conversion constants outside "
                 "MagE2M1's table (emu/fast/nvfp4_fused.h NvTab::mag_c)\n");
    std::abort();
  }
  for (uint32_t k = 0; k < NvTab::kMaxLanes; ++k)
    t.mag_c[k] = k < 4 ? t.ce.c0 + (k << 23) + (k << 1) : 0;
  for (int i = 0; i < 128; ++i)
    t.sval[i] = static_cast<uint32_t>(
        convert(Fmt::kUE4M3, Fmt::kF32, static_cast<uint64_t>(i)));
  for (int i = 0; i < 16; ++i)
    t.eval[i] = static_cast<uint32_t>(
        convert(Fmt::kE2M1, Fmt::kF32, static_cast<uint64_t>(i)));
  t.exact_all = true;
  for (int k = 0; k < t.plan.n_cand; ++k)
    for (bool e : t.plan.cand[static_cast<size_t>(k)].exact)
      t.exact_all = t.exact_all && e;
  t.steps_no_nan = true;
  for (int k = 0; k < t.plan.n_cand; ++k) {
    const Nvfp4Candidate& c = t.plan.cand[static_cast<size_t>(k)];
    for (int i = 0; i < c.n_steps; ++i) {
      const Nvfp4ScaleStep& st = c.steps[static_cast<size_t>(i)];
      const uint32_t mag = st.k & 0x7FFFFFFFu;
      const bool ok =
          st.op == Nvfp4ScaleOp::kMul || st.op == Nvfp4ScaleOp::kDiv
              ? mag != 0 && mag < 0x7F800000u
              : st.op == Nvfp4ScaleOp::kRoundBf16 || mag <= 0x7F800000u;
      t.steps_no_nan = t.steps_no_nan && ok;
    }
  }
  t.shared_steps = 0;
  if (t.plan.n_cand == 2) {
    const Nvfp4Candidate &c0 = t.plan.cand[0], &c1 = t.plan.cand[1];
    while (t.shared_steps < std::min(c0.n_steps, c1.n_steps) - 1) {
      const Nvfp4ScaleStep& a = c0.steps[static_cast<size_t>(t.shared_steps)];
      const Nvfp4ScaleStep& b = c1.steps[static_cast<size_t>(t.shared_steps)];
      if (a.op != b.op || a.k != b.k) break;
      ++t.shared_steps;
    }
  }
  t.cand_ops_equal = t.plan.n_cand == 2 &&
                     t.plan.cand[0].operand == t.plan.cand[1].operand &&
                     t.plan.cand[0].divide == t.plan.cand[1].divide;
  t.ops_nonneg = true;
  for (int k = 0; k < t.plan.n_cand; ++k)
    for (uint32_t op : t.plan.cand[static_cast<size_t>(k)].operand)
      t.ops_nonneg = t.ops_nonneg && (op >> 31) == 0;
  // The division by the reciprocal (NvTab::rcp; nvfp4_hwy.cpp ElemByRecip).
  std::fill(std::begin(t.rcp), std::end(t.rcp), 0u);
  std::fill(std::begin(t.rcp_amax_below), std::end(t.rcp_amax_below), 0u);
  const Nvfp4Candidate& c0 = t.plan.cand[0];
  if (t.plan.n_cand == 1 && c0.divide) {
    for (size_t s = 0; s < 128; ++s) {
      const uint32_t op = c0.operand[s];
      // [2^-90, 2^125], positive (a negative one's bits are larger).
      if (!c0.exact[s] || op < 0x12800000u || op > 0x7E000000u) continue;
      const double o = std::bit_cast<float>(op), k = std::round(o / 2);
      if (k >= 1 && std::fabs(o - 2 * k) <= 2 * k * 0x1p-22) continue;
      t.rcp[s] = f32_div(0x3F800000u, op);  // 1 / op
      t.rcp_amax_below[s] =
          (op >> 23) + 100 < 255 ? op + (100u << 23) : 0x7F800000u;
    }
  }
  std::fill(std::begin(t.errv), std::end(t.errv), 0u);
  if (t.plan.n_cand == 2) {
    for (int s = 0; s < 128; ++s)
      for (int m = 0; m < 8; ++m)
        t.errv[8 * s + m] = f32_div(
            f32_mul(f32_mul(t.eval[m], t.sval[s]), t.plan.err_a), t.plan.err_d);
  }
}

namespace {

std::atomic<bool>& enabled() {
  static std::atomic<bool> on{true};
  return on;
}

bool use_simd() { return fast::fused_isa() != Isa::kScalar && plans().inf_sat; }

}  // namespace

void nv_block_ref(const Nvfp4Profile& p, uint32_t s_enc, const uint32_t* x,
                  size_t stride, uint8_t* scale, uint8_t* codes,
                  size_t cstride) {
  uint32_t buf[16];
  for (size_t i = 0; i < 16; ++i) buf[i] = x[i * stride];
  // The fast per-block path declines this block again (NaN, Inf, or a code
  // the plan does not model): the reference runs.
  const Nvfp4Block b = mxc::nvfp4_quantize_block(p, s_enc, buf);
  *scale = b.scale;
  for (size_t i = 0; i < 16; ++i) codes[i * cstride] = b.codes[i];
}

}  // namespace detail

using detail::NvTab;

namespace detail {

// The plan for (p, tensor value), or nullptr when the fast engine is off
// or the plan does not model this tensor value (emu/block/nvfp4_plan.h).
// The last few per thread, keyed by everything a plan reads from the
// profile: making one costs a few thousand reference operations, more than
// quantizing a small tensor, and the per-block API is called per 16. A
// nested call (nv_block_ref) asks for the same key and evicts nothing.
const NvTab* nv_table(const Nvfp4Profile& p, uint32_t tv) {
  if (!detail::enabled().load(std::memory_order_relaxed)) return nullptr;
  struct Entry {
    Nvfp4Profile p;
    NvTab t;
    bool valid = false;
  };
  thread_local Entry cache[4];
  thread_local size_t next = 0;
  auto same = [&](const Nvfp4Profile& q) {
    return q.rule == p.rule && q.stats_bf16 == p.stats_bf16 &&
           q.four_over_six_e4m3 == p.four_over_six_e4m3 &&
           q.four_over_six_mse == p.four_over_six_mse;
  };
  NvTab* t = nullptr;
  for (Entry& e : cache)
    if (e.valid && e.t.tv == tv && same(e.p)) t = &e.t;
  if (t == nullptr) {
    Entry& e = cache[next];
    next = (next + 1) % 4;
    e.p = p;
    e.valid = true;
    detail::nv_init(e.t, p, tv);
    t = &e.t;
  }
  return t->plan.ok ? t : nullptr;
}

}  // namespace detail

using detail::nv_table;

void set_nvfp4_fast_enabled(bool on) { detail::enabled().store(on); }

uint64_t& detail::nv_close_calls() {
  thread_local uint64_t n = 0;
  return n;
}

uint64_t nvfp4_close_calls() { return detail::nv_close_calls(); }

bool nvfp4_quantize_block(const Nvfp4Profile& p, uint32_t s_enc,
                          const uint32_t* x, size_t n, uint8_t& scale,
                          uint8_t* codes) {
  const FpEnvDefault fp_env;  // fp_env.h
  if (n == 0) return false;
  const NvTab* t = nv_table(p, s_enc);
  if (t == nullptr) return false;
  return detail::nv_block_plan(*t, x, 1, n, &scale, codes, 1);
}

bool nvfp4_quantize_rowwise(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                            int cols, const uint32_t* x, uint8_t* scales,
                            uint8_t* codes, const uint32_t* block_amax) {
  const FpEnvDefault fp_env;  // fp_env.h
  if (rows <= 0 || cols <= 0 || cols % 16 != 0) return false;
  const NvTab* t = nv_table(p, s_enc);
  if (t == nullptr) return false;
  const size_t nb = static_cast<size_t>(rows) * static_cast<size_t>(cols) / 16;
  if (detail::use_simd()) {
    detail::nv_rows_simd(fast::fused_isa(), p, *t, nb, x, block_amax, scales,
                         codes);
    return true;
  }
  for (size_t b = 0; b < nb; ++b) {
    if (!detail::nv_block_plan(*t, x + 16 * b, 1, 16, scales + b,
                               codes + 16 * b, 1))
      detail::nv_block_ref(p, s_enc, x + 16 * b, 1, scales + b, codes + 16 * b,
                           1);
  }
  return true;
}

bool nvfp4_quantize_colwise(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                            int cols, const uint32_t* x, uint8_t* scales,
                            uint8_t* codes) {
  const FpEnvDefault fp_env;  // fp_env.h
  if (rows <= 0 || cols <= 0 || rows % 16 != 0) return false;
  const NvTab* t = nv_table(p, s_enc);
  if (t == nullptr) return false;
  const size_t R = static_cast<size_t>(rows), C = static_cast<size_t>(cols);
  // Two candidates (4over6) whose plan divides or maps -0 to code 0 (none
  // today): the portable plan per column block (nvfp4_hwy.cpp Rows4over6).
  const Nvfp4Plan& pl = t->plan;
  if (detail::use_simd() &&
      (pl.n_cand == 1 ||
       !(pl.cand[0].divide || pl.cand[1].divide || pl.exact_neg_zero_to_pos))) {
    detail::nv_cols_simd(fast::fused_isa(), p, *t, R, C, x, scales, codes);
    return true;
  }
  for (size_t r0 = 0; r0 < R; r0 += 16) {
    for (size_t c = 0; c < C; ++c) {
      const uint32_t* xb = x + r0 * C + c;
      uint8_t* sb = scales + (r0 / 16) * C + c;
      uint8_t* cb = codes + r0 * C + c;
      if (!detail::nv_block_plan(*t, xb, C, 16, sb, cb, C))
        detail::nv_block_ref(p, s_enc, xb, C, sb, cb, C);
    }
  }
  return true;
}

bool nvfp4_quantize_2d(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                       int cols, const uint32_t* x, uint8_t* scales,
                       uint8_t* codes) {
  const FpEnvDefault fp_env;  // fp_env.h
  if (rows <= 0 || cols <= 0 || rows % 16 != 0 || cols % 16 != 0) return false;
  const NvTab* t = nv_table(p, s_enc);
  // 4over6 sums the error over a 16x16 tile: not modelled (the reference
  // refuses those tiles too).
  if (t == nullptr || t->plan.n_cand != 1) return false;
  const size_t R = static_cast<size_t>(rows), C = static_cast<size_t>(cols);
  if (detail::use_simd())
    return detail::nv_2d_simd(fast::fused_isa(), *t, R, C, x, scales, codes);
  std::vector<uint32_t> tile(256);
  std::vector<uint8_t> tc(256);
  for (size_t r0 = 0; r0 < R; r0 += 16) {
    for (size_t c0 = 0; c0 < C; c0 += 16) {
      for (size_t i = 0; i < 16; ++i)
        for (size_t j = 0; j < 16; ++j)
          tile[i * 16 + j] = x[(r0 + i) * C + c0 + j];
      // One scale from the tile's amax, every element under it: the plan
      // on the tile's 256 elements.
      uint8_t s = 0;
      if (!detail::nv_block_plan(*t, tile.data(), 1, 256, &s, tc.data(), 1))
        return false;
      for (size_t i = 0; i < 16; ++i) {
        scales[(r0 + i) * (C / 16) + c0 / 16] = s;
        for (size_t j = 0; j < 16; ++j)
          codes[(r0 + i) * C + c0 + j] = tc[i * 16 + j];
      }
    }
  }
  return true;
}

}  // namespace mxc::fast
