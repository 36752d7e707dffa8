// Every instruction model's fast fixed-point FDPA against the independent
// arbitrary-precision reference (conformance/oracle/fdpa_oracle.cpp), on
// random and structured operands; then the properties the published model
// implies: order-free inside one FDPA, order-dependent across chained
// FDPAs, exact-then-RZ when F is large, and the truncation error bound.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>

#include "conformance/oracle/fdpa_oracle.h"
#include "conformance/splitmix64.h"
#include "emu/convert.h"
#include "emu/mma/models.h"
#include "test_level.h"

using namespace mxc;
namespace fo = mxc::fdpa_oracle;

namespace {

fo::Rho oracle_rho(AccRound r) {
  switch (r) {
    case AccRound::kRzF32: return fo::Rho::RzF32;
    case AccRound::kRzE8M13: return fo::Rho::RzE8M13;
    case AccRound::kRneF16: return fo::Rho::RneF16;
    case AccRound::kRneF32: return fo::Rho::RneF32;
  }
  return fo::Rho::RzF32;
}

struct Case {
  Fmt af, bf;
  std::vector<uint64_t> a, b, sa, sb;
  uint64_t c;
};

// A random element: mostly finite values of moderate size, sometimes zeros,
// subnormals, the largest values and specials.
uint64_t element(SplitMix64& g, Fmt f) {
  const FormatDesc& d = desc(f);
  const uint64_t r = g.next();
  if (f == Fmt::kTF32) {
    // f32 bits near 1 with random low bits (the model truncates them).
    const uint32_t e = static_cast<uint32_t>(110 + (r >> 40) % 30);
    return ((r >> 8) & 0x807FFFFFu) | (e << 23);
  }
  switch (r & 15) {
    case 0: return 0;
    case 1: return d.sign_mask();                // -0
    case 2: return (r >> 8) & ((uint64_t{1} << d.man_bits) - 1);  // subnormal
    default: return (r >> 8) & d.storage_mask();  // any code
  }
}

uint64_t scale(SplitMix64& g, Fmt f) {
  const uint64_t r = g.next();
  if (f == Fmt::kE8M0) {
    if ((r & 63) == 0) return 0xFF;           // NaN scale, rarely
    if ((r & 63) == 1) return (r >> 8) & 0xFF;  // anything
    return 127 - 20 + (r >> 8) % 41;
  }
  if ((r & 63) == 0) return 0x7F;   // UE4M3 NaN
  if ((r & 63) == 1) return 0x00;   // zero scale
  return (r >> 8) % 0x7F;           // any finite UE4M3 (incl. subnormal)
}

uint64_t c_value(SplitMix64& g, Fmt c) {
  const uint64_t r = g.next();
  if (c == Fmt::kF16) {
    if ((r & 7) == 0) return 0;
    return (r >> 8) & 0xFFFF;
  }
  switch (r & 7) {
    case 0: return 0;
    case 1: return 0x80000000u;
    case 2: return (r >> 8) & 0xFFFFFFFFu;  // any f32, specials included
    default: {
      const uint32_t e = static_cast<uint32_t>(100 + (r >> 40) % 50);
      return ((r >> 8) & 0x807FFFFFu) | (e << 23);
    }
  }
}

Case random_case(SplitMix64& g, const MmaModel& m, Fmt af, Fmt bf, int K) {
  Case c{af, bf, {}, {}, {}, {}, 0};
  for (int k = 0; k < K; ++k) {
    c.a.push_back(element(g, af));
    c.b.push_back(element(g, bf));
  }
  // Structured variants: cancellation (b_k = -b_{k-1} with a equal) and a C
  // that dominates or is dominated.
  const uint64_t shape = g.next() % 4;
  if (shape == 1) {
    for (int k = 1; k < K; k += 2) {
      c.a[k] = c.a[k - 1];
      c.b[k] = c.b[k - 1] ^ desc(bf).sign_mask();
    }
  }
  const int blk = scale_block(m.scales);
  for (int i = 0; blk > 0 && i < K / blk; ++i) {
    c.sa.push_back(scale(g, scale_format(m.scales)));
    c.sb.push_back(scale(g, scale_format(m.scales)));
  }
  c.c = c_value(g, m.c_fmt);
  return c;
}

uint64_t run_model(const MmaModel& m, const Case& c) {
  return mma_dot(m, c.af, c.bf, c.a, c.b, c.c, c.sa, c.sb);
}

fo::Operands oracle_operands(const MmaModel& m, const Case& c) {
  fo::Operands o;
  o.a_fmt = std::string(desc(c.af).name);
  o.b_fmt = std::string(desc(c.bf).name);
  o.a = c.a;
  o.b = c.b;
  if (m.emulate_as != Fmt::kF64) {
    // The documented emulation: exact FP8 -> FP16 first (checked against
    // CUDA's __nv_cvt_fp8_to_halfraw exhaustively in test_cuda_oracle).
    o.a_fmt = o.b_fmt = std::string(desc(m.emulate_as).name);
    for (auto& x : o.a) x = convert(c.af, m.emulate_as, x);
    for (auto& x : o.b) x = convert(c.bf, m.emulate_as, x);
  }
  o.c_fmt = std::string(desc(m.c_fmt).name);
  o.c = c.c;
  if (m.scales != ScaleKind::kNone) {
    o.scale_fmt = std::string(desc(scale_format(m.scales)).name);
    o.scale_block = scale_block(m.scales);
    o.sa = c.sa;
    o.sb = c.sb;
  }
  return o;
}

uint64_t run_oracle(const MmaModel& m, const Case& c) {
  fo::Params p;
  p.L = m.fdpa.L;
  p.G = m.fdpa.G;
  p.F = m.fdpa.F;
  p.rho = oracle_rho(m.fdpa.rho);
  p.e_zero = m.fdpa.e_zero;
  p.zero_exp = m.fdpa.zero_exp == ZeroExp::kFixed
                   ? fo::Params::ZeroExp::Fixed
                   : fo::Params::ZeroExp::OperandMin;
  p.zero_sign = m.fdpa.zero_sign == ZeroSign::kIeee
                    ? fo::Params::ZeroSign::Ieee
                    : fo::Params::ZeroSign::Positive;
  p.k_block = m.fdpa.k_block;
  p.k_period = m.fdpa.k_period;
  p.k_run = m.fdpa.k_run;
  p.c_outside = m.fdpa.c_outside;
  switch (m.fdpa.datapath) {
    case Datapath::kFdpa: p.datapath = fo::Params::Datapath::Fdpa; break;
    case Datapath::kTwoStageRd:
      p.datapath = fo::Params::Datapath::TwoStageRd;
      break;
    case Datapath::kF32Pairwise:
      p.datapath = fo::Params::Datapath::F32Pairwise;
      break;
  }
  p.split = m.fdpa.split;
  p.ftz = m.fdpa.ftz;
  return fo::fdpa_chain(p, oracle_operands(m, c));
}

}  // namespace

