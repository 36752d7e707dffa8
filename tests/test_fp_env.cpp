// The fast entry points give the same bytes whatever floating-point
// environment the caller's thread is in, and hand it back unchanged
// (emu/fast/fp_env.h). The caller's environment here is what
// torch.set_flush_denormal(True) sets (x86: MXCSR.FTZ and DAZ; AArch64:
// FPCR.FZ), plus rounding toward zero; without the guard, NVFP4 and
// microxcaling's rule gave other codes under it (FTZ flushes the kernels'
// subnormal products and DAZ their subnormal inputs).
#include <fmt/format.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "conformance/splitmix64.h"
#include "emu/block/profile.h"
#include "emu/fast/nvfp4_fast.h"
#include "emu/fast/quantize_fast.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

using namespace mxc;

namespace {

// The caller's environment for the scope: flush to zero, denormals as
// zero and round toward zero where the ISA has them.
class CallerEnv {
 public:
#if defined(__x86_64__) || defined(__i386__)
  CallerEnv() : saved_(_mm_getcsr()) {
    _mm_setcsr(saved_ | 0x8040u | 0x6000u);  // FTZ | DAZ, RC = toward zero
  }
  ~CallerEnv() { _mm_setcsr(saved_); }
  static uint64_t now() { return _mm_getcsr(); }
  static constexpr bool kHas = true;

 private:
  unsigned saved_;
#elif defined(__aarch64__)
  CallerEnv() : saved_(now()) {
    const uint64_t v = saved_ | (uint64_t{1} << 24) | (uint64_t{3} << 22);
    __asm__ __volatile__("msr fpcr, %0" : : "r"(v));  // FZ, RMode = toward 0
  }
  ~CallerEnv() { __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_)); }
  static uint64_t now() {
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
    return v;
  }
  static constexpr bool kHas = true;

 private:
  uint64_t saved_;
#else
  static uint64_t now() { return 0; }
  static constexpr bool kHas = false;
#endif
};

// rows x cols f32: Gaussian-like magnitudes over 2^-40 .. 2^40, every
// seventh element scaled into f32 subnormals or near them (the elements
// a block's scale maps below the element format's least normal, and
// inputs DAZ reads as 0).
std::vector<uint32_t> data(int rows, int cols) {
  SplitMix64 g(0xF7E5u);
  std::vector<uint32_t> x(static_cast<size_t>(rows) * cols);
  for (size_t i = 0; i < x.size(); ++i) {
    const uint64_t r = g.next();
    const int e = static_cast<int>(r % 81) - 40 - (i % 7 == 0 ? 100 : 0);
    const uint32_t mant = static_cast<uint32_t>(r >> 40) & 0x7FFFFFu;
    const uint32_t sign = (r >> 20) & 1 ? 0x80000000u : 0u;
    const int be = e + 127 < 0 ? 0 : e + 127;
    x[i] = sign | (static_cast<uint32_t>(be) << 23) |
           (be == 0 ? mant >> (1 - (e + 127) > 23 ? 23 : 1 - (e + 127)) : mant);
  }
  return x;
}

struct Out {
  std::vector<uint8_t> scales, codes;
  bool ran = false;
  bool operator==(const Out& o) const {
    return ran == o.ran && scales == o.scales && codes == o.codes;
  }
};

// run() in the default environment and under CallerEnv: the same output,
// and the caller's register handed back as it was set.
template <class Run>
void check_same_under_caller_env(const Run& run, const std::string& what) {
  const Out want = run();
  Out got;
  uint64_t inside = 0, after = 0;
  {
    const CallerEnv env;
    inside = CallerEnv::now();
    got = run();
    after = CallerEnv::now();
  }
  INFO(what);
  CHECK(want.ran);
  CHECK(got == want);
  CHECK(after == inside);
}

}  // namespace

TEST_CASE("fast quantization ignores the caller's FTZ, DAZ and rounding",
          "[fast][fpenv]") {
  if (!CallerEnv::kHas) {
    WARN("no floating-point control register known on this ISA: skipped");
    return;
  }
  const int rows = 64, cols = 256;
  const std::vector<uint32_t> x = data(rows, cols);
  const size_t n = x.size();
  int checked = 0;
  for (const char* name : {"microxcaling@7bc41952",
                           "microxcaling-even@7bc41952", "torchao-floor@0.18",
                           "torchao-rceil@0.18", "ocp-v1", "te-mxfp8@2.13"}) {
    const MxProfile* p = find_mx_profile(name);
    REQUIRE(p != nullptr);
    for (Fmt e : {Fmt::kE4M3, Fmt::kE2M1}) {
      for (int axis = 0; axis < 2; ++axis) {
        auto run = [&] {
          Out o;
          o.scales.assign(n / 32, 0);
          o.codes.assign(n, 0);
          o.ran =
              axis == 0
                  ? fast::mx_quantize_rowwise(*p, e, rows, cols, x.data(),
                                              o.scales.data(), o.codes.data())
                  : fast::mx_quantize_colwise(*p, e, rows, cols, x.data(),
                                              o.scales.data(), o.codes.data());
          return o;
        };
        check_same_under_caller_env(
            run, fmt::format("{} elem {} {}", name, static_cast<int>(e),
                             axis == 0 ? "rowwise" : "colwise"));
        ++checked;
      }
    }
  }
  // ModelOpt and compressed-tensors: the division by a reciprocal (FMAs).
  for (const char* name :
       {"te-nvfp4", "torchao-nvfp4@0.18", "modelopt-nvfp4@0.47",
        "compressed-tensors-nvfp4@0.20", "te-nvfp4-4over6@2.17"}) {
    const Nvfp4Profile* p = find_nvfp4_profile(name);
    REQUIRE(p != nullptr);
    // S_enc for a tensor amax of 2^40: a normal f32 (the kernels' scale
    // products of tiny blocks fall below 2^-126).
    for (uint32_t s_enc : {0x3F800000u, 0x2E000000u}) {
      for (int axis = 0; axis < 2; ++axis) {
        auto run = [&] {
          Out o;
          o.scales.assign(n / 16, 0);
          o.codes.assign(n, 0);
          o.ran = axis == 0
                      ? fast::nvfp4_quantize_rowwise(*p, s_enc, rows, cols,
                                                     x.data(), o.scales.data(),
                                                     o.codes.data())
                      : fast::nvfp4_quantize_colwise(*p, s_enc, rows, cols,
                                                     x.data(), o.scales.data(),
                                                     o.codes.data());
          return o;
        };
        check_same_under_caller_env(
            run, fmt::format("{} S_enc {:#010x} {}", name, s_enc,
                             axis == 0 ? "rowwise" : "colwise"));
        ++checked;
      }
    }
  }
  CHECK(checked == 6 * 2 * 2 + 5 * 2 * 2);
}
