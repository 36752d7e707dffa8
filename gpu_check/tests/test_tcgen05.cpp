// SM100 tcgen05 host side against the PTX ISA (9.7.16.4.1 shared memory
// descriptor, 9.7.16.4.2 instruction descriptors for kind::f8f6f4,
// kind::mxf8f6f4 and kind::mxf4/mxf4nvf4, 9.7.16.10.4 smem packing of
// FP6/FP4, TMEM data path layout for M = 128 cta_group::1, 9.7.16.10.7
// block scaling 1X/2X/4X), and the replay tile <-> tcgen05 image
// translation end to end on the CPU for every tcgen05 family.
#include <bit>
#include <catch2/catch.hpp>

#include "conformance/vectors/op.h"
#include "emu/mma/models.h"
#include "gpu_check/host/instr.h"
#include "gpu_check/host/replay.h"
#include "gpu_check/host/tcgen05.h"

using namespace mxc::gpu;

TEST_CASE(
    "tcgen05 smem descriptor: wgmma fields plus the fixed 0b001 at bits "
    "46-48") {
  const uint64_t v = tcgen05_smem_desc(0x800, 128, 256);
  CHECK((v & 0x3FFF) == 0x80);
  CHECK(((v >> 16) & 0x3FFF) == 8);
  CHECK(((v >> 32) & 0x3FFF) == 16);
  CHECK(((v >> 46) & 7) == 1);
  CHECK(((v >> 49) & 7) == 0);  // base offset
  CHECK(((v >> 52) & 1) == 0);  // LBO mode: relative
  CHECK((v >> 61) == 0);        // no swizzle
}

TEST_CASE("tcgen05 instruction descriptor: Table 42 (kind::f8f6f4)") {
  const uint32_t v =
      tcgen05_idesc_f8f6f4(F8f6f4Type::kE4M3, F8f6f4Type::kE5M2, true, 128, 16);
  CHECK(((v >> 4) & 3) == 1);      // dtype F32
  CHECK(((v >> 7) & 7) == 0);      // atype E4M3
  CHECK(((v >> 10) & 7) == 1);     // btype E5M2
  CHECK(((v >> 13) & 0xF) == 0);   // no negate, K-major
  CHECK(((v >> 17) & 0x3F) == 2);  // N >> 3
  CHECK(((v >> 24) & 0x1F) == 8);  // M >> 4
  CHECK(v == ((1u << 4) | (1u << 10) | (2u << 17) | (8u << 24)));
  CHECK(((tcgen05_idesc_f8f6f4(F8f6f4Type::kE2M1, F8f6f4Type::kE3M2, false, 64,
                               8) >>
          7) &
         0x3F) == (5u | 4u << 3));
  CHECK_THROWS(
      tcgen05_idesc_f8f6f4(F8f6f4Type::kE4M3, F8f6f4Type::kE4M3, true, 96, 16));
  CHECK_THROWS(tcgen05_idesc_f8f6f4(F8f6f4Type::kE4M3, F8f6f4Type::kE4M3, true,
                                    128, 12));
}

TEST_CASE("tcgen05 instruction descriptor: Table 44 (kind::mxf8f6f4)") {
  const uint32_t v = tcgen05_idesc_mxf8f6f4(F8f6f4Type::kE5M2,
                                            F8f6f4Type::kE4M3, 128, 16, 2, 3);
  CHECK(((v >> 4) & 3) == 3);      // SFB ID
  CHECK(((v >> 7) & 7) == 1);      // atype E5M2
  CHECK(((v >> 10) & 7) == 0);     // btype E4M3
  CHECK(((v >> 17) & 0x3F) == 2);  // N >> 3
  CHECK(((v >> 23) & 1) == 1);     // UE8M0
  CHECK(((v >> 24) & 7) == 0);     // reserved
  CHECK(((v >> 27) & 3) == 1);     // M >> 7
  CHECK(((v >> 29) & 3) == 2);     // SFA ID
  CHECK((v >> 31) == 0);
  CHECK_THROWS(tcgen05_idesc_mxf8f6f4(F8f6f4Type::kE4M3, F8f6f4Type::kE4M3, 128,
                                      16, 4, 0));
}

