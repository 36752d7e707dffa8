// The NVFP4 fast-path tests' switches: the fused kernels on one ISA for a
// scope (kScalar: the portable path), and the reference's block with the
// fast path off (tests/test_fast_nvfp4.cpp, test_fast_nvfp4_recip.cpp).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <span>
#include <string>

#include "emu/block/quantize.h"
#include "emu/fast/isa.h"
#include "emu/fast/nvfp4_fast.h"
#include "emu/fast/quantize_fast.h"

namespace mxc::test {

// The fused kernels on `isa` until the scope ends; then the default ISA
// and the NVFP4 fast path on again (also after a failed REQUIRE).
struct Switches {
  explicit Switches(fast::Isa isa)
      : label(isa == fast::Isa::kScalar
                  ? std::string("portable path (fused kernels off)")
                  : fmt::format("fused kernels on {} ({})", fast::isa_name(isa),
                                fast::isa_target_name(isa))) {
    fast::set_fused_isa(isa);
  }
  Switches(const Switches&) = delete;
  Switches& operator=(const Switches&) = delete;
  std::string label;  // what ran, for messages
  ~Switches() {
    fast::reset_fused_isa();
    fast::set_nvfp4_fast_enabled(true);
  }
};

// The reference's block (the fast path off for the call).
inline Nvfp4Block ref_block(const Nvfp4Profile& p, uint32_t s_enc,
                            std::span<const uint32_t> x) {
  fast::set_nvfp4_fast_enabled(false);
  Nvfp4Block b = nvfp4_quantize_block(p, s_enc, x);
  fast::set_nvfp4_fast_enabled(true);
  return b;
}

}  // namespace mxc::test
