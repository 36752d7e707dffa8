// The AMD CDNA MFMA datapaths of the fast GEMM (emu/fast/gemm_fast.h):
// Datapath::kF32Pairwise (CDNA1/2) and Datapath::kTwoStageRd (CDNA3), the
// step-for-step restatement of the reference emu/mma/fdpa.cpp
// pairwise_one / two_stage_one on operands decoded once per row of A and
// column of B.
//
//  * kF32Pairwise is a chain of IEEE binary32 RNE multiplies and adds; the
//    host's float arithmetic is exactly that (-ffp-contract=off in
//    CMakeLists.txt, no FTZ/DAZ). On a SIMD ISA the rows in whole groups of
//    lanes run the same steps lane by lane (gemm_amd_hwy.cpp), the rest
//    this scalar loop.
//  * kTwoStageRd has per-set e_max, floor shifts of signed sums and a
//    second alignment on max(e, e_C) per chunk. On a SIMD ISA the rows in
//    whole groups of lanes run gemm_amd_hwy.cpp (stage 1 in int32 lanes
//    where the terms fit, stage 2 in int32 lanes to two exact integers and
//    the RNE pack as one exact double rounded to binary32), the rest, and
//    every problem whose products may reach 2^128, this scalar loop (int64
//    per lane). Operands of <= 16-bit formats decode through a packed
//    per-format table, TF32 by its fields.
// Both are O(M N K) integer/float work on decoded arrays, against the
// reference's per-element unpack, i128 and round_pack.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "emu/convert.h"
#include "emu/fast/fdpa_decode.h"
#include "emu/fast/gemm_fast_impl.h"
#include "emu/format.h"
#include "emu/unpack.h"

