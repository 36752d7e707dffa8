// FP4 / FP6 packing. Byte-level expectations are derived by hand from the
// layouts documented in emu/block/pack.h (PTX ISA cvt .e2m1x2 semantics
// d[7:4] = convert(a), d[3:0] = convert(b); CUDA cuda_fp4.hpp float2 .x in
// the low nibble; CuTe subbyte_reference LSB-first bit stream for 6-bit
// types), not from running the packer.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

#include "emu/block/pack.h"
#include "emu/block/swizzle.h"
#include "emu/checked.h"

using namespace mxc;
using Bytes = std::vector<uint8_t>;

TEST_CASE("FP4: element 2i low nibble, 2i+1 high nibble", "[pack][pinned]") {
  // codes [0x1, 0xF]: byte = 0xF << 4 | 0x1.
  CHECK(pack_fp4(Bytes{0x1, 0xF}) == Bytes{0xF1});
  // E2M1 codes for (1.0, -2.0) are 0x2 and 0xC (OCP MX v1.0 table 5):
  // CUDA __nv_cvt_float2_to_fp4x2({.x = 1.0, .y = -2.0}) = 0xC2.
  CHECK(pack_fp4(Bytes{0x2, 0xC}) == Bytes{0xC2});
  CHECK(pack_fp4(Bytes{0x0, 0x1, 0x2, 0x3, 0x4, 0x5}) ==
        Bytes{0x10, 0x32, 0x54});
  CHECK(unpack_fp4(Bytes{0xF1}, 2) == Bytes{0x1, 0xF});
  CHECK(unpack_fp4(Bytes{0x10, 0x32, 0x54}, 6) ==
        Bytes{0x0, 0x1, 0x2, 0x3, 0x4, 0x5});
}

TEST_CASE("FP4: odd lengths pad the last high nibble with 0", "[pack]") {
  CHECK(pack_fp4(Bytes{0x7}) == Bytes{0x07});
  CHECK(pack_fp4(Bytes{0x1, 0x2, 0x9}) == Bytes{0x21, 0x09});
  CHECK(unpack_fp4(Bytes{0x21, 0x09}, 3) == Bytes{0x1, 0x2, 0x9});
  CHECK(pack_fp4(Bytes{}).empty());
  CHECK(unpack_fp4(Bytes{}, 0).empty());
}

TEST_CASE("FP4: every pair of codes round-trips", "[pack]") {
  Bytes codes;
  for (unsigned a = 0; a < 16; ++a) {
    for (unsigned b = 0; b < 16; ++b) {
      codes.push_back(static_cast<uint8_t>(a));
      codes.push_back(static_cast<uint8_t>(b));
    }
  }
  const Bytes packed = pack_fp4(codes);
  REQUIRE(packed.size() == 256);
  // Pair (a, b) packs to the byte b << 4 | a: all 256 bytes, in order.
  for (size_t k = 0; k < 256; ++k) {
    CHECK(packed[k] == static_cast<uint8_t>((k & 0xF) << 4 | (k >> 4)));
  }
  CHECK(unpack_fp4(packed, codes.size()) == codes);
}

TEST_CASE("FP6: four codes in three bytes, LSB-first stream",
          "[pack][pinned]") {
  // Element i occupies stream bits [6i, 6i+6); stream bit k is bit k % 8 of
  // byte k / 8.
  CHECK(pack_fp6(Bytes{0x3F, 0, 0, 0}) == Bytes{0x3F, 0x00, 0x00});
  // bits 6..11: byte 0 bits 6,7 and byte 1 bits 0..3.
  CHECK(pack_fp6(Bytes{0, 0x3F, 0, 0}) == Bytes{0xC0, 0x0F, 0x00});
  // bits 12..17: byte 1 bits 4..7 and byte 2 bits 0,1.
  CHECK(pack_fp6(Bytes{0, 0, 0x3F, 0}) == Bytes{0x00, 0xF0, 0x03});
  // bits 18..23: byte 2 bits 2..7.
  CHECK(pack_fp6(Bytes{0, 0, 0, 0x3F}) == Bytes{0x00, 0x00, 0xFC});
  // 1 | 2 << 6 | 3 << 12 | 4 << 18 = 0x000001 + 0x000080 + 0x003000 +
  // 0x100000 = 0x103081, little-endian bytes 81 30 10.
  CHECK(pack_fp6(Bytes{1, 2, 3, 4}) == Bytes{0x81, 0x30, 0x10});
  CHECK(unpack_fp6(Bytes{0x81, 0x30, 0x10}, 4) == Bytes{1, 2, 3, 4});
  // 0x15 = 010101b and 0x2A = 101010b alternating; the stream is
  // 0x2A << 18 | 0x15 << 12 | 0x2A << 6 | 0x15, with 0x2A << 18 = 0xA80000,
  // 0x15 << 12 = 0x015000, 0x2A << 6 = 0x000A80,
  // 0x15 = 0x000015; sum 0xA95A95 -> bytes 95 5A A9.
  CHECK(pack_fp6(Bytes{0x15, 0x2A, 0x15, 0x2A}) == Bytes{0x95, 0x5A, 0xA9});
}

