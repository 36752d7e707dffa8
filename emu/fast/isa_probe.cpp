// The smallest Highway kernel file (emu/fast/isa.h), and the template of
// every other: it returns the HWY_TARGET it was compiled for, so a test can
// check that MXC_HWY_DISPATCH(f, isa) runs isa's target code
// (tests/test_fast_isa.cpp).
//
// A kernel file is compiled once per target of HWY_TARGETS: foreach_target.h
// re-includes this file (HWY_TARGET_INCLUDE) with HWY_NAMESPACE set to
// N_AVX2, N_AVX3, N_NEON, ...; the HWY_ONCE part is compiled once and holds
// the dispatch table and the public entry point.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "emu/fast/isa_probe.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mxc::fast::HWY_NAMESPACE {

int64_t CompiledTarget() { return HWY_TARGET; }

}  // namespace mxc::fast::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "emu/fast/hwy_dispatch.h"

namespace mxc::fast {

HWY_EXPORT(CompiledTarget);

int64_t isa_probe_target(Isa isa) {
  if (isa == Isa::kScalar || !isa_supported(isa)) return 0;
  return MXC_HWY_DISPATCH(CompiledTarget, isa)();
}

}  // namespace mxc::fast
#endif  // HWY_ONCE
