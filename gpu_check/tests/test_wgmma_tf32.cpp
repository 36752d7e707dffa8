// SM90 wgmma m64n8k8 .f32.tf32.tf32: the 32-bit K-major no-swizzle smem
// images checked against CUTLASS's canonical layout (not against our own
// kmajor_interleave_offset), a CPU stand-in device that reads the images
// the way CUTLASS describes them, and replays of the family through the
// fake backend (clean, and with a fault that must be caught).
//
// Expected layout, CUTLASS v4.7.0-6 (7107b05):
//  - include/cute/atom/mma_traits_sm90_gmma.hpp:81 Layout_K_INTER_Atom_Bits
//    = Shape<_8,_128>:Stride<_128,_1> bits: a core matrix is 8 rows of 128
//    bits = 4 tf32, rows 16 bytes apart;
//  - :186 K-major INTERLEAVE canonical layout ((8,m),(T,2)):((1T,SBO),
//    (1,LBO)) with T = 4 tf32 per 16 bytes: element (row r, k) at
//    (r % 8) * 16 + (r / 8) * SBO + (k % 4) * 4 + (k / 4) * LBO bytes;
//  - :1894-1909 MMA_Traits<SM90_64x8x8_F32TF32TF32_SS_TN>: Shape_MNK
//    64x8x8, both operands smem_desc<Major::K>, CLayout_64x8 (the FP8
//    m64n8 f32 D layout of test_wgmma.cpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "conformance/vectors/op.h"
#include "conformance/vectors/vector_file.h"
#include "gpu_check/host/instr.h"
#include "gpu_check/host/replay.h"
#include "gpu_check/host/wgmma.h"
#include "gpu_check/tests/fake_backend.h"

using namespace mxc::gpu;

namespace {

constexpr const char* kTf32 = "wgmma.m64n8k8.f32.tf32.tf32";

// CUTLASS mma_traits_sm90_gmma.hpp:186 with T = 4 (see the header).
uint32_t cutlass_byte(int r, int k, uint32_t lbo, uint32_t sbo) {
  return static_cast<uint32_t>(r % 8) * 16 +
         static_cast<uint32_t>(r / 8) * sbo + static_cast<uint32_t>(k % 4) * 4 +
         static_cast<uint32_t>(k / 4) * lbo;
}

uint32_t finite_f32(uint64_t seed, uint64_t i, int stream) {
  // Exponent field below all-ones; tf32 operands: low 13 bits may be set
  // too (the model and the hardware ignore them).
  return static_cast<uint32_t>(mxc::vec::case_random(seed, i, stream)) &
         0xBF7FFFFFu;
}

MmaBatch tf32_batch(size_t tiles, uint64_t seed) {
  MmaBatch b;
  b.tiles = tiles;
  for (size_t t = 0; t < tiles; ++t) {
    std::vector<uint32_t> c(128);
    for (size_t i = 0; i < 128; ++i)
      b.a.push_back(finite_f32(seed, t * 1000 + i, 0));
    for (size_t i = 0; i < 64; ++i)
      b.b.push_back(finite_f32(seed, t * 1000 + i, 1));
    for (size_t i = 0; i < 128; ++i) c[i] = finite_f32(seed, t * 1000 + i, 2);
    const auto pc = pack_c(c);
    b.c.insert(b.c.end(), pc.begin(), pc.end());
  }
  return b;
}

}  // namespace

