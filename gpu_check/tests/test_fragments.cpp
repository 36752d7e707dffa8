// Fragment layouts against the PTX ISA tables (9.7.14.5, m16n8k32 8-bit
// and m16n8k64 4-bit; C/D f32) and pack/unpack round trips.
#include <catch2/catch.hpp>
#include <set>

#include "conformance/vectors/op.h"
#include "gpu_check/host/fragments.h"

using namespace mxc::gpu;

namespace {

std::vector<uint8_t> random_tile(size_t n, uint64_t seed, uint8_t mask) {
  std::vector<uint8_t> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = static_cast<uint8_t>(mxc::vec::case_random(seed, i, 0) & mask);
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
  for (auto s : {FragShape::kM16N8K32x8, FragShape::kM16N8K64x4}) {
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
      for (int i = 0; i < 4; ++i) c.insert({c_elem(lane, i).row, c_elem(lane, i).col});
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
      const auto b = random_tile(static_cast<size_t>(si.n * si.k), seed + 100, mask);
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
  a[9 * 32 + 23] = 0xAB;  // row 9, col 23: lane 5 (g 1, t 1), a15 -> reg 3 byte 3
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
