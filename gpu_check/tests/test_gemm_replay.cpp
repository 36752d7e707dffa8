// cuBLASLt replays through the fake backend: every format x layout is
// bit-exact (or within its bound) when clean, refused layouts and sizes are
// reported as unsupported, and each injected library fault (transposed
// operand, swapped scales, plain-read scale tiles, ignored alpha, a flipped
// bit) is caught and classified.
#include <bit>
#include <catch2/catch.hpp>
#include <cstring>
#include <cmath>

#include "emu/block/swizzle.h"
#include "gpu_check/host/replay.h"
#include "gpu_check/tests/fake_backend.h"
#include "gpu_check/tests/family_lookup.h"

using namespace mxc;
using namespace mxc::gpu;
using mxc::gpu::test::FakeBackend;
using mxc::gpu::test::Fault;

namespace {

using mxc::gpu::test::fam;

ReplayOptions quick() {
  ReplayOptions o;
  o.level = 0;
  return o;
}

struct Run {
  bool ok;
  vec::Report r;
  std::string why;
};

Run replay(FakeBackend& b, const std::string& name, int cc) {
  Run x;
  x.ok = replay_gemm(b, fam(name), cc, quick(), x.r, x.why);
  return x;
}

}  // namespace

TEST_CASE("gemm families: every format x layout and the compare modes exist") {
  for (const char* l : {"tn", "nn", "nt", "tt"}) {
    for (const char* f : {"mxfp8", "nvfp4"}) {
      const Family& g =
          fam(std::string("cublaslt.") + f + "." + l + ".bitexact");
      CHECK(g.kind == FamilyKind::kGemm);
      CHECK(gemm_format(g.header.get("format")) != nullptr);
    }
    CHECK(fam(std::string("cublaslt.fp8.") + l + ".tensorscale")
              .header.get("compare") == "bitexact");
  }
  CHECK(fam("cublaslt.nvfp4.tn.alpha").header.get("compare") == "ulp");
  CHECK(fam("cublaslt.fp8.vec128x1d2d.tn.bound").header.get("compare") ==
        "bound-exact");
  CHECK(fam("cublaslt.mxfp8.tn.anyalgo").header.get("compare") ==
        "bound-model");
  // NVFP4 on both Blackwell kinds; Hopper block scaling on 9.0 and 10.x.
  CHECK(gemm_model("nvfp4", 100)->name == "sm100_tcgen05_mxf4nvf4_4x");
  CHECK(gemm_model("nvfp4", 120)->name == "sm120_mma_mxf4nvf4_4x");
  CHECK(gemm_model("nvfp4", 90) == nullptr);
  CHECK(gemm_model("fp8-vec128x1d2d", 90)->name == "sm90_wgmma_fp8_f32");
}

TEST_CASE("gemm images: FP4 packing and the 128x4 scale tiles round-trip") {
  const GemmCase c =
      make_gemm_case(fam("cublaslt.nvfp4.nt.bitexact"), 100, 36, 192, 7);
  const GemmImages im = gemm_images(c);
  REQUIRE(im.a.size() == c.p.A.size() / 2);
  // Element 2i in the low nibble of byte i, 2i+1 in the high nibble.
  CHECK((im.a[5] & 0xF) == c.p.A[10]);
  CHECK((im.a[5] >> 4) == c.p.A[11]);
  // Scale of (row 37, k-block 6) at its 128x4 tile offset.
  CHECK(im.sa[swizzled_scale_offset(37, 6, 12)] == c.p.SA[37 * 12 + 6]);
  CHECK(im.sa.size() == swizzled_scale_size(100, 12));
  const GemmCase back = gemm_reading(c, GemmReading::kAsIs);
  CHECK(back.p.A == c.p.A);
  CHECK(back.p.B == c.p.B);
  CHECK(back.p.SA == c.p.SA);
  CHECK(back.p.SB == c.p.SB);
  // Hopper FP32 scales: [k-block][row] with rows contiguous.
  const GemmCase h = make_gemm_case(fam("cublaslt.fp8.vec128x1d2d.tn.bound"),
                                    256, 144, 384, 7);
  CHECK(h.p.SA.size() == 256 * 3);
  CHECK(h.p.SB.size() == 2 * 3);  // ceil(144 / 128) x K / 128
  const GemmCase hb = gemm_reading(h, GemmReading::kAsIs);
  CHECK(hb.p.SA == h.p.SA);
  CHECK(hb.p.SB == h.p.SB);
  // The layouts themselves (TransformerEngine's GEMM_READY shapes): A's
  // VEC128 scale of (row m, k-block k) at k * roundup(256, 4) + m; B's
  // BLK128x128 scale of (row block r, k-block k) at r * roundup(3, 4) + k,
  // the padding slot 3 of each row block unused. The H200 run of
  // 2026-12-04 failed with B at k * 2 + r (docs/gpu-check.md).
  const GemmImages hi = gemm_images(h);
  const auto f32_at = [](const std::vector<uint8_t>& img, size_t i) {
    uint32_t v = 0;
    std::memcpy(&v, &img[i * 4], 4);
    return uint64_t{v};
  };
  REQUIRE(hi.sa.size() == 3 * 256 * 4);
  REQUIRE(hi.sb.size() == 2 * 4 * 4);
  CHECK(f32_at(hi.sa, 2 * 256 + 37) == h.p.SA[37 * 3 + 2]);
  for (size_t r = 0; r < 2; ++r)
    for (size_t k = 0; k < 3; ++k) CHECK(f32_at(hi.sb, r * 4 + k) == h.p.SB[r * 3 + k]);
  // Rows not a multiple of 4: A's leading dimension is padded (M = 17 -> 20).
  const GemmCase odd = make_gemm_case(fam("cublaslt.fp8.vec128x1d1d.tn.bound"), 17, 8, 256, 3);
  const GemmImages oi = gemm_images(odd);
  REQUIRE(oi.sa.size() == 2 * 20 * 4);
  CHECK(f32_at(oi.sa, 1 * 20 + 16) == odd.p.SA[16 * 2 + 1]);
  CHECK(gemm_reading(odd, GemmReading::kAsIs).p.SA == odd.p.SA);
}

