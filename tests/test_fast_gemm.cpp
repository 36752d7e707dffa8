// The batched GEMM path (emu/fast/gemm_fast.h) against the reference
// composition: per output element, fdpa_chain_reference (the 128-bit
// fixed-point chain that test_mma_oracle.cpp checks against the
// arbitrary-precision oracle) over row m of op(A) and column n of op(B).
// Every model of the table (issue 22: all must be covered, and no element
// of a finite problem may take the reference) x its A/B format pairs x both
// zero-exponent and both zero-sign rules, every ISA this machine has, all
// four layouts, random shapes (N across the 16-column blocks, K of one to
// several instructions), scales over their whole range, injected NaN/Inf
// codes and over-wide codes, cancellation, all-zero rows of random signs,
// sums of negative zeros only, tiny and huge operands (overflow mid-chain),
// a dominant C; then parameter sets beyond the table (F, rho, e_zero,
// emulate_as, binary32 operands).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "conformance/splitmix64.h"
#include "emu/convert.h"
#include "emu/fast/fdpa_fast.h"
#include "emu/fast/gemm_fast.h"
#include "emu/fast/gemm_fast_impl.h"
#include "emu/mma/gemm.h"
#include "test_isas.h"
#include "test_level.h"

using namespace mxc;

namespace {

size_t below(SplitMix64& g, size_t n) { return g.next() % n; }

// A code of `f` in one of several styles (0 random, 1 tiny, 2 huge, 3 unit
// range, 4 special-heavy).
uint64_t element(SplitMix64& g, Fmt f, int style) {
  const FormatDesc& d = desc(f);
  const uint64_t r = g.next();
  const uint64_t man = (uint64_t{1} << d.man_bits) - 1;
  const uint64_t sign = (r >> 40) & 1 ? d.sign_mask() : 0;
  uint64_t v;
  switch (style) {
    case 1:  // subnormals and zeros
      v = ((r >> 8) & man) | sign;
      break;
    case 2:  // the top finite binade
      v = (d.storage_mask() & ~d.sign_mask() & ~((r >> 8) & man)) | sign;
      break;
    case 3: {  // exponents near the bias
      const uint64_t e = static_cast<uint64_t>(d.bias) + (r >> 20) % 3 - 1;
      v = (e << d.man_bits) | ((r >> 8) & man) | sign;
      break;
    }
    default:
      v = (r >> 8) & d.storage_mask();
      if ((r & 15) == 0) v = sign;  // zeros of both signs
      break;
  }
  // NaN/Inf codes only in style 4 (cleared to the binade below otherwise),
  // with an occasional code wider than the format.
  const bool special_code =
      (d.specials == Specials::kIeee && ((v & ~d.sign_mask()) >> d.man_bits) ==
                                            (uint64_t{1} << d.exp_bits) - 1) ||
      (d.specials == Specials::kNanAllOnes &&
       (v & ~d.sign_mask()) == (d.storage_mask() & ~d.sign_mask()));
  if (special_code && style != 4) v &= ~(uint64_t{1} << d.man_bits);
  // FNUZ: the -0 code is the NaN (format.h); not outside style 4.
  if (d.specials == Specials::kFnuz && v == d.sign_mask() && style != 4) v = 0;
  if (style == 4 && (r >> 56) % 64 == 0) v |= uint64_t{1} << d.bits;  // wide
  return v;
}

// The sign bit of an operand format's codes (TF32: the f32 pattern's).
uint64_t operand_sign_mask(Fmt f) {
  return f == Fmt::kTF32 ? 0x80000000u : desc(f).sign_mask();
}

// The negative-zero code of an operand format (TF32: the f32 pattern);
// FNUZ has none (its -0 code is the NaN): +0.
uint64_t neg_zero_code(Fmt f) {
  if (f == Fmt::kTF32) return 0x80000000u;
  return desc(f).specials == Specials::kFnuz ? 0 : desc(f).sign_mask();
}

// x with its sign flipped (FNUZ: a zero stays +0, not the NaN code).
uint64_t negated(Fmt f, uint64_t x) {
  const uint64_t s = operand_sign_mask(f);
  if (desc(f).specials == Specials::kFnuz && (x & ~s) == 0) return 0;
  return x ^ s;
}

// An A/B operand code as models take it (TF32: the f32 pattern, low 13 bits
// zero; its over-wide codes have bit 32 set).
uint64_t operand(SplitMix64& g, Fmt f, int style) {
  const uint64_t v = element(g, f, style);
  return f == Fmt::kTF32 ? v << 13 : v;
}

uint64_t scale_code(SplitMix64& g, Fmt f, bool specials) {
  const uint64_t r = g.next();
  if (f == Fmt::kE8M0) {
    if (specials && (r & 63) == 0) return 0xFF;
    if ((r & 15) == 1) return (r >> 8) % 255;  // the whole range
    return 127 - 12 + (r >> 8) % 25;
  }
  if (specials && (r & 63) == 0) return 0x7F | ((r >> 9) & 0x80);
  if ((r & 31) == 1) return 0x00;
  return ((r >> 8) % 0x7F) | ((r >> 20) & 0x80);  // sign bit ignored
}

uint64_t c_value(SplitMix64& g, Fmt c, bool specials) {
  const uint64_t r = g.next();
  const bool f16 = c == Fmt::kF16;
  const uint64_t any = (r >> 8) & (f16 ? 0xFFFF : 0xFFFFFFFFu);
  const uint64_t inf = f16 ? 0x7C00 : 0x7F800000u;
  switch (r & 7) {
    case 0:
      return 0;
    case 1:
      return f16 ? 0x8000 : 0x80000000u;
    case 2:
      if (!specials && (any & inf) == inf) return any & ~inf;
      return any;
    case 3:
      return any & (f16 ? 0x83FF : 0x807FFFFFu);  // subnormal
    case 4:                                       // dominant
      return f16 ? (0x7800 | (r & 0x83FF)) : (0x5F000000u | (r & 0x807FFFFFu));
    default: {
      if (f16) return any & ~inf;
      const uint32_t e = static_cast<uint32_t>(100 + (r >> 40) % 50);
      return ((r >> 8) & 0x807FFFFFu) | (e << 23);
    }
  }
}

// Logical operands a[m][k], b[n][k], stored per layout into p.
// `finite`, when given, says whether the problem has no NaN/Inf or
// over-wide code anywhere (operands, scales, C).
GemmProblem make_problem(const MmaModel& mdl, Fmt af, Fmt bf, int M, int N,
                         int K, GemmLayout lay, SplitMix64& g,
                         bool* finite = nullptr) {
  GemmProblem p;
  p.M = M;
  p.N = N;
  p.K = K;
  p.layout = lay;
  p.a_fmt = af;
  p.b_fmt = bf;
  const uint64_t r = g.next();
  const bool specials = r % 6 == 0;
  if (finite != nullptr) *finite = !specials;
  const int style = specials ? 4 : static_cast<int>((r >> 8) % 4);
  std::vector<uint64_t> a(size_t(M) * K), b(size_t(N) * K);
  for (auto& v : a) v = operand(g, af, style);
  for (auto& v : b) v = operand(g, bf, style);
  if ((r >> 16) % 4 == 1) {  // cancellation pairs in k
    for (int n = 0; n < N; ++n) {
      for (int k = 1; k < K; k += 2) {
        b[size_t(n) * K + k] = negated(bf, b[size_t(n) * K + k - 1]);
      }
    }
    for (int m = 0; m < M; ++m)
      for (int k = 1; k < K; k += 2)
        a[size_t(m) * K + k] = a[size_t(m) * K + k - 1];
  }
  if ((r >> 20) % 4 == 1) {  // zero rows of A, random signs
    for (int m = 0; m < M; m += 2)
      for (int k = 0; k < K; ++k)
        a[size_t(m) * K + k] = (g.next() & 1) ? neg_zero_code(af) : 0;
  }
  // Sums of negative zeros only (ZeroSign::kIeee gives -0): rows of A all
  // -0, B without sign bits, C all -0 (below).
  const bool neg_zero_sums = (r >> 32) % 4 == 1;
  const uint64_t b_sign = operand_sign_mask(bf);
  if (neg_zero_sums) {
    for (int m = 1; m < M; m += 2)
      for (int k = 0; k < K; ++k) a[size_t(m) * K + k] = neg_zero_code(af);
    for (auto& v : b) v &= ~b_sign;
  }
  const bool a_kmajor = lay == GemmLayout::kTN || lay == GemmLayout::kTT;
  const bool b_kmajor = lay == GemmLayout::kTN || lay == GemmLayout::kNN;
  p.A.resize(a.size());
  p.B.resize(b.size());
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k)
      p.A[a_kmajor ? size_t(m) * K + k : size_t(k) * M + m] =
          a[size_t(m) * K + k];
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      p.B[b_kmajor ? size_t(n) * K + k : size_t(k) * N + n] =
          b[size_t(n) * K + k];
  p.C.resize(size_t(M) * N);
  const bool zero_c = (r >> 24) % 4 == 1;
  for (auto& v : p.C) {
    v = c_value(g, mdl.c_fmt, specials);
    if (zero_c)
      v = (g.next() & 1) ? (mdl.c_fmt == Fmt::kF16 ? 0x8000 : 0x80000000u) : 0;
    if (neg_zero_sums) v = mdl.c_fmt == Fmt::kF16 ? 0x8000 : 0x80000000u;
  }
  const int blk = scale_block(mdl.scales);
  if (blk > 0) {
    const Fmt sf = scale_format(mdl.scales);
    p.SA.resize(size_t(M) * (K / blk));
    p.SB.resize(size_t(N) * (K / blk));
    for (auto& v : p.SA) v = scale_code(g, sf, specials);
    for (auto& v : p.SB) v = scale_code(g, sf, specials);
    if (specials && (r >> 28) % 4 == 0) p.SB[below(g, p.SB.size())] |= 0x100;
  }
  return p;
}

