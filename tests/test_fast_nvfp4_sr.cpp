// NVFP4 stochastic rounding on the fast engine (emu/fast/nvfp4_sr.h; issue
// 22: SR is one of the plan's cast steps, no reference fallback for finite
// blocks):
//   - the E2M1 SR cast against convert() with Round::kSR and 8 random bits
//     (the generic rounding core, emu/round_pack.cpp) on every binade the
//     elements can reach, all 256 random bytes, both signs, zeros, Inf;
//   - blocks and matrices (rowwise, columnwise with odd widths) of the SR
//     profiles against the reference (the fast paths switched off) on
//     every ISA, with hostile blocks (NaN, Inf, zeros, -0, tiny, huge) and
//     tensor scales across the range; finite matrices hand no block to the
//     reference; profiles without SR are refused, as by the reference.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "conformance/splitmix64.h"
#include "emu/block/quantize.h"
#include "emu/convert.h"
#include "emu/fast/nvfp4_fast.h"
#include "emu/fast/nvfp4_sr.h"
#include "emu/fast/nvfp4_sr_kernel.h"
#include "emu/fast/quantize_fast.h"
#include "test_isas.h"
#include "test_level.h"

using namespace mxc;

namespace {

uint32_t ref_sr(uint32_t y, uint32_t rb) {
  RoundSpec r;
  r.mode = Round::kSR;
  r.overflow = Overflow::kSatFinite;
  r.sr_bits = kSrBitsPtx;
  r.rbits = rb;
  return static_cast<uint32_t>(convert(Fmt::kF32, Fmt::kE2M1, y, r));
}

const Nvfp4Profile& profile(const char* name) {
  const Nvfp4Profile* p = find_nvfp4_profile(name);
  REQUIRE(p != nullptr);
  return *p;
}

// A block of 16: kind 0 random magnitudes below a random amax, 1 with
// zeros and -0, 2 one NaN, 3 one Inf, 4 spanning 2^-149..2^127.
std::vector<uint32_t> block(SplitMix64& g, int kind) {
  std::vector<uint32_t> x(16);
  const uint32_t e = 64 + static_cast<uint32_t>(g.next() % 128);
  for (auto& v : x) {
    const uint64_t r = g.next();
    v = ((e - static_cast<uint32_t>(r % 24)) << 23) |
        (static_cast<uint32_t>(r >> 16) & 0x7FFFFFu) |
        ((r >> 50) & 1 ? 0x80000000u : 0u);
  }
  const size_t i = g.next() % 16;
  if (kind == 1) {
    x[i] = 0x80000000u;
    x[(i + 5) % 16] = 0;
  } else if (kind == 2) {
    x[i] = 0x7FC00000u;
  } else if (kind == 3) {
    x[i] = (g.next() & 1) ? 0xFF800000u : 0x7F800000u;
  } else if (kind == 4) {
    for (auto& v : x)
      v = static_cast<uint32_t>(g.next()) & 0xFF7FFFFFu;  // finite
  }
  return x;
}

std::vector<uint32_t> tensor_scales(const Nvfp4Profile& p) {
  std::vector<uint32_t> s;
  for (uint32_t a : {0x3F800000u, 0x40C00000u, 0x00000001u, 0x00800000u,
                     0x7F7FFFFFu, 0x2F000000u, 0x51000000u, 0x0u})
    s.push_back(nvfp4_tensor_scale(p, a));
  return s;
}

}  // namespace

TEST_CASE("E2M1 stochastic rounding cast equals the rounding core",
          "[fast][nvfp4][sr]") {
  SplitMix64 g(0x5eedu);
  long cases = 0, fails = 0;
  std::vector<uint32_t> ys = {
      0x0u,        0x80000000u, 0x7F800000u, 0xFF800000u, 0x7F7FFFFFu,
      0x00000001u, 0x3F800000u, 0x40C00000u, 0x40E00000u, 0x41000000u,
      0x3F000000u, 0x3EFFFFFFu, 0x3F7FFFFFu};
  // Every binade from subnormal f32 to 2^20: 48 mantissas each.
  for (uint32_t e = 0; e <= 127 + 20; ++e)
    for (int k = 0; k < 48; ++k)
      ys.push_back((e << 23) | (static_cast<uint32_t>(g.next()) & 0x7FFFFFu));
  for (uint32_t y0 : std::vector<uint32_t>(ys)) ys.push_back(y0 ^ 0x80000000u);
  for (uint32_t y : ys) {
    for (uint32_t rb = 0; rb < 256; ++rb) {
      // The high bits of the word are ignored (8 random bits per element).
      const uint32_t word = rb | (static_cast<uint32_t>(g.next()) << 8);
      ++cases;
      const uint32_t f = fast::detail::e2m1_sr(y, word);
      const uint32_t r = ref_sr(y, word);
      if (f != r && ++fails <= 5)
        UNSCOPED_INFO(fmt::format("y {:#010x} rbits {:#010x}: {:#x} vs {:#x}",
                                  y, word, f, r));
    }
  }
  INFO(fmt::format("{} (value, random byte) pairs", cases));
  CHECK(fails == 0);
  CHECK(cases > 1000000);
}

