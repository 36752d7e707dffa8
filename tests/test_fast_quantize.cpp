// The fast MX quantization path (emu/fast/quantize_fast.h, dispatched from
// mx_quantize_block / _rowwise / _colwise) against the reference composition
// it replaces (block_amax, mx_scale_byte, mx_encode_element per element), on
// every MX profile and element format: the named corner blocks, the random
// block classes, blocks with amax in every binade (and near the element's
// max times every power of two), random bit patterns, and whole matrices
// rowwise and columnwise. Each test runs on every ISA the build and the CPU
// have: the fused kernels (one Highway source) on each SIMD target, and the
// portable staged path (Isa::kScalar).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "byte_diff.h"
#include "conformance/block_cases.h"
#include "conformance/splitmix64.h"
#include "emu/block/quantize.h"
#include "emu/block/scale.h"
#include "emu/fast/nvfp4_fast.h"
#include "emu/fast/quantize_fast.h"
#include "test_isas.h"
#include "test_level.h"

using namespace mxc;

namespace {

constexpr Fmt kElems[] = {Fmt::kE4M3, Fmt::kE5M2, Fmt::kE3M2, Fmt::kE2M3,
                          Fmt::kE2M1};

MxBlock ref_block(const MxProfile& p, Fmt elem, std::span<const uint32_t> x) {
  MxBlock b;
  b.scale = mx_scale_byte(p, elem, block_amax(p, x));
  for (uint32_t v : x)
    b.codes.push_back(mx_encode_element(p, elem, b.scale, v));
  return b;
}

using test::Tally;
const auto& diff = test::byte_diff;

void check_block(const MxProfile& p, Fmt elem, const std::vector<uint32_t>& x,
                 Tally& t, const std::string& what) {
  ++t.cases;
  const MxBlock f = mx_quantize_block(p, elem, x);
  const MxBlock r = ref_block(p, elem, x);
  if (f.scale != r.scale || f.codes != r.codes) {
    if (++t.fails <= 5) {
      std::string s;
      for (size_t i = 0; i < x.size(); ++i) {
        if (i < r.codes.size() && f.codes[i] != r.codes[i])
          s += fmt::format(" [{}] {:#010x}: {:#04x} vs {:#04x}", i, x[i],
                           f.codes[i], r.codes[i]);
      }
      UNSCOPED_INFO(fmt::format("{} {} {}: scale {:#04x} vs {:#04x};{}", p.name,
                                desc(elem).name, what, f.scale, r.scale, s));
    }
  }
}

size_t reps() {
  const int lv = test::level();
  return lv <= 0 ? 4 : lv == 1 ? 40 : 2000;
}

}  // namespace

// What a test runs: the fused kernels on one ISA, or (fused == kScalar) the
// portable path, its staging loop and run_plan on `portable`; every ISA
// this build and CPU run, for both.
struct QuantPath {
  fast::Isa fused, portable;
};
static std::vector<QuantPath> quant_paths() {
  std::vector<QuantPath> v;
  for (fast::Isa i : test::isas()) {
    if (i != fast::Isa::kScalar) v.push_back({i, fast::best_convert_isa()});
    v.push_back({fast::Isa::kScalar, i});
  }
  return v;
}

// Switches to one path; restores the default when a test ends.
struct FusedSwitch {
  explicit FusedSwitch(QuantPath path)
      : label(path.fused == fast::Isa::kScalar
                  ? fmt::format("portable path (fused kernels off) on {}",
                                fast::isa_name(path.portable))
                  : fmt::format("fused kernels on {} ({})",
                                fast::isa_name(path.fused),
                                fast::isa_target_name(path.fused))) {
    fast::set_fused_isa(path.fused);
    fast::set_portable_isa(path.portable);
  }
  ~FusedSwitch() { fast::reset_fused_isa(); }
  std::string label;  // what ran, for messages
};