// The reference composition: fdpa_chain_reference per output element.
std::vector<uint64_t> reference_gemm(const MmaModel& mdl,
                                     const GemmProblem& p) {
  const size_t M = p.M, N = p.N, K = p.K;
  const bool a_kmajor =
      p.layout == GemmLayout::kTN || p.layout == GemmLayout::kTT;
  const bool b_kmajor =
      p.layout == GemmLayout::kTN || p.layout == GemmLayout::kNN;
  const int blk = scale_block(mdl.scales);
  const size_t nkb = blk > 0 ? K / blk : 0;
  std::vector<uint64_t> D(M * N), a(K), b(K);
  for (size_t n = 0; n < N; ++n) {
    for (size_t k = 0; k < K; ++k)
      b[k] = b_kmajor ? p.B[n * K + k] : p.B[k * N + n];
    for (size_t m = 0; m < M; ++m) {
      for (size_t k = 0; k < K; ++k)
        a[k] = a_kmajor ? p.A[m * K + k] : p.A[k * M + m];
      FdpaOperands o;
      o.a_fmt = p.a_fmt;
      o.b_fmt = p.b_fmt;
      o.c_fmt = mdl.c_fmt;
      o.a = a;
      o.b = b;
      // emulate_as: every operand converted exactly first (models.h).
      std::vector<uint64_t> ea, eb;
      if (mdl.emulate_as != Fmt::kF64) {
        for (size_t k = 0; k < K; ++k) {
          ea.push_back(convert(p.a_fmt, mdl.emulate_as, a[k]));
          eb.push_back(convert(p.b_fmt, mdl.emulate_as, b[k]));
        }
        o.a_fmt = o.b_fmt = mdl.emulate_as;
        o.a = ea;
        o.b = eb;
      }
      o.c = p.C[n * M + m];
      if (blk > 0) {
        o.has_scales = true;
        o.scale_fmt = scale_format(mdl.scales);
        o.scale_block = blk;
        o.sa = std::span<const uint64_t>(p.SA).subspan(m * nkb, nkb);
        o.sb = std::span<const uint64_t>(p.SB).subspan(n * nkb, nkb);
      }
      D[n * M + m] = fdpa_chain_reference(mdl.fdpa, o);
    }
  }
  return D;
}

// Each odd k's product the negation of the even k's before it (k-major A
// and B, layout kTN): A's code repeated, B's negated.
void pair_negations(GemmProblem& p) {
  const size_t K = static_cast<size_t>(p.K);
  for (size_t n = 0; n < static_cast<size_t>(p.N); ++n)
    for (size_t k = 1; k < K; k += 2)
      p.B[n * K + k] = negated(p.b_fmt, p.B[n * K + k - 1]);
  for (size_t m = 0; m < static_cast<size_t>(p.M); ++m)
    for (size_t k = 1; k < K; k += 2) p.A[m * K + k] = p.A[m * K + k - 1];
}

// A 32 x 3 problem of `chunks` chunks of the model's L: operands of format
// f all +0 (the tests set a few), C = c everywhere.
GemmProblem zero_problem(const MmaModel& mdl, Fmt f, int chunks, uint64_t c) {
  GemmProblem p;
  p.M = 32;
  p.N = 3;
  p.K = chunks * mdl.fdpa.L;
  p.a_fmt = p.b_fmt = f;
  p.A.assign(size_t(p.M) * p.K, 0);
  p.B.assign(size_t(p.N) * p.K, 0);
  p.C.assign(size_t(p.M) * p.N, c);
  return p;
}

// The fast path on every ISA against the reference; the reference's D.
std::vector<uint64_t> check_every_isa(const MmaModel& mdl,
                                      const GemmProblem& p) {
  const std::vector<uint64_t> ref = reference_gemm(mdl, p);
  for (fast::Isa isa : test::isas()) {
    INFO(fast::isa_name(isa));
    CHECK(fast::gemm_fast(mdl, p, isa) == ref);
  }
  return ref;
}