TEST_CASE(
    "clean fake cuBLASLt: every format and layout passes; refusals are "
    "reported") {
  FakeBackend b;
  for (int cc : {100, 120}) {
    b.cc = cc;
    for (const char* l : {"tn", "nn", "nt", "tt"}) {
      for (const std::string kind : {"mxfp8", "fp8"}) {
        const std::string n = "cublaslt." + kind + "." + l +
                              (kind == "fp8" ? ".tensorscale" : ".bitexact");
        INFO(n << " cc " << cc);
        const Run x = replay(b, n, cc);
        REQUIRE(x.ok);
        CHECK(x.r.cases > 30000);
        CHECK(x.r.mismatches == 0);
        CHECK(x.r.accepted == 0);
        // 33 x 17 is refused (D columns not 16-byte aligned) and noted.
        CHECK(x.r.description.find("33x17x128 not run") != std::string::npos);
      }
    }
    const Run nv = replay(b, "cublaslt.nvfp4.tn.bitexact", cc);
    REQUIRE(nv.ok);
    CHECK(nv.r.mismatches == 0);
    CHECK(nv.r.cases > 30000);
    // The fake library has NVFP4 in TN only: the other layouts are
    // "not supported by this library/GPU", not failures.
    for (const char* l : {"nn", "nt", "tt"}) {
      const Run u =
          replay(b, std::string("cublaslt.nvfp4.") + l + ".bitexact", cc);
      CHECK_FALSE(u.ok);
      CHECK(u.why.find("not supported by this library/GPU") !=
            std::string::npos);
    }
    const Run a = replay(b, "cublaslt.nvfp4.tn.alpha", cc);
    REQUIRE(a.ok);
    CHECK(a.r.mismatches == 0);
  }
}

TEST_CASE("Hopper block scaling within the bound against the exact dot") {
  FakeBackend b;
  for (int cc : {90, 100}) {
    b.cc = cc;
    for (const char* n : {"cublaslt.fp8.vec128x1d2d.tn.bound",
                          "cublaslt.fp8.vec128x1d1d.tn.bound",
                          "cublaslt.fp8.blk128x128.tn.bound"}) {
      INFO(n << " cc " << cc);
      const Run x = replay(b, n, cc);
      REQUIRE(x.ok);
      CHECK(x.r.cases > 10000);
      CHECK(x.r.mismatches == 0);
      // FP32 promotion of rounded partials is not exact: the bound is used.
      CHECK(x.r.accepted > 0);
      CHECK(x.r.description.find("max |D - ref| / sum|terms|") !=
            std::string::npos);
    }
  }
  // A wrong scale (swapped A/B scales) is far outside the bound.
  b.cc = 90;
  b.fault = Fault::kScaleSwap;
  const Run s = replay(b, "cublaslt.fp8.vec128x1d1d.tn.bound", 90);
  REQUIRE(s.ok);
  CHECK(s.r.mismatches > s.r.cases / 2);
  CHECK(s.r.by_class.count("scale-a-b-swap") == 1);
}

