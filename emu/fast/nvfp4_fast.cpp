#include "emu/fast/nvfp4_fast.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <span>
#include <vector>

#include "emu/arith.h"
#include "emu/block/quantize.h"
#include "emu/convert.h"
#include "emu/fast/convert_fast.h"
#include "emu/fast/nvfp4_fused.h"
#include "emu/fast/quantize_fast.h"
#include "emu/round_pack.h"

namespace mxc::fast {
namespace detail {

namespace {

constexpr uint32_t kF32One = 0x3F800000u;
constexpr uint32_t kF32Max = 0x7F7FFFFFu;

// fminf(x, FLT_MAX) for x >= 0 (NaN -> FLT_MAX), as the reference.
uint32_t min_flt_max(uint32_t x) {
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return kF32Max;
  return (x & 0x7FFFFFFFu) > kF32Max ? kF32Max : x;
}

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

void init(NvTab& t, const Nvfp4Profile& p, uint32_t s_enc) {
  t.rule = p.rule;
  t.s_enc = s_enc;
  // c = fl(S_enc * fl(1/6)), as the reference associates it.
  t.c = f32_mul(s_enc, f32_div(kF32One, 0x40C00000u));
  t.have[0] = t.have[1] = 0;
  t.ks = elem_k(Fmt::kUE4M3);
  t.ke = elem_k(Fmt::kE2M1);
  (void)conv_const(t.ks, 0, t.cs);
  (void)conv_const(t.ke, 0, t.ce);
}

// The block's max magnitude, or >= 0x7F800000 when it holds a NaN or Inf.
uint32_t amax_of(const uint32_t* x, size_t stride, size_t n) {
  uint32_t m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, x[i * stride] & 0x7FFFFFFFu);
  return m;
}

uint8_t scale_code(const NvTab& t, uint32_t amax) {
  return run_plan_one(plans().scale, as_u(as_f(amax) * as_f(t.c)));
}

// Elements of one block under its multiplier (portable path).
void elems(uint32_t enc, const uint32_t* x, size_t stride, size_t n,
           uint8_t* codes, size_t cstride) {
  const Plan& pe = plans().elem;
  const float e = as_f(enc);
  for (size_t i = 0; i < n; ++i)
    codes[i * cstride] = run_plan_one(pe, as_u(as_f(x[i * stride]) * e));
}

// One block, portable; false on a NaN or Inf.
bool block_scalar(NvTab& t, const uint32_t* x, size_t stride, size_t n,
                  uint8_t* scale, uint8_t* codes, size_t cstride) {
  const uint32_t amax = amax_of(x, stride, n);
  if (amax >= 0x7F800000u) return false;
  const uint8_t s = scale_code(t, amax);
  *scale = s;
  elems(t.get(s), x, stride, n, codes, cstride);
  return true;
}

std::atomic<bool>& enabled() {
  static std::atomic<bool> on{true};
  return on;
}

bool covered(uint32_t s_enc) {
  return s_enc < 0x7F800000u && enabled().load(std::memory_order_relaxed);
}

bool use_simd() { return fast::fused_isa() != Isa::kScalar && plans().inf_sat; }

}  // namespace

void NvTab::fill(uint8_t code) {
  const uint32_t s_val =
      static_cast<uint32_t>(convert(Fmt::kUE4M3, Fmt::kF32, code));
  uint32_t e;
  if (rule == Nvfp4Rule::kTe) {
    const uint32_t s_dec = f32_div(kF32One, s_enc);
    e = min_flt_max(f32_div(kF32One, f32_mul(s_val, s_dec)));
  } else {
    e = min_flt_max(f32_mul(s_enc, f32_div(kF32One, s_val)));
  }
  enc[code] = e;
  have[code >> 6] |= uint64_t{1} << (code & 63);
}

void nv_block_ref(const Nvfp4Profile& p, uint32_t s_enc, const uint32_t* x,
                  size_t stride, uint8_t* scale, uint8_t* codes,
                  size_t cstride) {
  uint32_t buf[16];
  for (size_t i = 0; i < 16; ++i) buf[i] = x[i * stride];
  const Nvfp4Block b = mxc::nvfp4_quantize_block(p, s_enc, buf);
  *scale = b.scale;
  for (size_t i = 0; i < 16; ++i) codes[i * cstride] = b.codes[i];
}

}  // namespace detail

using detail::NvTab;

namespace {
// The rules these kernels implement (tests/test_fast_nvfp4.cpp); the
// others (torchao's, emu/block/profile.h) decline to the reference path.
bool rule_covered(const Nvfp4Profile& p) {
  return p.rule == Nvfp4Rule::kTe || p.rule == Nvfp4Rule::kCutlass;
}
}  // namespace

