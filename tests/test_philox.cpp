// Philox4x32 known-answer tests. The vectors are Random123's kat_vectors
// (D. E. Shaw Research), as cut-and-pasted into
// DEShawResearch/Random123-Boost libs/random/test/test_philox.cpp
// (commit 916db91ae4c6fd8324ef054a518851321ab41f91, test_kat_philox4x32):
// each line is four counter words, two key words, then four output words.
// TensorFlow's stateful_random_ops_test.py (testPhilox4x32) checks the same
// three 10-round vectors.
#include <catch2/catch.hpp>
#include <set>
#include <vector>

#include "emu/block/philox.h"
#include "emu/fast/philox_fast.h"
#include "test_isas.h"

using namespace mxc;

TEST_CASE("Philox4x32-10 matches Random123 kat_vectors", "[philox][pinned]") {
  // "00000000 00000000 00000000 00000000 00000000 00000000
  //  6627e8d5 e169c58d bc57ac4c 9b00dbd8"
  CHECK(philox4x32_10({0, 0, 0, 0}, {0, 0}) ==
        PhiloxCounter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  // "ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff
  //  408f276d 41c83b0e a20bc7c6 6d5451fd"
  CHECK(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                      {0xffffffff, 0xffffffff}) ==
        PhiloxCounter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  // The digits of pi: "243f6a88 85a308d3 13198a2e 03707344 a4093822
  // 299f31d0   d16cfe09 94fdcceb 5001e420 24126ea1"
  CHECK(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                      {0xa4093822, 0x299f31d0}) ==
        PhiloxCounter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("Philox4x32-7 matches Random123 kat_vectors", "[philox][pinned]") {
  // Same file, the 7-round lines: they pin the round/key-bump order
  // independently of the round count.
  CHECK(philox4x32<7>({0, 0, 0, 0}, {0, 0}) ==
        PhiloxCounter{0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48});
  CHECK(philox4x32<7>({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                      {0xffffffff, 0xffffffff}) ==
        PhiloxCounter{0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662});
  CHECK(philox4x32<7>({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                      {0xa4093822, 0x299f31d0}) ==
        PhiloxCounter{0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a});
}

TEST_CASE("Philox4x32-10 is usable at compile time", "[philox]") {
  static_assert(philox4x32_10({0, 0, 0, 0}, {0, 0})[0] == 0x6627e8d5u);
  SUCCEED();
}

TEST_CASE("sr_rbits follows the documented (seed, index) mapping", "[philox]") {
  // key = {lo32(seed), hi32(seed)}, counter = {lo32(i/4), hi32(i/4), 0, 0},
  // word i % 4. With seed 0 and i < 4 this is the all-zero KAT above.
  CHECK(sr_rbits(0, 0) == 0x6627e8d5u);
  CHECK(sr_rbits(0, 1) == 0xe169c58du);
  CHECK(sr_rbits(0, 2) == 0xbc57ac4cu);
  CHECK(sr_rbits(0, 3) == 0x9b00dbd8u);
  // A seed and an index whose block number i / 4 uses both counter words:
  // the mapping spelled out by hand must give the same word.
  const uint64_t seed = 0xa4093822'299f31d0ull;
  const uint64_t block = uint64_t{0x05a308d3} << 32 | 0x243f6a88u;
  CHECK(sr_rbits(seed, block * 4 + 2) ==
        philox4x32_10({0x243f6a88, 0x05a308d3, 0, 0},
                      {0x299f31d0, 0xa4093822})[2]);
  CHECK(sr_rbits(seed, block * 4 + 3) ==
        philox4x32_10({0x243f6a88, 0x05a308d3, 0, 0},
                      {0x299f31d0, 0xa4093822})[3]);
}

TEST_CASE("sr_rbits differs across neighbouring elements and seeds",
          "[philox]") {
  std::set<uint32_t> seen;
  for (uint64_t i = 0; i < 64; ++i) seen.insert(sr_rbits(42, i));
  for (uint64_t s = 0; s < 64; ++s) seen.insert(sr_rbits(s, 5));
  // 128 draws of a 32-bit function: a collision would be a 2^-19 event.
  CHECK(seen.size() >= 127);
}

TEST_CASE("sr_rbits_fill equals sr_rbits element by element", "[philox]") {
  // Every start offset mod 4 and lengths that end mid-group, a start whose
  // block number needs both counter words.
  for (uint64_t seed : {uint64_t{0}, uint64_t{0xa4093822'299f31d0ull}}) {
    for (uint64_t first :
         {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{1001},
          (uint64_t{0x05a308d3} << 34) + 3}) {
      for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{4}, size_t{37}}) {
        std::vector<uint32_t> out(n + 1, 0xDEADBEEFu);
        sr_rbits_fill(seed, first, n, out.data());
        for (size_t j = 0; j < n; ++j) CHECK(out[j] == sr_rbits(seed, first + j));
        CHECK(out[n] == 0xDEADBEEFu);  // nothing written past n
      }
    }
  }
}

TEST_CASE("sr_rbits_fill on every ISA equals sr_rbits", "[philox][fast]") {
  // Vector lanes of Philox counters: starts at every offset mod 4, lengths
  // across several vectors with partial groups at both ends, block numbers
  // that carry into the counter's high word.
  for (fast::Isa isa : test::isas()) {
    INFO(fast::isa_name(isa));
    for (uint64_t seed : {uint64_t{0}, uint64_t{0xa4093822'299f31d0ull}}) {
      for (uint64_t first : {uint64_t{0}, uint64_t{1}, uint64_t{2},
                             uint64_t{3}, uint64_t{0xFFFFFFFFull * 4 - 8}}) {
        for (size_t n : {size_t{0}, size_t{2}, size_t{5}, size_t{64},
                         size_t{131}, size_t{1027}}) {
          std::vector<uint32_t> out(n + 1, 0xDEADBEEFu);
          fast::sr_rbits_fill(isa, seed, first, n, out.data());
          size_t bad = 0;
          for (size_t j = 0; j < n; ++j)
            bad += out[j] != sr_rbits(seed, first + j);
          CHECK(bad == 0);
          CHECK(out[n] == 0xDEADBEEFu);
        }
      }
    }
  }
}
