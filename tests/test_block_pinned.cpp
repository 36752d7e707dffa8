// Block quantization: pinned cases with their sources, and layout checks.
// Expected bytes are re-derived from the profile rules (docs/profiles.md)
// and cross-checked with the values the sources themselves pin:
// torchao/testing/_mxfp8_test_utils.py@5d73a0c1 (make_mxfp8_semantic_cases),
// microsoft/microxcaling#4 (957 -> 896), the OCP seed example.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "emu/block/profile.h"
#include "emu/block/quantize.h"
#include "emu/block/scale.h"
#include "emu/block/swizzle.h"
#include "emu/convert.h"

using namespace mxc;

namespace {

uint32_t f(float x) { return std::bit_cast<uint32_t>(x); }
std::vector<uint32_t> fill(float v) { return std::vector<uint32_t>(32, f(v)); }

struct Named {
  const char* name;
  std::vector<uint32_t> x;
  uint8_t floor_scale, rceil_scale;
  uint8_t floor_first, floor_rest, rceil_first, rceil_rest;
};

std::vector<Named> torchao_cases() {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float fmax = std::numeric_limits<float>::max();
  const float tiny = std::numeric_limits<float>::min();       // 2^-126
  const float sub = std::numeric_limits<float>::denorm_min();  // 2^-149
  auto with_first = [](float first, float rest) {
    std::vector<uint32_t> v(32, f(rest));
    v[0] = f(first);
    return v;
  };
  // name, input, floor scale, rceil scale, floor data [0], floor data rest,
  // rceil data [0], rceil data rest (fp32 input rows of the torchao table).
  return {
      {"zero", fill(0.0f), 0, 0, 0x00, 0x00, 0x00, 0x00},
      {"smallest_normal", fill(tiny), 0, 0, 0x40, 0x40, 0x40, 0x40},
      {"mixed_inf", with_first(inf, 1.0f), 255, 255, 0x7F, 0x7F, 0x7F, 0x7F},
      {"mixed_nan", with_first(nan, 1.0f), 255, 255, 0x7F, 0x7F, 0x7F, 0x7F},
      {"positive_fp8_max", fill(448.0f), 127, 127, 0x7E, 0x7E, 0x7E, 0x7E},
      {"negative_fp8_max", fill(-448.0f), 127, 127, 0xFE, 0xFE, 0xFE, 0xFE},
      {"positive_dtype_max", fill(fmax), 246, 247, 0x7E, 0x7E, 0x78, 0x78},
      {"negative_dtype_max", fill(-fmax), 246, 247, 0xFE, 0xFE, 0xF8, 0xF8},
      {"positive_smallest_subnormal", fill(sub), 0, 0, 0x00, 0x00, 0x00, 0x00},
      {"negative_smallest_subnormal", fill(-sub), 0, 0, 0x80, 0x80, 0x80,
       0x80},
      {"mixed_positive_underflow", with_first(sub, 1.0f), 119, 119, 0x00, 0x78,
       0x00, 0x78},
      {"mixed_negative_underflow", with_first(-sub, 1.0f), 119, 119, 0x80,
       0x78, 0x80, 0x78},
      {"mixed_saturation_and_underflow", with_first(fmax, 1.0f), 246, 247,
       0x7E, 0x00, 0x78, 0x00},
      {"rceil_premature_bf16_lowers_scale",
       std::vector<uint32_t>(32, 0x40600001u), 120, 121, 0x7E, 0x7E, 0x76,
       0x76},
      {"floor_premature_bf16_raises_scale",
       std::vector<uint32_t>(32, 0x43FFFFFFu), 127, 128, 0x7E, 0x7E, 0x78,
       0x78},
      {"all_nan", fill(nan), 255, 255, 0x7F, 0x7F, 0x7F, 0x7F},
      {"positive_satfinite", fill(480.0f), 127, 128, 0x7E, 0x7E, 0x77, 0x77},
      {"negative_satfinite", fill(-480.0f), 127, 128, 0xFE, 0xFE, 0xF7, 0xF7},
  };
}

}  // namespace

TEST_CASE("torchao's named MXFP8 cases, FLOOR and RCEIL", "[block][pinned]") {
  const MxProfile* fl = find_mx_profile("torchao-floor@main-5d73a0c1");
  const MxProfile* rc = find_mx_profile("torchao-rceil@main-5d73a0c1");
  REQUIRE(fl);
  REQUIRE(rc);
  for (const Named& c : torchao_cases()) {
    INFO(c.name);
    const MxBlock a = mx_quantize_block(*fl, Fmt::kE4M3, c.x);
    CHECK(int{a.scale} == int{c.floor_scale});
    CHECK(int{a.codes[0]} == int{c.floor_first});
    CHECK(int{a.codes[31]} == int{c.floor_rest});
    const MxBlock b = mx_quantize_block(*rc, Fmt::kE4M3, c.x);
    CHECK(int{b.scale} == int{c.rceil_scale});
    CHECK(int{b.codes[0]} == int{c.rceil_first});
    CHECK(int{b.codes[31]} == int{c.rceil_rest});
  }
}

TEST_CASE("TransformerEngine's MXFP8 differs where its sources say",
          "[block][pinned]") {
  // ptx.cuh exp2f_rcp: scale byte 0 multiplies by 1.0, so 2^-126 blocks
  // quantize to 0 (torchao: 0x40); cvt.rp.satfinite maps Inf amax to 0xFE;
  // fmaxf ignores a NaN element (the block keeps a finite scale).
  const MxProfile* te = find_mx_profile("te-mxfp8@2.12");
  REQUIRE(te);
  const MxBlock a = mx_quantize_block(*te, Fmt::kE4M3,
                                      fill(std::numeric_limits<float>::min()));
  CHECK(int{a.scale} == 0);
  CHECK(int{a.codes[5]} == 0x00);
  std::vector<uint32_t> x = fill(1.0f);
  x[0] = f(std::numeric_limits<float>::infinity());
  CHECK(int{mx_quantize_block(*te, Fmt::kE4M3, x).scale} == 0xFE);
  x[0] = f(std::numeric_limits<float>::quiet_NaN());
  const MxBlock n = mx_quantize_block(*te, Fmt::kE4M3, x);
  CHECK(int{n.scale} == 119);  // RCEIL of fl(1 * fl(1/448)) = 2^-8
  CHECK(int{n.codes[0]} == 0x7F);
  CHECK(int{n.codes[1]} == 0x78);  // 256
}