TEST_CASE(
    "any algorithm: split-K differs from the model but stays within the "
    "bound") {
  FakeBackend b;
  b.cc = 100;
  for (const char* n :
       {"cublaslt.mxfp8.tn.anyalgo", "cublaslt.fp8.tn.anyalgo"}) {
    INFO(n);
    const Run x = replay(b, n, 100);
    REQUIRE(x.ok);
    CHECK(x.r.mismatches == 0);
    CHECK(x.r.description.find("max ULP distance from the model") !=
          std::string::npos);
  }
  // With block scales the two K halves round differently (unscaled FP8
  // sums are exact in the F = 25 chain, so split-K changes nothing there).
  const Run mx = replay(b, "cublaslt.mxfp8.tn.anyalgo", 100);
  CHECK(mx.r.accepted > 0);
  CHECK(mx.r.accepted_by.count("within-bound") == 1);
  CHECK(mx.r.description.find("max ULP distance from the model: 0") ==
        std::string::npos);
  // The bound itself: tight for an F = 25 chain, loose for Hopper's F = 13.
  const double tight =
      gemm_bound(*find_mma_model("sm100_tcgen05_mxf8f6f4"), 1024, true);
  const double loose =
      gemm_bound(*find_mma_model("sm90_wgmma_fp8_f32"), 1024, false);
  CHECK(tight < std::ldexp(1.0, -12));
  CHECK(loose < 0.1);
  CHECK(f32_ulp_distance(0x3F800000u, 0x3F800002u) == 2);
  CHECK(f32_ulp_distance(0x00000001u, 0x80000001u) == 2);
}

TEST_CASE("injected cuBLASLt faults are caught and classified") {
  FakeBackend b;
  b.cc = 120;
  SECTION("transposed A") {
    b.fault = Fault::kGemmTransposeA;
    for (const char* n :
         {"cublaslt.mxfp8.tn.bitexact", "cublaslt.mxfp8.nt.bitexact",
          "cublaslt.fp8.nn.tensorscale"}) {
      INFO(n);
      const Run x = replay(b, n, 120);
      REQUIRE(x.ok);
      CHECK(x.r.mismatches > x.r.cases / 2);
      CHECK(x.r.by_class.count("operand-transposed:A") == 1);
      CHECK(x.r.by_class.at("operand-transposed:A") * 10 >= x.r.mismatches * 9);
    }
  }
  SECTION("swapped A/B block scales") {
    b.fault = Fault::kScaleSwap;
    for (const char* n :
         {"cublaslt.mxfp8.tt.bitexact", "cublaslt.nvfp4.tn.bitexact"}) {
      INFO(n);
      const Run x = replay(b, n, 120);
      REQUIRE(x.ok);
      CHECK(x.r.mismatches > 0);
      CHECK(x.r.by_class.count("scale-a-b-swap") == 1);
      CHECK(x.r.by_class.at("scale-a-b-swap") * 10 >= x.r.mismatches * 9);
    }
    // No block scales, nothing to swap.
    CHECK(replay(b, "cublaslt.fp8.tn.tensorscale", 120).r.mismatches == 0);
  }
  SECTION("scale tiles read as a plain array") {
    b.fault = Fault::kGemmScaleLayout;
    for (const char* n :
         {"cublaslt.mxfp8.nn.bitexact", "cublaslt.nvfp4.tn.bitexact"}) {
      INFO(n);
      const Run x = replay(b, n, 120);
      REQUIRE(x.ok);
      CHECK(x.r.mismatches > 0);
      CHECK(x.r.by_class.count("scale-layout:plain") == 1);
      CHECK(x.r.by_class.at("scale-layout:plain") * 10 >= x.r.mismatches * 9);
    }
  }
  SECTION("alpha ignored") {
    b.fault = Fault::kGemmAlpha;
    for (const char* n :
         {"cublaslt.nvfp4.tn.bitexact", "cublaslt.nvfp4.tn.alpha"}) {
      INFO(n);
      const Run x = replay(b, n, 120);
      REQUIRE(x.ok);
      CHECK(x.r.mismatches == x.r.cases);
      CHECK(x.r.by_class.size() == 1);
      CHECK(x.r.by_class.count("alpha-ignored") == 1);
    }
    // alpha = 1 families cannot tell.
    CHECK(replay(b, "cublaslt.mxfp8.tn.bitexact", 120).r.mismatches == 0);
  }
  SECTION("one flipped bit in D, in bit-exact and bound families") {
    b.fault = Fault::kBitFlip;
    b.fault_index = 40;
    b.flip_bit = 30;  // exponent bit: far outside any bound
    for (const char* n :
         {"cublaslt.nvfp4.tn.alpha", "cublaslt.mxfp8.tn.anyalgo"}) {
      INFO(n);
      const Run x = replay(b, n, 120);
      REQUIRE(x.ok);
      CHECK(x.r.mismatches >= 3);
      CHECK(x.r.first.size() >= 3);
    }
  }
}
