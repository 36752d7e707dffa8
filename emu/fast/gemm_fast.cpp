#include "emu/fast/gemm_fast.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdlib>
#include <span>

#include "emu/fast/fdpa_decode.h"
#include "emu/fast/gemm_fast_impl.h"
#include "emu/round_pack.h"

namespace mxc::fast {

using detail::DecTable;
using detail::elem_ok;
using gemm_detail::GemmPlan;
using gemm_detail::kLanes;
using gemm_detail::kNonzeroMin;
using gemm_detail::kZeroExp;

namespace {

uint64_t max_sig(Fmt f) { return (uint64_t{2} << desc(f).man_bits) - 1; }

// The largest |value| of a GST operand in units of 2^(emin - frac).
uint64_t max_units(Fmt f) {
  const FormatDesc& d = desc(f);
  return max_sig(f) << (d.emax() - d.emin());
}

// Operand access per layout (gemm.h).
struct Access {
  const GemmProblem& p;
  bool a_kmajor, b_kmajor;
  explicit Access(const GemmProblem& q)
      : p(q),
        a_kmajor(q.layout == GemmLayout::kTN || q.layout == GemmLayout::kTT),
        b_kmajor(q.layout == GemmLayout::kTN || q.layout == GemmLayout::kNN) {}
  uint64_t a(size_t m, size_t k) const {
    return a_kmajor ? p.A[m * p.K + k] : p.A[k * p.M + m];
  }
  uint64_t b(size_t k, size_t n) const {
    return b_kmajor ? p.B[n * p.K + k] : p.B[k * p.N + n];
  }
};

// One decoded operand of a row of A or a column of B.
struct Elem {
  bool bad;
  bool zero;
  int32_t val;  // T/ST: +-(sig << shift); GST: signed value in units
  int32_t exp;  // T/ST: alignment exponent (+ scale), kZeroExp for zero
};

Elem decode_elem(const GemmPlan& pl, Fmt f, const DecTable& t, uint64_t code,
                 int32_t scale_exp, int shift) {
  const FormatDesc& d = desc(f);
  const detail::Dec& x = t[code & 0xFF];
  Elem e{code > d.storage_mask() || x.special != 0, x.sig == 0, 0, kZeroExp};
  if (pl.gst) {
    const int32_t v = int32_t{x.sig} << (x.lsb - (d.emin() - d.man_bits));
    e.val = x.neg ? -v : v;
  } else {
    const int32_t v = int32_t{x.sig} << shift;
    e.val = x.neg ? -v : v;
    if (x.sig != 0) e.exp = x.exp + scale_exp;
  }
  return e;
}

struct Scale {
  bool bad;
  int32_t sig, exp;
};

Scale decode_scale(const DecTable& t, uint64_t code) {
  const detail::Dec& x = t[code & 0xFF];
  return Scale{code > 0xFF || x.special != 0, x.sig, x.exp};
}

GemmPlan make_gemm_plan(const MmaModel& mdl, const GemmProblem& p) {
  GemmPlan pl;
  const FdpaParams& f = mdl.fdpa;
  pl.gst = f.G > 0;
  pl.L = f.L;
  pl.G = f.G;
  pl.F = f.F;
  pl.e_zero = f.e_zero;
  pl.rho = f.rho;
  pl.c_fmt = mdl.c_fmt;
  const FormatDesc& dc = desc(mdl.c_fmt);
  pl.c_frac = dc.man_bits;
  pl.c_ebits = dc.exp_bits;
  pl.c_bias = dc.bias;
  pl.M = static_cast<size_t>(p.M);
  pl.N = static_cast<size_t>(p.N);
  pl.K = static_cast<size_t>(p.K);
  pl.chunks = pl.K / static_cast<size_t>(pl.L);
  pl.nblocks = (pl.N + kLanes - 1) / kLanes;
  const FormatDesc& da = desc(p.a_fmt);
  const FormatDesc& db = desc(p.b_fmt);
  const bool scaled = mdl.scales != ScaleKind::kNone;
  const size_t blk = scaled ? static_cast<size_t>(scale_block(mdl.scales)) : 1;
  const size_t nkb = pl.K / blk;
  const Fmt sf = scale_format(mdl.scales);
  if (pl.gst) {
    const int base = da.emin() + db.emin() - da.man_bits - db.man_bits;
    pl.s0 = pl.F + base - 2 * desc(sf).man_bits;
  } else {
    pl.s0 = pl.F - da.man_bits - db.man_bits;
  }
  const DecTable& ta = detail::decode_table(p.a_fmt);
  const DecTable& tb = detail::decode_table(p.b_fmt);
  const DecTable& ts = detail::decode_table(scaled ? sf : Fmt::kE8M0);
  const Access acc(p);
  const size_t M = pl.M, K = pl.K, L = static_cast<size_t>(pl.L);
  const size_t NB = pl.nblocks, ch = pl.chunks;
  pl.a_bad.assign(M * ch, 0);
  pl.a_zero.assign(M * ch, 0);
  pl.b_bad.assign(NB * ch, 0);
  pl.b_zero.assign(NB * ch, 0);

  if (!pl.gst) {
    // Scale exponents fold into the element exponents (E8M0: sig 1).
    pl.a_val.assign(M * K, 0);
    pl.a_exp.assign(M * K, kZeroExp);
    pl.b_val.assign(NB * K * kLanes, 0);
    pl.b_exp.assign(NB * K * kLanes, kZeroExp);
    for (size_t m = 0; m < M; ++m) {
      for (size_t k = 0; k < K; ++k) {
        bool sbad = false;
        int32_t sexp = 0;
        if (scaled) {
          const Scale s = decode_scale(ts, p.SA[m * nkb + k / blk]);
          sbad = s.bad;
          sexp = s.exp;
        }
        const Elem e = decode_elem(pl, p.a_fmt, ta, acc.a(m, k), sexp, pl.s0);
        pl.a_val[m * K + k] = e.val;
        pl.a_exp[m * K + k] = e.exp;
        pl.a_bad[m * ch + k / L] |= (e.bad || sbad) ? 1 : 0;
        pl.a_zero[m * ch + k / L] |= e.zero ? 1 : 0;
      }
    }
    for (size_t n = 0; n < pl.N; ++n) {
      const size_t nb = n / kLanes, lane = n % kLanes;
      const auto bit = static_cast<uint16_t>(1u << lane);
      for (size_t k = 0; k < K; ++k) {
        bool sbad = false;
        int32_t sexp = 0;
        if (scaled) {
          const Scale s = decode_scale(ts, p.SB[n * nkb + k / blk]);
          sbad = s.bad;
          sexp = s.exp;
        }
        const Elem e = decode_elem(pl, p.b_fmt, tb, acc.b(k, n), sexp, 0);
        const size_t i = (nb * K + k) * kLanes + lane;
        pl.b_val[i] = e.val;
        pl.b_exp[i] = e.exp;
        if (e.bad || sbad) pl.b_bad[nb * ch + k / L] |= bit;
        if (e.zero) pl.b_zero[nb * ch + k / L] |= bit;
      }
    }
    return pl;
  }

  // GST-FDPA.
  const size_t G = static_cast<size_t>(pl.G), K2 = K / 2, KG = K / G;
  pl.a_pair.assign(M * K2, 0);
  pl.a_ind.assign(M * K2, 0);
  pl.b_pair.assign(NB * K2 * kLanes, 0);
  pl.b_ind.assign(NB * K2 * kLanes, 0);
  pl.a_ssig.assign(M * KG, 0);
  pl.a_sexp.assign(M * KG, 0);
  pl.b_ssig.assign(NB * KG * kLanes, 0);
  pl.b_sexp.assign(NB * KG * kLanes, 0);
  auto pack = [](int32_t v, int half) {
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint16_t>(v))
                                << (16 * half));
  };
  for (size_t m = 0; m < M; ++m) {
    for (size_t k = 0; k < K; ++k) {
      const Elem e = decode_elem(pl, p.a_fmt, ta, acc.a(m, k), 0, 0);
      pl.a_pair[m * K2 + k / 2] |= pack(e.val, k & 1);
      pl.a_ind[m * K2 + k / 2] |= pack(e.val != 0, k & 1);
      pl.a_bad[m * ch + k / L] |= e.bad ? 1 : 0;
    }
    for (size_t g = 0; g < KG; ++g) {
      // The group's scales are those of its first k (fdpa.cpp).
      const Scale s = decode_scale(ts, p.SA[m * nkb + g * G / blk]);
      pl.a_ssig[m * KG + g] = s.sig;
      pl.a_sexp[m * KG + g] = s.exp;
      pl.a_bad[m * ch + g * G / L] |= s.bad ? 1 : 0;
    }
  }
  for (size_t n = 0; n < pl.N; ++n) {
    const size_t nb = n / kLanes, lane = n % kLanes;
    const auto bit = static_cast<uint16_t>(1u << lane);
    for (size_t k = 0; k < K; ++k) {
      const Elem e = decode_elem(pl, p.b_fmt, tb, acc.b(k, n), 0, 0);
      const size_t i = (nb * K2 + k / 2) * kLanes + lane;
      pl.b_pair[i] |= pack(e.val, k & 1);
      pl.b_ind[i] |= pack(e.val != 0, k & 1);
      if (e.bad) pl.b_bad[nb * ch + k / L] |= bit;
    }
    for (size_t g = 0; g < KG; ++g) {
      const Scale s = decode_scale(ts, p.SB[n * nkb + g * G / blk]);
      const size_t i = (nb * KG + g) * kLanes + lane;
      pl.b_ssig[i] = s.sig;
      pl.b_sexp[i] = s.exp;
      if (s.bad) pl.b_bad[nb * ch + g * G / L] |= bit;
    }
  }
  return pl;
}

