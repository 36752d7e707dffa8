// The 8-bit-operand FDPA kernel (emu/fast/fdpa_fast.h) against the reference
// chain (fdpa_chain_reference, the 128-bit fixed-point path that
// test_mma_oracle.cpp checks against the arbitrary-precision oracle): every
// eligible model and operand-format pair, on random and structured cases
// (cancellation, zeros of both signs, subnormals, extreme scales, a C that
// dominates or vanishes, specials), plus parameter sets beyond the table.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <vector>

#include "conformance/splitmix64.h"
#include "emu/fast/fdpa_fast.h"
#include "emu/mma/models.h"
#include "test_level.h"

using namespace mxc;

namespace {

uint64_t element(SplitMix64& g, Fmt f, int style) {
  const FormatDesc& d = desc(f);
  const uint64_t r = g.next();
  const uint64_t man = (uint64_t{1} << d.man_bits) - 1;
  switch (style) {
    case 1:  // tiny: subnormals and zeros
      return ((r >> 8) & man) | ((r & 1) ? d.sign_mask() : 0);
    case 2:  // huge: top binade
      return d.storage_mask() & ~(r & 1 ? 0 : d.sign_mask()) &
             ~((r >> 8) & man) & ~uint64_t{(r >> 20) & 1};
    default:
      break;
  }
  switch (r & 15) {
    case 0: return 0;
    case 1: return d.sign_mask();
    case 2: return (r >> 8) & man;
    default: return (r >> 8) & d.storage_mask();
  }
}

uint64_t scale(SplitMix64& g, Fmt f, bool specials) {
  const uint64_t r = g.next();
  if (f == Fmt::kE8M0) {
    if (specials && (r & 63) == 0) return 0xFF;
    if ((r & 15) == 1) return (r >> 8) % 255;  // any finite, extremes too
    return 127 - 20 + (r >> 8) % 41;
  }
  if (specials && (r & 63) == 0) return 0x7F | ((r >> 9) & 0x80);
  if ((r & 31) == 1) return 0x00;
  return ((r >> 8) % 0x7F) | ((r >> 20) & 0x80);  // the sign bit is ignored
}

uint64_t c_value(SplitMix64& g, Fmt c, bool specials) {
  const uint64_t r = g.next();
  const bool f16 = c == Fmt::kF16;
  const uint64_t any = (r >> 8) & (f16 ? 0xFFFF : 0xFFFFFFFFu);
  const uint64_t inf = f16 ? 0x7C00 : 0x7F800000u;
  switch (r & 7) {
    case 0: return 0;
    case 1: return f16 ? 0x8000 : 0x80000000u;
    case 2:
      if (!specials && (any & inf) == inf) return any & ~inf;
      return any;
    case 3:  // subnormal
      return any & (f16 ? 0x83FF : 0x807FFFFFu);
    default: {
      if (f16) return any & ~inf;
      const uint32_t e = static_cast<uint32_t>(100 + (r >> 40) % 50);
      return ((r >> 8) & 0x807FFFFFu) | (e << 23);
    }
  }
}

struct Stats {
  uint64_t cases = 0, fails = 0;
};

void check_one(const FdpaParams& p, const FdpaOperands& o, Stats& st,
               const char* what) {
  ++st.cases;
  const uint64_t fast = fdpa_chain(p, o);
  const uint64_t ref = fdpa_chain_reference(p, o);
  if (fast != ref) {
    if (++st.fails <= 5) {
      std::string a, b;
      for (uint64_t v : o.a) a += fmt::format("{:x} ", v);
      for (uint64_t v : o.b) b += fmt::format("{:x} ", v);
      UNSCOPED_INFO(fmt::format("{}: fast {:#x} ref {:#x} c {:#x}\n a {}\n b {}",
                                what, fast, ref, o.c, a, b));
    }
  }
}

// n random chains of `chunks` FDPAs for these parameters and formats.
void run_cases(const FdpaParams& p, Fmt af, Fmt bf, Fmt cf, Fmt sf, int blk,
               int chunks, size_t n, SplitMix64& g, Stats& st,
               const char* what) {
  const int K = (p.k_block > 0 ? p.k_block : p.L) * chunks;
  std::vector<uint64_t> a(K), b(K), sa, sb;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = g.next();
    const int style = (r & 7) < 5 ? 0 : static_cast<int>(r & 7) - 4;  // 0..3
    const bool specials = (r >> 3) % 8 == 0;
    for (int k = 0; k < K; ++k) {
      a[k] = element(g, af, style == 3 ? static_cast<int>(k & 1) : style);
      b[k] = element(g, bf, style == 3 ? static_cast<int>(k & 3) % 3 : style);
      if (!specials) {
        // Keep specials out (mostly): E4M3 / E5M2 NaN and Inf codes.
        const FormatDesc& da = desc(af);
        const FormatDesc& db = desc(bf);
        if (da.has_nan() && (a[k] & ~da.sign_mask()) >=
                                (da.storage_mask() & ~da.sign_mask() &
                                 ~((uint64_t{1} << da.man_bits) - 1)) &&
            da.specials == Specials::kIeee)
          a[k] &= ~(uint64_t{1} << da.man_bits);
        if (da.specials == Specials::kNanAllOnes &&
            (a[k] & ~da.sign_mask()) == (da.storage_mask() & ~da.sign_mask()))
          a[k] ^= 1;
        if (db.has_nan() && (b[k] & ~db.sign_mask()) >=
                                (db.storage_mask() & ~db.sign_mask() &
                                 ~((uint64_t{1} << db.man_bits) - 1)) &&
            db.specials == Specials::kIeee)
          b[k] &= ~(uint64_t{1} << db.man_bits);
        if (db.specials == Specials::kNanAllOnes &&
            (b[k] & ~db.sign_mask()) == (db.storage_mask() & ~db.sign_mask()))
          b[k] ^= 1;
      }
    }
    if ((r >> 6) % 4 == 1) {  // cancellation pairs
      for (int k = 1; k < K; k += 2) {
        a[k] = a[k - 1];
        b[k] = b[k - 1] ^ desc(bf).sign_mask();
      }
    }
    if ((r >> 6) % 4 == 2) {  // all zeros, signs random
      for (int k = 0; k < K; ++k) {
        a[k] = (g.next() & 1) ? desc(af).sign_mask() : 0;
      }
    }
    FdpaOperands o;
    o.a_fmt = af;
    o.b_fmt = bf;
    o.c_fmt = cf;
    o.a = a;
    o.b = b;
    o.c = c_value(g, cf, specials);
    if ((r >> 8) % 8 == 0) {  // a C that dominates
      o.c = cf == Fmt::kF16 ? (0x7800 | (g.next() & 0x83FF))
                            : (0x5F000000u | (g.next() & 0x807FFFFFu));
    }
    if (blk > 0) {
      sa.resize(K / blk);
      sb.resize(K / blk);
      for (auto& v : sa) v = scale(g, sf, specials);
      for (auto& v : sb) v = scale(g, sf, specials);
      o.has_scales = true;
      o.scale_fmt = sf;
      o.scale_block = blk;
      o.sa = sa;
      o.sb = sb;
    }
    check_one(p, o, st, what);
  }
}