namespace mxc::fast::gemm_detail {
namespace {

// fdpa.cpp kOperandMinZeroExp (MMA-Sim HEAD extract_significand_exponent).
constexpr int32_t kOperandMinZero = -126;
constexpr uint32_t kF32Exp = 0x7F800000u;
constexpr uint32_t kF32Sign = 0x80000000u;
constexpr uint32_t kF32Abs = 0x7FFFFFFFu;

// An operand code as the reference reads it (mma_dot converts to
// emulate_as first); `bad`: NaN, Inf or a code wider than its format (the
// reference takes the element).
struct Code {
  bool bad;
  Fmt f;
  uint64_t bits;
};

Code read_code(Fmt f, Fmt emulate_as, uint64_t code) {
  const uint64_t wide =
      f == Fmt::kTF32 ? ~uint64_t{0xFFFFFFFF} : ~desc(f).storage_mask();
  if ((code & wide) != 0) return Code{true, f, 0};
  if (emulate_as != Fmt::kF64) {
    code = convert(f, emulate_as, code);
    f = emulate_as;
  }
  return Code{false, f, code};
}

// ---- kF32Pairwise --------------------------------------------------------

float as_float(uint32_t u) { return std::bit_cast<float>(u); }
uint32_t as_bits(float x) { return std::bit_cast<uint32_t>(x); }

// fdpa.cpp flush_keep_sign: under ftz an f32 with a zero exponent field
// becomes a zero of its sign.
uint32_t flush(bool ftz, uint32_t x) {
  return ftz && (x & kF32Exp) == 0 ? (x & kF32Sign) : x;
}

// fdpa.cpp pairwise_operand: the element as f32 (exact); under ftz a
// subnormal of its own format is +0.
uint32_t pairwise_operand(bool ftz, const Code& c, bool& bad) {
  const Unpacked u = unpack(c.f, c.bits);
  bad = u.cls == Class::kNaN || u.cls == Class::kInf;
  if (ftz && u.cls == Class::kSubnormal) return 0;
  return static_cast<uint32_t>(
      c.f == Fmt::kTF32 ? c.bits : convert(c.f, Fmt::kF32, c.bits));
}

// fdpa.cpp pairwise_tree over products already formed (and flushed): the
// halves n / 2 and n - n / 2, each sum an RNE f32 add, flushed.
uint32_t tree(const uint32_t* prod, size_t n, bool ftz) {
  if (n == 1) return prod[0];
  const size_t h = n / 2;
  const float s =
      as_float(tree(prod, h, ftz)) + as_float(tree(prod + h, n - h, ftz));
  return flush(ftz, as_bits(s));
}

// Every code of a format of at most 16 bits as pairwise_operand reads it
// (f32 bits, without and with ftz, and whether it is NaN/Inf), made once
// per format and process by the same unpack / convert, so that decoding
// an operand is a lookup (the per-element reference convert cost more than
// the products).
struct PairwiseLut {
  std::vector<uint32_t> plain, flushed;
  std::vector<uint8_t> bad;
};

// The table build(f, n) of a format f of at most 16 bits (n = 2^bits
// codes), made once per format and process and shared by every thread
// (nullptr for wider formats): pairwise_lut and two_stage_lut.
template <typename Lut, typename Build>
const Lut* per_format_lut(Fmt f, Build build) {
  if (f == Fmt::kTF32 || desc(f).bits > 16) return nullptr;
  static std::mutex mu;
  static std::map<Fmt, Lut> luts;
  const std::lock_guard<std::mutex> lock(mu);
  auto it = luts.find(f);
  if (it == luts.end())
    it = luts.emplace(f, build(f, size_t{1} << desc(f).bits)).first;
  return &it->second;
}

const PairwiseLut* pairwise_lut(Fmt f) {
  return per_format_lut<PairwiseLut>(f, [](Fmt fm, size_t n) {
    PairwiseLut t;
    t.plain.resize(n);
    t.flushed.resize(n);
    t.bad.resize(n);
    for (size_t i = 0; i < n; ++i) {
      bool b = false;
      const Code c{false, fm, i};
      t.plain[i] = pairwise_operand(false, c, b);
      t.flushed[i] = pairwise_operand(true, c, b);
      t.bad[i] = b ? 1 : 0;
    }
    return t;
  });
}

// The decoded operand of code `code` of format f (read_code, then
// pairwise_operand), through the format's table when it has one.
uint32_t pairwise_decode(const PairwiseLut* lut, bool ftz, Fmt f,
                         Fmt emulate_as, uint64_t code, bool& bad) {
  if (lut != nullptr) {
    if ((code & ~desc(f).storage_mask()) != 0) {
      bad = true;
      return 0;
    }
    bad = lut->bad[code] != 0;
    return ftz ? lut->flushed[code] : lut->plain[code];
  }
  const Code c = read_code(f, emulate_as, code);
  bad = c.bad;
  return c.bad ? 0 : pairwise_operand(ftz, c, bad);
}

void gemm_pairwise(const MmaModel& mdl, const GemmProblem& p, Isa isa,
                   std::vector<uint64_t>& D, std::vector<uint8_t>& bad) {
  const FdpaParams& f = mdl.fdpa;
  const bool ftz = f.ftz;
  const size_t M = static_cast<size_t>(p.M), N = static_cast<size_t>(p.N);
  const size_t K = static_cast<size_t>(p.K), L = static_cast<size_t>(f.L);
  const Access lay(p);
  // A row-major, B column-major, both as f32 bits; a chain with a NaN/Inf
  // or over-wide operand is the reference's.
  // One Scratch slot per array alive at once (gemm_fast_impl.h).
  Scratch<uint32_t, 0> a(M * K);
  Scratch<uint32_t, 1> b(N * K);
  std::vector<uint8_t> a_bad(M, 0), b_bad(N, 0);
  // A table per operand format when no emulate_as conversion comes first.
  const bool direct = mdl.emulate_as == Fmt::kF64;
  const PairwiseLut* la = direct ? pairwise_lut(p.a_fmt) : nullptr;
  const PairwiseLut* lb = direct ? pairwise_lut(p.b_fmt) : nullptr;
  // The smallest binary32 exponent field of a nonzero operand of A and of
  // B (255 when there is none), for flushes_act below.
  uint32_t ea_min = 255, eb_min = 255;
  const auto low_exp = [ftz](uint32_t x, uint32_t& e_min) {
    if (ftz && (x & kF32Abs) != 0) e_min = std::min(e_min, (x & kF32Exp) >> 23);
  };
  for (size_t m = 0; m < M; ++m) {
    for (size_t k = 0; k < K; ++k) {
      bool x_bad = false;
      a[m * K + k] =
          pairwise_decode(la, ftz, p.a_fmt, mdl.emulate_as, lay.a(m, k), x_bad);
      a_bad[m] |= x_bad ? 1 : 0;
      low_exp(a[m * K + k], ea_min);
    }
  }
  for (size_t n = 0; n < N; ++n) {
    for (size_t k = 0; k < K; ++k) {
      bool x_bad = false;
      b[n * K + k] =
          pairwise_decode(lb, ftz, p.b_fmt, mdl.emulate_as, lay.b(k, n), x_bad);
      b_bad[n] |= x_bad ? 1 : 0;
      low_exp(b[n * K + k], eb_min);
    }
  }
  const uint32_t nan = static_cast<uint32_t>(canonical_nan(Fmt::kF32));
  // On a SIMD ISA the rows in whole groups of lanes run the vector kernel
  // (gemm_amd_hwy.cpp: the same binary32 steps lane by lane); the elements
  // marked bad below are overwritten by the reference either way.
  size_t m_simd = 0;
  if (isa != Isa::kScalar && isa_supported(isa)) {
    Scratch<uint32_t, 2> at(K * M);
    Scratch<uint32_t, 3> c(N * M);
    Scratch<uint32_t, 4> out(N * M);
    for (size_t m = 0; m < M; ++m)
      for (size_t k = 0; k < K; ++k) at[k * M + m] = a[m * K + k];
    for (size_t i = 0; i < N * M; ++i) c[i] = static_cast<uint32_t>(p.C[i]);
    // Under ftz, whether a flush can act after C's, the first chunk's: else
    // the vector kernel runs the chain without them (ftz false) on C
    // flushed once. They cannot when every operand is a direct f16/bf16
    // (ftz decodes their subnormals to +0, so a nonzero one is normal in
    // its format: a multiple of 2^(E - 127 - man_bits), E its binary32
    // exponent field), every product is exact in binary32 (man_bits + 1
    // bits each, 24 in all) and a multiple of 2^-126 (ea_min + eb_min >=
    // 128 + the two man_bits), and every C that the first flush keeps (E
    // nonzero) is NaN/Inf or a multiple of 2^-126 (E >= 24). Then every
    // product, tree sum and chunk sum is +0 (an exact zero product is +0;
    // x + y is -0 under RNE only when both are) or a multiple of 2^-126
    // (RNE keeps a multiple of 2^-126: at or above 2^-103 the binary32
    // ulp is one, below it the value is exact), hence normal: no flush of
    // a product, tree sum or chunk sum changes it, and the flush of the
    // accumulator before each later chunk (a zero exponent field to +0)
    // meets no subnormal and no -0. On the random problems of the models'
    // benchmarks this holds; cdna2's gemm had run at 0.55x cdna1's.
    bool flushes_act = ftz;
    const int ma = desc(p.a_fmt).man_bits, mb = desc(p.b_fmt).man_bits;
    const auto half = [](Fmt x) { return x == Fmt::kF16 || x == Fmt::kBF16; };
    if (ftz && direct && half(p.a_fmt) && half(p.b_fmt) && ma + mb + 2 <= 24 &&
        (ea_min == 255 || eb_min == 255 ||
         ea_min + eb_min >= static_cast<uint32_t>(128 + ma + mb))) {
      const auto field = [&](size_t i) { return (c[i] & kF32Exp) >> 23; };
      flushes_act = false;
      for (size_t i = 0; i < N * M && !flushes_act; ++i)
        flushes_act = field(i) != 0 && field(i) != 255 && field(i) < 24;
      if (!flushes_act)  // the first chunk's flush, once
        for (size_t i = 0; i < N * M; ++i)
          if (field(i) == 0) c[i] = 0;
    }
    m_simd = pairwise_simd(isa, at.data(), M, N, b.data(), K, L, flushes_act,
                           nan, c.data(), out.data());
    for (size_t n = 0; n < N; ++n) {
      for (size_t m = 0; m < m_simd; ++m) {
        const uint64_t c0 = p.C[n * M + m];
        if (a_bad[m] != 0 || b_bad[n] != 0 || (c0 >> 32) != 0)
          bad[n * M + m] = 1;
        else
          D[n * M + m] = out[n * M + m];
      }
    }
  }
  std::vector<uint32_t> prod(L);
  for (size_t n = 0; n < N; ++n) {
    for (size_t m = m_simd; m < M; ++m) {
      const uint64_t c0 = p.C[n * M + m];
      if (a_bad[m] != 0 || b_bad[n] != 0 || (c0 >> 32) != 0) {
        bad[n * M + m] = 1;
        continue;
      }
      auto c = static_cast<uint32_t>(c0);
      const uint32_t* ar = &a[m * K];
      const uint32_t* bc = &b[n * K];
      for (size_t k0 = 0; k0 < K; k0 += L) {
        for (size_t i = 0; i < L; ++i) {
          const uint32_t x = ar[k0 + i], y = bc[k0 + i];
          uint32_t s = as_bits(as_float(x) * as_float(y));
          // fmaf(a, b, +0): an exact zero product is +0 (an underflowed one
          // keeps its sign).
          if ((x & kF32Abs) == 0 || (y & kF32Abs) == 0) s = 0;
          prod[i] = flush(ftz, s);
        }
        const uint32_t g = tree(prod.data(), L, ftz);
        // fdpa.cpp pairwise_one: C with a zero exponent field is +0 under
        // ftz, then one RNE f32 add, flushed; a NaN is the canonical NaN.
        if (ftz && (c & kF32Exp) == 0) c = 0;
        const float d = as_float(c) + as_float(g);
        c = std::isnan(d) ? nan : flush(ftz, as_bits(d));
      }
      D[n * M + m] = c;
    }
  }
}

// ---- kTwoStageRd ---------------------------------------------------------

// An operand as fdpa.cpp read() sees it: |v| = sig * 2^(exp - frac), exp
// the format's emin for subnormals; a zero's exponent per the zero rule.
struct Op {
  uint32_t sig;
  int32_t exp;
  uint8_t neg;
};

Op two_stage_operand(const Code& c, bool opmin, bool& bad) {
  Fmt f = c.f;
  uint64_t bits = c.bits;
  if (f == Fmt::kTF32) bits >>= 13;  // fdpa.cpp read(): kTf32LowBits
  const FormatDesc& d = desc(f);
  const Unpacked u = unpack(f, bits);
  bad = u.cls == Class::kNaN || u.cls == Class::kInf;
  Op o{0, d.emin(), static_cast<uint8_t>(u.sign ? 1 : 0)};
  if (u.cls == Class::kNormal || u.cls == Class::kSubnormal) {
    o.sig = static_cast<uint32_t>(u.sig);
    o.exp = u.exp + d.man_bits;
  }
  if (o.sig == 0 && opmin) o.exp = kOperandMinZero;
  return o;
}

// Every code of a format of at most 16 bits as two_stage_operand reads it
// (without and with the operand-min zero rule) and whether it is NaN/Inf,
// made once per format and process by the same unpack, so that decoding an
// operand is a lookup.
// Packed: bits 0..15 sig, 16..27 exp + 2048, 28 neg, 31 bad (a bad code
// is Op{} and its flag); 4 bytes a code, so that a 16-bit format's table
// stays in cache.
struct TwoStageLut {
  std::vector<uint32_t> plain, opmin;
};

constexpr uint32_t kLutBad = 0x80000000u;

uint32_t lut_pack(const Op& o, bool bad) {
  if (bad) return kLutBad;
  if (o.sig > 0xFFFF || o.exp < -2048 || o.exp > 2047)
    throw std::logic_error("gemm_amd: a two-stage operand outside its table");
  return o.sig | (static_cast<uint32_t>(o.exp + 2048) << 16) |
         (static_cast<uint32_t>(o.neg) << 28);
}

Op lut_unpack(uint32_t w) {
  return Op{w & 0xFFFF, static_cast<int32_t>((w >> 16) & 0xFFF) - 2048,
            static_cast<uint8_t>((w >> 28) & 1)};
}

const TwoStageLut* two_stage_lut(Fmt f) {
  return per_format_lut<TwoStageLut>(f, [](Fmt fm, size_t n) {
    TwoStageLut t;
    t.plain.resize(n);
    t.opmin.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Code c{false, fm, i};
      bool b = false;
      const Op o = two_stage_operand(c, false, b);
      t.plain[i] = lut_pack(o, b);
      const Op om = two_stage_operand(c, true, b);
      t.opmin[i] = lut_pack(om, b);
    }
    return t;
  });
}

// A bound on a decoded operand's magnitude: |x| < 2^(bit_width(sig) + exp
// - man) (INT32_MIN / 4 for a zero), so a product |x y| reaches 2^128 only
// if the two bounds' sum is above 128 (gemm_two_stage).
int32_t top_bound(uint32_t sig, int32_t exp, int32_t man) {
  return sig == 0 ? INT32_MIN / 4
                  : static_cast<int32_t>(std::bit_width(sig)) + exp - man;
}

// read_code + two_stage_operand of an f16, bf16 or TF32 code read directly
// (no emulate_as) by its fields (IEEE formats: a normal (1.f) * 2^(e -
// bias) has exp e - bias, a subnormal emin, a zero emin or
// kOperandMinZero; biased exponent all ones is Inf or NaN; TF32's 13 low
// bits dropped; bits above the format: over-wide, bad). For a line of them
// (two_stage_line) this costs less than their tables (two_stage_lut: 256
// KiB per f16 or bf16 table, read at random), which cost more than the
// kernel's chain on a 128x128x1024 problem. The same as two_stage_decode
// for every code (two_stage_line_mismatches, two_stage_tf32_mismatches,
// tested).
// f's fields when it is read directly and is one of the three, else
// width 0.
IeeeTwoStage ieee_two_stage(Fmt f, Fmt emulate_as, bool opmin) {
  IeeeTwoStage t{};
  if (emulate_as != Fmt::kF64 ||
      (f != Fmt::kF16 && f != Fmt::kBF16 && f != Fmt::kTF32))
    return t;
  const FormatDesc& d = desc(f);
  t.shift = f == Fmt::kTF32 ? 13 : 0;
  t.width = 1 + d.exp_bits + d.man_bits;
  t.man = d.man_bits;
  t.emax = (1u << d.exp_bits) - 1;
  t.bias = d.bias;
  t.emin = d.emin();
  t.opmin = opmin;
  t.zero_exp = opmin ? kOperandMinZero : t.emin;
  return t;
}

// One code by t's fields (a bad one is Op{}).
[[gnu::always_inline]] inline Op ieee_operand(const IeeeTwoStage& t,
                                              uint64_t code, bool& bad) {
  const auto x = static_cast<uint32_t>(code >> t.shift);
  const uint32_t mmask = (1u << t.man) - 1;
  const uint32_t e = (x >> t.man) & t.emax, fr = x & mmask;
  bad = (code >> (t.shift + t.width)) != 0 || e == t.emax;
  if (bad) return Op{};
  Op o{e != 0 ? (fr | (mmask + 1)) : fr,
       e != 0 ? static_cast<int32_t>(e) - t.bias : t.emin,
       static_cast<uint8_t>((x >> (t.width - 1)) & 1)};
  if (o.sig == 0 && t.opmin) o.exp = kOperandMinZero;
  return o;
}

// n codes at c[i * stride] by t's fields into sig[i] (the significand <<
// s0), exp[i] and neg[i] (0 or -1), a bad code as Op{}. Returns whether one
// was bad; top becomes at least exp + 1 of every nonzero significand (|x| <
// 2^(exp + 1): the bound gemm_two_stage's overflow test takes; top_bound's
// bit_width(sig) + exp - man, or above it for a subnormal).
// On a SIMD isa (not kScalar, supported), a line of stride 1 runs
// two_stage_line_simd (the same per code) up to its last whole vector.
bool two_stage_line(const IeeeTwoStage& t, const uint64_t* c, size_t stride,
                    size_t n, int32_t s0, int32_t* sig, int32_t* exp,
                    int32_t* neg, int32_t& top, Isa isa) {
  bool any_bad = false;
  int32_t tp = top;
  size_t i = 0;
  if (stride == 1 && isa != Isa::kScalar)
    i = two_stage_line_simd(isa, t, c, n, s0, sig, exp, neg, tp, any_bad);
  for (; i < n; ++i) {
    bool bad = false;
    const Op o = ieee_operand(t, c[i * stride], bad);
    sig[i] = static_cast<int32_t>(o.sig << s0);
    exp[i] = o.exp;
    neg[i] = -static_cast<int32_t>(o.neg);
    if (o.sig != 0) tp = std::max(tp, o.exp + 1);
    any_bad = any_bad || bad;
  }
  top = tp;
  return any_bad;
}

// Whether two_stage_line takes code as bad (for the rows of a line that
// had one).
bool two_stage_bad(const IeeeTwoStage& t, uint64_t code) {
  bool bad = false;
  ieee_operand(t, code, bad);
  return bad;
}

// The decoded operand of code `code` of format f (read_code, then
// two_stage_operand; a bad one is Op{}), through the format's table when
// it has one.
Op two_stage_decode_slow(bool opmin, Fmt f, Fmt emulate_as, uint64_t code,
                         bool& bad) {
  const Code c = read_code(f, emulate_as, code);
  bad = c.bad;
  return c.bad ? Op{} : two_stage_operand(c, opmin, bad);
}

inline Op two_stage_decode(const IeeeTwoStage& ieee, const TwoStageLut* lut,
                           bool opmin, Fmt f, Fmt emulate_as, uint64_t code,
                           bool& bad) {
  if (ieee.width != 0) return ieee_operand(ieee, code, bad);
  if (lut != nullptr) {
    if ((code & ~desc(f).storage_mask()) != 0) {
      bad = true;
      return Op{};
    }
    const uint32_t w = opmin ? lut->opmin[code] : lut->plain[code];
    bad = (w & kLutBad) != 0;
    return lut_unpack(w);
  }
  return two_stage_decode_slow(opmin, f, emulate_as, code, bad);
}

// fdpa.cpp shift_floor in int64: v * 2^sh rounded toward -Inf.
int64_t shift_floor(int64_t v, int32_t sh) {
  if (sh >= 0) return v * (int64_t{1} << sh);
  if (-sh >= 63) return v < 0 ? -1 : 0;
  return v >> -sh;  // arithmetic: floor
}

// +-floor(mag * 2^sh) of a magnitude below 2^48 with mag * 2^sh < 2^63
// (sh < 0: truncation; 0 once past 48 bits). Branch-free: one of the two
// shifts is 0; a right shift clamped to 63 leaves 0.
int64_t aligned(uint64_t mag, int32_t sh, uint8_t neg) {
  const int32_t l = std::min(std::max(sh, 0), 63);
  const int32_t r = std::min(std::max(-sh, 0), 63);
  const auto v = static_cast<int64_t>((mag << l) >> r);
  const int64_t m = -static_cast<int64_t>(neg);  // 0 or all ones
  return (v ^ m) - m;
}

void gemm_two_stage(const MmaModel& mdl, const GemmProblem& p, Isa isa,
                    std::vector<uint64_t>& D, std::vector<uint8_t>& bad) {
  const FdpaParams& f = mdl.fdpa;
  const bool opmin = f.zero_exp == ZeroExp::kOperandMin;
  const bool ieee_zero = f.zero_sign == ZeroSign::kIeee;
  const size_t M = static_cast<size_t>(p.M), N = static_cast<size_t>(p.N);
  const size_t K = static_cast<size_t>(p.K), L = static_cast<size_t>(f.L);
  const size_t split = static_cast<size_t>(f.split);
  const Access lay(p);
  std::vector<uint8_t> a_bad(M, 0), b_bad(N, 0);
  // When no emulate_as conversion comes first: f16, bf16 and TF32 by their
  // fields, the other formats through a table per format.
  const bool direct = mdl.emulate_as == Fmt::kF64;
  const IeeeTwoStage ia = ieee_two_stage(p.a_fmt, mdl.emulate_as, opmin);
  const IeeeTwoStage ib = ieee_two_stage(p.b_fmt, mdl.emulate_as, opmin);
  const TwoStageLut* la =
      direct && ia.width == 0 ? two_stage_lut(p.a_fmt) : nullptr;
  const TwoStageLut* lb =
      direct && ib.width == 0 ? two_stage_lut(p.b_fmt) : nullptr;
  const auto dec_a = [&](size_t m, size_t k, bool& x_bad) {
    return two_stage_decode(ia, la, opmin, p.a_fmt, mdl.emulate_as, lay.a(m, k),
                            x_bad);
  };
  const auto dec_b = [&](size_t k, size_t n, bool& x_bad) {
    return two_stage_decode(ib, lb, opmin, p.b_fmt, mdl.emulate_as, lay.b(k, n),
                            x_bad);
  };
  // The formats the operands are read in (read_code: emulate_as if set).
  const Fmt af = direct ? p.a_fmt : mdl.emulate_as;
  const Fmt bf = direct ? p.b_fmt : mdl.emulate_as;
  const int32_t man_a = desc(af).man_bits, man_b = desc(bf).man_bits;
  // The products' fraction bits (read(): the format's; TF32 10).
  const int32_t frac = man_a + man_b;
  const int32_t F = f.F;
  const int32_t c_zero_exp = opmin ? kOperandMinZero : f.e_zero;
  const uint32_t nan = static_cast<uint32_t>(canonical_nan(Fmt::kF32));
  // Whether some product can reach 2^128: |x| < 2^(bit_width(sig) + exp -
  // man), so |x y| < 2^(top_a + top_b) with top the largest such bound.
  int32_t top_a = INT32_MIN / 4, top_b = INT32_MIN / 4;
  // On a SIMD ISA the rows in whole groups of lanes run the vector kernel
  // (gemm_amd_hwy.cpp: the same steps lane by lane) when every term and
  // L-term sum fits its int32 lanes: A's significand shifted left by
  // s0 = F - frac >= 0 makes a product the term before its right shift,
  // below 2^(F + 2), and L of them below 2^31. A product that may reach
  // 2^128 (its Inf) leaves every row to the loop below. The operands are
  // decoded straight into the kernel's layout (A transposed, in tiles of
  // rows so that reads and writes both stream).
  size_t m_simd = 0;
  bool decoded_all = false;
  const int32_t s0 = F - frac;
  const bool fits =
      s0 >= 0 && F + 2 + static_cast<int32_t>(std::bit_width(L - 1)) <= 31;
  if (isa != Isa::kScalar && isa_supported(isa) && fits) {
    // One Scratch slot per array alive at once (gemm_fast_impl.h).
    Scratch<int32_t, 0> at_sig(K * M);
    Scratch<int32_t, 1> at_exp(K * M);
    Scratch<int32_t, 2> at_neg(K * M);
    Scratch<int32_t, 3> b_sig(N * K);
    Scratch<int32_t, 4> b_exp(N * K);
    Scratch<int32_t, 5> b_neg(N * K);
    constexpr size_t kTile = 16;
    if (ia.width != 0 && !lay.a_kmajor) {
      // A's k-th line holds every row's code: decoded in place.
      for (size_t k = 0; k < K; ++k) {
        const uint64_t* line = p.A.data() + k * M;
        if (two_stage_line(ia, line, 1, M, s0, &at_sig[k * M], &at_exp[k * M],
                           &at_neg[k * M], top_a, isa)) {
          for (size_t m = 0; m < M; ++m)
            if (two_stage_bad(ia, line[m])) a_bad[m] = 1;
        }
      }
    } else if (ia.width != 0) {
      // k-major A: kTile rows x kSpan codes decoded into a tile (12 KiB,
      // rows 256 bytes apart: no two at a multiple of 4 KiB), then
      // transposed into place.
      constexpr size_t kSpan = 64;
      int32_t ts[kTile * kSpan], te[kTile * kSpan], tn[kTile * kSpan];
      for (size_t m0 = 0; m0 < M; m0 += kTile) {
        const size_t m1 = std::min(M, m0 + kTile);
        for (size_t k0 = 0; k0 < K; k0 += kSpan) {
          const size_t k1 = std::min(K, k0 + kSpan);
          for (size_t m = m0; m < m1; ++m) {
            const size_t j = (m - m0) * kSpan;
            if (two_stage_line(ia, p.A.data() + m * K + k0, 1, k1 - k0, s0,
                               &ts[j], &te[j], &tn[j], top_a, isa))
              a_bad[m] = 1;
          }
          for (size_t k = k0; k < k1; ++k) {
            for (size_t m = m0; m < m1; ++m) {
              const size_t j = (m - m0) * kSpan + (k - k0);
              at_sig[k * M + m] = ts[j];
              at_exp[k * M + m] = te[j];
              at_neg[k * M + m] = tn[j];
            }
          }
        }
      }
    } else {
      for (size_t m0 = 0; m0 < M; m0 += kTile) {
        const size_t m1 = std::min(M, m0 + kTile);
        for (size_t k = 0; k < K; ++k) {
          for (size_t m = m0; m < m1; ++m) {
            bool x_bad = false;
            const Op o = dec_a(m, k, x_bad);
            a_bad[m] |= x_bad ? 1 : 0;
            top_a = std::max(top_a, top_bound(o.sig, o.exp, man_a));
            at_sig[k * M + m] = static_cast<int32_t>(o.sig << s0);
            at_exp[k * M + m] = o.exp;
            at_neg[k * M + m] = -static_cast<int32_t>(o.neg);
          }
        }
      }
    }
    for (size_t n = 0; n < N; ++n) {
      if (ib.width != 0) {
        // Column n: contiguous in k-major B, N apart otherwise.
        const uint64_t* col =
            lay.b_kmajor ? p.B.data() + n * K : p.B.data() + n;
        b_bad[n] =
            two_stage_line(ib, col, lay.b_kmajor ? 1 : N, K, 0, &b_sig[n * K],
                           &b_exp[n * K], &b_neg[n * K], top_b, isa)
                ? 1
                : 0;
        continue;
      }
      for (size_t k = 0; k < K; ++k) {
        bool x_bad = false;
        const Op o = dec_b(k, n, x_bad);
        b_bad[n] |= x_bad ? 1 : 0;
        top_b = std::max(top_b, top_bound(o.sig, o.exp, man_b));
        b_sig[n * K + k] = static_cast<int32_t>(o.sig);
        b_exp[n * K + k] = o.exp;
        b_neg[n * K + k] = -static_cast<int32_t>(o.neg);
      }
    }
    decoded_all = true;
    if (top_a + top_b <= 128) {
      Scratch<uint32_t, 3> c(N * M);
      Scratch<uint32_t, 4> out(N * M);
      // Stage 1 from binary32 operands (split 1, kOperandMin, AVX-512):
      // where every nonzero product is at least 2^-126 (the least binades'
      // sum), each is an exact normal binary32 (at most 22 significand
      // bits, below 2^128 by the bound above).
      Scratch<float, 0> at_f(split == 1 && opmin ? K * M : 0);
      Scratch<float, 1> b_f(split == 1 && opmin ? N * K : 0);
      bool floats = false;
      if (split == 1 && opmin) {
        int32_t lo_a = INT32_MAX / 2, lo_b = INT32_MAX / 2;
        floats =
            two_stage_floats(isa, at_sig.data(), at_exp.data(), at_neg.data(),
                             K * M, man_a + s0, at_f.data(), lo_a) &&
            two_stage_floats(isa, b_sig.data(), b_exp.data(), b_neg.data(),
                             N * K, man_b, b_f.data(), lo_b) &&
            int64_t{lo_a} + lo_b >= -126;
      }
      for (size_t i = 0; i < N * M; ++i) c[i] = static_cast<uint32_t>(p.C[i]);
      const TwoStageArgs args{at_sig.data(),
                              at_exp.data(),
                              at_neg.data(),
                              b_sig.data(),
                              b_exp.data(),
                              b_neg.data(),
                              M,
                              N,
                              K,
                              L,
                              split,
                              F,
                              opmin,
                              f.e_zero,
                              c_zero_exp,
                              ieee_zero,
                              nan,
                              c.data(),
                              out.data(),
                              floats ? at_f.data() : nullptr,
                              floats ? b_f.data() : nullptr};
      m_simd = two_stage_simd(isa, args);
      for (size_t n = 0; n < N; ++n) {
        for (size_t m = 0; m < m_simd; ++m) {
          const uint64_t c0 = p.C[n * M + m];
          if (a_bad[m] != 0 || b_bad[n] != 0 || (c0 >> 32) != 0)
            bad[n * M + m] = 1;
          else
            D[n * M + m] = out[n * M + m];
        }
      }
    }
  }
  if (m_simd == M) return;
  // The scalar kernel for rows m_simd.. (a[(m - m_simd) * K + k]) and every
  // column.
  std::vector<Op> a((M - m_simd) * K), b(N * K);
  for (size_t m = m_simd; m < M; ++m) {
    for (size_t k = 0; k < K; ++k) {
      bool x_bad = false;
      const Op o = dec_a(m, k, x_bad);
      a[(m - m_simd) * K + k] = o;
      a_bad[m] |= x_bad ? 1 : 0;
      if (!decoded_all) top_a = std::max(top_a, top_bound(o.sig, o.exp, man_a));
    }
  }
  for (size_t n = 0; n < N; ++n) {
    for (size_t k = 0; k < K; ++k) {
      bool x_bad = false;
      const Op o = dec_b(k, n, x_bad);
      b[n * K + k] = o;
      b_bad[n] |= x_bad ? 1 : 0;
      if (!decoded_all) top_b = std::max(top_b, top_bound(o.sig, o.exp, man_b));
    }
  }
  // Over every operand (those of rows done above included).
  const bool may_overflow = top_a + top_b > 128;
  uint64_t mag[128];
  int32_t exp[128];
  uint8_t neg[128];
  for (size_t n = 0; n < N; ++n) {
    for (size_t m = m_simd; m < M; ++m) {
      const uint64_t c0 = p.C[n * M + m];
      if (a_bad[m] != 0 || b_bad[n] != 0 || (c0 >> 32) != 0) {
        bad[n * M + m] = 1;
        continue;
      }
      auto c = static_cast<uint32_t>(c0);
      const Op* ar = &a[(m - m_simd) * K];
      const Op* bc = &b[n * K];
      for (size_t k0 = 0; k0 < K; k0 += L) {
        // The addend (f32): specials first (fdpa.cpp SpecialScan: the
        // operands are finite here), a NaN canonical, an Inf kept.
        const uint32_t ce = (c >> 23) & 0xFF;
        if (ce == 0xFF) {
          if ((c & 0x7FFFFF) != 0) c = nan;
          continue;
        }
        const bool c_neg = (c & kF32Sign) != 0;
        const int64_t c_sig =
            ce != 0 ? ((c & 0x7FFFFF) | 0x800000) : (c & 0x7FFFFF);
        const int32_t c_exp = ce != 0 ? static_cast<int32_t>(ce) - 127 : -126;
        bool all_neg_zero = c_sig == 0 && c_neg;
        bool pos_inf = false, neg_inf = false;
        for (size_t i = 0; i < L; ++i) {
          const Op& x = ar[k0 + i];
          const Op& y = bc[k0 + i];
          mag[i] = uint64_t{x.sig} * y.sig;
          exp[i] = x.exp + y.exp;
          neg[i] = x.neg ^ y.neg;
          if (mag[i] == 0) {
            all_neg_zero = all_neg_zero && neg[i] != 0;
            if (!opmin) exp[i] = f.e_zero;
          } else {
            all_neg_zero = false;
            // A finite product >= 2^128 is that Inf (MMA-Sim).
            const int32_t top =
                static_cast<int32_t>(std::bit_width(mag[i])) - 1;
            if (may_overflow && top + exp[i] - frac >= 128)
              (neg[i] != 0 ? neg_inf : pos_inf) = true;
          }
        }
        if (pos_inf || neg_inf) {
          c = pos_inf && neg_inf ? nan : pos_inf ? 0x7F800000u : 0xFF800000u;
          continue;
        }
        // Stage 1: each interleaved set truncated to F bits below its own
        // e_max, summed; the sets floored onto their joint e_max.
        int32_t e_set[128];
        int64_t s_set[128];
        int32_t e = INT32_MIN;
        for (size_t j = 0; j < split; ++j) {
          int32_t em = INT32_MIN;
          for (size_t i = j; i < L; i += split) em = std::max(em, exp[i]);
          int64_t s = 0;
          for (size_t i = j; i < L; i += split)
            s += aligned(mag[i], (exp[i] - em) + F - frac, neg[i]);
          e_set[j] = em;
          s_set[j] = s;
          e = std::max(e, em);
        }
        int64_t S = 0;
        for (size_t j = 0; j < split; ++j)
          S += shift_floor(s_set[j], e_set[j] - e);
        // Stage 2: on M = max(e, e_C), the sum floored to 31 bits, C to F.
        const int32_t ec = c_sig != 0 ? c_exp : c_zero_exp;
        const int32_t Mx = std::max(e, ec);
        const int64_t P = shift_floor(S, (e - F) - (Mx - kTwoStageSumBits));
        int64_t Cv = 0;
        if (c_sig != 0 && !(split > 1 && ec < Mx - (F + 1)))
          Cv = shift_floor(c_neg ? -c_sig : c_sig, (c_exp - 23) - (Mx - F));
        const int64_t V = P + Cv * (int64_t{1} << (kTwoStageSumBits - F));
        if (V == 0) {
          c = all_neg_zero && ieee_zero ? kF32Sign : 0;
          continue;
        }
        const bool vneg = V < 0;
        c = static_cast<uint32_t>(
            detail::finish_sum(f.rho, vneg, Mx - kTwoStageSumBits,
                               static_cast<uint64_t>(vneg ? -V : V)));
        if (!ieee_zero && (c & kF32Abs) == 0) c = 0;
      }
      D[n * M + m] = c;
    }
  }
}

}  // namespace

