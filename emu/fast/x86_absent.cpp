// The entry points of the x86 kernels on targets that do not compile them
// (emu/fast/isa.h, emu/fast/CMakeLists.txt). Callers reach them only after
// isa_supported(Isa::kAvx2 / kAvx512), which is false on such targets, so
// each one stops the program rather than return something plausible.
#include <cstdio>
#include <cstdlib>

#include "emu/fast/convert_fast.h"
#include "emu/fast/gemm_fast_impl.h"
#include "emu/fast/nvfp4_fused.h"
#include "emu/fast/quantize_fused.h"
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

void mx_rows_avx512(const MxKern&, size_t, size_t, size_t, const uint32_t*,
                    uint8_t*, uint8_t*) {
  absent("mx_rows_avx512");
}
void mx_cols_avx512(const MxKern&, size_t, size_t, size_t, const uint32_t*,
                    uint8_t*, uint8_t*) {
  absent("mx_cols_avx512");
}
void nv_rows_avx512(const Nvfp4Profile&, const NvTab&, size_t, const uint32_t*,
                    uint8_t*, uint8_t*) {
  absent("nv_rows_avx512");
}
void nv_cols_avx512(const Nvfp4Profile&, const NvTab&, size_t, size_t,
                    const uint32_t*, uint8_t*, uint8_t*) {
  absent("nv_cols_avx512");
}
bool nv_2d_avx512(const NvTab&, size_t, size_t, const uint32_t*, uint8_t*,
                  uint8_t*) {
  absent("nv_2d_avx512");
}

}  // namespace mxc::fast::detail

namespace mxc::fast::gemm_detail {
uint32_t block_avx512(const GemmPlan&, size_t, size_t, uint32_t*) {
  std::fprintf(stderr,
               "mxc internal error: block_avx512 without x86 kernels\n");
  std::abort();
}
}  // namespace mxc::fast::gemm_detail
