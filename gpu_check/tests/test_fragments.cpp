// Fragment layouts against the PTX ISA tables (9.7.14.5, m16n8k32 8-bit
// and m16n8k64 4-bit; C/D f32) and pack/unpack round trips; the sm_80+
// m16n8k16 / m16n8k8 shapes also against CUTLASS (below).
#include <catch2/catch.hpp>
#include <set>
#include <utility>
#include <vector>

#include "conformance/vectors/op.h"
#include "gpu_check/host/fragments.h"

using namespace mxc::gpu;

namespace {

std::vector<uint8_t> random_tile(size_t n, uint64_t seed, uint8_t mask) {
  std::vector<uint8_t> t(n);
  for (size_t i = 0; i < n; ++i)
    t[i] = static_cast<uint8_t>(mxc::vec::case_random(seed, i, 0) & mask);
  return t;
}

}  // namespace

TEST_CASE("m16n8k32 8-bit fragments: entries of the PTX ISA table") {
  const auto s = FragShape::kM16N8K32x8;
  // lane 0 (groupID 0, threadID_in_group 0)
  CHECK(a_elem(s, 0, 0).row == 0);
  CHECK(a_elem(s, 0, 0).col == 0);
  CHECK(a_elem(s, 0, 4).row == 8);
  CHECK(a_elem(s, 0, 8).col == 16);
  CHECK(a_elem(s, 0, 12).row == 8);
  CHECK(a_elem(s, 0, 12).col == 16);
  // lane 5 (groupID 1, threadID_in_group 1)
  CHECK(a_elem(s, 5, 0).row == 1);
  CHECK(a_elem(s, 5, 0).col == 4);
  CHECK(a_elem(s, 5, 3).col == 7);
  CHECK(a_elem(s, 5, 15).row == 9);
  CHECK(a_elem(s, 5, 15).col == 23);
  CHECK(b_elem(s, 5, 0).row == 4);
  CHECK(b_elem(s, 5, 0).col == 1);
  CHECK(b_elem(s, 5, 4).row == 20);
  CHECK(b_elem(s, 31, 7).row == 31);
  CHECK(b_elem(s, 31, 7).col == 7);
  CHECK(c_elem(5, 0).row == 1);
  CHECK(c_elem(5, 0).col == 2);
  CHECK(c_elem(5, 3).row == 9);
  CHECK(c_elem(5, 3).col == 3);
}

TEST_CASE("m16n8k64 4-bit fragments: entries of the PTX ISA table") {
  const auto s = FragShape::kM16N8K64x4;
  CHECK(a_elem(s, 5, 0).row == 1);
  CHECK(a_elem(s, 5, 0).col == 8);
  CHECK(a_elem(s, 5, 8).row == 9);
  CHECK(a_elem(s, 5, 16).row == 1);
  CHECK(a_elem(s, 5, 16).col == 40);
  CHECK(a_elem(s, 5, 31).row == 9);
  CHECK(a_elem(s, 5, 31).col == 47);
  CHECK(b_elem(s, 5, 8).row == 40);
  CHECK(b_elem(s, 5, 8).col == 1);
}

TEST_CASE("every element of A, B, C is held by exactly one lane and slot") {
  for (auto s : {FragShape::kM16N8K32x8, FragShape::kM16N8K64x4,
                 FragShape::kM16N8K16x16, FragShape::kM16N8K8x32Sync}) {
    const ShapeInfo si = shape_info(s);
    const int per = 32 / si.elem_bits;
    std::set<std::pair<int, int>> a, b, c;
    for (int lane = 0; lane < 32; ++lane) {
      for (int i = 0; i < si.a_regs * per; ++i) {
        const RowCol rc = a_elem(s, lane, i);
        REQUIRE(rc.row < si.m);
        REQUIRE(rc.col < si.k);
        a.insert({rc.row, rc.col});
      }
      for (int i = 0; i < si.b_regs * per; ++i) {
        const RowCol rc = b_elem(s, lane, i);
        REQUIRE(rc.row < si.k);
        REQUIRE(rc.col < si.n);
        b.insert({rc.row, rc.col});
      }
      for (int i = 0; i < 4; ++i)
        c.insert({c_elem(lane, i).row, c_elem(lane, i).col});
    }
    CHECK(a.size() == static_cast<size_t>(si.m * si.k));
    CHECK(b.size() == static_cast<size_t>(si.k * si.n));
    CHECK(c.size() == 128u);
  }
}

