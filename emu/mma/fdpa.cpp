#include "emu/mma/fdpa.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <stdexcept>
#include <string>
#include <vector>

#include "emu/arith.h"
#include "emu/codes.h"
#include "emu/convert.h"
#include "emu/fast/fdpa_fast.h"
#include "emu/round_pack.h"
#include "emu/unpack.h"

namespace mxc {
namespace {

__extension__ typedef __int128 i128;

// An operand as the datapath sees it: subnormals are not renormalised, their
// exponent is the format's emin (MMA-Sim frexp_and_normalize).
struct Operand {
  Class cls;
  bool neg;
  uint64_t sig;  // integer significand, `frac` fraction bits
  int frac;
  int exp;
};

Operand read(Fmt f, uint64_t bits) {
  // A TF32 operand is its user code (emu/codes.h), truncated to TF32.
  if (f == Fmt::kTF32) bits >>= kTf32LowBits;
  if (f == Fmt::kUE4M3) bits &= 0x7F;  // the scale's sign bit is ignored
  const FormatDesc& d = desc(f);
  const Unpacked u = unpack(f, bits);
  Operand o{u.cls, u.sign, 0, d.man_bits, d.emin()};
  if (u.cls == Class::kNormal || u.cls == Class::kSubnormal) {
    // unpack gives |v| = sig * 2^exp; restate with `frac` fraction bits.
    o.sig = u.sig;
    o.exp = u.exp + d.man_bits;
  }
  return o;
}

struct Term {
  bool neg;
  bool zero;  // aligned at e_zero (ZeroExp::kFixed)
  uint64_t mag;
  int frac;
  int exp;
};

// MMA-Sim HEAD extract_significand_exponent: a zero has exponent -126.
constexpr int kOperandMinZeroExp = -126;

enum class Special { kNone, kNaN, kPosInf, kNegInf };

// Special values first (MMA-Sim dpa_special_values, paper 4.2): NaN
// anywhere -> NaN; Inf * 0 -> NaN; Infs of both signs -> NaN; else the Inf.
struct SpecialScan {
  bool nan = false, pos = false, neg = false;
  void product(const Operand& x, const Operand& y, const Operand* sx,
               const Operand* sy) {
    const Operand* ops[4] = {&x, &y, sx, sy};
    bool inf = false, zero = false;
    for (const Operand* o : ops) {
      if (o == nullptr) continue;
      if (o->cls == Class::kNaN) nan = true;
      if (o->cls == Class::kInf) inf = true;
      if (o->cls == Class::kZero || (o->cls != Class::kInf && o->sig == 0))
        zero = true;
    }
    if (inf && zero) nan = true;
    if (inf && !zero) (x.neg != y.neg ? neg : pos) = true;
  }
  void addend(const Operand& c) {
    if (c.cls == Class::kNaN) nan = true;
    if (c.cls == Class::kInf) (c.neg ? neg : pos) = true;
  }
  Special result() const {
    if (nan || (pos && neg)) return Special::kNaN;
    if (pos) return Special::kPosInf;
    if (neg) return Special::kNegInf;
    return Special::kNone;
  }
};

// The format a chunk's sum is rounded into (and the C/D format it implies).
Fmt acc_format(AccRound rho) {
  return rho == AccRound::kRneF16 ? Fmt::kF16 : Fmt::kF32;
}

// ZeroSign::kPositive: a zero result (exact or underflowed) is +0.
uint64_t apply_zero_sign(const FdpaParams& p, Fmt out, uint64_t bits) {
  if (p.zero_sign != ZeroSign::kPositive) return bits;
  return (bits & ~desc(out).sign_mask()) == 0 ? 0 : bits;
}

// A nonzero exact sum S * 2^exp rounded per rho: |S| beyond 64 bits is
// folded into a sticky bit first (every listed model's window fits 64 bits;
// a larger F, or the two-stage sum, may not), then the zero-sign rule.
uint64_t round_exact_sum(const FdpaParams& p, Fmt out, i128 S, int exp) {
  const bool neg = S < 0;
  i128 mag = neg ? -S : S;
  bool sticky = false;
  while ((mag >> 63) != 0) {
    sticky |= (mag & 1) != 0;
    mag >>= 1;
    ++exp;
  }
  return apply_zero_sign(p, out,
                         fdpa_round_sum(p.rho, neg, exp,
                                        static_cast<uint64_t>(mag), sticky));
}

uint64_t special_bits(Fmt out, Special s) {
  if (s == Special::kNaN) return canonical_nan(out);
  return inf_bits(out, s == Special::kNegInf);
}

// One FDPA over k in [k0, k0 + L) with addend c (encoded in o.c_fmt).
uint64_t two_stage_one(const FdpaParams& p, const FdpaOperands& o, size_t k0,
                       uint64_t c_bits);
uint64_t pairwise_one(const FdpaParams& p, const FdpaOperands& o, size_t k0,
                      uint64_t c_bits);

uint64_t fdpa_one(const FdpaParams& p, const FdpaOperands& o, size_t k0,
                  uint64_t c_bits) {
  if (p.datapath == Datapath::kTwoStageRd)
    return two_stage_one(p, o, k0, c_bits);
  if (p.datapath == Datapath::kF32Pairwise)
    return pairwise_one(p, o, k0, c_bits);
  const Operand c = read(o.c_fmt, c_bits);
  SpecialScan sp;
  sp.addend(c);
  // The alignment exponent an operand contributes (zero: per p.zero_exp).
  auto zexp = [&](const Operand& x) {
    return x.sig == 0 && p.zero_exp == ZeroExp::kOperandMin ? kOperandMinZeroExp
                                                            : x.exp;
  };

  Term terms[129];
  int nt = 0;
  auto scale_of = [&](std::span<const uint64_t> s, size_t k) {
    return read(o.scale_fmt, s[k / static_cast<size_t>(o.scale_block)]);
  };

  if (p.G == 0) {
    for (size_t k = k0; k < k0 + static_cast<size_t>(p.L); ++k) {
      const Operand x = read(o.a_fmt, o.a[k]);
      const Operand y = read(o.b_fmt, o.b[k]);
      Term t{x.neg != y.neg, false, x.sig * y.sig, x.frac + y.frac,
             zexp(x) + zexp(y)};
      if (o.has_scales) {
        const Operand sx = scale_of(o.sa, k), sy = scale_of(o.sb, k);
        sp.product(x, y, &sx, &sy);
        t.mag *= sx.sig * sy.sig;
        t.frac += sx.frac + sy.frac;
        t.exp += zexp(sx) + zexp(sy);
      } else {
        sp.product(x, y, nullptr, nullptr);
      }
      // Under kOperandMin a zero product keeps the exponent sum above.
      t.zero = t.mag == 0 && p.zero_exp == ZeroExp::kFixed;
      terms[nt++] = t;
    }
  } else {
    // GST-FDPA: groups of G products summed exactly, then scaled; the group
    // aligns on its scale exponents only (MMA-Sim gst_fdpa, FPy Alg. 9).
    const int fa = desc(o.a_fmt).man_bits, fb = desc(o.b_fmt).man_bits;
    const int base = desc(o.a_fmt).emin() + desc(o.b_fmt).emin() - fa - fb;
    for (size_t g0 = k0; g0 < k0 + static_cast<size_t>(p.L); g0 += p.G) {
      i128 sum = 0;
      bool all_zero = true;
      const Operand sx = scale_of(o.sa, g0), sy = scale_of(o.sb, g0);
      for (size_t k = g0; k < g0 + static_cast<size_t>(p.G); ++k) {
        const Operand x = read(o.a_fmt, o.a[k]);
        const Operand y = read(o.b_fmt, o.b[k]);
        sp.product(x, y, &sx, &sy);
        const uint64_t m = x.sig * y.sig;
        if (m == 0) continue;
        all_zero = false;
        // In units of 2^base: shift by the product's exponent above base.
        const i128 v = static_cast<i128>(m)
                       << (x.exp + y.exp - x.frac - y.frac - base);
        sum += (x.neg != y.neg) ? -v : v;
      }
      const uint64_t scale_sig = sx.sig * sy.sig;
      const bool neg = sum < 0;
      const auto mag = static_cast<uint64_t>(neg ? -sum : sum);
      // kOperandMin: the group keeps e_SA + e_SB (a zero scale at -126).
      Term t{neg, (all_zero || scale_sig == 0) && p.zero_exp == ZeroExp::kFixed,
             mag * scale_sig, -base + sx.frac + sy.frac, zexp(sx) + zexp(sy)};
      terms[nt++] = t;
    }
  }
  const Special s = sp.result();
  if (s != Special::kNone) return special_bits(o.c_fmt, s);

  terms[nt++] = Term{c.neg, c.sig == 0 && p.zero_exp == ZeroExp::kFixed, c.sig,
                     c.frac, zexp(c)};

  int e_max = INT32_MIN;
  bool all_neg_zero = true;
  for (int i = 0; i < nt; ++i) {
    if (terms[i].mag == 0) {
      all_neg_zero = all_neg_zero && terms[i].neg;
    } else {
      all_neg_zero = false;
    }
    if (terms[i].zero) terms[i].exp = p.e_zero;
    e_max = std::max(e_max, terms[i].exp);
  }
  // Truncate each term (magnitude) to units of 2^(e_max - F); sum exactly.
  i128 S = 0;
  for (int i = 0; i < nt; ++i) {
    const Term& t = terms[i];
    if (t.mag == 0) continue;
    const int sh = (t.exp - e_max) + p.F - t.frac;
    i128 a;
    if (sh >= 0) {
      if (sh > 126 - 64) throw std::invalid_argument("fdpa: F too large");
      a = static_cast<i128>(t.mag) << sh;
    } else {
      a = -sh >= 64 ? 0 : static_cast<i128>(t.mag >> -sh);
    }
    S += t.neg ? -a : a;
  }
  if (S == 0) {
    // IEEE sum of zeros: -0 only if every term is a negative zero
    // (unverified on hardware: research note U7); kPositive: +0.
    return zero_bits(o.c_fmt, all_neg_zero && p.zero_sign == ZeroSign::kIeee);
  }
  // A larger F than any listed model's (the property "F large recovers
  // exact-then-round") may need the sticky fold.
  return round_exact_sum(p, o.c_fmt, S, e_max - p.F);
}

// A shift by sh bits (left when sh >= 0), rounding toward -Inf (floor).
i128 shift_floor(i128 v, int sh) {
  if (sh >= 0) {
    if (sh > 60) throw std::invalid_argument("fdpa: shift out of range");
    return v * (i128{1} << sh);
  }
  if (-sh >= 126) return v < 0 ? -1 : 0;
  return v >> -sh;  // arithmetic: floor
}

// CDNA3 MFMA (Datapath::kTwoStageRd), after MMA-Sim c785138
// arithmetic.py amd_fused_dot_rd_add and fused_sum.
uint64_t two_stage_one(const FdpaParams& p, const FdpaOperands& o, size_t k0,
                       uint64_t c_bits) {
  const Operand c = read(o.c_fmt, c_bits);
  SpecialScan sp;
  sp.addend(c);
  auto zexp = [&](const Operand& x) {
    if (x.sig != 0) return x.exp;
    return p.zero_exp == ZeroExp::kOperandMin ? kOperandMinZeroExp : x.exp;
  };
  Term terms[128];
  bool pos_inf = false, neg_inf = false;
  bool all_neg_zero = c.sig == 0 && c.neg;
  for (int i = 0; i < p.L; ++i) {
    const Operand x = read(o.a_fmt, o.a[k0 + i]);
    const Operand y = read(o.b_fmt, o.b[k0 + i]);
    sp.product(x, y, nullptr, nullptr);
    Term t{x.neg != y.neg, false, x.sig * y.sig, x.frac + y.frac,
           zexp(x) + zexp(y)};
    if (t.mag == 0) {
      all_neg_zero = all_neg_zero && t.neg;
      if (p.zero_exp == ZeroExp::kFixed) t.exp = p.e_zero;
    } else {
      all_neg_zero = false;
      // A finite product of magnitude >= 2^128 (bf16, tf32) is taken as
      // that Inf (MMA-Sim: products[i] >= 2.0**128).
      const int top = static_cast<int>(std::bit_width(t.mag)) - 1;
      if (top + t.exp - t.frac >= 128) (t.neg ? neg_inf : pos_inf) = true;
    }
    terms[i] = t;
  }
  const Special s = sp.result();
  if (s != Special::kNone) return special_bits(o.c_fmt, s);
  if (pos_inf || neg_inf) {
    return special_bits(o.c_fmt, pos_inf && neg_inf ? Special::kNaN
                                 : pos_inf          ? Special::kPosInf
                                                    : Special::kNegInf);
  }
  // Stage 1: per interleaved set, truncate to F bits below the set's e_max.
  const int split = p.split;
  int e_set[128];
  i128 s_set[128];
  int e = INT32_MIN;
  for (int j = 0; j < split; ++j) {
    e_set[j] = INT32_MIN;
    for (int i = j; i < p.L; i += split)
      e_set[j] = std::max(e_set[j], terms[i].exp);
    s_set[j] = 0;
    for (int i = j; i < p.L; i += split) {
      const Term& t = terms[i];
      if (t.mag == 0) continue;
      const int sh = (t.exp - e_set[j]) + p.F - t.frac;
      i128 a;
      if (sh >= 0) {
        if (sh > 126 - 64) throw std::invalid_argument("fdpa: F too large");
        a = static_cast<i128>(t.mag) << sh;
      } else {
        a = -sh >= 64 ? 0 : static_cast<i128>(t.mag >> -sh);
      }
      s_set[j] += t.neg ? -a : a;
    }
    e = std::max(e, e_set[j]);
  }
  // The sets' sums floored to F bits below their joint e_max (a single set
  // is already there).
  i128 S = 0;
  for (int j = 0; j < split; ++j) S += shift_floor(s_set[j], e_set[j] - e);
  // Stage 2: the products' sum and C aligned on M = max(e, e_C), floored.
  const int ec = c.sig != 0                           ? c.exp
                 : p.zero_exp == ZeroExp::kOperandMin ? kOperandMinZeroExp
                                                      : p.e_zero;
  const int M = std::max(e, ec);
  const i128 P = shift_floor(S, (e - p.F) - (M - kTwoStageSumBits));
  i128 C = 0;
  if (c.sig != 0 && !(split > 1 && ec < M - (p.F + 1))) {
    const i128 cv = c.neg ? -static_cast<i128>(c.sig) : c.sig;
    C = shift_floor(cv, (c.exp - c.frac) - (M - p.F));
  }
  const i128 V = P + C * (i128{1} << (kTwoStageSumBits - p.F));
  if (V == 0) {
    return zero_bits(o.c_fmt, all_neg_zero && p.zero_sign == ZeroSign::kIeee);
  }
  return round_exact_sum(p, o.c_fmt, V, M - kTwoStageSumBits);
}

// CDNA1/2 MFMA (Datapath::kF32Pairwise), after MMA-Sim c785138 amd.py
// (operation_type "pairwise") and arithmetic.py pairwise_dot.
constexpr uint32_t kF32Abs = 0x7FFFFFFF;

// ftz: a subnormal (or zero) f32 becomes a zero of its sign.
uint64_t flush_keep_sign(const FdpaParams& p, uint64_t x) {
  if (p.ftz && (x & 0x7F800000u) == 0) return x & 0x80000000u;
  return x;
}

// An A/B element as f32: exact; under ftz a subnormal of its own format
// becomes +0 (MMA-Sim flush_denormal on the A/B tensors).
uint64_t pairwise_operand(const FdpaParams& p, Fmt f, uint64_t bits) {
  if (p.ftz && unpack(f, bits).cls == Class::kSubnormal) return 0;
  return f == Fmt::kTF32 ? bits : convert(f, Fmt::kF32, bits);
}

uint64_t pairwise_tree(const FdpaParams& p, const FdpaOperands& o, size_t k,
                       size_t n) {
  uint64_t s;
  if (n == 1) {
    const uint64_t x = pairwise_operand(p, o.a_fmt, o.a[k]);
    const uint64_t y = pairwise_operand(p, o.b_fmt, o.b[k]);
    s = fp_mul(Fmt::kF32, x, y);
    // fmaf(a, b, +0): an exact zero product is +0 (an underflowed one
    // keeps its sign).
    if ((s & kF32Abs) == 0 && ((x & kF32Abs) == 0 || (y & kF32Abs) == 0)) s = 0;
  } else {
    const size_t m = n / 2;
    s = fp_add(Fmt::kF32, pairwise_tree(p, o, k, m),
               pairwise_tree(p, o, k + m, n - m));
  }
  return flush_keep_sign(p, s);
}

uint64_t pairwise_one(const FdpaParams& p, const FdpaOperands& o, size_t k0,
                      uint64_t c_bits) {
  // Under ftz the first C is flushed to +0; later ones (chained sums) are
  // never subnormal.
  if (p.ftz && (c_bits & 0x7F800000u) == 0) c_bits = 0;
  const uint64_t g = pairwise_tree(p, o, k0, static_cast<size_t>(p.L));
  return flush_keep_sign(p, fp_add(Fmt::kF32, c_bits, g));
}

}  // namespace

uint64_t fdpa_round_sum(AccRound rho, bool neg, int exp, uint64_t mag,
                        bool sticky) {
  RoundSpec r;
  r.overflow = Overflow::kInf;  // Inf even under RZ (MMA-Sim, KM GEMM.m)
  switch (rho) {
    case AccRound::kRzF32:
      r.mode = Round::kRZ;
      return round_pack(Fmt::kF32, neg, exp, mag, sticky, r);
    case AccRound::kRzE8M13:
      r.mode = Round::kRZ;
      // Stored as binary32 whose low 10 fraction bits are zero.
      return round_pack(Fmt::kE8M13, neg, exp, mag, sticky, r) << 10;
    case AccRound::kRneF16:
      r.mode = Round::kRNE;
      return round_pack(Fmt::kF16, neg, exp, mag, sticky, r);
    case AccRound::kRneF32:
      r.mode = Round::kRNE;
      return round_pack(Fmt::kF32, neg, exp, mag, sticky, r);
  }
  return 0;
}

namespace {

void check_chain(const FdpaParams& p, const FdpaOperands& o) {
  if (o.a.size() != o.b.size() || o.a.size() % p.L != 0 || p.L > 128 ||
      (p.G > 0 && p.L % p.G != 0)) {
    throw std::invalid_argument("fdpa: K must be a multiple of L (<= 128)");
  }
  if (o.c_fmt != acc_format(p.rho)) {
    throw std::invalid_argument("fdpa: C/D format does not match rounding");
  }
  if (o.has_scales &&
      (o.scale_block <= 0 || o.sa.size() * o.scale_block < o.a.size() ||
       o.sb.size() * o.scale_block < o.b.size())) {
    throw std::invalid_argument("fdpa: too few scales for K");
  }
  if (p.datapath != Datapath::kFdpa &&
      (p.G != 0 || o.has_scales || p.k_block != 0 || o.c_fmt != Fmt::kF32)) {
    throw std::invalid_argument(
        "fdpa: the AMD datapaths take unscaled products, f32 C/D and "
        "one chain");
  }
  if (p.split < 1 || p.L % p.split != 0 ||
      (p.split > 1 && p.datapath != Datapath::kTwoStageRd) ||
      (p.ftz && p.datapath != Datapath::kF32Pairwise) ||
      (p.datapath == Datapath::kTwoStageRd &&
       (p.F < 0 || p.F > kTwoStageSumBits))) {
    throw std::invalid_argument(
        "fdpa: split needs kTwoStageRd (dividing L), ftz needs kF32Pairwise, "
        "kTwoStageRd needs 0 <= F <= 31");
  }
  if (p.k_block < 0 || (p.k_block == 0 && (p.k_period != 0 || p.c_outside))) {
    throw std::invalid_argument("fdpa: k_period / c_outside need k_block");
  }
  if (p.k_block > 0) {
    if (p.k_block % p.L != 0 || o.a.size() % p.k_block != 0) {
      throw std::invalid_argument(
          "fdpa: K must be a multiple of the instruction's k (" +
          std::to_string(p.k_block) + "), itself a multiple of L");
    }
    if (p.k_period != 0 &&
        (p.k_period < 0 || p.k_run <= 0 || p.k_period % p.k_run != 0 ||
         p.k_block % p.k_period != 0 ||
         (p.k_period / p.k_run) * p.L != p.k_block)) {
      throw std::invalid_argument(
          "fdpa: k_period / k_run must split an instruction into chunks of L");
    }
  }
}

// One FDPA of the chain: chunk [k0, k0 + L) of `o` with addend c.
using ChunkFn = uint64_t (*)(const FdpaParams&, const FdpaOperands&, size_t,
                             uint64_t);

uint64_t reference_chunk(const FdpaParams& p, const FdpaOperands& o, size_t k0,
                         uint64_t c) {
  return fdpa_one(p, o, k0, c);
}

uint64_t fast_or_reference_chunk(const FdpaParams& p, const FdpaOperands& o,
                                 size_t k0, uint64_t c) {
  uint64_t out;
  if (fast::fdpa_chunk(p, o, k0, c, out)) return out;
  return fdpa_one(p, o, k0, c);
}

// Chunks of L in increasing k over [k0, k1) of o, starting from addend c.
uint64_t run_chunks(const FdpaParams& p, const FdpaOperands& o, size_t k0,
                    size_t k1, uint64_t c, ChunkFn chunk) {
  for (size_t k = k0; k < k1; k += static_cast<size_t>(p.L)) {
    c = chunk(p, o, k, c);
  }
  return c;
}

// The instruction structure of FdpaParams (k_block, k_period, c_outside).
uint64_t run_chain(const FdpaParams& p, const FdpaOperands& o, ChunkFn chunk) {
  if (p.k_block == 0) return run_chunks(p, o, 0, o.a.size(), o.c, chunk);
  const size_t K = o.a.size(), kb = static_cast<size_t>(p.k_block);
  // Visiting order of the k: within each instruction, by (k mod period) run.
  FdpaOperands v = o;
  std::vector<uint64_t> a, b, sa, sb;
  if (p.k_period > 0) {
    const size_t period = static_cast<size_t>(p.k_period);
    const size_t run = static_cast<size_t>(p.k_run);
    a.reserve(K);
    b.reserve(K);
    for (size_t i0 = 0; i0 < K; i0 += kb) {
      for (size_t r0 = 0; r0 < period; r0 += run) {
        for (size_t k = i0; k < i0 + kb; ++k) {
          const size_t r = (k - i0) % period;
          if (r < r0 || r >= r0 + run) continue;
          a.push_back(o.a[k]);
          b.push_back(o.b[k]);
          if (o.has_scales) {
            sa.push_back(o.sa[k / static_cast<size_t>(o.scale_block)]);
            sb.push_back(o.sb[k / static_cast<size_t>(o.scale_block)]);
          }
        }
      }
    }
    v.a = a;
    v.b = b;
    if (o.has_scales) {  // one scale per (permuted) element
      v.sa = sa;
      v.sb = sb;
      v.scale_block = 1;
    }
  }
  uint64_t c = o.c;
  for (size_t i0 = 0; i0 < K; i0 += kb) {
    if (!p.c_outside) {
      c = run_chunks(p, v, i0, i0 + kb, c, chunk);
      continue;
    }
    // The products' chain from +0, then one RNE add of C (an ordinary
    // FADD: IEEE specials, canonical NaN, overflow to Inf).
    const uint64_t s = run_chunks(p, v, i0, i0 + kb, 0, chunk);
    c = apply_zero_sign(p, o.c_fmt, fp_add(o.c_fmt, s, c));
  }
  return c;
}

}  // namespace

uint64_t fdpa_chain_reference(const FdpaParams& p, const FdpaOperands& o) {
  check_chain(p, o);
  return run_chain(p, o, reference_chunk);
}

uint64_t fdpa_chain(const FdpaParams& p, const FdpaOperands& o) {
  check_chain(p, o);
  // The 8-bit-operand kernel (emu/fast/fdpa_fast.h), chunk by chunk; a chunk
  // it leaves (specials) goes to the reference fdpa_one.
  return run_chain(
      p, o,
      fast::fdpa_covers(p, o) ? fast_or_reference_chunk : reference_chunk);
}

}  // namespace mxc
