// Exact FDPA reference model; see fdpa_oracle.h for the semantics. Shares no
// code with emu/: own decoder, exact integer arithmetic (cpp_int) throughout.
#include "conformance/oracle/fdpa_oracle.h"

#include <algorithm>
#include <boost/multiprecision/cpp_int.hpp>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mxc::fdpa_oracle {
namespace {

using boost::multiprecision::cpp_int;

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("fdpa_oracle: " + what);
}

// ---------------------------------------------------------------------------
// Decoding. A finite value is (-1)^neg * sig * 2^(exp - mbits), where exp is
// the FIELD exponent: E - bias for normals, emin = 1 - bias for subnormals
// and zeros (a subnormal is not renormalised).

enum class Kind { Num, Inf, NaN };

struct Val {
  Kind kind = Kind::Num;
  bool neg = false;
  uint64_t sig = 0;
  int mbits = 0;
  int exp = 0;
  bool is_zero() const { return kind == Kind::Num && sig == 0; }
};

enum class Specials {
  Ieee,   // all-ones exponent: Inf (M == 0) or NaN
  FnNan,  // only S.1...1.1...1 is NaN (e4m3 "fn"), no Inf
  None,   // every pattern is finite (FP6, FP4)
  Fnuz,   // only 1.0...0.0...0 (the -0 pattern) is NaN, no Inf (AMD FNUZ)
};

struct Layout {
  int ebits = 0;
  int mbits = 0;
  int bias = 0;
  Specials specials = Specials::None;
  int width = 0;         // accepted pattern width in bits
  int drop_low = 0;      // low bits discarded before decoding (tf32: 13)
  int emin() const { return 1 - bias; }
};

Layout layout_of(const std::string& name) {
  auto mk = [](int e, int m, int bias, Specials s) {
    Layout l;
    l.ebits = e;
    l.mbits = m;
    l.bias = bias;
    l.specials = s;
    l.width = 1 + e + m;
    return l;
  };
  if (name == "e4m3") return mk(4, 3, 7, Specials::FnNan);
  if (name == "e5m2") return mk(5, 2, 15, Specials::Ieee);
  if (name == "e3m2") return mk(3, 2, 3, Specials::None);
  if (name == "e2m3") return mk(2, 3, 1, Specials::None);
  if (name == "e2m1") return mk(2, 1, 1, Specials::None);
  if (name == "e4m3fnuz") return mk(4, 3, 8, Specials::Fnuz);
  if (name == "e5m2fnuz") return mk(5, 2, 16, Specials::Fnuz);
  if (name == "f16") return mk(5, 10, 15, Specials::Ieee);
  if (name == "bf16") return mk(8, 7, 127, Specials::Ieee);
  if (name == "f32") return mk(8, 23, 127, Specials::Ieee);
  if (name == "tf32") {
    Layout l = mk(8, 10, 127, Specials::Ieee);
    l.width = 32;
    l.drop_low = 13;
    return l;
  }
  bad("unknown element format '" + name + "'");
}

Val decode(const Layout& f, uint64_t bits, const char* what) {
  if (f.width < 64 && (bits >> f.width) != 0)
    bad(std::string(what) + " bit pattern wider than its format");
  bits >>= f.drop_low;  // tf32: x >> 13 (the low 13 bits are truncated away)
  const uint64_t emask = (uint64_t{1} << f.ebits) - 1;
  const uint64_t mmask = (uint64_t{1} << f.mbits) - 1;
  const uint64_t E = (bits >> f.mbits) & emask;
  const uint64_t M = bits & mmask;
  Val v;
  v.neg = ((bits >> (f.ebits + f.mbits)) & 1) != 0;
  v.mbits = f.mbits;
  if (f.specials == Specials::Ieee && E == emask) {
    v.kind = (M == 0) ? Kind::Inf : Kind::NaN;
    return v;
  }
  if (f.specials == Specials::FnNan && E == emask && M == mmask) {
    v.kind = Kind::NaN;
    return v;
  }
  if (f.specials == Specials::Fnuz && v.neg && E == 0 && M == 0) {
    v.kind = Kind::NaN;
    return v;
  }
  if (E == 0) {
    v.sig = M;
    v.exp = f.emin();
  } else {
    v.sig = (uint64_t{1} << f.mbits) | M;
    v.exp = static_cast<int>(E) - f.bias;
  }
  return v;
}

enum class ScaleFmt { None, E8M0, UE4M3 };