// fn(mdl, af, bf, what) for every zero-rule variant mdl of model (both
// zero-exponent and both zero-sign rules) and every A/B format pair it
// takes; `what` names the set for INFO.
template <typename Fn>
void for_each_variant(const MmaModel& model, Fn&& fn) {
  for (ZeroExp ze : {ZeroExp::kFixed, ZeroExp::kOperandMin}) {
    for (ZeroSign zs : {ZeroSign::kIeee, ZeroSign::kPositive}) {
      const MmaModel mdl = with_zero_rules(model, ze, zs);
      for (Fmt af : mdl.ab_formats) {
        for (Fmt bf : mdl.ab_formats) {
          fn(mdl, af, bf,
             fmt::format("{} {}x{} {}/{}", mdl.name, desc(af).name,
                         desc(bf).name, zero_exp_name(ze), zero_sign_name(zs)));
        }
      }
    }
  }
}

size_t problems_per_pair() {
  const int lv = test::level();
  return lv <= 0 ? 2 : lv == 1 ? 12 : 400;
}

}  // namespace

// Issue 22 (no silent fallback): every model of the table, each A/B
// format pair it takes, under both zero-exponent and both zero-sign rules,
// is covered by the fast GEMM, takes no element to the reference when the
// problem is finite (overflow to Inf mid-chain included), and equals the
// reference composition bit for bit on every ISA. A model or FdpaParams
// field added without its fast step fails here.
TEST_CASE("fast GEMM equals the reference composition on every model",
          "[fast][mma][gemm]") {
  SplitMix64 g(0x6E33);
  // Every ISA this build and CPU run: the scalar kernel and each SIMD
  // target of the one Highway source.
  const std::vector<fast::Isa>& isas = test::isas();
  const GemmLayout lays[] = {GemmLayout::kTN, GemmLayout::kNN, GemmLayout::kNT,
                             GemmLayout::kTT};
  const int max_chunks = test::level() <= 0 ? 3 : 5;
  size_t all_elems = 0, all_slow = 0, finite_slow = 0, pairs = 0;
  for (const MmaModel& model : mma_models()) {
    // K a multiple of the instruction's k (and so of L).
    const int unit = std::max(model.fdpa.L, model.fdpa.k_block);
    for_each_variant(model, [&](const MmaModel& mdl, Fmt af, Fmt bf,
                                const std::string& what) {
      INFO(what);
      ++pairs;
      size_t fails = 0, elems = 0, slow = 0, finite_seen = 0;
      // At least one finite problem per set (one in six has
      // specials: at level 0, two problems are both special in 1 of
      // 36 sets, and then every element rightly takes mma_dot).
      for (size_t i = 0; i < problems_per_pair() ||
                         (finite_seen == 0 && i < problems_per_pair() + 32);
           ++i) {
        const int M = 1 + static_cast<int>(below(g, 20));
        const int N = 1 + static_cast<int>(below(g, 40));
        const int K = unit * (1 + static_cast<int>(below(g, max_chunks)));
        bool finite = false;
        const GemmProblem p =
            make_problem(mdl, af, bf, M, N, K, lays[below(g, 4)], g, &finite);
        finite_seen += finite;
        REQUIRE(fast::gemm_covers(mdl, p));
        const std::vector<uint64_t> ref = reference_gemm(mdl, p);
        elems += ref.size();
        for (fast::Isa isa : isas) {
          size_t fb = 0;
          const std::vector<uint64_t> got = fast::gemm_fast(mdl, p, isa, &fb);
          if (isa == fast::Isa::kScalar) slow += fb;
          if (finite && fb != 0 && ++finite_slow <= 5)
            UNSCOPED_INFO(fmt::format(
                "{} isa {}: {} elements of a finite problem through "
                "mma_dot",
                what, fast::isa_name(isa), fb));
          for (size_t e = 0; e < ref.size(); ++e) {
            if (got[e] != ref[e] && ++fails <= 5) {
              UNSCOPED_INFO(fmt::format(
                  "{} isa {} M{} N{} K{} {}: elem (m {}, n {}) fast "
                  "{:#x} ref {:#x} c {:#x}",
                  what, fast::isa_name(isa), M, N, K, layout_name(p.layout),
                  e % M, e / M, got[e], ref[e], p.C[e]));
            }
          }
        }
        // The hook in gemm() takes the same path.
        if (gemm(mdl, p) != ref && ++fails <= 5)
          UNSCOPED_INFO("gemm() differs");
      }
      CHECK(fails == 0);
      CHECK(elems > 0);
      CHECK(finite_seen > 0);
      CHECK(slow < elems);
      all_elems += elems;
      all_slow += slow;
    });
  }
  INFO(fmt::format("{} of {} elements through mma_dot", all_slow, all_elems));
  CHECK(finite_slow == 0);
  CHECK(all_slow * 4 < all_elems);
  std::printf("fast GEMM: %zu model x format x zero-rule sets, checked on %s\n",
              pairs, test::isa_list().c_str());
}

// The CDNA1/2 f32 pairwise datapath where its flush to zero acts on the
// products and partial sums (not only the inputs): bf16 operands near
// 2^-63, so products and their sums fall around 2^-126 (the random
// problems above rarely get there with every product tiny). The CDNA2 model
// must differ from the same datapath without ftz on some elements, else the
// case does not test the flush.
TEST_CASE("fast GEMM: the f32 pairwise flush of tiny products and sums",
          "[fast][mma][gemm]") {
  SplitMix64 g(0x6E35);
  for (const char* name : {"cdna2_mfma_bf16_f32", "cdna2_mfma_bf16_f32_legacy",
                           "cdna1_mfma_bf16_f32"}) {
    INFO(name);
    const MmaModel& mdl = *find_mma_model(name);
    MmaModel other = mdl;
    other.fdpa.ftz = !mdl.fdpa.ftz;
    GemmProblem p;
    p.M = 9;
    p.N = 21;
    p.K = 4 * mdl.fdpa.L;
    p.a_fmt = p.b_fmt = Fmt::kBF16;
    // bf16 exponent fields 57..71 (2^-70 .. 2^-56), either sign.
    const auto tiny = [&] {
      const uint64_t r = g.next();
      return ((r & 1) << 15) | ((57 + (r >> 8) % 15) << 7) | ((r >> 20) & 0x7F);
    };
    p.A.resize(size_t(p.M) * p.K);
    p.B.resize(size_t(p.N) * p.K);
    for (auto& v : p.A) v = tiny();
    for (auto& v : p.B) v = tiny();
    p.C.resize(size_t(p.M) * p.N);
    for (auto& v : p.C) {
      const uint64_t r = g.next();
      v = r % 3 == 0 ? 0 : ((r >> 8) & 0x807FFFFFu);  // f32 subnormal or 0
    }
    REQUIRE(fast::gemm_covers(mdl, p));
    const std::vector<uint64_t> ref = reference_gemm(mdl, p);
    const std::vector<uint64_t> ref_other = reference_gemm(other, p);
    CHECK(ref != ref_other);
    for (fast::Isa isa : test::isas()) {
      INFO(fast::isa_name(isa));
      size_t fb = 1;
      CHECK(fast::gemm_fast(mdl, p, isa, &fb) == ref);
      CHECK(fb == 0);
      CHECK(fast::gemm_fast(other, p, isa) == ref_other);
    }
  }
}

