#include "gpu_check/host/wgmma.h"

#include <stdexcept>
#include <string>

namespace mxc::gpu {
namespace {

uint64_t field14(uint32_t bytes, const char* what) {
  if (bytes % 16 != 0 || bytes >= (1u << 18))
    throw std::invalid_argument(std::string("wgmma descriptor: ") + what +
                                " must be a multiple of 16 below 2^18");
  return (bytes >> 4) & 0x3FFFu;
}

}  // namespace

uint64_t wgmma_desc_encode(const SmemDesc& d) {
  if (d.base_offset < 0 || d.base_offset > 7)
    throw std::invalid_argument("wgmma descriptor: base offset is 3 bits");
  uint64_t v = field14(d.addr, "start address");
  v |= field14(d.lbo, "leading dimension byte offset") << 16;
  v |= field14(d.sbo, "stride dimension byte offset") << 32;
  v |= uint64_t(static_cast<unsigned>(d.base_offset)) << 49;
  v |= uint64_t(static_cast<unsigned>(d.swizzle)) << 62;
  return v;
}

SmemDesc wgmma_desc_decode(uint64_t bits) {
  SmemDesc d;
  d.addr = static_cast<uint32_t>(bits & 0x3FFFu) << 4;
  d.lbo = static_cast<uint32_t>((bits >> 16) & 0x3FFFu) << 4;
  d.sbo = static_cast<uint32_t>((bits >> 32) & 0x3FFFu) << 4;
  d.base_offset = static_cast<int>((bits >> 49) & 7u);
  d.swizzle = static_cast<Swizzle>((bits >> 62) & 3u);
  return d;
}

uint32_t kmajor_interleave_offset(int row, int kbyte, uint32_t lbo, uint32_t sbo) {
  return static_cast<uint32_t>(row / 8) * sbo + static_cast<uint32_t>(kbyte / 16) * lbo +
         static_cast<uint32_t>(row % 8) * 16u + static_cast<uint32_t>(kbyte % 16);
}

RowCol wgmma_d_elem(int n, int thread, int i) {
  (void)n;
  const int warp = thread / 32, lane = thread % 32;
  const int g = lane >> 2, t = lane % 4;
  const int row = 16 * warp + g + 8 * ((i >> 1) & 1);
  const int col = 8 * (i >> 2) + 2 * t + (i & 1);
  return {row, col};
}

namespace {

void put_byte(std::vector<uint32_t>& w, size_t base, uint32_t off, uint8_t v) {
  w[base + off / 4] |= uint32_t{v} << (8 * (off % 4));
}

uint8_t get_byte(std::span<const uint32_t> w, uint32_t off) {
  return static_cast<uint8_t>(w[off / 4] >> (8 * (off % 4)));
}

}  // namespace

namespace {

void fill_c(WgmmaImages& im, std::span<const uint32_t> bc, size_t t, bool f16acc) {
  const auto c = unpack_c(bc.subspan(t * 128, 128));
  for (int th = 0; th < 128; ++th)
    for (int i = 0; i < 4; ++i) {
      const RowCol rc = wgmma_d_elem(kWgmmaN, th, i);
      const uint32_t v = c[static_cast<size_t>((rc.row % 16) * 8 + rc.col)];
      const size_t base = (t * 128 + static_cast<size_t>(th)) * static_cast<size_t>(im.c_regs);
      if (f16acc)
        im.c[base + static_cast<size_t>(i / 2)] |= (v & 0xFFFFu) << (16 * (i % 2));
      else
        im.c[base + static_cast<size_t>(i)] = v;
    }
}

// Word offset of tf32 element (row, k) in a K-major no-swizzle image.
uint32_t tf32_word(int row, int k) {
  return kmajor_interleave_offset(row, 4 * k, kWgmmaLbo, kWgmmaSbo) / 4;
}

}  // namespace

WgmmaImages wgmma_images_tf32(const MmaBatch& bt) {
  constexpr int k8 = kWgmmaKTf32;
  WgmmaImages im;
  im.tiles = bt.tiles;
  im.c_regs = 4;
  if (bt.a.size() != bt.tiles * 16 * k8 || bt.b.size() != bt.tiles * 8 * k8 ||
      bt.c.size() != bt.tiles * 128)
    throw std::invalid_argument("wgmma_images_tf32: batch sizes are not 16x8x8 tiles");
  im.a.assign(bt.tiles * (kWgmmaABytes / 4), 0);
  im.b.assign(bt.tiles * (kWgmmaBBytes / 4), 0);
  im.c.assign(bt.tiles * 128 * 4, 0);
  for (size_t t = 0; t < bt.tiles; ++t) {
    const size_t abase = t * (kWgmmaABytes / 4), bbase = t * (kWgmmaBBytes / 4);
    for (int r = 0; r < kWgmmaM; ++r)
      for (int k = 0; k < k8; ++k)
        im.a[abase + tf32_word(r, k)] = bt.a[t * 16 * k8 + static_cast<size_t>((r % 16) * k8 + k)];
    for (int n = 0; n < kWgmmaN; ++n)
      for (int k = 0; k < k8; ++k)
        im.b[bbase + tf32_word(n, k)] = bt.b[t * 8 * k8 + static_cast<size_t>(n * k8 + k)];
    fill_c(im, bt.c, t, false);
  }
  return im;
}

std::vector<uint32_t> wgmma_image_a_tile_tf32(std::span<const uint32_t> a_words) {
  std::vector<uint32_t> a(static_cast<size_t>(kWgmmaM * kWgmmaKTf32));
  for (int r = 0; r < kWgmmaM; ++r)
    for (int k = 0; k < kWgmmaKTf32; ++k)
      a[static_cast<size_t>(r * kWgmmaKTf32 + k)] = a_words[tf32_word(r, k)];
  return a;
}

std::vector<uint32_t> wgmma_image_b_tile_tf32(std::span<const uint32_t> b_words) {
  std::vector<uint32_t> b(static_cast<size_t>(kWgmmaN * kWgmmaKTf32));
  for (int n = 0; n < kWgmmaN; ++n)
    for (int k = 0; k < kWgmmaKTf32; ++k)
      b[static_cast<size_t>(n * kWgmmaKTf32 + k)] = b_words[tf32_word(n, k)];
  return b;
}

WgmmaImages wgmma_images(const MmaBatch& bt, bool f16acc) {
  const FragShape s = FragShape::kM16N8K32x8;
  const ShapeInfo si = shape_info(s);
  WgmmaImages im;
  im.tiles = bt.tiles;
  im.c_regs = f16acc ? 2 : 4;
  im.a.assign(bt.tiles * (kWgmmaABytes / 4), 0);
  im.b.assign(bt.tiles * (kWgmmaBBytes / 4), 0);
  im.c.assign(bt.tiles * 128 * static_cast<size_t>(im.c_regs), 0);
  for (size_t t = 0; t < bt.tiles; ++t) {
    const auto a = unpack_a(s, std::span(bt.a).subspan(t * 32 * si.a_regs, 32 * si.a_regs));
    const auto b = unpack_b(s, std::span(bt.b).subspan(t * 32 * si.b_regs, 32 * si.b_regs));
    const size_t abase = t * (kWgmmaABytes / 4), bbase = t * (kWgmmaBBytes / 4);
    for (int r = 0; r < kWgmmaM; ++r)
      for (int k = 0; k < kWgmmaK; ++k)
        put_byte(im.a, abase, kmajor_interleave_offset(r, k, kWgmmaLbo, kWgmmaSbo),
                 a[static_cast<size_t>((r % 16) * kWgmmaK + k)]);
    for (int n = 0; n < kWgmmaN; ++n)
      for (int k = 0; k < kWgmmaK; ++k)
        put_byte(im.b, bbase, kmajor_interleave_offset(n, k, kWgmmaLbo, kWgmmaSbo),
                 b[static_cast<size_t>(n * kWgmmaK + k)]);
    fill_c(im, bt.c, t, f16acc);
  }
  return im;
}

std::vector<uint32_t> wgmma_fold_d(std::span<const uint32_t> d, size_t tiles, bool f16acc) {
  const size_t regs = f16acc ? 2 : 4;
  if (d.size() != tiles * 128 * regs) throw std::invalid_argument("wgmma_fold_d: wrong size");
  std::vector<uint32_t> out;
  out.reserve(tiles * 128);
  for (size_t t = 0; t < tiles; ++t) {
    // copies[w][row * 8 + col]
    std::vector<uint32_t> copies(4 * 128, 0);
    for (int th = 0; th < 128; ++th)
      for (int i = 0; i < 4; ++i) {
        const RowCol rc = wgmma_d_elem(kWgmmaN, th, i);
        const uint32_t w = d[(t * 128 + static_cast<size_t>(th)) * regs +
                             (f16acc ? static_cast<size_t>(i / 2) : static_cast<size_t>(i))];
        const uint32_t v = f16acc ? (w >> (16 * (i % 2))) & 0xFFFFu : w;
        copies[static_cast<size_t>((rc.row / 16) * 128 + (rc.row % 16) * 8 + rc.col)] = v;
      }
    std::vector<uint32_t> tile(128);
    for (size_t e = 0; e < 128; ++e) {
      uint32_t v = copies[e];
      for (size_t w = 1; w < 4; ++w)
        if (copies[w * 128 + e] != copies[e]) {
          v = copies[w * 128 + e];
          break;
        }
      tile[e] = v;
    }
    const auto packed = pack_c(tile);
    out.insert(out.end(), packed.begin(), packed.end());
  }
  return out;
}

std::vector<uint8_t> wgmma_image_a_tile(std::span<const uint32_t> a_words) {
  std::vector<uint8_t> a(static_cast<size_t>(kWgmmaM * kWgmmaK));
  for (int r = 0; r < kWgmmaM; ++r)
    for (int k = 0; k < kWgmmaK; ++k)
      a[static_cast<size_t>(r * kWgmmaK + k)] =
          get_byte(a_words, kmajor_interleave_offset(r, k, kWgmmaLbo, kWgmmaSbo));
  return a;
}

std::vector<uint8_t> wgmma_image_b_tile(std::span<const uint32_t> b_words) {
  std::vector<uint8_t> b(static_cast<size_t>(kWgmmaN * kWgmmaK));
  for (int n = 0; n < kWgmmaN; ++n)
    for (int k = 0; k < kWgmmaK; ++k)
      b[static_cast<size_t>(n * kWgmmaK + k)] =
          get_byte(b_words, kmajor_interleave_offset(n, k, kWgmmaLbo, kWgmmaSbo));
  return b;
}

}  // namespace mxc::gpu