ScaleFmt scale_fmt_of(const std::string& name) {
  if (name.empty()) return ScaleFmt::None;
  if (name == "e8m0") return ScaleFmt::E8M0;
  if (name == "ue4m3") return ScaleFmt::UE4M3;
  bad("unknown scale format '" + name + "'");
}

// Scales are never negative and never infinite.
Val decode_scale(ScaleFmt f, uint64_t bits) {
  Val v;
  if (f == ScaleFmt::None) {  // unit scale
    v.sig = 1;
    return v;
  }
  if (bits > 0xFF) bad("scale bit pattern wider than 8 bits");
  if (f == ScaleFmt::E8M0) {
    if (bits == 0xFF) {
      v.kind = Kind::NaN;
      return v;
    }
    v.sig = 1;
    v.mbits = 0;
    v.exp = static_cast<int>(bits) - 127;
    return v;
  }
  const uint64_t b = bits & 0x7F;  // UE4M3: the sign bit is ignored
  if (b == 0x7F) {
    v.kind = Kind::NaN;
    return v;
  }
  const uint64_t E = b >> 3, M = b & 7;
  v.mbits = 3;
  if (E == 0) {
    v.sig = M;  // 0x00: zero scale
    v.exp = -6;
  } else {
    v.sig = 8 | M;
    v.exp = static_cast<int>(E) - 7;
  }
  return v;
}

// ---------------------------------------------------------------------------
// Checked, decoded operands.

struct Prepared {
  Layout la, lb, lc;
  ScaleFmt sf = ScaleFmt::None;
  int block = 0;
  std::vector<Val> a, b, sa, sb;
  bool c_is_f16 = false;
  std::size_t K = 0;
};

Prepared prepare(const Operands& o) {
  Prepared p;
  p.la = layout_of(o.a_fmt);
  p.lb = layout_of(o.b_fmt);
  if (o.c_fmt == "f32") {
    p.lc = layout_of("f32");
  } else if (o.c_fmt == "f16") {
    p.lc = layout_of("f16");
    p.c_is_f16 = true;
  } else {
    bad("c_fmt must be \"f32\" or \"f16\", got '" + o.c_fmt + "'");
  }
  if (o.a.size() != o.b.size()) bad("a and b differ in length");
  p.K = o.a.size();
  p.sf = scale_fmt_of(o.scale_fmt);
  p.a.reserve(p.K);
  p.b.reserve(p.K);
  for (std::size_t k = 0; k < p.K; ++k) {
    p.a.push_back(decode(p.la, o.a[k], "a"));
    p.b.push_back(decode(p.lb, o.b[k], "b"));
  }
  if (p.sf == ScaleFmt::None) {
    if (!o.sa.empty() || !o.sb.empty()) bad("scales given without scale_fmt");
  } else {
    if (o.scale_block <= 0) bad("scale_block must be > 0 with scales");
    p.block = o.scale_block;
    const auto blk = static_cast<std::size_t>(o.scale_block);
    if (p.K % blk != 0) bad("K is not a multiple of scale_block");
    if (o.sa.size() != p.K / blk || o.sb.size() != p.K / blk)
      bad("sa/sb must hold K/scale_block scales each");
    for (std::size_t i = 0; i < o.sa.size(); ++i) {
      p.sa.push_back(decode_scale(p.sf, o.sa[i]));
      p.sb.push_back(decode_scale(p.sf, o.sb[i]));
    }
  }
  return p;
}

const Val kUnitScale = decode_scale(ScaleFmt::None, 0);

const Val& scale_a(const Prepared& p, std::size_t k) {
  return p.sf == ScaleFmt::None ? kUnitScale
                                : p.sa[k / static_cast<std::size_t>(p.block)];
}
const Val& scale_b(const Prepared& p, std::size_t k) {
  return p.sf == ScaleFmt::None ? kUnitScale
                                : p.sb[k / static_cast<std::size_t>(p.block)];
}

// ---------------------------------------------------------------------------
// Special values (step 1). Every product is a*b*SA*SB with its own scales.

struct SpecialScan {
  bool nan = false;
  bool pos_inf = false;
  bool neg_inf = false;