TEST_CASE("microxcaling#4: FLOOR saturates 957 to 896, RCEIL keeps 960",
          "[block][pinned]") {
  // The 32-element block has amax 960: floor(log2 960) - 8 = 1, so
  // scale 2; 957 / 2 = 478.5 -> 480 is not finite in E4M3 -> saturates to
  // 448 -> 896. RCEIL: 960/448 -> scale 4, 957/4 = 239.25 -> 240 -> 960.
  std::vector<uint32_t> x = fill(100.0f);
  x[0] = f(957.0f);
  x[1] = f(960.0f);
  const MxBlock o = mx_quantize_block(*find_mx_profile("ocp-v1"), Fmt::kE4M3, x);
  CHECK(int{o.scale} == 128);
  CHECK(std::bit_cast<float>(mx_dequantize_block(Fmt::kE4M3, o)[0]) == 896.0f);
  const MxBlock r =
      mx_quantize_block(*find_mx_profile("torchao-rceil@main-5d73a0c1"), Fmt::kE4M3, x);
  CHECK(int{r.scale} == 129);
  CHECK(std::bit_cast<float>(mx_dequantize_block(Fmt::kE4M3, r)[0]) == 960.0f);
}

TEST_CASE("the seed example: one scale loses the small half, two MX blocks "
          "keep both",
          "[block][pinned]") {
  // 64 values: 32 x 2^10 then 32 x 2^-12, E4M3 RNE. One shared FLOOR scale
  // 2^(10-8) = 4 sends 2^-12 / 4 = 2^-14 below E4M3's least subnormal 2^-9:
  // zero. Two 32-blocks get scales 2^2 and 2^-20 and both halves are exact.
  std::vector<uint32_t> x(64);
  for (int i = 0; i < 64; ++i) x[i] = f(i < 32 ? 1024.0f : 0x1p-12f);
  MxProfile one = *find_mx_profile("ocp-v1");
  one.block = 64;
  const MxBlock b = mx_quantize_block(one, Fmt::kE4M3, x);
  CHECK(int{b.scale} == 127 + 2);
  const auto d = mx_dequantize_block(Fmt::kE4M3, b);
  CHECK(std::bit_cast<float>(d[0]) == 1024.0f);
  CHECK(std::bit_cast<float>(d[63]) == 0.0f);
  const MxProfile& two = *find_mx_profile("ocp-v1");
  const MxMatrix m = mx_quantize_rowwise(two, Fmt::kE4M3, 1, 64, x);
  CHECK(m.scales == std::vector<uint8_t>{127 + 2, 127 - 20});
  MxBlock hi{m.scales[1], {m.codes.begin() + 32, m.codes.end()}};
  CHECK(std::bit_cast<float>(mx_dequantize_block(Fmt::kE4M3, hi)[0]) ==
        0x1p-12f);
}

