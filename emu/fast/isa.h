// The one instruction-set dispatch of the fast paths (issue 16). Every
// kernel file goes through it:
//  - SIMD kernels are written once with Google Highway and compiled for the
//    target list of emu/fast/CMakeLists.txt (x86-64: AVX2, AVX3; AArch64:
//    NEON, SVE, SVE2); each kernel file exports its per-target table with
//    HWY_EXPORT and calls it through MXC_HWY_DISPATCH (emu/fast/hwy_dispatch.h),
//    which picks the table entry of a given Isa, so one process can run
//    (and a test can check) every target its CPU has;
//  - which kernel runs is decided at run time, here (isa.cpp is the only
//    file that asks the CPU, through hwy::SupportedTargets()), capped by the
//    MXC_ISA environment variable.
// Isa::kScalar is the hand-written scalar C++ of each fast path (never
// Highway's HWY_SCALAR/EMU128 target). MXC_ISA=scalar|avx2|avx512 (x86) or
// scalar|neon|sve|sve2 (AArch64) forces the best ISA at or below that name
// in this architecture's order; an unknown name, one this build does not
// compile, or one this CPU cannot run is an error naming MXC_ISA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace mxc::fast {

// Within one architecture, ordered: a kernel asked for an ISA the machine
// lacks runs the best one below it. kAvx512 is Highway's AVX3 target.
enum class Isa : uint8_t { kScalar, kAvx2, kAvx512, kNeon, kSve, kSve2 };

// Whether this build compiles `i`, this CPU runs it and MXC_ISA allows it.
bool isa_supported(Isa i);
// Every ISA isa_supported(), lowest first (kScalar always first): what a
// test iterates over to check each dispatched target.
const std::vector<Isa>& isa_available();
// The best ISA allowed.
Isa best_isa();
// The same (the name the conversion and quantization paths use).
Isa best_convert_isa();
// The best ISA allowed below `i` (kScalar below kScalar; for an ISA not
// allowed here, the best allowed): the baseline a benchmark row compares
// with, and what a kernel asked for an ISA the machine lacks runs.
Isa isa_below(Isa i);
// The MXC_ISA name ("scalar", "avx2", "avx512", "neon", "sve", "sve2").
const char* isa_name(Isa i);
// What runs for `i`: Highway's target name ("AVX2", "AVX3", "NEON", "SVE",
// "SVE2") or "scalar C++".
const char* isa_target_name(Isa i);
// Highway's target bit (HWY_AVX2, ...) for `i`; 0 for kScalar.
int64_t isa_hwy_target(Isa i);
std::optional<Isa> parse_isa(std::string_view name);
// The ISAs this build compiles kernels for, lowest first, as a
// comma-separated list ("scalar,avx2,avx512"), and the MXC_ISA cap in force
// ("" when unset).
const char* isa_compiled_list();
const char* isa_forced();

// The HWY_TARGET of the code MXC_HWY_DISPATCH runs for `i`
// (emu/fast/isa_probe.cpp); 0 for kScalar or an ISA not isa_supported().
int64_t isa_probe_target(Isa i);

namespace detail {
// The index of `i`'s entry in a HWY_EXPORT table (emu/fast/hwy_dispatch.h).
// `i` must be isa_supported() and not kScalar (else the program stops:
// an internal error).
size_t isa_dispatch_index(Isa i);
}  // namespace detail

}  // namespace mxc::fast