  void value(const Val& v) {
    if (v.kind == Kind::NaN) nan = true;
    if (v.kind == Kind::Inf) (v.neg ? neg_inf : pos_inf) = true;
  }
  void product(const Val& a, const Val& b, const Val& sa, const Val& sb) {
    const Val* f[4] = {&a, &b, &sa, &sb};
    bool inf = false, zero = false, neg = false;
    for (const Val* x : f) {
      if (x->kind == Kind::NaN) nan = true;
      if (x->kind == Kind::Inf) inf = true;
      if (x->is_zero()) zero = true;
      neg ^= x->neg;
    }
    if (inf && zero) nan = true;  // Inf x 0 (also Inf x zero scale)
    if (inf) (neg ? neg_inf : pos_inf) = true;
  }
  bool any() const { return nan || pos_inf || neg_inf; }
  bool is_nan() const { return nan || (pos_inf && neg_inf); }
};

uint64_t nan_bits(bool f16) { return f16 ? 0x7FFF : 0x7FFFFFFF; }
uint64_t inf_bits(bool f16, bool neg) {
  if (f16) return neg ? 0xFC00 : 0x7C00;
  return neg ? 0xFF800000u : 0x7F800000u;
}
uint64_t zero_bits(bool f16, bool neg) {
  if (!neg) return 0;
  return f16 ? 0x8000 : 0x80000000u;
}

// ---------------------------------------------------------------------------
// Step 5: round (-1)^neg * mag * 2^lsb (mag > 0) once with rho.

// mag / 2^sh rounded to nearest, ties to even (sh <= 0: exact left shift).
cpp_int shift_rne(const cpp_int& mag, int sh) {
  if (sh <= 0) return mag << -sh;
  cpp_int r = mag >> sh;
  const cpp_int rem = mag - (r << sh);
  const cpp_int half = cpp_int(1) << (sh - 1);
  if (rem > half || (rem == half && (r & 1) != 0)) ++r;
  return r;
}

uint64_t round_rne_f32(bool neg, const cpp_int& mag, int lsb);

uint64_t round_out(bool neg, const cpp_int& mag, int lsb, Rho rho) {
  if (rho == Rho::RneF32) return round_rne_f32(neg, mag, lsb);
  const int top = static_cast<int>(boost::multiprecision::msb(mag));
  const int E = lsb + top;  // exponent of the leading 1
  if (rho == Rho::RneF16) {
    const int Eeff = std::max(E, -14);
    const int sh = (Eeff - 10) - lsb;  // quantum 2^(Eeff-10)
    cpp_int r = shift_rne(mag, sh);
    auto ri = r.convert_to<uint64_t>();
    int e = Eeff;
    if (ri == 2048) {  // carry into the next binade
      ri = 1024;
      ++e;
    }
    uint64_t bits;
    if (ri < 1024) {
      bits = ri;  // subnormal (e == -14) or zero after underflow
    } else if (e + 15 >= 31) {
      bits = 0x7C00;  // rounded magnitude >= 2^16
    } else {
      bits = (static_cast<uint64_t>(e + 15) << 10) | (ri - 1024);
    }
    return bits | (neg ? 0x8000u : 0u);
  }
  const int mb = (rho == Rho::RzF32) ? 23 : 13;
  if (E >= 128) return inf_bits(false, neg);  // overflow -> Inf even under RZ
  const int Eeff = std::max(E, -126);
  const int sh = (Eeff - mb) - lsb;  // quantum 2^(Eeff-mb)
  const cpp_int r = (sh <= 0) ? cpp_int(mag << -sh) : cpp_int(mag >> sh);
  const auto ri = r.convert_to<uint64_t>();
  const uint64_t one = uint64_t{1} << mb;
  uint64_t bits;
  if (ri < one) {
    bits = ri << (23 - mb);  // subnormal (Eeff == -126) or zero
  } else {
    bits = (static_cast<uint64_t>(Eeff + 127) << 23) | ((ri - one) << (23 - mb));
  }
  return bits | (neg ? 0x80000000u : 0u);
}

// ---------------------------------------------------------------------------
// One FDPA.

struct Term {
  bool neg = false;
  cpp_int mag;  // >= 0
  int frac = 0;
  int exp = 0;
  bool zero = false;  // "zero term": aligns at e_zero
};