TEST_CASE("quantizing the transpose is not transposing the quantized matrix",
          "[block][layout]") {
  // Rowwise blocks (along K for A) and columnwise blocks see different
  // amaxes: an outlier row raises one row scale rowwise but every column's
  // scale columnwise, so the small values lose precision only columnwise.
  const int n = 32;
  std::vector<uint32_t> x(n * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      x[r * n + c] =
          f(r == 0 ? 1000.0f
                   : 1.0f + 0.03125f * static_cast<float>((r * 7 + c) % 13));
  const MxProfile& p = *find_mx_profile("ocp-v1");
  const MxMatrix rows = mx_quantize_rowwise(p, Fmt::kE4M3, n, n, x);
  std::vector<uint32_t> xt(n * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) xt[c * n + r] = x[r * n + c];
  const MxMatrix cols_of_t = mx_quantize_colwise(p, Fmt::kE4M3, n, n, xt);
  // Columnwise of the transpose is the rowwise of x, transposed back:
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      CHECK(cols_of_t.codes[c * n + r] == rows.codes[r * n + c]);
  // but columnwise quantization of x itself differs from rowwise:
  const MxMatrix cols = mx_quantize_colwise(p, Fmt::kE4M3, n, n, x);
  int differ = 0;
  for (int i = 0; i < n * n; ++i) differ += cols.codes[i] != rows.codes[i];
  CHECK(differ > 0);
  // and a 32x32 2D tile has one scale broadcast to the rowwise layout.
  const MxMatrix t = mx_quantize_2d(p, Fmt::kE4M3, n, n, 32, x);
  CHECK(t.scales == std::vector<uint8_t>(n, 127 + 9 - 8));
}

TEST_CASE("128x4 tiled scale layout (cuBLAS 1D block scaling factors layout)",
          "[block][layout]") {
  // offset = ((r/128)*ceil(K/4) + c/4)*512 + (r%32)*16 + ((r%128)/32)*4 + c%4
  CHECK(swizzled_scale_offset(0, 0, 4) == 0);
  CHECK(swizzled_scale_offset(1, 0, 4) == 16);
  CHECK(swizzled_scale_offset(32, 0, 4) == 4);
  CHECK(swizzled_scale_offset(0, 3, 4) == 3);
  CHECK(swizzled_scale_offset(0, 4, 8) == 512);
  CHECK(swizzled_scale_offset(128, 0, 8) == 1024);
  CHECK(swizzled_scale_offset(127, 3, 4) == 31 * 16 + 3 * 4 + 3);
  // A bijection onto the padded array, and a round trip.
  const size_t rows = 200, kb = 7;
  std::vector<uint8_t> plain(rows * kb);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<uint8_t>(i * 37 + 1);
  const auto tiled = swizzle_scales(plain, rows, kb);
  CHECK(tiled.size() == 256 * 8);
  std::vector<int> hit(tiled.size(), 0);
  for (size_t r = 0; r < 256; ++r)
    for (size_t c = 0; c < 8; ++c) ++hit[swizzled_scale_offset(r, c, 8)];
  CHECK(std::all_of(hit.begin(), hit.end(), [](int h) { return h == 1; }));
  CHECK(unswizzle_scales(tiled, rows, kb) == plain);
}

TEST_CASE("NVFP4 two-level scaling, TE and CUTLASS orders", "[block][nvfp4]") {
  // Tensor amax 2688 gives S_enc = 1; a block with amax 6 gets s = 1.0
  // (UE4M3 0x38) and its elements quantize as themselves.
  const uint32_t s_enc = nvfp4_tensor_scale(f(2688.0f));
  CHECK(s_enc == f(1.0f));
  CHECK(nvfp4_tensor_scale(0) == f(1.0f));  // TE guard: amax 0 -> 1
  std::vector<uint32_t> x(16, f(0.5f));
  x[0] = f(6.0f);
  x[1] = f(-3.0f);
  for (const auto& p : nvfp4_profiles()) {
    // torchao's rules take another tensor value (nvfp4_tensor_scale(p, .)).
    if (p.rule != Nvfp4Rule::kTe && p.rule != Nvfp4Rule::kCutlass) continue;
    const Nvfp4Block b = nvfp4_quantize_block(p, s_enc, x);
    CHECK(int{b.scale} == 0x38);
    CHECK(int{b.codes[0]} == 0x7);
    CHECK(int{b.codes[1]} == 0xD);
    CHECK(int{b.codes[2]} == 0x1);
    const auto d = nvfp4_dequantize_block(b, s_enc);
    CHECK(std::bit_cast<float>(d[1]) == -3.0f);
  }
  // An all-zero block: scale 0, elements 0 (enc clamps to FLT_MAX, 0 * max).
  const Nvfp4Block z =
      nvfp4_quantize_block(nvfp4_profiles()[0], s_enc,
                           std::vector<uint32_t>(16, 0));
  CHECK(int{z.scale} == 0);
  CHECK(int{z.codes[3]} == 0);
}

TEST_CASE("NVFP4 stochastic rounding takes its random bits as input",
          "[block][nvfp4][sr]") {
  // docs/rounding.md: with 8 random bits r, round away iff
  // floor(frac * 256) + r >= 256. r = 0 never rounds away (truncation);
  // r = 255 rounds away every inexact value. S_enc = 1, s = 1.0.
  const uint32_t s_enc = nvfp4_tensor_scale(f(2688.0f));
  std::vector<uint32_t> x(16, f(0.3f));  // between 0 and 0.5, frac 0.6
  x[0] = f(6.0f);
  const auto& te = nvfp4_profiles()[0];
  const std::vector<uint32_t> zeros(16, 0), ones(16, 0xFF);
  CHECK(int{nvfp4_quantize_block(te, s_enc, x, zeros).codes[1]} == 0x0);
  CHECK(int{nvfp4_quantize_block(te, s_enc, x, ones).codes[1]} == 0x1);
  // floor(0.6 * 256) = 153: r >= 103 rounds up.
  std::vector<uint32_t> r(16, 102);
  CHECK(int{nvfp4_quantize_block(te, s_enc, x, r).codes[1]} == 0x0);
  r.assign(16, 103);
  CHECK(int{nvfp4_quantize_block(te, s_enc, x, r).codes[1]} == 0x1);
  CHECK(int{nvfp4_quantize_block(te, s_enc, x, r).codes[0]} == 0x7);  // exact
}

TEST_CASE("NVFP4 16x16 weight tiles share one scale", "[block][nvfp4]") {
  // One outlier (6.0) in a 16x16 tile sets the scale of all 16 rows of that
  // tile; the neighbouring tile keeps its own (here amax 3 -> s = 0.5).
  const uint32_t s_enc = nvfp4_tensor_scale(f(2688.0f));
  std::vector<uint32_t> x(16 * 32, f(1.5f));
  x[5 * 32 + 3] = f(6.0f);
  for (int r = 0; r < 16; ++r) x[r * 32 + 20] = f(3.0f);
  const Nvfp4Matrix m = nvfp4_quantize_2d(nvfp4_profiles()[0], s_enc, 16, 32, x);
  for (int r = 0; r < 16; ++r) {
    CHECK(int{m.scales[r * 2]} == 0x38);      // 1.0
    CHECK(int{m.scales[r * 2 + 1]} == 0x30);  // 0.5
  }
  CHECK(int{m.codes[0]} == 0x3);            // 1.5 / 1.0
  CHECK(int{m.codes[20]} == 0x7);           // 3.0 / 0.5 = 6
  CHECK(int{m.codes[5 * 32 + 3]} == 0x7);   // 6.0
}

TEST_CASE("torchao 0.18.0 release rules (observed running torchao==0.18.0)",
          "[block][pinned]") {
  // Expected values: torchao 0.18.0 to_mx(x, float8_e4m3fn, 32, mode) run
  // eagerly on CPU (torch 2.12.1); tests/peers/test_torchao_mx.py checks
  // thousands more. Each differs from torchao-*@main-5d73a0c1.
  struct Case {
    const char* what;
    std::vector<uint32_t> x;
    uint8_t floor_scale, floor_c0, floor_c1;  // FLOOR (EVEN agrees here)
    uint8_t rceil_scale, rceil_c0, rceil_c1;
  };
  auto with = [](std::vector<uint32_t> v, size_t i, uint32_t b) {
    v[i] = b;
    return v;
  };
  const std::vector<Case> cases = {
      // Byte 0: FLOOR/EVEN divide by 2^-126 (not 2^-127); RCEIL x1.0.
      {"flt_min block", std::vector<uint32_t>(32, 0x00800000u), 0, 0x38, 0x38,
       0, 0x00, 0x00},
      // Inf amax: FLOOR reads E = 128 (byte 255 - 8); RCEIL 0xFE; Inf
      // clamps to 448.
      {"inf", with(fill(1.0f), 0, 0x7F800000u), 247, 0x7E, 0x00, 254, 0x7E,
       0x00},
      // NaN: byte 0xFF is +Inf as f32 for FLOOR (x / Inf = +-0), NaN for
      // RCEIL (x * NaN).
      {"nan", with(with(fill(1.0f), 0, 0x7FC00000u), 1, 0xBF800000u), 255,
       0x7F, 0x80, 255, 0x7F, 0x7F},
      // fl(amax / 448) = 2^8 (1 + 2^-23): log2f rounds to 8, ceil 8.
      {"rceil log2 +1ulp", with(fill(1.0f), 0, 0x47E00001u), 135, 0x7E, 0x02,
       135, 0x7E, 0x02},
      {"rceil log2 negative", std::vector<uint32_t>(32, 0x2F600001u), 86,
       0x7E, 0x7E, 86, 0x7E, 0x7E},
  };
  const MxProfile* fl = find_mx_profile("torchao-floor@0.18");
  const MxProfile* ev = find_mx_profile("torchao-even@0.18");
  const MxProfile* rc = find_mx_profile("torchao-rceil@0.18");
  REQUIRE(fl);
  REQUIRE(ev);
  REQUIRE(rc);
  for (const Case& c : cases) {
    INFO(c.what);
    for (const MxProfile* p : {fl, ev}) {
      const MxBlock a = mx_quantize_block(*p, Fmt::kE4M3, c.x);
      CHECK(int{a.scale} == int{c.floor_scale});
      CHECK(int{a.codes[0]} == int{c.floor_c0});
      CHECK(int{a.codes[1]} == int{c.floor_c1});
    }
    const MxBlock b = mx_quantize_block(*rc, Fmt::kE4M3, c.x);
    CHECK(int{b.scale} == int{c.rceil_scale});
    CHECK(int{b.codes[0]} == int{c.rceil_c0});
    CHECK(int{b.codes[1]} == int{c.rceil_c1});
  }
  // The bare names are the newest release.
  CHECK(find_mx_profile("torchao-rceil") == rc);
  CHECK(find_mx_profile("torchao-floor") == fl);
}

TEST_CASE("torchao main EVEN: a carry past FLT_MAX is the NaN scale",
          "[block][pinned]") {
  // mx_tensor.py@5d73a0c1: after rounding, torch.isfinite(max_abs) false
  // -> 0xFF; 0.18.0 reads the exponent of the Inf (byte 255 - 8).
  const std::vector<uint32_t> x(32, 0x7F7FFFFFu);
  CHECK(int{mx_quantize_block(*find_mx_profile("torchao-even@main-5d73a0c1"),
                              Fmt::kE4M3, x)
                .scale} == 0xFF);
  CHECK(int{mx_quantize_block(*find_mx_profile("torchao-even@0.18"),
                              Fmt::kE4M3, x)
                .scale} == 247);
  CHECK(int{mx_quantize_block(*find_mx_profile("torchao-floor@main-5d73a0c1"),
                              Fmt::kE4M3, x)
                .scale} == 246);  // FLOOR: (127 - 8) + 127
}

TEST_CASE("TransformerEngine exp2f_rcp before and after #2647",
          "[block][pinned]") {
  // ptx.cuh@71971e33d: byte 255 -> NaN, 254 -> 2^-127 (0x00400000), else
  // (254 - byte) << 23, so byte 0 -> 2^127. Before: byte 0 -> 1.0.
  const std::vector<uint32_t> tiny = fill(std::numeric_limits<float>::min());
  const MxBlock old_rule =
      mx_quantize_block(*find_mx_profile("te-mxfp8@2.12"), Fmt::kE4M3, tiny);
  const MxBlock new_rule =
      mx_quantize_block(*find_mx_profile("te-mxfp8@2.13"), Fmt::kE4M3, tiny);
  CHECK(int{old_rule.scale} == 0);
  CHECK(int{new_rule.scale} == 0);
  CHECK(int{old_rule.codes[0]} == 0x00);  // 2^-126 * 1.0 underflows
  CHECK(int{new_rule.codes[0]} == 0x40);  // 2^-126 * 2^127 = 2
  CHECK(find_mx_profile("te-mxfp8") == find_mx_profile("te-mxfp8@2.13"));
  // Every scale byte's multiplier, straight from the two definitions.
  const MxProfile& p12 = *find_mx_profile("te-mxfp8@2.12");
  const MxProfile& p13 = *find_mx_profile("te-mxfp8@2.13");
  CHECK(int{mx_encode_element(p12, Fmt::kE4M3, 254, 0x7F000000u)} == 0x00);
  CHECK(int{mx_encode_element(p13, Fmt::kE4M3, 254, 0x7F000000u)} == 0x38);
  CHECK(int{mx_encode_element(p13, Fmt::kE4M3, 255, 0x3F800000u)} == 0x7F);
}

TEST_CASE("TE NVFP4 takes the block amax with fmaxf: NaN elements ignored",
          "[block][pinned]") {
  // quantize_transpose_nvfp4.cuh@d0067d0da: block_amax = fmaxf(block_amax,
  // fabsf(elt)) (and PTX max.xorsign.abs without .NaN): a NaN element does
  // not make the scale NaN; the block scale is that of the other elements.
  std::vector<uint32_t> x(16, f(3.0f));
  const uint32_t s_enc = nvfp4_tensor_scale(f(6.0f));
  const Nvfp4Profile& te = *find_nvfp4_profile("te-nvfp4");
  const Nvfp4Block clean = nvfp4_quantize_block(te, s_enc, x);
  x[5] = 0x7FC00000u;
  const Nvfp4Block with_nan = nvfp4_quantize_block(te, s_enc, x);
  CHECK(int{with_nan.scale} == int{clean.scale});
  CHECK(int{with_nan.scale} != 0x7F);
  CHECK(int{with_nan.codes[0]} == int{clean.codes[0]});
  // CUTLASS's host reference has no such rule: NaN amax, NaN scale.
  const Nvfp4Block cut =
      nvfp4_quantize_block(*find_nvfp4_profile("cutlass-host-nvfp4"), s_enc, x);
  CHECK(int{cut.scale} == 0x7F);
}

// Observed running nvidia-modelopt==0.47.0 and compressed-tensors==0.20.1 on
// CPU (x86-64; tests/peers/test_modelopt.py, test_compressed_tensors.py run
// the libraries themselves on thousands of blocks). Pinned here so the C++
// suite catches a change in these rules without the peer venv.
TEST_CASE("ModelOpt 0.47 and compressed-tensors 0.20 NVFP4/MXFP8 rules",
          "[block][nvfp4][pinned]") {
  auto nv = [](const char* name, uint32_t amax_t, std::vector<float> head) {
    const Nvfp4Profile* p = find_nvfp4_profile(name);
    REQUIRE(p != nullptr);
    std::vector<uint32_t> x(16, 0);
    for (size_t i = 0; i < head.size(); ++i) x[i] = f(head[i]);
    return nvfp4_quantize_block(*p, nvfp4_tensor_scale(*p, amax_t), x);
  };
  // ModelOpt: t = 1/2688; s = fl(1 / fl(6 t)) -> e4m3 0x7E; -0 -> code 0.
  Nvfp4Block b = nv("modelopt-nvfp4@0.47", f(1.0f), {-0.0f, 1.0f, 0.5f, -0.1f});
  CHECK(b.scale == 0x7E);
  CHECK(b.codes == std::vector<uint8_t>{0, 7, 5, 9, 0, 0, 0, 0, 0, 0, 0, 0,
                                        0, 0, 0, 0});
  // A block scale below 2^-9 clamps to the E4M3 subnormal 2^-9 (0x01).
  b = nv("modelopt-nvfp4@0.47", f(1.0f), {1e-6f, -1e-6f});
  CHECK(b.scale == 0x01);
  CHECK(b.codes[0] == 0x3);
  CHECK(b.codes[1] == 0xB);
  // MXFP8: a NaN amax gives byte 0 (x * 2^127): 1.0 saturates to 448.
  const MxProfile* mx = find_mx_profile("modelopt-mxfp8@0.47");
  REQUIRE(mx != nullptr);
  std::vector<uint32_t> m(32, 0);
  m[0] = 0x7FC00000u;
  m[1] = f(1.0f);
  m[2] = f(-3.0e-30f);
  const MxBlock mb = mx_quantize_block(*mx, Fmt::kE4M3, m);
  CHECK(mb.scale == 0x00);
  CHECK(mb.codes[0] == 0x7F);
  CHECK(mb.codes[1] == 0x7E);
  CHECK(mb.codes[2] == 0xFE);
  CHECK(mb.codes[3] == 0x00);
  // compressed-tensors: tensor amax 0 -> g = 1 (2^126 * 2688 is Inf); a
  // zero block scale becomes 0.125 (0x20).
  const Nvfp4Profile* ct = find_nvfp4_profile("compressed-tensors-nvfp4@0.20");
  REQUIRE(ct != nullptr);
  CHECK(nvfp4_tensor_scale(*ct, 0) == 0x3F800000u);
  b = nv("compressed-tensors-nvfp4@0.20", 0, {0.0f, -0.0f});
  CHECK(b.scale == 0x20);
  CHECK(b.codes == std::vector<uint8_t>(16, 0));
  CHECK(nvfp4_tensor_scale(*ct, f(3.0f)) == 0x44600000u);  // 896
  b = nv("compressed-tensors-nvfp4@0.20", f(3.0f), {-0.0f, 3.0f, -1.0f, 0.75f});
  CHECK(b.scale == 0x7E);
  CHECK(b.codes == std::vector<uint8_t>{0, 7, 0xC, 3, 0, 0, 0, 0, 0, 0, 0, 0,
                                        0, 0, 0, 0});
  // bf16 statistics: g = bf16(bf16(1 / amax) * 2688); 1 / 0x7F7C0000 is
  // subnormal, so g is 0x052D0000 where bf16(2688 / amax) is 0x052B0000.
  const Nvfp4Profile* ct16 =
      find_nvfp4_profile("compressed-tensors-nvfp4-bf16@0.20");
  REQUIRE(ct16 != nullptr);
  CHECK(nvfp4_tensor_scale(*ct16, 0x7F7C0000u) == 0x052D0000u);
}

// Observed running compressed-tensors==0.20.1 (MXFP4 scheme) on x86-64.
TEST_CASE("compressed-tensors 0.20 MXFP4: -0, ties, Inf amax",
          "[block][pinned]") {
  const MxProfile* p = find_mx_profile("compressed-tensors-mxfp4@0.20");
  REQUIRE(p != nullptr);
  std::vector<uint32_t> x(32, 0);
  // amax 6 = 1.5 * 4: half an ulp at 1 bit does not carry, scale 1.0.
  x[0] = 0x80000000u;  // -0 -> code 0 (torch.sign(-0.0) is 0)
  x[1] = f(6.0f);
  x[2] = f(0.75f);   // tie -> 1.0 (code 2)
  x[3] = f(-0.1f);   // rounds to -0: code 8
  MxBlock b = mx_quantize_block(*p, Fmt::kE2M1, x);
  CHECK(b.scale == 0x7F);
  CHECK(b.codes[0] == 0x0);
  CHECK(b.codes[1] == 0x7);
  CHECK(b.codes[2] == 0x2);
  CHECK(b.codes[3] == 0x8);
  // Inf amax: the float scale is +Inf and every code 0 (the library then
  // stores byte 0x7F; the profile's byte for +Inf is 0xFF).
  x.assign(32, 0);
  x[0] = 0x7F800000u;
  x[1] = f(1.0f);
  x[2] = f(-1.0f);
  b = mx_quantize_block(*p, Fmt::kE2M1, x);
  CHECK(b.scale == 0xFF);
  CHECK(b.codes == std::vector<uint8_t>(32, 0));
}

TEST_CASE("microxcaling as it computes (run locally at 7bc41952)",
          "[block][pinned]") {
  // Expected values: microsoft/microxcaling@7bc41952 (main; no releases, not
  // on PyPI) run locally on CPU, torch 2.12.1: mx/mx_ops.py _quantize_mx(x,
  // 8, elem, axes=[-1], block_size=4, round=...) on one f32 row (its
  // pure-PyTorch path, custom_cuda=False); the scale byte is its
  // _shared_exponents(x) - emax after _quantize_mx's clamps, plus 127; the
  // codes are its outputs divided by 2^X. 4-element blocks: the rules do
  // not depend on the block size.
  struct Case {
    const char* what;
    Fmt elem;
    std::vector<uint32_t> x;
    uint8_t scale;
    std::vector<uint8_t> nearest, even;  // round='nearest', round='even'
  };
  const std::vector<Case> cases = {
      // floor(log2f(2^24 - 1)) = 24: log2f rounds up to 24 (OCP FLOOR: 23,
      // byte 0x8E, the amax saturating to 448).
      {"log2f one binade high", Fmt::kE4M3,
       {0x4B7FFFFFu, f(1.0f), f(-2.0f), 0}, 0x8F,
       {0x78, 0x00, 0x80, 0x00}, {0x78, 0x00, 0x80, 0x00}},
      // torch.sign(-0) = +0: -0 becomes +0; a negative that rounds to zero
      // stays -0 (sign -1 times floor(...) = 0).
      {"-0 -> +0, negative underflow -> -0", Fmt::kE4M3,
       {0x80000000u, 0x8A000000u, f(1.0f), 0}, 0x77,
       {0x00, 0x80, 0x78, 0x00}, {0x00, 0x80, 0x78, 0x00}},
      // amax 0 -> log2(2^-126) = -126, minus emax 0 (OCP: byte 0).
      {"all-zero MXINT8 block: X = -126", Fmt::kInt8,
       {0, 0x80000000u, 0, 0}, 0x01, {0, 0, 0, 0}, {0, 0, 0, 0}},
      // -1.99999 * 64 rounds to -128, clamped to -127 (0x81; OCP 0x80).
      // 2^-7 = half a code: ties away (1) or to even (0).
      {"MXINT8 clamps to +-127/64", Fmt::kInt8,
       {f(1.0f), 0xBFFFFFFFu, 0xBFFF0000u, f(0x1p-7f)}, 0x7F,
       {0x40, 0x81, 0x81, 0x01}, {0x40, 0x81, 0x81, 0x00}},
      // (1 - 2^-24) * 2^-10, just below half of E4M3's smallest subnormal:
      // y = 0.5 - 2^-25, fl(y + 0.5) = 1.0 -> 2^-9 (OCP: 0).
      {"floor(fl(|y| + 0.5)) double rounding", Fmt::kE4M3,
       {f(256.0f), 0x3A7FFFFFu, 0xBA7FFFFFu, f(0x1p-10f)}, 0x7F,
       {0x78, 0x01, 0x81, 0x01}, {0x78, 0x01, 0x81, 0x00}},
      {"ties", Fmt::kE4M3,
       {f(256.0f), f(1.0625f), f(1.1875f), f(-1.0625f)}, 0x7F,
       {0x78, 0x39, 0x3A, 0xB9}, {0x78, 0x38, 0x3A, 0xB8}},
      // log2f(FLT_MAX) = 128: X = 120 (OCP 119); MXINT8: 128 > 127 -> NaN.
      {"FLT_MAX amax E4M3", Fmt::kE4M3,
       {0x7F7FFFFFu, 0x7F000000u, f(1.0f), 0}, 0xF7,
       {0x78, 0x70, 0x00, 0x00}, {0x78, 0x70, 0x00, 0x00}},
  };
  const MxProfile& near = *find_mx_profile("microxcaling@7bc41952");
  const MxProfile& even = *find_mx_profile("microxcaling-even@7bc41952");
  const MxProfile& ocp = *find_mx_profile("ocp-v1");
  for (const Case& c : cases) {
    INFO(c.what);
    const MxBlock a = mx_quantize_block(near, c.elem, c.x);
    const MxBlock b = mx_quantize_block(even, c.elem, c.x);
    CHECK(int{a.scale} == int{c.scale});
    CHECK(int{b.scale} == int{c.scale});
    CHECK(a.codes == c.nearest);
    CHECK(b.codes == c.even);
    // Each case is one where microxcaling is not ocp-v1 (RNE, FLOOR from
    // the exponent bits, -0 kept, two's-complement MXINT8); round='even'
    // agrees with it on exact ties only.
    const MxBlock o = mx_quantize_block(ocp, c.elem, c.x);
    CHECK((o.scale != a.scale || o.codes != a.codes));
    if (std::string_view(c.what) != "ties")
      CHECK((o.scale != b.scale || o.codes != b.codes));
  }
  // log2f(FLT_MAX) = 128 > 127 for MXINT8 (emax 0): the NaN scale.
  const std::vector<uint32_t> fmax = {0x7F7FFFFFu, f(1.0f), 0, 0};
  CHECK(int{mx_quantize_block(near, Fmt::kInt8, fmax).scale} == 0xFF);
}

TEST_CASE("floor_log2f: floor of log2 rounded to binary32, as torch.log2",
          "[block][pinned]") {
  // Independent oracle: the double log2 from libm rounded to float (the
  // binary32 nearest log2(a): a double is far closer than half a float
  // ulp, and log2 of a non-power of two is never a float midpoint), then
  // floor. microxcaling's shared exponent (scale_floor_log2) is this minus
  // emax_elem. Checked on the 4096 largest values below every power of two
  // (where rounding up happens), the 4096 above it, and all subnormal
  // patterns with one or two bits set.
  auto oracle = [](uint32_t a) {
    const double v = static_cast<double>(std::bit_cast<float>(a));
    return static_cast<int>(std::floor(static_cast<float>(std::log2(v))));
  };
  int rounded_up = 0;
  for (uint32_t e = 1; e < 255; ++e) {
    for (uint32_t k = 1; k <= 4096; ++k) {
      const uint32_t below = (e << 23) - k, above = (e << 23) + k - 1;
      REQUIRE(floor_log2f(below) == oracle(below));
      REQUIRE(floor_log2f(above) == oracle(above));
      rounded_up += floor_log2f(below) == static_cast<int>(e) - 127;
    }
  }
  for (int i = 0; i < 23; ++i) {
    for (int j = 0; j <= i; ++j) {
      const uint32_t a = (1u << i) | (1u << j) | (i == 22 ? 0x3FFFFFu : 0u);
      REQUIRE(floor_log2f(a) == oracle(a));
    }
  }
  // The effect exists: e.g. 2^24 - 1 -> 24, FLT_MAX -> 128.
  CHECK(rounded_up > 1000);
  CHECK(floor_log2f(0x4B7FFFFFu) == 24);
  CHECK(floor_log2f(0x7F7FFFFFu) == 128);
  CHECK(floor_log2f(0x3F7FFFFFu) == -1);  // log2 of 1 - 2^-24 is kept
}

// --- issue 14, read-only conventions (prof-read): TE MXFP4, DeepGEMM FP4,
// TE NVFP4 4over6. Expected values derived from the sources named and
// observed running those Python sources on CPU at the same commits.

namespace {

// 6 first (scale 2^0 for both FP4 profiles), then every E2M1 midpoint, its
// negatives, an exact -0 and zeros: ties and zero signs decide the codes.
std::vector<uint32_t> fp4_midpoint_block() {
  std::vector<uint32_t> x(32, f(0.0f));
  const float v[] = {6.0f,  0.25f,  0.75f, 1.25f, 1.75f, 2.5f,
                     3.5f,  5.0f,   -0.25f, -0.75f, -0.0f, -5.0f};
  for (size_t i = 0; i < std::size(v); ++i) x[i] = f(v[i]);
  return x;
}

}  // namespace

TEST_CASE(
    "TE MXFP4 (pow_2_scales): RNE by midpoint comparisons, exact -0 -> +0",
    "[block][pinned]") {
  // reference_nvfp4.py@d0067d0da: cast_to_e8 (118-127) = 2^clamp(ceil(log2(
  // amax / 6)), +-127); cast_to_fp4x2 (49-71): (x >= 0.0) & (x <= 0.25) ->
  // 0, (x > 0.25) & (x < 0.75) -> 1, ...; (x >= -0.25) & (x < -0.0) -> 8.
  const MxProfile& te = *find_mx_profile("te-mxfp4");
  CHECK(te.name == "te-mxfp4@2.10");
  const MxBlock b = mx_quantize_block(te, Fmt::kE2M1, fp4_midpoint_block());
  CHECK(int{b.scale} == 127);
  const std::vector<int> want = {0x7, 0x0, 0x2, 0x2, 0x4, 0x4,
                                 0x6, 0x6, 0x8, 0xA, 0x0, 0xE};
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(int{b.codes[i]} == want[i]);
  }
  CHECK(int{b.codes[31]} == 0x0);
  // An all -0 block: scale byte 0 (log2(0) = -inf clamps to -127), every
  // code +0 (ocp-v1 keeps -0: 0x8).
  const MxBlock nz = mx_quantize_block(te, Fmt::kE2M1, fill(-0.0f));
  CHECK(int{nz.scale} == 0);
  CHECK(int{nz.codes[0]} == 0x0);
  CHECK(int{mx_quantize_block(*find_mx_profile("ocp-v1"), Fmt::kE2M1,
                              fill(-0.0f))
                .codes[0]} == 0x8);
  // log2 rounded to f32: amax 96 * (1 + 2^-23) is one binade low (X = 4,
  // not the exact RCEIL's 5); 96.00001 / 16 clamps to 6.
  std::vector<uint32_t> hi = fill(1.0f);
  hi[0] = 0x42C00001u;
  const MxBlock low = mx_quantize_block(te, Fmt::kE2M1, hi);
  CHECK(int{low.scale} == 131);
  CHECK(int{low.codes[0]} == 0x7);
  // Inf amax: ceil(log2(Inf)) clamps to 127 (0xFE); x * 2^-127: Inf -> 6,
  // 1.0 -> +0, -1.0 -> -0 (a negative that rounds to zero keeps its sign).
  std::vector<uint32_t> inf = fill(1.0f);
  inf[0] = f(std::numeric_limits<float>::infinity());
  inf[1] = f(-1.0f);
  const MxBlock bi = mx_quantize_block(te, Fmt::kE2M1, inf);
  CHECK(int{bi.scale} == 0xFE);
  CHECK(int{bi.codes[0]} == 0x7);
  CHECK(int{bi.codes[1]} == 0x8);
  CHECK(int{bi.codes[2]} == 0x0);
  // NaN element: torch.amax propagates it, the scale is NaN (0xFF), every
  // scaled value NaN, and cast_to_fp4x2 gives code 0 to NaN.
  std::vector<uint32_t> nan = fill(1.0f);
  nan[3] = 0x7FC00000u;
  const MxBlock bn = mx_quantize_block(te, Fmt::kE2M1, nan);
  CHECK(int{bn.scale} == 0xFF);
  CHECK(int{bn.codes[0]} == 0x0);
  CHECK(int{bn.codes[3]} == 0x0);
}

