// Calling one target's entry of a Highway dispatch table (emu/fast/isa.h).
// Include after "hwy/highway.h", in the HWY_ONCE part of a kernel file:
//
//   HWY_EXPORT(MyKernel);  // the per-target table, in namespace mxc::fast
//   ... if (isa != Isa::kScalar && isa_supported(isa))
//         return MXC_HWY_DISPATCH(MyKernel, isa)(args...);
//       my_kernel_scalar(args...);  // the hand-written scalar path
//
// Unlike HWY_DYNAMIC_DISPATCH (always the best target), this runs the target
// the caller names, so tests check every target and `mxc bench` compares
// them in one process. Never pass Isa::kScalar.
#pragma once

#include "emu/fast/isa.h"

#define MXC_HWY_DISPATCH(FUNC_NAME, isa) \
  (*(HWY_DISPATCH_TABLE(FUNC_NAME)[::mxc::fast::detail::isa_dispatch_index(isa)]))