// One FDPA over the L products ks[0..L-1] (in this order) and addend c.
uint64_t one_fdpa(const Params& prm, const Prepared& p,
                  const std::vector<std::size_t>& ks, uint64_t c_bits) {
  const auto L = static_cast<std::size_t>(prm.L);
  const Val c = decode(p.lc, c_bits, "c");
  const bool gst = prm.G > 0;
  const auto G = static_cast<std::size_t>(gst ? prm.G : 1);
  const bool fixed = prm.zero_exp == Params::ZeroExp::Fixed;
  // Exponent of a value in the step-2 sums: a zero is -126 under OperandMin.
  auto ex = [&](const Val& v) {
    return (!fixed && v.is_zero()) ? -126 : v.exp;
  };

  // The scales used by product i: its own (T/ST) or its group's first (GST).
  auto scale_index = [&](std::size_t i) {
    return gst ? ks[(i / G) * G] : ks[i];
  };

  // Step 1: specials.
  SpecialScan sp;
  for (std::size_t i = 0; i < L; ++i) {
    const std::size_t k = ks[i], kS = scale_index(i);
    sp.product(p.a[k], p.b[k], scale_a(p, kS), scale_b(p, kS));
  }
  sp.value(c);
  if (sp.any()) {
    if (sp.is_nan()) return nan_bits(p.c_is_f16);
    return inf_bits(p.c_is_f16, sp.neg_inf);
  }

  // Step 2: terms.
  std::vector<Term> terms;
  terms.reserve(L / G + 1);
  if (!gst) {
    for (std::size_t i = 0; i < L; ++i) {
      const std::size_t k = ks[i];
      const Val &a = p.a[k], &b = p.b[k];
      const Val &sa = scale_a(p, k), &sb = scale_b(p, k);
      Term t;
      t.neg = a.neg != b.neg;
      t.mag = cpp_int(a.sig) * b.sig * sa.sig * sb.sig;
      t.frac = a.mbits + b.mbits + sa.mbits + sb.mbits;
      t.exp = ex(a) + ex(b) + ex(sa) + ex(sb);
      t.zero = fixed && (t.mag == 0);
      terms.push_back(std::move(t));
    }
  } else {
    // P in units of 2^(emin_a + emin_b - mbits_a - mbits_b).
    const int ebase = p.la.emin() + p.lb.emin();
    const int unit_frac = p.la.mbits + p.lb.mbits - ebase;
    for (std::size_t g0 = 0; g0 < L; g0 += G) {
      cpp_int P = 0;
      bool all_zero = true, all_zero_neg = true;
      for (std::size_t i = g0; i < g0 + G; ++i) {
        const Val &a = p.a[ks[i]], &b = p.b[ks[i]];
        const bool neg = a.neg != b.neg;
        if (a.sig == 0 || b.sig == 0) {
          all_zero_neg = all_zero_neg && neg;
          continue;
        }
        all_zero = false;
        const cpp_int m = cpp_int(cpp_int(a.sig) * b.sig)
                          << (a.exp + b.exp - ebase);
        if (neg)
          P -= m;
        else
          P += m;
      }
      const Val &sa = scale_a(p, ks[g0]), &sb = scale_b(p, ks[g0]);
      const uint64_t ssig = sa.sig * sb.sig;
      Term t;
      t.mag = abs(P) * ssig;
      t.frac = unit_frac + sa.mbits + sb.mbits;
      t.exp = ex(sa) + ex(sb);
      t.zero = fixed && (all_zero || ssig == 0);
      // Sign: that of P; an all-zero group follows the IEEE sum of zeros.
      t.neg = P < 0 || (P == 0 && all_zero && all_zero_neg);
      terms.push_back(std::move(t));
    }
  }
  {
    Term t;
    t.neg = c.neg;
    t.mag = c.sig;
    t.frac = c.mbits;
    t.exp = ex(c);
    t.zero = fixed && (c.sig == 0);
    terms.push_back(std::move(t));
  }

  // Step 3: alignment exponent.
  int e_max = 0;
  bool first = true;
  for (Term& t : terms) {
    if (t.zero) t.exp = prm.e_zero;
    if (first || t.exp > e_max) e_max = t.exp;
    first = false;
  }

  // Step 4: truncate each magnitude to a multiple of 2^(e_max - F), sum.
  cpp_int S = 0;
  for (const Term& t : terms) {
    if (t.mag == 0) continue;
    const int sh = (t.exp - e_max) + prm.F - t.frac;
    cpp_int a;
    if (sh >= 0) {
      a = t.mag << sh;
    } else {
      const auto width = static_cast<int>(boost::multiprecision::msb(t.mag)) + 1;
      if (-sh >= width) continue;  // truncated away entirely
      a = t.mag >> -sh;
    }
    if (t.neg)
      S -= a;
    else
      S += a;
  }

  // Step 6: exact zero.
  const bool positive = prm.zero_sign == Params::ZeroSign::Positive;
  if (S == 0) {
    bool all_neg_zero = true;
    for (const Term& t : terms)
      all_neg_zero = all_neg_zero && t.mag == 0 && t.neg;
    return zero_bits(p.c_is_f16, all_neg_zero && !positive);
  }
  // Step 5: one rounding; an underflow to zero is +0 under Positive.
  const uint64_t d = round_out(S < 0, abs(S), e_max - prm.F, prm.rho);
  const uint64_t sign = p.c_is_f16 ? 0x8000u : 0x80000000u;
  return (positive && (d & ~sign) == 0) ? 0 : d;
}