size_t two_stage_line_mismatches(Isa isa) {
  size_t bad_count = 0;
  for (const Fmt f : {Fmt::kF16, Fmt::kBF16, Fmt::kTF32}) {
    // Every code (TF32: every f32 pattern's top 19 bits, the 13 low bits 0
    // or set), and each with a bit above the format: one line, so that the
    // vectorized loop sees bad codes among good ones.
    std::vector<uint64_t> codes;
    const int shift = f == Fmt::kTF32 ? 13 : 0;
    const uint64_t n = uint64_t{1} << desc(f).bits;
    for (uint64_t x = 0; x < n; ++x) {
      codes.push_back(x << shift);
      if (shift != 0) codes.push_back((x << shift) | 0x1FFF);
      codes.push_back((x << shift) | (uint64_t{1} << (desc(f).bits + shift)));
    }
    for (const bool opmin : {false, true}) {
      const IeeeTwoStage t = ieee_two_stage(f, Fmt::kF64, opmin);
      const size_t m = codes.size();
      std::vector<int32_t> sig(m), exp(m), neg(m);
      int32_t top = INT32_MIN / 4;
      const bool any_bad = two_stage_line(t, codes.data(), 1, m, 0, sig.data(),
                                          exp.data(), neg.data(), top, isa);
      bool ref_any = false;
      int32_t ref_top = INT32_MIN / 4;
      for (size_t i = 0; i < m; ++i) {
        bool b = false;
        const Op r = two_stage_decode_slow(opmin, f, Fmt::kF64, codes[i], b);
        const Op o = b ? Op{} : r;
        ref_any = ref_any || b;
        if (!b)
          ref_top =
              std::max(ref_top, top_bound(o.sig, o.exp, desc(f).man_bits));
        if (b != two_stage_bad(t, codes[i]) ||
            sig[i] != static_cast<int32_t>(o.sig) || exp[i] != o.exp ||
            neg[i] != -static_cast<int32_t>(o.neg))
          ++bad_count;
      }
      // The bound: a line's is top_bound's (above it only for a line of
      // subnormals, whose bit_width(sig) is at most man).
      if (any_bad != ref_any || top != ref_top) ++bad_count;
    }
  }
  return bad_count;
}

