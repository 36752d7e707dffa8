#include "conformance/study/quant_util.h"

#include <algorithm>

#include "conformance/study/study.h"
#include "emu/arith.h"
#include "emu/block/quantize.h"
#include "emu/block/rht.h"
#include "emu/block/scale.h"
#include "emu/convert.h"

namespace mxc::study {

double ErrStats::sqnr() const { return sqnr_db(sx2, se2); }

MxPass mx_pass(const MxProfile& p, Fmt elem, std::span<const float> x) {
  const size_t k = static_cast<size_t>(p.block);
  MxPass out;
  out.q.resize(x.size());
  std::vector<uint32_t> b(k);
  for (size_t i = 0; i + k <= x.size(); i += k) {
    for (size_t j = 0; j < k; ++j) b[j] = f32_bits(x[i + j]);
    const MxBlock blk = mx_quantize_block(p, elem, b);
    const std::vector<uint32_t> d = mx_dequantize_block(elem, blk);
    for (size_t j = 0; j < k; ++j) out.q[i + j] = bits_f32(d[j]);
    out.scales.push_back(blk.scale);
  }
  return out;
}

std::vector<double> nvfp4_pass(const Nvfp4Profile& p, std::span<const float> x) {
  float amax = 0;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  const uint32_t s_enc = nvfp4_tensor_scale(f32_bits(amax));
  std::vector<double> q(x.size());
  std::vector<uint32_t> b(16);
  for (size_t i = 0; i + 16 <= x.size(); i += 16) {
    for (size_t j = 0; j < 16; ++j) b[j] = f32_bits(x[i + j]);
    const std::vector<uint32_t> d =
        nvfp4_dequantize_block(nvfp4_quantize_block(p, s_enc, b), s_enc);
    for (size_t j = 0; j < 16; ++j) q[i + j] = bits_f32(d[j]);
  }
  return q;
}

std::vector<double> tensor_pass(Fmt elem, std::span<const float> x) {
  float amax = 0;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  uint32_t s = f32_div(f32_bits(amax), elem_max_f32(elem));
  if (amax == 0) s = f32_bits(1.0f);
  RoundSpec sat;
  sat.overflow = Overflow::kSatFinite;
  std::vector<double> q(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const uint32_t y = f32_div(f32_bits(x[i]), s);
    const uint64_t c = convert(Fmt::kF32, elem, y, sat);
    q[i] = static_cast<double>(bits_f32(static_cast<uint32_t>(
               convert(elem, Fmt::kF32, c)))) *
           static_cast<double>(bits_f32(s));
  }
  return q;
}

std::vector<float> rht_forward(std::span<const float> x) {
  std::vector<float> y(x.size());
  rht16_rows_f32(x, y, 1, x.size(), kTeWgradSignMask);
  return y;
}

std::vector<double> rht_inverse(std::span<const double> y) {
  std::vector<double> x(y.size());
  for (size_t i = 0; i + 16 <= y.size(); i += 16) {
    for (int k = 0; k < 16; ++k) {
      double s = 0;
      for (int j = 0; j < 16; ++j) s += hadamard16(k, j) * y[i + j];
      const double sign = ((kTeWgradSignMask >> k) & 1) ? -1.0 : 1.0;
      x[i + k] = sign * s * 0.25;
    }
  }
  return x;
}

double elem_max(Fmt elem) { return bits_f32(elem_max_f32(elem)); }

double elem_half_ulp_at_max(Fmt elem) {
  const FormatDesc& d = desc(elem);
  return std::ldexp(1.0, d.emax() - d.man_bits - 1);
}

}  // namespace mxc::study
