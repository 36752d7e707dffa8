// Shared quantize/dequantize passes and error statistics for the
// quantization studies.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "emu/block/profile.h"

namespace mxc::study {

inline double dbl(size_t n) { return static_cast<double>(n); }

// Sums over a set of (x, x_hat) pairs.
struct ErrStats {
  size_t n = 0, nonzero = 0, flushed = 0;
  double sx2 = 0, se2 = 0, max_rel = 0;
  void add(double x, double q) {
    ++n;
    const double e = q - x;
    sx2 += x * x;
    se2 += e * e;
    if (x != 0) {
      ++nonzero;
      if (q == 0) ++flushed;
      max_rel = std::max(max_rel, std::fabs(e) / std::fabs(x));
    }
  }
  double mse() const { return n ? se2 / dbl(n) : 0; }
  double flushed_frac() const { return n ? dbl(flushed) / dbl(n) : 0; }
  double sqnr() const;
};

// Each block of p.block values quantized with mx_quantize_block and
// dequantized exactly (mx_dequantize_block); the scale byte per block.
struct MxPass {
  std::vector<double> q;
  std::vector<uint8_t> scales;
};
MxPass mx_pass(const MxProfile& p, Fmt elem, std::span<const float> x);

// NVFP4: tensor scale from the amax of x, blocks of 16.
std::vector<double> nvfp4_pass(const Nvfp4Profile& p, std::span<const float> x);

// Per-tensor scaling into an FP8 format: s = fl(amax / max_elem) in binary32,
// q = cvt_satfinite(fl(x / s)) (RNE), x_hat = q * s.
std::vector<double> tensor_pass(Fmt elem, std::span<const float> x);

// The 16-point RHT (TE's wgrad signs) of each chunk of 16 in binary32, and
// its exact inverse computed in double.
std::vector<float> rht_forward(std::span<const float> x);
std::vector<double> rht_inverse(std::span<const double> y);

// Largest finite element value and half an ulp above it (values beyond
// max + half_ulp are clipped by saturation, not rounded).
double elem_max(Fmt elem);
double elem_half_ulp_at_max(Fmt elem);

}  // namespace mxc::study
