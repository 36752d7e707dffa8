// The binary32 environment every fast kernel assumes (quantize_fused.h,
// gemm_fast.cpp, nvfp4_fast.h): round to nearest even, subnormal inputs
// read as they are and subnormal results kept (no DAZ / FTZ), no traps.
// A caller's thread may run in another: torch.set_flush_denormal(True) sets
// MXCSR.FTZ and DAZ (x86) or FPCR.FZ (AArch64) for its thread, and the SIMD
// adds and multiplies of the kernels then flush (NVFP4 and microxcaling
// codes changed silently; tests/test_fp_env.cpp). Each public fast entry
// point holds an FpEnvDefault for its call: it reads the control register
// once and, only where it differs from the default, sets the default and
// restores the caller's on return (worker threads inherit the caller's
// environment and enter through the same entry points).
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace mxc::fast {

class FpEnvDefault {
 public:
#if defined(__x86_64__) || defined(__i386__)
  // MXCSR: exception flags 0-5 kept; DAZ (6) clear, every exception masked
  // (7-12), rounding control 13-14 to nearest, FTZ (15) clear.
  FpEnvDefault() : saved_(_mm_getcsr()) {
    const uint64_t want = 0x1F80u | (saved_ & 0x3Fu);
    if (want != saved_) {
      _mm_setcsr(static_cast<unsigned>(want));
      changed_ = true;
    }
  }
  ~FpEnvDefault() {
    if (changed_) _mm_setcsr(static_cast<unsigned>(saved_));
  }
#elif defined(__aarch64__)
  // FPCR: 0 is the Linux default (round to nearest, FZ / FZ16 / DN / AH /
  // FIZ clear, no trap enabled).
  FpEnvDefault() {
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
    saved_ = v;
    if (v != 0) {
      __asm__ __volatile__("msr fpcr, %0" : : "r"(uint64_t{0}));
      changed_ = true;
    }
  }
  ~FpEnvDefault() {
    if (changed_) __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_));
  }
#else
  FpEnvDefault() = default;
#endif
  FpEnvDefault(const FpEnvDefault&) = delete;
  FpEnvDefault& operator=(const FpEnvDefault&) = delete;

 private:
  uint64_t saved_ = 0;
  bool changed_ = false;
};

}  // namespace mxc::fast
