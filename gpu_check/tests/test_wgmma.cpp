// SM90 wgmma host side against the PTX ISA (9.7.15.5 "Register Fragments
// and Shared Memory Matrix Layouts": Matrix Descriptor Format, K-major
// no-swizzle core matrices, D fragment of .m64nNk32), and the replay
// tile <-> wgmma image translation end to end on the CPU.
#include <catch2/catch.hpp>
#include <set>

#include "conformance/vectors/op.h"
#include "gpu_check/host/instr.h"
#include "gpu_check/host/replay.h"
#include "gpu_check/host/wgmma.h"

using namespace mxc::gpu;

TEST_CASE("wgmma matrix descriptor: fields at the ISA's bit positions") {
  SmemDesc d;
  d.addr = 0x400;
  d.lbo = 128;
  d.sbo = 256;
  const uint64_t v = wgmma_desc_encode(d);
  CHECK((v & 0x3FFF) == 0x40);            // bits 0-13: address >> 4
  CHECK(((v >> 16) & 0x3FFF) == 8);       // bits 16-29: LBO >> 4
  CHECK(((v >> 32) & 0x3FFF) == 16);      // bits 32-45: SBO >> 4
  CHECK(((v >> 49) & 7) == 0);            // bits 49-51: base offset
  CHECK((v >> 62) == 0);                  // bits 62-63: no swizzle
  CHECK(v == (0x40ull | (8ull << 16) | (16ull << 32)));
  d.swizzle = Swizzle::k128B;
  d.base_offset = 5;
  const uint64_t w = wgmma_desc_encode(d);
  CHECK((w >> 62) == 1);
  CHECK(((w >> 49) & 7) == 5);
  const SmemDesc r = wgmma_desc_decode(w);
  CHECK(r.addr == d.addr);
  CHECK(r.lbo == d.lbo);
  CHECK(r.sbo == d.sbo);
  CHECK(r.base_offset == 5);
  CHECK(r.swizzle == Swizzle::k128B);
  // Bits outside the fields stay zero.
  CHECK((w & ~(0x3FFFull | 0x3FFFull << 16 | 0x3FFFull << 32 | 7ull << 49 | 3ull << 62)) == 0);
  SmemDesc bad;
  bad.lbo = 24;
  CHECK_THROWS(wgmma_desc_encode(bad));
  bad.lbo = 1u << 18;
  CHECK_THROWS(wgmma_desc_encode(bad));
}

TEST_CASE("K-major no-swizzle layout: 8 x 16-byte core matrices at LBO / SBO") {
  // Inside a core matrix: rows at 16-byte pitch, bytes contiguous (128
  // contiguous bytes per core matrix).
  CHECK(kmajor_interleave_offset(0, 0, kWgmmaLbo, kWgmmaSbo) == 0);
  CHECK(kmajor_interleave_offset(1, 0, kWgmmaLbo, kWgmmaSbo) == 16);
  CHECK(kmajor_interleave_offset(7, 15, kWgmmaLbo, kWgmmaSbo) == 127);
  // Next core matrix along K: + LBO; along M/N: + SBO.
  CHECK(kmajor_interleave_offset(0, 16, kWgmmaLbo, kWgmmaSbo) == 128);
  CHECK(kmajor_interleave_offset(8, 0, kWgmmaLbo, kWgmmaSbo) == 256);
  CHECK(kmajor_interleave_offset(63, 31, kWgmmaLbo, kWgmmaSbo) == 7 * 256 + 128 + 7 * 16 + 15);
  // The 64 x 32 A operand fills exactly 2048 bytes, each once.
  std::set<uint32_t> seen;
  for (int r = 0; r < 64; ++r)
    for (int k = 0; k < 32; ++k) {
      const uint32_t o = kmajor_interleave_offset(r, k, kWgmmaLbo, kWgmmaSbo);
      CHECK(o < 2048u);
      seen.insert(o);
    }
  CHECK(seen.size() == 2048u);
}