// Round (-1)^neg * mag * 2^lsb (mag > 0) to nearest even f32: subnormals,
// overflow to Inf.
uint64_t round_rne_f32(bool neg, const cpp_int& mag, int lsb) {
  const int E = lsb + static_cast<int>(boost::multiprecision::msb(mag));
  const int Eeff = std::max(E, -126);
  const int sh = (Eeff - 23) - lsb;
  cpp_int r = shift_rne(mag, sh);
  auto ri = r.convert_to<uint64_t>();
  int e = Eeff;
  if (ri == (uint64_t{1} << 24)) {
    ri >>= 1;
    ++e;
  }
  uint64_t bits;
  if (ri < (uint64_t{1} << 23)) {
    bits = ri;  // subnormal or zero
  } else if (e > 127) {
    bits = 0x7F800000u;
  } else {
    bits = (static_cast<uint64_t>(e + 127) << 23) | (ri - (uint64_t{1} << 23));
  }
  return bits | (neg ? 0x80000000u : 0u);
}

// c_outside: x + y in c_fmt (IEEE add, round to nearest even once).
uint64_t add_rne(const Params& prm, const Prepared& p, uint64_t xb,
                 uint64_t yb) {
  const Val x = decode(p.lc, xb, "sum"), y = decode(p.lc, yb, "c");
  if (x.kind == Kind::NaN || y.kind == Kind::NaN) return nan_bits(p.c_is_f16);
  if (x.kind == Kind::Inf || y.kind == Kind::Inf) {
    if (x.kind == Kind::Inf && y.kind == Kind::Inf && x.neg != y.neg)
      return nan_bits(p.c_is_f16);
    return inf_bits(p.c_is_f16, x.kind == Kind::Inf ? x.neg : y.neg);
  }
  const int lsb = std::min(x.exp - x.mbits, y.exp - y.mbits);
  cpp_int sx = cpp_int(x.sig) << (x.exp - x.mbits - lsb);
  cpp_int sy = cpp_int(y.sig) << (y.exp - y.mbits - lsb);
  if (x.neg) sx = -sx;
  if (y.neg) sy = -sy;
  const cpp_int sum = sx + sy;
  const bool positive = prm.zero_sign == Params::ZeroSign::Positive;
  if (sum == 0) {
    // IEEE: x + (-x) = +0 under RNE; -0 + -0 = -0.
    return zero_bits(p.c_is_f16, x.neg && y.neg && !positive);
  }
  if (p.c_is_f16) return round_out(sum < 0, abs(sum), lsb, Rho::RneF16);
  return round_rne_f32(sum < 0, abs(sum), lsb);
}

// ---------------------------------------------------------------------------
// The AMD MFMA datapaths (Params::Datapath; see fdpa_oracle.h).

// floor(v * 2^sh) for an integer v (sh < 0 divides, rounding toward -Inf).
cpp_int floor_shift(const cpp_int& v, int sh) {
  if (sh >= 0) return v << sh;
  const cpp_int m = abs(v);
  cpp_int q = m >> -sh;
  if (v >= 0) return q;
  if ((q << -sh) != m) q += 1;  // a remainder: one further from zero
  return -q;
}

// trunc(v * 2^sh) toward zero.
cpp_int trunc_shift(const cpp_int& v, int sh) {
  if (sh >= 0) return v << sh;
  const cpp_int q = abs(v) >> -sh;
  return v < 0 ? cpp_int(-q) : q;
}

