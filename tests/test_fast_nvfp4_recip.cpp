// The NVFP4 rowwise kernel's division by a reciprocal (emu/fast/nvfp4_hwy.cpp
// ElemByRecip: x / op as q0 = fl(x * rc), rc = RN(1/op), and one Markstein
// correction), on every fused ISA:
//  - the hard cases of its proof: every pair of significands whose quotient
//    lies so close to a binary32 midpoint that the error bound alone does
//    not decide the rounding (|D| <= 3 for quotients in [1, 2), |D| <= 6 in
//    (1/2, 1); 25 million pairs at the CI level, a sample at level 0),
//    scaled across the exponents the kernel takes, against the hardware's
//    IEEE division;
//  - quotients below 2^-3 keep x's sign and stay below 0.25;
//  - the dividing plans (ModelOpt, compressed-tensors) rowwise against the
//    reference on blocks whose elements lie a few ulps around each E2M1
//    midpoint times the block's divisor, and tiny negative elements (the
//    exactly -0 rule); on divisors that are even integers (which the
//    reciprocal leaves to the division: without that exclusion the test
//    fails); and on quotients past FLT_MAX.
#include <fmt/format.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>

#include "conformance/splitmix64.h"
#include "emu/block/nvfp4_plan.h"
#include "emu/block/quantize.h"
#include "emu/fast/isa.h"
#include "emu/fast/nvfp4_fast.h"
#include "emu/fast/nvfp4_fused.h"
#include "emu/fast/quantize_fast.h"
#include "nvfp4_switches.h"
#include "test_isas.h"
#include "test_level.h"

using namespace mxc;

namespace {

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
float flt(uint32_t u) { return std::bit_cast<float>(u); }

// Cases collected, then run through the kernel's division on `isa` and
// compared with x / op (the hardware's, IEEE) bit for bit.
struct Batch {
  explicit Batch(fast::Isa i) : isa(i) {}
  fast::Isa isa;
  std::vector<uint32_t> x, op, rc, q;
  long cases = 0, fails = 0;
  void add(uint32_t xv, uint32_t ov) {
    x.push_back(xv);
    op.push_back(ov);
    rc.push_back(bits(1.0f / flt(ov)));
    if (x.size() == 4096) flush();
  }
  void flush() {
    q.resize(x.size());
    fast::detail::nv_div_by_recip_simd(isa, x.data(), op.data(), rc.data(),
                                       x.size(), q.data());
    for (size_t i = 0; i < x.size(); ++i) {
      ++cases;
      const uint32_t want = bits(flt(x[i]) / flt(op[i]));
      if (q[i] != want && ++fails <= 5)
        UNSCOPED_INFO(
            fmt::format("{:#010x} / {:#010x}: {:#010x}, want {:#010x}", x[i],
                        op[i], q[i], want));
    }
    x.clear();
    op.clear();
    rc.clear();
  }
};

using test::ref_block;
using test::Switches;

// x (blocks of 16) as one row through the rowwise kernel against the
// reference block by block; the blocks that differ.
long rowwise_fails(const Nvfp4Profile& p, uint32_t s_enc,
                   const std::vector<uint32_t>& x) {
  const size_t nb = x.size() / 16;
  std::vector<uint8_t> fs(nb), fc(x.size());
  REQUIRE(fast::nvfp4_quantize_rowwise(p, s_enc, 1, static_cast<int>(x.size()),
                                       x.data(), fs.data(), fc.data()));
  long fails = 0;
  for (size_t b = 0; b < nb; ++b) {
    const Nvfp4Block r =
        ref_block(p, s_enc, std::span<const uint32_t>(x).subspan(16 * b, 16));
    bool same = r.scale == fs[b];
    for (size_t i = 0; i < 16; ++i) same = same && r.codes[i] == fc[16 * b + i];
    if (!same && ++fails <= 5)
      UNSCOPED_INFO(
          fmt::format("{} S_enc {:#010x} block {}", p.name, s_enc, b));
  }
  return fails;
}

// The multiplicative inverse of an odd b modulo 2^32 (Newton's iteration).
uint32_t inverse_odd(uint32_t b) {
  uint32_t v = b;
  for (int i = 0; i < 5; ++i) v *= 2 - b * v;
  return v;
}

}  // namespace

