#include "conformance/block_cases.h"

#include <bit>
#include <cmath>
#include <limits>

#include "emu/convert.h"
#include "emu/round_pack.h"

namespace mxc {
namespace {

uint32_t fb(float x) { return std::bit_cast<uint32_t>(x); }

struct Named {
  const char* name;
  uint32_t first, rest;
};

constexpr uint32_t kInf = 0x7F800000u, kNan = 0x7FC00000u;
constexpr uint32_t kMax = 0x7F7FFFFFu, kTiny = 0x00800000u, kSub = 1;

const Named kNamed[] = {
    {"zero", 0, 0},
    {"smallest_normal", kTiny, kTiny},
    {"mixed_inf", kInf, 0x3F800000u},
    {"mixed_nan", kNan, 0x3F800000u},
    {"positive_fp8_max", 0x43E00000u, 0x43E00000u},
    {"negative_fp8_max", 0xC3E00000u, 0xC3E00000u},
    {"positive_dtype_max", kMax, kMax},
    {"negative_dtype_max", kMax | 0x80000000u, kMax | 0x80000000u},
    {"positive_smallest_subnormal", kSub, kSub},
    {"negative_smallest_subnormal", kSub | 0x80000000u, kSub | 0x80000000u},
    {"mixed_positive_underflow", kSub, 0x3F800000u},
    {"mixed_negative_underflow", kSub | 0x80000000u, 0x3F800000u},
    {"mixed_saturation_and_underflow", kMax, 0x3F800000u},
    {"rceil_premature_bf16_lowers_scale", 0x40600001u, 0x40600001u},
    {"floor_premature_bf16_raises_scale", 0x43FFFFFFu, 0x43FFFFFFu},
    {"all_nan", kNan, kNan},
    {"positive_satfinite", 0x43F00000u, 0x43F00000u},
    {"negative_satfinite", 0xC3F00000u, 0xC3F00000u},
};

std::vector<uint32_t> bell(SplitMix64& g, int n, float scale) {
  std::vector<uint32_t> v(static_cast<size_t>(n));
  for (auto& x : v) {
    double s = 0;  // sum of 4 uniforms: a deterministic bell shape
    for (int i = 0; i < 4; ++i) s += static_cast<double>(g.next() >> 11) * 0x1p-53;
    x = fb(static_cast<float>((s - 2.0) * scale));
  }
  return v;
}

int pick(SplitMix64& g, int lo, int hi) {
  return lo + static_cast<int>(g.next() % static_cast<uint64_t>(hi - lo + 1));
}

const char* kClassNames[] = {
    "gaussian",
    "amax just above max*2^k",
    "amax just below 2^k",
    "amax exactly 2^k",
    "tiny amax (f32 subnormal / < 2^-118)",
    "huge amax (near FLT_MAX)",
    "contains Inf",
    "contains NaN",
    "negative zeros and tiny negatives",
    "all-zero",
};

}  // namespace

size_t named_block_count() { return std::size(kNamed); }
std::string_view named_block_name(size_t i) { return kNamed[i].name; }

std::vector<uint32_t> named_block(size_t i, int n) {
  std::vector<uint32_t> v(static_cast<size_t>(n), kNamed[i].rest);
  v[0] = kNamed[i].first;
  return v;
}

size_t block_class_count() { return std::size(kClassNames); }
std::string_view block_class_name(size_t c) { return kClassNames[c]; }

std::vector<uint32_t> block_class_case(size_t c, SplitMix64& g, int n,
                                       Fmt elem) {
  const float emax = std::bit_cast<float>(static_cast<uint32_t>(
      convert(elem, Fmt::kF32, max_finite_bits(elem, false))));
  const size_t at = g.next() % static_cast<size_t>(n);
  switch (c) {
    case 0:
      return bell(g, n, std::ldexp(1.0f, pick(g, -20, 20)));
    case 1: {
      auto v = bell(g, n, 1.0f);
      const float k = std::ldexp(1.0f, pick(g, -10, 10));
      v[at] = fb(std::nextafter(emax * k, INFINITY) *
                 (1.0f + 0x1p-20f * static_cast<float>(pick(g, 0, 7))));
      return v;
    }
    case 2: {
      auto v = bell(g, n, 0.25f);
      v[at] = fb(std::nextafter(std::ldexp(1.0f, pick(g, -10, 10)), 0.0f));
      return v;
    }
    case 3: {
      auto v = bell(g, n, 0.25f);
      v[at] = fb(std::ldexp(1.0f, pick(g, -10, 10)));
      return v;
    }
    case 4:
      return bell(g, n, std::ldexp(1.0f, -120 - pick(g, 0, 19)));
    case 5: {
      auto v = bell(g, n, 1e30f);
      v[at] = fb(std::ldexp(1.0f, 127) *
                 (1.0f + static_cast<float>(pick(g, 0, 99)) / 128.0f));
      return v;
    }
    case 6: {
      auto v = bell(g, n, 1.0f);
      v[at] = (g.next() & 1) ? kInf : (kInf | 0x80000000u);
      return v;
    }
    case 7: {
      auto v = bell(g, n, 1.0f);
      v[at] = kNan;
      return v;
    }
    case 8: {
      auto v = bell(g, n, 1.0f);
      v[0] = 0x80000000u;
      if (n > 1) v[1] = fb(-1e-30f);
      return v;
    }
    default:
      return std::vector<uint32_t>(static_cast<size_t>(n), 0);
  }
}

}  // namespace mxc
