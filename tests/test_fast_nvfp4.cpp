// The fast NVFP4 quantization path (emu/fast/nvfp4_fast.h, dispatched from
// nvfp4_quantize_block and nvfp4_quantize_2d) against the reference code of
// those same functions (the fast path switched off): both NVFP4 profiles,
// tensor scales across the f32 range (from nvfp4_tensor_scale of amax_t in
// every binade, and direct ones that make block scales saturate at 448 or
// underflow to 0, zero, subnormal, FLT_MAX, random bit patterns), the named
// corner blocks, every random block class, block amax in every binade,
// random bit patterns, odd block lengths; and matrices rowwise, columnwise
// (odd widths) and in 16x16 tiles. Each check runs on every ISA the build
// and the CPU have: the fused kernels (one Highway source) on each SIMD
// target, and the portable path (Isa::kScalar).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "byte_diff.h"
#include "conformance/block_cases.h"
#include "conformance/splitmix64.h"
#include "emu/block/nvfp4_plan.h"
#include "emu/block/quantize.h"
#include "emu/convert.h"
#include "emu/fast/amax.h"
#include "emu/fast/nvfp4_fast.h"
#include "emu/fast/nvfp4_fused.h"
#include "emu/fast/quantize_fast.h"
#include "nvfp4_switches.h"
#include "test_isas.h"
#include "test_level.h"

using namespace mxc;

namespace {

using test::ref_block;
using test::Switches;

// Tensor scales: S_enc of amax_t = 2^k * (1 + f) for k across the range,
// then direct values.
std::vector<uint32_t> tensor_scales(const Nvfp4Profile& p, SplitMix64& g) {
  std::vector<uint32_t> s;
  const int step = test::level() <= 0 ? 23 : 3;
  for (int k = -149; k <= 127; k += step) {
    const uint32_t a = k < -126
                           ? 1u << (k + 149)
                           : (static_cast<uint32_t>(k + 127) << 23) |
                                 (static_cast<uint32_t>(g.next()) & 0x7FFFFFu);
    s.push_back(nvfp4_tensor_scale(p, a));
  }
  for (uint32_t v : {0x00000000u, 0x00000001u, 0x007FFFFFu, 0x00800000u,
                     0x3F800000u, 0x7F7FFFFFu, 0x7F000000u, 0x60000000u,
                     0x20000000u, 0x0A000000u, 0x45280000u, 0x3E2AAAABu,
                     // Not covered by the fast path: negative, Inf, NaN.
                     0x80000000u, 0xBF800000u, 0x7F800000u, 0x7FC00000u})
    s.push_back(v);
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<uint32_t>(g.next()));
  return s;
}

using test::Tally;
const auto& diff = test::byte_diff;

// The 16-element blocks check_block saw for one (profile, S_enc), run
// again through the matrix kernels (check_kernels).
std::vector<uint32_t> g_blocks;

void check_block(const Nvfp4Profile& p, uint32_t s_enc,
                 const std::vector<uint32_t>& x, Tally& t,
                 const std::string& what) {
  ++t.cases;
  if (x.size() == 16) g_blocks.insert(g_blocks.end(), x.begin(), x.end());
  const Nvfp4Block f = nvfp4_quantize_block(p, s_enc, x);
  const Nvfp4Block r = ref_block(p, s_enc, x);
  if (f.scale != r.scale || f.codes != r.codes) {
    if (++t.fails <= 5) {
      std::string s;
      for (size_t i = 0; i < x.size(); ++i) {
        if (f.codes[i] != r.codes[i])
          s += fmt::format(" [{}] {:#010x}: {:#x} vs {:#x}", i, x[i],
                           f.codes[i], r.codes[i]);
      }
      UNSCOPED_INFO(
          fmt::format("{} S_enc {:#010x} {}: scale {:#04x} vs "
                      "{:#04x};{}",
                      p.name, s_enc, what, f.scale, r.scale, s));
    }
  }
}

// A block of n with amax exactly `amax` (sign random) and the rest below it.
std::vector<uint32_t> below(SplitMix64& g, uint32_t amax, int n) {
  std::vector<uint32_t> x(static_cast<size_t>(n));
  for (auto& v : x) {
    const uint64_t r = g.next();
    const uint32_t shift = static_cast<uint32_t>(r % 30);
    const uint32_t e = amax >> 23;
    const uint32_t m = shift < e ? amax - (shift << 23) - ((r >> 8) & 0xFFFF)
                                 : static_cast<uint32_t>(r >> 20) & 0xFFFF;
    v = (m > amax ? amax : m) | ((r >> 40) & 1 ? 0x80000000u : 0);
  }
  x[g.next() % static_cast<uint64_t>(n)] =
      amax | ((g.next() & 1) ? 0x80000000u : 0);
  return x;
}

