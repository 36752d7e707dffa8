#include "gpu_check/host/fragments.h"

#include <stdexcept>

namespace mxc::gpu {

ShapeInfo shape_info(FragShape s) {
  switch (s) {
    case FragShape::kM16N8K32x8:
      return {16, 8, 32, 8, 4, 2, 4};
    case FragShape::kM16N8K64x4:
      return {16, 8, 64, 4, 4, 2, 4};
    case FragShape::kM16N8K8x32:
    case FragShape::kM16N8K8x32Sync:
      return {16, 8, 8, 32, 4, 2, 4};
    case FragShape::kM16N8K16x16:
      return {16, 8, 16, 16, 4, 2, 4};
  }
  return {};
}

OperandCoding operand_coding(FragShape s, std::string_view fmt) {
  if (s == FragShape::kM16N8K64x4) return {0, 0xF};
  if (fmt == "e2m1") return {2, 0xF};
  if (fmt == "e2m3" || fmt == "e3m2") return {0, 0x3F};
  return {0, 0xFF};
}

std::vector<uint8_t> encode_operands(OperandCoding c,
                                     std::span<const uint8_t> codes) {
  std::vector<uint8_t> out(codes.size());
  for (size_t i = 0; i < codes.size(); ++i)
    out[i] = encode_operand(c, codes[i]);
  return out;
}

std::vector<uint8_t> decode_operands(OperandCoding c,
                                     std::span<const uint8_t> elems) {
  std::vector<uint8_t> out(elems.size());
  for (size_t i = 0; i < elems.size(); ++i)
    out[i] = decode_operand(c, elems[i]);
  return out;
}

RowCol a_elem(FragShape s, int lane, int i) {
  const int g = lane >> 2, t = lane % 4;
  if (s == FragShape::kM16N8K16x16) {
    // m16n8k16 .f16/.bf16: row = groupID for a0, a1, a4, a5, groupID + 8
    // otherwise; col = threadID_in_group * 2 + (i & 1), + 8 for i >= 4.
    const int row = ((i >> 1) & 1) ? g + 8 : g;
    const int col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
    return {row, col};
  }
  if (s == FragShape::kM16N8K8x32Sync) {
    // m16n8k8 .tf32: row = groupID for a0, a2, groupID + 8 for a1, a3;
    // col = threadID_in_group for a0, a1, + 4 for a2, a3.
    return {(i & 1) ? g + 8 : g, t + (i >= 2 ? 4 : 0)};
  }
  if (s == FragShape::kM16N8K32x8) {
    // row = groupID for a0..a3, a8..a11, groupID + 8 otherwise;
    // col = threadID_in_group * 4 + (i & 3), + 16 for i >= 8.
    const int row = ((i >> 2) & 1) ? g + 8 : g;
    const int col = t * 4 + (i & 3) + (i >= 8 ? 16 : 0);
    return {row, col};
  }
  // m16n8k64 .e2m1: row = groupID for a0..a7, a16..a23, groupID + 8
  // otherwise; col = threadID_in_group * 8 + (i & 7), + 32 for i >= 16.
  const int row = ((i >> 3) & 1) ? g + 8 : g;
  const int col = t * 8 + (i & 7) + (i >= 16 ? 32 : 0);
  return {row, col};
}

RowCol b_elem(FragShape s, int lane, int i) {
  const int g = lane >> 2, t = lane % 4;
  if (s == FragShape::kM16N8K16x16) {
    // m16n8k16 .f16/.bf16: row = threadID_in_group * 2 + (i & 1), + 8 for
    // b2, b3; col = groupID.
    return {t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g};
  }
  if (s == FragShape::kM16N8K8x32Sync) {
    // m16n8k8 .tf32: row = threadID_in_group for b0, + 4 for b1.
    return {t + (i >= 1 ? 4 : 0), g};
  }
  if (s == FragShape::kM16N8K32x8) {
    // row = threadID_in_group * 4 + (i & 3), + 16 for i >= 4; col = groupID.
    return {t * 4 + (i & 3) + (i >= 4 ? 16 : 0), g};
  }
  // m16n8k64 .e2m1: row = threadID_in_group * 8 + (i & 7), + 32 for i >= 8.
  return {t * 8 + (i & 7) + (i >= 8 ? 32 : 0), g};
}

RowCol c_elem(int lane, int i) {
  // row = groupID for c0, c1, groupID + 8 for c2, c3;
  // col = threadID_in_group * 2 + (i & 1).
  const int g = lane >> 2, t = lane % 4;
  return {i >= 2 ? g + 8 : g, t * 2 + (i & 1)};
}

namespace {

// One code per element of `tile` (T: uint8_t or uint32_t), elem_bits wide.
template <typename T, typename Elem>
std::vector<uint32_t> pack(FragShape s, std::span<const T> tile, int regs,
                           int ld, Elem elem) {
  const ShapeInfo si = shape_info(s);
  if (s == FragShape::kM16N8K8x32 ||
      si.elem_bits > 8 * static_cast<int>(sizeof(T)))
    throw std::invalid_argument(
        "pack: this shape has no lane fragments of these codes");
  const int per_reg = 32 / si.elem_bits;
  const uint32_t mask =
      si.elem_bits == 32 ? 0xFFFFFFFFu : (1u << si.elem_bits) - 1;
  std::vector<uint32_t> out(static_cast<size_t>(32 * regs), 0);
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < regs * per_reg; ++i) {
      const RowCol rc = elem(s, lane, i);
      const uint32_t v = tile[static_cast<size_t>(rc.row * ld + rc.col)] & mask;
      out[static_cast<size_t>(lane * regs + i / per_reg)] |=
          v << ((i % per_reg) * si.elem_bits);
    }
  }
  return out;
}