TEST_CASE("NVFP4 division by the reciprocal: every hard case rounds as x / op",
          "[fast][nvfp4]") {
  // Level 0 (sanitizers, qemu): every 61st divisor significand.
  const uint32_t stride = test::level() <= 0 ? 61 : 1;
  for (fast::Isa isa : test::isas()) {
    if (isa == fast::Isa::kScalar) continue;  // the kernels' ISAs only
    Batch bt(isa);
    SplitMix64 g(0x2EC1);
    // Significands A, B in [2^23, 2^24): a = A 2^-23, b = B 2^-23. z = a / b
    // in [1, 2) (sh 24: midpoints M 2^-24) or (1/2, 1) (sh 25: M 2^-25), M
    // odd in (2^24, 2^25); D = A 2^sh - B M, so B M = -D modulo 2^sh.
    for (uint32_t B = 0x800000u + 1; B < 0x1000000u; B += stride) {
      const int v = std::countr_zero(B);
      const uint32_t inv = inverse_odd(B >> v);
      for (int sh : {24, 25}) {
        const int dmax = sh == 24 ? 3 : 6;
        for (int D = -dmax; D <= dmax; ++D) {
          if (D == 0 || (D & ((1 << v) - 1)) != 0) continue;
          const int mod = sh - v;  // B' M = -D / 2^v modulo 2^mod
          const uint64_t mask = (uint64_t{1} << mod) - 1;
          const uint64_t m0 =
              (static_cast<uint64_t>(static_cast<uint32_t>(-(D >> v))) * inv) &
              mask;
          for (uint64_t M = m0; M < (uint64_t{1} << 25); M += mask + 1) {
            if (M <= (uint64_t{1} << 24) || (M & 1) == 0) continue;
            const int64_t num = int64_t{B} * static_cast<int64_t>(M) + D;
            if (num % (int64_t{1} << sh) != 0) {  // the congruence wrong
              if (++bt.fails <= 5)
                UNSCOPED_INFO(fmt::format("B {} M {}", B, M));
              continue;
            }
            const int64_t A = num >> sh;
            if (A < 0x800000 || A >= 0x1000000) continue;
            // Exponents the kernel takes: op in [2^-90, 2^125), x normal,
            // x / op in [2^-3, 2^100); half of the cases unscaled.
            int eo = 0, ex = 0;
            if (g.next() & 1) {
              eo = -90 + static_cast<int>(g.next() % 215);
              const int lo = std::max(-126, eo - 2),
                        hi = std::min(127, eo + 98);
              ex = lo + static_cast<int>(g.next() % uint64_t(hi - lo + 1));
            }
            const uint32_t sign = (g.next() & 1) ? 0x80000000u : 0u;
            bt.add(sign | (static_cast<uint32_t>(ex + 127) << 23) |
                       (static_cast<uint32_t>(A) - 0x800000u),
                   (static_cast<uint32_t>(eo + 127) << 23) | (B - 0x800000u));
          }
        }
      }
    }
    bt.flush();
    INFO(fmt::format("{}: {} hard cases", fast::isa_name(isa), bt.cases));
    std::printf("NVFP4 division by the reciprocal: %ld hard cases on %s\n",
                bt.cases, fast::isa_name(isa));
    CHECK(bt.cases > (stride == 1 ? 20000000 : 300000));
    CHECK(bt.fails == 0);
  }
}