// g_blocks as one row of blocks (rowwise: the SIMD kernels take them in
// groups of Lanes blocks) and as columns of 16 rows (columnwise), against
// the reference block by block; then cleared.
void check_kernels(const Nvfp4Profile& p, uint32_t s_enc, Tally& t) {
  const size_t nb = g_blocks.size() / 16;
  if (nb == 0) return;
  std::vector<uint8_t> fs(nb), fc(16 * nb), rs(nb), rc(16 * nb);
  for (size_t b = 0; b < nb; ++b) {
    const Nvfp4Block r = ref_block(
        p, s_enc, std::span<const uint32_t>(g_blocks).subspan(16 * b, 16));
    rs[b] = r.scale;
    std::copy(r.codes.begin(), r.codes.end(),
              rc.begin() + static_cast<long>(16 * b));
  }
  ++t.cases;
  if (fast::nvfp4_quantize_rowwise(p, s_enc, 1, static_cast<int>(16 * nb),
                                   g_blocks.data(), fs.data(), fc.data()) &&
      (fs != rs || fc != rc) && ++t.fails <= 5)
    UNSCOPED_INFO(fmt::format("{} S_enc {:#010x} rowwise: {} {}", p.name, s_enc,
                              diff(fs, rs), diff(fc, rc)));
  // Columnwise: block b is column b of a 16 x nb matrix.
  std::vector<uint32_t> xt(16 * nb);
  std::vector<uint8_t> rct(16 * nb);
  for (size_t b = 0; b < nb; ++b)
    for (size_t i = 0; i < 16; ++i) {
      xt[i * nb + b] = g_blocks[16 * b + i];
      rct[i * nb + b] = rc[16 * b + i];
    }
  ++t.cases;
  if (fast::nvfp4_quantize_colwise(p, s_enc, 16, static_cast<int>(nb),
                                   xt.data(), fs.data(), fc.data()) &&
      (fs != rs || fc != rct) && ++t.fails <= 5)
    UNSCOPED_INFO(fmt::format("{} S_enc {:#010x} colwise: {} {}", p.name, s_enc,
                              diff(fs, rs), diff(fc, rct)));
  g_blocks.clear();
}

}  // namespace

TEST_CASE("fast NVFP4 quantization: blocks equal the reference",
          "[fast][block]") {
  // Every ISA this build and CPU run (kScalar: the portable path).
  const Switches sw(GENERATE(from_range(test::isas())));
  INFO(sw.label);
  SplitMix64 g(0x4F4B);
  const size_t reps = test::level() <= 0 ? 1 : test::level() == 1 ? 40 : 400;
  for (const Nvfp4Profile& p : nvfp4_profiles()) {
    // Tensor values as the profile's rule makes them (nvfp4_tensor_scale).
    const std::vector<uint32_t> scales = tensor_scales(p, g);
    Tally t;
    for (uint32_t s_enc : scales) {
      for (size_t i = 0; i < named_block_count(); ++i)
        check_block(p, s_enc, named_block(i, 16), t,
                    std::string(named_block_name(i)));
      for (size_t c = 0; c < block_class_count(); ++c)
        for (size_t k = 0; k < reps; ++k)
          check_block(p, s_enc, block_class_case(c, g, 16, Fmt::kE2M1), t,
                      std::string(block_class_name(c)));
      // Block amax in binades spread over the range (every binade for the
      // first scales), zero blocks, random bits, odd lengths.
      const uint32_t stride = test::level() <= 0 ? 29 : 1;
      for (uint32_t E = static_cast<uint32_t>(g.next() % stride); E < 255;
           E += stride)
        check_block(
            p, s_enc,
            below(g, (E << 23) | (static_cast<uint32_t>(g.next()) & 0x7FFFFFu),
                  16),
            t, fmt::format("binade {}", E));
      check_block(p, s_enc, std::vector<uint32_t>(16, 0), t, "zeros");
      check_block(p, s_enc, std::vector<uint32_t>(16, 0x80000000u), t,
                  "-zeros");
      std::vector<uint32_t> x(16);
      for (size_t k = 0; k < reps * 4; ++k) {
        for (auto& v : x) v = static_cast<uint32_t>(g.next());
        if (k % 2 == 0)
          for (auto& v : x)
            v = (v & 0x807FFFFFu) | ((90 + (v >> 23) % 80) << 23);
        check_block(p, s_enc, x, t, "random bits");
      }
      for (int n : {1, 7, 17, 32})
        check_block(p, s_enc,
                    below(g, 0x40000000u + static_cast<uint32_t>(n), n), t,
                    fmt::format("length {}", n));
      check_kernels(p, s_enc, t);
    }
    // Every binade of amax under a few tensor scales.
    for (uint32_t s_enc : {0x3F800000u, nvfp4_tensor_scale(p, 0x42C80000u),
                           0x00000001u, 0x7F7FFFFFu}) {
      for (uint32_t E = 0; E < 255; ++E) {
        for (uint32_t m :
             {0u, 0x7FFFFFu, static_cast<uint32_t>(g.next()) & 0x7FFFFFu})
          check_block(p, s_enc, below(g, (E << 23) | m, 16), t,
                      fmt::format("all binades {}", E));
      }
      check_kernels(p, s_enc, t);
    }
    INFO(fmt::format("{}: {} blocks", p.name, t.cases));
    CHECK(t.fails == 0);
  }
  std::printf("%s: %s checked\n", "fast NVFP4 quantization blocks",
              sw.label.c_str());
}