template <typename T, typename Elem>
std::vector<T> unpack(FragShape s, std::span<const uint32_t> regs_in, int regs,
                      int rows, int ld, Elem elem) {
  const ShapeInfo si = shape_info(s);
  if (s == FragShape::kM16N8K8x32 ||
      si.elem_bits > 8 * static_cast<int>(sizeof(T)))
    throw std::invalid_argument(
        "unpack: this shape has no lane fragments of these codes");
  const int per_reg = 32 / si.elem_bits;
  const uint32_t mask =
      si.elem_bits == 32 ? 0xFFFFFFFFu : (1u << si.elem_bits) - 1;
  if (regs_in.size() != static_cast<size_t>(32 * regs)) {
    throw std::invalid_argument("unpack: wrong fragment size");
  }
  std::vector<T> tile(static_cast<size_t>(rows * ld), 0);
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < regs * per_reg; ++i) {
      const RowCol rc = elem(s, lane, i);
      tile[static_cast<size_t>(rc.row * ld + rc.col)] = static_cast<T>(
          (regs_in[static_cast<size_t>(lane * regs + i / per_reg)] >>
           ((i % per_reg) * si.elem_bits)) &
          mask);
    }
  }
  return tile;
}

RowCol b_as_nk(FragShape s, int lane, int i) {
  const RowCol kn = b_elem(s, lane, i);
  return {kn.col, kn.row};  // stored [n][k]
}

template <typename T>
std::vector<uint32_t> pack_a_of(FragShape s, std::span<const T> a) {
  const ShapeInfo si = shape_info(s);
  if (a.size() != static_cast<size_t>(si.m * si.k))
    throw std::invalid_argument("pack_a: tile must be m x k");
  return pack(s, a, si.a_regs, si.k, a_elem);
}

template <typename T>
std::vector<uint32_t> pack_b_of(FragShape s, std::span<const T> b) {
  const ShapeInfo si = shape_info(s);
  if (b.size() != static_cast<size_t>(si.n * si.k))
    throw std::invalid_argument("pack_b: tile must be n x k");
  return pack(s, b, si.b_regs, si.k, b_as_nk);
}

}  // namespace

std::vector<uint32_t> pack_a(FragShape s, std::span<const uint8_t> a) {
  return pack_a_of(s, a);
}

std::vector<uint8_t> unpack_a(FragShape s, std::span<const uint32_t> regs) {
  const ShapeInfo si = shape_info(s);
  return unpack<uint8_t>(s, regs, si.a_regs, si.m, si.k, a_elem);
}

std::vector<uint32_t> pack_b(FragShape s, std::span<const uint8_t> b) {
  return pack_b_of(s, b);
}

std::vector<uint8_t> unpack_b(FragShape s, std::span<const uint32_t> regs) {
  const ShapeInfo si = shape_info(s);
  return unpack<uint8_t>(s, regs, si.b_regs, si.n, si.k, b_as_nk);
}

std::vector<uint32_t> pack_a_words(FragShape s, std::span<const uint32_t> a) {
  return pack_a_of(s, a);
}

std::vector<uint32_t> unpack_a_words(FragShape s,
                                     std::span<const uint32_t> regs) {
  const ShapeInfo si = shape_info(s);
  return unpack<uint32_t>(s, regs, si.a_regs, si.m, si.k, a_elem);
}

std::vector<uint32_t> pack_b_words(FragShape s, std::span<const uint32_t> b) {
  return pack_b_of(s, b);
}

std::vector<uint32_t> unpack_b_words(FragShape s,
                                     std::span<const uint32_t> regs) {
  const ShapeInfo si = shape_info(s);
  return unpack<uint32_t>(s, regs, si.b_regs, si.n, si.k, b_as_nk);
}

std::vector<uint32_t> pack_c(std::span<const uint32_t> c) {
  if (c.size() != 128)
    throw std::invalid_argument("pack_c: tile must be 16 x 8");
  std::vector<uint32_t> out(128);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const RowCol rc = c_elem(lane, i);
      out[static_cast<size_t>(lane * 4 + i)] =
          c[static_cast<size_t>(rc.row * 8 + rc.col)];
    }
  return out;
}