TEST_CASE("NVFP4 division by the reciprocal: small quotients keep x's sign",
          "[fast][nvfp4]") {
  for (fast::Isa isa : test::isas()) {
    if (isa == fast::Isa::kScalar) continue;
    SplitMix64 g(0x2EC2);
    std::vector<uint32_t> x, op, rc, q;
    for (int i = 0; i < 100000; ++i) {
      // op in [2^-90, 2^125]; x anywhere from 0 to just under 2^-3 op,
      // subnormals included.
      const uint32_t o =
          0x12800000u +
          static_cast<uint32_t>(g.next() % (0x7E000000u - 0x12800000u));
      const uint32_t top = bits(flt(o) * 0x1p-3f);
      const uint32_t m = static_cast<uint32_t>(g.next() % top);
      x.push_back(m | ((g.next() & 1) ? 0x80000000u : 0u));
      op.push_back(o);
      rc.push_back(bits(1.0f / flt(o)));
    }
    q.resize(x.size());
    fast::detail::nv_div_by_recip_simd(isa, x.data(), op.data(), rc.data(),
                                       x.size(), q.data());
    long fails = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const bool ok =
          (q[i] >> 31) == (x[i] >> 31) && (q[i] & 0x7FFFFFFFu) < 0x3E800000u;
      if (!ok && ++fails <= 5)
        UNSCOPED_INFO(
            fmt::format("{:#010x} / {:#010x}: {:#010x}", x[i], op[i], q[i]));
    }
    INFO(fast::isa_name(isa));
    CHECK(fails == 0);
  }
}

TEST_CASE("fast NVFP4 dividing plans: elements around E2M1 midpoints",
          "[fast][nvfp4]") {
  // E2M1's rounding boundaries (midpoints between its values) and more.
  const float mids[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f,
                        6.0f,  0.5f,  1.0f,  1.5f,  2.0f, 3.0f, 4.0f};
  for (fast::Isa isa : test::isas()) {
    const Switches scope(isa);
    SplitMix64 g(0x2EC3);
    long blocks = 0, fails = 0, dividing = 0;
    for (const Nvfp4Profile& p : nvfp4_profiles()) {
      // Tensor amaxes from 2^-20 to 2^40: divisors below and above 2.
      for (int e = -20; e <= 40; e += 3) {
        const uint32_t A = (static_cast<uint32_t>(e + 127) << 23) |
                           (static_cast<uint32_t>(g.next()) & 0x7FFFFFu);
        const uint32_t s_enc = nvfp4_tensor_scale(p, A);
        const Nvfp4Plan plan = nvfp4_plan(p, s_enc);
        if (!plan.ok || plan.n_cand != 1 || !plan.cand[0].divide) continue;
        ++dividing;
        std::vector<uint32_t> x;
        for (int b = 0; b < 64; ++b) {
          // The block amax (element 0), its scale code by the reference,
          // the divisor of that code; then x = m * op moved by -4..4 ulps.
          const float amax =
              flt(A) * static_cast<float>(1 + g.next() % 1000) / 1000.0f;
          std::vector<uint32_t> blk(16, 0u);
          blk[0] = bits(amax);
          const uint8_t code = ref_block(p, s_enc, blk).scale;
          const float op = flt(plan.cand[0].operand[code & 0x7F]);
          for (size_t i = 1; i < 16; ++i) {
            const float m = mids[g.next() % 14];
            const int k = static_cast<int>(g.next() % 9) - 4;
            uint32_t v = bits(m * op);
            v = static_cast<uint32_t>(static_cast<int64_t>(v) + k);
            if (g.next() % 8 == 0)  // tiny: the exactly -0 rule
              v = static_cast<uint32_t>(1 + g.next() % 8);
            if (flt(v) > amax) v = bits(amax);
            blk[i] = v | ((g.next() & 1) ? 0x80000000u : 0u);
          }
          x.insert(x.end(), blk.begin(), blk.end());
        }
        blocks += static_cast<long>(x.size() / 16);
        fails += rowwise_fails(p, s_enc, x);
      }
    }
    INFO(fmt::format("{}: {} blocks of {} dividing plans", fast::isa_name(isa),
                     blocks, dividing));
    std::printf("fast NVFP4 dividing plans: %ld blocks, %ld plans on %s\n",
                blocks, dividing, fast::isa_name(isa));
    CHECK(dividing > 0);
    CHECK(fails == 0);
  }
}

