// The one instruction-set dispatch of the fast paths (issue 16). Every
// kernel file goes through it:
//  - which kernel sources are compiled is decided once, by the target
//    processor, in emu/fast/CMakeLists.txt: the x86 kernels (per-function
//    target attributes, never global -m flags) join mxc_emu only on x86,
//    which defines MXC_X86_KERNELS=1; elsewhere x86_absent.cpp stands in
//    for their entry points (never called: isa_supported() is false);
//  - which kernel runs is decided at run time, here (isa.cpp is the only
//    file that asks the CPU), capped by the MXC_ISA environment variable.
// MXC_ISA=scalar|avx2|avx512 forces the best ISA at or below that name (an
// unknown name, or one this CPU cannot run, is an error naming MXC_ISA).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#ifndef MXC_X86_KERNELS
#define MXC_X86_KERNELS 0
#endif

#if MXC_X86_KERNELS
// AVX-512 means x86-64-v4 (F, BW, CD, DQ, VL: every AVX-512 CPU since
// Skylake-SP has all five), the set the runtime check asks for.
#define MXC_TARGET_AVX2 __attribute__((target("avx2")))
#define MXC_TARGET_AVX512 \
  __attribute__((target("avx2,avx512f,avx512bw,avx512cd,avx512dq,avx512vl")))
#else
#define MXC_TARGET_AVX2
#define MXC_TARGET_AVX512
#endif

namespace mxc::fast {

// Ordered: a kernel asked for an ISA the machine lacks runs the best one
// below it.
enum class Isa : uint8_t { kScalar, kAvx2, kAvx512 };

// Whether this build and this CPU can run `i` and MXC_ISA allows it.
bool isa_supported(Isa i);
// The best of kAvx2 / kScalar allowed (the baseline the bench compares the
// AVX-512 paths with).
Isa best_isa();
// The best ISA allowed: kAvx512 where supported, else best_isa().
Isa best_convert_isa();
const char* isa_name(Isa i);
std::optional<Isa> parse_isa(std::string_view name);
// The ISAs this build compiles kernels for, lowest first, as a
// comma-separated list ("scalar,avx2,avx512"), and the MXC_ISA cap in force
// ("" when unset).
const char* isa_compiled_list();
const char* isa_forced();

}  // namespace mxc::fast
