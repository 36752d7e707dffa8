// Run-time ISA choice (emu/fast/isa.h): the only place that asks the CPU
// what it has, and where MXC_ISA is read.
#include "emu/fast/isa.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace mxc::fast {

namespace {

bool cpu_has(Isa i) {
  switch (i) {
    case Isa::kScalar:
      return true;
    case Isa::kAvx2:
#if MXC_X86_KERNELS
      return __builtin_cpu_supports("avx2");
#else
      return false;
#endif
    case Isa::kAvx512:
#if MXC_X86_KERNELS
      return __builtin_cpu_supports("avx2") &&
             __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512cd") &&
             __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl");
#else
      return false;
#endif
  }
  return false;
}

// The highest ISA allowed: the best the CPU has, or MXC_ISA's.
Isa compute_cap() {
  Isa best = Isa::kScalar;
  for (Isa i : {Isa::kAvx2, Isa::kAvx512})
    if (cpu_has(i)) best = i;
  const char* env = std::getenv("MXC_ISA");
  if (env == nullptr || *env == '\0') return best;
  const std::optional<Isa> want = parse_isa(env);
  if (!want) {
    throw std::runtime_error(std::string("MXC_ISA=") + env +
                             ": unknown ISA (expected scalar, avx2 or avx512)");
  }
  if (!cpu_has(*want)) {
    throw std::runtime_error(std::string("MXC_ISA=") + env +
                             ": this build or CPU cannot run it (best here: " +
                             isa_name(best) + ")");
  }
  return *want;
}

Isa cap() {
  static const Isa c = compute_cap();
  return c;
}

}  // namespace

bool isa_supported(Isa i) {
  static const bool has[3] = {true, cpu_has(Isa::kAvx2), cpu_has(Isa::kAvx512)};
  return i <= cap() && has[static_cast<int>(i)];
}

Isa best_isa() { return isa_supported(Isa::kAvx2) ? Isa::kAvx2 : Isa::kScalar; }

Isa best_convert_isa() {
  return isa_supported(Isa::kAvx512) ? Isa::kAvx512 : best_isa();
}

const char* isa_name(Isa i) {
  switch (i) {
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kScalar:
      break;
  }
  return "scalar";
}

std::optional<Isa> parse_isa(std::string_view name) {
  for (Isa i : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512})
    if (name == isa_name(i)) return i;
  return std::nullopt;
}

const char* isa_compiled_list() {
#if MXC_X86_KERNELS
  return "scalar,avx2,avx512";
#else
  return "scalar";
#endif
}

const char* isa_forced() {
  const char* env = std::getenv("MXC_ISA");
  return env == nullptr ? "" : env;
}

}  // namespace mxc::fast
