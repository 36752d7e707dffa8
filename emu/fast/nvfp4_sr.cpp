#include "emu/fast/nvfp4_sr.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <span>

#include "emu/block/quantize.h"
#include "emu/fast/nvfp4_fused.h"
#include "emu/fast/nvfp4_sr_kernel.h"
#include "emu/fast/quantize_fast.h"
#include "emu/fast/fp_env.h"

namespace mxc::fast {
namespace detail {

uint32_t e2m1_sr(uint32_t y, uint32_t rb) {
  const uint32_t a = y & 0x7FFFFFFFu, sign = (y >> 28) & 8u;
  rb &= 0xFFu;
  uint32_t code;
  if (a < 0x3F800000u) {
    // |y| < 1: the quantum is 0.5 (E2M1's subnormal step). t =
    // floor(512 |y|) (the product is exact: a power-of-two scaling below
    // 2^9; the conversion truncates): t >> 8 quanta are kept, t & 255 are
    // the top 8 discarded bits.
    const auto t = static_cast<uint32_t>(std::bit_cast<float>(a) * 512.0f);
    code = (t >> 8) + (((t & 0xFFu) + rb) >> 8);
  } else {
    // |y| = 1.m * 2^e, e >= 0: the kept bit is m's top bit, the top 8
    // discarded bits follow it; a carry runs into the next binade as in
    // the encoding, and from 6 up everything saturates to 6 (code 7).
    const uint32_t e = std::min((a >> 23) - 127u, 3u);
    const uint32_t m = a & 0x7FFFFFu;
    const uint32_t base = ((e + 1u) << 1) | (m >> 22);
    code = std::min(base + ((((m >> 14) & 0xFFu) + rb) >> 8), 7u);
  }
  return code | sign;
}

namespace {

std::atomic<uint64_t>& ref_blocks() {
  static std::atomic<uint64_t> n{0};
  return n;
}

bool has_sr_plan(const Nvfp4Profile& p, const NvTab* t) {
  return t != nullptr && nvfp4_has_sr(p) && t->plan.n_cand == 1;
}

}  // namespace

bool sr_block_plan(const NvTab& t, const uint32_t* x, const uint32_t* rb,
                   size_t stride, size_t n, uint8_t* scale, uint8_t* codes,
                   size_t cstride) {
  uint32_t amax = 0;
  for (size_t i = 0; i < n; ++i)
    amax = std::max(amax, x[i * stride] & 0x7FFFFFFFu);
  const Nvfp4Candidate& c = t.plan.cand[0];
  const uint8_t s = sr_scale_code(c, amax);
  if (s == 0x80) return false;
  const float op = std::bit_cast<float>(c.operand[s]);
  *scale = s;
  for (size_t i = 0; i < n; ++i) {
    const float v = std::bit_cast<float>(x[i * stride]);
    const uint32_t y = std::bit_cast<uint32_t>(c.divide ? v / op : v * op);
    codes[i * cstride] = t.plan.exact_neg_zero_to_pos && y == 0x80000000u
                             ? 0
                             : static_cast<uint8_t>(e2m1_sr(y, rb[i * stride]));
  }
  return true;
}

void sr_block_ref(const Nvfp4Profile& p, uint32_t s_enc, const uint32_t* x,
                  const uint32_t* rb, size_t stride, uint8_t* scale,
                  uint8_t* codes, size_t cstride) {
  ref_blocks().fetch_add(1, std::memory_order_relaxed);
  uint32_t xs[16], rs[16];
  for (size_t i = 0; i < 16; ++i) {
    xs[i] = x[i * stride];
    rs[i] = rb[i * stride];
  }
  // The fast block path declines this block again (NaN, Inf, or a code
  // the plan does not model): the reference runs.
  const Nvfp4Block b = mxc::nvfp4_quantize_block(p, s_enc, xs, rs);
  *scale = b.scale;
  for (size_t i = 0; i < 16; ++i) codes[i * cstride] = b.codes[i];
}

}  // namespace detail

using detail::NvTab;

uint64_t nvfp4_sr_reference_blocks() {
  return detail::ref_blocks().load(std::memory_order_relaxed);
}

bool nvfp4_quantize_block_sr(const Nvfp4Profile& p, uint32_t s_enc,
                             const uint32_t* x, const uint32_t* rbits, size_t n,
                             uint8_t& scale, uint8_t* codes) {
  const FpEnvDefault fp_env;  // fp_env.h
  if (n == 0) return false;
  const NvTab* t = detail::nv_table(p, s_enc);
  if (!detail::has_sr_plan(p, t)) return false;
  return detail::sr_block_plan(*t, x, rbits, 1, n, &scale, codes, 1);
}

bool nvfp4_quantize_rowwise_sr(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                               int cols, const uint32_t* x,
                               const uint32_t* rbits, uint8_t* scales,
                               uint8_t* codes) {
  const FpEnvDefault fp_env;  // fp_env.h
  if (rows <= 0 || cols <= 0 || cols % 16 != 0) return false;
  const NvTab* t = detail::nv_table(p, s_enc);
  if (!detail::has_sr_plan(p, t)) return false;
  const size_t nb = static_cast<size_t>(rows) * static_cast<size_t>(cols) / 16;
  if (fused_isa() != Isa::kScalar) {
    detail::nv_sr_rows_simd(fused_isa(), p, *t, nb, x, rbits, scales, codes);
    return true;
  }
  for (size_t b = 0; b < nb; ++b) {
    const size_t o = 16 * b;
    if (!detail::sr_block_plan(*t, x + o, rbits + o, 1, 16, scales + b,
                               codes + o, 1))
      detail::sr_block_ref(p, s_enc, x + o, rbits + o, 1, scales + b, codes + o,
                           1);
  }
  return true;
}

bool nvfp4_quantize_colwise_sr(const Nvfp4Profile& p, uint32_t s_enc, int rows,
                               int cols, const uint32_t* x,
                               const uint32_t* rbits, uint8_t* scales,
                               uint8_t* codes) {
  const FpEnvDefault fp_env;  // fp_env.h
  if (rows <= 0 || cols <= 0 || rows % 16 != 0) return false;
  const NvTab* t = detail::nv_table(p, s_enc);
  if (!detail::has_sr_plan(p, t)) return false;
  const size_t R = static_cast<size_t>(rows), C = static_cast<size_t>(cols);
  if (fused_isa() != Isa::kScalar) {
    detail::nv_sr_cols_simd(fused_isa(), p, *t, R, C, x, rbits, scales, codes);
    return true;
  }
  for (size_t r0 = 0; r0 < R; r0 += 16) {
    for (size_t c = 0; c < C; ++c) {
      const size_t o = r0 * C + c;
      uint8_t* sb = scales + (r0 / 16) * C + c;
      if (!detail::sr_block_plan(*t, x + o, rbits + o, C, 16, sb, codes + o, C))
        detail::sr_block_ref(p, s_enc, x + o, rbits + o, C, sb, codes + o, C);
    }
  }
  return true;
}

}  // namespace mxc::fast
