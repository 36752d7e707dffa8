// The entry points of the x86 kernels on targets that do not compile them
// (emu/fast/isa.h, emu/fast/CMakeLists.txt). Callers reach them only after
// isa_supported(Isa::kAvx2 / kAvx512), which is false on such targets, so
// each one stops the program rather than return something plausible.
#include <cstdio>
#include <cstdlib>

#include "emu/fast/convert_fast.h"
#include "emu/fast/sweep.h"

#if MXC_X86_KERNELS
#error "x86_absent.cpp is for targets without the x86 kernels"
#endif

namespace mxc::fast::detail {
namespace {
[[noreturn]] void absent(const char* what) {
  std::fprintf(stderr,
               "mxc internal error: %s called on a build without x86 "
               "kernels (emu/fast/isa.h)\n",
               what);
  std::abort();
}
}  // namespace

bool avx2_run(const Plan&, const uint32_t*, uint8_t*, size_t) {
  absent("avx2_run");
}
bool avx512_run(const Plan&, const uint32_t*, uint8_t*, size_t) {
  absent("avx512_run");
}
uint64_t binade_avx2(const BinadeRun&, uint8_t*, size_t) {
  absent("binade_avx2");
}
uint64_t binade_avx512(const BinadeRun&, uint8_t*, size_t) {
  absent("binade_avx512");
}
}  // namespace mxc::fast::detail