TEST_CASE("every MMA model matches the arbitrary-precision reference",
          "[mma][oracle]") {
  SplitMix64 g(0x3A3A);
  uint64_t total = 0;
  for (const MmaModel& model : mma_models()) {
    // The model's zero rules, and every other variant on fewer cases.
    for (ZeroExp ze : {ZeroExp::kFixed, ZeroExp::kOperandMin})
      for (ZeroSign zs : {ZeroSign::kIeee, ZeroSign::kPositive}) {
        const MmaModel m = with_zero_rules(model, ze, zs);
        const bool own =
            ze == model.fdpa.zero_exp && zs == model.fdpa.zero_sign;
        const int per_pair = (test::level() <= 0 ? 40 : 400) / (own ? 1 : 4);
        for (Fmt af : m.ab_formats) {
          for (Fmt bf : m.ab_formats) {
            uint64_t bad = 0;
            for (int i = 0; i < per_pair; ++i) {
              const int K = m.k * (1 + static_cast<int>(g.next() % 2));
              const Case c = random_case(g, m, af, bf, K);
              const uint64_t got = run_model(m, c), want = run_oracle(m, c);
              ++total;
              if (got != want && ++bad <= 3) {
                UNSCOPED_INFO(fmt::format(
                    "{} {}x{} K={} zero-exp={} zero-sign={}: got {:08X} want "
                    "{:08X}",
                    m.name, desc(af).name, desc(bf).name, K, zero_exp_name(ze),
                    zero_sign_name(zs), got, want));
              }
            }
            CHECK(bad == 0);
          }
        }
      }
  }
  CHECK(total > (test::level() <= 0 ? 1000u : 10000u));
}

