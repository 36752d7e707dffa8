#include "emu/fast/gemm_fast.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <span>

#include "emu/arith.h"
#include "emu/convert.h"
#include "emu/fast/fdpa_decode.h"
#include "emu/fast/fp_env.h"
#include "emu/fast/gemm_fast_impl.h"
#include "emu/round_pack.h"
#include "emu/unpack.h"

namespace mxc::fast {

using detail::DecTable;
using detail::elem_ok;
using gemm_detail::Access;
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

// The alignment exponent of a zero operand, scale or addend under
// ZeroExp::kOperandMin (fdpa.cpp kOperandMinZeroExp, MMA-Sim HEAD).
constexpr int32_t kOperandMinZero = -126;

// One A/B operand as fdpa.cpp's read() sees it, after emulate_as: |v| =
// sig * 2^(exp - frac) with frac the format's fraction bits; exp is the
// alignment exponent (the format's emin for subnormals and zeros).
struct Op {
  bool bad;  // NaN, Inf, or a code wider than its format
  bool neg;
  uint32_t sig;
  int32_t exp;
};

// The format an operand of `f` is read in (emulate_as, when the model has
// one: mma_dot converts every operand exactly first).
Fmt read_format(Fmt f, Fmt emulate_as) {
  return emulate_as == Fmt::kF64 ? f : emulate_as;
}

// The bits of a stored code beyond format f's: a code with any of them set
// is over-wide (the reference reads only the format's bits). TF32 codes
// are f32 patterns (32 bits), of which read() keeps the top 19: they are
// shifted right by kTf32Drop.
uint64_t over_wide_mask(Fmt f) {
  return f == Fmt::kTF32 ? ~uint64_t{0xFFFFFFFF} : ~desc(f).storage_mask();
}
constexpr int kTf32Drop = 13;

// Decodes the A or B operands of one problem: the format's fields fetched
// once, then per code a 256-entry table (formats of 8 bits or fewer), the
// IEEE field split (f16, bf16, tf32 and any format with Inf), or the shared
// decoder unpack() for the rest.
class Decoder {
 public:
  Decoder(Fmt f, Fmt emulate_as)
      : f_(f),
        emu_(emulate_as),
        rf_(read_format(f, emulate_as)),
        d_(desc(rf_)),
        table_(elem_ok(rf_) ? &detail::decode_table(rf_) : nullptr),
        ieee_(d_.specials == Specials::kIeee),
        tf32_(rf_ == Fmt::kTF32),
        wide_mask_(over_wide_mask(f)) {}

  Op operator()(uint64_t code) const {
    // A code wider than its format (TF32: a 32-bit f32 pattern) is the
    // reference's (it reads only the format's bits).
    if ((code & wide_mask_) != 0) return Op{true, false, 0, 0};
    if (emu_ != Fmt::kF64) code = convert(f_, emu_, code);
    if (tf32_) code >>= kTf32Drop;  // f32 bits truncated to TF32 (read())
    if (table_ != nullptr) {
      const detail::Dec& x = (*table_)[code & 0xFF];
      return Op{x.special != 0, x.neg != 0, x.sig, x.exp};
    }
    if (ieee_) {
      const int man = d_.man_bits;
      const uint64_t emask = (uint64_t{1} << d_.exp_bits) - 1;
      const uint64_t e = (code >> man) & emask;
      const uint64_t frac = code & ((uint64_t{1} << man) - 1);
      const bool neg = ((code >> (man + d_.exp_bits)) & 1) != 0;
      if (e == emask) return Op{true, neg, 0, 0};
      if (e == 0) return Op{false, neg, static_cast<uint32_t>(frac), d_.emin()};
      return Op{false, neg, static_cast<uint32_t>(frac | (uint64_t{1} << man)),
                static_cast<int32_t>(e) - d_.bias};
    }
    const Unpacked u = unpack(rf_, code);
    Op o{u.cls == Class::kNaN || u.cls == Class::kInf, u.sign, 0, d_.emin()};
    if (u.cls == Class::kNormal || u.cls == Class::kSubnormal) {
      o.sig = static_cast<uint32_t>(u.sig);
      o.exp = u.exp + d_.man_bits;
    }
    return o;
  }

 private:
  Fmt f_, emu_, rf_;
  const FormatDesc& d_;
  const DecTable* table_;
  bool ieee_, tf32_;
  uint64_t wide_mask_;
};

// The decoded operand of every code of a format of at most 8 bits (empty
// for wider formats): the decoder once per code, not once per element (a
// plan's decode had taken 40-68% of a 64x64x2048 `gemm`; with emulate_as
// the decoder converts every code through the reference).
std::vector<Op> op_table(Fmt f, const Decoder& dec) {
  std::vector<Op> t;
  if (desc(f).bits <= 8) {
    t.resize(256);
    for (uint64_t c = 0; c < 256; ++c) t[c] = dec(c);
  }
  return t;
}

// The T-FDPA decode of a whole row or column of f16, bf16 or tf32 codes
// (an IEEE format of more than 8 bits: no op_table) without scales or
// emulate_as, every f16/bf16/tf32 model's operands: Decoder's IEEE field
// split and make_gemm_plan's element rule (`elem` with the unit scale)
// without a branch, so that the loop vectorizes. Per element:
//   a code wider than its format, or exponent field all ones: bad, sig 0
//     (the wide code's sign 0, as Decoder's);
//   sig = frac, plus the hidden bit when the exponent field is not 0;
//   val = +-sig << shift; exp = max(e, 1) - bias, or zexp when sig is 0
//     (kOperandMinZero under ZeroExp::kOperandMin, else kZeroExp);
//   sgn = the sign bit.
// Per element, Decoder and `elem` had taken about 50 instructions and a
// mispredicted sign branch: 40-43% of a 64x64x2048 f16/bf16/tf32 `gemm`
// (perf). This loop vectorizes (GCC, 16-byte vectors): those models' `gemm`
// 1.10-1.23x at 128x128x1024 (bench-compare, same run).
class IeeeLine {
 public:
  static bool covers(Fmt f, Fmt emulate_as, bool scaled) {
    const FormatDesc& d = desc(f);
    return !scaled && emulate_as == Fmt::kF64 && d.bits > 8 &&
           d.specials == Specials::kIeee && d.man_bits + 1 < 31 &&
           d.exp_bits + d.man_bits + 1 <= 32;
  }
  IeeeLine(Fmt f, int32_t zexp, int shift)
      : q_{over_wide_mask(f),
           f == Fmt::kTF32 ? kTf32Drop : 0,
           desc(f).man_bits,
           desc(f).man_bits + desc(f).exp_bits,
           (1u << desc(f).exp_bits) - 1,
           desc(f).bias,
           zexp,
           shift,
           ((1u << desc(f).exp_bits) - 1)
               << (desc(f).man_bits + (f == Fmt::kTF32 ? kTf32Drop : 0))} {}

