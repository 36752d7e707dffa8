// cuBLASLt replay: each output element of D is one `op=mma` case with
// k = K (A row, B column, scales, C), so the report classifies mismatches
// exactly like the instruction families; the expected D is the composed
// GEMM of emu/mma/gemm.h. Families name their comparison in the header key
// `compare` (docs/gpu-check.md, cuBLASLt):
//   bitexact     D == the composed model (split-K 1, reduction NONE)
//   ulp          D within `ulp` units in the last place of the model
//   bound-model  any algorithm: |D - model| <= gemm_bound(any) * sum|terms|
//   bound-exact  Hopper block scaling: |D - exact| <= gemm_bound * sum|terms|
// Mismatches are first matched against the misreadings of GemmReading
// (transposed A, swapped scales, 128x4 tiles read plain, alpha ignored).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>

#include "emu/arith.h"
#include "emu/block/swizzle.h"
#include "emu/mma/gemm.h"
#include "emu/unpack.h"
#include "gpu_check/host/replay.h"

namespace mxc::gpu {
namespace {

// cublasLtMatmulMatrixScale_t (cublasLt.h, CUDA 13.0): VEC16_UE4M3 /
// VEC32_UE8M0 "for each 16/32-element block in the innermost dimension",
// VEC128_32F "for each 128-element block in the innermost dimension",
// BLK128x128_32F "for each 128x128-element block".
constexpr GemmFormat kFormats[] = {
    {"fp8-tensor", Fmt::kE4M3, Fmt::kF32, 0, false, false},
    {"fp8-vec128x1d2d", Fmt::kE4M3, Fmt::kF32, 128, false, true},
    {"fp8-vec128x1d1d", Fmt::kE4M3, Fmt::kF32, 128, false, false},
    {"fp8-blk128x128", Fmt::kE4M3, Fmt::kF32, 128, true, true},
    {"mxfp8", Fmt::kE4M3, Fmt::kE8M0, 32, false, false},
    {"nvfp4", Fmt::kE2M1, Fmt::kUE4M3, 16, false, false},
};

bool a_kmajor(GemmLayout l) {
  return l == GemmLayout::kTN || l == GemmLayout::kTT;
}
bool b_kmajor(GemmLayout l) {
  return l == GemmLayout::kTN || l == GemmLayout::kNN;
}

// Rows of the plain scale array of A (is_a) or B.
size_t scale_rows(const GemmFormat& g, const GemmProblem& p, bool is_a) {
  const size_t r = static_cast<size_t>(is_a ? p.M : p.N);
  return (is_a ? g.blk2d_a : g.blk2d_b) ? (r + 127) / 128 : r;
}
size_t kblocks(const GemmFormat& g, const GemmProblem& p) {
  return g.block > 0 ? static_cast<size_t>(p.K / g.block) : 0;
}

// The f32 scale tensors of the Hopper block modes, in elements, as
// TransformerEngine lays them out for cuBLASLt ("GEMM_READY";
// transformer_engine/pytorch/csrc/quantizer.cpp,
// Float8BlockQuantizer::get_scale_shape):
// - VEC128_32F (one scale per row and 128 k): [k-block][roundup(rows, 4)],
//   rows contiguous (offset k * roundup(rows, 4) + r); the 1D x 1D family
//   passes on H200 (cuBLASLt 13.1; its problems have rows % 4 == 0).
// - BLK128x128_32F (one scale per 128 x 128 tile): [row block][roundup(kb,
//   4)], k-blocks contiguous (offset r * roundup(kb, 4) + k). The earlier
//   reading (k-block major, offset k * rows + r) failed on H200 exactly
//   where the two differ (2 row blocks x 3 k-blocks: 19,087 of the 36,864
//   elements of 256x144x384) and agreed where there is one row block
//   (docs/gpu-check.md, "cuBLASLt"); this layout has not yet run on a GPU.
bool blk2d(const GemmFormat& g, bool is_a) { return is_a ? g.blk2d_a : g.blk2d_b; }
size_t f32_scale_ld(const GemmFormat& g, const GemmProblem& p, bool is_a) {
  const size_t kb = kblocks(g, p);
  return blk2d(g, is_a) ? (kb + 3) / 4 * 4 : (scale_rows(g, p, is_a) + 3) / 4 * 4;
}
size_t f32_scale_offset(const GemmFormat& g, const GemmProblem& p, bool is_a, size_t r,
                        size_t k) {
  return blk2d(g, is_a) ? r * f32_scale_ld(g, p, is_a) + k : k * f32_scale_ld(g, p, is_a) + r;
}
size_t f32_scale_image_size(const GemmFormat& g, const GemmProblem& p, bool is_a) {
  return blk2d(g, is_a) ? scale_rows(g, p, is_a) * f32_scale_ld(g, p, is_a)
                        : kblocks(g, p) * f32_scale_ld(g, p, is_a);
}

std::vector<uint8_t> pack_operand(const GemmFormat& g,
                                  const std::vector<uint64_t>& v) {
  std::vector<uint8_t> out;
  if (desc(g.elem).bits == 4) {
    // CUDA_R_4F_E2M1: two per byte, the first element of a pair in the low
    // nibble (cuda_fp4.h __nv_fp4x2 storage: .x in bits 0-3).
    out.assign((v.size() + 1) / 2, 0);
    for (size_t i = 0; i < v.size(); ++i)
      out[i / 2] |= static_cast<uint8_t>((v[i] & 0xF) << (4 * (i % 2)));
  } else {
    out.assign(v.begin(), v.end());
  }
  return out;
}

std::vector<uint64_t> unpack_operand(const GemmFormat& g,
                                     const std::vector<uint8_t>& img,
                                     size_t n) {
  std::vector<uint64_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] =
        desc(g.elem).bits == 4 ? (img[i / 2] >> (4 * (i % 2))) & 0xF : img[i];
  return v;
}

std::vector<uint8_t> scale_image(const GemmFormat& g, const GemmProblem& p,
                                 bool is_a) {
  const std::vector<uint64_t>& s = is_a ? p.SA : p.SB;
  if (g.block == 0) {  // tensor scale 1.0
    std::vector<uint8_t> one(4);
    const float f = 1.0f;
    std::memcpy(one.data(), &f, 4);
    return one;
  }
  const size_t rows = scale_rows(g, p, is_a), kb = kblocks(g, p);
  if (g.scale == Fmt::kF32) {
    std::vector<uint8_t> img(f32_scale_image_size(g, p, is_a) * 4);
    for (size_t r = 0; r < rows; ++r)
      for (size_t k = 0; k < kb; ++k) {
        const uint32_t bits = static_cast<uint32_t>(s[r * kb + k]);
        std::memcpy(&img[f32_scale_offset(g, p, is_a, r, k) * 4], &bits, 4);
      }
    return img;
  }
  const std::vector<uint8_t> plain(s.begin(), s.end());
  return swizzle_scales(plain, rows, kb);
}

std::vector<uint64_t> read_scales(const GemmFormat& g, const GemmProblem& p,
                                  bool is_a, const std::vector<uint8_t>& img,
                                  bool plain_read) {
  if (g.block == 0) return {};
  const size_t rows = scale_rows(g, p, is_a), kb = kblocks(g, p);
  std::vector<uint64_t> s(rows * kb);
  if (g.scale == Fmt::kF32) {
    for (size_t r = 0; r < rows; ++r)
      for (size_t k = 0; k < kb; ++k) {
        uint32_t bits = 0;
        std::memcpy(&bits, &img[f32_scale_offset(g, p, is_a, r, k) * 4], 4);
        s[r * kb + k] = bits;
      }
    return s;
  }
  if (plain_read) {
    for (size_t i = 0; i < s.size(); ++i) s[i] = img[i];
    return s;
  }
  const auto u = unswizzle_scales(img, rows, kb);
  return {u.begin(), u.end()};
}

// Exact value tables (every element / scale format here has <= 8 bits).
const std::array<double, 256>& value_table(Fmt f) {
  static std::map<Fmt, std::array<double, 256>> tables = [] {
    std::map<Fmt, std::array<double, 256>> t;
    for (Fmt x : {Fmt::kE4M3, Fmt::kE2M1, Fmt::kE8M0, Fmt::kUE4M3}) {
      std::array<double, 256>& a = t[x];
      const uint64_t mask = (uint64_t{1} << desc(x).bits) - 1;
      for (uint64_t c = 0; c < 256; ++c) a[c] = to_double(unpack(x, c & mask));
    }
    return t;
  }();
  return tables.at(f);
}

double scale_value(const GemmFormat& g, uint64_t s) {
  if (g.scale == Fmt::kF32)
    return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(s)));
  return value_table(g.scale)[s & 0xFF];
}

uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }

int acc_bits(AccRound r) {
  switch (r) {
    case AccRound::kRzF32:
    case AccRound::kRneF32:
      return 23;
    case AccRound::kRzE8M13:
      return 13;
    case AccRound::kRneF16:
      return 10;
  }
  return 10;
}

struct Size {
  int M, N, K;
};
// Multiples of the tile sizes, M/N that are not (208 x 80), a long K, and
// M/N off every power of two (100 x 36, 33 x 17: the library's alignment
// rules decide; a size it refuses is noted in the report, not failed).
constexpr Size kSizes[] = {
    {128, 128, 256}, {208, 80, 160}, {64, 48, 1024},
    {100, 36, 192},  {33, 17, 128},  {256, 144, 384},
};

std::string outcome_note(const std::string& algo) {
  return algo.empty() ? "" : " [" + algo + "]";
}

}  // namespace

const GemmFormat* gemm_format(std::string_view name) {
  for (const GemmFormat& g : kFormats)
    if (g.name == name) return &g;
  return nullptr;
}

const MmaModel* gemm_model(std::string_view format, int cc) {
  const GemmFormat* g = gemm_format(format);
  if (!g) return nullptr;
  const bool sm100 = cc == 100 || cc == 103, sm120 = cc == 120 || cc == 121;
  const char* name = nullptr;
  if (g->name == "mxfp8") {
    name = sm100   ? "sm100_tcgen05_mxf8f6f4"
           : sm120 ? "sm120_mma_mxf8f6f4"
                   : nullptr;
  } else if (g->name == "nvfp4") {
    name = sm100   ? "sm100_tcgen05_mxf4nvf4_4x"
           : sm120 ? "sm120_mma_mxf4nvf4_4x"
                   : nullptr;
  } else {
    name = sm100      ? "sm100_tcgen05_f8f6f4_f32"
           : sm120    ? "sm120_mma_f8f6f4_f32"
           : cc == 90 ? "sm90_wgmma_fp8_f32"
           : cc == 89 ? "sm89_mma_fp8_f32"
                      : nullptr;
  }
  return name ? find_mma_model(name) : nullptr;
}