TEST_CASE("DeepGEMM FP4: ties toward zero, no -0, NaN -> +0",
          "[block][pinned]") {
  // deep_gemm/utils/math.py@54e22612 _quantize_to_fp4_e2m1 (73-82): code =
  // number of midpoints 0.25 .. 5.0 that |x| strictly exceeds; the sign bit
  // only when code != 0. per_token_cast_to_fp4 (85-98): sf =
  // ceil_to_ue8m0(max(amax, 1e-4) / 6), x * (1 / sf).
  const MxProfile& dg = *find_mx_profile("deepgemm-fp4");
  CHECK(dg.name == "deepgemm-fp4@54e22612");
  const MxBlock b = mx_quantize_block(dg, Fmt::kE2M1, fp4_midpoint_block());
  CHECK(int{b.scale} == 127);
  const std::vector<int> want = {0x7, 0x0, 0x1, 0x2, 0x3, 0x4,
                                 0x5, 0x6, 0x0, 0x9, 0x0, 0xE};
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(int{b.codes[i]} == want[i]);
  }
  // All zero: amax clamps to fl(1e-4); fl(1e-4) / 6 = 1.67e-5 rounds up to
  // 2^-15: byte 112.
  const MxBlock z = mx_quantize_block(dg, Fmt::kE2M1, fill(-0.0f));
  CHECK(int{z.scale} == 112);
  CHECK(int{z.codes[0]} == 0x0);
  // Inf and NaN amax: the f32 bits' exponent 255 clamps to 254; Inf * 2^-127
  // exceeds 5 (code 7), NaN compares false (code 0), -1 * 2^-127 -> +0.
  std::vector<uint32_t> inf = fill(1.0f);
  inf[0] = f(std::numeric_limits<float>::infinity());
  inf[1] = f(-1.0f);
  const MxBlock bi = mx_quantize_block(dg, Fmt::kE2M1, inf);
  CHECK(int{bi.scale} == 254);
  CHECK(int{bi.codes[0]} == 0x7);
  CHECK(int{bi.codes[1]} == 0x0);
  std::vector<uint32_t> nan = fill(1.0f);
  nan[0] = 0x7FC00000u;
  const MxBlock bn = mx_quantize_block(dg, Fmt::kE2M1, nan);
  CHECK(int{bn.scale} == 254);
  CHECK(int{bn.codes[0]} == 0x0);
  CHECK(int{bn.codes[1]} == 0x0);
}