TEST_CASE("products commute inside one FDPA, not across chained FDPAs",
          "[mma][properties]") {
  SplitMix64 g(0xC0);
  // Inside one FDPA (T, ST) or one GST group the sum is fused: any
  // permutation of k (with its scales' blocks kept) gives the same bits.
  for (const char* name : {"sm90_wgmma_fp8_f32", "sm100_tcgen05_f8f6f4_f32",
                           "sm100_tcgen05_mxf4nvf4_4x"}) {
    const MmaModel& m = *find_mma_model(name);
    const int unit = m.fdpa.G > 0 ? m.fdpa.G : m.fdpa.L;  // permutation range
    for (int i = 0; i < 300; ++i) {
      Case c = random_case(g, m, m.ab_formats[0], m.ab_formats[0], m.k);
      const uint64_t d0 = run_model(m, c);
      for (int base = 0; base < m.k; base += unit) {
        for (int j = unit - 1; j > 0; --j) {  // Fisher-Yates in [base, +unit)
          const int t = base + static_cast<int>(g.next() % (j + 1));
          std::swap(c.a[base + j], c.a[t]);
          std::swap(c.b[base + j], c.b[t]);
        }
      }
      CHECK(run_model(m, c) == d0);
    }
  }
  // Chained FDPAs (K = 2L) round in between: swapping the two chunks
  // changes the result for some inputs. Find one (deterministic search).
  const MmaModel& m = *find_mma_model("sm100_tcgen05_f8f6f4_f32");
  bool found = false;
  for (int i = 0; i < 2000 && !found; ++i) {
    Case c = random_case(g, m, Fmt::kE4M3, Fmt::kE4M3, 64);
    const uint64_t d0 = run_model(m, c);
    std::rotate(c.a.begin(), c.a.begin() + 32, c.a.end());
    std::rotate(c.b.begin(), c.b.begin() + 32, c.b.end());
    found = run_model(m, c) != d0;
  }
  CHECK(found);
}

namespace {

// exact rational "num/den" (den a power of two) -> f32 bits, RZ. Written
// here with big integers, independent of the rounding core.
uint32_t rz_f32(const std::string& q) {
  using boost::multiprecision::cpp_int;
  const auto slash = q.find('/');
  cpp_int num(q.substr(0, slash)), den(q.substr(slash + 1));
  const bool neg = num < 0;
  if (neg) num = -num;
  if (num == 0) return 0;
  int den_log = static_cast<int>(msb(den));
  int e = static_cast<int>(msb(num)) - den_log;  // leading bit exponent
  e = std::max(e, -126);
  // sig = floor(|x| / 2^(e - 23))
  const int sh = e - 23 + den_log;  // |x| / 2^(e-23) = num / 2^(sh)
  cpp_int sig = sh >= 0 ? cpp_int(num >> sh) : cpp_int(num << -sh);
  uint32_t bits;
  if (sig < (cpp_int(1) << 23)) {
    bits = sig.convert_to<uint32_t>();  // subnormal
  } else {
    bits = (static_cast<uint32_t>(e + 127) << 23) |
           (sig.convert_to<uint32_t>() & 0x7FFFFF);
  }
  return bits | (neg ? 0x80000000u : 0);
}

}  // namespace