const MmaModel* gemm_model(const Family& f, int cc) {
  return gemm_model(f.header.get("format"), cc);
}

GemmCase make_gemm_case(const Family& f, int M, int N, int K, uint64_t seed) {
  GemmCase gc;
  gc.format = f.header.get("format");
  const GemmFormat* g = gemm_format(gc.format);
  if (!g)
    throw std::invalid_argument("gemm family " + f.name + ": unknown format " +
                                gc.format);
  gc.alpha = std::stof(f.header.get("alpha", "1"));
  gc.deterministic = f.header.get("compare") != "bound-model";
  GemmProblem& p = gc.p;
  p.M = M;
  p.N = N;
  p.K = K;
  parse_layout(f.header.get("layout", "TN"), &p.layout);
  p.a_fmt = p.b_fmt = g->elem;
  const uint64_t s0 =
      seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(M * 7 + N * 3 + K);
  auto code = [&](uint64_t i, uint64_t k) {
    const uint64_t c = vec::case_random(s0, i, k);
    if (g->elem == Fmt::kE2M1) return c & 0xF;
    uint64_t e = c & 0xBF;           // |x| < 2^1-ish: no overflow in any sum
    if ((e & 0x7F) == 0x7F) e ^= 1;  // no NaN operands
    return e;
  };
  p.A.resize(static_cast<size_t>(M) * K);
  p.B.resize(static_cast<size_t>(N) * K);
  for (size_t i = 0; i < p.A.size(); ++i) p.A[i] = code(i, 1);
  for (size_t i = 0; i < p.B.size(); ++i) p.B[i] = code(i, 2);
  p.C.assign(static_cast<size_t>(M) * N, 0);
  if (g->block > 0) {
    auto scale = [&](uint64_t i, uint64_t k) -> uint64_t {
      const uint64_t r = vec::case_random(s0, i, k);
      if (g->scale == Fmt::kE8M0) return 120 + r % 14;      // 2^-7 .. 2^6
      if (g->scale == Fmt::kUE4M3) return 0x28 + r % 0x30;  // 2^-2 .. ~2^3.9
      return ((123 + r % 8) << 23) |
             ((r >> 8) & 0x7FFFFF);  // f32 in [2^-4, 2^4)
    };
    p.SA.resize(scale_rows(*g, p, true) * kblocks(*g, p));
    p.SB.resize(scale_rows(*g, p, false) * kblocks(*g, p));
    for (size_t i = 0; i < p.SA.size(); ++i) p.SA[i] = scale(i, 3);
    for (size_t i = 0; i < p.SB.size(); ++i) p.SB[i] = scale(i, 4);
  }
  return gc;
}

