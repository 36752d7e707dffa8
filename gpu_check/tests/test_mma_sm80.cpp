// The sm_80+ mma.sync f16/bf16/tf32 families: their lane fragments
// (host/fragments.h kM16N8K16x16, kM16N8K8x32Sync) against CUTLASS's
// layouts of the same instructions, written here as CuTe (thread, value)
// -> index layouts rather than as our row/col formulas; entries of the PTX
// ISA figures ("Matrix Fragments for mma.m16n8k16 with floating point
// type", "Matrix Fragments for mma.m16n8k8", section 9.7.14.5); the word
// pack/unpack; and replays of every family through the fake backend
// (clean, and with a fault that must be caught).
//
// CUTLASS include/cute/atom/mma_traits_sm80.hpp (NVIDIA/cutlass 468e0ea):
//  - MMA_Traits<SM80_16x8x16_F16F16F16F16_TN> (the F32F16F16F32 and
//    F32BF16BF16F32 atoms inherit it): ALayout ((4,8),(2,2,2)) :
//    ((32,1),(16,8,128)) over (M16,K16); BLayout ((4,8),(2,2)) :
//    ((16,1),(8,64)) over (N8,K16);
//  - MMA_Traits<SM80_16x8x8_F32TF32TF32F32_TN>: ALayout ((4,8),(2,2)) :
//    ((16,1),(8,64)) over (M16,K8); BLayout ((4,8),2) : ((8,1),32) over
//    (N8,K8).
// A layout maps lane T = t0 + 4 t1 and value v (colexicographic over the
// value modes) to a column-major index: A (m, k) = (idx % 16, idx / 16),
// B (n, k) = (idx % 8, idx / 8). CuTe's value order is the register
// element order (a0, a1, ... low half first).
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "conformance/vectors/op.h"
#include "gpu_check/host/fragments.h"
#include "gpu_check/host/instr.h"
#include "gpu_check/host/replay.h"
#include "gpu_check/tests/fake_backend.h"
#include "gpu_check/tests/family_lookup.h"

using namespace mxc::gpu;

namespace {

struct CuteLayout {
  int t0_stride, t1_stride;  // thread modes (4, 8)
  std::vector<int> v_shape;  // value modes
  std::vector<int> v_stride;
  int ld;  // rows of the column-major (M or N) x K
};

// (row, col) of the (lane, v) entry, as a_elem / b_elem return them:
// A (m, k), B (k, n).
RowCol cute_entry(const CuteLayout& l, int lane, int v, bool is_b) {
  int idx = (lane % 4) * l.t0_stride + (lane / 4) * l.t1_stride;
  for (size_t i = 0; i < l.v_shape.size(); ++i) {
    idx += (v % l.v_shape[i]) * l.v_stride[i];
    v /= l.v_shape[i];
  }
  const int mn = idx % l.ld, k = idx / l.ld;
  return is_b ? RowCol{k, mn} : RowCol{mn, k};
}

int values(const CuteLayout& l) {
  int n = 1;
  for (int s : l.v_shape) n *= s;
  return n;
}

void check_against_cute(FragShape s, const CuteLayout& a, const CuteLayout& b) {
  const ShapeInfo si = shape_info(s);
  const int per_reg = 32 / si.elem_bits;
  REQUIRE(values(a) == si.a_regs * per_reg);
  REQUIRE(values(b) == si.b_regs * per_reg);
  std::set<std::pair<int, int>> seen_a, seen_b;
  for (int lane = 0; lane < 32; ++lane) {
    for (int v = 0; v < values(a); ++v) {
      const RowCol want = cute_entry(a, lane, v, false),
                   got = a_elem(s, lane, v);
      INFO("A lane " << lane << " element " << v);
      CHECK(got.row == want.row);
      CHECK(got.col == want.col);
      seen_a.insert({got.row, got.col});
    }
    for (int v = 0; v < values(b); ++v) {
      const RowCol want = cute_entry(b, lane, v, true),
                   got = b_elem(s, lane, v);
      INFO("B lane " << lane << " element " << v);
      CHECK(got.row == want.row);
      CHECK(got.col == want.col);
      seen_b.insert({got.row, got.col});
    }
  }
  CHECK(seen_a.size() == static_cast<size_t>(si.m * si.k));
  CHECK(seen_b.size() == static_cast<size_t>(si.n * si.k));
}

std::vector<uint32_t> random_words(size_t n, uint64_t seed, uint32_t mask) {
  std::vector<uint32_t> t(n);
  for (size_t i = 0; i < n; ++i)
    t[i] = static_cast<uint32_t>(mxc::vec::case_random(seed, i, 0)) & mask;
  return t;
}

}  // namespace