TEST_CASE("fast MX quantization: blocks equal the reference", "[fast][block]") {
  // Every path on every ISA this build and CPU run (quant_paths).
  const FusedSwitch sw(GENERATE(from_range(quant_paths())));
  INFO(sw.label);
  SplitMix64 g(0x9A17);
  for (const MxProfile& p : mx_profiles()) {
    for (Fmt elem : kElems) {
      Tally t;
      const int n = p.block;
      for (size_t i = 0; i < named_block_count(); ++i)
        check_block(p, elem, named_block(i, n), t,
                    std::string(named_block_name(i)));
      for (size_t c = 0; c < block_class_count(); ++c)
        for (size_t k = 0; k < reps(); ++k)
          check_block(p, elem, block_class_case(c, g, n, elem), t,
                      std::string(block_class_name(c)));
      // amax in every binade (subnormal included), at its ends and inside;
      // then amax = max_elem * 2^k +- a few ulps; elements spread below.
      std::vector<uint32_t> x(n);
      auto fill_below = [&](uint32_t amax) {
        for (int i = 0; i < n; ++i) {
          const uint64_t r = g.next();
          const uint32_t shift = static_cast<uint32_t>(r % 40);
          const uint32_t e = amax >> 23;
          const uint32_t v = shift < e
                                 ? amax - (shift << 23) - ((r >> 8) & 0xFFFF)
                                 : static_cast<uint32_t>(r >> 20) & 0xFFFF;
          x[i] = (v > amax ? amax : v) | ((r >> 40) & 1 ? 0x80000000u : 0);
        }
        x[static_cast<size_t>(g.next() % static_cast<uint64_t>(n))] =
            amax | ((g.next() & 1) ? 0x80000000u : 0);
      };
      // Level 0 (sanitizer builds): every 11th binade and k, from a random
      // start.
      const uint32_t stride = test::level() <= 0 ? 11 : 1;
      for (uint32_t E = static_cast<uint32_t>(g.next() % stride); E < 255;
           E += stride) {
        for (uint32_t m : {0u, 1u, 0x400000u, 0x7FFFFFu,
                           static_cast<uint32_t>(g.next()) & 0x7FFFFFu}) {
          fill_below((E << 23) | m);
          check_block(p, elem, x, t, fmt::format("binade {}", E));
        }
      }
      const uint32_t mx = elem_max_f32(elem);
      for (int k = -140 + static_cast<int>(g.next() % stride); k <= 130;
           k += static_cast<int>(stride)) {
        const int E = static_cast<int>(mx >> 23) + k;
        if (E < 1 || E > 254) continue;
        const uint32_t base =
            (static_cast<uint32_t>(E) << 23) | (mx & 0x7FFFFF);
        for (int du = -3; du <= 3; ++du) {
          fill_below(base + static_cast<uint32_t>(du));
          check_block(p, elem, x, t, fmt::format("max*2^{}{:+}ulp", k, du));
        }
      }
      // Random bit patterns (every exponent, specials included).
      for (size_t k = 0; k < reps() * 20; ++k) {
        for (auto& v : x) v = static_cast<uint32_t>(g.next());
        if (k % 2 == 0)
          for (auto& v : x)
            v = (v & 0x807FFFFFu) | ((100 + (v >> 23) % 60) << 23);
        check_block(p, elem, x, t, "random bits");
      }
      INFO(fmt::format("{} {}: {} blocks", p.name, desc(elem).name, t.cases));
      CHECK(t.fails == 0);
    }
  }
  std::printf("%s: %s checked\n", "fast MX quantization blocks",
              sw.label.c_str());
}