GemmImages gemm_images(const GemmCase& c) {
  const GemmFormat* g = gemm_format(c.format);
  if (!g)
    throw std::invalid_argument("gemm_images: unknown format " + c.format);
  GemmImages im;
  im.a = pack_operand(*g, c.p.A);
  im.b = pack_operand(*g, c.p.B);
  im.sa = scale_image(*g, c.p, true);
  im.sb = scale_image(*g, c.p, false);
  return im;
}

GemmCase gemm_reading(const GemmCase& c, GemmReading how) {
  const GemmFormat* g = gemm_format(c.format);
  if (!g)
    throw std::invalid_argument("gemm_reading: unknown format " + c.format);
  const GemmImages im = gemm_images(c);
  GemmCase out = c;
  GemmProblem& p = out.p;
  p.A = unpack_operand(*g, im.a, c.p.A.size());
  p.B = unpack_operand(*g, im.b, c.p.B.size());
  const bool plain = how == GemmReading::kScalesPlain;
  p.SA = read_scales(*g, c.p, true, im.sa, plain);
  p.SB = read_scales(*g, c.p, false, im.sb, plain);
  switch (how) {
    case GemmReading::kTransposedA: {
      static constexpr GemmLayout flip[] = {GemmLayout::kNN, GemmLayout::kTN,
                                            GemmLayout::kTT, GemmLayout::kNT};
      p.layout = flip[static_cast<int>(p.layout)];
      break;
    }
    case GemmReading::kScalesSwapped: {
      if (g->block == 0) break;
      const size_t kb = kblocks(*g, p), ra = scale_rows(*g, p, true),
                   rb = scale_rows(*g, p, false);
      const std::vector<uint64_t> sa = p.SA, sb = p.SB;
      for (size_t r = 0; r < ra; ++r)
        for (size_t k = 0; k < kb; ++k)
          p.SA[r * kb + k] = sb[(r % rb) * kb + k];
      for (size_t r = 0; r < rb; ++r)
        for (size_t k = 0; k < kb; ++k)
          p.SB[r * kb + k] = sa[(r % ra) * kb + k];
      break;
    }
    case GemmReading::kAlphaIgnored:
      out.alpha = 1.0f;
      break;
    default:
      break;
  }
  return out;
}