// gemm_amd.cpp runs the CDNA2 chain without its flushes when no flush can
// act after C's: every bf16 product a multiple of 2^-126, which needs the
// smallest exponent fields of A and B to sum to 142 or more. At 141 a
// product pair 2^-113 (1 + 2^-7)^2 - 2^-113 (1 + 2^-6) sums to 2^-127,
// which ftz flushes (the pair's tree sum); with A doubled (fields summing
// to 142) it sums to 2^-126, the smallest normal, and nothing flushes. Both
// against the reference, so a test one field lower in gemm_amd.cpp fails here.
TEST_CASE("fast GEMM: the f32 pairwise chain where no flush can act",
          "[fast][mma][gemm]") {
  // bf16 codes: sign, exponent field (bias 127), 7 fraction bits.
  const auto bf = [](int neg, int e, int frac) -> uint64_t {
    return (uint64_t(neg) << 15) | (uint64_t(e) << 7) | uint64_t(frac);
  };
  // 32 x 3 zeros, K = 4 L, C = c everywhere (zero_problem); D[0] of the
  // reference, which every ISA must match (check_every_isa).
  const auto problem = [](const MmaModel& mdl, uint64_t c) {
    return zero_problem(mdl, Fmt::kBF16, 4, c);
  };
  const auto check = [](const MmaModel& mdl, const GemmProblem& p) {
    return check_every_isa(mdl, p)[0];
  };
  for (const char* name :
       {"cdna2_mfma_bf16_f32", "cdna2_mfma_bf16_f32_legacy"}) {
    INFO(name);
    const MmaModel& mdl = *find_mma_model(name);
    for (const int up : {0, 1}) {
      INFO("exponent fields raised by " << up);
      GemmProblem p = problem(mdl, 0);
      for (int m = 0; m < p.M; ++m) {
        p.A[size_t(m) * p.K + 0] = bf(0, 71 + up, 1);  // 2^-56 (1 + 2^-7)
        p.A[size_t(m) * p.K + 1] = bf(1, 71 + up, 2);  // -2^-56 (1 + 2^-6)
      }
      for (int n = 0; n < p.N; ++n) {
        p.B[size_t(n) * p.K + 0] = bf(0, 70, 1);  // 2^-57 (1 + 2^-7)
        p.B[size_t(n) * p.K + 1] = bf(0, 70, 0);  // 2^-57
      }
      // The pair's sum: flushed to +0 at 141, 2^-126 at 142.
      CHECK(check(mdl, p) == (up == 0 ? 0u : 0x00800000u));
    }
    // C must be a multiple of 2^-126 too (exponent field 24 or more):
    // C = 2^(e - 127) (1 + 2^-23) plus the one product -2^(e - 127) is
    // 2^(e - 150), flushed at e = 23, 2^-126 at e = 24 (operand fields
    // 75 and 75 or 76: far above the products' bound).
    for (const int e : {23, 24}) {
      INFO("C's exponent field " << e);
      GemmProblem p = problem(mdl, (uint64_t(e) << 23) | 1);
      for (int m = 0; m < p.M; ++m) p.A[size_t(m) * p.K] = bf(1, 75, 0);
      for (int n = 0; n < p.N; ++n) p.B[size_t(n) * p.K] = bf(0, 52 + e, 0);
      CHECK(check(mdl, p) == (e == 23 ? 0u : 0x00800000u));
    }
  }
}

TEST_CASE("fast GEMM: f16 chain results at binary16's zero",
          "[fast][mma][gemm]") {
  // One product per row and column, in the first or the last k, zeros
  // elsewhere: the chunk's result is x = -2^-14 * b (the operands' f16 codes),
  // C = +0 or -0. Around 2^-25, binary16's RNE gives -0 (x below 2^-25 and the
  // tie 2^-25 itself) or -2^-24, and ZeroSign::kPositive then +0: the SIMD
  // chain keeps such a -0 (its sign changes no later chunk) and the store
  // of D makes it +0.
  struct Case {
    uint16_t b;  // f16 code
    uint16_t d;  // the expected D under ZeroSign::kPositive
  };
  const Case cases[] = {
      {0x0C00, 0x0000},  // 2^-12: x = -2^-26 -> -0 -> +0
      {0x0C01, 0x0000},  // -2^-26 (1 + 2^-10)
      {0x1000, 0x0000},  // 2^-11: x = -2^-25, the tie to even -0 -> +0
      {0x1001, 0x8001},  // -2^-25 (1 + 2^-10) -> -2^-24
      {0x1400, 0x8001},  // 2^-10: x = -2^-24
      {0x0800, 0x0000},  // 2^-13: x = -2^-27
  };
  size_t models = 0;
  for (const MmaModel& mdl : mma_models()) {
    if (mdl.c_fmt != Fmt::kF16 ||
        std::find(mdl.ab_formats.begin(), mdl.ab_formats.end(), Fmt::kF16) ==
            mdl.ab_formats.end())
      continue;
    INFO(mdl.name);
    ++models;
    for (const Case& cs : cases) {
      for (const uint64_t c : {uint64_t{0}, uint64_t{0x8000}}) {
        for (const int last : {0, 1}) {
          INFO(fmt::format("b {:#06x} C {:#06x} k {}", cs.b, c,
                           last ? "last" : "first"));
          GemmProblem p = zero_problem(mdl, Fmt::kF16, 2, c);
          const size_t k = last ? size_t(p.K) - 1 : 0;
          for (int m = 0; m < p.M; ++m)
            p.A[size_t(m) * p.K + k] = 0x8400;  // -2^-14
          for (int n = 0; n < p.N; ++n) p.B[size_t(n) * p.K + k] = cs.b;
          const uint64_t d0 = check_every_isa(mdl, p)[0];
          if (mdl.fdpa.zero_sign == ZeroSign::kPositive) CHECK(d0 == cs.d);
        }
      }
    }
  }
  CHECK(models >= 6);
}