TEST_CASE("tcgen05 instruction descriptor: the kind::mxf4 / mxf4nvf4 table") {
  const uint32_t v = tcgen05_idesc_mxf4(true, 128, 16, 2, 0);
  CHECK(((v >> 0) & 0xF) == 0);    // reserved, dense, reserved
  CHECK(((v >> 4) & 3) == 0);      // SFB ID
  CHECK(((v >> 6) & 1) == 0);      // reserved
  CHECK(((v >> 7) & 7) == 1);      // atype E2M1 = 1
  CHECK(((v >> 10) & 3) == 1);     // btype E2M1 = 1
  CHECK(((v >> 12) & 0x1F) == 0);  // reserved, no negate, K-major
  CHECK(((v >> 17) & 0x3F) == 2);  // N >> 3
  CHECK(((v >> 23) & 1) == 1);     // UE8M0
  CHECK(((v >> 24) & 7) == 0);     // reserved
  CHECK(((v >> 27) & 3) == 1);     // M >> 7
  CHECK(((v >> 29) & 3) == 2);     // SFA ID
  CHECK((v >> 31) == 0);           // dense K = 64
  CHECK(v == ((1u << 7) | (1u << 10) | (2u << 17) | (1u << 23) | (1u << 27) |
              (2u << 29)));
  CHECK(((tcgen05_idesc_mxf4(false, 128, 16, 0, 2) >> 23) & 1) == 0);  // UE4M3
  CHECK(((tcgen05_idesc_mxf4(false, 128, 16, 0, 2) >> 4) & 3) == 2);
  CHECK_THROWS(tcgen05_idesc_mxf4(true, 128, 16, 1, 0));  // half-word IDs only
  CHECK_THROWS(tcgen05_idesc_mxf4(true, 64, 16, 0, 0));
}

TEST_CASE("tcgen05 families' descriptors follow their kind and types") {
  auto cfg = [](const char* n) {
    const Family* f = find_family(n);
    REQUIRE(f != nullptr);
    return tcgen05_config(*f);
  };
  const Tc05Config a = cfg("tcgen05.mma.kind::f8f6f4.f32.e4m3.e2m1");
  CHECK(a.kind == Tc05Kind::kF8f6f4);
  CHECK(a.idesc == tcgen05_idesc_f8f6f4(F8f6f4Type::kE4M3, F8f6f4Type::kE2M1,
                                        true, 128, 16));
  CHECK(((a.idesc >> 10) & 7) == 5);
  CHECK(a.a_elem == SmemElem::kByte);
  CHECK(a.b_elem == SmemElem::kPad4);
  const Tc05Config b = cfg("tcgen05.mma.kind::mxf8f6f4.1X.e3m2.e3m2");
  CHECK(b.idesc == tcgen05_idesc_mxf8f6f4(F8f6f4Type::kE3M2, F8f6f4Type::kE3M2,
                                          128, 16, 0, 0));
  CHECK(b.a_elem == SmemElem::kPad6);
  const Tc05Config c = cfg("tcgen05.mma.kind::f8f6f4.f16.e5m2.e4m3");
  CHECK(c.f16_d);
  CHECK(((c.idesc >> 4) & 3) == 0);  // dtype F16
  const Tc05Config d = cfg("tcgen05.mma.kind::mxf4nvf4.4X.e2m1.e2m1");
  CHECK(d.kind == Tc05Kind::kMxf4nvf4);
  CHECK(d.k == 64);
  CHECK(d.scale_vec == 4);
  CHECK(d.idesc == tcgen05_idesc_mxf4(false, 128, 16, 0, 0));
  CHECK(cfg("tcgen05.mma.kind::mxf4nvf4.4X.ue8m0.e2m1.e2m1").idesc ==
        tcgen05_idesc_mxf4(true, 128, 16, 0, 0));
  CHECK(cfg("tcgen05.mma.kind::mxf4.2X.e2m1.e2m1").kind == Tc05Kind::kMxf4);
  CHECK(cfg("tcgen05.mma.kind::mxf4nvf4.2X.e2m1.e2m1").a_elem ==
        SmemElem::kPacked4);
}

namespace {

uint8_t image_byte(std::span<const uint32_t> w, uint32_t off) {
  return static_cast<uint8_t>(w[off / 4] >> (8 * (off % 4)));
}

// One element written into an empty A image: the bytes it changed.
std::vector<std::pair<uint32_t, uint8_t>> written(int row, int k, uint8_t code,
                                                  SmemElem e) {
  std::vector<uint32_t> w(kTc05ABytes / 4, 0);
  tcgen05_put_elem(w, 0, row, k, code, e);
  std::vector<std::pair<uint32_t, uint8_t>> out;
  for (uint32_t i = 0; i < kTc05ABytes; ++i)
    if (image_byte(w, i)) out.emplace_back(i, image_byte(w, i));
  return out;
}

using Bytes = std::vector<std::pair<uint32_t, uint8_t>>;

}  // namespace