TEST_CASE("wgmma .m64nNk32 D fragment: entries of the PTX ISA figure") {
  // thread 0 (warp 0, groupID 0, threadID_in_group 0)
  CHECK(wgmma_d_elem(8, 0, 0).row == 0);
  CHECK(wgmma_d_elem(8, 0, 0).col == 0);
  CHECK(wgmma_d_elem(8, 0, 1).col == 1);
  CHECK(wgmma_d_elem(8, 0, 2).row == 8);
  CHECK(wgmma_d_elem(8, 0, 3).row == 8);
  CHECK(wgmma_d_elem(8, 0, 3).col == 1);
  CHECK(wgmma_d_elem(16, 0, 4).row == 0);
  CHECK(wgmma_d_elem(16, 0, 4).col == 8);
  // thread 37: warp 1, lane 5 (groupID 1, threadID_in_group 1)
  CHECK(wgmma_d_elem(8, 37, 0).row == 17);
  CHECK(wgmma_d_elem(8, 37, 0).col == 2);
  CHECK(wgmma_d_elem(8, 37, 3).row == 25);
  CHECK(wgmma_d_elem(8, 37, 3).col == 3);
  // thread 127: warp 3, lane 31 (groupID 7, threadID_in_group 3)
  CHECK(wgmma_d_elem(8, 127, 3).row == 63);
  CHECK(wgmma_d_elem(8, 127, 3).col == 7);
  for (int n : {8, 16, 32}) {
    std::set<std::pair<int, int>> seen;
    for (int th = 0; th < 128; ++th)
      for (int i = 0; i < n / 2; ++i) {
        const RowCol rc = wgmma_d_elem(n, th, i);
        CHECK(rc.row < 64);
        CHECK(rc.col < n);
        seen.insert({rc.row, rc.col});
      }
    CHECK(seen.size() == static_cast<size_t>(64 * n));
  }
}

namespace {

MmaBatch random_batch(size_t tiles, uint64_t seed, bool f16) {
  MmaBatch b;
  b.tiles = tiles;
  for (size_t t = 0; t < tiles; ++t) {
    std::vector<uint8_t> a(16 * 32), bb(8 * 32);
    std::vector<uint32_t> c(128);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>(mxc::vec::case_random(seed, t * 1000 + i, 0));
    for (size_t i = 0; i < bb.size(); ++i) bb[i] = static_cast<uint8_t>(mxc::vec::case_random(seed, t * 1000 + i, 1));
    for (size_t i = 0; i < c.size(); ++i) {
      // Finite accumulators: exponent field below all-ones.
      uint32_t x = static_cast<uint32_t>(mxc::vec::case_random(seed, t * 1000 + i, 2));
      c[i] = f16 ? (x & 0xBBFFu) : (x & 0xBF7FFFFFu);
    }
    const auto pa = pack_a(FragShape::kM16N8K32x8, a), pb = pack_b(FragShape::kM16N8K32x8, bb),
               pc = pack_c(c);
    b.a.insert(b.a.end(), pa.begin(), pa.end());
    b.b.insert(b.b.end(), pb.begin(), pb.end());
    b.c.insert(b.c.end(), pc.begin(), pc.end());
  }
  return b;
}

}  // namespace

TEST_CASE("wgmma images: A replicated per warp, B as [n][k], C in D registers") {
  for (const bool f16 : {false, true}) {
    INFO((f16 ? "f16" : "f32"));
    const MmaBatch b = random_batch(3, 7, f16);
    const WgmmaImages im = wgmma_images(b, f16);
    REQUIRE(im.a.size() == 3u * 512);
    REQUIRE(im.b.size() == 3u * 64);
    REQUIRE(im.c.size() == 3u * 128 * (f16 ? 2 : 4));
    for (size_t t = 0; t < 3; ++t) {
      const auto a = unpack_a(FragShape::kM16N8K32x8, std::span(b.a).subspan(t * 128, 128));
      const auto bb = unpack_b(FragShape::kM16N8K32x8, std::span(b.b).subspan(t * 64, 64));
      const auto a64 = wgmma_image_a_tile(std::span(im.a).subspan(t * 512, 512));
      const auto b8 = wgmma_image_b_tile(std::span(im.b).subspan(t * 64, 64));
      for (int r = 0; r < 64; ++r)
        for (int k = 0; k < 32; ++k)
          CHECK(a64[static_cast<size_t>(r * 32 + k)] == a[static_cast<size_t>((r % 16) * 32 + k)]);
      CHECK(b8 == bb);
    }
    // A device that leaves D = C returns C, tile for tile.
    const auto back = wgmma_fold_d(im.c, 3, f16);
    CHECK(back == b.c);
  }
}