// The previous chunk's result as the next chunk's addend (fdpa.cpp read()).
struct Addend {
  bool ok;  // finite
  bool neg;
  int64_t sig;
  int32_t exp;
};

Addend read_addend(const GemmPlan& pl, uint32_t c) {
  const uint32_t emask = (1u << pl.c_ebits) - 1;
  const uint32_t e = (c >> pl.c_frac) & emask;
  const uint32_t fmask = (1u << pl.c_frac) - 1;
  Addend a;
  a.ok = e != emask;
  a.neg = ((c >> (pl.c_frac + pl.c_ebits)) & 1) != 0;
  a.sig = e != 0 ? ((c & fmask) | (fmask + 1)) : (c & fmask);
  a.exp = e != 0 ? static_cast<int32_t>(e) - pl.c_bias : 1 - pl.c_bias;
  return a;
}

// floor(mag * 2^sh) for mag >= 0 (sh < 0: right shift; 0 once past 63).
int64_t shifted(int64_t mag, int32_t sh) {
  if (sh >= 0) return mag << sh;
  return -sh >= 63 ? 0 : mag >> -sh;
}

// One T/ST chunk for one lane: the sum S in units of 2^(e_max - F), e_max,
// and whether any term is nonzero.
void chunk_t(const GemmPlan& pl, size_t m, size_t nb, size_t j, int lane,
             const Addend& c, int64_t& S, int32_t& e_max, bool& any_nz) {
  const size_t L = static_cast<size_t>(pl.L), k0 = j * L;
  const int32_t* av = &pl.a_val[m * pl.K + k0];
  const int32_t* ae = &pl.a_exp[m * pl.K + k0];
  const int32_t* bv = &pl.b_val[(nb * pl.K + k0) * kLanes + lane];
  const int32_t* be = &pl.b_exp[(nb * pl.K + k0) * kLanes + lane];
  int32_t em = INT32_MIN / 2;
  for (size_t k = 0; k < L; ++k) em = std::max(em, ae[k] + be[k * kLanes]);
  any_nz = em > kNonzeroMin || c.sig != 0;
  const bool any_zero = pl.a_zero[m * pl.chunks + j] != 0 ||
                        ((pl.b_zero[nb * pl.chunks + j] >> lane) & 1) != 0;
  if (any_zero) em = std::max(em, pl.e_zero);
  em = std::max(em, c.sig != 0 ? c.exp : pl.e_zero);
  int64_t s = 0;
  for (size_t k = 0; k < L; ++k) {
    const int32_t prod = av[k] * bv[k * kLanes];  // |prod| < 2^(F+2)
    const auto d = static_cast<uint32_t>(em - (ae[k] + be[k * kLanes]));
    const int64_t v = d >= 32 ? 0 : int64_t{std::abs(prod) >> d};
    s += prod < 0 ? -v : v;
  }
  if (c.sig != 0) {
    const int64_t v = shifted(c.sig, pl.F - pl.c_frac - (em - c.exp));
    s += c.neg ? -v : v;
  }
  S = s;
  e_max = em;
}