bool kernel_format(Fmt f) {
  return f == Fmt::kE4M3 || f == Fmt::kE5M2 || f == Fmt::kE3M2 ||
         f == Fmt::kE2M3 || f == Fmt::kE2M1;
}

size_t per_pair() {
  const int lv = test::level();
  return lv <= 0 ? 300 : lv == 1 ? 4000 : 200000;
}

}  // namespace

TEST_CASE("fast FDPA kernel equals the reference on every eligible model",
          "[fast][mma]") {
  SplitMix64 g(0xFDDA);
  for (const MmaModel& model : mma_models()) {
    if (model.emulate_as != Fmt::kF64) continue;
    // Every zero rule (the kernel takes kFixed with either sign rule and
    // leaves kOperandMin to the reference).
    for (ZeroExp ze : {ZeroExp::kFixed, ZeroExp::kOperandMin})
      for (ZeroSign zs : {ZeroSign::kIeee, ZeroSign::kPositive}) {
        const MmaModel m = with_zero_rules(model, ze, zs);
        const bool model_rules =
            ze == model.fdpa.zero_exp && zs == model.fdpa.zero_sign;
        for (Fmt af : m.ab_formats) {
          for (Fmt bf : m.ab_formats) {
            if (!kernel_format(af) || !kernel_format(bf)) continue;
            const std::string what = fmt::format(
                "{} {}x{} zero-exp={} zero-sign={}", m.name, desc(af).name,
                desc(bf).name, zero_exp_name(ze), zero_sign_name(zs));
            Stats st;
            for (int chunks : {1, 3}) {
              run_cases(m.fdpa, af, bf, m.c_fmt, scale_format(m.scales),
                        scale_block(m.scales), chunks,
                        model_rules ? per_pair() : per_pair() / 4, g, st,
                        what.c_str());
            }
            INFO(what);
            CHECK(st.fails == 0);
          }
        }
      }
  }
}