TEST_CASE("fast GEMM: over-wide f16, bf16 and tf32 codes in the decode",
          "[fast][mma][gemm]") {
  // Codes with one bit above their format (bit 16 of f16 / bf16, bit 32 of
  // a TF32 pattern) or far above it (bit 40), in A and in B at every
  // position of a vector of codes (K = 64: whole vectors of the decode on
  // every ISA), the rest ordinary values: every element whose row or
  // column holds one comes from the reference (read as +Inf by the decode,
  // a bad operand; decoded as another value it would be computed).
  SplitMix64 g(0x0DE0);
  for (const char* name :
       {"sm80_mma_f16_f32", "sm80_mma_bf16_f32", "sm80_mma_tf32_f32"}) {
    const MmaModel& mdl = *find_mma_model(name);
    const Fmt f = mdl.ab_formats[0];
    INFO(name);
    const int top = f == Fmt::kTF32 ? 32 : 16;
    for (const int bit : {top, 40}) {
      INFO("bit " << bit);
      GemmProblem p;
      p.M = 32;
      p.N = 32;
      p.K = 64;
      p.a_fmt = p.b_fmt = f;
      for (int i = 0; i < p.M * p.K; ++i) p.A.push_back(operand(g, f, 0));
      for (int i = 0; i < p.N * p.K; ++i) p.B.push_back(operand(g, f, 0));
      for (int i = 0; i < p.M * p.N; ++i)
        p.C.push_back(c_value(g, mdl.c_fmt, false));
      for (int m = 0; m < p.M; m += 3)
        p.A[size_t(m) * p.K + size_t(m % p.K)] |= uint64_t{1} << bit;
      for (int n = 1; n < p.N; n += 5)
        p.B[size_t(n) * p.K + size_t((7 * n) % p.K)] |= uint64_t{1} << bit;
      const std::vector<uint64_t> ref = reference_gemm(mdl, p);
      for (fast::Isa isa : test::isas()) {
        INFO(fast::isa_name(isa));
        CHECK(fast::gemm_fast(mdl, p, isa) == ref);
      }
    }
  }
}

TEST_CASE("fast GEMM: coverage and the paths it leaves", "[fast][mma][gemm]") {
  SplitMix64 g(0x6E34);
  const MmaModel& m = *find_mma_model("sm100_tcgen05_f8f6f4_f32");
  GemmProblem p =
      make_problem(m, Fmt::kE4M3, Fmt::kE4M3, 5, 7, 64, GemmLayout::kTN, g);
  CHECK(fast::gemm_covers(m, p));
  // Split-K and FP8-through-FP16 emulation keep the composition.
  p.split_k = 2;
  CHECK_FALSE(fast::gemm_covers(m, p));
  p.split_k = 1;
  // C outside the FDPA, a k permutation, the operand-min zero rule, f16
  // operands: the fast path too (issue 22).
  CHECK(fast::gemm_covers(*find_mma_model("sm90_mma_fp8_f32"), p));
  CHECK(fast::gemm_covers(*find_mma_model("sm90_mma_fp8_f16"), p));
  CHECK(fast::gemm_covers(
      with_zero_rules(m, ZeroExp::kOperandMin, ZeroSign::kPositive), p));
  const MmaModel& h = *find_mma_model("sm90_wgmma_f16_f32");
  GemmProblem q = p;
  q.a_fmt = q.b_fmt = Fmt::kF16;
  CHECK(fast::gemm_covers(h, q));
  // An instruction structure fdpa.cpp would refuse: K not a multiple of
  // the instruction's k.
  MmaModel odd = *find_mma_model("sm90_mma_fp8_f32");
  odd.fdpa.k_block = 96;
  CHECK_FALSE(fast::gemm_covers(odd, p));
  // K not a multiple of L: gemm() refuses before any path is chosen.
  GemmProblem bad = p;
  bad.K = 48;
  bad.A.resize(size_t(bad.M) * 48);
  bad.B.resize(size_t(bad.N) * 48);
  CHECK_THROWS_AS(gemm(m, bad), std::invalid_argument);
  // Every lane through the reference: a NaN in every column of B.
  for (int n = 0; n < p.N; ++n) p.B[size_t(n) * p.K] = 0x7F;
  CHECK(fast::gemm_fast(m, p) == reference_gemm(m, p));
  // 1.0 x 1.0 over K = 64 with C = 0: 64.0 in every element.
  std::fill(p.A.begin(), p.A.end(), 0x38);
  std::fill(p.B.begin(), p.B.end(), 0x38);
  std::fill(p.C.begin(), p.C.end(), 0);
  for (uint64_t d : fast::gemm_fast(m, p)) CHECK(d == 0x42800000u);
}

TEST_CASE("fast GEMM equals the reference beyond the model table",
          "[fast][mma][gemm]") {
  // Parameter sets no shipped model has (F, rho, e_zero above the addend's
  // exponents), where covered; the rest must stay uncovered.
  SplitMix64 g(0x6E35);
  const AccRound rhos[] = {AccRound::kRzF32, AccRound::kRzE8M13,
                           AccRound::kRneF16};
  // Every ISA this build and CPU run: the scalar kernel and each SIMD
  // target of the one Highway source.
  const std::vector<fast::Isa>& isas = test::isas();
  const size_t n = test::level() <= 0 ? 1 : test::level() == 1 ? 3 : 40;
  size_t covered = 0, fails = 0;
  // f16/tf32 inputs with F = 3 (below the product's fraction bits) and F
  // = 48 take the wide (int64) kernel; the fp8 bases also run through
  // emulate_as = f16 (the operands converted exactly first).
  size_t wide = 0, f32_sets = 0;
  for (const char* base :
       {"sm100_tcgen05_f8f6f4_f32", "sm100_tcgen05_mxf8f6f4",
        "sm100_tcgen05_mxf4nvf4_4x", "sm100_tcgen05_mxf4", "sm90_wgmma_f16_f32",
        "sm90_wgmma_tf32_f32", "sm90_mma_fp8_f16", "sm90_mma_fp8_f32"}) {
    for (int F : {3, 13, 25, 35, 48}) {
      for (AccRound rho : rhos) {
        for (int e_zero : {-139, -21, 0}) {
          MmaModel mdl = *find_mma_model(base);
          mdl.fdpa.F = F;
          mdl.fdpa.rho = rho;
          mdl.fdpa.e_zero = e_zero;
          mdl.c_fmt = rho == AccRound::kRneF16 ? Fmt::kF16 : Fmt::kF32;
          // binary32 operands (no table model has them yet: AMD MFMA f32
          // forms): the tf32 base with f32 A/B.
          static constexpr Fmt kF32Only[] = {Fmt::kF32};
          if (mdl.name == "sm90_wgmma_tf32_f32" && (g.next() & 1) != 0)
            mdl.ab_formats = kF32Only;
          const auto fmts = mdl.ab_formats;
          const Fmt af = fmts[below(g, fmts.size())];
          const Fmt bf = fmts[below(g, fmts.size())];
          if (mdl.fdpa.G == 0 && desc(af).bits <= 8 && desc(bf).bits <= 8 &&
              (g.next() & 1) != 0)
            mdl.emulate_as = Fmt::kF16;
          const int unit = std::max(mdl.fdpa.L, mdl.fdpa.k_block);
          for (size_t i = 0; i < n; ++i) {
            const int M = 1 + static_cast<int>(below(g, 9));
            const int N = 1 + static_cast<int>(below(g, 33));
            const int K = unit * (1 + static_cast<int>(below(g, 3)));
            const GemmProblem p =
                make_problem(mdl, af, bf, M, N, K, GemmLayout::kTN, g);
            if (!fast::gemm_covers(mdl, p)) continue;
            ++covered;
            f32_sets += af == Fmt::kF32 ? 1 : 0;
            wide +=
                mdl.fdpa.G == 0 && !fast::gemm_detail::t_fits_int32(mdl, af, bf)
                    ? 1
                    : 0;
            const std::vector<uint64_t> ref = reference_gemm(mdl, p);
            for (fast::Isa isa : isas) {
              const std::vector<uint64_t> got = fast::gemm_fast(mdl, p, isa);
              for (size_t e = 0; e < ref.size(); ++e) {
                if (got[e] != ref[e] && ++fails <= 5)
                  UNSCOPED_INFO(fmt::format(
                      "{} F{} e_zero {} {}x{} isa {}: elem {} fast {:#x} ref "
                      "{:#x}",
                      base, F, e_zero, desc(af).name, desc(bf).name,
                      fast::isa_name(isa), e, got[e], ref[e]));
              }
            }
          }
        }
      }
    }
  }
  CHECK(fails == 0);
  CHECK(covered > 0);
  CHECK(wide > 0);
  CHECK(f32_sets > 0);
  std::printf("fast GEMM parameter sets: checked on %s\n",
              test::isa_list().c_str());
}