TEST_CASE("fast MX quantization: matrices rowwise and columnwise",
          "[fast][block]") {
  // Every path on every ISA this build and CPU run (quant_paths).
  const FusedSwitch sw(GENERATE(from_range(quant_paths())));
  INFO(sw.label);
  SplitMix64 g(0x9A18);
  for (const MxProfile& p : mx_profiles()) {
    for (Fmt elem : kElems) {
      const int B = p.block;
      // At least one 256-column pass of the columnwise kernel plus a tail;
      // 70 blocks wide for the 32-element profiles at level >= 1.
      const int wide = B == 32 && test::level() >= 1 ? 70 * B : 3 * B + 256;
      for (auto [rb, cols] :
           {std::pair{1, B}, std::pair{3, 5 * B}, std::pair{2, wide},
            std::pair{2, 3 * B + 7}, std::pair{1, 21}}) {
        // rows = rb * B; every B-run of x a random block class. Columns
        // not a multiple of B (or of 16) are quantized columnwise only.
        const int rows = rb * B;
        const bool row_ok = cols % B == 0;
        std::vector<uint32_t> x(static_cast<size_t>(rows) * cols);
        for (size_t i = 0; i < x.size(); i += static_cast<size_t>(B)) {
          const auto blk =
              block_class_case(g.next() % block_class_count(), g, B, elem);
          std::copy(blk.begin(), blk.end(), x.begin() + static_cast<long>(i));
        }
        const MxMatrix fr =
            row_ok ? mx_quantize_rowwise(p, elem, rows, cols, x) : MxMatrix{};
        const MxMatrix fc = mx_quantize_colwise(p, elem, rows, cols, x);
        // References from reference blocks.
        MxMatrix rr, rc;
        rr.codes.resize(x.size());
        rc.codes.resize(x.size());
        rc.scales.resize(static_cast<size_t>(rows / B) * cols);
        if (!row_ok) rr.codes.clear();
        for (int r = 0; r < rows && row_ok; ++r) {
          for (int c0 = 0; c0 < cols; c0 += B) {
            const auto b =
                ref_block(p, elem,
                          std::span<const uint32_t>(x).subspan(
                              static_cast<size_t>(r) * cols + c0, B));
            rr.scales.push_back(b.scale);
            std::copy(b.codes.begin(), b.codes.end(),
                      rr.codes.begin() + static_cast<long>(r) * cols + c0);
          }
        }
        std::vector<uint32_t> col(B);
        for (int r0 = 0; r0 < rows; r0 += B) {
          for (int c = 0; c < cols; ++c) {
            for (int i = 0; i < B; ++i)
              col[i] = x[static_cast<size_t>(r0 + i) * cols + c];
            const auto b = ref_block(p, elem, col);
            rc.scales[static_cast<size_t>(r0 / B) * cols + c] = b.scale;
            for (int i = 0; i < B; ++i)
              rc.codes[static_cast<size_t>(r0 + i) * cols + c] = b.codes[i];
          }
        }
        INFO(fmt::format("{} {} {}x{}", p.name, desc(elem).name, rows, cols));
        CHECK(diff(fr.scales, rr.scales) == "");
        CHECK(diff(fr.codes, rr.codes) == "");
        CHECK(diff(fc.scales, rc.scales) == "");
        CHECK(diff(fc.codes, rc.codes) == "");
      }
      // Rowwise block counts that are not a multiple of the lanes: the
      // kernel takes the amaxes of Lanes blocks at once (GroupAbsMax), the
      // rest one by one.
      for (int rows : {3, 19, 37}) {
        const int cols = 2 * B;
        std::vector<uint32_t> x(static_cast<size_t>(rows) * cols);
        for (size_t i = 0; i < x.size(); i += static_cast<size_t>(B)) {
          const auto blk =
              block_class_case(g.next() % block_class_count(), g, B, elem);
          std::copy(blk.begin(), blk.end(), x.begin() + static_cast<long>(i));
        }
        const MxMatrix fr = mx_quantize_rowwise(p, elem, rows, cols, x);
        std::string bad;
        for (size_t b = 0; b < x.size() / static_cast<size_t>(B); ++b) {
          const auto r = ref_block(
              p, elem,
              std::span<const uint32_t>(x).subspan(b * static_cast<size_t>(B),
                                                   static_cast<size_t>(B)));
          const bool same =
              fr.scales[b] == r.scale &&
              std::equal(r.codes.begin(), r.codes.end(),
                         fr.codes.begin() + static_cast<long>(b) * B);
          if (!same && bad.empty())
            bad = fmt::format("{} {} {} rows: block {} differs", p.name,
                              desc(elem).name, rows, b);
        }
        CHECK(bad == "");
      }
    }
  }
  std::printf("%s: %s checked\n", "fast MX quantization matrices",
              sw.label.c_str());
}

