// The cuBLASLt / CUTLASS "128x4" tiled layout of block scales (cuBLAS docs,
// "1D block scaling factors layout"; torchao utils.to_blocked and TE's
// _recover_swizzled_scales agree). For a scale of row r (M or N index) and
// k-block c, with n_col_blocks = ceil(kblocks / 4):
//   offset = ((r / 128) * n_col_blocks + c / 4) * 512
//            + (r % 32) * 16 + ((r % 128) / 32) * 4 + (c % 4)
// Rows pad to a multiple of 128 and k-blocks to a multiple of 4 (zeros).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace mxc {

size_t swizzled_scale_offset(size_t r, size_t c, size_t kblocks);
size_t swizzled_scale_size(size_t rows, size_t kblocks);

// Row-major [rows][kblocks] <-> the tiled layout (padding with `pad`).
std::vector<uint8_t> swizzle_scales(std::span<const uint8_t> plain,
                                    size_t rows, size_t kblocks,
                                    uint8_t pad = 0);
std::vector<uint8_t> unswizzle_scales(std::span<const uint8_t> tiled,
                                      size_t rows, size_t kblocks);

}  // namespace mxc