  // A code as run() reads it: a code wider than its format (Decoder: bad,
  // sign 0, sig 0) becomes +Inf, which decodes the same.
  uint32_t narrow(uint64_t c) const {
    return (c & q_.wide_mask) != 0 ? q_.pos_inf : static_cast<uint32_t>(c);
  }

  // narrow()ed codes[0, n) into val/exp/sgn[0, n), and per element flags
  // (bit 0: bad, bit 1: sig 0). No branch and no 64-bit lane, so that GCC
  // vectorizes it (the sign's had been a mispredicted jump per element).
  void run(const uint32_t* codes, size_t n, int32_t* val, int32_t* exp,
           uint8_t* sgn, uint8_t* flags) const {
    const uint32_t fmask = (1u << q_.man) - 1, hidden = 1u << q_.man;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t c = codes[i] >> q_.drop;
      const uint32_t e = (c >> q_.man) & q_.emask;
      const uint32_t neg = (c >> q_.sign) & 1;
      const uint32_t special = e == q_.emask ? 1 : 0;
      const uint32_t sig =
          ((c & fmask) | (e != 0 ? hidden : 0)) & (special - 1);
      const auto neg_mask = static_cast<int32_t>(0 - neg);  // 0 or -1
      // C++20: << of a negative value is defined (two's complement).
      val[i] = ((static_cast<int32_t>(sig) ^ neg_mask) - neg_mask) << q_.shift;
      exp[i] =
          sig == 0 ? q_.zexp : static_cast<int32_t>(e > 1 ? e : 1) - q_.bias;
      sgn[i] = static_cast<uint8_t>(neg);
      flags[i] = static_cast<uint8_t>(special | (sig == 0 ? 2 : 0));
    }
  }

  // The 64-bit codes[0, n) narrowed and run(): on a SIMD isa the whole
  // vectors by ieee_decode_simd (the same formula lane by lane), the rest
  // here through a block of narrowed codes.
  void run64(Isa isa, const uint64_t* codes, size_t n, int32_t* val,
             int32_t* exp, uint8_t* sgn, uint8_t* flags) const {
    size_t i = isa != Isa::kScalar
                   ? gemm_detail::ieee_decode_simd(isa, q_, codes, n, val, exp,
                                                   sgn, flags)
                   : 0;
    uint32_t narrowed[64];
    while (i < n) {
      const size_t m = std::min<size_t>(n - i, 64);
      for (size_t j = 0; j < m; ++j) narrowed[j] = narrow(codes[i + j]);
      run(narrowed, m, val + i, exp + i, sgn + i, flags + i);
      i += m;
    }
  }

 private:
  gemm_detail::IeeeDecodeParams q_;
};

struct Scale {
  bool bad;
  int32_t sig, exp;
};

// One T-FDPA plan element (make_gemm_plan's `elem` with the unit scale)
// of a code of a format of at most 8 bits, for problems without scales:
// made once per code, then one lookup per element (the decoder's table,
// the rule's branches and the flags had cost 10-21% of a 128x128x1024
// NVIDIA `gemm`, perf). flags: bit 0 bad, bit 1 zero (sig 0).
struct PlanElem {
  int32_t val, exp;
  uint8_t sgn, flags;
};

// A scale code (E8M0, UE4M3: sign bit ignored); a zero scale aligns at
// -126 under kOperandMin (and is a zero term under kFixed).
Scale decode_scale(const DecTable& t, uint64_t code, bool operand_min) {
  const detail::Dec& x = t[code & 0xFF];
  const int32_t e = x.sig == 0 && operand_min ? kOperandMinZero : x.exp;
  return Scale{code > 0xFF || x.special != 0, x.sig, e};
}

// The visiting order of k (fdpa.cpp run_chain): order[i] is the k taken
// i-th. Within each instruction of k_block elements with k_period > 0: the
// k with (k mod k_period) in [0, k_run) first, then [k_run, 2 k_run), ...
std::vector<size_t> visit_order(const FdpaParams& f, size_t K) {
  std::vector<size_t> order(K);
  for (size_t k = 0; k < K; ++k) order[k] = k;
  if (f.k_block <= 0 || f.k_period <= 0) return order;
  const size_t kb = static_cast<size_t>(f.k_block);
  const size_t period = static_cast<size_t>(f.k_period);
  const size_t run = static_cast<size_t>(f.k_run);
  size_t i = 0;
  for (size_t i0 = 0; i0 < K; i0 += kb)
    for (size_t r0 = 0; r0 < period; r0 += run)
      for (size_t k = i0; k < i0 + kb; ++k)
        if ((k - i0) % period >= r0 && (k - i0) % period < r0 + run)
          order[i++] = k;
  return order;
}

// Every array of a plan, in pairs (x of a, x of b).
template <class F>
void each_array(GemmPlan& a, GemmPlan& b, F f) {
  f(a.a_val, b.a_val);
  f(a.a_exp, b.a_exp);
  f(a.b_val, b.b_val);
  f(a.b_exp, b.b_exp);
  f(a.a_sgn, b.a_sgn);
  f(a.b_sgn, b.b_sgn);
  f(a.a_pair, b.a_pair);
  f(a.a_ind, b.a_ind);
  f(a.b_pair, b.b_pair);
  f(a.b_ind, b.b_ind);
  f(a.a_ssig, b.a_ssig);
  f(a.a_sexp, b.a_sexp);
  f(a.b_ssig, b.b_ssig);
  f(a.b_sexp, b.b_sexp);
  f(a.a_bad, b.a_bad);
  f(a.a_zero, b.a_zero);
  f(a.b_bad, b.b_bad);
  f(a.b_zero, b.b_zero);
}