// Issue 22 ("no silent fallback"), as a ratchet until every rule has its
// fast step: each profile either takes the fast engine for a finite block
// or is on this list of profiles whose rules the engine does not run yet,
// with the rule that keeps it off. A profile that declines without being
// listed fails (a new rule added without its fast step), and so does a
// listed profile that the engine now takes (delete its line).
TEST_CASE("fast engine coverage: only the listed profiles take the reference",
          "[fast][block][coverage]") {
  struct NotYet {
    const char* profile;
    const char* why;
  };
  // Empty: every profile runs the fast engine (issue 22).
  const std::vector<NotYet> kNotYet = {};
  auto listed = [&](std::string_view name) {
    for (const NotYet& n : kNotYet)
      if (name == n.profile) return true;
    return false;
  };
  // A finite block: 0.5, 1.0, ..., 16 repeating (amax 16), as long as
  // the profile's block (32, or DeepGEMM's 128).
  auto finite_block = [](size_t n) {
    std::vector<uint32_t> v(n);
    for (size_t i = 0; i < n; ++i)
      v[i] = std::bit_cast<uint32_t>(0.5f * static_cast<float>(i % 32 + 1));
    return v;
  };
  std::vector<uint32_t> x = finite_block(16);
  std::vector<uint8_t> codes;
  for (const MxProfile& p : mx_profiles()) {
    uint8_t s = 0;
    x = finite_block(static_cast<size_t>(p.block));
    codes.assign(x.size(), 0);
    const bool fast_ok =
        fast::mx_quantize_block(p, p.default_elem, x.data(),
                                static_cast<size_t>(p.block), s, codes.data());
    INFO(p.name);
    CHECK(fast_ok != listed(p.name));
  }
  x = finite_block(16);
  codes.assign(16, 0);
  for (const Nvfp4Profile& p : nvfp4_profiles()) {
    uint8_t s = 0;
    const uint32_t s_enc = nvfp4_tensor_scale(p, 0x41800000u);  // amax 16
    const bool fast_ok =
        fast::nvfp4_quantize_block(p, s_enc, x.data(), 16, s, codes.data());
    INFO(p.name);
    CHECK(fast_ok != listed(p.name));
  }
  for (const NotYet& n : kNotYet) {
    INFO(n.profile);
    CHECK((find_mx_profile(n.profile) || find_nvfp4_profile(n.profile)));
  }
}