TEST_CASE(
    "tcgen05 smem packings: 8-bit, padded FP4/FP6 (9.7.16.10.4.4), packed e2m1 "
    "(.4.6)") {
  // 8-bit: as wgmma, core matrices of 8 rows x 16 bytes, LBO 128, SBO 256.
  CHECK(written(0, 17, 0xAB, SmemElem::kByte) == Bytes{{129, 0xAB}});
  CHECK(written(9, 3, 0x11, SmemElem::kByte) == Bytes{{256 + 16 + 3, 0x11}});
  // Padded FP4: 16 k in the first 8 bytes of a 16-byte row chunk, low
  // nibble first; bytes 8..15 of every chunk stay padding.
  CHECK(written(0, 0, 0x7, SmemElem::kPad4) == Bytes{{0, 0x07}});
  CHECK(written(0, 1, 0x7, SmemElem::kPad4) == Bytes{{0, 0x70}});
  CHECK(written(0, 15, 0xF, SmemElem::kPad4) == Bytes{{7, 0xF0}});
  CHECK(written(0, 16, 0x3, SmemElem::kPad4) == Bytes{{128, 0x03}});
  CHECK(written(10, 18, 0x9, SmemElem::kPad4) ==
        Bytes{{256 + 32 + 128 + 1, 0x09}});
  // Padded FP6: 16 k in 12 bytes (little-endian bit stream), 4 bytes padding.
  CHECK(written(0, 0, 0x3F, SmemElem::kPad6) == Bytes{{0, 0x3F}});
  CHECK(written(0, 1, 0x3F, SmemElem::kPad6) == Bytes{{0, 0xC0}, {1, 0x0F}});
  CHECK(written(0, 2, 0x21, SmemElem::kPad6) == Bytes{{1, 0x10}, {2, 0x02}});
  CHECK(written(0, 15, 0x3F, SmemElem::kPad6) == Bytes{{11, 0xFC}});
  CHECK(written(1, 16, 0x01, SmemElem::kPad6) == Bytes{{128 + 16, 0x01}});
  // Packed e2m1 (K = 64): two per byte, 32 bytes per row.
  CHECK(written(0, 0, 0x5, SmemElem::kPacked4) == Bytes{{0, 0x05}});
  CHECK(written(0, 1, 0x5, SmemElem::kPacked4) == Bytes{{0, 0x50}});
  CHECK(written(0, 31, 0xA, SmemElem::kPacked4) == Bytes{{15, 0xA0}});
  CHECK(written(0, 32, 0xA, SmemElem::kPacked4) == Bytes{{128, 0x0A}});
  CHECK(written(8, 63, 0x1, SmemElem::kPacked4) ==
        Bytes{{256 + 128 + 15, 0x10}});
  // Every bit of a 128 x K image is written by exactly one element, and
  // padding bytes by none.
  for (const auto& [e, k, w] : {std::tuple{SmemElem::kByte, 32, 8},
                                {SmemElem::kPad4, 32, 4},
                                {SmemElem::kPad6, 32, 6},
                                {SmemElem::kPacked4, 64, 4}}) {
    // All-ones codes written one after the other: an element whose bits
    // were already set overlaps an earlier one.
    const uint8_t ones = static_cast<uint8_t>((1u << w) - 1);
    std::vector<uint32_t> img(kTc05ABytes / 4, 0);
    for (int r = 0; r < kTc05M; ++r)
      for (int q = 0; q < k; ++q) {
        REQUIRE(tcgen05_get_elem(img, r, q, e) == 0);
        tcgen05_put_elem(img, 0, r, q, ones, e);
        REQUIRE(tcgen05_get_elem(img, r, q, e) == ones);
      }
    int used = 0;
    for (uint32_t i = 0; i < static_cast<uint32_t>(kTc05ABytes); ++i) {
      const uint8_t byte = image_byte(img, i);
      used += std::popcount(byte);
      if (e == SmemElem::kPad4 && i % 16 >= 8) CHECK(byte == 0);
      if (e == SmemElem::kPad6 && i % 16 >= 12) CHECK(byte == 0);
    }
    CHECK(used == kTc05M * k * w);
  }
}

