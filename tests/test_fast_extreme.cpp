// Issue 22 ("no profile takes the reference path for finite inputs"), at
// the ends of the f32 range: blocks whose amax lies near FLT_MAX, around
// 2^+-100, at 2^-126 or among the f32 subnormals, mixed with tiny elements
// (f32 subnormals, zeros of both signs, exact ties of the element rounding
// and their neighbours at the block's scale, values near 2^-126). Their
// scale bytes sit near 0 or 254, where the fused kernels' conversion
// constants (quantize_fused.h) leave the normal f32 range and where the
// staged path's exponent-field scaling (quantize_stage.h) does not apply.
// For every MX profile x element format and every NVFP4 profile, on every
// path and ISA this build and CPU run (fused kernels per SIMD target, the
// portable path on each ISA), rowwise and columnwise: the codes and scales
// equal the reference bit for bit, and the fast engine calls neither the
// per-element MX reference (mx_encode_element_calls) nor the NVFP4
// reference block (nvfp4_reference_block_calls; with stochastic rounding
// also nvfp4_sr_reference_blocks), except for the cases
// listed below with the reason (kKeepsReference: none for MX;
// nvfp4_degenerate: all-subnormal tensors under two NVFP4 rules).
#include <fmt/format.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "byte_diff.h"
#include "conformance/splitmix64.h"
#include "emu/block/nvfp4_plan.h"
#include "emu/block/quantize.h"
#include "emu/block/scale.h"
#include "emu/fast/nvfp4_fast.h"
#include "emu/fast/nvfp4_sr.h"
#include "emu/fast/quantize_fast.h"
#include "test_isas.h"
#include "test_level.h"

using namespace mxc;

namespace {

constexpr Fmt kElems[] = {Fmt::kE4M3, Fmt::kE5M2, Fmt::kE3M2, Fmt::kE2M3,
                          Fmt::kE2M1};

// Block amaxes (magnitude bits) across the whole f32 range: every binade
// from 2^100 up and from 2^-100 down, a few in between, each at its ends,
// its middle and one random significand; the f32 subnormals.
std::vector<uint32_t> extreme_amaxes(SplitMix64& g) {
  std::vector<uint32_t> v;
  // Level 0 (sanitizer builds): every 5th binade.
  const int stride = test::level() <= 0 ? 5 : 1;
  for (int E = 254; E >= 1; E -= stride) {
    if (E < 227 && E > 27 && E != 127 && E != 100 && E != 154) continue;
    for (uint32_t m : {0u, 0x7FFFFFu, 0x400000u,
                       static_cast<uint32_t>(g.next()) & 0x7FFFFFu})
      v.push_back((static_cast<uint32_t>(E) << 23) | m);
  }
  for (uint32_t s : {0x7FFFFFu, 0x400000u, 0x1000u, 0x10u, 0x3u, 0x1u,
                     static_cast<uint32_t>(g.next()) & 0x7FFFFFu})
    v.push_back(s);
  return v;
}

uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }

// A block of n with amax exactly `amax` (sign random) and the rest at most
// that: elements a few binades down, f32 subnormals, +-0, values at
// 2^-126, and exact ties (and their neighbours) of the element rounding at
// quantum 2^(emin - m + X) for the scale exponent X (a subnormal element,
// or a normal one in the binade 2^k above it).
std::vector<uint32_t> extreme_block(SplitMix64& g, uint32_t amax, int n,
                                    int emin, int m, int emax, int X) {
  std::vector<uint32_t> x(static_cast<size_t>(n));
  for (auto& v : x) {
    const uint64_t r = g.next();
    const int j = static_cast<int>((r >> 8) % 64);
    uint32_t a = 0;
    switch (r % 8) {
      case 0:  // a few binades below amax, random significand
      case 1: {
        const uint32_t e = amax >> 23, sh = static_cast<uint32_t>(j % 40);
        a = e > sh ? ((e - sh) << 23) |
                         (static_cast<uint32_t>(r >> 20) & 0x7FFFFFu)
                   : static_cast<uint32_t>(r >> 20) & 0x7FFFFFu;
        break;
      }
      case 2:  // an f32 subnormal
        a = static_cast<uint32_t>(r >> 20) & (0x7FFFFFu >> (j % 23));
        break;
      case 3:  // a zero
        a = 0;
        break;
      case 4: {  // 2^-126 and its neighbours
        a = 0x00800000u + static_cast<uint32_t>(j % 3) - 1u;
        break;
      }
      default: {  // a tie of the element rounding or a neighbour
        const int k = static_cast<int>((r >> 16) %
                                       static_cast<uint64_t>(emax - emin + 2)) -
                      1;  // -1: the element's subnormals
        const float q = static_cast<float>(r >> 24 & ((1u << m) - 1u));
        const float t =
            k < 0 ? q + 0.5f : static_cast<float>(1 << m) + q + 0.5f;
        const double val =
            std::ldexp(static_cast<double>(t), emin - m + X + std::max(k, 0));
        float f = static_cast<float>(val);  // rounds where val is tiny
        const int nb = static_cast<int>((r >> 40) % 3);
        if (nb == 1) f = std::nextafter(f, 0.0f);
        if (nb == 2) f = std::nextafter(f, 1e38f);
        a = f32_bits(f) & 0x7FFFFFFFu;
        break;
      }
    }
    if (a > amax) a = amax;
    v = a | ((r >> 62) & 1 ? 0x80000000u : 0u);
  }
  x[g.next() % static_cast<uint64_t>(n)] =
      amax | ((g.next() & 1) ? 0x80000000u : 0u);
  return x;
}

MxBlock ref_block(const MxProfile& p, Fmt elem, std::span<const uint32_t> x) {
  MxBlock b;
  b.scale = mx_scale_byte(p, elem, block_amax(p, x));
  for (uint32_t v : x)
    b.codes.push_back(mx_encode_element(p, elem, b.scale, v));
  return b;
}

// What runs: the fused kernels on one ISA, or (fused == kScalar) the
// portable path on `portable` (as tests/test_fast_quantize.cpp).
struct QuantPath {
  fast::Isa fused, portable;
};
std::vector<QuantPath> quant_paths() {
  std::vector<QuantPath> v;
  for (fast::Isa i : test::isas()) {
    if (i != fast::Isa::kScalar) v.push_back({i, fast::best_convert_isa()});
    v.push_back({fast::Isa::kScalar, i});
  }
  return v;
}

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
  std::string label;
};

// The finite MX blocks that keep the reference, with why. Empty: none.
// The code still sends some cases to the reference (quantize_fast.cpp
// byte_mult kNone: the NaN scale under kExactDivide, whose NaN keeps x's
// sign, and TE's byte 255; patch_by_product: kExactDivide with a rounding
// away from zero, or an exact quotient that overflows f32), but no profile
// reaches them with a finite block: each profile's scale rule keeps the
// byte in range (ocp-v1's NaN byte needs X > 127, an amax above 2^135),
// and every kExactDivide profile rounds to nearest. A profile that does
// reach one fails here and must be listed (or given its fast step).
struct KeepsReference {
  const char* profile;
  const char* why;
};
const std::vector<KeepsReference> kKeepsReference = {};

bool keeps_reference(std::string_view name) {
  for (const KeepsReference& k : kKeepsReference)
    if (name == k.profile) return true;
  return false;
}

// The NVFP4 blocks that keep the reference (listed, with why): under
// torchao's two-level rule (operand fl(fl(1 / t) / s)) and ModelOpt's
// (x / fl(s * t)), a tensor whose amax is at most 2^-126 (an all-subnormal
// tensor) makes the decode scale t so small that 1 / t is +Inf or s * t
// is 0: the element operand is Inf (or the divisor 0), and a zero element
// gives 0 * Inf or 0 / 0, the reference's NaN through the E2M1 cast. The
// plan marks those scale codes inexact (emu/block/nvfp4_plan.h
// Nvfp4Candidate::exact) and the fast engine gives those blocks to the
// reference; the test expects exactly those blocks and nothing else.
bool nvfp4_degenerate(const Nvfp4Profile& p) {
  return p.rule == Nvfp4Rule::kTorchao || p.rule == Nvfp4Rule::kModelopt;
}

}  // namespace

