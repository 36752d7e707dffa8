#include "gpu_check/host/tcgen05.h"

#include <stdexcept>

namespace mxc::gpu {

uint64_t tcgen05_smem_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  SmemDesc d;
  d.addr = addr;
  d.lbo = lbo;
  d.sbo = sbo;
  // Same start / LBO / SBO fields as wgmma; the fixed 0b001 at bits 46-48;
  // swizzle none (bits 61-63 = 0), base offset 0, LBO mode relative.
  return wgmma_desc_encode(d) | (uint64_t{1} << 46);
}

namespace {

void check_mn(int m, int n) {
  if (m != 64 && m != 128) throw std::invalid_argument("tcgen05 idesc: M must be 64 or 128");
  if (n < 8 || n > 256 || n % 8 != 0) throw std::invalid_argument("tcgen05 idesc: bad N");
}

}  // namespace

uint32_t tcgen05_idesc_f8f6f4(F8f6f4Type a, F8f6f4Type b, bool f32_d, int m, int n) {
  check_mn(m, n);
  uint32_t v = (f32_d ? 1u : 0u) << 4;
  v |= uint32_t{static_cast<uint8_t>(a)} << 7;
  v |= uint32_t{static_cast<uint8_t>(b)} << 10;
  v |= static_cast<uint32_t>(n >> 3) << 17;
  v |= static_cast<uint32_t>(m >> 4) << 24;
  return v;
}

uint32_t tcgen05_idesc_mxf8f6f4(F8f6f4Type a, F8f6f4Type b, int m, int n, int sfa_id,
                                int sfb_id) {
  check_mn(m, n);
  if (m != 128) throw std::invalid_argument("tcgen05 mxf8f6f4 idesc: M >> 7 needs M = 128");
  if (sfa_id < 0 || sfa_id > 3 || sfb_id < 0 || sfb_id > 3)
    throw std::invalid_argument("tcgen05 idesc: scale IDs are 0..3");
  uint32_t v = static_cast<uint32_t>(sfb_id) << 4;
  v |= uint32_t{static_cast<uint8_t>(a)} << 7;
  v |= uint32_t{static_cast<uint8_t>(b)} << 10;
  v |= static_cast<uint32_t>(n >> 3) << 17;
  v |= 1u << 23;  // UE8M0
  v |= static_cast<uint32_t>(m >> 7) << 27;
  v |= static_cast<uint32_t>(sfa_id) << 29;
  return v;
}

namespace {

void put_byte(std::vector<uint32_t>& w, size_t base, uint32_t off, uint8_t v) {
  w[base + off / 4] |= uint32_t{v} << (8 * (off % 4));
}

}  // namespace

Tc05Images tcgen05_images(const MmaBatch& bt, bool scaled) {
  const FragShape s = FragShape::kM16N8K32x8;
  const ShapeInfo si = shape_info(s);
  Tc05Images im;
  im.tiles = bt.tiles;
  im.a.assign(bt.tiles * (kTc05ABytes / 4), 0);
  im.b.assign(bt.tiles * (kTc05BBytes / 4), 0);
  im.c.assign(bt.tiles * 128 * 16, 0);
  im.sfa.assign(bt.tiles * 128, 0);
  im.sfb.assign(bt.tiles * 128, 0);
  for (size_t t = 0; t < bt.tiles; ++t) {
    const auto a = unpack_a(s, std::span(bt.a).subspan(t * 32 * si.a_regs, 32 * si.a_regs));
    const auto b = unpack_b(s, std::span(bt.b).subspan(t * 32 * si.b_regs, 32 * si.b_regs));
    const auto c = unpack_c(std::span(bt.c).subspan(t * 128, 128));
    for (int r = 0; r < kTc05M; ++r)
      for (int k = 0; k < kTc05K; ++k)
        put_byte(im.a, t * (kTc05ABytes / 4), kmajor_interleave_offset(r, k, kWgmmaLbo, kWgmmaSbo),
                 a[static_cast<size_t>((r % 16) * 32 + k)]);
    for (int n = 0; n < kTc05N; ++n)
      for (int k = 0; k < kTc05K; ++k)
        put_byte(im.b, t * (kTc05BBytes / 4), kmajor_interleave_offset(n, k, kWgmmaLbo, kWgmmaSbo),
                 b[static_cast<size_t>((n % 8) * 32 + k)]);
    for (int th = 0; th < 128; ++th)
      for (int n = 0; n < 16; ++n)
        im.c[(t * 128 + static_cast<size_t>(th)) * 16 + static_cast<size_t>(n)] =
            c[static_cast<size_t>((th % 16) * 8 + n % 8)];
    if (scaled) {
      const auto sa = unpack_scale_a(std::span(bt.sfa).subspan(t * 32, 32), 1);
      const auto sb = unpack_scale_b(std::span(bt.sfb).subspan(t * 32, 32), 1);
      for (int th = 0; th < 128; ++th) {
        im.sfa[t * 128 + static_cast<size_t>(th)] = uint32_t{sa[static_cast<size_t>(th % 16)]} * 0x01010101u;
        im.sfb[t * 128 + static_cast<size_t>(th)] = uint32_t{sb[static_cast<size_t>(th % 8)]} * 0x01010101u;
      }
    }
  }
  return im;
}

std::vector<uint32_t> tcgen05_fold_d(std::span<const uint32_t> d, size_t tiles) {
  if (d.size() != tiles * 128 * 16) throw std::invalid_argument("tcgen05_fold_d: wrong size");
  std::vector<uint32_t> out;
  out.reserve(tiles * 128);
  for (size_t t = 0; t < tiles; ++t) {
    std::vector<uint32_t> tile(128);
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        auto at = [&](int row, int col) {
          return d[(t * 128 + static_cast<size_t>(row)) * 16 + static_cast<size_t>(col)];
        };
        const uint32_t v0 = at(m, n);
        uint32_t v = v0;
        for (int rr = m; rr < 128 && v == v0; rr += 16)
          for (int cc = n; cc < 16; cc += 8)
            if (at(rr, cc) != v0) {
              v = at(rr, cc);
              break;
            }
        tile[static_cast<size_t>(m * 8 + n)] = v;
      }
    const auto packed = pack_c(tile);
    out.insert(out.end(), packed.begin(), packed.end());
  }
  return out;
}

}  // namespace mxc::gpu