std::vector<uint32_t> unpack_c(std::span<const uint32_t> regs) {
  if (regs.size() != 128)
    throw std::invalid_argument("unpack_c: 128 registers");
  std::vector<uint32_t> out(128);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const RowCol rc = c_elem(lane, i);
      out[static_cast<size_t>(rc.row * 8 + rc.col)] =
          regs[static_cast<size_t>(lane * 4 + i)];
    }
  return out;
}

std::vector<uint32_t> pack_c_f16x2(std::span<const uint32_t> c) {
  if (c.size() != 128)
    throw std::invalid_argument("pack_c_f16x2: tile must be 16 x 8");
  std::vector<uint32_t> out(32 * kCRegsF16x2, 0);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const RowCol rc = c_elem(lane, i);
      out[static_cast<size_t>(lane * kCRegsF16x2 + i / 2)] |=
          (c[static_cast<size_t>(rc.row * 8 + rc.col)] & 0xFFFFu)
          << (16 * (i % 2));
    }
  return out;
}

std::vector<uint32_t> unpack_c_f16x2(std::span<const uint32_t> regs) {
  if (regs.size() != 32 * kCRegsF16x2)
    throw std::invalid_argument("unpack_c_f16x2: 64 registers");
  std::vector<uint32_t> out(128);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const RowCol rc = c_elem(lane, i);
      out[static_cast<size_t>(rc.row * 8 + rc.col)] =
          (regs[static_cast<size_t>(lane * kCRegsF16x2 + i / 2)] >>
           (16 * (i % 2))) &
          0xFFFFu;
    }
  return out;
}

std::vector<uint32_t> mma_c_to_f16x2(std::span<const uint32_t> c,
                                     size_t tiles) {
  if (c.size() != tiles * 128)
    throw std::invalid_argument("mma_c_to_f16x2: tiles * 128 words");
  std::vector<uint32_t> out;
  out.reserve(tiles * 32 * kCRegsF16x2);
  for (size_t t = 0; t < tiles; ++t) {
    const auto r = pack_c_f16x2(unpack_c(c.subspan(t * 128, 128)));
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

std::vector<uint32_t> mma_d_from_f16x2(std::span<const uint32_t> d,
                                       size_t tiles) {
  const size_t per = 32 * kCRegsF16x2;
  if (d.size() != tiles * per)
    throw std::invalid_argument("mma_d_from_f16x2: tiles * 64 registers");
  std::vector<uint32_t> out;
  out.reserve(tiles * 128);
  for (size_t t = 0; t < tiles; ++t) {
    const auto r = pack_c(unpack_c_f16x2(d.subspan(t * per, per)));
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

std::vector<uint32_t> pack_scale_a(std::span<const uint8_t> sa, int vec) {
  if (sa.size() != static_cast<size_t>(16 * vec))
    throw std::invalid_argument("pack_scale_a: 16 x vec scales");
  std::vector<uint32_t> out(32, 0);
  for (int lane = 0; lane < 32; ++lane) {
    const int row = (lane >> 2) + 8 * (lane & 1);
    for (int v = 0; v < vec; ++v)
      out[static_cast<size_t>(lane)] |=
          uint32_t{sa[static_cast<size_t>(row * vec + v)]} << (8 * v);
  }
  return out;
}

std::vector<uint32_t> pack_scale_b(std::span<const uint8_t> sb, int vec) {
  if (sb.size() != static_cast<size_t>(8 * vec))
    throw std::invalid_argument("pack_scale_b: 8 x vec scales");
  std::vector<uint32_t> out(32, 0);
  for (int lane = 0; lane < 32; ++lane) {
    const int col = lane >> 2;
    for (int v = 0; v < vec; ++v)
      out[static_cast<size_t>(lane)] |=
          uint32_t{sb[static_cast<size_t>(col * vec + v)]} << (8 * v);
  }
  return out;
}

std::vector<uint8_t> unpack_scale_a(std::span<const uint32_t> regs, int vec) {
  // Read from the lanes thread-id 0 selects (l % 4 in {0, 1}).
  std::vector<uint8_t> sa(static_cast<size_t>(16 * vec));
  for (int lane = 0; lane < 32; ++lane) {
    if (lane % 4 > 1) continue;
    const int row = (lane >> 2) + 8 * (lane & 1);
    for (int v = 0; v < vec; ++v)
      sa[static_cast<size_t>(row * vec + v)] =
          static_cast<uint8_t>(regs[static_cast<size_t>(lane)] >> (8 * v));
  }
  return sa;
}

std::vector<uint8_t> unpack_scale_b(std::span<const uint32_t> regs, int vec) {
  std::vector<uint8_t> sb(static_cast<size_t>(8 * vec));
  for (int lane = 0; lane < 32; lane += 4) {
    for (int v = 0; v < vec; ++v)
      sb[static_cast<size_t>((lane >> 2) * vec + v)] =
          static_cast<uint8_t>(regs[static_cast<size_t>(lane)] >> (8 * v));
  }
  return sb;
}

}  // namespace mxc::gpu