TEST_CASE("tcgen05 scale words: 1X byte x4, 2X half word x2, 4X four bytes") {
  const uint8_t s[] = {0x11, 0x22, 0x33, 0x44};
  CHECK(tcgen05_scale_word(std::span(s, 1), 1) == 0x11111111u);
  CHECK(tcgen05_scale_word(std::span(s, 2), 2) == 0x22112211u);
  CHECK(tcgen05_scale_word(std::span(s, 4), 4) == 0x44332211u);
  CHECK_THROWS(tcgen05_scale_word(std::span(s, 3), 3));
}

namespace {

MmaBatch random_batch(const Family& f, size_t tiles, uint64_t seed) {
  const ShapeInfo si = shape_info(f.shape);
  const int k = si.k, v = f.scale_vec;
  const OperandCoding ca = operand_coding(f.shape, f.header.get("a-fmt"));
  const OperandCoding cb = operand_coding(f.shape, f.header.get("b-fmt"));
  const uint32_t cmask = f.f16_acc ? 0x3BFFu : 0xBF7FFFFFu;
  MmaBatch b;
  b.tiles = tiles;
  for (size_t t = 0; t < tiles; ++t) {
    std::vector<uint8_t> a(static_cast<size_t>(16 * k)),
        bb(static_cast<size_t>(8 * k));
    std::vector<uint8_t> sa(static_cast<size_t>(16 * v)),
        sb(static_cast<size_t>(8 * v));
    std::vector<uint32_t> c(128);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = encode_operand(ca, static_cast<uint8_t>(mxc::vec::case_random(
                                    seed, t * 1000 + i, 0)));
    for (size_t i = 0; i < bb.size(); ++i)
      bb[i] = encode_operand(cb, static_cast<uint8_t>(mxc::vec::case_random(
                                     seed, t * 1000 + i, 1)));
    for (size_t i = 0; i < c.size(); ++i)
      c[i] =
          static_cast<uint32_t>(mxc::vec::case_random(seed, t * 1000 + i, 2)) &
          cmask;
    for (size_t i = 0; i < sa.size(); ++i)
      sa[i] = static_cast<uint8_t>(
          120 + mxc::vec::case_random(seed, t * 1000 + i, 3) % 16);
    for (size_t i = 0; i < sb.size(); ++i)
      sb[i] = static_cast<uint8_t>(
          120 + mxc::vec::case_random(seed, t * 1000 + i, 4) % 16);
    const auto pa = pack_a(f.shape, a), pb = pack_b(f.shape, bb),
               pc = pack_c(c);
    b.a.insert(b.a.end(), pa.begin(), pa.end());
    b.b.insert(b.b.end(), pb.begin(), pb.end());
    b.c.insert(b.c.end(), pc.begin(), pc.end());
    if (v) {
      const auto ps = pack_scale_a(sa, v), qs = pack_scale_b(sb, v);
      b.sfa.insert(b.sfa.end(), ps.begin(), ps.end());
      b.sfb.insert(b.sfb.end(), qs.begin(), qs.end());
    }
  }
  return b;
}

}  // namespace

namespace {

// The word the SFA x4 store puts at TMEM (lane, column kTc05SfaCol + col).
uint32_t sfa_at(const Tc05Images& im, size_t t, int lane, int col) {
  return im.sfa[(t * 128 + static_cast<size_t>(lane)) * kTc05SfaCols +
                static_cast<size_t>(col)];
}

// CUTLASS's SFA TMEM layout, restated as data from
// include/cute/atom/mma_traits_sm100_frag.hpp (NVIDIA/cutlass 7107b05):
//   tmem_sf_frg, Is_SFA (lines 465-476):
//     REP = 4, SUBPART_DPs = 32,
//     atom shape  (((32, MMA_MN/32), REP), (MMA_VS, MMA_NSF))
//     atom stride (((1,  512),       32 ), (0,      128    ))
//   tmem_restride (line 469): virtual index i -> data path i % 128, element
//     column i / 128 (8-bit scale elements, COL_ADDR = 1; four per 32-bit
//     TMEM column).
// For A row m, scale index nsf (k-block) and replica r it gives TMEM lane,
// 32-bit column offset and byte.
struct TmemSlot {
  int lane, col, byte;
};
TmemSlot cutlass_sfa_slot(int m, int nsf, int rep) {
  const int m0 = m % 32, m1 = m / 32;
  const int virt = m0 * 1 + m1 * 512 + rep * 32 + nsf * 128;
  const int dp = virt % 128, elem_col = virt / 128;
  return {dp, elem_col / 4, elem_col % 4};
}

}  // namespace