TEST_CASE("rnz: round to nearest, ties toward zero", "[rounding][pinned]") {
  // DeepGEMM's midpoint count (math.py@54e22612:78-79) as a rounding mode:
  // ties take the smaller magnitude, anything past a tie rounds to nearest.
  RoundSpec r;
  r.mode = Round::kRNZ;
  r.overflow = Overflow::kSatFinite;
  const auto e2m1 = [&](float x) {
    return int(convert(Fmt::kF32, Fmt::kE2M1, f(x), r));
  };
  CHECK(e2m1(0.75f) == 0x1);
  CHECK(e2m1(std::nextafter(0.75f, 1.0f)) == 0x2);
  CHECK(e2m1(5.0f) == 0x6);
  CHECK(e2m1(-2.5f) == 0xC);
  CHECK(e2m1(7.0f) == 0x7);  // saturating
  CHECK(parse_round("rnz") == Round::kRNZ);
  // f32 -> bf16: 1 + 2^-8 is a tie between 1 and 1 + 2^-7.
  CHECK(convert(Fmt::kF32, Fmt::kBF16, 0x3F808000u, r) == 0x3F80u);
  CHECK(convert(Fmt::kF32, Fmt::kBF16, 0x3F808001u, r) == 0x3F81u);
}

TEST_CASE("TE NVFP4 4over6: map-to-4 only when its error is smaller",
          "[block][pinned][nvfp4]") {
  // quantize_4over6_nvfp4.cuh@d0067d0da compute_scale_pair (125-146) and
  // accumulate_dequant_error (190-202); "ties select map-to-6" (15).
  // Tensor amax 1536 = 256 * 6 makes S_enc = 1.
  const Nvfp4Profile& p = *find_nvfp4_profile("te-nvfp4-4over6");
  CHECK(p.name == "te-nvfp4-4over6@2.17");
  const uint32_t a = nvfp4_tensor_scale(p, f(1536.0f));
  CHECK(a == f(1536.0f));  // the tensor value is the amax itself
  // All 4.0: map-to-6 scale e4m3(4/6) = 0.6875 gives 6 * 0.6875 = 4.125
  // (error 16 * 0.125); map-to-4 scale 1.0 gives 4 exactly: map-to-4.
  const Nvfp4Block b4 = nvfp4_quantize_block(p, a, std::vector(16, f(4.0f)));
  CHECK(int{b4.scale} == 0x38);
  CHECK(int{b4.codes[0]} == 0x6);
  // 6 and 3.0s: both candidates exact (error 0): the tie keeps map-to-6
  // (scale 1.0, codes 6.0 and 3.0; map-to-4 would be 1.5, 4.0 and 2.0).
  std::vector<uint32_t> tie(16, f(3.0f));
  tie[0] = f(6.0f);
  const Nvfp4Block bt = nvfp4_quantize_block(p, a, tie);
  CHECK(int{bt.scale} == 0x38);
  CHECK(int{bt.codes[0]} == 0x7);
  CHECK(int{bt.codes[1]} == 0x5);
  // 6 and 1.0s: map-to-4 gives 1.0 -> 0.5 * 1.5 = 0.75: map-to-6 wins.
  std::vector<uint32_t> six(16, f(1.0f));
  six[0] = f(6.0f);
  const Nvfp4Block b6 = nvfp4_quantize_block(p, a, six);
  CHECK(int{b6.scale} == 0x38);
  CHECK(int{b6.codes[1]} == 0x2);
  // Stochastic rounding and 16x16 tiles are not modelled: refused.
  CHECK_THROWS_AS(
      nvfp4_quantize_block(p, a, six, std::vector<uint32_t>(16, 0)),
      std::invalid_argument);
  CHECK_THROWS_AS(nvfp4_quantize_2d(p, a, 16, 16,
                                    std::vector<uint32_t>(256, f(1.0f))),
                  std::invalid_argument);
}