void chunk_gst(const GemmPlan& pl, size_t m, size_t nb, size_t j, int lane,
               const Addend& c, int64_t& S, int32_t& e_max, bool& any_nz) {
  const size_t G = static_cast<size_t>(pl.G), ng = pl.L / G;
  const size_t K2 = pl.K / 2, KG = pl.K / G;
  int32_t em = c.sig != 0 ? c.exp : pl.e_zero;
  bool nz_any = c.sig != 0;
  int64_t gmag[64];
  int32_t gexp[64];
  bool gneg[64];
  for (size_t g = 0; g < ng; ++g) {
    const size_t gi = j * ng + g, t0 = gi * G / 2;
    int32_t sum = 0, nz = 0;
    for (size_t t = t0; t < t0 + G / 2; ++t) {
      const int32_t a = pl.a_pair[m * K2 + t];
      const int32_t b = pl.b_pair[(nb * K2 + t) * kLanes + lane];
      sum += int32_t{static_cast<int16_t>(a)} * static_cast<int16_t>(b) +
             (a >> 16) * (b >> 16);
      nz |= pl.a_ind[m * K2 + t] & pl.b_ind[(nb * K2 + t) * kLanes + lane];
    }
    const int32_t ssig =
        pl.a_ssig[m * KG + gi] * pl.b_ssig[(nb * KG + gi) * kLanes + lane];
    const int32_t se =
        pl.a_sexp[m * KG + gi] + pl.b_sexp[(nb * KG + gi) * kLanes + lane];
    const bool zero = nz == 0 || ssig == 0;
    gneg[g] = sum < 0;
    gmag[g] = int64_t{std::abs(sum)} * ssig;
    gexp[g] = se;
    em = std::max(em, zero ? pl.e_zero : se);
    nz_any = nz_any || !zero;
  }
  int64_t s = 0;
  for (size_t g = 0; g < ng; ++g) {
    if (gmag[g] == 0) continue;
    const int64_t v = shifted(gmag[g], pl.s0 - (em - gexp[g]));
    s += gneg[g] ? -v : v;
  }
  if (c.sig != 0) {
    const int64_t v = shifted(c.sig, pl.F - pl.c_frac - (em - c.exp));
    s += c.neg ? -v : v;
  }
  S = s;
  e_max = em;
  any_nz = nz_any;
}