TEST_CASE("fast MX quantization: extreme scales, no reference calls",
          "[fast][block][extreme]") {
  const QuantPath path = GENERATE(from_range(quant_paths()));
  const FusedSwitch sw(path);
  INFO(sw.label);
  SplitMix64 g(0xE7E3);
  const std::vector<uint32_t> amaxes = extreme_amaxes(g);
  for (const MxProfile& p : mx_profiles()) {
    for (Fmt elem : kElems) {
      if (!fast::mx_covers(p, elem)) continue;
      const FormatDesc& d = desc(elem);
      const int m = d.man_bits, emin = 1 - d.bias;
      const int emax = static_cast<int>(elem_max_f32(elem) >> 23) - 127;
      const int n = p.block;
      test::Tally t;
      std::set<int> ref_bytes;  // scale bytes of blocks that called it
      std::vector<uint32_t> blocks;
      for (uint32_t amax : amaxes) {
        for (int rep = 0; rep < 2; ++rep) {
          const uint8_t s0 = mx_scale_byte(p, elem, amax);
          const int X = s0 == 0xFF ? 0 : int{s0} - 127;
          const std::vector<uint32_t> x =
              extreme_block(g, amax, n, emin, m, emax, X);
          const uint64_t before = mx_encode_element_calls();
          const MxBlock f = mx_quantize_block(p, elem, x);
          if (mx_encode_element_calls() != before) ref_bytes.insert(f.scale);
          const MxBlock r = ref_block(p, elem, x);
          ++t.cases;
          if ((f.scale != r.scale || f.codes != r.codes) && ++t.fails <= 5) {
            std::string s;
            for (size_t i = 0; i < x.size(); ++i)
              if (f.codes[i] != r.codes[i])
                s += fmt::format(" [{}] {:#010x}: {:#04x} vs {:#04x}", i, x[i],
                                 f.codes[i], r.codes[i]);
            UNSCOPED_INFO(
                fmt::format("{} {} amax {:#010x}: scale {:#04x} vs "
                            "{:#04x};{}",
                            p.name, d.name, amax, f.scale, r.scale, s));
          }
          blocks.insert(blocks.end(), x.begin(), x.end());
        }
      }
      // The same blocks as one matrix rowwise (a block per row) and
      // columnwise (a block per column: the transpose; a multiple of 16
      // columns, the rest dropped).
      const int rows = static_cast<int>(blocks.size()) / n;
      const int cols16 = rows - rows % 16;
      std::vector<uint32_t> tr(static_cast<size_t>(cols16) * n);
      for (int b = 0; b < cols16; ++b)
        for (int i = 0; i < n; ++i)
          tr[static_cast<size_t>(i) * cols16 + b] =
              blocks[static_cast<size_t>(b) * n + i];
      const uint64_t before = mx_encode_element_calls();
      const MxMatrix fr = mx_quantize_rowwise(p, elem, rows, n, blocks);
      const uint64_t mid = mx_encode_element_calls();
      const MxMatrix fc = mx_quantize_colwise(p, elem, n, cols16, tr);
      const uint64_t row_calls = mid - before,
                     col_calls = mx_encode_element_calls() - mid;
      for (int b = 0; b < rows; ++b) {
        const MxBlock r =
            ref_block(p, elem,
                      std::span<const uint32_t>(blocks).subspan(
                          static_cast<size_t>(b) * n, static_cast<size_t>(n)));
        bool ok = fr.scales[static_cast<size_t>(b)] == r.scale;
        for (int i = 0; i < n; ++i) {
          ok = ok && fr.codes[static_cast<size_t>(b) * n + i] ==
                         r.codes[static_cast<size_t>(i)];
          if (b < cols16)
            ok = ok &&
                 fc.codes[static_cast<size_t>(i) * cols16 + b] ==
                     r.codes[static_cast<size_t>(i)] &&
                 fc.scales[static_cast<size_t>(b)] == r.scale;
        }
        if (!ok && ++t.fails <= 5)
          UNSCOPED_INFO(
              fmt::format("{} {}: matrix block {}", p.name, d.name, b));
      }
      std::string bytes;
      for (int s : ref_bytes) bytes += fmt::format(" {}", s);
      INFO(
          fmt::format("{} {}: {} blocks; reference calls: blocks with scale "
                      "bytes [{}], rowwise {}, columnwise {}",
                      p.name, d.name, t.cases, bytes, row_calls, col_calls));
      CHECK(t.fails == 0);
      if (!keeps_reference(p.name)) {
        CHECK(ref_bytes.empty());
        CHECK(row_calls == 0);
        CHECK(col_calls == 0);
      }
    }
  }
  for (const KeepsReference& k : kKeepsReference) {
    INFO(k.profile);
    CHECK(find_mx_profile(k.profile) != nullptr);
  }
  std::printf("%s: %s checked\n", "fast MX quantization, extreme scales",
              sw.label.c_str());
}

