// Replay through the fake backend: clean runs are bit-exact, and every
// injected fault is caught and classified.
#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>

#include "conformance/vectors/generate.h"
#include "gpu_check/host/replay.h"
#include "gpu_check/tests/fake_backend.h"
#include "gpu_check/tests/family_lookup.h"

using namespace mxc::gpu;
using mxc::gpu::test::FakeBackend;
using mxc::gpu::test::Fault;

namespace {

using mxc::gpu::test::fam;

ReplayOptions quick() {
  ReplayOptions o;
  o.level = 0;
  o.batch = 1000;
  return o;
}

}  // namespace

TEST_CASE("every family's header makes a valid op") {
  for (const Family& f : families()) {
    if (f.kind == FamilyKind::kGemm) continue;
    INFO(f.name);
    CHECK_NOTHROW(mxc::vec::make_op(family_header(f, 1, 1)));
  }
}

TEST_CASE("clean fake replays are bit-exact for every convert and mma family") {
  FakeBackend b;
  b.features = ~0u;
  for (const Family& f : families()) {
    if (f.kind == FamilyKind::kGemm) continue;
    INFO(f.name);
    const auto r = replay_level(b, f, quick());
    CHECK(r.cases > 0);
    CHECK(r.mismatches == 0);
  }
}

TEST_CASE("the level replay has exactly the vector file's cases") {
  FakeBackend b;
  const Family& f = fam("cvt.e2m1x2.f32");
  const auto r = replay_level(b, f, quick());
  const auto op = mxc::vec::make_op(family_header(f, 0, 1));
  CHECK(r.cases == op->count());
}

TEST_CASE("a flipped bit is caught and classified") {
  FakeBackend b;
  b.fault = Fault::kBitFlip;
  b.fault_index = 7;
  b.flip_bit = 6;
  const auto r = replay_level(b, fam("cvt.e4m3x2.f32"), quick());
  CHECK(r.mismatches == 1);
  REQUIRE(r.first.size() == 1);
  CHECK(r.first[0].line == 7);
  CHECK(!r.first[0].cls.empty());
  b.flip_bit = 20;
  b.fault_index = 3 * 8 + 3;  // tile 0, D[3][3]: vector case 3
  b.flipped = false;
  const auto m = replay_level(b, fam("mma.m16n8k32.kind::mxf8f6f4.1X.e4m3.e4m3"), quick());
  CHECK(m.mismatches == 1);
  CHECK(m.by_class.count("bit-flip:20") == 1);
}

TEST_CASE("swapped A/B block scales are classified scale-a-b-swap") {
  FakeBackend b;
  b.fault = Fault::kScaleSwap;
  // On the diagonal (the level replay) the swap is invisible: SA * SB is
  // symmetric. The sweep's full tiles expose it.
  const Family& f = fam("mma.m16n8k32.kind::mxf8f6f4.1X.e4m3.e5m2");
  CHECK(replay_level(b, f, quick()).mismatches == 0);
  const auto r = replay_sweep(b, f, 128 * 20, quick());
  CHECK(r.mismatches > 0);
  CHECK(r.by_class.count("scale-a-b-swap") == 1);
  CHECK(r.by_class.at("scale-a-b-swap") * 10 >= r.mismatches * 9);
  // Without block scales the same fault changes nothing.
  const auto u = replay_sweep(b, fam("mma.m16n8k32.kind::f8f6f4.f32.e4m3.e4m3"), 1280, quick());
  CHECK(u.mismatches == 0);
}

TEST_CASE("results in the wrong nibble / byte order are classified lane-order") {
  FakeBackend b;
  b.fault = Fault::kNibbleOrder;
  for (const char* n : {"cvt.e2m1x2.f32", "cvt.e4m3x2.f32", "nv.float2_to_fp4x2.e2m1",
                        "cvt.f16x2.e2m1x2"}) {
    INFO(n);
    const auto r = replay_level(b, fam(n), quick());
    CHECK(r.mismatches > 0);
    CHECK(r.by_class.size() == 1);
    CHECK(r.by_class.count("lane-order") == 1);
  }
}

TEST_CASE("replay of a vector file written by mxc gen") {
  FakeBackend b;
  const Family& f = fam("cvt.e3m2x2.f32");
  std::stringstream file;
  mxc::vec::generate(family_header(f, 0, 3), {}, file);
  auto r = replay_file(b, f, file, "e3m2.vec", quick());
  CHECK(r.mismatches == 0);
  CHECK(r.cases > 0);
  // A file for another family is refused with file:line.
  std::stringstream other;
  mxc::vec::generate(family_header(fam("cvt.e2m3x2.f32"), 0, 3), {}, other);
  CHECK_THROWS_AS(replay_file(b, f, other, "x.vec", quick()), mxc::vec::InputError);
  // A corrupted expected result in the file shows as a mismatch.
  std::stringstream mma_file;
  const Family& mf = fam("mma.m16n8k32.f32.e4m3.e4m3@sm89");
  mxc::vec::generate(family_header(mf, 0, 3), {}, mma_file);
  std::string text = mma_file.str();
  const auto last = text.rfind(' ');
  text[last + 1] = text[last + 1] == '0' ? '1' : '0';
  std::stringstream bad(text);
  b.cc = 89;
  r = replay_file(b, mf, bad, "mma.vec", quick());
  CHECK(r.mismatches == 1);
  // An integer key with trailing text is refused at its own line.
  std::string junk = mma_file.str();
  const auto k = junk.find("# k=32\n");
  REQUIRE(k != std::string::npos);
  const long k_line =
      1 + static_cast<long>(std::count(
              junk.begin(), junk.begin() + static_cast<long>(k), '\n'));
  junk.replace(k, 7, "# k=32x\n");
  std::stringstream junk_file(junk);
  try {
    replay_file(b, mf, junk_file, "mma.vec", quick());
    FAIL("k=32x accepted");
  } catch (const mxc::vec::InputError& e) {
    CHECK(std::string(e.what()).find(
              "mma.vec:" + std::to_string(k_line) +
              ": header: k='32x' must be an integer in 1..8192") == 0);
  }
}

TEST_CASE("random sweeps through the fake backend") {
  FakeBackend b;
  b.features = ~0u;
  for (const char* n : {"cvt.e4m3x2.f32", "cvt.rs.e2m1x4.f32", "cvt.rs.bf16x2.f32",
                        "mma.m16n8k64.kind::mxf4nvf4.4X.e2m1.e2m1"}) {
    INFO(n);
    const auto r = replay_sweep(b, fam(n), 3000, quick());
    CHECK(r.cases >= 3000);
    CHECK(r.mismatches == 0);
  }
}

TEST_CASE("cuBLASLt replay against the composed GEMM model") {
  FakeBackend b;
  mxc::vec::Report r;
  std::string why;
  REQUIRE(replay_gemm(b, fam("cublaslt.mxfp8.tn.bitexact"), 120, quick(), r, why));
  CHECK(r.mismatches == 0);
  CHECK(r.cases > 10000);
  b.fault = Fault::kBitFlip;
  b.fault_index = 17;
  b.flip_bit = 3;
  REQUIRE(replay_gemm(b, fam("cublaslt.mxfp8.tn.bitexact"), 120, quick(), r, why));
  // The fake's gemm flips once per problem size it runs (33 x 17 refused).
  CHECK(r.mismatches == 5);
  CHECK(r.by_class.count("bit-flip:3") == 1);
  CHECK_FALSE(replay_gemm(b, fam("cublaslt.mxfp8.tn.bitexact"), 90, quick(), r, why));
  CHECK(why.find("no GEMM model") != std::string::npos);
}
