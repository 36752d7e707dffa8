#include "emu/block/swizzle.h"

#include <stdexcept>
#include <string>

#include "emu/checked.h"

namespace mxc {

size_t swizzled_scale_offset(size_t r, size_t c, size_t kblocks) {
  const size_t n_col_blocks = (kblocks + 3) / 4;
  return ((r / 128) * n_col_blocks + c / 4) * 512 + (r % 32) * 16 +
         ((r % 128) / 32) * 4 + (c % 4);
}

size_t swizzled_scale_size(size_t rows, size_t kblocks) {
  return checked_mul(checked_round_up(rows, 128, "rows"),
                     checked_round_up(kblocks, 4, "kblocks"),
                     "rows, kblocks: the padded 128x4 scale layout");
}

std::vector<uint8_t> swizzle_scales(std::span<const uint8_t> plain, size_t rows,
                                    size_t kblocks, uint8_t pad) {
  if (plain.size() != checked_mul(rows, kblocks, "rows, kblocks")) {
    throw std::invalid_argument(
        "plain: expected rows * kblocks = " + std::to_string(rows * kblocks) +
        " scale codes, got " + std::to_string(plain.size()) +
        " (swizzle_scales)");
  }
  std::vector<uint8_t> out(swizzled_scale_size(rows, kblocks), pad);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < kblocks; ++c)
      out[swizzled_scale_offset(r, c, kblocks)] = plain[r * kblocks + c];
  return out;
}

std::vector<uint8_t> unswizzle_scales(std::span<const uint8_t> tiled,
                                      size_t rows, size_t kblocks) {
  if (tiled.size() != swizzled_scale_size(rows, kblocks)) {
    throw std::invalid_argument(
        "tiled: expected " +
        std::to_string(swizzled_scale_size(rows, kblocks)) +
        " bytes for rows=" + std::to_string(rows) +
        ", kblocks=" + std::to_string(kblocks) + ", got " +
        std::to_string(tiled.size()) + " (unswizzle_scales)");
  }
  std::vector<uint8_t> out(checked_mul(rows, kblocks, "rows, kblocks"));
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < kblocks; ++c)
      out[r * kblocks + c] = tiled[swizzled_scale_offset(r, c, kblocks)];
  return out;
}

}  // namespace mxc