uint64_t two_stage_fdpa(const Params& prm, const Prepared& p,
                        const std::vector<std::size_t>& ks, uint64_t c_bits) {
  const Val c = decode(p.lc, c_bits, "c");
  const bool fixed = prm.zero_exp == Params::ZeroExp::Fixed;
  SpecialScan sp;
  for (std::size_t k : ks) sp.product(p.a[k], p.b[k], kUnitScale, kUnitScale);
  sp.value(c);
  if (sp.any()) {
    if (sp.is_nan()) return nan_bits(false);
    return inf_bits(false, sp.neg_inf);
  }
  // Products as signed integers v * 2^(lsb) with their alignment exponent.
  struct Prod {
    cpp_int v;
    int lsb;
    int exp;
  };
  std::vector<Prod> prods;
  bool big_pos = false, big_neg = false, all_neg_zero = c.is_zero() && c.neg;
  for (std::size_t k : ks) {
    const Val &a = p.a[k], &b = p.b[k];
    const bool neg = a.neg != b.neg;
    Prod q;
    q.v = cpp_int(a.sig) * b.sig;
    q.lsb = a.exp + b.exp - a.mbits - b.mbits;
    if (q.v == 0) {
      all_neg_zero = all_neg_zero && neg;
      q.exp = fixed ? prm.e_zero
                    : (a.sig == 0 ? -126 : a.exp) + (b.sig == 0 ? -126 : b.exp);
    } else {
      all_neg_zero = false;
      q.exp = a.exp + b.exp;
      if (static_cast<int>(boost::multiprecision::msb(q.v)) + q.lsb >= 128)
        (neg ? big_neg : big_pos) = true;
      if (neg) q.v = -q.v;
    }
    prods.push_back(std::move(q));
  }
  if (big_pos || big_neg) {
    if (big_pos && big_neg) return nan_bits(false);
    return inf_bits(false, big_neg);
  }
  // Stage 1: per set, truncated toward zero to 2^(e_j - F).
  const auto n = static_cast<std::size_t>(prm.split);
  std::vector<int> e_set(n);
  std::vector<cpp_int> s_set(n);
  int e = 0;
  for (std::size_t j = 0; j < n; ++j) {
    bool first = true;
    for (std::size_t i = j; i < prods.size(); i += n)
      if (first || prods[i].exp > e_set[j]) {
        e_set[j] = prods[i].exp;
        first = false;
      }
    for (std::size_t i = j; i < prods.size(); i += n)
      s_set[j] += trunc_shift(prods[i].v, prods[i].lsb - (e_set[j] - prm.F));
    if (j == 0 || e_set[j] > e) e = e_set[j];
  }
  cpp_int S = 0;  // units of 2^(e - F)
  for (std::size_t j = 0; j < n; ++j)
    S += n == 1 ? s_set[j] : floor_shift(s_set[j], e_set[j] - e);
  // Stage 2: on M = max(e, e_C), rounded down.
  const int ec = c.is_zero() && !fixed ? -126
                 : c.is_zero()          ? prm.e_zero
                                        : c.exp;
  const int M = std::max(e, ec);
  const int kSum = 31;  // MMA-Sim: 2.0 ** (31 + e - max_e)
  const cpp_int Ps = floor_shift(S, (e - prm.F) - (M - kSum));
  cpp_int Cs = 0;
  if (!c.is_zero() && !(n > 1 && ec < M - prm.F - 1)) {
    const cpp_int cv = c.neg ? -cpp_int(c.sig) : cpp_int(c.sig);
    Cs = floor_shift(cv, (c.exp - c.mbits) - (M - prm.F));
  }
  const cpp_int V = Ps + (Cs << (kSum - prm.F));  // units of 2^(M - 31)
  const bool positive = prm.zero_sign == Params::ZeroSign::Positive;
  if (V == 0) return zero_bits(false, all_neg_zero && !positive);
  const uint64_t d = round_out(V < 0, abs(V), M - kSum, prm.rho);
  return (positive && (d & 0x7FFFFFFFu) == 0) ? 0 : d;
}

// IEEE binary32 operations for F32Pairwise (RNE, canonical NaN).
const Layout& f32_layout() {
  static const Layout l = layout_of("f32");
  return l;
}

uint64_t ftz_keep_sign(const Params& prm, uint64_t x) {
  if (prm.ftz && (x & 0x7F800000u) == 0) return x & 0x80000000u;
  return x;
}