TEST_CASE("fast NVFP4 quantization: matrices rowwise, columnwise, 2D",
          "[fast][block]") {
  // Every ISA this build and CPU run (kScalar: the portable path).
  const Switches sw(GENERATE(from_range(test::isas())));
  INFO(sw.label);
  SplitMix64 g(0x4F4C);
  for (const Nvfp4Profile& p : nvfp4_profiles()) {
    for (uint32_t s_enc :
         {nvfp4_tensor_scale(p, 0x40800000u),
          nvfp4_tensor_scale(p, 0x3A000000u), 0x7F7FFFFFu, 0x00000100u}) {
      for (auto [rows, cols] :
           {std::pair{16, 16}, std::pair{48, 80}, std::pair{32, 16 * 70},
            std::pair{16, 16 * 17 + 16}, std::pair{32, 37}, std::pair{16, 5}}) {
        std::vector<uint32_t> x(static_cast<size_t>(rows) * cols);
        for (size_t i = 0; i < x.size(); i += 16) {
          const auto blk = block_class_case(g.next() % block_class_count(), g,
                                            16, Fmt::kE2M1);
          std::copy(blk.begin(), blk.end(), x.begin() + static_cast<long>(i));
        }
        INFO(fmt::format("{} S_enc {:#010x} {}x{}", p.name, s_enc, rows, cols));
        const size_t R = static_cast<size_t>(rows),
                     C = static_cast<size_t>(cols);
        // Columnwise: every shape here has rows % 16 == 0.
        std::vector<uint8_t> fs((R / 16) * C), fc(R * C), rs(fs.size()),
            rc(fc.size());
        REQUIRE(fast::nvfp4_quantize_colwise(p, s_enc, rows, cols, x.data(),
                                             fs.data(), fc.data()));
        std::vector<uint32_t> col(16);
        for (size_t r0 = 0; r0 < R; r0 += 16) {
          for (size_t c = 0; c < C; ++c) {
            for (size_t i = 0; i < 16; ++i) col[i] = x[(r0 + i) * C + c];
            const Nvfp4Block b = ref_block(p, s_enc, col);
            rs[(r0 / 16) * C + c] = b.scale;
            for (size_t i = 0; i < 16; ++i) rc[(r0 + i) * C + c] = b.codes[i];
          }
        }
        CHECK(diff(fs, rs) == "");
        CHECK(diff(fc, rc) == "");
        if (C % 16 != 0) continue;
        // Rowwise.
        fs.assign(R * C / 16, 0);
        rs.assign(fs.size(), 0);
        REQUIRE(fast::nvfp4_quantize_rowwise(p, s_enc, rows, cols, x.data(),
                                             fs.data(), fc.data()));
        for (size_t b = 0; b < R * C / 16; ++b) {
          const Nvfp4Block r = ref_block(
              p, s_enc, std::span<const uint32_t>(x).subspan(16 * b, 16));
          rs[b] = r.scale;
          std::copy(r.codes.begin(), r.codes.end(),
                    rc.begin() + static_cast<long>(16 * b));
        }
        CHECK(diff(fs, rs) == "");
        CHECK(diff(fc, rc) == "");
        // Rowwise with the blocks' amaxes from the tensor-amax pass
        // (abs_max_bits16, as the Python binding passes them).
        std::vector<uint32_t> bam(R * C / 16);
        fast::abs_max_bits16(fast::best_isa(), x.data(), bam.size(),
                             bam.data());
        fs.assign(fs.size(), 0);
        fc.assign(fc.size(), 0);
        REQUIRE(fast::nvfp4_quantize_rowwise(p, s_enc, rows, cols, x.data(),
                                             fs.data(), fc.data(), bam.data()));
        CHECK(diff(fs, rs) == "");
        CHECK(diff(fc, rc) == "");
        // 16x16 tiles through the public function, fast vs reference; and
        // once more without NaN/Inf (the fast path declines those). 4over6
        // tiles are not modelled (nvfp4_quantize_2d refuses them).
        if (p.rule == Nvfp4Rule::kTe4over6) continue;
        for (int pass = 0; pass < 2; ++pass) {
          if (pass == 1)
            for (auto& v : x)
              if ((v & 0x7FFFFFFFu) >= 0x7F800000u) v &= 0x80FFFFFFu;
          const Nvfp4Matrix f2 = nvfp4_quantize_2d(p, s_enc, rows, cols, x);
          fast::set_nvfp4_fast_enabled(false);
          const Nvfp4Matrix r2 = nvfp4_quantize_2d(p, s_enc, rows, cols, x);
          fast::set_nvfp4_fast_enabled(true);
          CHECK(diff(f2.scales, r2.scales) == "");
          CHECK(diff(f2.codes, r2.codes) == "");
        }
      }
    }
  }
  std::printf("%s: %s checked\n", "fast NVFP4 quantization matrices",
              sw.label.c_str());
}