std::vector<uint64_t> gemm_model_d(const MmaModel& m, const GemmCase& c) {
  std::vector<uint64_t> d = gemm(m, c.p);
  if (c.alpha != 1.0f) {
    // Assumed epilogue: D = RNE_f32(alpha * accumulator) (beta = 0).
    for (uint64_t& x : d)
      x = f32_mul(f32_bits(c.alpha), static_cast<uint32_t>(x));
  }
  return d;
}

ExactElement gemm_exact(const GemmCase& c, int row, int col) {
  const GemmFormat* g = gemm_format(c.format);
  const GemmProblem& p = c.p;
  const auto& ev = value_table(g->elem);
  const size_t M = static_cast<size_t>(p.M), N = static_cast<size_t>(p.N),
               K = static_cast<size_t>(p.K), m = static_cast<size_t>(row),
               n = static_cast<size_t>(col), kb = kblocks(*g, p);
  const bool ak = a_kmajor(p.layout), bk = b_kmajor(p.layout);
  const size_t ra = g->blk2d_a ? m / 128 : m, rb = g->blk2d_b ? n / 128 : n;
  ExactElement e;
  for (size_t k = 0; k < K; ++k) {
    const double a = ev[p.A[ak ? m * K + k : k * M + m] & 0xFF];
    const double b = ev[p.B[bk ? n * K + k : k * N + n] & 0xFF];
    double s = 1.0;
    if (g->block > 0) {
      const size_t q = k / static_cast<size_t>(g->block);
      s = scale_value(*g, p.SA[ra * kb + q]) *
          scale_value(*g, p.SB[rb * kb + q]);
    }
    const long double t = static_cast<long double>(a * b) * s;
    e.value += t;
    e.abs_sum += std::fabs(t);
  }
  e.value *= c.alpha;
  e.abs_sum *= std::fabs(c.alpha);
  return e;
}

double gemm_bound(const MmaModel& m, int K, bool any_algorithm) {
  // One FDPA step (L products aligned to F fraction bits below the largest
  // term, then rounded to the accumulator's p bits) errs by at most
  // ((L + 1) 2^-F + 2^-p) times the sum of |terms| it has seen.
  const int L = m.fdpa.L;
  const double step = (L + 1) * std::ldexp(1.0, -m.fdpa.F) +
                      std::ldexp(1.0, -acc_bits(m.fdpa.rho));
  const double u = std::ldexp(1.0, -24);
  if (any_algorithm) {
    // Model and device chains each <= (K/L) steps; the device's split-K
    // reduction adds <= (K/L) FP32 roundings; alpha one more (both sides).
    const double steps = static_cast<double>(K) / L;
    return 2.0 * (steps * (2.0 * step + u) + 2.0 * u);
  }
  // Hopper block scaling vs exact: tensor-core partial over 128 k
  // (128/L steps), then per block two FP32 multiplies (scales) and one add.
  const double blocks = static_cast<double>(K) / 128;
  return 2.0 * ((128.0 / L) * step + blocks * 3.0 * u + u);
}

uint64_t f32_ulp_distance(uint32_t a, uint32_t b) {
  auto ord = [](uint32_t x) {
    const int64_t mag = x & 0x7FFFFFFF;
    return (x >> 31) ? -mag : mag;
  };
  const int64_t d = ord(a) - ord(b);
  return static_cast<uint64_t>(d < 0 ? -d : d);
}