// The storage of the last plan's arrays on this thread, kept for the next
// call (make_gemm_plan assigns every array a plan reads in full, so nothing
// of the last problem is read; the others keep their old contents unread).
// A 64x64x2048 problem's decoded operands are about 2.6 MiB: allocated
// afresh per call, glibc maps and unmaps them, and the page faults took
// about a fifth of an FP8 `gemm` (perf, from Python).
// Arrays of more than kScratchKeepBytes in all are freed instead (as
// gemm_detail::Scratch, which the AMD paths use).

GemmPlan& spare_plan() {
  thread_local GemmPlan spare;
  return spare;
}

void keep_arrays(GemmPlan& pl) {
  size_t bytes = 0;
  each_array(pl, pl,
             [&](auto& x, auto&) { bytes += x.capacity() * sizeof(x[0]); });
  if (bytes > kScratchKeepBytes) return;
  each_array(spare_plan(), pl, [](auto& keep, auto& used) { keep.swap(used); });
}

GemmPlan make_gemm_plan(const MmaModel& mdl, const GemmProblem& p, Isa isa) {
  GemmPlan pl;
  each_array(pl, spare_plan(), [](auto& x, auto& spare) { x.swap(spare); });
  const FdpaParams& f = mdl.fdpa;
  pl.gst = f.G > 0;
  pl.L = f.L;
  pl.G = f.G;
  pl.F = f.F;
  pl.e_zero = f.e_zero;
  pl.zero_exp = f.zero_exp;
  pl.zero_sign = f.zero_sign;
  const bool opmin = f.zero_exp == ZeroExp::kOperandMin;
  pl.c_zero_exp = opmin ? kOperandMinZero : f.e_zero;
  pl.rho = f.rho;
  pl.c_fmt = mdl.c_fmt;
  const FormatDesc& dc = desc(mdl.c_fmt);
  pl.c_frac = dc.man_bits;
  pl.c_ebits = dc.exp_bits;
  pl.c_bias = dc.bias;
  pl.c_sign = static_cast<uint32_t>(dc.sign_mask());
  pl.c_nan = static_cast<uint32_t>(canonical_nan(mdl.c_fmt));
  pl.M = static_cast<size_t>(p.M);
  pl.N = static_cast<size_t>(p.N);
  pl.K = static_cast<size_t>(p.K);
  pl.chunks = pl.K / static_cast<size_t>(pl.L);
  pl.nblocks = (pl.N + kLanes - 1) / kLanes;
  if (f.k_block > 0) pl.chunks_per_instr = static_cast<size_t>(f.k_block / f.L);
  pl.c_outside = f.c_outside;
  const Fmt af = read_format(p.a_fmt, mdl.emulate_as);
  const Fmt bf = read_format(p.b_fmt, mdl.emulate_as);
  const FormatDesc& da = desc(af);
  const FormatDesc& db = desc(bf);
  const bool scaled = mdl.scales != ScaleKind::kNone;
  const size_t blk = scaled ? static_cast<size_t>(scale_block(mdl.scales)) : 1;
  const size_t nkb = pl.K / blk;
  const Fmt sf = scale_format(mdl.scales);
  const int sfrac = scaled ? desc(sf).man_bits : 0;
  if (pl.gst) {
    const int base = da.emin() + db.emin() - da.man_bits - db.man_bits;
    pl.s0 = pl.F + base - 2 * sfrac;
  } else {
    pl.s0 = pl.F - da.man_bits - db.man_bits - 2 * sfrac;
    pl.wide = !gemm_detail::t_fits_int32(mdl, p.a_fmt, p.b_fmt);
    if (!pl.wide) {
      const uint64_t ssig = scaled ? max_sig(sf) : 1;
      const uint64_t term =
          ((max_sig(af) * ssig) << pl.s0) * max_sig(bf) * ssig;
      pl.sum32 = pl.F + 1 <= 30 && term * static_cast<uint64_t>(pl.L) +
                                           (uint64_t{1} << (pl.F + 1)) <
                                       (uint64_t{1} << 31);
    }
  }
  const DecTable& ts = detail::decode_table(scaled ? sf : Fmt::kE8M0);
  const Access acc(p);
  const Decoder dec_a(p.a_fmt, mdl.emulate_as), dec_b(p.b_fmt, mdl.emulate_as);
  const std::vector<size_t> order = visit_order(f, pl.K);
  const size_t M = pl.M, K = pl.K, L = static_cast<size_t>(pl.L);
  const size_t NB = pl.nblocks, ch = pl.chunks;
  pl.a_bad.assign(M * ch, 0);
  pl.a_zero.assign(M * ch, 0);
  pl.b_bad.assign(NB * ch, 0);
  pl.b_zero.assign(NB * ch, 0);

  if (!pl.gst) {
    // Element i of a row / column is k = order[i]; its scale that of k.
    const int shift = pl.wide ? 0 : pl.s0;
    // val = +-(sig * sig_S) << shift; exp = e + e_S, or the zero rule's.
    const auto elem = [&](const Op& x, const Scale& s, int sh, int32_t& val,
                          int32_t& exp) {
      const int32_t mag = static_cast<int32_t>(x.sig) * s.sig;
      val = (x.neg ? -mag : mag) * (int32_t{1} << sh);
      if (mag != 0) {
        exp = x.exp + s.exp;
      } else if (opmin) {
        exp = (x.sig == 0 ? kOperandMinZero : x.exp) + s.exp;
      } else {
        exp = kZeroExp;
      }
      return mag == 0;
    };
    // Row by row, chunk by chunk (no division per element); the operand
    // codes of a row or column gathered first (the layout's stride once).
    // The scale of element i is that of k = order[i]; its block k / blk.
    std::vector<uint64_t> codes(K);
    std::vector<uint32_t> sblk(K);
    bool in_order = true;
    for (size_t i = 0; i < K; ++i) {
      sblk[i] = static_cast<uint32_t>(order[i] / blk);
      in_order = in_order && order[i] == i;
    }
    // A format of at most 8 bits: the decoder once per code (op_table).
    const std::vector<Op> tab_a = op_table(p.a_fmt, dec_a);
    const std::vector<Op> tab_b = op_table(p.b_fmt, dec_b);
    // Without scales, such a format's plan element too (PlanElem).
    const auto plan_elem = [&](const Op& x, int sh) {
      PlanElem e{};
      const bool zero = elem(x, Scale{false, 1, 0}, sh, e.val, e.exp);
      e.sgn = x.neg ? 1 : 0;
      e.flags = static_cast<uint8_t>((x.bad ? 1 : 0) | (zero ? 2 : 0));
      return e;
    };
    std::vector<PlanElem> elems_a, elems_b;
    if (!scaled) {
      for (const Op& x : tab_a) elems_a.push_back(plan_elem(x, shift));
      for (const Op& x : tab_b) elems_b.push_back(plan_elem(x, 0));
    }
    const auto elem_of = [&](const std::vector<PlanElem>& t, const Decoder& dec,
                             int sh, uint64_t c) {
      return c < t.size() ? t[c] : plan_elem(dec(c), sh);
    };
    // f16, bf16, tf32 without scales: a row or column at once (IeeeLine).
    const int32_t zexp = opmin ? kOperandMinZero : kZeroExp;
    std::optional<IeeeLine> line_a, line_b;
    if (IeeeLine::covers(p.a_fmt, mdl.emulate_as, scaled))
      line_a.emplace(p.a_fmt, zexp, shift);
    if (IeeeLine::covers(p.b_fmt, mdl.emulate_as, scaled))
      line_b.emplace(p.b_fmt, zexp, 0);
    // The paths below that write every element of their operand
    // (PlanElem, IeeeLine) leave the arrays' old contents to be
    // overwritten; the per-element one writes only the elements of its
    // columns, and the padding lanes of the last block keep these values.
    const bool whole_a = line_a || !elems_a.empty();
    const bool whole_b = line_b || !elems_b.empty();
    const auto init = [](auto& v, size_t n, auto x, bool whole) {
      if (whole) {
        v.resize(n);
      } else {
        v.assign(n, x);
      }
    };
    init(pl.a_val, M * K, 0, whole_a);
    init(pl.a_exp, M * K, kZeroExp, whole_a);
    init(pl.a_sgn, M * K, uint8_t{0}, whole_a);
    init(pl.b_val, NB * K * kLanes, 0, whole_b);
    init(pl.b_exp, NB * K * kLanes, kZeroExp, whole_b);
    init(pl.b_sgn, NB * K * kLanes, uint8_t{0}, whole_b);
    std::vector<uint8_t> flags(line_a ? K : 0);
    for (size_t m = 0; m < M; ++m) {
      // The row's codes: element i at row[i], or at row[idx[i]] (PlanElem
      // reads a k-major row in the plan's order itself).
      const uint64_t* row = codes.data();
      const size_t* idx = nullptr;
      if (acc.a_kmajor && (in_order || !elems_a.empty())) {
        row = &p.A[m * K];
        if (!in_order) idx = order.data();
      } else {
        for (size_t i = 0; i < K; ++i) codes[i] = acc.a(m, order[i]);
      }
      if (line_a) {
        line_a->run64(isa, row, K, &pl.a_val[m * K], &pl.a_exp[m * K],
                      &pl.a_sgn[m * K], flags.data());
        for (size_t j = 0; j < ch; ++j) {
          uint32_t fl = 0;
          for (size_t i = j * L; i < (j + 1) * L; ++i) fl |= flags[i];
          pl.a_bad[m * ch + j] = static_cast<uint8_t>(fl & 1);
          pl.a_zero[m * ch + j] = (fl & 2) != 0 && !opmin ? 1 : 0;
        }
        continue;
      }
      if (!elems_a.empty()) {
        int32_t* val = &pl.a_val[m * K];
        int32_t* exp = &pl.a_exp[m * K];
        uint8_t* sgn = &pl.a_sgn[m * K];
        for (size_t j = 0; j < ch; ++j) {
          uint32_t fl = 0;
          for (size_t i = j * L; i < (j + 1) * L; ++i) {
            const PlanElem e = elem_of(elems_a, dec_a, shift,
                                       row[idx != nullptr ? idx[i] : i]);
            val[i] = e.val;
            exp[i] = e.exp;
            sgn[i] = e.sgn;
            fl |= e.flags;
          }
          pl.a_bad[m * ch + j] = static_cast<uint8_t>(fl & 1);
          pl.a_zero[m * ch + j] = (fl & 2) != 0 && !opmin ? 1 : 0;
        }
        continue;
      }
      for (size_t j = 0; j < ch; ++j) {
        bool bad = false, zero_any = false;
        for (size_t i = j * L; i < (j + 1) * L; ++i) {
          Scale s{false, 1, 0};
          if (scaled) s = decode_scale(ts, p.SA[m * nkb + sblk[i]], opmin);
          const Op x = row[i] < tab_a.size() ? tab_a[row[i]] : dec_a(row[i]);
          zero_any |=
              elem(x, s, shift, pl.a_val[m * K + i], pl.a_exp[m * K + i]);
          pl.a_sgn[m * K + i] = x.neg ? 1 : 0;
          bad |= x.bad || s.bad;
        }
        pl.a_bad[m * ch + j] = bad ? 1 : 0;
        pl.a_zero[m * ch + j] = zero_any && !opmin ? 1 : 0;
      }
    }
    // B by whole blocks of kLanes columns in the plan's order (element i of
    // lane l at i * kLanes + l), written in sequence (by column, the stores
    // had gone kLanes * 4 bytes apart); the last block's lanes beyond N
    // padded (val 0, exp kZeroExp, neither bad nor zero). The codes of
    // kTile elements of every lane are gathered into a tile column by
    // column first: read across the columns, 16 columns K codes apart sit
    // in one set of a 32 KiB L1 and each code had come from L2; gathered
    // into the whole block, each store had missed L1 (perf: 16-19% of the
    // plan each). Then IeeeLine runs over the tile, or PlanElem per code.
    const size_t fast_nb = whole_b ? NB : 0;
    constexpr size_t kTile = 64;
    std::vector<uint64_t> tile(fast_nb != 0 ? kTile * kLanes : 0);
    std::vector<uint8_t> tile_flags(tile.size());
    for (size_t nb = 0; nb < fast_nb; ++nb) {
      const size_t lanes = std::min<size_t>(kLanes, pl.N - nb * kLanes);
      uint32_t bad = 0, zero = 0;
      for (size_t i0 = 0; i0 < K; i0 += kTile) {
        const size_t n_i = std::min(K - i0, kTile);
        for (size_t lane = 0; lane < lanes; ++lane)
          for (size_t i = 0; i < n_i; ++i)
            tile[i * kLanes + lane] = acc.b(order[i0 + i], nb * kLanes + lane);
        const size_t e0 = (nb * K + i0) * kLanes;
        int32_t* val = &pl.b_val[e0];
        int32_t* exp = &pl.b_exp[e0];
        uint8_t* sgn = &pl.b_sgn[e0];
        if (line_b) {
          line_b->run64(isa, tile.data(), n_i * kLanes, val, exp, sgn,
                        tile_flags.data());
        } else {
          for (size_t i = 0; i < n_i; ++i)
            for (size_t lane = 0; lane < lanes; ++lane) {
              const size_t x = i * kLanes + lane;
              const PlanElem e = elem_of(elems_b, dec_b, 0, tile[x]);
              val[x] = e.val;
              exp[x] = e.exp;
              sgn[x] = e.sgn;
              tile_flags[x] = e.flags;
            }
        }
        for (size_t i = 0; i < n_i; ++i) {
          for (size_t lane = 0; lane < kLanes; ++lane) {
            const size_t x = i * kLanes + lane;
            if (lane >= lanes) {
              val[x] = 0;
              exp[x] = kZeroExp;
              sgn[x] = 0;
              continue;
            }
            bad |= static_cast<uint32_t>(tile_flags[x] & 1) << lane;
            zero |= static_cast<uint32_t>(tile_flags[x] >> 1) << lane;
          }
          const size_t k = i0 + i;
          if ((k + 1) % L == 0) {  // the end of chunk k / L
            pl.b_bad[nb * ch + k / L] = static_cast<uint16_t>(bad);
            pl.b_zero[nb * ch + k / L] =
                static_cast<uint16_t>(opmin ? 0 : zero);
            bad = zero = 0;
          }
        }
      }
    }
    for (size_t n = fast_nb * kLanes; n < pl.N; ++n) {
      const size_t nb = n / kLanes, lane = n % kLanes;
      const auto bit = static_cast<uint16_t>(1u << lane);
      for (size_t i = 0; i < K; ++i) codes[i] = acc.b(order[i], n);
      for (size_t j = 0; j < ch; ++j) {
        bool bad = false, zero_any = false;
        for (size_t i = j * L; i < (j + 1) * L; ++i) {
          Scale s{false, 1, 0};
          if (scaled) s = decode_scale(ts, p.SB[n * nkb + sblk[i]], opmin);
          const Op x =
              codes[i] < tab_b.size() ? tab_b[codes[i]] : dec_b(codes[i]);
          const size_t e = (nb * K + i) * kLanes + lane;
          // B carries no shift: one multiply gives the shifted product.
          zero_any |= elem(x, s, 0, pl.b_val[e], pl.b_exp[e]);
          pl.b_sgn[e] = x.neg ? 1 : 0;
          bad |= x.bad || s.bad;
        }
        if (bad) pl.b_bad[nb * ch + j] |= bit;
        if (zero_any && !opmin) pl.b_zero[nb * ch + j] |= bit;
      }
    }
    return pl;
  }

  // GST-FDPA (groups of G visited k; a group's scales are those of its
  // first visited k, as fdpa.cpp after the permutation).
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
  // The operand in units of 2^(emin - frac).
  const auto units = [](const Op& x, const FormatDesc& d) {
    const int32_t v = static_cast<int32_t>(x.sig) << (x.exp - d.emin());
    return x.neg ? -v : v;
  };
  // Per code of a format of at most 8 bits (op_table; the GST formats),
  // the operand in units and whether it is bad (NaN, Inf, a code wider than
  // its format); wider formats and codes decode one by one. (Decoding per
  // element had taken two thirds of a 64x64x2048 mxf4 `gemm`.)
  struct Unit {
    int32_t v;
    bool bad;
  };
  const auto unit = [&](const Op& x, const FormatDesc& d) {
    return Unit{x.bad ? 0 : units(x, d), x.bad};
  };
  const auto table_of = [&](Fmt fmt, const Decoder& dec, const FormatDesc& d) {
    std::vector<Unit> t;
    for (const Op& x : op_table(fmt, dec)) t.push_back(unit(x, d));
    return t;
  };
  const std::vector<Unit> tab_a = table_of(p.a_fmt, dec_a, da);
  const std::vector<Unit> tab_b = table_of(p.b_fmt, dec_b, db);
  const auto look = [&](const std::vector<Unit>& t, const Decoder& dec,
                        const FormatDesc& d, uint64_t code) {
    return code < t.size() ? t[code] : unit(dec(code), d);
  };
  // A row's or column's codes gathered first (the layout's stride once),
  // then two elements (one pair) at a time; L is a multiple of G, which is
  // even (gemm_covers), so a pair never straddles a chunk.
  std::vector<uint64_t> codes(K);
  for (size_t m = 0; m < M; ++m) {
    for (size_t i = 0; i < K; ++i) codes[i] = acc.a(m, order[i]);
    for (size_t j = 0; j < ch; ++j) {
      bool bad = false;
      for (size_t i = j * L; i < (j + 1) * L; i += 2) {
        const Unit u0 = look(tab_a, dec_a, da, codes[i]);
        const Unit u1 = look(tab_a, dec_a, da, codes[i + 1]);
        pl.a_pair[m * K2 + i / 2] = pack(u0.v, 0) | pack(u1.v, 1);
        pl.a_ind[m * K2 + i / 2] = pack(u0.v != 0, 0) | pack(u1.v != 0, 1);
        bad |= u0.bad || u1.bad;
      }
      if (bad) pl.a_bad[m * ch + j] = 1;
    }
    for (size_t g = 0; g < KG; ++g) {
      const Scale s =
          decode_scale(ts, p.SA[m * nkb + order[g * G] / blk], opmin);
      pl.a_ssig[m * KG + g] = s.sig;
      pl.a_sexp[m * KG + g] = s.exp;
      pl.a_bad[m * ch + g * G / L] |= s.bad ? 1 : 0;
    }
  }
  for (size_t n = 0; n < pl.N; ++n) {
    const size_t nb = n / kLanes, lane = n % kLanes;
    const auto bit = static_cast<uint16_t>(1u << lane);
    for (size_t i = 0; i < K; ++i) codes[i] = acc.b(order[i], n);
    for (size_t j = 0; j < ch; ++j) {
      bool bad = false;
      for (size_t i = j * L; i < (j + 1) * L; i += 2) {
        const Unit u0 = look(tab_b, dec_b, db, codes[i]);
        const Unit u1 = look(tab_b, dec_b, db, codes[i + 1]);
        const size_t e = (nb * K2 + i / 2) * kLanes + lane;
        pl.b_pair[e] = pack(u0.v, 0) | pack(u1.v, 1);
        pl.b_ind[e] = pack(u0.v != 0, 0) | pack(u1.v != 0, 1);
        bad |= u0.bad || u1.bad;
      }
      if (bad) pl.b_bad[nb * ch + j] |= bit;
    }
    for (size_t g = 0; g < KG; ++g) {
      const Scale s =
          decode_scale(ts, p.SB[n * nkb + order[g * G] / blk], opmin);
      const size_t e = (nb * KG + g) * kLanes + lane;
      pl.b_ssig[e] = s.sig;
      pl.b_sexp[e] = s.exp;
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

// One T/ST chunk for one lane: the sum S in units of 2^(e_max - F) and
// e_max. Narrow plans: |val_a * val_b| < 2^31 (already shifted by s0);
// wide plans: the product of the unshifted significands in int64, aligned
// by s0 - (e_max - e) (gemm_covers: every aligned term < 2^(F + 4) and
// their sum fit int64).
void chunk_t(const GemmPlan& pl, size_t m, size_t nb, size_t j, int lane,
             const Addend& c, int64_t& S, int32_t& e_max) {
  const size_t L = static_cast<size_t>(pl.L), k0 = j * L;
  const int32_t* av = &pl.a_val[m * pl.K + k0];
  const int32_t* ae = &pl.a_exp[m * pl.K + k0];
  const int32_t* bv = &pl.b_val[(nb * pl.K + k0) * kLanes + lane];
  const int32_t* be = &pl.b_exp[(nb * pl.K + k0) * kLanes + lane];
  int32_t em = INT32_MIN / 2;
  for (size_t k = 0; k < L; ++k) em = std::max(em, ae[k] + be[k * kLanes]);
  const bool any_zero = pl.a_zero[m * pl.chunks + j] != 0 ||
                        ((pl.b_zero[nb * pl.chunks + j] >> lane) & 1) != 0;
  if (any_zero) em = std::max(em, pl.e_zero);
  em = std::max(em, c.sig != 0 ? c.exp : pl.c_zero_exp);
  int64_t s = 0;
  if (!pl.wide) {
    for (size_t k = 0; k < L; ++k) {
      const int32_t prod = av[k] * bv[k * kLanes];  // |prod| < 2^31
      const auto d = static_cast<uint32_t>(em - (ae[k] + be[k * kLanes]));
      const int64_t v = d >= 32 ? 0 : int64_t{std::abs(prod) >> d};
      s += prod < 0 ? -v : v;
    }
  } else {
    for (size_t k = 0; k < L; ++k) {
      const int64_t prod = int64_t{av[k]} * bv[k * kLanes];
      const int64_t v = shifted(prod < 0 ? -prod : prod,
                                pl.s0 - (em - (ae[k] + be[k * kLanes])));
      s += prod < 0 ? -v : v;
    }
  }
  if (c.sig != 0) {
    const int64_t v = shifted(c.sig, pl.F - pl.c_frac - (em - c.exp));
    s += c.neg ? -v : v;
  }
  S = s;
  e_max = em;
}

void chunk_gst(const GemmPlan& pl, size_t m, size_t nb, size_t j, int lane,
               const Addend& c, int64_t& S, int32_t& e_max) {
  const size_t G = static_cast<size_t>(pl.G), ng = pl.L / G;
  const size_t K2 = pl.K / 2, KG = pl.K / G;
  int32_t em = c.sig != 0 ? c.exp : pl.c_zero_exp;
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
    // kFixed: an all-zero group (or a zero scale) aligns at e_zero;
    // kOperandMin: every group at e_SA + e_SB (a zero scale at -126).
    const bool zero = (nz == 0 || ssig == 0) && pl.zero_exp == ZeroExp::kFixed;
    gneg[g] = sum < 0;
    gmag[g] = int64_t{std::abs(sum)} * ssig;
    gexp[g] = se;
    em = std::max(em, zero ? pl.e_zero : se);
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

uint32_t zero_sum(const GemmPlan& p, size_t m, size_t nb, int lane, size_t j,
                  uint32_t c_in) {
  // A GST group term that sums to zero is never negative (fdpa.cpp); a
  // nonzero addend or product is a nonzero term: +0.
  if (p.gst || p.zero_sign == ZeroSign::kPositive) return 0;
  if ((c_in & ~p.c_sign) != 0 || (c_in & p.c_sign) == 0) return 0;
  const size_t L = static_cast<size_t>(p.L), k0 = j * L;
  for (size_t k = k0; k < k0 + L; ++k) {
    const size_t b = (nb * p.K + k) * kLanes + static_cast<size_t>(lane);
    if (p.a_val[m * p.K + k] != 0 && p.b_val[b] != 0) return 0;
    if ((p.a_sgn[m * p.K + k] ^ p.b_sgn[b]) == 0) return 0;
  }
  return p.c_sign;  // every term a negative zero
}

uint32_t finish_lane(const GemmPlan& p, int64_t S, int32_t q, size_t m,
                     size_t nb, int lane, size_t j, uint32_t c_in) {
  if (S == 0) return zero_sum(p, m, nb, lane, j, c_in);
  const bool neg = S < 0;
  auto c = static_cast<uint32_t>(
      detail::finish_sum(p.rho, neg, q, static_cast<uint64_t>(neg ? -S : S)));
  if (p.zero_sign == ZeroSign::kPositive && (c & ~p.c_sign) == 0) c = 0;
  return c;
}

uint32_t add_outside(const GemmPlan& p, uint32_t s, uint32_t c) {
  uint32_t r;
  if (p.c_fmt == Fmt::kF32) {
    // The host's binary32 add is IEEE round-to-nearest-even (no FTZ/DAZ, no
    // contraction of a lone add): exactly fp_add's.
    const float x = std::bit_cast<float>(s) + std::bit_cast<float>(c);
    r = std::isnan(x) ? p.c_nan : std::bit_cast<uint32_t>(x);
  } else {
    const Addend a = read_addend(p, s), b = read_addend(p, c);
    if (!a.ok || !b.ok || p.c_fmt != Fmt::kF16) {
      r = static_cast<uint32_t>(fp_add(p.c_fmt, s, c));  // specials
    } else {
      // Both exactly in units of 2^(emin - frac) (binary16: 2^-24, the sum
      // below 2^42), one RNE rounding of the sum.
      const auto units = [&](const Addend& v) {
        const int64_t u = v.sig << (v.exp - (1 - p.c_bias));
        return v.neg ? -u : u;
      };
      const int64_t S = units(a) + units(b);
      if (S == 0) {
        r = a.neg && b.neg && a.sig == 0 && b.sig == 0 ? p.c_sign : 0;
      } else {
        r = static_cast<uint32_t>(detail::finish_sum(
            AccRound::kRneF16, S < 0, 1 - p.c_bias - p.c_frac,
            static_cast<uint64_t>(S < 0 ? -S : S)));
      }
    }
  }
  if (p.zero_sign == ZeroSign::kPositive && (r & ~p.c_sign) == 0) r = 0;
  return r;
}

uint32_t block_scalar(const GemmPlan& p, size_t m, size_t nb, uint32_t* c) {
  uint32_t bad = 0;
  uint32_t outside[kLanes] = {};  // C of the instruction (c_outside)
  const size_t cpi = p.chunks_per_instr;
  for (size_t j = 0; j < p.chunks; ++j) {
    bad |= p.b_bad[nb * p.chunks + j] |
           (p.a_bad[m * p.chunks + j] != 0 ? 0xFFFFu : 0u);
    const bool first = p.c_outside && j % cpi == 0;
    const bool last = p.c_outside && (j + 1) % cpi == 0;
    for (int lane = 0; lane < kLanes; ++lane) {
      if ((bad >> lane) & 1) continue;
      if (first) {
        outside[lane] = c[lane];
        c[lane] = 0;
      }
      const Addend a = read_addend(p, c[lane]);
      if (a.ok) {
        int64_t S = 0;
        int32_t e_max = 0;
        if (p.gst) {
          chunk_gst(p, m, nb, j, lane, a, S, e_max);
        } else {
          chunk_t(p, m, nb, j, lane, a, S, e_max);
        }
        c[lane] = finish_lane(p, S, e_max - p.F, m, nb, lane, j, c[lane]);
      } else if ((c[lane] & ((1u << p.c_frac) - 1)) != 0) {
        c[lane] = p.c_nan;  // a NaN addend, finite products: NaN
      }                     // an Inf addend and finite products: that Inf
      if (last) c[lane] = add_outside(p, c[lane], outside[lane]);
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

namespace gemm_detail {

bool t_fits_int32(const MmaModel& m, Fmt a_fmt, Fmt b_fmt) {
  const FdpaParams& f = m.fdpa;
  const Fmt af = read_format(a_fmt, m.emulate_as);
  const Fmt bf = read_format(b_fmt, m.emulate_as);
  const bool scaled = m.scales != ScaleKind::kNone;
  const Fmt sf = scale_format(m.scales);
  const uint64_t ssig = scaled ? max_sig(sf) : 1;
  const int sfrac = scaled ? desc(sf).man_bits : 0;
  // A holds +-(sig_a * sig_SA) << s0, B +-(sig_b * sig_SB): each and their
  // product in int32, and two int32 accumulators of ceil(L/2) terms.
  const int s0 = f.F - desc(af).man_bits - desc(bf).man_bits - 2 * sfrac;
  if (s0 < 0 || s0 > 30) return false;
  const uint64_t a = (max_sig(af) * ssig) << s0, b = max_sig(bf) * ssig;
  if (a >= (uint64_t{1} << 31) || a * b >= (uint64_t{1} << 31)) return false;
  return a * b * static_cast<uint64_t>((f.L + 1) / 2) < (uint64_t{1} << 31);
}

}  // namespace gemm_detail

bool gemm_covers(const MmaModel& m, const GemmProblem& p) {
  if (p.split_k != 1) return false;
  if (m.c_fmt != Fmt::kF32 && m.c_fmt != Fmt::kF16) return false;
  const FdpaParams& f = m.fdpa;
  // The AMD datapaths (two-stage, f32 pairwise): gemm_amd.cpp.
  if (f.datapath != Datapath::kFdpa) return gemm_detail::amd_covers(m, p);
  // split and ftz belong to the AMD datapaths (fdpa.cpp check_chain); the
  // FDPA kernels here round with RZ-F32, RZ-E8M13 or RNE-F16 only.
  if (f.rho == AccRound::kRneF32 || f.split != 1 || f.ftz) return false;
  if (f.L <= 0 || f.L > 128 || f.F < 0) return false;
  if (p.M <= 0 || p.N <= 0 || p.K <= 0 || p.K % f.L != 0) return false;
  if (f.k_block > 0) {
    // The instruction structure fdpa.cpp check_chain accepts.
    if (f.k_block % f.L != 0 || p.K % f.k_block != 0) return false;
    if (f.k_period != 0 &&
        (f.k_period < 0 || f.k_run <= 0 || f.k_period % f.k_run != 0 ||
         f.k_block % f.k_period != 0 ||
         (f.k_period / f.k_run) * f.L != f.k_block))
      return false;
  } else if (f.k_period != 0 || f.c_outside) {
    return false;
  }
  const Fmt af = read_format(p.a_fmt, m.emulate_as);
  const Fmt bf = read_format(p.b_fmt, m.emulate_as);
  const FormatDesc& da = desc(af);
  const FormatDesc& db = desc(bf);
  // Operand significands (with a scale's) fit the int32 value arrays.
  if (da.exp_bits == 0 || db.exp_bits == 0 || da.man_bits > 23 ||
      db.man_bits > 23)
    return false;
  if (f.G == 0) {
    const bool scaled = m.scales != ScaleKind::kNone;
    const Fmt sf = scale_format(m.scales);
    if (scaled && sf != Fmt::kE8M0 && sf != Fmt::kUE4M3) return false;
    const int sfrac = scaled ? desc(sf).man_bits : 0;
    // +-sig * sig_S in the int32 value arrays (24 + 4 bits at most).
    if (std::max(da.man_bits, db.man_bits) + sfrac + 2 > 31) return false;
    if (gemm_detail::t_fits_int32(m, p.a_fmt, p.b_fmt)) return true;
    // The int64 scalar kernel: an aligned product term is below
    // 2^(F + 2 + 2 * (sfrac + 1)) (s0 = F - fa - fb - 2 sfrac), the
    // addend's below 2^(F + 1); L + 1 of them fit int64.
    const int term_bits = f.F + 2 + (scaled ? 2 * (sfrac + 1) : 0);
    return term_bits + static_cast<int>(
                           std::bit_width(static_cast<uint64_t>(f.L + 1))) <=
           62;
  }
  if (m.scales == ScaleKind::kNone || f.L % f.G != 0 || f.G % 2 != 0)
    return false;
  if (!elem_ok(af) || !elem_ok(bf)) return false;
  // int16 operands, int32 group sums, int64 aligned group terms.
  const uint64_t ua = max_units(af), ub = max_units(bf);
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
  const FpEnvDefault fp_env;  // fp_env.h
  if (mdl.fdpa.datapath != Datapath::kFdpa) {
    // The AMD datapaths (gemm_amd.cpp: the pairwise one in vector lanes on
    // a SIMD ISA, the two-stage one scalar); a chain with a NaN/Inf or
    // over-wide operand goes to mma_dot.
    const size_t M = static_cast<size_t>(p.M), N = static_cast<size_t>(p.N);
    std::vector<uint64_t> D(M * N);
    std::vector<uint8_t> bad(M * N, 0);
    gemm_detail::gemm_amd(mdl, p, isa, D, bad);
    size_t slow = 0;
    for (size_t n = 0; n < N; ++n) {
      for (size_t m = 0; m < M; ++m) {
        if (bad[n * M + m] == 0) continue;
        D[n * M + m] = reference_element(mdl, p, m, n);
        ++slow;
      }
    }
    if (fallbacks != nullptr) *fallbacks = slow;
    return D;
  }
  // The operand decode on a SIMD ISA this CPU has (else its scalar loop).
  GemmPlan pl = make_gemm_plan(mdl, p, isa_supported(isa) ? isa : Isa::kScalar);
  const bool simd = isa != Isa::kScalar && isa_supported(isa) &&
                    gemm_detail::simd_fits(isa) && !pl.wide;
  const size_t M = pl.M, N = pl.N;
  const uint64_t c_wide =
      pl.c_fmt == Fmt::kF32 ? ~uint64_t{0xFFFFFFFF} : ~uint64_t{0xFFFF};
  std::vector<uint64_t> D(M * N);
  const bool positive_zero = mdl.fdpa.zero_sign == ZeroSign::kPositive;
  const uint64_t sign = desc(pl.c_fmt).sign_mask();
  std::vector<std::pair<size_t, size_t>> slow;
  // Row m's C lanes of block nb into c (bad: the over-wide codes), and
  // back as D.
  const auto load_c = [&](size_t m, size_t nb, uint32_t* c) {
    uint32_t bad = 0;
    for (int lane = 0; lane < kLanes; ++lane) {
      const size_t n = nb * kLanes + static_cast<size_t>(lane);
      const uint64_t v = n < N ? p.C[n * M + m] : 0;
      if ((v & c_wide) != 0) bad |= 1u << lane;
      c[lane] = static_cast<uint32_t>(v & ~c_wide);
    }
    return bad;
  };
  const auto store_d = [&](size_t m, size_t nb, const uint32_t* c,
                           uint32_t bad) {
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
  };
  // T/ST plans on SIMD: two rows per kernel call (two chains interleaved).
  const bool two_rows = simd && !pl.gst;
  uint32_t c[kLanes], c1[kLanes];
  for (size_t nb = 0; nb < pl.nblocks; ++nb) {
    size_t m = 0;
    for (; two_rows && m + 1 < M; m += 2) {
      const uint32_t bad0 = load_c(m, nb, c), bad1 = load_c(m + 1, nb, c1);
      const uint32_t bad = gemm_detail::block2_simd(isa, pl, m, nb, c, c1);
      store_d(m, nb, c, bad0 | (bad & 0xFFFFu));
      store_d(m + 1, nb, c1, bad1 | (bad >> kLanes));
    }
    for (; m < M; ++m) {
      uint32_t bad = load_c(m, nb, c);
      bad |= simd ? gemm_detail::block_simd(isa, pl, m, nb, c)
                  : gemm_detail::block_scalar(pl, m, nb, c);
      store_d(m, nb, c, bad);
    }
  }
  for (const auto& [m, n] : slow)
    D[n * M + m] = reference_element(mdl, p, m, n);
  if (fallbacks != nullptr) *fallbacks = slow.size();
  keep_arrays(pl);
  return D;
}

}  // namespace mxc::fast