namespace {

// The 4over6 error sums of a finite block of 16, for choosing test blocks
// only (the checks compare with the reference): per candidate of the plan
// (emu/block/nvfp4_plan.h) the scale code, each element's E2M1 code by the
// rounding core, the dequantized value fl(fl(fl(q * s) * A) / D), and the
// sum of |d| or d^2 in element order in binary32 (S) and in double (s,
// exact for 16 binary32 terms below 2^100 apart from rounding the 16th).
struct Sums4over6 {
  uint8_t code[2];
  float S[2];
  double s[2];
};
Sums4over6 sums_4over6(const Nvfp4Plan& pl, const uint32_t* x) {
  RoundSpec sat;
  sat.overflow = Overflow::kSatFinite;
  uint32_t amax = 0;
  for (int i = 0; i < 16; ++i) amax = std::max(amax, x[i] & 0x7FFFFFFFu);
  Sums4over6 r{};
  for (int k = 0; k < 2; ++k) {
    const Nvfp4Candidate& c = pl.cand[static_cast<size_t>(k)];
    float v = std::bit_cast<float>(amax);
    for (int i = 0; i < c.n_steps; ++i) {
      const Nvfp4ScaleStep& st = c.steps[static_cast<size_t>(i)];
      const float kf = std::bit_cast<float>(st.k);
      if (st.op == Nvfp4ScaleOp::kMul) v = v * kf;
      if (st.op == Nvfp4ScaleOp::kDiv) v = v / kf;
      if (st.op == Nvfp4ScaleOp::kMin) v = std::min(v, kf);
    }
    const auto code = static_cast<uint8_t>(
        convert(Fmt::kF32, Fmt::kUE4M3, std::bit_cast<uint32_t>(v), sat));
    const float sv = std::bit_cast<float>(
        static_cast<uint32_t>(convert(Fmt::kUE4M3, Fmt::kF32, uint64_t{code})));
    const float op = std::bit_cast<float>(c.operand[code]);
    float S = 0;
    double s = 0;
    for (int i = 0; i < 16; ++i) {
      const float xi = std::bit_cast<float>(x[i]);
      const uint64_t q =
          convert(Fmt::kF32, Fmt::kE2M1, std::bit_cast<uint32_t>(xi * op), sat);
      const float qv = std::bit_cast<float>(
          static_cast<uint32_t>(convert(Fmt::kE2M1, Fmt::kF32, q)));
      const float val = qv * sv * std::bit_cast<float>(pl.err_a) /
                        std::bit_cast<float>(pl.err_d);
      const float d = val - xi;
      const float term = pl.err_mse ? d * d : std::fabs(d);
      S += term;
      s += double(term);
    }
    r.code[k] = code;
    r.S[k] = S;
    r.s[k] = s;
  }
  return r;
}

}  // namespace

