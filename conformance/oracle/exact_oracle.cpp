// Exact conversion oracle; see exact_oracle.h. Rule numbers (1..8) refer to
// the conversion semantics in docs/rounding.md. Deliberately shares no code
// with emu/.
#include "conformance/oracle/exact_oracle.h"

#include <algorithm>
#include <array>
#include <boost/multiprecision/cpp_int.hpp>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mxc::oracle {
namespace {

using boost::multiprecision::cpp_int;
using boost::multiprecision::cpp_rational;

// ---------------------------------------------------------------------------
// Exact non-negative dyadic rationals: value = m * 2^e, kept canonical
// (m odd, or m == 0 with e == 0) so that equal values compare field-equal.

struct Dy {
  cpp_int m;
  int e = 0;
};

Dy make_dy(cpp_int m, int e) {
  if (m == 0) return Dy{cpp_int(0), 0};
  const auto tz = static_cast<int>(boost::multiprecision::lsb(m));
  if (tz > 0) {
    m >>= tz;
    e += tz;
  }
  return Dy{std::move(m), e};
}

bool is_zero(const Dy& a) { return a.m == 0; }

// floor(log2(a)) for a > 0.
int flog2(const Dy& a) {
  return static_cast<int>(boost::multiprecision::msb(a.m)) + a.e;
}

int cmp(const Dy& a, const Dy& b) {
  if (is_zero(a) || is_zero(b)) {
    return is_zero(a) ? (is_zero(b) ? 0 : -1) : 1;
  }
  const int la = flog2(a), lb = flog2(b);
  if (la != lb) return la < lb ? -1 : 1;
  const int e0 = std::min(a.e, b.e);
  const cpp_int x = a.m << (a.e - e0);
  const cpp_int y = b.m << (b.e - e0);
  return x < y ? -1 : (x > y ? 1 : 0);
}

// Both operands as integers over the common scale 2^min(a.e, b.e).
std::pair<cpp_int, cpp_int> align(const Dy& a, const Dy& b) {
  const int e0 = std::min(is_zero(a) ? b.e : a.e, is_zero(b) ? a.e : b.e);
  return {a.m << (a.e - e0), b.m << (b.e - e0)};
}

int common_exp(const Dy& a, const Dy& b) {
  return std::min(is_zero(a) ? b.e : a.e, is_zero(b) ? a.e : b.e);
}

// a - b, requires a >= b.
Dy sub(const Dy& a, const Dy& b) {
  auto [x, y] = align(a, b);
  return make_dy(x - y, common_exp(a, b));
}

Dy pow2(int e) { return Dy{cpp_int(1), e}; }

cpp_rational to_rational(const Dy& a) {
  if (a.e >= 0) return cpp_rational(cpp_int(a.m << a.e));
  return cpp_rational(a.m, cpp_int(1) << -a.e);
}

std::string rational_str(const cpp_rational& r, bool force_den) {
  const cpp_int num = boost::multiprecision::numerator(r);
  const cpp_int den = boost::multiprecision::denominator(r);
  if (den == 1 && !force_den) return num.str();
  return num.str() + "/" + den.str();
}

// ---------------------------------------------------------------------------
// Own format table (see docs/rounding.md "Format definitions").

enum class Kind { Float, E8M0, Int8 };
enum class Specials {
  None,     // every encoding finite (e3m2, e2m3, e2m1)
  IEEE,     // exponent all ones: mantissa 0 = Inf, else NaN
  AllOnes,  // only S.1111.111 is NaN, no Inf (e4m3, ue4m3)
  Fnuz,     // the sign bit alone (-0's encoding) is the only NaN; no Inf,
            // no -0 (e4m3fnuz, e5m2fnuz, e4m3b11fnuz)
};

struct Fmt {
  std::string_view name;
  Kind kind;
  int width;   // storage bits
  int ebits;   // exponent field bits
  int mbits;   // mantissa field bits
  int bias;
  bool is_signed;
  Specials specials;
  bool target_ok;
};

constexpr std::array<Fmt, 15> kFmts{{
    {"e4m3", Kind::Float, 8, 4, 3, 7, true, Specials::AllOnes, true},
    {"e5m2", Kind::Float, 8, 5, 2, 15, true, Specials::IEEE, true},
    {"e3m2", Kind::Float, 6, 3, 2, 3, true, Specials::None, true},
    {"e2m3", Kind::Float, 6, 2, 3, 1, true, Specials::None, true},
    {"e2m1", Kind::Float, 4, 2, 1, 1, true, Specials::None, true},
    {"e8m0", Kind::E8M0, 8, 8, 0, 127, false, Specials::None, true},
    {"ue4m3", Kind::Float, 8, 4, 3, 7, false, Specials::AllOnes, true},
    {"int8", Kind::Int8, 8, 0, 0, 0, true, Specials::None, true},
    {"f16", Kind::Float, 16, 5, 10, 15, true, Specials::IEEE, true},
    {"bf16", Kind::Float, 16, 8, 7, 127, true, Specials::IEEE, true},
    {"f32", Kind::Float, 32, 8, 23, 127, true, Specials::IEEE, false},
    {"f64", Kind::Float, 64, 11, 52, 1023, true, Specials::IEEE, false},
    {"e4m3fnuz", Kind::Float, 8, 4, 3, 8, true, Specials::Fnuz, true},
    {"e5m2fnuz", Kind::Float, 8, 5, 2, 16, true, Specials::Fnuz, true},
    {"e4m3b11fnuz", Kind::Float, 8, 4, 3, 11, true, Specials::Fnuz, true},
}};

std::size_t fmt_index(std::string_view name) {
  for (std::size_t i = 0; i < kFmts.size(); ++i) {
    if (kFmts[i].name == name) return i;
  }
  throw std::invalid_argument("exact_oracle: unknown format '" +
                              std::string(name) + "'");
}

uint64_t low_mask(int n) {
  return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
}

// Bits of sign-less payload (exponent + mantissa) of a float-kind format.
int payload_bits(const Fmt& f) { return f.ebits + f.mbits; }

uint64_t sign_bit(const Fmt& f) {
  if (!f.is_signed) return 0;
  if (f.kind == Kind::Int8) return 0x80;
  return uint64_t{1} << payload_bits(f);
}

bool has_inf(const Fmt& f) { return f.specials == Specials::IEEE; }
bool has_nan(const Fmt& f) {
  return f.kind == Kind::E8M0 || f.specials != Specials::None;
}

// Rule 1: all storage bits one except the sign bit (FNUZ: its one NaN,
// the sign bit alone).
uint64_t canonical_nan(const Fmt& f) {
  if (f.kind == Kind::E8M0) return 0xFF;
  if (f.specials == Specials::Fnuz) return sign_bit(f);
  return low_mask(payload_bits(f));
}

uint64_t inf_bits(const Fmt& f) { return low_mask(f.ebits) << f.mbits; }

// ---------------------------------------------------------------------------
// Decoding.

enum class Cls { NaN, Inf, Zero, Finite };

struct Val {
  Cls cls = Cls::Zero;
  bool neg = false;
  Dy mag;  // |x| for Finite
};

Val decode(const Fmt& f, uint64_t bits) {
  bits &= low_mask(f.width);
  Val v;
  if (f.kind == Kind::E8M0) {
    if (bits == 0xFF) {
      v.cls = Cls::NaN;
    } else {
      v.cls = Cls::Finite;
      v.mag = pow2(static_cast<int>(bits) - 127);
    }
    return v;
  }
  if (f.kind == Kind::Int8) {
    const int i = bits >= 0x80 ? static_cast<int>(bits) - 256
                               : static_cast<int>(bits);
    v.neg = i < 0;
    v.cls = i == 0 ? Cls::Zero : Cls::Finite;
    v.mag = make_dy(cpp_int(i < 0 ? -i : i), -6);
    return v;
  }
  const int nb = payload_bits(f);
  if (f.specials == Specials::Fnuz && bits == sign_bit(f)) {
    v.cls = Cls::NaN;
    return v;
  }
  if (f.is_signed) {
    v.neg = ((bits >> nb) & 1) != 0;
  } else {
    bits &= low_mask(nb);  // ue4m3: bit 7 ignored on input
  }
  const uint64_t emax = low_mask(f.ebits), mmax = low_mask(f.mbits);
  const uint64_t ef = (bits >> f.mbits) & emax;
  const uint64_t mf = bits & mmax;
  if (f.specials == Specials::IEEE && ef == emax) {
    v.cls = mf == 0 ? Cls::Inf : Cls::NaN;
    return v;
  }
  if (f.specials == Specials::AllOnes && ef == emax && mf == mmax) {
    v.cls = Cls::NaN;
    return v;
  }
  if (ef == 0 && mf == 0) {
    v.cls = Cls::Zero;
    return v;
  }
  v.cls = Cls::Finite;
  if (ef == 0) {  // subnormal: 0.m * 2^(1-bias)
    v.mag = make_dy(cpp_int(mf), 1 - f.bias - f.mbits);
  } else {  // normal: 1.m * 2^(E-bias)
    v.mag = make_dy(cpp_int(mf | (uint64_t{1} << f.mbits)),
                    static_cast<int>(ef) - f.bias - f.mbits);
  }
  return v;
}

// ---------------------------------------------------------------------------
// Sorted tables of the non-negative finite values of each target.

struct Entry {
  Dy v;
  uint64_t enc = 0;
  bool odd = false;           // last significand bit (encoding LSB)
  bool virtual_zero = false;  // e8m0's value 0 below 2^-127 (rule 7)
};

struct Table {
  std::vector<Entry> e;  // strictly increasing by value
};

Table build_table(const Fmt& f) {
  Table t;
  uint64_t count = 0;
  if (f.kind == Kind::E8M0) {
    count = 256;
  } else {
    count = uint64_t{1} << payload_bits(f);  // sign bit clear / unsigned
  }
  for (uint64_t enc = 0; enc < count; ++enc) {
    Val v = decode(f, enc);
    if (v.cls == Cls::Zero) {
      t.e.push_back(Entry{Dy{}, enc, false, false});
    } else if (v.cls == Cls::Finite) {
      // For sign-magnitude floats the encoding LSB is the last significand
      // bit (subnormals in units of their spacing); for e8m0 (no fraction
      // bits) it is the LSB of the biased exponent.
      t.e.push_back(Entry{std::move(v.mag), enc, (enc & 1) != 0, false});
    }
  }
  if (f.kind == Kind::E8M0) {
    t.e.push_back(Entry{Dy{}, 0, false, true});  // rule 7: virtual 0
  }
  std::sort(t.e.begin(), t.e.end(), [](const Entry& a, const Entry& b) {
    return cmp(a.v, b.v) < 0;
  });
  for (std::size_t i = 1; i < t.e.size(); ++i) {
    if (cmp(t.e[i - 1].v, t.e[i].v) >= 0) {
      throw std::logic_error("exact_oracle: duplicate value in table of " +
                             std::string(f.name));
    }
  }
  return t;
}

const Table& table_for(std::size_t idx) {
  static std::array<std::once_flag, kFmts.size()> once;
  static std::array<Table, kFmts.size()> tables;
  std::call_once(once[idx], [idx] { tables[idx] = build_table(kFmts[idx]); });
  return tables[idx];
}

// ---------------------------------------------------------------------------
// Rounding of a magnitude a > 0 (rule 6).

// A candidate magnitude. `over` means beyond the largest finite value M (in
// the extension of rule 6, or for int8 beyond 127).
struct Cand {
  Dy v;
  bool odd = false;
  bool over = false;
  bool virtual_zero = false;
  uint64_t enc = 0;  // float/e8m0: encoding of v when !over; int8: k = v*64
  cpp_int k;         // int8 only: the integer v * 2^6
};

struct Bracket {
  Cand t;  // truncation: largest candidate <= a
  Cand u;  // smallest candidate >= a (== t when exact)
  bool exact = false;
};

Cand from_entry(const Entry& en) {
  Cand c;
  c.v = en.v;
  c.odd = en.odd;
  c.enc = en.enc;
  c.virtual_zero = en.virtual_zero;
  return c;
}

// Parity of an extended value v > M (rule 6: top binade spacing continued
// with unbounded exponent). With p >= 1 fraction bits the last significand bit
// is bit 0 of v / 2^(floor(log2 v) - p); for e8m0 (p = 0) it is the LSB of
// the (unbounded) biased exponent, as for its encodings.
bool extended_odd(const Fmt& f, const Dy& v) {
  const int lg = flog2(v);
  if (f.mbits == 0) return ((lg + f.bias) & 1) != 0;
  return v.e == lg - f.mbits;  // m is odd, so v/2^(lg-p) is odd iff e==lg-p
}

Bracket bracket_float(const Fmt& f, const Table& tab, const Dy& a) {
  Bracket b;
  const Entry& top = tab.e.back();
  if (cmp(a, top.v) <= 0) {
    // Largest entry <= a; entry 0 is 0 (or the e8m0 virtual 0) so it exists.
    auto it = std::upper_bound(
        tab.e.begin(), tab.e.end(), a,
        [](const Dy& x, const Entry& en) { return cmp(x, en.v) < 0; });
    const Entry& lo = *(it - 1);
    b.t = from_entry(lo);
    if (cmp(lo.v, a) == 0) {
      b.u = b.t;
      b.exact = true;
    } else {
      b.u = from_entry(*it);
    }
    return b;
  }
  // Beyond M: spacing 2^(floor(log2 a) - p) in a's binade.
  const int ue = flog2(a) - f.mbits;
  cpp_int q;
  bool exact = false;
  if (a.e >= ue) {
    q = a.m << (a.e - ue);
    exact = true;
  } else {
    q = a.m >> (ue - a.e);  // a.m odd, so a is not on the grid
  }
  const Dy tv = make_dy(q, ue);
  if (cmp(tv, top.v) == 0) {
    b.t = from_entry(top);
  } else {
    b.t.v = tv;
    b.t.odd = extended_odd(f, tv);
    b.t.over = true;
  }
  if (exact) {
    b.u = b.t;
    b.exact = true;
  } else {
    b.u.v = make_dy(q + 1, ue);
    b.u.odd = extended_odd(f, b.u.v);
    b.u.over = true;
  }
  return b;
}

// int8: the values k * 2^-6 for all integers k (rule 6).
Bracket bracket_int8(const Dy& a) {
  Bracket b;
  cpp_int k;
  const int sh = a.e + 6;
  if (sh >= 0) {
    k = a.m << sh;
    b.exact = true;
  } else {
    k = a.m >> -sh;  // a.m odd: not a multiple of 2^-6
  }
  b.t.k = k;
  b.t.v = make_dy(k, -6);
  b.t.odd = (k & 1) != 0;
  if (b.exact) {
    b.u = b.t;
  } else {
    b.u.k = k + 1;
    b.u.v = make_dy(k + 1, -6);
    b.u.odd = !b.t.odd;
  }
  return b;
}

// Rule 6: whether to take u (larger magnitude) rather than t, for
// t < a < u; neg is the sign of x.
bool round_away(const Spec& s, bool neg, const Dy& a, const Bracket& b) {
  switch (s.mode) {
    case Mode::RZ:
      return false;
    case Mode::RU:
      return !neg;
    case Mode::RD:
      return neg;
    case Mode::Odd:
      return !b.t.odd;  // t odd -> t; else u (0 counts as even)
    case Mode::RNE:
    case Mode::RNA:
    case Mode::RNZ: {
      const int c = cmp(sub(a, b.t.v), sub(b.u.v, a));
      if (c != 0) return c > 0;
      if (s.mode == Mode::RNA) return true;
      if (s.mode == Mode::RNZ) return false;  // tie: the smaller magnitude
      return b.t.odd;  // tie: the even one
    }
    case Mode::SR: {
      const unsigned k = static_cast<unsigned>(s.sr_bits);
      const uint64_t r = uint64_t{s.rbits} & low_mask(s.sr_bits);
      const Dy num = sub(a, b.t.v), den = sub(b.u.v, b.t.v);
      auto [n, d] = align(num, den);
      const cpp_int q = (n << k) / d;  // floor(f * 2^k)
      return q + r >= (cpp_int(1) << k);
    }
  }
  throw std::logic_error("exact_oracle: bad mode");
}

// Encoding of a chosen candidate magnitude with the sign of x (rules 6-8).
uint64_t encode(const Fmt& f, const Table* tab, const Cand& c, bool neg,
                const Spec& s) {
  if (f.kind == Kind::Int8) {
    // Rule 8: int8 always saturates to [-128, 127] (i.e. [-2, 127/64]).
    cpp_int k = neg ? cpp_int(-c.k) : c.k;
    if (k > 127) k = 127;
    if (k < -128) k = -128;
    const long long ki = k.convert_to<long long>();
    return static_cast<uint64_t>(ki) & 0xFF;  // 0 has no sign
  }
  const uint64_t sb = neg ? sign_bit(f) : 0;
  if (c.over) {  // rule 8
    const uint64_t max_enc = tab->e.back().enc;
    if (s.saturate) return max_enc | sb;
    const bool to_max = s.mode == Mode::RZ || s.mode == Mode::Odd ||
                        (s.mode == Mode::RU && neg) ||
                        (s.mode == Mode::RD && !neg);
    if (to_max) return max_enc | sb;
    if (has_inf(f)) return inf_bits(f) | sb;
    if (has_nan(f)) return canonical_nan(f) | sb;  // the NaN keeps x's sign
    return max_enc | sb;
  }
  if (c.virtual_zero) return 0x00;  // rule 7: below 2^-127 -> 0x00
  // Zero keeps the sign of x (rule 6), except in FNUZ formats (no -0).
  if (f.specials == Specials::Fnuz && is_zero(c.v)) return 0x00;
  return c.enc | sb;
}

// Result for the non-finite / zero / relu cases (rules 1-5); returns false
// when x is finite nonzero and must be rounded.
struct Prep {
  const Fmt* to = nullptr;
  const Table* tab = nullptr;
  Val x;
  bool done = false;
  uint64_t result = 0;
};

Prep prepare(std::string_view from, std::string_view to, uint64_t bits,
             const Spec& s) {
  const Fmt& ff = kFmts[fmt_index(from)];
  const std::size_t ti = fmt_index(to);
  const Fmt& tf = kFmts[ti];
  if (!tf.target_ok) {
    throw std::invalid_argument("exact_oracle: '" + std::string(to) +
                                "' is not supported as a target");
  }
  if (s.mode == Mode::SR && (s.sr_bits < 1 || s.sr_bits > 32)) {
    throw std::invalid_argument("exact_oracle: sr_bits must be 1..32");
  }
  Prep p;
  p.to = &tf;
  p.tab = tf.kind == Kind::Int8 ? nullptr : &table_for(ti);
  p.x = decode(ff, bits);
  Val& x = p.x;
  auto finish = [&p](uint64_t r) {
    p.done = true;
    p.result = r;
    return p;
  };
  const uint64_t max_enc = p.tab ? p.tab->e.back().enc : 0x7F;
  // Rule 1: NaN.
  if (x.cls == Cls::NaN) {
    return finish(has_nan(tf) ? canonical_nan(tf) : max_enc);
  }
  // Rule 2: unsigned targets ignore the sign.
  if (!tf.is_signed) x.neg = false;
  // Rule 3: relu.
  if (s.relu && x.neg) return finish(0);
  const uint64_t sb = x.neg ? sign_bit(tf) : 0;
  // Rule 4: zero (int8 and FNUZ have no -0, e8m0 no zero: 0x00 = 2^-127).
  if (x.cls == Cls::Zero) {
    if (tf.kind == Kind::Int8 || tf.kind == Kind::E8M0 ||
        tf.specials == Specials::Fnuz) {
      return finish(0);
    }
    return finish(sb);
  }
  // Rule 5: infinity.
  if (x.cls == Cls::Inf) {
    if (tf.kind == Kind::Int8) return finish(x.neg ? 0x80 : 0x7F);
    if (s.saturate) return finish(max_enc | sb);
    if (has_inf(tf)) return finish(inf_bits(tf) | sb);
    if (has_nan(tf)) return finish(canonical_nan(tf) | sb);  // keeps sign
    return finish(max_enc | sb);
  }
  return p;
}

Bracket bracket(const Prep& p) {
  return p.to->kind == Kind::Int8 ? bracket_int8(p.x.mag)
                                  : bracket_float(*p.to, *p.tab, p.x.mag);
}

}  // namespace

