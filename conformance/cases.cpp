#include "conformance/cases.h"

#include <algorithm>
#include <cmath>

#include "conformance/splitmix64.h"
#include "emu/unpack.h"

namespace mxc {
namespace {

// The source encoding of +|v| rounded to nearest (v >= 0 is a double that
// holds every anchor exactly). Built from the format fields, without the
// emulator's rounding core: anchors only need to be near the boundary, and
// the +-ulps walk covers both sides of it.
uint64_t nearest_src(Fmt src, double v) {
  const FormatDesc& d = desc(src);
  if (v == 0) return 0;
  int e2;
  (void)std::frexp(v, &e2);  // v = m * 2^e2, m in [0.5, 1)
  int e = e2 - 1;            // exponent of the leading bit
  if (e > d.emax()) return ((uint64_t{1} << d.exp_bits) - 1) << d.man_bits;
  const int q = std::max(e, d.emin()) - d.man_bits;
  const double n = std::nearbyint(std::ldexp(v, -q));  // fits in 53 bits
  auto sig = static_cast<uint64_t>(n);
  if (sig == 0) return 0;
  const uint64_t hidden = uint64_t{1} << d.man_bits;
  if (sig < hidden) return sig;  // subnormal
  int eq = q;
  if (sig >= 2 * hidden) {
    sig >>= 1;
    ++eq;
  }
  const int64_t biased = int64_t{eq} + d.man_bits + d.bias;
  if (biased >= (int64_t{1} << d.exp_bits) - 1)
    return ((uint64_t{1} << d.exp_bits) - 1) << d.man_bits;
  return (static_cast<uint64_t>(biased) << d.man_bits) | (sig - hidden);
}

std::vector<double> finite_magnitudes(Fmt dst) {
  const FormatDesc& d = desc(dst);
  std::vector<double> vals;
  const uint64_t count = d.bits >= 32 ? 0 : (uint64_t{1} << d.bits);
  for (uint64_t b = 0; b < count; ++b) {
    const Unpacked u = unpack(dst, b);
    if (u.cls == Class::kNaN || u.cls == Class::kInf) continue;
    const double x = std::fabs(to_double(u));
    vals.push_back(x);
  }
  std::sort(vals.begin(), vals.end());
  vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
  return vals;
}

}  // namespace

std::vector<uint64_t> special_inputs(Fmt src) {
  const FormatDesc& d = desc(src);
  const uint64_t s = d.sign_mask();
  const uint64_t exp_all = ((uint64_t{1} << d.exp_bits) - 1) << d.man_bits;
  const uint64_t frac_all = (uint64_t{1} << d.man_bits) - 1;
  const uint64_t quiet = uint64_t{1} << (d.man_bits - 1);
  const uint64_t one = static_cast<uint64_t>(d.bias) << d.man_bits;
  std::vector<uint64_t> v = {
      0,                       // +0
      exp_all,                 // +Inf
      exp_all | quiet,         // canonical-ish quiet NaN
      exp_all | frac_all,      // all-ones NaN
      exp_all | 1,             // signalling NaN, payload 1
      exp_all | quiet | 0x5,   // quiet NaN with payload
      1,                       // least subnormal
      frac_all,                // greatest subnormal
      uint64_t{1} << d.man_bits,  // least normal
      exp_all - 1,             // greatest finite
      one,                     // 1.0
      one | quiet,             // 1.5
  };
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(v[i] | s);
  return v;
}

std::vector<uint64_t> boundary_inputs(Fmt src, Fmt dst, int ulps) {
  const std::vector<double> vals = finite_magnitudes(dst);
  std::vector<double> anchors = vals;
  for (size_t i = 0; i + 1 < vals.size(); ++i) {
    anchors.push_back((vals[i] + vals[i + 1]) / 2);
  }
  const FormatDesc& dd = desc(dst);
  if (vals.size() >= 2) {
    const double mx = vals.back();
    // ulp of the top binade (for E8M0 the next power of two).
    const double top_ulp =
        dd.specials == Specials::kInt
            ? std::ldexp(1.0, -dd.bias)
            : std::ldexp(1.0, dd.emax() - dd.man_bits);
    const double step = dd.specials == Specials::kE8M0 ? mx : top_ulp;
    for (double k : {0.5, 1.0, 1.5, 2.0, 4.0}) anchors.push_back(mx + k * step);
    anchors.push_back(vals[1] / 2);  // half the least nonzero magnitude
    anchors.push_back(vals[0] / 2);  // E8M0: below 2^-127
    anchors.push_back(vals[0] / 4);
  }
  const FormatDesc& sd = desc(src);
  const uint64_t max_mag = sd.sign_mask() - 1;
  std::vector<uint64_t> out;
  for (double a : anchors) {
    const uint64_t c = nearest_src(src, a);
    for (int j = -ulps; j <= ulps; ++j) {
      const int64_t b = static_cast<int64_t>(c) + j;
      if (b < 0 || static_cast<uint64_t>(b) > max_mag) continue;
      out.push_back(static_cast<uint64_t>(b));
      out.push_back(static_cast<uint64_t>(b) | sd.sign_mask());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<uint64_t> walking_inputs(Fmt src, Fmt dst) {
  const FormatDesc& sd = desc(src);
  const FormatDesc& dd = desc(dst);
  // Target exponent range (unbiased), widened by two binades each side.
  const int lo = (dd.specials == Specials::kInt ? -dd.bias - dd.man_bits
                                                 : dd.emin() - dd.man_bits) - 2;
  const int hi = (dd.specials == Specials::kInt ? 1 : dd.emax()) + 2;
  const uint64_t frac_mask = (uint64_t{1} << sd.man_bits) - 1;
  std::vector<uint64_t> out;
  for (int e = lo; e <= hi; ++e) {
    const int64_t biased = int64_t{e} + sd.bias;
    if (biased < 1 || biased >= (int64_t{1} << sd.exp_bits) - 1) continue;
    const uint64_t ebits = static_cast<uint64_t>(biased) << sd.man_bits;
    for (int j = 0; j < sd.man_bits; ++j) {
      for (uint64_t f : {uint64_t{1} << j, frac_mask & ~(uint64_t{1} << j)}) {
        out.push_back(ebits | f);
        out.push_back(ebits | f | sd.sign_mask());
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<uint64_t> random_inputs(Fmt src, uint64_t seed, size_t n) {
  SplitMix64 g(seed);
  const uint64_t mask = desc(src).storage_mask();
  std::vector<uint64_t> out(n);
  for (auto& x : out) x = g.next() & mask;
  return out;
}

std::vector<uint64_t> conversion_inputs(Fmt src, Fmt dst, const InputSet& s) {
  if (desc(src).bits <= s.exhaustive_bits) return all_encodings(src);
  std::vector<uint64_t> in = boundary_inputs(src, dst, s.ulps);
  const auto sp = special_inputs(src);
  in.insert(in.end(), sp.begin(), sp.end());
  if (s.walking) {
    const auto wk = walking_inputs(src, dst);
    in.insert(in.end(), wk.begin(), wk.end());
  }
  if (s.random > 0) {
    const auto rnd = random_inputs(src, s.seed, s.random);
    in.insert(in.end(), rnd.begin(), rnd.end());
  }
  return in;
}

std::vector<uint64_t> sample_inputs(Fmt src, std::vector<uint64_t> in,
                                    size_t cap, uint64_t seed) {
  if (in.size() <= cap) return in;
  SplitMix64 g(seed);
  std::vector<uint64_t> out = special_inputs(src);
  while (out.size() < cap) out.push_back(in[g.next() % in.size()]);
  return out;
}

std::vector<uint64_t> all_encodings(Fmt f) {
  const int bits = desc(f).bits;
  std::vector<uint64_t> out(size_t{1} << (bits > 16 ? 16 : bits));
  for (size_t i = 0; i < out.size(); ++i) out[i] = i;
  return out;
}

}  // namespace mxc