TEST_CASE("fast NVFP4 quantization: extreme scales, no reference calls",
          "[fast][block][extreme]") {
  const fast::Isa isa = GENERATE(from_range(test::isas()));
  fast::set_fused_isa(isa);
  const std::string label =
      isa == fast::Isa::kScalar
          ? std::string("portable path (fused kernels off)")
          : fmt::format("fused kernels on {}", fast::isa_name(isa));
  INFO(label);
  SplitMix64 g(0xE7E4);
  const std::vector<uint32_t> amaxes = extreme_amaxes(g);
  for (const Nvfp4Profile& p : nvfp4_profiles()) {
    // Tensor values from tensor amaxes across the range (each block's
    // amax at most the tensor's).
    for (uint32_t amax_t : {0x7F7FFFFFu, 0x72000000u, 0x3F800000u, 0x0D000000u,
                            0x00800000u, 0x00001000u, 0x00000001u}) {
      const uint32_t tv = nvfp4_tensor_scale(p, amax_t);
      test::Tally t;
      std::vector<uint32_t> blocks;
      // At least 16 blocks (one columnwise pass): the amaxes up to the
      // tensor's, repeated with new elements.
      while (blocks.size() < 16 * 16) {
        for (uint32_t amax : amaxes) {
          if (amax > amax_t) continue;
          std::vector<uint32_t> x = extreme_block(g, amax, 16, 0, 1, 2, 0);
          blocks.insert(blocks.end(), x.begin(), x.end());
        }
      }
      const int rows = static_cast<int>(blocks.size()) / 16;
      const int rows16 = rows - rows % 16;
      blocks.resize(static_cast<size_t>(rows16) * 16);
      std::vector<uint8_t> fs(static_cast<size_t>(rows16)), fc(blocks.size()),
          cs(fs.size()), cc(blocks.size());
      // Rowwise: one block per row of 16; columnwise: the transpose.
      std::vector<uint32_t> tr(blocks.size());
      for (int b = 0; b < rows16; ++b)
        for (int i = 0; i < 16; ++i)
          tr[static_cast<size_t>(i) * rows16 + b] =
              blocks[static_cast<size_t>(b) * 16 + i];
      const Nvfp4Plan pl = nvfp4_plan(p, tv);
      uint64_t expected = 0;
      const uint64_t before = nvfp4_reference_block_calls();
      REQUIRE(fast::nvfp4_quantize_rowwise(p, tv, rows16, 16, blocks.data(),
                                           fs.data(), fc.data()));
      REQUIRE(fast::nvfp4_quantize_colwise(p, tv, 16, rows16, tr.data(),
                                           cs.data(), cc.data()));
      const uint64_t calls = nvfp4_reference_block_calls() - before;
      fast::set_nvfp4_fast_enabled(false);
      for (int b = 0; b < rows16; ++b) {
        const auto x = std::span<const uint32_t>(blocks).subspan(
            static_cast<size_t>(b) * 16, 16);
        const Nvfp4Block r = nvfp4_quantize_block(p, tv, x);
        bool ok = fs[static_cast<size_t>(b)] == r.scale &&
                  cs[static_cast<size_t>(b)] == r.scale;
        for (int i = 0; i < 16; ++i)
          ok = ok &&
               fc[static_cast<size_t>(b) * 16 + i] ==
                   r.codes[static_cast<size_t>(i)] &&
               cc[static_cast<size_t>(i) * rows16 + b] ==
                   r.codes[static_cast<size_t>(i)];
        ++t.cases;
        if (!ok && ++t.fails <= 5)
          UNSCOPED_INFO(fmt::format("{} tv {:#010x}: block {} amax {:#010x}",
                                    p.name, tv, b, tensor_amax(x)));
        // The listed case: a scale code whose operand the plan marks
        // inexact (rowwise and columnwise: two reference blocks).
        if (pl.n_cand == 1 && r.scale < 0x80 && !pl.cand[0].exact[r.scale])
          expected += 2;
      }
      fast::set_nvfp4_fast_enabled(true);
      // Stochastic rounding (the profiles that have it, emu/fast/nvfp4_sr.h):
      // the same blocks with random bits, rowwise and columnwise, against
      // the reference block with the same bits.
      std::vector<uint32_t> rb(blocks.size()), rbt(blocks.size());
      for (auto& v : rb) v = static_cast<uint32_t>(g.next());
      for (int b = 0; b < rows16; ++b)
        for (int i = 0; i < 16; ++i)
          rbt[static_cast<size_t>(i) * rows16 + b] =
              rb[static_cast<size_t>(b) * 16 + i];
      const uint64_t sr_before =
          fast::nvfp4_sr_reference_blocks() + nvfp4_reference_block_calls();
      const bool sr = fast::nvfp4_quantize_rowwise_sr(
          p, tv, rows16, 16, blocks.data(), rb.data(), fs.data(), fc.data());
      uint64_t sr_calls = 0;
      if (sr) {
        REQUIRE(fast::nvfp4_quantize_colwise_sr(
            p, tv, 16, rows16, tr.data(), rbt.data(), cs.data(), cc.data()));
        sr_calls = fast::nvfp4_sr_reference_blocks() +
                   nvfp4_reference_block_calls() - sr_before;
        fast::set_nvfp4_fast_enabled(false);
        for (int b = 0; b < rows16; ++b) {
          const size_t o = static_cast<size_t>(b) * 16;
          const auto x = std::span<const uint32_t>(blocks).subspan(o, 16);
          const Nvfp4Block r = nvfp4_quantize_block(
              p, tv, x, std::span<const uint32_t>(rb).subspan(o, 16));
          bool ok = fs[static_cast<size_t>(b)] == r.scale &&
                    cs[static_cast<size_t>(b)] == r.scale;
          for (size_t i = 0; i < 16; ++i)
            ok = ok && fc[o + i] == r.codes[i] &&
                 cc[i * static_cast<size_t>(rows16) + static_cast<size_t>(b)] ==
                     r.codes[i];
          ++t.cases;
          if (!ok && ++t.fails <= 5)
            UNSCOPED_INFO(
                fmt::format("{} SR tv {:#010x}: block {}", p.name, tv, b));
        }
        fast::set_nvfp4_fast_enabled(true);
      }
      INFO(
          fmt::format("{} tensor amax {:#010x} (value {:#010x}): {} blocks, "
                      "{} reference blocks, {} listed; stochastic rounding: "
                      "{}, {} reference blocks",
                      p.name, amax_t, tv, t.cases, calls, expected,
                      sr ? "yes" : "no", sr_calls));
      CHECK(t.fails == 0);
      CHECK(calls == expected);
      CHECK(sr_calls == 0);
      if (expected != 0) {
        CHECK(nvfp4_degenerate(p));
        CHECK(amax_t <= 0x00800000u);
      }
    }
  }
  fast::reset_fused_isa();
  std::printf("%s: %s checked\n", "fast NVFP4 quantization, extreme scales",
              label.c_str());
}