TEST_CASE("NVFP4 stochastic rounding runs the fast engine bit-exactly",
          "[fast][nvfp4][sr]") {
  const int reps = test::level() <= 0 ? 6 : 40;
  for (const char* name : {"te-nvfp4", "cutlass-host-nvfp4"}) {
    const Nvfp4Profile& p = profile(name);
    REQUIRE(nvfp4_has_sr(p));
    for (fast::Isa isa : test::isas()) {
      fast::set_fused_isa(isa);
      SplitMix64 g(0xabcdu);
      long blocks = 0, fails = 0;
      for (uint32_t s_enc : tensor_scales(p)) {
        for (int rep = 0; rep < reps; ++rep) {
          // Matrices: rows x cols with blocks of every kind; finite ones
          // (kinds 0, 1, 4) first, then with NaN / Inf blocks.
          for (bool hostile : {false, true}) {
            const int rows = 32, cols = 16 * 3 + (rep % 2 ? 0 : 16);
            const size_t n = size_t(rows) * size_t(cols);
            std::vector<uint32_t> x, rb(n);
            while (x.size() < n) {
              int kind = static_cast<int>(g.next() % 5);
              if (!hostile && (kind == 2 || kind == 3)) kind = 0;
              const auto b = block(g, kind);
              x.insert(x.end(), b.begin(), b.end());
            }
            for (auto& r : rb) r = static_cast<uint32_t>(g.next());
            for (int axis : {1, 0}) {
              const int cw = axis == 1 ? cols : cols - 16 + 3;  // odd width
              const int rw = rows;
              const size_t m = size_t(rw) * size_t(cw);
              const size_t nsc = axis == 1 ? m / 16 : (m / 16);
              std::vector<uint8_t> sf(nsc), cf(m), sr(nsc), cr(m);
              const uint64_t before = fast::nvfp4_sr_reference_blocks();
              const bool ok = axis == 1 ? fast::nvfp4_quantize_rowwise_sr(
                                              p, s_enc, rw, cw, x.data(),
                                              rb.data(), sf.data(), cf.data())
                                        : fast::nvfp4_quantize_colwise_sr(
                                              p, s_enc, rw, cw, x.data(),
                                              rb.data(), sf.data(), cf.data());
              const uint64_t refs = fast::nvfp4_sr_reference_blocks() - before;
              // The reference, block by block with the fast paths off.
              fast::set_nvfp4_fast_enabled(false);
              const bool covered = fast::nvfp4_quantize_rowwise_sr(
                  p, s_enc, rw, cw, x.data(), rb.data(), sr.data(), cr.data());
              for (size_t b = 0; b < nsc; ++b) {
                std::vector<uint32_t> xb(16), rbb(16);
                size_t pos[16];
                for (size_t i = 0; i < 16; ++i) {
                  pos[i] = axis == 1
                               ? 16 * b + i
                               : ((b / size_t(cw)) * 16 + i) * size_t(cw) +
                                     b % size_t(cw);
                  xb[i] = x[pos[i]];
                  rbb[i] = rb[pos[i]];
                }
                const Nvfp4Block r = nvfp4_quantize_block(p, s_enc, xb, rbb);
                sr[b] = r.scale;
                for (size_t i = 0; i < 16; ++i) cr[pos[i]] = r.codes[i];
              }
              fast::set_nvfp4_fast_enabled(true);
              ++blocks;
              CHECK_FALSE(covered);  // the switch turns the fast path off
              CHECK(ok);
              if (!hostile) CHECK(refs == 0);
              if ((sf != sr || cf != cr) && ++fails <= 5)
                UNSCOPED_INFO(
                    fmt::format("{} on {} S_enc {:#010x} axis {} "
                                "rep {}: differs",
                                name, fast::isa_name(isa), s_enc, axis, rep));
            }
          }
          // The per-block API (the CLI's path) on one block of each kind.
          for (int kind = 0; kind < 5; ++kind) {
            const auto xb = block(g, kind);
            std::vector<uint32_t> rbb(16);
            for (auto& r : rbb) r = static_cast<uint32_t>(g.next());
            const Nvfp4Block f = nvfp4_quantize_block(p, s_enc, xb, rbb);
            fast::set_nvfp4_fast_enabled(false);
            const Nvfp4Block r = nvfp4_quantize_block(p, s_enc, xb, rbb);
            fast::set_nvfp4_fast_enabled(true);
            if ((f.scale != r.scale || f.codes != r.codes) && ++fails <= 5)
              UNSCOPED_INFO(
                  fmt::format("{} block kind {} differs", name, kind));
          }
        }
      }
      INFO(fmt::format("{} on {}: {} matrices", name, fast::isa_name(isa),
                       blocks));
      CHECK(fails == 0);
      fast::reset_fused_isa();
    }
  }
}

TEST_CASE("NVFP4 profiles without stochastic rounding refuse random bits",
          "[fast][nvfp4][sr]") {
  for (const char* name : {"torchao-nvfp4", "modelopt-nvfp4",
                           "compressed-tensors-nvfp4", "te-nvfp4-4over6"}) {
    const Nvfp4Profile& p = profile(name);
    CHECK_FALSE(nvfp4_has_sr(p));
    const uint32_t s_enc = nvfp4_tensor_scale(p, 0x40C00000u);
    std::vector<uint32_t> x(16, 0x3F800000u), rb(16, 7u);
    std::vector<uint8_t> s(1), c(16);
    CHECK_FALSE(fast::nvfp4_quantize_rowwise_sr(p, s_enc, 1, 16, x.data(),
                                                rb.data(), s.data(), c.data()));
    CHECK_THROWS_AS(nvfp4_quantize_block(p, s_enc, x, rb),
                    std::invalid_argument);
  }
}