void set_nvfp4_fast_enabled(bool on) { detail::enabled().store(on); }

bool nvfp4_quantize_block(const Nvfp4Profile& p, uint32_t s_enc,
                          const uint32_t* x, size_t n, uint8_t& scale,
                          uint8_t* codes) {
  if (!rule_covered(p) || !detail::covered(s_enc) || n == 0) return false;
  // The last few tables per thread (the per-block API is called per 16).
  thread_local NvTab cache[4];
  thread_local bool valid[4] = {false, false, false, false};
  thread_local size_t next = 0;
  NvTab* t = nullptr;
  for (size_t i = 0; i < 4; ++i) {
    if (valid[i] && cache[i].rule == p.rule && cache[i].s_enc == s_enc)
      t = &cache[i];
  }
  if (t == nullptr) {
    t = &cache[next];
    valid[next] = true;
    next = (next + 1) % 4;
    detail::init(*t, p, s_enc);
  }
  return detail::block_scalar(*t, x, 1, n, &scale, codes, 1);
}

bool nvfp4_quantize_rowwise(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                            int cols, const uint32_t* x, uint8_t* scales,
                            uint8_t* codes) {
  if (!rule_covered(p) || !detail::covered(s_enc) || rows <= 0 || cols <= 0 ||
      cols % 16 != 0)
    return false;
  NvTab t;
  detail::init(t, p, s_enc);
  t.fill_all();
  const size_t nb = static_cast<size_t>(rows) * static_cast<size_t>(cols) / 16;
  if (detail::use_simd()) {
    detail::nv_rows_simd(fast::fused_isa(), p, t, nb, x, scales, codes);
    return true;
  }
  for (size_t b = 0; b < nb; ++b) {
    if (!detail::block_scalar(t, x + 16 * b, 1, 16, scales + b, codes + 16 * b,
                              1))
      detail::nv_block_ref(p, s_enc, x + 16 * b, 1, scales + b, codes + 16 * b,
                           1);
  }
  return true;
}

bool nvfp4_quantize_colwise(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                            int cols, const uint32_t* x, uint8_t* scales,
                            uint8_t* codes) {
  if (!rule_covered(p) || !detail::covered(s_enc) || rows <= 0 || cols <= 0 ||
      rows % 16 != 0)
    return false;
  NvTab t;
  detail::init(t, p, s_enc);
  t.fill_all();
  const size_t R = static_cast<size_t>(rows), C = static_cast<size_t>(cols);
  if (detail::use_simd()) {
    detail::nv_cols_simd(fast::fused_isa(), p, t, R, C, x, scales, codes);
    return true;
  }
  for (size_t r0 = 0; r0 < R; r0 += 16) {
    for (size_t c = 0; c < C; ++c) {
      const uint32_t* xb = x + r0 * C + c;
      uint8_t* sb = scales + (r0 / 16) * C + c;
      uint8_t* cb = codes + r0 * C + c;
      if (!detail::block_scalar(t, xb, C, 16, sb, cb, C))
        detail::nv_block_ref(p, s_enc, xb, C, sb, cb, C);
    }
  }
  return true;
}

bool nvfp4_quantize_2d(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                       int cols, const uint32_t* x, uint8_t* scales,
                       uint8_t* codes) {
  if (!rule_covered(p) || !detail::covered(s_enc) || rows <= 0 || cols <= 0 ||
      rows % 16 != 0 || cols % 16 != 0)
    return false;
  NvTab t;
  detail::init(t, p, s_enc);
  t.fill_all();
  const size_t R = static_cast<size_t>(rows), C = static_cast<size_t>(cols);
  if (detail::use_simd())
    return detail::nv_2d_simd(fast::fused_isa(), t, R, C, x, scales, codes);
  for (size_t r0 = 0; r0 < R; r0 += 16) {
    for (size_t c0 = 0; c0 < C; c0 += 16) {
      uint32_t amax = 0;
      for (size_t i = 0; i < 16; ++i)
        amax = std::max(amax, detail::amax_of(x + (r0 + i) * C + c0, 1, 16));
      if (amax >= 0x7F800000u) return false;
      const uint8_t s = detail::scale_code(t, amax);
      const uint32_t enc = t.get(s);
      for (size_t i = 0; i < 16; ++i) {
        scales[(r0 + i) * (C / 16) + c0 / 16] = s;
        detail::elems(enc, x + (r0 + i) * C + c0, 1, 16,
                      codes + (r0 + i) * C + c0, 1);
      }
    }
  }
  return true;
}

}  // namespace mxc::fast