// microxcaling's element rule below the element's least normal (issue 22):
// x / 2^X under 2^emin, where fl(|y| + 0.5) can round (double rounding).
// Blocks with most elements there: exact ties in units of the subnormal
// quantum (y = j + 0.5), a few ulps either side, y = j + 0.5 - 2^-k (the
// sum rounds up to j + 1 in f32), random significands, f32 subnormal
// inputs, both signs, scale exponents from -127 to 127; every path on every
// ISA equals the reference (block, rowwise, columnwise), and the fast
// paths do not call the per-element reference (mx_encode_element) for
// these finite blocks, scale exponents near +-127 included (the fused
// kernels pre-scale those bytes, quantize_fused.h; the portable path
// computes the elements its staging cannot scale by the f32 product).
TEST_CASE("fast MX quantization: microxcaling below the least normal",
          "[fast][block]") {
  const QuantPath path = GENERATE(from_range(quant_paths()));
  const FusedSwitch sw(path);
  INFO(sw.label);
  SplitMix64 g(0x5B0B);
  // Reference calls are counted on every path and every X
  // (tests/test_fast_extreme.cpp checks every profile at the ends).
  int profiles = 0;
  for (const MxProfile& p : mx_profiles()) {
    if (p.apply != ApplyRule::kF32FloorHalfUp) continue;
    ++profiles;
    for (Fmt elem : kElems) {
      const FormatDesc& d = desc(elem);
      const int m = d.man_bits, emin = 1 - d.bias;
      const int emax = static_cast<int>(elem_max_f32(elem) >> 23) - 127;
      const int n = p.block;
      Tally t;
      std::vector<uint32_t> blocks;  // whole blocks, rowwise
      for (int X :
           {-127, -126, -100, -90, -20, -3, 0, 1, 7, 60, 90, 100, 124}) {
        if (emax + X > 127) continue;
        for (int rep = 0; rep < 24; ++rep) {
          std::vector<uint32_t> x(static_cast<size_t>(n));
          for (int i = 0; i < n; ++i) {
            const uint64_t r = g.next();
            const float j = static_cast<float>(r % (1u << m));
            float y = 0;  // |x| / 2^X in units of 2^(emin - m)
            switch ((r >> 8) % 6) {
              case 0:
                y = j + 0.5f;  // an exact tie
                break;
              case 1:
                y = std::nextafter(j + 0.5f, (r >> 12) & 1 ? 0.0f : 64.0f);
                break;
              case 2:  // fl(y + 0.5) rounds up to j + 1
                y = j + 0.5f -
                    std::ldexp(1.0f, -20 - static_cast<int>((r >> 16) % 7));
                break;
              case 3:  // a random significand below 2^m
                y = std::ldexp(static_cast<float>((r >> 20) & 0xFFFFFF),
                               m - 24);
                break;
              case 4:  // far below the quantum
                y = std::ldexp(static_cast<float>((r >> 20) & 0xFFFFFF),
                               -24 - static_cast<int>((r >> 48) % 40));
                break;
              default:  // an f32 subnormal input
                y = -1;
                break;
            }
            uint32_t v =
                y < 0 ? static_cast<uint32_t>(r >> 20) & 0x7FFFFFu
                      : std::bit_cast<uint32_t>(std::ldexp(y, emin - m + X));
            if ((r >> 60) & 1) v |= 0x80000000u;
            x[static_cast<size_t>(i)] = v;
          }
          // amax 1.5 * 2^(emax + X): the scale exponent X.
          x[static_cast<size_t>(g.next() % static_cast<uint64_t>(n))] =
              static_cast<uint32_t>(emax + X + 127) << 23 | 0x400000u;
          const uint64_t before = mx_encode_element_calls();
          const MxBlock f = mx_quantize_block(p, elem, x);
          const uint64_t calls = mx_encode_element_calls() - before;
          if (calls != 0 && ++t.fails <= 5)
            UNSCOPED_INFO(fmt::format("{} {} X={}: {} reference calls", p.name,
                                      d.name, X, calls));
          const MxBlock r = ref_block(p, elem, x);
          ++t.cases;
          if (f.scale != r.scale || f.codes != r.codes) {
            if (++t.fails <= 5) {
              std::string s;
              for (size_t i = 0; i < x.size(); ++i)
                if (f.codes[i] != r.codes[i])
                  s += fmt::format(" [{}] {:#010x}: {:#04x} vs {:#04x}", i,
                                   x[i], f.codes[i], r.codes[i]);
              UNSCOPED_INFO(
                  fmt::format("{} {} X={}: scale {:#04x} vs {:#04x};{}", p.name,
                              d.name, X, f.scale, r.scale, s));
            }
          }
          blocks.insert(blocks.end(), x.begin(), x.end());
        }
      }
      // The same elements as one matrix, rowwise (each block a row) and
      // columnwise (each block a column, through the transpose).
      const int rows = static_cast<int>(blocks.size()) / n;
      const int rows16 = rows - rows % 16;  // colwise: cols a multiple of 16
      std::vector<uint32_t> tr(static_cast<size_t>(rows16 * n));
      for (int b = 0; b < rows16; ++b)
        for (int i = 0; i < n; ++i)
          tr[static_cast<size_t>(i * rows16 + b)] =
              blocks[static_cast<size_t>(b * n + i)];
      const uint64_t before = mx_encode_element_calls();
      const MxMatrix fr = mx_quantize_rowwise(p, elem, rows, n, blocks);
      const MxMatrix fc = mx_quantize_colwise(p, elem, n, rows16, tr);
      const uint64_t calls = mx_encode_element_calls() - before;
      INFO(fmt::format("{} {}: {} blocks, {} reference calls in the matrices",
                       p.name, d.name, t.cases, calls));
      CHECK(calls == 0);
      for (int b = 0; b < rows; ++b) {
        const MxBlock r =
            ref_block(p, elem,
                      std::span<const uint32_t>(blocks).subspan(
                          static_cast<size_t>(b * n), static_cast<size_t>(n)));
        bool ok = fr.scales[static_cast<size_t>(b)] == r.scale;
        for (int i = 0; i < n; ++i) {
          ok = ok && fr.codes[static_cast<size_t>(b * n + i)] ==
                         r.codes[static_cast<size_t>(i)];
          if (b < rows16)
            ok = ok &&
                 fc.codes[static_cast<size_t>(i * rows16 + b)] ==
                     r.codes[static_cast<size_t>(i)] &&
                 fc.scales[static_cast<size_t>(b)] == r.scale;
        }
        if (!ok && ++t.fails <= 5)
          UNSCOPED_INFO(
              fmt::format("{} {}: matrix block {}", p.name, d.name, b));
      }
      CHECK(t.fails == 0);
    }
  }
  CHECK(profiles == 2);
}