TEST_CASE("wgmma fold: a fault in one warp's copy is not hidden") {
  const MmaBatch b = random_batch(1, 11, false);
  WgmmaImages im = wgmma_images(b, false);
  // thread 70 = warp 2, lane 6 (groupID 1, t 2): element 1 is D row 33
  // col 5, i.e. tile element (1, 5).
  im.c[70 * 4 + 1] ^= 0x10u;
  const auto back = unpack_c(wgmma_fold_d(im.c, 1, false));
  const auto want = unpack_c(b.c);
  for (size_t e = 0; e < 128; ++e) {
    if (e == 1 * 8 + 5)
      CHECK(back[e] == (want[e] ^ 0x10u));
    else
      CHECK(back[e] == want[e]);
  }
}

TEST_CASE("wgmma images computed as the hardware would agree with the replay's cases") {
  // A CPU stand-in for the device: D[row][col] of the 64 x 8 product from
  // the decoded smem images and the C registers, through the model; folded
  // back it must equal the model on the replay tile's own cases.
  for (const char* name : {"wgmma.m64n8k32.f32.e4m3.e5m2", "wgmma.m64n8k32.f16.e5m2.e4m3"}) {
    INFO(name);
    const Family* f = find_family(name);
    REQUIRE(f != nullptr);
    REQUIRE(f->engine == MmaEngine::kWgmma);
    const auto op = mxc::vec::make_op(family_header(*f, 1, 1));
    const MmaBatch b = random_batch(2, 3, f->f16_acc);
    const WgmmaImages im = wgmma_images(b, f->f16_acc);
    std::vector<uint32_t> d(im.c.size(), 0);
    for (size_t t = 0; t < 2; ++t) {
      const auto a64 = wgmma_image_a_tile(std::span(im.a).subspan(t * 512, 512));
      const auto b8 = wgmma_image_b_tile(std::span(im.b).subspan(t * 64, 64));
      for (int th = 0; th < 128; ++th)
        for (int i = 0; i < 4; ++i) {
          const RowCol rc = wgmma_d_elem(8, th, i);
          const size_t base = (t * 128 + static_cast<size_t>(th)) * static_cast<size_t>(im.c_regs);
          const size_t reg = base + static_cast<size_t>(f->f16_acc ? i / 2 : i);
          const int sh = f->f16_acc ? 16 * (i % 2) : 0;
          const uint32_t mask = f->f16_acc ? 0xFFFFu : 0xFFFFFFFFu;
          std::vector<uint64_t> in;
          for (int k = 0; k < 32; ++k) in.push_back(a64[static_cast<size_t>(rc.row * 32 + k)]);
          for (int k = 0; k < 32; ++k) in.push_back(b8[static_cast<size_t>(rc.col * 32 + k)]);
          in.push_back((im.c[reg] >> sh) & mask);
          d[reg] |= (static_cast<uint32_t>(op->expected(in)[0]) & mask) << sh;
        }
    }
    const auto folded = wgmma_fold_d(d, 2, f->f16_acc);
    for (size_t t = 0; t < 2; ++t) {
      const auto dd = unpack_c(std::span(folded).subspan(t * 128, 128));
      for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 8; ++n) {
          const auto in = mma_output_case(*f, b, t, m, n);
          CHECK(dd[static_cast<size_t>(m * 8 + n)] == op->expected(in)[0]);
        }
    }
  }
}

TEST_CASE("wgmma families: sm_90a only, models and feature bit") {
  int n = 0;
  for (const Family& f : families()) {
    if (f.engine != MmaEngine::kWgmma || f.shape != FragShape::kM16N8K32x8) continue;  // FP8
    ++n;
    INFO(f.name);
    CHECK(f.ccs == std::vector<int>{90});
    CHECK(f.needs == kFeatWgmma);
    CHECK(f.header.get("model") == (f.f16_acc ? "sm90_wgmma_fp8_f16" : "sm90_wgmma_fp8_f32"));
    CHECK(family_matches(f, "wgmma"));
  }
  CHECK(n == 8);
}