// The rowwise 4over6 kernel decides from error sums added in its own order
// and, where the two sums are too close for that order to tell
// (nvfp4_hwy.cpp Decide), from the sums in the reference's order. Blocks
// made to sit on that edge: a fixed amax, random elements, and one element
// moved to where the two candidates' sums cross, then 8 floats either side
// of it (the two sums equal, or 1, 2, ... ulps apart). Checked against the
// reference on every ISA; on the SIMD ones the close-call path must have
// run, and among the blocks some must have their in-order decision differ
// from the exact one (where a sum in another order could decide wrong).
TEST_CASE("fast NVFP4 4over6: close calls decided as the reference",
          "[fast][block]") {
  const Switches sw(GENERATE(from_range(test::isas())));
  INFO(sw.label);
  for (const Nvfp4Profile& p : nvfp4_profiles()) {
    if (p.rule != Nvfp4Rule::kTe4over6) continue;
    SplitMix64 g(0x4F36);
    const uint32_t tv = nvfp4_tensor_scale(p, 0x40400000u);  // amax_t 3
    const Nvfp4Plan pl = nvfp4_plan(p, tv);
    REQUIRE(pl.n_cand == 2);
    std::vector<uint32_t> blocks;
    int ties = 0, one_ulp = 0, order_flips = 0;
    auto keep = [&](const std::vector<uint32_t>& x) {
      const Sums4over6 r = sums_4over6(pl, x.data());
      if (r.code[0] == r.code[1]) return;
      const auto b0 = std::bit_cast<int32_t>(r.S[0]),
                 b1 = std::bit_cast<int32_t>(r.S[1]);
      if (std::abs(b0 - b1) > 8) return;
      ties += b0 == b1;
      one_ulp += std::abs(b0 - b1) == 1;
      order_flips += (r.S[1] < r.S[0]) != (r.s[1] < r.s[0]);
      blocks.insert(blocks.end(), x.begin(), x.end());
    };
    for (int rep = 0; rep < 300 && blocks.size() < 16 * 4000; ++rep) {
      // The amax (element 0) in [2, 3), the rest below it.
      std::vector<uint32_t> x(16);
      x[0] = 0x40000000u | (static_cast<uint32_t>(g.next()) & 0x7FFFFFu);
      const float amax = std::bit_cast<float>(x[0]);
      for (size_t i = 1; i < 16; ++i) {
        const double u = double(g.next() >> 11) * 0x1p-53;
        x[i] = std::bit_cast<uint32_t>(float(amax * (2 * u - 1)));
      }
      // Element k through [0, amax): where S1 - S0 changes sign between
      // two neighbours, bisect on the bit pattern to the crossing.
      const size_t k = 1 + g.next() % 15;
      auto diff_at = [&](uint32_t v) {
        x[k] = v;
        const Sums4over6 r = sums_4over6(pl, x.data());
        return double(r.S[1]) - double(r.S[0]);
      };
      const uint32_t hi = x[0];
      uint32_t prev = 0;
      double dprev = diff_at(prev);
      for (int step = 1; step <= 256; ++step) {
        const uint32_t cur =
            std::bit_cast<uint32_t>(amax * static_cast<float>(step) / 256);
        const double dcur = diff_at(std::min(cur, hi));
        if ((dprev < 0) != (dcur < 0)) {
          uint32_t lo = prev, up = std::min(cur, hi);
          while (up - lo > 1) {
            const uint32_t mid = lo + (up - lo) / 2;
            if ((diff_at(mid) < 0) == (dprev < 0)) {
              lo = mid;
            } else {
              up = mid;
            }
          }
          for (uint32_t v = lo - std::min(lo, 8u); v <= up + 8; ++v) {
            x[k] = v;
            keep(x);
          }
        }
        prev = std::min(cur, hi);
        dprev = dcur;
      }
    }
    const size_t nb = blocks.size() / 16;
    INFO(
        fmt::format("{}: {} blocks, {} ties, {} 1 ulp apart, {} whose "
                    "in-order decision differs from the exact one",
                    p.name, nb, ties, one_ulp, order_flips));
    REQUIRE(nb >= 100);
    CHECK(ties > 0);
    CHECK(one_ulp > 0);
    CHECK(order_flips > 0);
    std::vector<uint8_t> fs(nb), fc(16 * nb), rs(nb), rc(16 * nb);
    for (size_t b = 0; b < nb; ++b) {
      const Nvfp4Block r = ref_block(
          p, tv, std::span<const uint32_t>(blocks).subspan(16 * b, 16));
      rs[b] = r.scale;
      std::copy(r.codes.begin(), r.codes.end(),
                rc.begin() + static_cast<long>(16 * b));
    }
    const uint64_t before = fast::nvfp4_close_calls();
    REQUIRE(fast::nvfp4_quantize_rowwise(p, tv, 1, static_cast<int>(16 * nb),
                                         blocks.data(), fs.data(), fc.data()));
    const uint64_t closes = fast::nvfp4_close_calls() - before;
    INFO(fmt::format("close calls: {}", closes));
    CHECK(diff(fs, rs) == "");
    CHECK(diff(fc, rc) == "");
    if (sw.label.find("portable") == std::string::npos) CHECK(closes > 0);
  }
  std::printf("%s: %s checked\n", "fast NVFP4 4over6 close calls",
              sw.label.c_str());
}