TEST_CASE("m16n8k16 f16/bf16 fragments: CUTLASS's SM80 16x8x16 layouts") {
  check_against_cute(FragShape::kM16N8K16x16,
                     {32, 1, {2, 2, 2}, {16, 8, 128}, 16},
                     {16, 1, {2, 2}, {8, 64}, 8});
}

TEST_CASE("m16n8k8 tf32 fragments: CUTLASS's SM80 16x8x8 TF32 layouts") {
  check_against_cute(FragShape::kM16N8K8x32Sync, {16, 1, {2, 2}, {8, 64}, 16},
                     {8, 1, {2}, {32}, 8});
}

TEST_CASE("m16n8k16 / m16n8k8 fragments: entries of the PTX ISA figures") {
  const auto h = FragShape::kM16N8K16x16;
  // lane 5: groupID 1, threadID_in_group 1.
  CHECK(a_elem(h, 5, 0).row == 1);
  CHECK(a_elem(h, 5, 0).col == 2);
  CHECK(a_elem(h, 5, 1).col == 3);
  CHECK(a_elem(h, 5, 2).row == 9);
  CHECK(a_elem(h, 5, 5).row == 1);
  CHECK(a_elem(h, 5, 5).col == 11);
  CHECK(a_elem(h, 5, 7).row == 9);
  CHECK(a_elem(h, 5, 7).col == 11);
  CHECK(b_elem(h, 5, 0).row == 2);
  CHECK(b_elem(h, 5, 0).col == 1);
  CHECK(b_elem(h, 5, 3).row == 11);
  const auto t = FragShape::kM16N8K8x32Sync;
  CHECK(a_elem(t, 5, 0).row == 1);
  CHECK(a_elem(t, 5, 0).col == 1);
  CHECK(a_elem(t, 5, 1).row == 9);
  CHECK(a_elem(t, 5, 3).row == 9);
  CHECK(a_elem(t, 5, 3).col == 5);
  CHECK(b_elem(t, 5, 1).row == 5);
  CHECK(b_elem(t, 5, 1).col == 1);
  const ShapeInfo sh = shape_info(h), st = shape_info(t);
  CHECK((sh.k == 16 && sh.elem_bits == 16 && sh.a_regs == 4 && sh.b_regs == 2));
  CHECK((st.k == 8 && st.elem_bits == 32 && st.a_regs == 4 && st.b_regs == 2));
}

TEST_CASE("16- and 32-bit lane fragments: registers and round trips") {
  const auto h = FragShape::kM16N8K16x16;
  const auto a = random_words(16 * 16, 11, 0xFFFF);
  const auto b = random_words(8 * 16, 12, 0xFFFF);
  const auto pa = pack_a_words(h, a);
  const auto pb = pack_b_words(h, b);
  REQUIRE(pa.size() == 32u * 4);
  REQUIRE(pb.size() == 32u * 2);
  // Lane 5, register 0 = a0 | a1 << 16 = A[1][2] | A[1][3] << 16; register
  // 3 = A[9][10] | A[9][11] << 16. B register 1 of lane 5 = b2 | b3 << 16 =
  // B[k 10][n 1] | B[k 11][n 1] << 16 (B stored [n][k]).
  CHECK(pa[5 * 4 + 0] == (a[1 * 16 + 2] | a[1 * 16 + 3] << 16));
  CHECK(pa[5 * 4 + 3] == (a[9 * 16 + 10] | a[9 * 16 + 11] << 16));
  CHECK(pb[5 * 2 + 1] == (b[1 * 16 + 10] | b[1 * 16 + 11] << 16));
  CHECK(unpack_a_words(h, pa) == a);
  CHECK(unpack_b_words(h, pb) == b);
  const auto t = FragShape::kM16N8K8x32Sync;
  const auto at = random_words(16 * 8, 13, 0xFFFFFFFFu);
  const auto bt = random_words(8 * 8, 14, 0xFFFFFFFFu);
  const auto pat = pack_a_words(t, at);
  CHECK(pat[5 * 4 + 1] == at[9 * 8 + 1]);  // a1 of lane 5: A[9][1]
  CHECK(unpack_a_words(t, pat) == at);
  CHECK(unpack_b_words(t, pack_b_words(t, bt)) == bt);
  // The 8-bit API refuses the wider shapes; the wgmma tf32 shape has no
  // lane fragments at all.
  const std::vector<uint8_t> a8(16 * 16, 0);
  CHECK_THROWS_AS(pack_a(h, a8), std::invalid_argument);
  CHECK_THROWS_AS(pack_a_words(FragShape::kM16N8K8x32, at),
                  std::invalid_argument);
}