TEST_CASE("tcgen05 SFA tensor-memory layout is CUTLASS's tmem_sf_frg") {
  // Every row of an M = 128 MMA, every k-block of every scale_vec, every
  // lane replica: the image the kernel stores (x4 at kTc05SfaCol) holds the
  // scale CUTLASS's layout puts there. Rows 32..127 need columns +1..+3,
  // which a single-column store would leave unwritten.
  for (const Family& fr : families()) {
    if (fr.engine != MmaEngine::kTcgen05) continue;
    const Tc05Config cfg = tcgen05_config(fr);
    const int vec = cfg.scale_vec;
    if (vec == 0) continue;
    INFO(fr.name);
    const MmaBatch b = random_batch(fr, 1, 9);
    const Tc05Images im = tcgen05_images(b, fr);
    REQUIRE(im.sfa.size() == 128u * kTc05SfaCols);
    const auto sa = unpack_scale_a(std::span(b.sfa).subspan(0, 32), vec);
    int checked = 0;
    for (int m = 0; m < kTc05M; ++m)
      for (int v = 0; v < vec; ++v)
        for (int rep = 0; rep < 4; ++rep) {
          const TmemSlot s = cutlass_sfa_slot(m, v, rep);
          REQUIRE(s.col < kTc05SfaCols);
          const uint32_t word = sfa_at(im, 0, s.lane, s.col);
          // A row m reads replay-tile row m % 16 (tcgen05_images).
          const uint8_t want = sa[static_cast<size_t>((m % 16) * vec + v)];
          CHECK(((word >> (8 * s.byte)) & 0xFF) == want);
          ++checked;
        }
    CHECK(checked == 128 * vec * 4);
    // Row identity (the replay's rows repeat every 16, so the values alone
    // cannot tell row m from row m + 16): the slot CUTLASS gives row m holds
    // row m, and its byte is the k-block.
    for (int m = 0; m < kTc05M; ++m)
      for (int v = 0; v < vec; ++v)
        for (int rep = 0; rep < 4; ++rep) {
          const TmemSlot s = cutlass_sfa_slot(m, v, rep);
          CHECK(tcgen05_sfa_row(s.lane, s.col) == m);
          CHECK(s.byte == v);
        }
    // The layout needs M / 32 = 4 columns and every lane of each.
    CHECK(cutlass_sfa_slot(127, 0, 3).col == 3);
    CHECK(cutlass_sfa_slot(127, 0, 3).lane == 127);
    CHECK(cutlass_sfa_slot(32, 0, 0).lane == 0);
  }
}