// gemm.cpp's composition for one element: mma_dot on row m, column n.
uint64_t reference_element(const MmaModel& mdl, const GemmProblem& p, size_t m,
                           size_t n) {
  const Access acc(p);
  const size_t K = static_cast<size_t>(p.K);
  std::vector<uint64_t> a(K), b(K);
  for (size_t k = 0; k < K; ++k) {
    a[k] = acc.a(m, k);
    b[k] = acc.b(k, n);
  }
  const int blk = scale_block(mdl.scales);
  std::span<const uint64_t> sa, sb;
  if (blk > 0) {
    const size_t nkb = K / static_cast<size_t>(blk);
    sa = std::span<const uint64_t>(p.SA).subspan(m * nkb, nkb);
    sb = std::span<const uint64_t>(p.SB).subspan(n * nkb, nkb);
  }
  return mma_dot(mdl, p.a_fmt, p.b_fmt, a, b, p.C[n * p.M + m], sa, sb);
}

}  // namespace

namespace gemm_detail {

bool finish_lane(const GemmPlan& p, int64_t S, int32_t q, bool any_nonzero,
                 uint32_t& c) {
  if (S == 0) {
    if (!any_nonzero) return false;
    c = static_cast<uint32_t>(zero_bits(p.c_fmt, false));
    return true;
  }
  const bool neg = S < 0;
  c = static_cast<uint32_t>(
      detail::finish_sum(p.rho, neg, q, static_cast<uint64_t>(neg ? -S : S)));
  return true;
}

uint32_t block_scalar(const GemmPlan& p, size_t m, size_t nb, uint32_t* c) {
  uint32_t bad = 0;
  for (size_t j = 0; j < p.chunks; ++j) {
    bad |= p.b_bad[nb * p.chunks + j] |
           (p.a_bad[m * p.chunks + j] != 0 ? 0xFFFFu : 0u);
    for (int lane = 0; lane < kLanes; ++lane) {
      if ((bad >> lane) & 1) continue;
      const Addend a = read_addend(p, c[lane]);
      if (!a.ok) {
        bad |= 1u << lane;
        continue;
      }
      int64_t S = 0;
      int32_t e_max = 0;
      bool any_nz = false;
      if (p.gst) {
        chunk_gst(p, m, nb, j, lane, a, S, e_max, any_nz);
      } else {
        chunk_t(p, m, nb, j, lane, a, S, e_max, any_nz);
      }
      if (!finish_lane(p, S, e_max - p.F, any_nz, c[lane])) bad |= 1u << lane;
    }
  }
  return bad;
}

}  // namespace gemm_detail

