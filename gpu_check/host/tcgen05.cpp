#include "gpu_check/host/tcgen05.h"

#include <stdexcept>
#include <string>

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
  if (m != 64 && m != 128)
    throw std::invalid_argument("tcgen05 idesc: M must be 64 or 128");
  if (n < 8 || n > 256 || n % 8 != 0)
    throw std::invalid_argument("tcgen05 idesc: bad N");
}

}  // namespace

uint32_t tcgen05_idesc_f8f6f4(F8f6f4Type a, F8f6f4Type b, bool f32_d, int m,
                              int n) {
  check_mn(m, n);
  uint32_t v = (f32_d ? 1u : 0u) << 4;
  v |= uint32_t{static_cast<uint8_t>(a)} << 7;
  v |= uint32_t{static_cast<uint8_t>(b)} << 10;
  v |= static_cast<uint32_t>(n >> 3) << 17;
  v |= static_cast<uint32_t>(m >> 4) << 24;
  return v;
}

uint32_t tcgen05_idesc_mxf8f6f4(F8f6f4Type a, F8f6f4Type b, int m, int n,
                                int sfa_id, int sfb_id) {
  check_mn(m, n);
  if (m != 128)
    throw std::invalid_argument("tcgen05 mxf8f6f4 idesc: M >> 7 needs M = 128");
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

uint32_t tcgen05_idesc_mxf4(bool ue8m0, int m, int n, int sfa_id, int sfb_id) {
  check_mn(m, n);
  if (m != 128)
    throw std::invalid_argument("tcgen05 mxf4 idesc: M >> 7 needs M = 128");
  if ((sfa_id != 0 && sfa_id != 2) || (sfb_id != 0 && sfb_id != 2))
    throw std::invalid_argument("tcgen05 mxf4 idesc: scale IDs are 0 or 2");
  uint32_t v = static_cast<uint32_t>(sfb_id) << 4;
  v |= 1u << 7;   // atype E2M1 = 1 (bits 7-9)
  v |= 1u << 10;  // btype E2M1 = 1 (bits 10-11)
  v |= static_cast<uint32_t>(n >> 3) << 17;
  v |= (ue8m0 ? 1u : 0u) << 23;  // UE8M0 1, UE4M3 0
  v |= static_cast<uint32_t>(m >> 7) << 27;
  v |= static_cast<uint32_t>(sfa_id) << 29;
  return v;  // bit 31 (K dimension) 0: dense K = 64
}

SmemElem smem_elem_for(F8f6f4Type t) {
  switch (t) {
    case F8f6f4Type::kE2M1:
      return SmemElem::kPad4;
    case F8f6f4Type::kE2M3:
    case F8f6f4Type::kE3M2:
      return SmemElem::kPad6;
    default:
      return SmemElem::kByte;
  }
}

namespace {

// Byte offset and bit position of element (row, k) and its width.
struct Place {
  uint32_t byte;
  int bit;  // 0..7 inside that byte; a 6-bit field may cross into the next
  int width;
};

Place place(int row, int k, SmemElem e) {
  switch (e) {
    case SmemElem::kByte:
      return {kmajor_interleave_offset(row, k, kWgmmaLbo, kWgmmaSbo), 0, 8};
    case SmemElem::kPacked4:
      return {kmajor_interleave_offset(row, k / 2, kWgmmaLbo, kWgmmaSbo),
              4 * (k % 2), 4};
    case SmemElem::kPad4:
    case SmemElem::kPad6: {
      // The 16-byte chunk of k / 16 is one core-matrix row; element j of it
      // at bits [w j, w j + w) of the chunk.
      const int w = e == SmemElem::kPad4 ? 4 : 6;
      const uint32_t chunk =
          kmajor_interleave_offset(row, (k / 16) * 16, kWgmmaLbo, kWgmmaSbo);
      const int bit = w * (k % 16);
      return {chunk + static_cast<uint32_t>(bit / 8), bit % 8, w};
    }
  }
  return {0, 0, 8};
}

}  // namespace

void tcgen05_put_elem(std::vector<uint32_t>& w, size_t base, int row, int k,
                      uint8_t code, SmemElem e) {
  const Place p = place(row, k, e);
  for (int i = 0; i < p.width; ++i) {
    const uint32_t bitpos = p.byte * 8 + static_cast<uint32_t>(p.bit + i);
    const uint32_t one = (code >> i) & 1u;
    uint32_t& word = w[base + bitpos / 32];
    word = (word & ~(1u << (bitpos % 32))) | (one << (bitpos % 32));
  }
}

uint8_t tcgen05_get_elem(std::span<const uint32_t> w, int row, int k,
                         SmemElem e) {
  const Place p = place(row, k, e);
  uint32_t v = 0;
  for (int i = 0; i < p.width; ++i) {
    const uint32_t bitpos = p.byte * 8 + static_cast<uint32_t>(p.bit + i);
    v |= ((w[bitpos / 32] >> (bitpos % 32)) & 1u) << i;
  }
  return static_cast<uint8_t>(v);
}

namespace {

F8f6f4Type type_of(const std::string& fmt) {
  if (fmt == "e4m3") return F8f6f4Type::kE4M3;
  if (fmt == "e5m2") return F8f6f4Type::kE5M2;
  if (fmt == "e2m3") return F8f6f4Type::kE2M3;
  if (fmt == "e3m2") return F8f6f4Type::kE3M2;
  if (fmt == "e2m1") return F8f6f4Type::kE2M1;
  throw std::invalid_argument("tcgen05: no f8f6f4 type for format '" + fmt +
                              "'");
}

}  // namespace

Tc05Config tcgen05_config(const Family& f) {
  const std::string model = f.header.get("model");
  Tc05Config c;
  c.scale_vec = f.scale_vec;
  c.f16_d = f.f16_acc;
  if (model == "sm100_tcgen05_f8f6f4_f32" ||
      model == "sm100_tcgen05_f8f6f4_f16" ||
      model == "sm100_tcgen05_mxf8f6f4") {
    const F8f6f4Type a = type_of(f.header.get("a-fmt")),
                     b = type_of(f.header.get("b-fmt"));
    c.kind = model == "sm100_tcgen05_mxf8f6f4" ? Tc05Kind::kMxf8f6f4
                                               : Tc05Kind::kF8f6f4;
    c.k = kTc05K;
    c.a_elem = smem_elem_for(a);
    c.b_elem = smem_elem_for(b);
    if (c.f16_d != (model == "sm100_tcgen05_f8f6f4_f16"))
      throw std::invalid_argument("tcgen05: f16_acc disagrees with model " +
                                  model);
    c.idesc = c.kind == Tc05Kind::kMxf8f6f4
                  ? tcgen05_idesc_mxf8f6f4(a, b, kTc05M, kTc05N, 0, 0)
                  : tcgen05_idesc_f8f6f4(a, b, !c.f16_d, kTc05M, kTc05N);
    if ((c.kind == Tc05Kind::kMxf8f6f4) != (c.scale_vec == 1))
      throw std::invalid_argument("tcgen05: scale_vec disagrees with model " +
                                  model);
    return c;
  }
  const bool mxf4 = model == "sm100_tcgen05_mxf4";
  const bool ue8m0 = mxf4 || model == "sm100_tcgen05_mxf4nvf4_2x" ||
                     model == "sm100_tcgen05_mxf4nvf4_4x_ue8m0";
  if (!mxf4 && !ue8m0 && model != "sm100_tcgen05_mxf4nvf4_4x")
    throw std::invalid_argument("tcgen05: no instruction for model " + model);
  if (f.header.get("a-fmt") != "e2m1" || f.header.get("b-fmt") != "e2m1")
    throw std::invalid_argument("tcgen05 mxf4: operands must be e2m1");
  c.kind = mxf4 ? Tc05Kind::kMxf4 : Tc05Kind::kMxf4nvf4;
  c.k = 64;
  c.a_elem = c.b_elem = SmemElem::kPacked4;
  const int want_vec =
      model == "sm100_tcgen05_mxf4" || model == "sm100_tcgen05_mxf4nvf4_2x" ? 2
                                                                            : 4;
  if (c.scale_vec != want_vec || c.f16_d)
    throw std::invalid_argument(
        "tcgen05: scale_vec / accumulator disagree with model " + model);
  c.idesc = tcgen05_idesc_mxf4(ue8m0, kTc05M, kTc05N, 0, 0);
  return c;
}

uint32_t tcgen05_scale_word(std::span<const uint8_t> s, int vec) {
  if (vec != 1 && vec != 2 && vec != 4)
    throw std::invalid_argument("tcgen05: scale_vec 1, 2 or 4");
  if (s.size() != static_cast<size_t>(vec))
    throw std::invalid_argument("tcgen05: vec scales");
  uint32_t sub = 0;
  for (int v = 0; v < vec; ++v)
    sub |= uint32_t{s[static_cast<size_t>(v)]} << (8 * v);
  // Replicate the sub-column over the word: every SF ID selects the same.
  return vec == 1 ? sub * 0x01010101u : vec == 2 ? sub * 0x00010001u : sub;
}

Tc05Images tcgen05_images(const MmaBatch& bt, const Family& f) {
  const Tc05Config cfg = tcgen05_config(f);
  const FragShape s = f.shape;
  const ShapeInfo si = shape_info(s);
  if (si.k != cfg.k)
    throw std::invalid_argument(
        "tcgen05_images: tile K differs from the MMA's K");
  const OperandCoding ca = operand_coding(s, f.header.get("a-fmt"));
  const OperandCoding cb = operand_coding(s, f.header.get("b-fmt"));
  const int k = cfg.k, vec = cfg.scale_vec;
  Tc05Images im;
  im.tiles = bt.tiles;
  im.a.assign(bt.tiles * (kTc05ABytes / 4), 0);
  im.b.assign(bt.tiles * (kTc05BBytes / 4), 0);
  im.c.assign(bt.tiles * 128 * 16, 0);
  im.sfa.assign(bt.tiles * 128 * kTc05SfaCols, 0);
  im.sfb.assign(bt.tiles * 128, 0);
  for (size_t t = 0; t < bt.tiles; ++t) {
    const auto a = decode_operands(
        ca, unpack_a(s, std::span(bt.a).subspan(t * 32 * si.a_regs,
                                                32 * si.a_regs)));
    const auto b = decode_operands(
        cb, unpack_b(s, std::span(bt.b).subspan(t * 32 * si.b_regs,
                                                32 * si.b_regs)));
    const auto c = unpack_c(std::span(bt.c).subspan(t * 128, 128));
    for (int r = 0; r < kTc05M; ++r)
      for (int q = 0; q < k; ++q)
        tcgen05_put_elem(im.a, t * (kTc05ABytes / 4), r, q,
                         a[static_cast<size_t>((r % 16) * k + q)], cfg.a_elem);
    for (int n = 0; n < kTc05N; ++n)
      for (int q = 0; q < k; ++q)
        tcgen05_put_elem(im.b, t * (kTc05BBytes / 4), n, q,
                         b[static_cast<size_t>((n % 8) * k + q)], cfg.b_elem);
    const uint32_t cmask = cfg.f16_d ? 0xFFFFu : 0xFFFFFFFFu;
    for (int th = 0; th < 128; ++th)
      for (int n = 0; n < 16; ++n)
        im.c[(t * 128 + static_cast<size_t>(th)) * 16 +
             static_cast<size_t>(n)] =
            c[static_cast<size_t>((th % 16) * 8 + n % 8)] & cmask;
    if (vec) {
      const auto sa =
          unpack_scale_a(std::span(bt.sfa).subspan(t * 32, 32), vec);
      const auto sb =
          unpack_scale_b(std::span(bt.sfb).subspan(t * 32, 32), vec);
      const size_t v = static_cast<size_t>(vec);
      for (int th = 0; th < 128; ++th) {
        // Register j of thread th: A row m = 32 j + th % 32 (tile row m % 16).
        for (int j = 0; j < kTc05SfaCols; ++j) {
          const int m = tcgen05_sfa_row(th, j);
          im.sfa[(t * 128 + static_cast<size_t>(th)) * kTc05SfaCols +
                 static_cast<size_t>(j)] =
              tcgen05_scale_word(
                  std::span(sa).subspan(static_cast<size_t>(m % 16) * v, v),
                  vec);
        }
        im.sfb[t * 128 + static_cast<size_t>(th)] = tcgen05_scale_word(
            std::span(sb).subspan(static_cast<size_t>(th % 8) * v, v), vec);
      }
    }
  }
  return im;
}

int tcgen05_sfa_row(int thread, int reg) { return 32 * reg + thread % 32; }

std::vector<uint32_t> tcgen05_fold_d(std::span<const uint32_t> d, size_t tiles,
                                     bool f16_d) {
  if (d.size() != tiles * 128 * 16)
    throw std::invalid_argument("tcgen05_fold_d: wrong size");
  const uint32_t mask = f16_d ? 0xFFFFu : 0xFFFFFFFFu;
  std::vector<uint32_t> out;
  out.reserve(tiles * 128);
  for (size_t t = 0; t < tiles; ++t) {
    std::vector<uint32_t> tile(128);
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        auto at = [&](int row, int col) {
          return d[(t * 128 + static_cast<size_t>(row)) * 16 +
                   static_cast<size_t>(col)] &
                 mask;
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