TEST_CASE("TE NVFP4 4over6 variants: MSE error, E4M3 bound 448",
          "[block][pinned][nvfp4]") {
  // compute_error_rn (quantize_4over6_nvfp4.cuh@d0067d0da:113-123): MSE
  // adds fl(d * d). Values from reference_nvfp4.py@d0067d0da run on CPU
  // (err_mode "MAE" / "MSE", tensor amax 1536).
  const std::vector<float> v = {6.0f,  3.5f, 1.5f,  5.75f, -3.5f, -4.0f,
                                1.25f, -5.5f, -5.5f, 0.25f, -0.5f, 5.0f,
                                1.5f,  0.25f, 0.0f,  -3.0f};
  std::vector<uint32_t> x;
  for (float e : v) x.push_back(f(e));
  const Nvfp4Profile& mae = *find_nvfp4_profile("te-nvfp4-4over6@2.17");
  const Nvfp4Profile& mse = *find_nvfp4_profile("te-nvfp4-4over6-mse@2.17");
  const Nvfp4Block a = nvfp4_quantize_block(mae, f(1536.0f), x);
  const Nvfp4Block b = nvfp4_quantize_block(mse, f(1536.0f), x);
  const std::vector<uint8_t> want_mae = {7, 6, 3, 7, 14, 14, 2, 15,
                                         15, 0, 9, 6, 3, 0, 0, 13};
  const std::vector<uint8_t> want_mse = {6, 4, 2, 6, 12, 13, 2, 14,
                                         14, 0, 9, 5, 2, 0, 0, 12};
  CHECK(int{a.scale} == 0x38);  // map-to-6
  CHECK(a.codes == want_mae);
  CHECK(int{b.scale} == 0x3C);  // map-to-4
  CHECK(b.codes == want_mse);
  // Bound 448 (nvfp4_4over6_e4m3_use_256="none"): S_enc = 2688 / 1536 =
  // 1.75, so all 4.0 takes map-to-4 at scale 1.75 (0x3E), not 1.0 (0x38).
  const Nvfp4Profile& b448 = *find_nvfp4_profile("te-nvfp4-4over6-448@2.17");
  const std::vector<uint32_t> fours(16, f(4.0f));
  const Nvfp4Block c = nvfp4_quantize_block(b448, f(1536.0f), fours);
  CHECK(int{c.scale} == 0x3E);
  CHECK(int{c.codes[0]} == 0x6);
  CHECK(int{nvfp4_quantize_block(mae, f(1536.0f), fours).scale} == 0x38);
}

// tensor_amax (the NVFP4 tensor amax when none is given): max |x| by value,
// -0 and +0 alike, Inf the largest, any NaN (either sign, any payload)
// gives the canonical quiet NaN; an empty tensor +0.
TEST_CASE("tensor_amax: max |x| with NaN and signed zeros", "[block][nvfp4]") {
  using mxc::tensor_amax;
  CHECK(tensor_amax({}) == 0u);
  const std::vector<uint32_t> zeros = {0x80000000u, 0x00000000u};
  CHECK(tensor_amax(zeros) == 0u);
  // -3.5, 2.0, subnormal: 3.5
  const std::vector<uint32_t> a = {0xC0600000u, 0x40000000u, 0x00000001u};
  CHECK(tensor_amax(a) == 0x40600000u);
  const std::vector<uint32_t> inf = {0x3F800000u, 0xFF800000u};
  CHECK(tensor_amax(inf) == 0x7F800000u);
  const std::vector<uint32_t> nan = {0x7F7FFFFFu, 0xFF800001u, 0x3F800000u};
  CHECK(tensor_amax(nan) == 0x7FC00000u);
}
