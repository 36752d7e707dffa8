#include "emu/fast/fdpa_fast.h"

#include <algorithm>
#include <array>
#include <bit>

#include "emu/fast/fdpa_decode.h"
#include "emu/round_pack.h"
#include "emu/unpack.h"
#include "emu/fast/fp_env.h"

namespace mxc::fast {
namespace {

using detail::Dec;
using Table = detail::DecTable;

Table make_table(Fmt f) {
  Table t{};
  const FormatDesc& d = desc(f);
  for (uint32_t code = 0; code < 256; ++code) {
    uint64_t bits = code;
    if (f == Fmt::kUE4M3) bits &= 0x7F;  // the scale's sign bit is ignored
    Dec x{0, static_cast<int16_t>(d.emin()),
          static_cast<int16_t>(d.emin() - d.man_bits), 0, 0};
    if (bits > d.storage_mask()) {
      x.special = 1;  // never read: codes are range-checked first
      t[code] = x;
      continue;
    }
    const Unpacked u = unpack(f, bits);
    x.neg = u.sign ? 1 : 0;
    if (u.cls == Class::kNormal || u.cls == Class::kSubnormal) {
      x.sig = static_cast<uint16_t>(u.sig);
      x.exp = static_cast<int16_t>(u.exp + d.man_bits);
    }
    x.lsb = static_cast<int16_t>(x.exp - d.man_bits);
    x.special = (u.cls == Class::kNaN || u.cls == Class::kInf) ? 1 : 0;
    t[code] = x;
  }
  return t;
}

const Table& table(Fmt f) {
  static const std::array<Table, kNumFormats> all = [] {
    std::array<Table, kNumFormats> a{};
    for (Fmt g : {Fmt::kE4M3, Fmt::kE5M2, Fmt::kE3M2, Fmt::kE2M3, Fmt::kE2M1,
                  Fmt::kE8M0, Fmt::kUE4M3})
      a[static_cast<size_t>(g)] = make_table(g);
    return a;
  }();
  return all[static_cast<size_t>(f)];
}

// The addend (f32 or f16 bits), as read() decodes it.
struct Addend {
  bool ok;  // finite
  uint32_t neg;
  uint64_t sig;
  int32_t exp, frac;
};

Addend read_c(Fmt f, uint64_t c) {
  Addend a{};
  if (f == Fmt::kF32) {
    const uint32_t e = static_cast<uint32_t>(c >> 23) & 0xFF;
    a.ok = e != 255 && (c >> 32) == 0;
    a.neg = static_cast<uint32_t>(c >> 31) & 1;
    a.sig = e != 0 ? ((c & 0x7FFFFF) | 0x800000) : (c & 0x7FFFFF);
    a.exp = e != 0 ? static_cast<int32_t>(e) - 127 : -126;
    a.frac = 23;
  } else {
    const uint32_t e = static_cast<uint32_t>(c >> 10) & 0x1F;
    a.ok = e != 31 && (c >> 16) == 0;
    a.neg = static_cast<uint32_t>(c >> 15) & 1;
    a.sig = e != 0 ? ((c & 0x3FF) | 0x400) : (c & 0x3FF);
    a.exp = e != 0 ? static_cast<int32_t>(e) - 15 : -14;
    a.frac = 10;
  }
  return a;
}

// fdpa_round_sum (emu/mma/fdpa.h) for |sum| = mag * 2^q, 0 < mag < 2^63,
// in integers for every AccRound (no sticky bit is needed: mag is exact).
// The result's exponent E = max(top, emin) fixes the unit 2^(E - P) of the
// significand m (P fraction bits); then the code is ((E - emin) << P) + m,
// which is right for subnormals (E = emin, m < 2^P), for normals (m in
// [2^P, 2^(P+1)): the implicit bit adds one to the exponent field) and for
// a rounding carry into the next binade; a code at or above Inf's is Inf
// (overflow to Inf under RZ too, as fdpa_round_sum).
uint64_t finish(AccRound rho, bool neg, int32_t q, uint64_t mag) {
  const detail::AccFormat a = detail::acc_format_of(rho);
  const int32_t bw = static_cast<int32_t>(std::bit_width(mag));
  const int32_t e = std::max(q + bw - 1, a.emin);
  const int32_t sh = q - (e - a.P);
  uint64_t m = 0;
  if (sh >= 0) {
    m = mag << sh;
  } else if (sh > -64) {
    const int r = -sh;
    m = mag >> r;
    if (a.rne) {
      const uint64_t rem = mag & ((uint64_t{1} << r) - 1);
      const uint64_t half = uint64_t{1} << (r - 1);
      if (rem > half || (rem == half && (m & 1) != 0)) ++m;
    }
  }  // else: below half the smallest unit (mag < 2^63), 0 under RZ and RNE
  uint64_t bits = (static_cast<uint64_t>(e - a.emin) << a.P) + m;
  bits = std::min(bits, a.inf);
  return (bits << a.out_shift) | (uint64_t{neg} << a.sign_bit);
}

// Aligned, truncated term: floor(mag * 2^sh) (sh < 0: right shift).
// Branch-free: one of the two shifts is 0. The caller guarantees
// mag << sh < 2^63 for sh >= 0, so a shift above 63 only meets mag == 0
// (a zero term aligned far below e_max); clamping keeps the shift defined.
inline int64_t aligned(uint64_t mag, int32_t sh) {
  const int32_t l = std::min(std::max(sh, 0), 63);
  const int32_t r = std::min(std::max(-sh, 0), 63);
  return static_cast<int64_t>((mag << l) >> r);
}

}  // namespace

namespace detail {

bool elem_ok(Fmt f) {
  switch (f) {
    case Fmt::kE4M3:
    case Fmt::kE5M2:
    case Fmt::kE3M2:
    case Fmt::kE2M3:
    case Fmt::kE2M1:
      return true;
    default:
      return false;
  }
}

const DecTable& decode_table(Fmt f) { return table(f); }

uint64_t finish_sum(AccRound rho, bool neg, int32_t exp, uint64_t mag) {
  return finish(rho, neg, exp, mag);
}

}  // namespace detail

using detail::elem_ok;

bool fdpa_covers(const FdpaParams& p, const FdpaOperands& o) {
  // The AMD datapaths (two-stage, f32 pairwise) and their RNE-FP32 rounding:
  // the reference only.
  if (p.datapath != Datapath::kFdpa || p.rho == AccRound::kRneF32) return false;
  if (!elem_ok(o.a_fmt) || !elem_ok(o.b_fmt)) return false;
  if (o.c_fmt != Fmt::kF32 && o.c_fmt != Fmt::kF16) return false;
  if (p.L <= 0 || p.L > 128 || p.F < 0 || p.F > 40) return false;
  // Zero operands align at e_zero here (the reference takes kOperandMin).
  if (p.zero_exp != ZeroExp::kFixed) return false;
  if (o.has_scales) {
    if (o.scale_fmt != Fmt::kE8M0 && o.scale_fmt != Fmt::kUE4M3) return false;
    if (o.scale_block <= 0) return false;
    if (p.G > 0) {
      if (p.G > 32 || p.L % p.G != 0) return false;
      // The group sums and aligned group terms must fit int64: bits of the
      // largest group sum in units of 2^base, plus the scales' 8 bits, plus
      // the largest left shift F + base, plus the count of terms.
      const FormatDesc& da = desc(o.a_fmt);
      const FormatDesc& db = desc(o.b_fmt);
      const int base = da.emin() + db.emin() - da.man_bits - db.man_bits;
      const int top = (da.emax() - da.man_bits) + (db.emax() - db.man_bits) -
                      base + da.man_bits + db.man_bits + 2 + 5;
      if (top + 8 + std::max(p.F + base, 0) + 8 > 62) return false;
    }
  } else if (p.G != 0) {
    return false;
  }
  return true;
}

bool fdpa_chunk(const FdpaParams& p, const FdpaOperands& o, size_t k0,
                uint64_t c_bits, uint64_t& out) {
  const FpEnvDefault fp_env;  // fp_env.h
  const Addend c = read_c(o.c_fmt, c_bits);
  if (!c.ok) return false;
  const Table& ta = table(o.a_fmt);
  const Table& tb = table(o.b_fmt);
  const uint64_t* a = o.a.data() + k0;
  const uint64_t* b = o.b.data() + k0;
  const size_t L = static_cast<size_t>(p.L);
  const uint64_t mask_a = desc(o.a_fmt).storage_mask(),
                 mask_b = desc(o.b_fmt).storage_mask();
  uint64_t bad = 0;
  uint32_t special = 0;

  // Terms: magnitude, lsb exponent, alignment exponent, sign.
  uint64_t mag[129];
  int32_t lsb[129];
  uint32_t neg[129];
  int nt = 0;
  int32_t e_max = INT32_MIN;
  bool any_nonzero = false, all_neg_zero = true;

  if (!o.has_scales) {
    for (size_t k = 0; k < L; ++k) {
      bad |= (a[k] & ~mask_a) | (b[k] & ~mask_b);
      const Dec& x = ta[a[k] & 0xFF];
      const Dec& y = tb[b[k] & 0xFF];
      special |= x.special | y.special;
      const uint32_t m = uint32_t{x.sig} * y.sig;
      const int32_t e = m != 0 ? x.exp + y.exp : p.e_zero;
      e_max = std::max(e_max, e);
      mag[k] = m;
      lsb[k] = x.lsb + y.lsb;
      neg[k] = x.neg ^ y.neg;
    }
    nt = p.L;
  } else {
    const Table& ts = table(o.scale_fmt);
    const size_t blk = static_cast<size_t>(o.scale_block);
    const uint64_t* sa = o.sa.data();
    const uint64_t* sb = o.sb.data();
    const uint64_t smask = ~uint64_t{0xFF};  // wider codes: the reference
    if (p.G == 0) {
      for (size_t k = 0; k < L; ++k) {
        const size_t kk = k0 + k;
        const uint64_t sca = sa[kk / blk], scb = sb[kk / blk];
        bad |= (a[k] & ~mask_a) | (b[k] & ~mask_b) | ((sca | scb) & smask);
        const Dec& x = ta[a[k] & 0xFF];
        const Dec& y = tb[b[k] & 0xFF];
        const Dec& sx = ts[sca & 0xFF];
        const Dec& sy = ts[scb & 0xFF];
        special |= x.special | y.special | sx.special | sy.special;
        const uint64_t m = uint64_t{uint32_t{x.sig} * y.sig} *
                           uint64_t{uint32_t{sx.sig} * sy.sig};
        const int32_t e = m != 0 ? x.exp + y.exp + sx.exp + sy.exp : p.e_zero;
        e_max = std::max(e_max, e);
        mag[k] = m;
        lsb[k] = x.lsb + y.lsb + sx.lsb + sy.lsb;
        neg[k] = x.neg ^ y.neg;
      }
      nt = p.L;
    } else {
      // GST-FDPA: each group of G products summed exactly in units of
      // 2^base, then scaled; the group aligns on its scale exponents only.
      const FormatDesc& da = desc(o.a_fmt);
      const FormatDesc& db = desc(o.b_fmt);
      const int32_t base = da.emin() + db.emin() - da.man_bits - db.man_bits;
      const size_t G = static_cast<size_t>(p.G);
      for (size_t g0 = 0; g0 < L; g0 += G) {
        const size_t kk = k0 + g0;
        const uint64_t sca = sa[kk / blk], scb = sb[kk / blk];
        bad |= (sca | scb) & smask;
        const Dec& sx = ts[sca & 0xFF];
        const Dec& sy = ts[scb & 0xFF];
        special |= sx.special | sy.special;
        int64_t sum = 0;
        uint32_t nonzero = 0;
        for (size_t k = g0; k < g0 + G; ++k) {
          bad |= (a[k] & ~mask_a) | (b[k] & ~mask_b);
          const Dec& x = ta[a[k] & 0xFF];
          const Dec& y = tb[b[k] & 0xFF];
          special |= x.special | y.special;
          const uint32_t m = uint32_t{x.sig} * y.sig;
          nonzero |= m;
          const int64_t v = static_cast<int64_t>(m) << (x.lsb + y.lsb - base);
          const int64_t sm = -static_cast<int64_t>(x.neg ^ y.neg);
          sum += (v ^ sm) - sm;
        }
        const uint64_t scale_sig = uint64_t{sx.sig} * sy.sig;
        const bool gneg = sum < 0;
        const uint64_t m = static_cast<uint64_t>(gneg ? -sum : sum) * scale_sig;
        const bool zero = nonzero == 0 || scale_sig == 0;
        const int32_t e = zero ? p.e_zero : sx.exp + sy.exp;
        e_max = std::max(e_max, e);
        if (zero) {
          all_neg_zero = all_neg_zero && gneg;
        } else {
          any_nonzero = true;
        }
        mag[nt] = m;
        // The group term: exp sx.exp + sy.exp, frac -base + the scales'
        // fraction bits, so its lsb is base + sx.lsb + sy.lsb.
        lsb[nt] = base + sx.lsb + sy.lsb;
        neg[nt] = gneg ? 1 : 0;
        ++nt;
      }
    }
  }
  if (special != 0 || bad != 0) return false;

  // The addend is the last term.
  {
    const int32_t e = c.sig != 0 ? c.exp : p.e_zero;
    e_max = std::max(e_max, e);
    mag[nt] = c.sig;
    lsb[nt] = c.exp - c.frac;
    neg[nt] = c.neg;
    ++nt;
  }
  if (p.G == 0 || !o.has_scales) {
    // Zero products: all_neg_zero over the zero terms (and false if any
    // term is nonzero); here a term is zero exactly when its mag is 0.
    uint32_t nz_or = 0, zero_and_neg = 1;
    for (int i = 0; i < nt; ++i) {
      nz_or |= mag[i] != 0 ? 1u : 0u;
      zero_and_neg &= (mag[i] != 0) | neg[i];
    }
    any_nonzero = nz_or != 0;
    all_neg_zero = zero_and_neg != 0;
  } else {
    const int i = nt - 1;  // the addend
    if (mag[i] == 0) {
      all_neg_zero = all_neg_zero && neg[i] != 0;
    } else {
      any_nonzero = true;
    }
  }
  const int32_t q = e_max - p.F;  // the window's unit: 2^q
  int64_t S = 0;
  for (int i = 0; i < nt; ++i) {
    const int64_t v = aligned(mag[i], lsb[i] - q);
    const int64_t sm = -static_cast<int64_t>(neg[i]);  // 0 or -1
    S += (v ^ sm) - sm;
  }
  const bool positive_zero = p.zero_sign == ZeroSign::kPositive;
  if (S == 0) {
    out = zero_bits(o.c_fmt, !any_nonzero && all_neg_zero && !positive_zero);
    return true;
  }
  const bool sneg = S < 0;
  out = finish(p.rho, sneg, q, static_cast<uint64_t>(sneg ? -S : S));
  // kPositive: a negative sum that rounds to zero is +0.
  if (positive_zero && (out & ~desc(o.c_fmt).sign_mask()) == 0) out = 0;
  return true;
}

}  // namespace mxc::fast