size_t two_stage_tf32_mismatches() {
  size_t bad_count = 0;
  for (int opmin = 0; opmin < 2; ++opmin) {
    for (uint64_t x = 0; x < (uint64_t{1} << 19); ++x) {
      for (const uint64_t code :
           {x << 13, (x << 13) | 0x1FFF, (x << 13) | (uint64_t{1} << 32)}) {
        bool b_fast = false, b_ref = false;
        const Op o = ieee_operand(
            ieee_two_stage(Fmt::kTF32, Fmt::kF64, opmin != 0), code, b_fast);
        const Code c = read_code(Fmt::kTF32, Fmt::kF64, code);
        b_ref = c.bad;
        Op r{};
        if (!c.bad) r = two_stage_operand(c, opmin != 0, b_ref);
        if (b_ref) r = Op{};
        if (b_fast != b_ref || o.sig != r.sig || o.exp != r.exp ||
            o.neg != r.neg)
          ++bad_count;
      }
    }
  }
  return bad_count;
}

bool amd_covers(const MmaModel& m, const GemmProblem& p) {
  const FdpaParams& f = m.fdpa;
  // fdpa.cpp check_chain: unscaled products, f32 C/D, one chain.
  if (p.split_k != 1 || m.c_fmt != Fmt::kF32 || f.rho != AccRound::kRneF32 ||
      m.scales != ScaleKind::kNone || f.G != 0 || f.k_block != 0 ||
      f.k_period != 0 || f.c_outside)
    return false;
  if (f.L <= 0 || f.L > 128 || f.split < 1 || f.L % f.split != 0) return false;
  if (p.M <= 0 || p.N <= 0 || p.K <= 0 || p.K % f.L != 0) return false;
  const Fmt af = m.emulate_as == Fmt::kF64 ? p.a_fmt : m.emulate_as;
  const Fmt bf = m.emulate_as == Fmt::kF64 ? p.b_fmt : m.emulate_as;
  const FormatDesc& da = desc(af);
  const FormatDesc& db = desc(bf);
  if (da.exp_bits == 0 || db.exp_bits == 0) return false;
  if (f.datapath == Datapath::kF32Pairwise) {
    // Every operand exactly an f32 (TF32 codes are f32 patterns).
    if (f.split != 1) return false;
    const auto in_f32 = [](Fmt x, const FormatDesc& d) {
      return x == Fmt::kTF32 || (d.man_bits <= 23 && d.emax() <= 127 &&
                                 d.emin() - d.man_bits >= -149);
    };
    return in_f32(af, da) && in_f32(bf, db);
  }
  if (f.datapath == Datapath::kTwoStageRd) {
    // Significands in uint32, products in uint64; every aligned term below
    // 2^(F + 2), L of them and the 31-bit stage in int64.
    return !f.ftz && f.F >= 0 && f.F <= kTwoStageSumBits && da.man_bits <= 23 &&
           db.man_bits <= 23;
  }
  return false;
}

void gemm_amd(const MmaModel& m, const GemmProblem& p, Isa isa,
              std::vector<uint64_t>& D, std::vector<uint8_t>& bad) {
  if (m.fdpa.datapath == Datapath::kF32Pairwise) {
    gemm_pairwise(m, p, isa, D, bad);
  } else {
    gemm_two_stage(m, p, isa, D, bad);
  }
}

}  // namespace mxc::fast::gemm_detail