// Plans without sum32 (L = 16, F = 25: f16/bf16 products of up to 2^27
// after the shift) whose chunk sums pass 2^31: every operand the format's
// largest significand at one exponent, one sign per row, so sixteen equal
// terms sum to just below 2^31, and an addend aligned with them takes the
// sum past it. ChainT32 takes those chunks through PackWide; the rest of
// the problem (random operands, later chunks) through the int32 sum.
TEST_CASE("fast GEMM: chunk sums beyond int32 in the SIMD chain",
          "[fast][mma][gemm]") {
  SplitMix64 g(0x6E36);
  size_t checked = 0;
  for (const char* name : {"sm90_mma_f16_f32", "sm100_mma_bf16_f32",
                           "sm90_wgmma_f16_f32", "sm100_tcgen05_f16_f32"}) {
    const MmaModel& m = *find_mma_model(name);
    const Fmt f = m.ab_formats[0];
    // 1.11...1 x 2^7 (f16: 0x5BFF, bf16: 0x437F).
    const uint64_t big = f == Fmt::kF16 ? 0x5BFF : 0x437F;
    const uint64_t sign = desc(f).sign_mask();
    for (ZeroSign zs : {ZeroSign::kIeee, ZeroSign::kPositive}) {
      const MmaModel mdl = with_zero_rules(m, m.fdpa.zero_exp, zs);
      GemmProblem p = make_problem(mdl, f, f, 5, 19, 64, GemmLayout::kTN, g);
      for (int r = 0; r < p.M; ++r)
        for (int k = 0; k < p.K; ++k)
          if (r != 2 || (g.next() & 1) != 0)
            p.A[size_t(r) * p.K + k] = big | (r == 1 ? sign : 0);
      for (int n = 0; n < p.N; ++n)
        for (int k = 0; k < p.K; ++k)
          if (n % 3 != 2) p.B[size_t(n) * p.K + k] = big;
      // C = (1.11...1 x 2^14, all 24 bits) with the row's sign: aligned
      // with the products (2^7 x 2^7), its term 2^26 - 4 takes the first
      // chunk's sum past 2^31 (16 x 2^27 - 2^21 from the products).
      for (int n = 0; n < p.N; ++n)
        for (int r = 0; r < p.M; ++r)
          if (n % 3 != 2)
            p.C[size_t(n) * p.M + r] = 0x467FFFFFu | (r == 1 ? 0x80000000u : 0);
      REQUIRE(fast::gemm_covers(mdl, p));
      const std::vector<uint64_t> ref = reference_gemm(mdl, p);
      for (fast::Isa isa : test::isas()) {
        INFO(fmt::format("{} {} isa {}", name, zero_sign_name(zs),
                         fast::isa_name(isa)));
        CHECK(fast::gemm_fast(mdl, p, isa) == ref);
        ++checked;
      }
    }
  }
  CHECK(checked >= 8);
}

// The same for C added outside the FDPA (FdpaParams::c_outside, legacy
// mma.sync FP8: ChainT32 with each instruction's chain started from +0
// and C added after it): E4M3 0x77 (1.111 x 2^7, the largest
// significand) everywhere makes each product 225 x 2^19 after the shift
// (F = 25). In one 32-product FDPA per instruction (the one-FDPA reading
// of mma.sync FP8 -> f32 that the H200 device check disproved, kept here
// as a plan shape: C outside, one chunk per instruction) their sum 7200 x
// 2^19 > 2^31, so those chunks take PackWide; rows of one sign each and
// random columns leave the rest to the int32 sum. The table models (two
// 16-product FDPAs per instruction, the first's result the second's
// addend) run the same problem: their chunk sums, 3600 x 2^19, stay in
// int32.
TEST_CASE("fast GEMM: C outside the FDPA with chunk sums beyond int32",
          "[fast][mma][gemm]") {
  SplitMix64 g(0x6E37);
  size_t checked = 0;
  MmaModel one_fdpa = *find_mma_model("sm90_mma_fp8_f32");
  one_fdpa.name = "sm90_mma_fp8_f32 as one 32-product FDPA";
  one_fdpa.fdpa.L = 32;
  one_fdpa.fdpa.k_period = 0;
  one_fdpa.fdpa.k_run = 0;
  const std::vector<const MmaModel*> models = {
      &one_fdpa, find_mma_model("sm90_mma_fp8_f32"),
      find_mma_model("sm100_mma_fp8_f32"), find_mma_model("sm90_mma_fp8_f16"),
      find_mma_model("sm100_mma_fp8_f16")};
  for (const MmaModel* mp : models) {
    const MmaModel& m = *mp;
    const std::string_view name = m.name;
    REQUIRE(m.fdpa.c_outside);
    const uint64_t big = 0x77, sign = 0x80;
    for (ZeroSign zs : {ZeroSign::kIeee, ZeroSign::kPositive}) {
      const MmaModel mdl = with_zero_rules(m, m.fdpa.zero_exp, zs);
      GemmProblem p = make_problem(mdl, Fmt::kE4M3, Fmt::kE4M3, 5, 19, 96,
                                   GemmLayout::kTN, g);
      for (int r = 0; r < p.M; ++r)
        for (int k = 0; k < p.K; ++k)
          if (r != 2 || (g.next() & 1) != 0)
            p.A[size_t(r) * p.K + k] = big | (r == 1 ? sign : 0);
      for (int n = 0; n < p.N; ++n)
        for (int k = 0; k < p.K; ++k)
          if (n % 3 != 2) p.B[size_t(n) * p.K + k] = big;
      // Finite everywhere (no element may take the reference): no NaN
      // (0x7F, 0xFF) or over-wide operand code, C below 2^0.
      for (auto* v : {&p.A, &p.B})
        for (auto& x : *v) x = (x & 0x7F) == 0x7F ? 0x76 : x & 0xFF;
      for (auto& c : p.C) c &= mdl.c_fmt == Fmt::kF16 ? 0xBBFF : 0xBF7FFFFFu;
      REQUIRE(fast::gemm_covers(mdl, p));
      const std::vector<uint64_t> ref = reference_gemm(mdl, p);
      for (fast::Isa isa : test::isas()) {
        INFO(fmt::format("{} {} isa {}", name, zero_sign_name(zs),
                         fast::isa_name(isa)));
        size_t fallbacks = 0;
        CHECK(fast::gemm_fast(mdl, p, isa, &fallbacks) == ref);
        CHECK(fallbacks == 0);
        ++checked;
      }
    }
  }
  CHECK(checked >= 10);
}

