#include "emu/block/dot.h"

#include <boost/multiprecision/cpp_int.hpp>
#include <stdexcept>

#include "emu/round_pack.h"
#include "emu/unpack.h"

namespace mxc {

using boost::multiprecision::cpp_int;

uint64_t mx_dot_general(const MxVector& a, const MxVector& b, Fmt out,
                        const RoundSpec& r, uint64_t c) {
  const size_t n = a.codes.size();
  if (b.codes.size() != n || a.block != b.block || a.block <= 0 ||
      n % a.block != 0 || a.scales.size() != n / a.block ||
      b.scales.size() != n / b.block) {
    throw std::invalid_argument("mx_dot_general: shapes do not match");
  }
  // Every term as sig * 2^exp; accumulate over the common lowest exponent.
  // Lowest possible: 2 * (-127 + emin - man) is above -600, so shift all by
  // a fixed base.
  constexpr int kBase = -1200;
  cpp_int sum = 0;
  bool nan = false, pos_inf = false, neg_inf = false, all_neg_zero = true;
  auto add_term = [&](bool neg, uint64_t sig, int exp) {
    if (sig == 0) return;
    cpp_int t = cpp_int(sig) << (exp - kBase);
    if (neg) sum -= t; else sum += t;
  };
  for (size_t i = 0; i < n; ++i) {
    const size_t blk = i / a.block;
    const Unpacked sa = unpack(Fmt::kE8M0, a.scales[blk]);
    const Unpacked sb = unpack(Fmt::kE8M0, b.scales[blk]);
    const Unpacked x = unpack(a.elem, a.codes[i]);
    const Unpacked y = unpack(b.elem, b.codes[i]);
    const bool neg = x.sign != y.sign;
    if (sa.cls == Class::kNaN || sb.cls == Class::kNaN ||
        x.cls == Class::kNaN || y.cls == Class::kNaN) {
      nan = true;
      continue;
    }
    if (x.cls == Class::kInf || y.cls == Class::kInf) {
      if (x.cls == Class::kZero || y.cls == Class::kZero) nan = true;
      (neg ? neg_inf : pos_inf) = true;
      continue;
    }
    if (x.cls == Class::kZero || y.cls == Class::kZero) {
      all_neg_zero = all_neg_zero && neg;
      continue;
    }
    all_neg_zero = false;
    add_term(neg, x.sig * y.sig, x.exp + y.exp + sa.exp + sb.exp);
  }
  const Unpacked cu = unpack(out, c);
  if (cu.cls == Class::kNaN) nan = true;
  if (cu.cls == Class::kInf) (cu.sign ? neg_inf : pos_inf) = true;
  if (cu.cls == Class::kZero) all_neg_zero = all_neg_zero && cu.sign;
  if (cu.cls == Class::kNormal || cu.cls == Class::kSubnormal) {
    all_neg_zero = false;
    add_term(cu.sign, cu.sig, cu.exp);
  }
  if (nan || (pos_inf && neg_inf)) return canonical_nan(out);
  if (pos_inf || neg_inf) return inf_bits(out, neg_inf);
  if (sum == 0) {
    return zero_bits(out, all_neg_zero || r.mode == Round::kRD);
  }
  const bool neg = sum < 0;
  if (neg) sum = -sum;
  // Keep the top 64 bits and a sticky bit for the rest: one rounding.
  const int width = static_cast<int>(msb(sum)) + 1;
  const int drop = width > 64 ? width - 64 : 0;
  const bool sticky = drop > 0 && (sum & ((cpp_int(1) << drop) - 1)) != 0;
  const auto sig = static_cast<uint64_t>(sum >> drop);
  return round_pack(out, neg, kBase + drop, sig, sticky, r);
}

}  // namespace mxc
