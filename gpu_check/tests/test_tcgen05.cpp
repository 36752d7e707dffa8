// SM100 tcgen05 host side against the PTX ISA (9.7.16.4.1 shared memory
// descriptor, 9.7.16.4.2 instruction descriptor Tables 42 and 44, TMEM
// data path layout for M = 128 cta_group::1, 9.7.16.10.7 block scaling),
// and the replay tile <-> tcgen05 image translation end to end on the CPU.
#include <catch2/catch.hpp>

#include "conformance/vectors/op.h"
#include "gpu_check/host/instr.h"
#include "gpu_check/host/replay.h"
#include "gpu_check/host/tcgen05.h"

using namespace mxc::gpu;

TEST_CASE("tcgen05 smem descriptor: wgmma fields plus the fixed 0b001 at bits 46-48") {
  const uint64_t v = tcgen05_smem_desc(0x800, 128, 256);
  CHECK((v & 0x3FFF) == 0x80);
  CHECK(((v >> 16) & 0x3FFF) == 8);
  CHECK(((v >> 32) & 0x3FFF) == 16);
  CHECK(((v >> 46) & 7) == 1);
  CHECK(((v >> 49) & 7) == 0);  // base offset
  CHECK(((v >> 52) & 1) == 0);  // LBO mode: relative
  CHECK((v >> 61) == 0);        // no swizzle
}

TEST_CASE("tcgen05 instruction descriptor: Table 42 (kind::f8f6f4)") {
  const uint32_t v = tcgen05_idesc_f8f6f4(F8f6f4Type::kE4M3, F8f6f4Type::kE5M2, true, 128, 16);
  CHECK(((v >> 4) & 3) == 1);      // dtype F32
  CHECK(((v >> 7) & 7) == 0);      // atype E4M3
  CHECK(((v >> 10) & 7) == 1);     // btype E5M2
  CHECK(((v >> 13) & 0xF) == 0);   // no negate, K-major
  CHECK(((v >> 17) & 0x3F) == 2);  // N >> 3
  CHECK(((v >> 24) & 0x1F) == 8);  // M >> 4
  CHECK(v == ((1u << 4) | (1u << 10) | (2u << 17) | (8u << 24)));
  CHECK(((tcgen05_idesc_f8f6f4(F8f6f4Type::kE2M1, F8f6f4Type::kE3M2, false, 64, 8) >> 7) & 0x3F) ==
        (5u | 4u << 3));
  CHECK_THROWS(tcgen05_idesc_f8f6f4(F8f6f4Type::kE4M3, F8f6f4Type::kE4M3, true, 96, 16));
  CHECK_THROWS(tcgen05_idesc_f8f6f4(F8f6f4Type::kE4M3, F8f6f4Type::kE4M3, true, 128, 12));
}

TEST_CASE("tcgen05 instruction descriptor: Table 44 (kind::mxf8f6f4)") {
  const uint32_t v = tcgen05_idesc_mxf8f6f4(F8f6f4Type::kE5M2, F8f6f4Type::kE4M3, 128, 16, 2, 3);
  CHECK(((v >> 4) & 3) == 3);      // SFB ID
  CHECK(((v >> 7) & 7) == 1);      // atype E5M2
  CHECK(((v >> 10) & 7) == 0);     // btype E4M3
  CHECK(((v >> 17) & 0x3F) == 2);  // N >> 3
  CHECK(((v >> 23) & 1) == 1);     // UE8M0
  CHECK(((v >> 24) & 7) == 0);     // reserved
  CHECK(((v >> 27) & 3) == 1);     // M >> 7
  CHECK(((v >> 29) & 3) == 2);     // SFA ID
  CHECK((v >> 31) == 0);
  CHECK_THROWS(tcgen05_idesc_mxf8f6f4(F8f6f4Type::kE4M3, F8f6f4Type::kE4M3, 128, 16, 4, 0));
}

namespace {

MmaBatch random_batch(size_t tiles, uint64_t seed, bool scaled) {
  MmaBatch b;
  b.tiles = tiles;
  for (size_t t = 0; t < tiles; ++t) {
    std::vector<uint8_t> a(16 * 32), bb(8 * 32), sa(16), sb(8);
    std::vector<uint32_t> c(128);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>(mxc::vec::case_random(seed, t * 1000 + i, 0));
    for (size_t i = 0; i < bb.size(); ++i) bb[i] = static_cast<uint8_t>(mxc::vec::case_random(seed, t * 1000 + i, 1));
    for (size_t i = 0; i < c.size(); ++i)
      c[i] = static_cast<uint32_t>(mxc::vec::case_random(seed, t * 1000 + i, 2)) & 0xBF7FFFFFu;
    for (size_t i = 0; i < 16; ++i) sa[i] = static_cast<uint8_t>(120 + mxc::vec::case_random(seed, t * 1000 + i, 3) % 16);
    for (size_t i = 0; i < 8; ++i) sb[i] = static_cast<uint8_t>(120 + mxc::vec::case_random(seed, t * 1000 + i, 4) % 16);
    const auto pa = pack_a(FragShape::kM16N8K32x8, a), pb = pack_b(FragShape::kM16N8K32x8, bb),
               pc = pack_c(c);
    b.a.insert(b.a.end(), pa.begin(), pa.end());
    b.b.insert(b.b.end(), pb.begin(), pb.end());
    b.c.insert(b.c.end(), pc.begin(), pc.end());
    if (scaled) {
      const auto ps = pack_scale_a(sa, 1), qs = pack_scale_b(sb, 1);
      b.sfa.insert(b.sfa.end(), ps.begin(), ps.end());
      b.sfb.insert(b.sfb.end(), qs.begin(), qs.end());
    }
  }
  return b;
}

uint8_t image_byte(std::span<const uint32_t> w, uint32_t off) {
  return static_cast<uint8_t>(w[off / 4] >> (8 * (off % 4)));
}

}  // namespace