Isa best_gemm_isa() {
  const Isa isa = best_isa();
  return isa != Isa::kScalar && gemm_detail::simd_fits(isa) ? isa
                                                            : Isa::kScalar;
}

bool gemm_covers(const MmaModel& m, const GemmProblem& p) {
  if (m.emulate_as != Fmt::kF64 || p.split_k != 1) return false;
  if (!elem_ok(p.a_fmt) || !elem_ok(p.b_fmt)) return false;
  if (m.c_fmt != Fmt::kF32 && m.c_fmt != Fmt::kF16) return false;
  const FdpaParams& f = m.fdpa;
  // The AMD datapaths (two-stage, f32 pairwise) and their RNE-FP32 rounding:
  // the reference only.
  if (f.datapath != Datapath::kFdpa || f.rho == AccRound::kRneF32) return false;
  if (f.L <= 0 || f.L > 128 || f.F < 0 || f.F > 48) return false;
  // Zero operands align at e_zero; one increasing-k chain with C inside.
  // Other zero-exponent rules and instruction structures: the reference.
  if (f.zero_exp != ZeroExp::kFixed || f.k_block != 0) return false;
  if (p.M <= 0 || p.N <= 0 || p.K <= 0 || p.K % f.L != 0) return false;
  const FormatDesc& da = desc(p.a_fmt);
  const FormatDesc& db = desc(p.b_fmt);
  if (f.G == 0) {
    if (m.scales != ScaleKind::kNone && scale_format(m.scales) != Fmt::kE8M0)
      return false;
    // Two int32 accumulators of ceil(L/2) terms, each term below
    // max_sig_a * max_sig_b << s0.
    const int s0 = f.F - da.man_bits - db.man_bits;
    if (s0 < 0) return false;
    const uint64_t term = (max_sig(p.a_fmt) * max_sig(p.b_fmt)) << s0;
    return term * static_cast<uint64_t>((f.L + 1) / 2) < (uint64_t{1} << 31);
  }
  if (m.scales == ScaleKind::kNone || f.L % f.G != 0 || f.G % 2 != 0)
    return false;
  // int16 operands, int32 group sums, int64 aligned group terms.
  const uint64_t ua = max_units(p.a_fmt), ub = max_units(p.b_fmt);
  if (ua >= (1u << 15) || ub >= (1u << 15)) return false;
  const uint64_t gsum = static_cast<uint64_t>(f.G) * ua * ub;
  if (gsum >= (uint64_t{1} << 31)) return false;
  const Fmt sf = scale_format(m.scales);
  const int base = da.emin() + db.emin() - da.man_bits - db.man_bits;
  const int s0 = f.F + base - 2 * desc(sf).man_bits;
  if (s0 < 0 || s0 > 40) return false;
  // The group term's magnitude is formed in 32 bits.
  const uint64_t gmag = gsum * max_sig(sf) * max_sig(sf);
  if (gmag >= (uint64_t{1} << 32)) return false;
  const int bits =
      static_cast<int>(std::bit_width(gmag)) + s0 +
      static_cast<int>(std::bit_width(static_cast<uint64_t>(f.L / f.G + 1)));
  return bits <= 62;
}