TEST_CASE("fast FDPA kernel equals the reference beyond the model table",
          "[fast][mma]") {
  SplitMix64 g(0xFDDB);
  const Fmt fmts[] = {Fmt::kE4M3, Fmt::kE5M2, Fmt::kE3M2, Fmt::kE2M3,
                      Fmt::kE2M1};
  const AccRound rhos[] = {AccRound::kRzF32, AccRound::kRzE8M13,
                           AccRound::kRneF16};
  const size_t n = per_pair() / 32;
  Stats st;
  for (int F : {0, 3, 13, 24, 25, 30, 35}) {
    for (AccRound rho : rhos) {
      const Fmt cf = rho == AccRound::kRneF16 ? Fmt::kF16 : Fmt::kF32;
      for (int e_zero : {-139, -21, 0}) {
        // Both zero-sign rules, alternating with e_zero.
        const ZeroSign zs =
            e_zero == -21 ? ZeroSign::kIeee : ZeroSign::kPositive;
        auto prm = [&](int L, int G) {
          FdpaParams q{L, G, F, rho, e_zero};
          q.zero_sign = zs;
          return q;
        };
        for (Fmt af : fmts) {
          for (Fmt bf : fmts) {
            // T-FDPA, ST-FDPA (E8M0 / 32, UE4M3 / 16), GST (G = 16).
            run_cases(prm(16, 0), af, bf, cf, Fmt::kE8M0, 0, 2, n, g, st,
                      "t-fdpa");
            run_cases(prm(32, 0), af, bf, cf, Fmt::kE8M0, 32, 1, n, g, st,
                      "st-fdpa e8m0");
            run_cases(prm(32, 0), af, bf, cf, Fmt::kUE4M3, 16, 1, n, g, st,
                      "st-fdpa ue4m3");
            run_cases(prm(64, 16), af, bf, cf, Fmt::kUE4M3, 16, 1, n, g, st,
                      "gst ue4m3");
            run_cases(prm(64, 16), af, bf, cf, Fmt::kE8M0, 32, 1, n, g, st,
                      "gst e8m0");
          }
        }
      }
    }
  }
  INFO(fmt::format("{} cases", st.cases));
  CHECK(st.fails == 0);
}

TEST_CASE("fast FDPA kernel: coverage and fallbacks", "[fast][mma]") {
  FdpaOperands o;
  o.a_fmt = o.b_fmt = Fmt::kE4M3;
  o.c_fmt = Fmt::kF32;
  const FdpaParams p{32, 0, 25, AccRound::kRzF32, -133};
  CHECK(fast::fdpa_covers(p, o));
  o.a_fmt = Fmt::kF16;
  CHECK_FALSE(fast::fdpa_covers(p, o));
  // A chunk with a NaN is left to the reference; a finite one is taken.
  o.a_fmt = Fmt::kE4M3;
  std::vector<uint64_t> a(32, 0x38), b(32, 0x38);  // 1.0 each
  o.a = a;
  o.b = b;
  uint64_t out = 0;
  CHECK(fast::fdpa_chunk(p, o, 0, 0, out));
  CHECK(out == 0x42000000u);  // 32.0
  a[5] = 0x7F;
  CHECK_FALSE(fast::fdpa_chunk(p, o, 0, 0, out));
  CHECK(fdpa_chain(p, o) == fdpa_chain_reference(p, o));
}