// microxcaling's rule above the element's least normal, where the fused
// kernels take the private exponent from A's exponent field
// (quantize_simd-inl.h HalfUpCvt) and the reference takes floor(log2f(|A|)),
// one binade higher a few ulps below 2^k: elements 2^k minus 0 to 8 ulps,
// exact ties of the element's quantum in every normal binade and one ulp
// either side, both signs, several scale exponents; every path on every ISA
// equals the reference (block, rowwise, columnwise).
TEST_CASE("fast MX quantization: microxcaling near powers of two and ties",
          "[fast][block]") {
  const QuantPath path = GENERATE(from_range(quant_paths()));
  const FusedSwitch sw(path);
  INFO(sw.label);
  SplitMix64 g(0x5B0C);
  int profiles = 0;
  for (const MxProfile& p : mx_profiles()) {
    if (p.apply != ApplyRule::kF32FloorHalfUp) continue;
    ++profiles;
    for (Fmt elem : kElems) {
      const FormatDesc& d = desc(elem);
      const int m = d.man_bits, emin = 1 - d.bias;
      const int emax = static_cast<int>(elem_max_f32(elem) >> 23) - 127;
      const int n = p.block;
      Tally t;
      std::vector<uint32_t> blocks;
      for (int X : {-100, -20, 0, 7, 90}) {
        for (int rep = 0; rep < 16; ++rep) {
          std::vector<uint32_t> x(static_cast<size_t>(n));
          for (int i = 0; i < n; ++i) {
            const uint64_t r = g.next();
            const int k =
                emin + static_cast<int>((r >> 8) %
                                        static_cast<uint64_t>(emax - emin + 1));
            float a = 0;         // |x| / 2^X, at most 2^emax
            if ((r & 1) == 0) {  // 2^k minus j ulps
              a = std::bit_cast<float>((static_cast<uint32_t>(k + 127) << 23) -
                                       static_cast<uint32_t>((r >> 16) % 9));
            } else {  // a tie (2^m + j + 0.5) * 2^(k - m), or one ulp off
              const float j = static_cast<float>((r >> 16) % (1u << m));
              a = std::ldexp(static_cast<float>(1 << m) + j + 0.5f, k - m);
              if ((r >> 24) % 3 == 1) a = std::nextafter(a, 0.0f);
              if ((r >> 24) % 3 == 2) a = std::nextafter(a, 64.0f);
              if (k == emax) a = std::min(a, std::ldexp(1.5f, emax));
            }
            uint32_t v = std::bit_cast<uint32_t>(std::ldexp(a, X));
            if ((r >> 60) & 1) v |= 0x80000000u;
            x[static_cast<size_t>(i)] = v;
          }
          // amax 1.5 * 2^(emax + X): the scale exponent X.
          x[static_cast<size_t>(g.next() % static_cast<uint64_t>(n))] =
              static_cast<uint32_t>(emax + X + 127) << 23 | 0x400000u;
          check_block(p, elem, x, t, fmt::format("X={}", X));
          blocks.insert(blocks.end(), x.begin(), x.end());
        }
      }
      // The same blocks as rows, and through the transpose as columns.
      const int rows = static_cast<int>(blocks.size()) / n;
      std::vector<uint32_t> tr(blocks.size());
      for (int b = 0; b < rows; ++b)
        for (int i = 0; i < n; ++i)
          tr[static_cast<size_t>(i * rows + b)] =
              blocks[static_cast<size_t>(b * n + i)];
      const MxMatrix fr = mx_quantize_rowwise(p, elem, rows, n, blocks);
      const MxMatrix fc = mx_quantize_colwise(p, elem, n, rows, tr);
      for (int b = 0; b < rows; ++b) {
        const MxBlock r =
            ref_block(p, elem,
                      std::span<const uint32_t>(blocks).subspan(
                          static_cast<size_t>(b * n), static_cast<size_t>(n)));
        bool ok = fr.scales[static_cast<size_t>(b)] == r.scale &&
                  fc.scales[static_cast<size_t>(b)] == r.scale;
        for (int i = 0; i < n; ++i)
          ok = ok &&
               fr.codes[static_cast<size_t>(b * n + i)] ==
                   r.codes[static_cast<size_t>(i)] &&
               fc.codes[static_cast<size_t>(i * rows + b)] ==
                   r.codes[static_cast<size_t>(i)];
        if (!ok && ++t.fails <= 5)
          UNSCOPED_INFO(
              fmt::format("{} {}: matrix block {}", p.name, d.name, b));
      }
      INFO(fmt::format("{} {}: {} blocks", p.name, d.name, t.cases));
      CHECK(t.fails == 0);
    }
  }
  CHECK(profiles == 2);
}