// The CDNA3 two-stage datapath (Datapath::kTwoStageRd) where its vector
// kernel runs (emu/fast/gemm_amd_hwy.cpp: rows in whole groups of lanes,
// the scalar kernel for the rest): M from 16 to 71 (whole groups and
// leftover rows at 8 and 16 int32 lanes), K one to four chunks, against the
// reference composition (fdpa_chain_reference, emu/mma/fdpa.cpp), on every
// ISA. Operands mix zeros of both signs, subnormals, the unit range and,
// in one problem of four, the top finite binade (for bf16/tf32 a product
// can then reach 2^128 and the whole problem stays scalar); C is +-0,
// subnormal, normal, dominant, +-Inf or NaN; some problems pair each
// product with its negation (sums that cancel to 0 and near it), some
// have rows of A of zeros only with C = -0 (the ZeroSign::kIeee rule).
TEST_CASE("fast GEMM: CDNA3 products below binary32's normal range",
          "[fast][mma][gemm]") {
  // Two products of exactly 2^-150 (operands 2^-75) and C = +0: the exact
  // sum 2^-149 is the result (0x00000001); each product rounded to binary32
  // first would be 0 (the tie to even). The AVX-512 stage 1 from binary32
  // operands must leave such products to the integer path (their least
  // binades sum to -150, below -126); with the products at 2^-100 instead,
  // it takes them (the result 2^-99, checked the same way).
  for (const char* name : {"cdna3_mfma_bf16_f32", "cdna3_mfma_xf32_f32"}) {
    const MmaModel& mdl = *find_mma_model(name);
    const Fmt f = mdl.ab_formats[0];
    INFO(name);
    for (const int e : {-75, -50}) {
      INFO("operands 2^" << e);
      // bf16: exponent field at bit 7; TF32: an f32 pattern.
      const uint64_t code =
          f == Fmt::kBF16 ? uint64_t(127 + e) << 7 : uint64_t(127 + e) << 23;
      GemmProblem p = zero_problem(mdl, f, 2, 0);
      for (int m = 0; m < p.M; ++m)
        for (int k = 0; k < 2; ++k) p.A[size_t(m) * p.K + size_t(k)] = code;
      for (int n = 0; n < p.N; ++n)
        for (int k = 0; k < 2; ++k) p.B[size_t(n) * p.K + size_t(k)] = code;
      CHECK(check_every_isa(mdl, p)[0] ==
            (e == -75 ? 0x00000001u : uint64_t(127 + 2 * e + 1) << 23));
    }
  }
}

// Stage 2 after the AVX-512 stage 1 from binary32 operands (gemm_amd_hwy.cpp
// Stage2F: split 1 under kOperandMin, taken where every nonzero product is
// at least 2^-126): normal operands and zeros only, so that the float stage
// runs, with C placed against the products' binade: far below (C floored
// to F bits below Mx), near, far above (the sum floored to 31 bits below
// Mx), subnormal, +-0 (rows of -0 products with C = -0), Inf/NaN, and near
// FLT_MAX with products that carry the sum to Inf or not; products paired
// with their negations (exact cancellation). Against the reference
// composition on every ISA. (Dropping Stage2F's floor of C, its floor of
// the sum, its NaN/Inf test or its C = -0 test fails this.)
TEST_CASE("fast GEMM: CDNA3 stage 2 after the binary32 stage 1",
          "[fast][mma][gemm]") {
  SplitMix64 g(0x5F2A);
  const size_t per_model = test::level() <= 0 ? 24 : 120;
  size_t elems = 0;
  for (const char* name :
       {"cdna3_mfma_f16_f32", "cdna3_mfma_bf16_f32", "cdna3_mfma_xf32_f32"}) {
    const MmaModel& mdl = *find_mma_model(name);
    const Fmt f = mdl.ab_formats[0];
    INFO(name);
    REQUIRE(mdl.fdpa.zero_exp == ZeroExp::kOperandMin);
    REQUIRE(mdl.fdpa.split == 1);
    const int emax = f == Fmt::kF16 ? 15 : 60;
    const int emin = f == Fmt::kF16 ? -14 : -60;
    size_t fails = 0;
    for (size_t i = 0; i < per_model; ++i) {
      const uint64_t r = g.next();
      // The operands' binade: base +- 2; one problem in four at the top
      // (bf16, tf32: products near 2^104 against C near FLT_MAX).
      const bool top = f != Fmt::kF16 && r % 4 == 0;
      const int base =
          top ? 52 : emin + 2 + static_cast<int>(below(g, emax - emin - 3));
      const auto normal = [&](int ex) {
        const uint64_t s = g.next();
        if (s % 8 == 0) return (s & 8) != 0 ? neg_zero_code(f) : uint64_t{0};
        const FormatDesc& dsc = desc(f);
        const uint64_t field = static_cast<uint64_t>(ex + dsc.bias);
        const uint64_t code = ((s >> 8) & dsc.sign_mask()) |
                              (field << dsc.man_bits) |
                              ((s >> 16) & ((uint64_t{1} << dsc.man_bits) - 1));
        return f == Fmt::kTF32 ? code << 13 : code;
      };
      const int M = 16 + static_cast<int>(below(g, 33));
      const int N = 1 + static_cast<int>(below(g, 12));
      const int K = mdl.fdpa.L * (1 + static_cast<int>(below(g, 4)));
      GemmProblem p;
      p.M = M;
      p.N = N;
      p.K = K;
      p.layout = GemmLayout::kTN;
      p.a_fmt = p.b_fmt = f;
      p.A.resize(size_t(M) * K);
      p.B.resize(size_t(N) * K);
      for (auto& v : p.A)
        v = normal(
            std::clamp(base + static_cast<int>(below(g, 5)) - 2, emin, emax));
      for (auto& v : p.B)
        v = normal(
            std::clamp(base + static_cast<int>(below(g, 5)) - 2, emin, emax));
      if ((r >> 8) % 3 == 1) pair_negations(p);
      // Rows of A all -0 and B without sign bits: -0 products, which with
      // C = -0 keep the chain at -0.
      const bool neg_rows = (r >> 12) % 3 == 1;
      if (neg_rows) {
        for (int m = 1; m < M; m += 4)
          for (int k = 0; k < K; ++k) p.A[size_t(m) * K + k] = neg_zero_code(f);
        const uint64_t sign = operand_sign_mask(f);
        for (auto& v : p.B) v &= ~sign;
      }
      p.C.resize(size_t(M) * N);
      for (int n = 0; n < N; ++n) {
        for (int m = 0; m < M; ++m) {
          const uint64_t cr = g.next();
          const uint32_t sig = static_cast<uint32_t>(cr >> 32) & 0x807FFFFFu;
          // C's binade against the products' (2 base): -40 .. +40.
          const int ce =
              std::clamp(2 * base + static_cast<int>(cr % 81) - 40, -126, 127);
          uint32_t c = sig | (static_cast<uint32_t>(ce + 127) << 23);
          switch ((cr >> 8) % 16) {
            case 0:
              c = 0;
              break;
            case 1:
              c = 0x80000000u;
              break;
            case 2:
              c = sig;
              break;  // subnormal
            case 3:
              c = std::array<uint32_t, 3>{0x7F800000u, 0xFF800000u,
                                          0x7FC00001u}[(cr >> 16) % 3];
              break;
            case 4:
              c = 0x7F7FFFFFu - static_cast<uint32_t>((cr >> 16) % 4);
              break;
            default:
              break;
          }
          if (neg_rows && m % 4 == 1 && (cr >> 20) % 2 == 0) c = 0x80000000u;
          p.C[size_t(n) * M + m] = c;
        }
      }
      REQUIRE(fast::gemm_covers(mdl, p));
      const std::vector<uint64_t> ref = reference_gemm(mdl, p);
      elems += ref.size();
      for (fast::Isa isa : test::isas()) {
        const std::vector<uint64_t> got = fast::gemm_fast(mdl, p, isa);
        for (size_t e = 0; e < ref.size(); ++e) {
          if (got[e] != ref[e] && ++fails <= 5) {
            UNSCOPED_INFO(fmt::format(
                "isa {} M{} N{} K{} base {}: elem (m {}, n {}) fast {:#x} "
                "ref {:#x} c {:#x}",
                fast::isa_name(isa), M, N, K, base, e % M, e / M, got[e],
                ref[e], p.C[e]));
          }
        }
      }
    }
    CHECK(fails == 0);
  }
  std::printf("CDNA3 stage 2 after the binary32 stage 1: %zu elements on %s\n",
              elems, test::isa_list().c_str());
}