TEST_CASE(
    "tf32 wgmma images: elements where CUTLASS's K-major INTERLEAVE layout "
    "puts them") {
  // A few entries spelled out: row 0 k 4 is the second core matrix along
  // K (+LBO = 128 bytes); row 8 k 0 the next 8 rows (+SBO = 256); row 1
  // k 1 = 16 + 4 bytes.
  CHECK(cutlass_byte(0, 4, kWgmmaLbo, kWgmmaSbo) == 128u);
  CHECK(cutlass_byte(8, 0, kWgmmaLbo, kWgmmaSbo) == 256u);
  CHECK(cutlass_byte(1, 1, kWgmmaLbo, kWgmmaSbo) == 20u);
  CHECK(cutlass_byte(63, 7, kWgmmaLbo, kWgmmaSbo) ==
        7 * 256 + 128 + 7 * 16 + 12u);
  const MmaBatch b = tf32_batch(3, 5);
  const WgmmaImages im = wgmma_images_tf32(b);
  REQUIRE(im.tiles == 3u);
  REQUIRE(im.c_regs == 4);
  REQUIRE(im.a.size() == 3u * 512);  // 64 x 8 x 4 bytes
  REQUIRE(im.b.size() == 3u * 64);   // 8 x 8 x 4 bytes
  REQUIRE(im.c.size() == 3u * 128 * 4);
  for (size_t t = 0; t < 3; ++t) {
    std::vector<bool> a_used(512, false), b_used(64, false);
    for (int r = 0; r < 64; ++r)
      for (int k = 0; k < 8; ++k) {
        const uint32_t byte = cutlass_byte(r, k, kWgmmaLbo, kWgmmaSbo);
        REQUIRE(byte % 4 == 0);
        a_used[byte / 4] = true;
        // Each warp's 16 rows are the replay tile's A (row r <- r % 16).
        CHECK(im.a[t * 512 + byte / 4] ==
              b.a[t * 128 + static_cast<size_t>((r % 16) * 8 + k)]);
      }
    for (int n = 0; n < 8; ++n)
      for (int k = 0; k < 8; ++k) {
        const uint32_t byte = cutlass_byte(n, k, kWgmmaLbo, kWgmmaSbo);
        b_used[byte / 4] = true;
        CHECK(im.b[t * 64 + byte / 4] ==
              b.b[t * 64 + static_cast<size_t>(n * 8 + k)]);
      }
    CHECK(std::count(a_used.begin(), a_used.end(), true) == 512);
    CHECK(std::count(b_used.begin(), b_used.end(), true) == 64);
    // The readers are the inverse of the images.
    CHECK(wgmma_image_b_tile_tf32(std::span(im.b).subspan(t * 64, 64)) ==
          std::vector<uint32_t>(b.b.begin() + static_cast<long>(t * 64),
                                b.b.begin() + static_cast<long>(t * 64 + 64)));
    const auto a64 =
        wgmma_image_a_tile_tf32(std::span(im.a).subspan(t * 512, 512));
    for (int r = 0; r < 64; ++r)
      for (int k = 0; k < 8; ++k)
        CHECK(a64[static_cast<size_t>(r * 8 + k)] ==
              b.a[t * 128 + static_cast<size_t>((r % 16) * 8 + k)]);
  }
  // A device that leaves D = C returns C.
  CHECK(wgmma_fold_d(im.c, 3, false) == b.c);
  MmaBatch bad = b;
  bad.a.pop_back();
  CHECK_THROWS(wgmma_images_tf32(bad));
}

TEST_CASE(
    "tf32 wgmma: a stand-in device reading smem as CUTLASS describes agrees "
    "with the replay") {
  const Family* f = find_family(kTf32);
  REQUIRE(f != nullptr);
  REQUIRE(f->engine == MmaEngine::kWgmma);
  const auto op = mxc::vec::make_op(family_header(*f, 1, 1));
  const MmaBatch b = tf32_batch(2, 9);
  const WgmmaImages im = wgmma_images_tf32(b);
  std::vector<uint32_t> d(im.c.size(), 0);
  for (size_t t = 0; t < 2; ++t)
    for (int th = 0; th < 128; ++th)
      for (int i = 0; i < 4; ++i) {
        const RowCol rc = wgmma_d_elem(8, th, i);
        const size_t reg =
            (t * 128 + static_cast<size_t>(th)) * 4 + static_cast<size_t>(i);
        std::vector<uint64_t> in;
        for (int k = 0; k < 8; ++k)
          in.push_back(im.a[t * 512 +
                            cutlass_byte(rc.row, k, kWgmmaLbo, kWgmmaSbo) / 4]);
        for (int k = 0; k < 8; ++k)
          in.push_back(
              im.b[t * 64 + cutlass_byte(rc.col, k, kWgmmaLbo, kWgmmaSbo) / 4]);
        in.push_back(im.c[reg]);
        d[reg] = static_cast<uint32_t>(op->expected(in)[0]);
      }
  const auto folded = wgmma_fold_d(d, 2, false);
  int nonzero = 0;
  for (size_t t = 0; t < 2; ++t) {
    const auto dd = unpack_c(std::span(folded).subspan(t * 128, 128));
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        const auto in = mma_output_case(*f, b, t, m, n);
        REQUIRE(in.size() == 17u);  // A[8] B[8] C
        // The case carries the 32-bit operands unchanged.
        CHECK(in[0] == b.a[t * 128 + static_cast<size_t>(m * 8)]);
        CHECK(in[8] == b.b[t * 64 + static_cast<size_t>(n * 8)]);
        CHECK(dd[static_cast<size_t>(m * 8 + n)] == op->expected(in)[0]);
        nonzero += dd[static_cast<size_t>(m * 8 + n)] != 0;
      }
  }
  CHECK(nonzero > 200);
}