// The 4over6 kernel's E2M1 conversion (nvfp4_hwy.cpp MagE2M1: the code from
// the sum's low three bits, the binade offset folded into the constant)
// against the rounding core's f32 -> E2M1, RNE, satfinite (convert): every
// E2M1 value and midpoint and the binade edges, each with its 8 nearest
// binary32 neighbours on either side, the least subnormals, values far above
// the largest (up to FLT_MAX), and random values below 8, on every SIMD ISA.
TEST_CASE("fast NVFP4 4over6: E2M1 magnitude codes round as the core",
          "[fast][block]") {
  std::vector<uint32_t> y;
  const auto around = [&](float v) {
    const auto u = std::bit_cast<uint32_t>(v);
    y.push_back(u);
    for (uint32_t d = 1; d <= 8; ++d) {
      y.push_back(u + d);
      if (u >= d) y.push_back(u - d);
    }
  };
  for (float v : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f,
                  2.5f, 3.0f, 3.5f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f, 16.0f})
    around(v);
  for (uint32_t u : {0x00000001u, 0x007FFFFFu, 0x00800000u, 0x3E800000u,
                     0x4B000000u, 0x7F000000u, 0x7F7FFFFFu})
    y.push_back(u);
  SplitMix64 g(0xE2A1);
  for (int i = 0; i < 4096; ++i)  // [0, 8): exponent fields 0..129
    y.push_back(static_cast<uint32_t>(g.next() % 0x41000000u));
  std::vector<uint32_t> ref(y.size());
  const RoundSpec rs{Round::kRNE, Overflow::kSatFinite};
  for (size_t i = 0; i < y.size(); ++i)
    ref[i] = static_cast<uint32_t>(convert(Fmt::kF32, Fmt::kE2M1, y[i], rs));
  const Nvfp4Profile& p = *find_nvfp4_profile("te-nvfp4-4over6");
  for (fast::Isa isa : test::isas()) {
    if (isa == fast::Isa::kScalar) continue;  // the portable plan: no MagE2M1
    const Switches sw(isa);
    INFO(sw.label);
    const fast::detail::NvTab* t =
        fast::detail::nv_table(p, nvfp4_tensor_scale(p, 0x40400000u));
    REQUIRE(t != nullptr);
    std::vector<uint32_t> q(y.size());
    fast::detail::nv_e2m1_mag_simd(isa, *t, y.data(), y.size(), q.data());
    size_t bad = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      if (q[i] == ref[i]) continue;
      if (bad++ < 8)
        UNSCOPED_INFO(fmt::format("y = {:#010x} ({}): code {} (core {})", y[i],
                                  std::bit_cast<float>(y[i]), q[i], ref[i]));
    }
    CHECK(bad == 0);
    std::printf("%s: %zu values on %s checked\n",
                "fast NVFP4 4over6 E2M1 magnitudes", y.size(),
                sw.label.c_str());
  }
}