// fmaf(a, b, +0) on decoded elements.
uint64_t mul_f32(const Val& a, const Val& b) {
  if (a.kind == Kind::NaN || b.kind == Kind::NaN) return nan_bits(false);
  const bool neg = a.neg != b.neg;
  if (a.kind == Kind::Inf || b.kind == Kind::Inf) {
    if (a.is_zero() || b.is_zero()) return nan_bits(false);
    return inf_bits(false, neg);
  }
  if (a.sig == 0 || b.sig == 0) return 0;  // exact zero + (+0) = +0
  return round_rne_f32(neg, cpp_int(a.sig) * b.sig,
                       a.exp - a.mbits + b.exp - b.mbits);
}

uint64_t add_f32(uint64_t xb, uint64_t yb) {
  const Val x = decode(f32_layout(), xb, "sum"),
            y = decode(f32_layout(), yb, "sum");
  if (x.kind == Kind::NaN || y.kind == Kind::NaN) return nan_bits(false);
  if (x.kind == Kind::Inf || y.kind == Kind::Inf) {
    if (x.kind == Kind::Inf && y.kind == Kind::Inf && x.neg != y.neg)
      return nan_bits(false);
    return inf_bits(false, x.kind == Kind::Inf ? x.neg : y.neg);
  }
  const int lsb = -149;  // every f32 is a multiple of 2^-149
  cpp_int sx = cpp_int(x.sig) << (x.exp - x.mbits - lsb);
  cpp_int sy = cpp_int(y.sig) << (y.exp - y.mbits - lsb);
  const cpp_int sum = (x.neg ? -sx : sx) + (y.neg ? -sy : sy);
  if (sum == 0) return zero_bits(false, x.neg && y.neg);
  return round_rne_f32(sum < 0, abs(sum), lsb);
}

Val element_ftz(const Params& prm, const Val& v) {
  if (!prm.ftz || v.kind != Kind::Num || v.sig == 0 ||
      v.sig >= (uint64_t{1} << v.mbits))
    return v;
  Val z = v;  // a subnormal: +0
  z.sig = 0;
  z.neg = false;
  return z;
}

uint64_t pairwise_tree(const Params& prm, const Prepared& p,
                       const std::size_t* ks, std::size_t n) {
  if (n == 1) {
    return ftz_keep_sign(prm, mul_f32(element_ftz(prm, p.a[ks[0]]),
                                      element_ftz(prm, p.b[ks[0]])));
  }
  const std::size_t h = n / 2;
  return ftz_keep_sign(prm, add_f32(pairwise_tree(prm, p, ks, h),
                                    pairwise_tree(prm, p, ks + h, n - h)));
}

uint64_t pairwise_fdpa(const Params& prm, const Prepared& p,
                       const std::vector<std::size_t>& ks, uint64_t c_bits) {
  if (prm.ftz && (c_bits & 0x7F800000u) == 0) c_bits = 0;
  const uint64_t t = pairwise_tree(prm, p, ks.data(), ks.size());
  return ftz_keep_sign(prm, add_f32(c_bits, t));
}

// "num/den" of m * 2^e, reduced.
std::string dyadic_string(cpp_int m, int e) {
  if (m == 0) return "0/1";
  if (e >= 0) return cpp_int(m << e).str() + "/1";
  const auto tz = static_cast<int>(boost::multiprecision::lsb(abs(m)));
  const int s = std::min(tz, -e);
  m >>= s;  // exact: the low s bits are zero (arithmetic shift of a multiple)
  e += s;
  if (e == 0) return m.str() + "/1";
  return m.str() + "/" + (cpp_int(1) << -e).str();
}

}  // namespace