TEST_CASE("tf32 wgmma family: header, shape and fake replays") {
  const Family* f = find_family(kTf32);
  REQUIRE(f != nullptr);
  CHECK(f->ptx.rfind("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", 0) ==
        0);
  CHECK(f->header.get("model") == "sm90_wgmma_tf32_f32");
  CHECK(f->header.get("a-fmt") == "tf32");
  CHECK(f->header.get("b-fmt") == "tf32");
  CHECK(f->ccs == std::vector<int>{90});
  CHECK(f->needs == kFeatWgmma);
  CHECK(f->shape == FragShape::kM16N8K8x32);
  CHECK(shape_info(f->shape).k == 8);
  CHECK(family_matches(*f, "wgmma"));
  test::FakeBackend dev;
  dev.cc = 90;
  dev.features = kFeatWgmma;
  ReplayOptions o;
  o.level = 1;
  o.batch = 4096;
  const auto r = replay_level(dev, *f, o);
  CHECK(r.cases > 0);
  CHECK(r.mismatches == 0);
  const auto s = replay_sweep(dev, *f, 1024, o);
  CHECK(s.cases == 1024u);
  CHECK(s.mismatches == 0);
  // 1.0 x 1.0 summed over K = 8 (the "1.0 x 1.0 gives 0" case): a
  // vector case through mma_pack_cases / the fake device gives 8.0.
  std::vector<uint64_t> one(17, 0);
  for (int k = 0; k < 8; ++k)
    one[static_cast<size_t>(k)] = one[static_cast<size_t>(8 + k)] = 0x3F800000u;
  const std::vector<std::vector<uint64_t>> cases = {one};
  const MmaBatch batch = mma_pack_cases(*f, cases);
  std::vector<uint32_t> d;
  dev.mma(*f, batch, d);
  const std::vector<uint64_t> want = {0x41000000u};
  CHECK(mma_case_results(d, 1, want)[0] == 0x41000000u);  // 8.0f
  // A fault in one result is caught.
  test::FakeBackend bad = dev;
  bad.fault = test::Fault::kBitFlip;
  bad.fault_index = 3 * 8 + 3;
  bad.flip_bit = 20;
  CHECK(replay_level(bad, *f, o).mismatches == 1);
}

namespace {

// ../shared/oracles/km-hardware (README there): inputs-tf32.tsv rows are A
// then B, 8 fields of 8 hex digits each; the capture file's rows are
// `gpu C D`, in the inputs' order, restarting for each GPU.
std::string km_dir() {
  if (const char* e = std::getenv("MXC_KM_HARDWARE_DIR"); e && *e) return e;
  return std::string(MXC_SOURCE_DIR) + "/../shared/oracles/km-hardware";
}

std::vector<std::string> data_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> v;
  for (std::string l; std::getline(in, l);)
    if (!l.empty() && l[0] != '#') v.push_back(l);
  return v;
}

}  // namespace

TEST_CASE(
    "tf32 wgmma family: the H100/H200 captures through the 32-bit batch path") {
  const std::string dir = km_dir();
  const auto inputs = data_lines(dir + "/inputs-tf32.tsv");
  const auto rows = data_lines(dir + "/sm90_wgmma_tf32_f32.tf32.tsv");
  if (inputs.empty() || rows.empty()) {
    WARN("SKIPPED: "
         << dir << " (inputs-tf32.tsv, sm90_wgmma_tf32_f32.tf32.tsv) not found "
         << "(set MXC_KM_HARDWARE_DIR); TF32 captures not replayed");
    return;
  }
  const Family* f = find_family(kTf32);
  REQUIRE(f != nullptr);
  std::vector<std::vector<uint64_t>> cases;
  std::vector<uint64_t> want;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string& in = inputs[i % inputs.size()];
    REQUIRE(in.size() == 2 * 64 + 1);  // A, tab, B
    std::vector<uint64_t> c;
    for (int q = 0; q < 16; ++q) {
      const size_t at = static_cast<size_t>(q < 8 ? q * 8 : 65 + (q - 8) * 8);
      c.push_back(std::stoull(in.substr(at, 8), nullptr, 16));
    }
    std::istringstream r(rows[i]);
    std::string gpu, cs, ds;
    r >> gpu >> cs >> ds;
    c.push_back(std::stoull(cs, nullptr, 16));
    cases.push_back(std::move(c));
    want.push_back(std::stoull(ds, nullptr, 16));
  }
  REQUIRE(cases.size() == 10000u);  // README: H100 + H200, 5000 rows each
  // Cases -> 16x8x8 tiles -> the fake device (the model on the batch's
  // 32-bit operands) -> per-case D: equal to the GPU's bits on every row.
  test::FakeBackend dev;
  dev.cc = 90;
  dev.features = kFeatWgmma;
  const MmaBatch batch = mma_pack_cases(*f, cases);
  std::vector<uint32_t> d;
  dev.mma(*f, batch, d);
  const auto got = mma_case_results(d, cases.size(), want);
  size_t bad = 0;
  for (size_t i = 0; i < cases.size(); ++i) bad += got[i] != want[i];
  CHECK(bad == 0u);
}
