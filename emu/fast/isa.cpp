// Run-time ISA choice (emu/fast/isa.h): the only place that asks the CPU
// what it has (hwy::SupportedTargets()), and where MXC_ISA is read.
#include "emu/fast/isa.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

// HWY_TARGETS here is the kernels' list: HWY_DISABLED_TARGETS comes from
// emu/fast/CMakeLists.txt for every file of mxc_emu.
#include "hwy/targets.h"

namespace mxc::fast {

namespace {

struct IsaInfo {
  Isa isa;
  const char* name;
  int64_t target;  // Highway's target bit; 0: the hand-written scalar code
};

// This architecture's ISAs, lowest first (the MXC_ISA order).
constexpr IsaInfo kOrder[] = {
    {Isa::kScalar, "scalar", 0},
#if HWY_ARCH_X86_64
    {Isa::kAvx2, "avx2", HWY_AVX2},
    {Isa::kAvx512, "avx512", HWY_AVX3},
#elif HWY_ARCH_ARM_A64
    {Isa::kNeon, "neon", HWY_NEON},
    {Isa::kSve, "sve", HWY_SVE},
    {Isa::kSve2, "sve2", HWY_SVE2},
#endif
};
constexpr Isa kAll[] = {Isa::kScalar, Isa::kAvx2, Isa::kAvx512,
                        Isa::kNeon,   Isa::kSve,  Isa::kSve2};

const IsaInfo* info(Isa i) {
  for (const IsaInfo& k : kOrder)
    if (k.isa == i) return &k;
  return nullptr;  // another architecture's
}

bool compiled(Isa i) {
  const IsaInfo* k = info(i);
  return k != nullptr && (k->target == 0 || (k->target & HWY_TARGETS) != 0);
}

bool cpu_has(Isa i) {
  if (!compiled(i)) return false;
  static const int64_t supported = hwy::SupportedTargets();
  const int64_t t = info(i)->target;
  return t == 0 || (supported & t) != 0;
}

std::string names_here() {
  std::string s;
  for (const IsaInfo& k : kOrder) s += std::string(s.empty() ? "" : ", ") + k.name;
  return s;
}

// The highest ISA allowed (its kOrder index): the best the CPU has, or
// MXC_ISA's.
size_t compute_cap() {
  size_t best = 0;
  for (size_t j = 0; j < std::size(kOrder); ++j)
    if (cpu_has(kOrder[j].isa)) best = j;
  const char* env = std::getenv("MXC_ISA");
  if (env == nullptr || *env == '\0') return best;
  const std::optional<Isa> want = parse_isa(env);
  if (!want) {
    throw std::runtime_error(std::string("MXC_ISA=") + env +
                             ": unknown ISA (expected one of scalar, avx2, "
                             "avx512, neon, sve, sve2; this build: " +
                             names_here() + ")");
  }
  if (!compiled(*want)) {
    throw std::runtime_error(std::string("MXC_ISA=") + env +
                             ": not compiled in this build (it has: " +
                             isa_compiled_list() + ")");
  }
  if (!cpu_has(*want)) {
    throw std::runtime_error(std::string("MXC_ISA=") + env +
                             ": this CPU cannot run it (best here: " +
                             kOrder[best].name + ")");
  }
  size_t j = 0;
  while (kOrder[j].isa != *want) ++j;
  // Highway's own dispatch (HWY_DYNAMIC_DISPATCH) obeys the cap too.
  int64_t above = 0;
  for (size_t k = j + 1; k < std::size(kOrder); ++k) above |= kOrder[k].target;
  if (j == 0) above = HWY_TARGETS & ~(HWY_SCALAR | HWY_EMU128);
  if (above != 0) hwy::DisableTargets(above);
  return j;
}

size_t cap() {
  static const size_t c = compute_cap();
  return c;
}

}  // namespace

bool isa_supported(Isa i) {
  // Per Isa value, computed once (a kernel call asks every time).
  static const auto allowed = [] {
    std::array<bool, std::size(kAll)> a{};
    for (Isa j : kAll) {
      const IsaInfo* k = info(j);
      a[static_cast<size_t>(j)] =
          k != nullptr && cpu_has(j) && static_cast<size_t>(k - kOrder) <= cap();
    }
    return a;
  }();
  const auto n = static_cast<size_t>(i);
  return n < allowed.size() && allowed[n];
}

const std::vector<Isa>& isa_available() {
  static const std::vector<Isa> v = [] {
    std::vector<Isa> r;
    for (const IsaInfo& k : kOrder)
      if (isa_supported(k.isa)) r.push_back(k.isa);
    return r;
  }();
  return v;
}

Isa best_isa() { return isa_available().back(); }

Isa best_convert_isa() { return best_isa(); }

Isa isa_below(Isa i) {
  Isa below = Isa::kScalar;
  for (Isa a : isa_available()) {
    if (a == i) break;
    below = a;
  }
  return below;
}

const char* isa_name(Isa i) {
  switch (i) {
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kNeon:
      return "neon";
    case Isa::kSve:
      return "sve";
    case Isa::kSve2:
      return "sve2";
    case Isa::kScalar:
      break;
  }
  return "scalar";
}

const char* isa_target_name(Isa i) {
  const int64_t t = isa_hwy_target(i);
  return t == 0 ? "scalar C++" : hwy::TargetName(t);
}

int64_t isa_hwy_target(Isa i) {
  const IsaInfo* k = info(i);
  return k == nullptr ? 0 : k->target;
}

std::optional<Isa> parse_isa(std::string_view name) {
  for (Isa i : kAll)
    if (name == isa_name(i)) return i;
  return std::nullopt;
}

const char* isa_compiled_list() {
  static const std::string s = [] {
    std::string r;
    for (const IsaInfo& k : kOrder)
      if (compiled(k.isa)) r += std::string(r.empty() ? "" : ",") + k.name;
    return r;
  }();
  return s.c_str();
}

const char* isa_forced() {
  const char* env = std::getenv("MXC_ISA");
  return env == nullptr ? "" : env;
}

namespace detail {
size_t isa_dispatch_index(Isa i) {
  const int64_t t = isa_hwy_target(i);
  if (t == 0 || !isa_supported(i)) {
    std::fprintf(stderr,
                 "mxc internal error: dispatch to ISA %s, which this build or "
                 "CPU does not run (emu/fast/hwy_dispatch.h)\n",
                 isa_name(i));
    std::abort();
  }
  // HWY_EXPORT tables: entry 0 initialises Highway's chosen target, then
  // one entry per target bit in ChosenTarget's mask order (hwy/targets.h).
  return hwy::Num0BitsBelowLS1Bit_Nonzero64(
      static_cast<uint64_t>(HWY_CHOSEN_TARGET_SHIFT(t)));
}
}  // namespace detail

}  // namespace mxc::fast