TEST_CASE("tcgen05 images computed as the hardware would agree with the replay's cases") {
  for (const char* name :
       {"tcgen05.mma.kind::f8f6f4.f32.e4m3.e5m2", "tcgen05.mma.kind::mxf8f6f4.1X.e5m2.e4m3"}) {
    INFO(name);
    const Family* f = find_family(name);
    REQUIRE(f != nullptr);
    REQUIRE(f->engine == MmaEngine::kTcgen05);
    const bool scaled = f->scale_vec != 0;
    const auto op = mxc::vec::make_op(family_header(*f, 1, 1));
    const MmaBatch b = random_batch(2, 5, scaled);
    const Tc05Images im = tcgen05_images(b, scaled);
    REQUIRE(im.a.size() == 2u * 1024);
    REQUIRE(im.b.size() == 2u * 128);
    REQUIRE(im.c.size() == 2u * 128 * 16);
    // Untouched D folds back to C.
    CHECK(tcgen05_fold_d(im.c, 2) == b.c);
    // D row m (lane m), column n from the smem images, TMEM C and scales.
    std::vector<uint32_t> d(im.c.size());
    for (size_t t = 0; t < 2; ++t) {
      const auto A = std::span(im.a).subspan(t * 1024, 1024);
      const auto B = std::span(im.b).subspan(t * 128, 128);
      for (int m = 0; m < 128; ++m)
        for (int n = 0; n < 16; ++n) {
          std::vector<uint64_t> in;
          for (int k = 0; k < 32; ++k) in.push_back(image_byte(A, kmajor_interleave_offset(m, k, kWgmmaLbo, kWgmmaSbo)));
          for (int k = 0; k < 32; ++k) in.push_back(image_byte(B, kmajor_interleave_offset(n, k, kWgmmaLbo, kWgmmaSbo)));
          if (scaled) {
            const uint32_t fa = im.sfa[t * 128 + static_cast<size_t>(m)];
            // scale_B column n: lane n of the partition (every byte equal).
            const uint32_t fb = im.sfb[t * 128 + static_cast<size_t>(n)];
            CHECK((fa & 0xFF) * 0x01010101u == fa);
            CHECK((fb & 0xFF) * 0x01010101u == fb);
            in.push_back(fa & 0xFF);
            in.push_back(fb & 0xFF);
          }
          const size_t at = (t * 128 + static_cast<size_t>(m)) * 16 + static_cast<size_t>(n);
          in.push_back(im.c[at]);
          d[at] = static_cast<uint32_t>(op->expected(in)[0]);
        }
    }
    const auto folded = tcgen05_fold_d(d, 2);
    for (size_t t = 0; t < 2; ++t) {
      const auto dd = unpack_c(std::span(folded).subspan(t * 128, 128));
      for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 8; ++n)
          CHECK(dd[static_cast<size_t>(m * 8 + n)] == op->expected(mma_output_case(*f, b, t, m, n))[0]);
    }
    // A fault in one copy (row 77 = tile row 13, column 11 = tile col 3) shows.
    d[(0 * 128 + 77) * 16 + 11] ^= 1u;
    const std::vector<uint32_t> bad_all = tcgen05_fold_d(d, 2);
    const auto bad = unpack_c(std::span(bad_all).subspan(0, 128));
    const auto good = unpack_c(std::span(folded).subspan(0, 128));
    CHECK(bad[13 * 8 + 3] == (good[13 * 8 + 3] ^ 1u));
  }
}

TEST_CASE("tcgen05 families: sm_100a / sm_103a, models and feature bit") {
  int n = 0;
  for (const Family& f : families()) {
    if (f.engine != MmaEngine::kTcgen05) continue;
    ++n;
    INFO(f.name);
    CHECK(f.ccs == std::vector<int>{100, 103});
    CHECK(f.needs == kFeatTcgen05);
    CHECK(f.header.get("model") ==
          (f.scale_vec ? "sm100_tcgen05_mxf8f6f4" : "sm100_tcgen05_f8f6f4_f32"));
  }
  CHECK(n == 8);
}