TEST_CASE("pack -> unpack round trips") {
  for (auto s : {FragShape::kM16N8K32x8, FragShape::kM16N8K64x4}) {
    const ShapeInfo si = shape_info(s);
    const uint8_t mask = si.elem_bits == 8 ? 0xFF : 0x0F;
    for (uint64_t seed = 1; seed < 20; ++seed) {
      const auto a = random_tile(static_cast<size_t>(si.m * si.k), seed, mask);
      const auto b =
          random_tile(static_cast<size_t>(si.n * si.k), seed + 100, mask);
      const auto pa = pack_a(s, a);
      REQUIRE(pa.size() == static_cast<size_t>(32 * si.a_regs));
      CHECK(unpack_a(s, pa) == a);
      CHECK(unpack_b(s, pack_b(s, b)) == b);
    }
  }
  std::vector<uint32_t> c(128);
  for (uint32_t i = 0; i < 128; ++i) c[i] = i * 0x01010101u;
  CHECK(unpack_c(pack_c(c)) == c);
}

TEST_CASE("8-bit A: element a_i sits in byte i % 4 of register i / 4") {
  const auto s = FragShape::kM16N8K32x8;
  std::vector<uint8_t> a(16 * 32, 0);
  a[9 * 32 + 23] =
      0xAB;  // row 9, col 23: lane 5 (g 1, t 1), a15 -> reg 3 byte 3
  const auto p = pack_a(s, a);
  CHECK(p[5 * 4 + 3] == 0xAB000000u);
  std::vector<uint8_t> a4(16 * 64, 0);
  a4[1 * 64 + 40] = 0xC;  // row 1, col 40: lane 5, a16 -> reg 2 nibble 0
  CHECK(pack_a(FragShape::kM16N8K64x4, a4)[5 * 4 + 2] == 0xCu);
}

TEST_CASE("block-scale operands: lanes and bytes") {
  for (int vec : {1, 2, 4}) {
    const auto sa = random_tile(static_cast<size_t>(16 * vec), 7, 0xFF);
    const auto sb = random_tile(static_cast<size_t>(8 * vec), 8, 0xFF);
    const auto pa = pack_scale_a(sa, vec), pb = pack_scale_b(sb, vec);
    CHECK(unpack_scale_a(pa, vec) == sa);
    CHECK(unpack_scale_b(pb, vec) == sb);
    // Lane 1 (groupID 0, odd) holds row 8; lane 4 holds row 1 / column 1.
    CHECK((pa[1] & 0xFF) == sa[static_cast<size_t>(8 * vec)]);
    CHECK((pa[4] & 0xFF) == sa[static_cast<size_t>(1 * vec)]);
    CHECK((pb[4] & 0xFF) == sb[static_cast<size_t>(1 * vec)]);
    // Lanes 2 and 3 repeat lanes 0 and 1 (thread-id selector either way).
    CHECK(pa[2] == pa[0]);
    CHECK(pa[3] == pa[1]);
  }
}

// The sm_80+ legacy shapes (kM16N8K16x16, kM16N8K8x32Sync) against
// CUTLASS's layouts of the same instructions, written here as CuTe
// (thread, value) -> index layouts rather than as our row/col formulas;
// entries of the PTX ISA figures ("Matrix Fragments for mma.m16n8k16 with
// floating point type", "Matrix Fragments for mma.m16n8k8", 9.7.14.5); the
// word pack/unpack.
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