uint64_t fdpa_chain(const Params& prm, const Operands& o) {
  const Prepared p = prepare(o);
  if (prm.L <= 0) bad("L must be > 0");
  if (prm.G < 0) bad("G must be >= 0");
  if (prm.G > 0 && prm.L % prm.G != 0) bad("L is not a multiple of G");
  if (prm.F < 0) bad("F must be >= 0");
  const auto L = static_cast<std::size_t>(prm.L);
  if (p.K == 0 || p.K % L != 0) bad("K must be a positive multiple of L");
  if (prm.datapath != Params::Datapath::Fdpa &&
      (p.c_is_f16 || prm.G != 0 || p.sf != ScaleFmt::None || prm.k_block != 0))
    bad("the AMD datapaths take f32 C, no scales, G == 0, k_block == 0");
  if (prm.split < 1 || prm.L % prm.split != 0 ||
      (prm.split > 1 && prm.datapath != Params::Datapath::TwoStageRd))
    bad("split must divide L, and be 1 outside TwoStageRd");
  if (prm.datapath == Params::Datapath::TwoStageRd && prm.F > 31)
    bad("TwoStageRd needs F <= 31");
  if ((prm.rho == Rho::RneF16) != p.c_is_f16)
    bad("rho does not match c_fmt (RneF16 <-> f16, RzF32/RzE8M13 <-> f32)");

  // Step 7 and its variants: the k of each chunk, in order.
  if (prm.k_block < 0) bad("k_block must be >= 0");
  const auto kb =
      static_cast<std::size_t>(prm.k_block == 0 ? p.K : prm.k_block);
  if (prm.k_block == 0 && (prm.k_period != 0 || prm.c_outside))
    bad("k_period / c_outside need k_block > 0");
  if (p.K % kb != 0 || kb % L != 0)
    bad("K must be a multiple of k_block, itself of L");
  if (prm.k_period != 0 &&
      (prm.k_period < 0 || prm.k_run <= 0 || kb % prm.k_period != 0 ||
       prm.k_period % prm.k_run != 0 ||
       static_cast<std::size_t>(prm.k_period / prm.k_run) * L != kb))
    bad("k_period / k_run do not split an instruction into chunks of L");
  uint64_t d = o.c;
  for (std::size_t i0 = 0; i0 < p.K; i0 += kb) {
    std::vector<std::size_t> order;
    if (prm.k_period == 0) {
      for (std::size_t k = i0; k < i0 + kb; ++k) order.push_back(k);
    } else {
      const auto P = static_cast<std::size_t>(prm.k_period);
      const auto R = static_cast<std::size_t>(prm.k_run);
      for (std::size_t r0 = 0; r0 < P; r0 += R)
        for (std::size_t k = i0; k < i0 + kb; ++k)
          if ((k - i0) % P >= r0 && (k - i0) % P < r0 + R) order.push_back(k);
    }
    uint64_t acc = prm.c_outside ? 0 : d;
    for (std::size_t j = 0; j < kb; j += L) {
      const std::vector<std::size_t> ks(
          order.begin() + static_cast<std::ptrdiff_t>(j),
          order.begin() + static_cast<std::ptrdiff_t>(j + L));
      switch (prm.datapath) {
        case Params::Datapath::Fdpa: acc = one_fdpa(prm, p, ks, acc); break;
        case Params::Datapath::TwoStageRd:
          acc = two_stage_fdpa(prm, p, ks, acc);
          break;
        case Params::Datapath::F32Pairwise:
          acc = pairwise_fdpa(prm, p, ks, acc);
          break;
      }
    }
    d = prm.c_outside ? add_rne(prm, p, acc, d) : acc;
  }
  return d;
}

std::string exact_dot(const Operands& o) {
  const Prepared p = prepare(o);
  const Val c = decode(p.lc, o.c, "c");

  SpecialScan sp;
  for (std::size_t k = 0; k < p.K; ++k)
    sp.product(p.a[k], p.b[k], scale_a(p, k), scale_b(p, k));
  sp.value(c);
  if (sp.any()) {
    if (sp.is_nan()) return "nan";
    return sp.neg_inf ? "-inf" : "+inf";
  }

  // Every term as (signed integer) * 2^e2; sum at the smallest e2.
  struct Q {
    cpp_int m;
    int e2;
  };
  std::vector<Q> qs;
  qs.reserve(p.K + 1);
  for (std::size_t k = 0; k < p.K; ++k) {
    const Val &a = p.a[k], &b = p.b[k];
    const Val &sa = scale_a(p, k), &sb = scale_b(p, k);
    cpp_int m = cpp_int(a.sig) * b.sig * sa.sig * sb.sig;
    if (m == 0) continue;
    if (a.neg != b.neg) m = -m;
    qs.push_back({std::move(m), a.exp + b.exp + sa.exp + sb.exp -
                                    (a.mbits + b.mbits + sa.mbits + sb.mbits)});
  }
  if (c.sig != 0)
    qs.push_back({c.neg ? -cpp_int(c.sig) : cpp_int(c.sig), c.exp - c.mbits});
  if (qs.empty()) return "0/1";
  int emin = qs.front().e2;
  for (const Q& q : qs) emin = std::min(emin, q.e2);
  cpp_int N = 0;
  for (const Q& q : qs) N += q.m << (q.e2 - emin);
  return dyadic_string(std::move(N), emin);
}

}  // namespace mxc::fdpa_oracle
