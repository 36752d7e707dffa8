#include "emu/block/rht.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace mxc {

using boost::multiprecision::cpp_int;

Dyadic Dyadic::from_float(float x) {
  // IEEE 754-2019 binary32: 1 sign, 8 exponent (bias 127), 23 fraction bits.
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint32_t biased = (bits >> 23) & 0xFF;
  const uint32_t frac = bits & 0x7FFFFF;
  if (biased == 0xFF) {
    throw std::invalid_argument(
        "Dyadic::from_float: Inf or NaN has no exact value");
  }
  Dyadic d;
  if (biased == 0) {
    d.m = frac;  // subnormal (or zero): frac * 2^-149
    d.e = -149;
  } else {
    d.m = frac | (uint32_t{1} << 23);
    d.e = static_cast<int>(biased) - 150;
  }
  if ((bits >> 31) != 0) d.m = -d.m;
  return d;
}

Dyadic ldexp(const Dyadic& x, int k) { return Dyadic{x.m, x.e + k}; }

Dyadic abs(const Dyadic& x) {
  return Dyadic{x.m < 0 ? cpp_int(-x.m) : x.m, x.e};
}

Dyadic operator+(const Dyadic& a, const Dyadic& b) {
  if (a.m == 0) return b;
  if (b.m == 0) return a;
  const int e = std::min(a.e, b.e);
  return Dyadic{(a.m << (a.e - e)) + (b.m << (b.e - e)), e};
}

Dyadic operator-(const Dyadic& a) { return Dyadic{-a.m, a.e}; }

Dyadic operator-(const Dyadic& a, const Dyadic& b) { return a + (-b); }

Dyadic operator*(const Dyadic& a, const Dyadic& b) {
  return Dyadic{a.m * b.m, a.e + b.e};
}

std::strong_ordering operator<=>(const Dyadic& a, const Dyadic& b) {
  const int s = (a - b).m.sign();
  return s < 0   ? std::strong_ordering::less
         : s > 0 ? std::strong_ordering::greater
                 : std::strong_ordering::equal;
}

float round_to_f32_rne(const Dyadic& x) {
  if (x.m == 0) return 0.0f;
  const bool neg = x.m < 0;
  const cpp_int a = neg ? cpp_int(-x.m) : x.m;
  // Value a * 2^e with a's leading bit at 2^(e + msb).
  const int lead = x.e + static_cast<int>(boost::multiprecision::msb(a));
  // The f32 quantum at that binade: 2^(lead - 23) for normals, 2^-149 at
  // and below the subnormal range.
  const int q = std::max(lead - 23, -149);
  cpp_int r;
  if (x.e >= q) {
    r = a << (x.e - q);  // exact; r < 2^24
  } else {
    const int shift = q - x.e;
    r = a >> shift;
    const cpp_int rem = a - (r << shift);
    const cpp_int half = cpp_int(1) << (shift - 1);
    if (rem > half || (rem == half && (r & 1) != 0)) ++r;  // ties to even
  }
  // r <= 2^24, so converting it to float is exact; ldexp by q is then exact
  // (the result is on the f32 grid) or overflows to Inf, which is what RNE
  // gives for values that round to 2^128 or beyond.
  const float mag = std::ldexp(static_cast<float>(r.convert_to<uint32_t>()), q);
  return neg ? -mag : mag;
}

ExactBlock16 to_exact(const Block16& x) {
  ExactBlock16 out;
  for (size_t k = 0; k < 16; ++k) out[k] = Dyadic::from_float(x[k]);
  return out;
}

ExactBlock16 rht16_exact(const ExactBlock16& x, uint16_t signs) {
  ExactBlock16 y;
  for (int j = 0; j < 16; ++j) {
    Dyadic acc;
    for (int k = 0; k < 16; ++k) {
      const int s = ((signs >> k) & 1) != 0 ? -1 : 1;
      acc = hadamard16(j, k) * s > 0 ? acc + x[k] : acc - x[k];
    }
    y[j] = ldexp(acc, -2);
  }
  return y;
}

ExactBlock16 rht16_exact(const Block16& x, uint16_t signs) {
  return rht16_exact(to_exact(x), signs);
}

ExactBlock16 rht16_inverse_exact(const ExactBlock16& y, uint16_t signs) {
  // (H D / 4)^-1 = D H / 4: transform with no signs, then flip.
  ExactBlock16 x = rht16_exact(y, 0);
  for (int k = 0; k < 16; ++k) {
    if (((signs >> k) & 1) != 0) x[k] = -x[k];
  }
  return x;
}

Block16 rht16_exact_rne(const Block16& x, uint16_t signs) {
  const ExactBlock16 y = rht16_exact(x, signs);
  Block16 out;
  for (size_t j = 0; j < 16; ++j) out[j] = round_to_f32_rne(y[j]);
  return out;
}

Block16 rht16_f32(const Block16& x, uint16_t signs) {
  Block16 v;
  for (int k = 0; k < 16; ++k) v[k] = ((signs >> k) & 1) != 0 ? -x[k] : x[k];
  for (int h = 1; h < 16; h <<= 1) {
    for (int j = 0; j < 16; ++j) {
      if ((j & h) != 0) continue;
      const float a = v[j];
      const float b = v[j + h];
      v[j] = a + b;
      v[j + h] = a - b;
    }
  }
  for (float& t : v) t = t * 0.25f;
  return v;
}

namespace {

template <typename Fn>
void for_each_chunk(std::span<const float> in, std::span<float> out,
                    size_t rows, size_t cols, Fn fn) {
  if (cols % 16 != 0) {
    throw std::invalid_argument("rht16_rows: cols = " + std::to_string(cols) +
                                " is not a multiple of 16");
  }
  if (in.size() != rows * cols || out.size() != rows * cols) {
    throw std::invalid_argument(
        "rht16_rows: spans must hold rows * cols floats");
  }
  for (size_t base = 0; base < rows * cols; base += 16) {
    Block16 x;
    std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(base), 16, x.begin());
    const Block16 y = fn(x);
    std::copy(y.begin(), y.end(),
              out.begin() + static_cast<std::ptrdiff_t>(base));
  }
}

}  // namespace

void rht16_rows_f32(std::span<const float> in, std::span<float> out,
                    size_t rows, size_t cols, uint16_t signs) {
  for_each_chunk(in, out, rows, cols,
                 [signs](const Block16& x) { return rht16_f32(x, signs); });
}

void rht16_rows_exact_rne(std::span<const float> in, std::span<float> out,
                          size_t rows, size_t cols, uint16_t signs) {
  for_each_chunk(in, out, rows, cols, [signs](const Block16& x) {
    return rht16_exact_rne(x, signs);
  });
}

}  // namespace mxc