TEST_CASE(
    "fast NVFP4 dividing plans: divisors at even integers, huge quotients",
    "[fast][nvfp4]") {
  // NvTab::rcp leaves divisors within 2^-22 of an even integer 2k to the
  // division: there x = -k 2^-149 over op = 2k is exactly -2^-150, a tie
  // that rounds to -0 (code 0 under the -0 rule), while fl(x * RN(1/op))
  // rounds away from the tie (code 8) where RN(1/op) > 1/op, as for
  // op = 6 and 10. Tensor amax 2688 makes ModelOpt's tensor value and
  // compressed-tensors' global scale 1, so op is the scale's value: block
  // amax 6 op gives scale op.
  for (fast::Isa isa : test::isas()) {
    const Switches scope(isa);
    long fails = 0, plans = 0;
    for (const char* name :
         {"modelopt-nvfp4@0.47", "compressed-tensors-nvfp4@0.20"}) {
      const Nvfp4Profile* p = find_nvfp4_profile(name);
      REQUIRE(p != nullptr);
      const uint32_t s_enc = nvfp4_tensor_scale(*p, bits(2688.0f));
      REQUIRE(nvfp4_plan(*p, s_enc).cand[0].divide);
      ++plans;
      std::vector<uint32_t> x;
      for (uint32_t k : {1u, 2u, 3u, 5u, 6u, 7u}) {      // op = 2k: 2 .. 14
        std::vector<uint32_t> blk(16, 0x80000000u | k);  // -k 2^-149
        blk[0] = bits(12.0f * static_cast<float>(k));
        blk[1] = k;  // +k 2^-149
        x.insert(x.end(), blk.begin(), blk.end());
      }
      // Whole groups of 16 blocks (the kernel's groups are Lanes blocks;
      // fewer take the per-block tail).
      while (x.size() % 256 != 0) x.push_back(0);
      fails += rowwise_fails(*p, s_enc, x);
    }
    // Blocks whose amax is up to 2^167 times the divisor (the divisor
    // saturated at 448 times a tiny tensor value, 2^-50): quotients up to
    // and past FLT_MAX. NvTab::rcp_amax_below leaves those from 2^100 op on
    // to the division (the proof's range); the codes match the reference
    // either way (past FLT_MAX the reciprocal's NaN saturates as Inf does
    // in Cvt), so this checks the codes, not which path ran.
    for (const char* name :
         {"modelopt-nvfp4@0.47", "compressed-tensors-nvfp4@0.20"}) {
      const Nvfp4Profile* p = find_nvfp4_profile(name);
      const uint32_t s_enc = p->rule == Nvfp4Rule::kModelopt
                                 ? 0x26800000u   // 2^-50
                                 : 0x58800000u;  // global scale 2^50
      std::vector<uint32_t> x;
      for (uint32_t e = 150; e < 254; e += 4) {  // amax 2^23 .. 2^126
        std::vector<uint32_t> blk(16);
        for (size_t i = 0; i < 16; ++i)
          blk[i] = ((e - static_cast<uint32_t>(i % 5)) << 23) |
                   (static_cast<uint32_t>(i) * 0x51EB1u & 0x7FFFFFu) |
                   (i % 2 == 1 ? 0x80000000u : 0u);
        blk[0] = e << 23;
        x.insert(x.end(), blk.begin(), blk.end());
      }
      while (x.size() % 256 != 0) x.push_back(0);
      fails += rowwise_fails(*p, s_enc, x);
    }
    INFO(fast::isa_name(isa));
    CHECK(plans == 2);
    CHECK(fails == 0);
  }
}