uint64_t exact_convert(std::string_view from, std::string_view to,
                       uint64_t bits, const Spec& s) {
  const Prep p = prepare(from, to, bits, s);
  if (p.done) return p.result;
  const Bracket b = bracket(p);
  const bool away = !b.exact && round_away(s, p.x.neg, p.x.mag, b);
  return encode(*p.to, p.tab, away ? b.u : b.t, p.x.neg, s);
}

Neighbours neighbours(std::string_view from, std::string_view to,
                      uint64_t bits, const Spec& s) {
  const Prep p = prepare(from, to, bits, s);
  Neighbours n;
  n.frac = "0/1";
  if (p.done) {
    n.lo_bits = n.hi_bits = p.result;
    n.exact = true;
    return n;
  }
  const Bracket b = bracket(p);
  const uint64_t et = encode(*p.to, p.tab, b.t, p.x.neg, s);
  if (b.exact) {
    n.lo_bits = n.hi_bits = et;
    n.exact = true;
    return n;
  }
  const uint64_t eu = encode(*p.to, p.tab, b.u, p.x.neg, s);
  const cpp_rational ulp = to_rational(sub(b.u.v, b.t.v));
  cpp_rational f;
  if (p.x.neg) {  // lo = -u, hi = -t: (x - lo)/(hi - lo) = (u - a)/(u - t)
    n.lo_bits = eu;
    n.hi_bits = et;
    f = to_rational(sub(b.u.v, p.x.mag)) / ulp;
  } else {
    n.lo_bits = et;
    n.hi_bits = eu;
    f = to_rational(sub(p.x.mag, b.t.v)) / ulp;
  }
  n.frac = rational_str(f, true);
  return n;
}

std::string exact_value(std::string_view fmt, uint64_t bits) {
  const Val v = decode(kFmts[fmt_index(fmt)], bits);
  switch (v.cls) {
    case Cls::NaN:
      return "NaN";
    case Cls::Inf:
      return v.neg ? "-Inf" : "+Inf";
    case Cls::Zero:
      return v.neg ? "-0" : "0";
    case Cls::Finite:
      break;
  }
  return (v.neg ? "-" : "") + rational_str(to_rational(v.mag), false);
}

bool known_format(std::string_view name) {
  return std::any_of(kFmts.begin(), kFmts.end(),
                     [name](const Fmt& f) { return f.name == name; });
}

std::string_view mode_name(Mode m) {
  switch (m) {
    case Mode::RNE:
      return "rne";
    case Mode::RZ:
      return "rz";
    case Mode::RU:
      return "ru";
    case Mode::RD:
      return "rd";
    case Mode::RNA:
      return "rna";
    case Mode::Odd:
      return "odd";
    case Mode::SR:
      return "sr";
    case Mode::RNZ:
      return "rnz";
  }
  return "?";
}

}  // namespace mxc::oracle