TEST_CASE("FP6: lengths that are not a multiple of 4 pad with zero codes",
          "[pack]") {
  CHECK(pack_fp6(Bytes{0x3F}) == Bytes{0x3F, 0x00, 0x00});
  CHECK(pack_fp6(Bytes{0, 0x3F}) == Bytes{0xC0, 0x0F, 0x00});
  CHECK(pack_fp6(Bytes{1, 2, 3, 4, 0x3F}) ==
        Bytes{0x81, 0x30, 0x10, 0x3F, 0x00, 0x00});
  CHECK(packed_fp6_bytes(5) == 6);
  CHECK(pack_fp6(Bytes{}).empty());
  // unpack needs only ceil(6n / 8) bytes: one element fits in one byte.
  CHECK(unpack_fp6(Bytes{0x3F}, 1) == Bytes{0x3F});
  CHECK(unpack_fp6(Bytes{0xC0, 0x0F}, 2) == Bytes{0x00, 0x3F});
}

TEST_CASE("FP6: every code in every position round-trips", "[pack]") {
  for (size_t pos = 0; pos < 8; ++pos) {
    for (unsigned c = 0; c < 64; ++c) {
      Bytes codes(8, 0);
      codes[pos] = static_cast<uint8_t>(c);
      const Bytes packed = pack_fp6(codes);
      REQUIRE(packed.size() == 6);
      CHECK(unpack_fp6(packed, 8) == codes);
      // Exactly the code's bits are set, at stream offset 6 * pos.
      uint64_t stream = 0;
      for (size_t k = 0; k < packed.size(); ++k) {
        stream |= uint64_t{packed[k]} << (8 * k);
      }
      CHECK(stream == uint64_t{c} << (6 * pos));
    }
  }
  Bytes all;
  for (unsigned c = 0; c < 64; ++c) all.push_back(static_cast<uint8_t>(c));
  CHECK(unpack_fp6(pack_fp6(all), all.size()) == all);
}

TEST_CASE("Codes wider than the format and short inputs are rejected",
          "[pack]") {
  CHECK_THROWS_AS(pack_fp4(Bytes{0x10}), std::invalid_argument);
  CHECK_THROWS_AS(pack_fp4(Bytes{0x1, 0xFF}), std::invalid_argument);
  CHECK_THROWS_AS(pack_fp6(Bytes{0x40}), std::invalid_argument);
  CHECK_THROWS_AS(pack_fp6(Bytes{0, 0, 0, 0x80}), std::invalid_argument);
  CHECK_NOTHROW(pack_fp6(Bytes{0x3F}));
  CHECK_THROWS_AS(unpack_fp4(Bytes{0x00}, 3), std::invalid_argument);
  CHECK_THROWS_AS(unpack_fp6(Bytes{0x00, 0x00}, 3), std::invalid_argument);
  CHECK_NOTHROW(unpack_fp6(Bytes{0x00, 0x00, 0x00}, 3));
}

TEST_CASE("Huge sizes are an error, not a wrapped product", "[pack]") {
  // n = 2^64 - 1 codes: 4 * n and 6 * n wrap; the length check must not.
  const size_t huge = ~size_t{0};
  CHECK_THROWS_AS(unpack_fp4(Bytes{0x00}, huge), std::invalid_argument);
  CHECK_THROWS_AS(unpack_fp6(Bytes{0x00}, huge), std::invalid_argument);
  CHECK_THROWS_AS(unpack_fp6(Bytes{0x00}, huge / 6 + 1),
                  std::invalid_argument);
  // round_up(rows) * round_up(kblocks) wraps to 0 or 512 for these.
  CHECK_THROWS_AS(swizzled_scale_size((size_t{1} << 62) + 1, 4),
                  std::invalid_argument);
  CHECK_THROWS_AS(swizzled_scale_size(size_t{1} << 62, 4),
                  std::invalid_argument);
  CHECK_THROWS_AS(swizzled_scale_size(size_t{1} << 57, 128),
                  std::invalid_argument);
  CHECK_THROWS_AS(swizzled_scale_size(huge, 1), std::invalid_argument);
  CHECK_THROWS_AS(unswizzle_scales(Bytes(512), (size_t{1} << 62) + 1, 4),
                  std::invalid_argument);
  CHECK_THROWS_AS(swizzle_scales(Bytes{}, size_t{1} << 62, 4),
                  std::invalid_argument);
  CHECK(swizzled_scale_size(129, 5) == 256 * 8);
  CHECK(mxc::checked_mul(size_t{1} << 31, size_t{1} << 32, "x") ==
        size_t{1} << 63);
  CHECK_THROWS_AS(mxc::checked_mul(size_t{1} << 32, size_t{1} << 32, "x"),
                  std::invalid_argument);
}