TEST_CASE(
    "tcgen05 images computed as the hardware would agree with the replay's "
    "cases") {
  int n_fam = 0;
  for (const Family& fr : families()) {
    if (fr.engine != MmaEngine::kTcgen05) continue;
    const Family* f = &fr;
    ++n_fam;
    INFO(f->name);
    const Tc05Config cfg = tcgen05_config(*f);
    const int k = cfg.k, vec = cfg.scale_vec;
    const auto op = mxc::vec::make_op(family_header(*f, 1, 1));
    const MmaBatch b = random_batch(*f, 2, 5);
    const Tc05Images im = tcgen05_images(b, *f);
    REQUIRE(im.a.size() == 2u * 1024);
    REQUIRE(im.b.size() == 2u * 128);
    REQUIRE(im.c.size() == 2u * 128 * 16);
    // Untouched D folds back to C.
    CHECK(tcgen05_fold_d(im.c, 2, cfg.f16_d) == b.c);
    // D row m (lane m), column n from the smem images, TMEM C and scales.
    std::vector<uint32_t> d(im.c.size());
    for (size_t t = 0; t < 2; ++t) {
      const auto A = std::span(im.a).subspan(t * 1024, 1024);
      const auto B = std::span(im.b).subspan(t * 128, 128);
      for (int m = 0; m < 128; ++m)
        for (int n = 0; n < 16; ++n) {
          std::vector<uint64_t> in;
          for (int q = 0; q < k; ++q)
            in.push_back(tcgen05_get_elem(A, m, q, cfg.a_elem));
          for (int q = 0; q < k; ++q)
            in.push_back(tcgen05_get_elem(B, n, q, cfg.b_elem));
          if (vec) {
            // scale_A row m: lane m % 32 (any quadrant), column m / 32.
            const uint32_t fa = sfa_at(im, t, 32 * (m / 64) + m % 32, m / 32);
            // scale_B column n: lane n of the partition.
            const uint32_t fb = im.sfb[t * 128 + static_cast<size_t>(n)];
            // Every selectable sub-column holds the same scales.
            const uint32_t sub = vec == 4 ? 0xFFFFFFFFu : (1u << (8 * vec)) - 1;
            for (int id = 0; id < 4; id += vec) {
              CHECK(((fa >> (8 * id)) & sub) == (fa & sub));
              CHECK(((fb >> (8 * id)) & sub) == (fb & sub));
            }
            for (int q = 0; q < vec; ++q) in.push_back((fa >> (8 * q)) & 0xFF);
            for (int q = 0; q < vec; ++q) in.push_back((fb >> (8 * q)) & 0xFF);
          }
          const size_t at =
              (t * 128 + static_cast<size_t>(m)) * 16 + static_cast<size_t>(n);
          in.push_back(im.c[at]);
          // The upper half of an f16 D word is not D: garbage there must
          // not matter.
          d[at] = static_cast<uint32_t>(op->expected(in)[0]) |
                  (cfg.f16_d ? 0xABCD0000u : 0u);
        }
    }
    const auto folded = tcgen05_fold_d(d, 2, cfg.f16_d);
    for (size_t t = 0; t < 2; ++t) {
      const auto dd = unpack_c(std::span(folded).subspan(t * 128, 128));
      for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 8; ++n)
          CHECK(dd[static_cast<size_t>(m * 8 + n)] ==
                op->expected(mma_output_case(*f, b, t, m, n))[0]);
    }
    // A fault in one copy (row 77 = tile row 13, column 11 = tile col 3) shows.
    d[(0 * 128 + 77) * 16 + 11] ^= 1u;
    const std::vector<uint32_t> bad_all = tcgen05_fold_d(d, 2, cfg.f16_d);
    const auto bad = unpack_c(std::span(bad_all).subspan(0, 128));
    const auto good = unpack_c(std::span(folded).subspan(0, 128));
    CHECK(bad[13 * 8 + 3] == (good[13 * 8 + 3] ^ 1u));
  }
  CHECK(n_fam == 24);
}

TEST_CASE("tcgen05 families: sm_100a / sm_103a, models and feature bit") {
  int n = 0;
  for (const Family& f : families()) {
    if (f.engine != MmaEngine::kTcgen05) continue;
    ++n;
    INFO(f.name);
    CHECK(f.ccs == std::vector<int>{100, 103});
    CHECK(f.needs == kFeatTcgen05);
    CHECK(!f.note.empty());
    const std::string model = f.header.get("model");
    CHECK(mxc::find_mma_model(model) != nullptr);
    CHECK(mxc::find_mma_model(model)->k == shape_info(f.shape).k);
    CHECK(model.rfind("sm100_tcgen05_", 0) == 0);
    const Tc05Config c = tcgen05_config(f);
    if (c.kind == Tc05Kind::kMxf4 || c.kind == Tc05Kind::kMxf4nvf4) {
      CHECK(f.shape == FragShape::kM16N8K64x4);
      CHECK((f.instr == kTc05Mxf4 || f.instr == kTc05Nvf4x2 ||
             f.instr == kTc05Nvf4x4));
    } else {
      CHECK(f.shape == FragShape::kM16N8K32x8);
      CHECK(f.scale_vec == (c.kind == Tc05Kind::kMxf8f6f4 ? 1 : 0));
    }
    CHECK(f.f16_acc == (model == "sm100_tcgen05_f8f6f4_f16"));
    CHECK((f.instr == kTc05F8f6f4F16) == f.f16_acc);
  }
  CHECK(n == 24);
  CHECK(tcgen05_config(*find_family("tcgen05.mma.kind::mxf4nvf4.4X.e2m1.e2m1"))
            .scale_vec == 4);
  CHECK(find_family("tcgen05.mma.kind::mxf4nvf4.4X.e2m1.e2m1")
            ->header.get("model") == "sm100_tcgen05_mxf4nvf4_4x");
}