TEST_CASE("F large enough recovers the exact sum rounded toward zero",
          "[mma][properties]") {
  // e4m3 products span 2^-18 .. 2^17 and C is kept within 2^-10 .. 2^10:
  // with F = 60 nothing is truncated, so the FDPA equals RZ(exact dot).
  SplitMix64 g(0xF60);
  FdpaParams p{32, 0, 60, AccRound::kRzF32, -133};
  for (int i = 0; i < 500; ++i) {
    std::vector<uint64_t> a(32), b(32);
    for (int k = 0; k < 32; ++k) {
      a[k] = g.next() & 0xF7;  // finite e4m3 (no NaN: bit 3 clear)
      b[k] = g.next() & 0xF7;
    }
    const uint32_t c = static_cast<uint32_t>(
        ((g.next() & 0x807FFFFFu) | ((117u + g.next() % 20) << 23)));
    FdpaOperands o;
    o.a_fmt = o.b_fmt = Fmt::kE4M3;
    o.c_fmt = Fmt::kF32;
    o.a = a;
    o.b = b;
    o.c = c;
    fo::Operands q;
    q.a_fmt = q.b_fmt = "e4m3";
    q.c_fmt = "f32";
    q.a = a;
    q.b = b;
    q.c = c;
    const uint32_t want = rz_f32(fo::exact_dot(q));
    const auto got = static_cast<uint32_t>(fdpa_chain(p, o));
    // The exact zero's sign is not represented by exact_dot.
    if ((want & 0x7FFFFFFFu) == 0) {
      CHECK((got & 0x7FFFFFFFu) == 0);
    } else {
      CHECK(got == want);
    }
  }
}

TEST_CASE("truncation error stays within the model's bound, which is nearly "
          "attained",
          "[mma][properties]") {
  // Bound for one FDPA with RZ output: each of the n terms loses less than
  // 2^(e_max - F) to truncation, and the final RZ less than one ulp of D.
  const MmaModel& m = *find_mma_model("sm90_wgmma_fp8_f32");
  // 32 products 1.875*2^-6 x 2^-8 = 1.875 * 2^-14, below Hopper's 2^-13
  // window unit once C = 1 sets e_max = 0: each is truncated to nothing.
  std::vector<uint64_t> a(32, 0x0F), b(32, 0x02);  // b: subnormal 2^-8
  const uint64_t c = std::bit_cast<uint32_t>(1.0f);
  const float d = std::bit_cast<float>(static_cast<uint32_t>(
      mma_dot(m, Fmt::kE4M3, Fmt::kE4M3, a, b, c)));
  const double exact = 1.0 + 32 * 1.875 * std::ldexp(1.0, -14);
  const double bound = 33 * std::ldexp(1.0, -13) + std::ldexp(1.0, -13);
  CHECK(d == 1.0f);
  CHECK(exact - d > 0.45 * bound);  // the loss is a large part of the bound
  CHECK(exact - d <= bound);

  // Random cases: |D - exact| <= n * 2^(e_max - F) + ulp_13(D) per chunk.
  SplitMix64 g(0xB0);
  for (int i = 0; i < 400; ++i) {
    std::vector<uint64_t> x(32), y(32);
    int e_max = -1000;
    for (int k = 0; k < 32; ++k) {
      x[k] = g.next() & 0xF7;
      y[k] = g.next() & 0xF7;
      auto ex = [](uint64_t v) {
        const int biased = static_cast<int>((v >> 3) & 15);
        return biased == 0 ? -6 : biased - 7;
      };
      if ((x[k] & 0x7F) && (y[k] & 0x7F)) e_max = std::max(e_max, ex(x[k]) + ex(y[k]));
    }
    const uint64_t cc = std::bit_cast<uint32_t>(
        static_cast<float>(std::ldexp(1.0, static_cast<int>(g.next() % 20) - 10)));
    e_max = std::max(e_max, std::ilogb(std::bit_cast<float>(static_cast<uint32_t>(cc))));
    const double dd = std::bit_cast<float>(static_cast<uint32_t>(
        mma_dot(m, Fmt::kE4M3, Fmt::kE4M3, x, y, cc)));
    double ex_sum = std::bit_cast<float>(static_cast<uint32_t>(cc));
    for (int k = 0; k < 32; ++k) {
      ex_sum += to_double(unpack(Fmt::kE4M3, x[k])) *
                to_double(unpack(Fmt::kE4M3, y[k]));  // exact in double
    }
    const double ulp = std::ldexp(1.0, std::ilogb(std::max(std::fabs(dd), 1e-30)) - 13);
    CHECK(std::fabs(dd - ex_sum) <= 33 * std::ldexp(1.0, e_max - 13) + ulp);
  }
}