std::vector<uint64_t> gemm_fast(const MmaModel& mdl, const GemmProblem& p,
                                Isa isa, size_t* fallbacks) {
  const GemmPlan pl = make_gemm_plan(mdl, p);
  const bool simd =
      isa != Isa::kScalar && isa_supported(isa) && gemm_detail::simd_fits(isa);
  const size_t M = pl.M, N = pl.N;
  const uint64_t c_wide =
      pl.c_fmt == Fmt::kF32 ? ~uint64_t{0xFFFFFFFF} : ~uint64_t{0xFFFF};
  std::vector<uint64_t> D(M * N);
  const bool positive_zero = mdl.fdpa.zero_sign == ZeroSign::kPositive;
  const uint64_t sign = desc(pl.c_fmt).sign_mask();
  std::vector<std::pair<size_t, size_t>> slow;
  uint32_t c[kLanes];
  for (size_t nb = 0; nb < pl.nblocks; ++nb) {
    for (size_t m = 0; m < M; ++m) {
      uint32_t bad = 0;
      for (int lane = 0; lane < kLanes; ++lane) {
        const size_t n = nb * kLanes + static_cast<size_t>(lane);
        const uint64_t v = n < N ? p.C[n * M + m] : 0;
        if ((v & c_wide) != 0) bad |= 1u << lane;
        c[lane] = static_cast<uint32_t>(v & ~c_wide);
      }
      bad |= simd ? gemm_detail::block_simd(isa, pl, m, nb, c)
                  : gemm_detail::block_scalar(pl, m, nb, c);
      for (int lane = 0; lane < kLanes; ++lane) {
        const size_t n = nb * kLanes + static_cast<size_t>(lane);
        if (n >= N) break;
        if ((bad >> lane) & 1) {
          slow.emplace_back(m, n);
        } else if (positive_zero && (c[lane] & ~sign) == 0) {
          D[n * M + m] = 0;  // ZeroSign::kPositive (an underflowed chunk)
        } else {
          D[n * M + m] = c[lane];
        }
      }
    }
  }
  for (const auto& [m, n] : slow)
    D[n * M + m] = reference_element(mdl, p, m, n);
  if (fallbacks != nullptr) *fallbacks = slow.size();
  return D;
}

}  // namespace mxc::fast