namespace {

struct Sm80Family {
  const char* stem;   // without @smXX
  const char* model;  // without smXX_
  const char* fmt;
  FragShape shape;
  bool f16_acc;
  uint32_t sum_of_ones;  // K products of 1.0 x 1.0, C = 0: D code
};

constexpr Sm80Family kSm80Families[] = {
    {"mma.m16n8k16.f32.f16.f16", "mma_f16_f32", "f16", FragShape::kM16N8K16x16,
     false, 0x41800000u},  // 16.0f
    {"mma.m16n8k16.f32.bf16.bf16", "mma_bf16_f32", "bf16",
     FragShape::kM16N8K16x16, false, 0x41800000u},
    {"mma.m16n8k16.f16.f16.f16", "mma_f16_f16", "f16", FragShape::kM16N8K16x16,
     true, 0x4C00u},  // 16.0 as f16
    {"mma.m16n8k8.f32.tf32.tf32", "mma_tf32_f32", "tf32",
     FragShape::kM16N8K8x32Sync, false, 0x41000000u},  // 8.0f
};

struct Generation {
  const char* tag;
  int cc;  // a compute capability it runs on
  std::vector<int> ccs;
};

}  // namespace

TEST_CASE("sm_80+ mma.sync families: one per generation, fake replays") {
  const Generation gens[] = {{"sm80", 86, {80, 86, 87}},
                             {"sm89", 89, {89}},
                             {"sm90", 90, {90}},
                             {"sm100", 100, {100, 103}}};
  for (const Sm80Family& s : kSm80Families) {
    for (const Generation& g : gens) {
      const std::string name = std::string(s.stem) + "@" + g.tag;
      INFO("family " << name);
      const Family& f = test::fam(name);
      CHECK(f.header.get("model") == std::string(g.tag) + "_" + s.model);
      CHECK(f.header.get("a-fmt") == s.fmt);
      CHECK(f.header.get("b-fmt") == s.fmt);
      CHECK(f.ccs == g.ccs);
      CHECK(f.needs == kFeatMmaSm80);
      CHECK(f.shape == s.shape);
      CHECK(f.engine == MmaEngine::kSync);
      CHECK(f.f16_acc == s.f16_acc);
      CHECK(family_matches(f, "mma"));
      test::FakeBackend dev;
      dev.cc = g.cc;
      dev.features = kFeatMmaSm80;
      ReplayOptions o;
      o.level = 1;
      o.batch = 4096;
      const auto r = replay_level(dev, f, o);
      CHECK(r.cases > 0);
      CHECK(r.mismatches == 0);
      const auto sw = replay_sweep(dev, f, 1024, o);
      CHECK(sw.cases == 1024u);
      CHECK(sw.mismatches == 0);
      // 1.0 x 1.0 over K through mma_pack_cases and the fake device.
      const int k = shape_info(s.shape).k;
      const uint64_t one = std::string(s.fmt) == "f16"    ? 0x3C00u
                           : std::string(s.fmt) == "bf16" ? 0x3F80u
                                                          : 0x3F800000u;
      std::vector<uint64_t> c(static_cast<size_t>(2 * k + 1), one);
      c.back() = 0;
      const std::vector<std::vector<uint64_t>> cases = {c};
      std::vector<uint32_t> d;
      dev.mma(f, mma_pack_cases(f, cases), d);
      const std::vector<uint64_t> want = {s.sum_of_ones};
      CHECK(mma_case_results(d, 1, want)[0] == s.sum_of_ones);
      // A fault in one result is caught.
      test::FakeBackend bad = dev;
      bad.fault = test::Fault::kBitFlip;
      bad.fault_index = 3 * 8 + 3;
      bad.flip_bit = 12;
      CHECK(replay_level(bad, f, o).mismatches == 1);
    }
  }
}

TEST_CASE(
    "sm_80+ mma.sync families: skipped where the model is not the device's") {
  // An sm_90 device runs the @sm90 rows only; the sm_80 model is not
  // compared on it (each generation has its own model).
  int on90 = 0;
  for (const Family& f : families()) {
    if (f.needs != kFeatMmaSm80) continue;
    const bool runs = std::find(f.ccs.begin(), f.ccs.end(), 90) != f.ccs.end();
    if (runs) {
      ++on90;
      CHECK(f.name.substr(f.name.size() - 5) == "@sm90");
    }
  }
  CHECK(on90 == 4);
}