bool replay_gemm(Backend& b, const Family& f, int cc, const ReplayOptions& o,
                 vec::Report& r, std::string& why) {
  const MmaModel* m = gemm_model(f, cc);
  const GemmFormat* g = gemm_format(f.header.get("format"));
  if (!m || !g) {
    why = fmt::format("no GEMM model for compute capability {}.{}", cc / 10,
                      cc % 10);
    return false;
  }
  const std::string compare = f.header.get("compare", "bitexact");
  const uint64_t ulps = std::stoull(f.header.get("ulp", "0"));
  const bool bound_model = compare == "bound-model",
             bound_exact = compare == "bound-exact";
  r = vec::Report{};
  r.file = f.name;
  r.op = "mma";
  r.description =
      f.ptx + fmt::format(" | model={} (composed over K) | compare={}", m->name,
                          compare);
  vec::Header h;
  h.kv["op"] = "mma";
  h.kv["model"] = std::string(m->name);
  h.kv["a-fmt"] = h.kv["b-fmt"] = std::string(desc(g->elem).name);
  uint64_t index = 0, max_ulp = 0;
  double max_rel = 0;
  int ran = 0;
  std::string first_refusal;
  const int mult = std::max({m->fdpa.L, g->block, 1});
  for (const Size& s : kSizes) {
    if (s.K % mult != 0) continue;
    const GemmCase gc = make_gemm_case(f, s.M, s.N, s.K, o.seed);
    if (o.progress) o.progress(index);
    std::vector<uint64_t> d;
    std::string info;
    if (!b.cublaslt_gemm(gc, d, info)) {
      if (first_refusal.empty()) first_refusal = info;
      r.description +=
          fmt::format("; {}x{}x{} not run: {}", s.M, s.N, s.K, info);
      continue;
    }
    ++ran;
    const size_t MN = static_cast<size_t>(s.M) * s.N;
    if (d.size() != MN) throw BackendError("cublaslt: wrong result size");
    h.kv["k"] = std::to_string(s.K);
    const auto op = vec::make_op(h);
    const std::vector<uint64_t> want =
        bound_exact ? std::vector<uint64_t>(MN) : gemm_model_d(*m, gc);
    const double coef =
        bound_exact || bound_model ? gemm_bound(*m, s.K, bound_model) : 0;
    const long double floor = std::ldexp(static_cast<long double>(s.K), -126);
    // Lazily computed misreadings (one whole D each) for classification.
    std::map<GemmReading, GemmCase> readings;
    std::map<GemmReading, std::vector<uint64_t>> reading_d;
    std::vector<GemmReading> tries = {GemmReading::kTransposedA};
    if (gc.alpha != 1.0f)
      tries.insert(tries.begin(), GemmReading::kAlphaIgnored);
    if (g->block > 0) tries.push_back(GemmReading::kScalesSwapped);
    if (g->block > 0 && g->scale != Fmt::kF32)
      tries.push_back(GemmReading::kScalesPlain);
    // Whether got agrees with the reference of problem c at element (mm, n).
    auto agrees = [&](const GemmCase& c, const std::vector<uint64_t>* dm,
                      size_t e, int mm, int n, uint32_t got) {
      if (compare == "bitexact") return (*dm)[e] == got;
      if (compare == "ulp")
        return f32_ulp_distance(static_cast<uint32_t>((*dm)[e]), got) <= ulps;
      const float gf = std::bit_cast<float>(got);
      if (!std::isfinite(gf)) return false;
      const ExactElement x = gemm_exact(c, mm, n);
      const long double ref =
          bound_model ? std::bit_cast<float>(static_cast<uint32_t>((*dm)[e]))
                      : x.value;
      return std::fabs(static_cast<long double>(gf) - ref) <=
             coef * x.abs_sum + floor;
    };
    size_t hinted = 0;
    for (int n = 0; n < s.N; ++n) {
      for (int mm = 0; mm < s.M; ++mm) {
        const size_t e = static_cast<size_t>(n) * s.M + mm;
        const uint32_t got = static_cast<uint32_t>(d[e]);
        uint64_t w = want[e];
        if (bound_exact) {
          const ExactElement x = gemm_exact(gc, mm, n);
          w = f32_bits(static_cast<float>(x.value));
          if (x.abs_sum > 0 && std::isfinite(std::bit_cast<float>(got)))
            max_rel = std::max(
                max_rel, static_cast<double>(
                             std::fabs(std::bit_cast<float>(got) - x.value) /
                             x.abs_sum));
        } else if (bound_model) {
          const ExactElement x = gemm_exact(gc, mm, n);
          if (x.abs_sum > 0 && std::isfinite(std::bit_cast<float>(got)))
            max_rel = std::max(
                max_rel,
                static_cast<double>(
                    std::fabs(std::bit_cast<float>(got) -
                              std::bit_cast<float>(static_cast<uint32_t>(w))) /
                    x.abs_sum));
        }
        if (!bound_exact)
          max_ulp = std::max(max_ulp,
                             f32_ulp_distance(static_cast<uint32_t>(w), got));
        if (w == got) {
          ++r.cases;
          continue;
        }
        if (agrees(gc, &want, e, mm, n, got)) {
          ++r.cases;
          ++r.accepted;
          ++r.accepted_by[compare == "ulp" ? fmt::format("ulp={}", ulps)
                                           : "within-bound"];
          continue;
        }
        std::string hint;
        // Bit-exact / ULP hints cost one lookup (one D per misreading); the
        // bound modes recompute an exact dot per element, so those are capped.
        if ((!bound_exact && !bound_model) || hinted++ < 4096) {
          for (GemmReading t : tries) {
            if (!readings.count(t)) {
              readings[t] = gemm_reading(gc, t);
              if (!bound_exact) reading_d[t] = gemm_model_d(*m, readings[t]);
            }
            if (agrees(readings[t], bound_exact ? nullptr : &reading_d[t], e,
                       mm, n, got)) {
              static const char* names[] = {
                  "", "operand-transposed:A", "scale-a-b-swap",
                  "scale-layout:plain", "alpha-ignored"};
              hint = names[static_cast<int>(t)];
              break;
            }
          }
        }
        if (hint.empty() && (bound_exact || bound_model))
          hint = "exceeds-bound";
        if (hint.empty() && gc.alpha != 1.0f) hint = "other";
        // The element as an op=mma case: A row, B column, scales, C = 0.
        std::vector<uint64_t> in;
        const GemmProblem& p = gc.p;
        const size_t K = static_cast<size_t>(s.K), M = static_cast<size_t>(s.M),
                     N = static_cast<size_t>(s.N), kb = kblocks(*g, p);
        for (size_t k = 0; k < K; ++k)
          in.push_back(
              p.A[a_kmajor(p.layout) ? static_cast<size_t>(mm) * K + k
                                     : k * M + static_cast<size_t>(mm)]);
        for (size_t k = 0; k < K; ++k)
          in.push_back(
              p.B[b_kmajor(p.layout) ? static_cast<size_t>(n) * K + k
                                     : k * N + static_cast<size_t>(n)]);
        if (scale_block(m->scales) > 0) {
          for (size_t q = 0; q < kb; ++q)
            in.push_back(p.SA[static_cast<size_t>(mm) * kb + q]);
          for (size_t q = 0; q < kb; ++q)
            in.push_back(p.SB[static_cast<size_t>(n) * kb + q]);
        }
        in.push_back(0);
        const std::vector<uint64_t> wv = {w}, gv = {got};
        Family ef = f;
        tally(r, *op, ef, in, wv, gv, index + e, o, hint);
      }
    }
    index += MN;
    r.description += fmt::format("; {}x{}x{} {}{}", s.M, s.N, s.K,
                                 layout_name(gc.p.layout), outcome_note(info));
    if (bound_exact || bound_model)
      r.description += fmt::format(" (bound {:.3g} x sum|terms|)", coef);
  }
  if (ran == 0) {
    why = fmt::format("not supported by this library/GPU ({} {}): {}", g->name,
                      f.header.get("layout", "TN"), first_refusal);
    return false;
  }
  if (bound_exact || bound_model)
    r.description +=
        fmt::format("; max |D - ref| / sum|terms| = {:.3g}", max_rel);
  if (!bound_exact)
    r.description +=
        fmt::format("; max ULP distance from the model: {}", max_ulp);
  return true;
}

}  // namespace mxc::gpu