TEST_CASE("fast GEMM: the CDNA3 two-stage vector kernel against the reference",
          "[fast][mma][gemm]") {
  SplitMix64 g(0x6E37);
  const size_t per_pair = test::level() <= 0 ? 12 : 60;
  size_t elems = 0, sets = 0, finite_slow = 0;
  for (const MmaModel& model : mma_models()) {
    if (model.fdpa.datapath != Datapath::kTwoStageRd) continue;
    for_each_variant(model, [&](const MmaModel& mdl, Fmt af, Fmt bf,
                                const std::string& what) {
      INFO(what);
      ++sets;
      size_t fails = 0;
      for (size_t i = 0; i < per_pair; ++i) {
        const int L = mdl.fdpa.L;
        const int M = 16 + static_cast<int>(below(g, 56));
        // N past 8: the kernel's eight-column groups (C in registers)
        // and the columns left over.
        const int N = 1 + static_cast<int>(below(g, 20));
        const int K = L * (1 + static_cast<int>(below(g, 4)));
        const uint64_t r = g.next();
        const bool big = r % 4 == 0;
        GemmProblem p;
        p.M = M;
        p.N = N;
        p.K = K;
        p.layout = GemmLayout::kTN;
        p.a_fmt = af;
        p.b_fmt = bf;
        const auto pick = [&](Fmt f) {
          const uint64_t s = g.next() % 8;
          const int style = s < 3 ? 0 : s < 5 ? 1 : s < 7 ? 3 : 2;
          if (style == 2 && !big) return operand(g, f, 3);
          return operand(g, f, style);
        };
        p.A.resize(size_t(M) * K);
        p.B.resize(size_t(N) * K);
        for (auto& v : p.A) v = pick(af);
        for (auto& v : p.B) v = pick(bf);
        if ((r >> 8) % 4 == 1) pair_negations(p);
        const bool zero_rows = (r >> 12) % 3 == 1;
        // Half of those: every product of a zero row a zero of negative
        // sign (A's row all -0, B without sign bits), so that with C = -0
        // the chain stays -0 (where the format has a -0).
        const bool neg_rows = zero_rows && (r >> 20) % 2 == 0;
        if (zero_rows) {  // rows of A of zeros (-0 where there is one)
          for (int m = 1; m < M; m += 3)
            for (int k = 0; k < K; ++k)
              p.A[size_t(m) * K + k] =
                  (neg_rows || g.next() % 5 != 0) ? neg_zero_code(af) : 0;
        }
        if (neg_rows) {
          const uint64_t sign = operand_sign_mask(bf);
          for (auto& v : p.B) v &= ~sign;
        }
        p.C.resize(size_t(M) * N);
        bool finite = true;
        for (int n = 0; n < N; ++n) {
          for (int m = 0; m < M; ++m) {
            uint64_t& c = p.C[size_t(n) * M + m];
            const uint64_t cr = g.next();
            c = c_value(g, Fmt::kF32, false);
            if (cr % 32 == 0)
              c = std::array<uint64_t, 3>{0x7F800000u, 0xFF800000u,
                                          0x7FC00001u}[(cr >> 8) % 3];
            if (zero_rows && m % 3 == 1 && (cr >> 16) % 4 != 0) c = 0x80000000u;
            finite = finite && (c & 0x7F800000u) != 0x7F800000u;
          }
        }
        REQUIRE(fast::gemm_covers(mdl, p));
        const std::vector<uint64_t> ref = reference_gemm(mdl, p);
        elems += ref.size();
        for (fast::Isa isa : test::isas()) {
          size_t fb = 0;
          const std::vector<uint64_t> got = fast::gemm_fast(mdl, p, isa, &fb);
          if (finite && fb != 0) ++finite_slow;
          for (size_t e = 0; e < ref.size(); ++e) {
            if (got[e] != ref[e] && ++fails <= 5) {
              UNSCOPED_INFO(fmt::format(
                  "isa {} M{} N{} K{}: elem (m {}, n {}) fast {:#x} "
                  "ref {:#x} c {:#x}",
                  fast::isa_name(isa), M, N, K, e % M, e / M, got[e], ref[e],
                  p.C[e]));
            }
          }
        }
      }
      CHECK(fails == 0);
    });
  }
  CHECK(sets >= 4 * 4);
  CHECK(finite_slow == 0);
  // The TF32 operands are decoded by their fields: the same as unpack.
  CHECK(fast::gemm_detail::two_stage_tf32_mismatches() == 0);
  // f16, bf16 and TF32 read directly are decoded a line at a time by their
  // fields: the same as unpack, every code, on every ISA.
  for (fast::Isa isa : test::isas()) {
    INFO(fast::isa_name(isa));
    CHECK(fast::gemm_detail::two_stage_line_mismatches(isa) == 0);
  }
  std::printf(
      "CDNA3 two-stage kernel: %zu model x format x zero-rule sets, %zu "
      "elements, checked on %s\n",
      sets, elems, test::isa_list().c_str());
}
