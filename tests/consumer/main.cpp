// Downstream use of the installed emulator: an FP8 conversion, an MX block
// quantization under a named profile, and an MMA model lookup. Expected
// values: OCP MX v1.0 (E4M3 max 448; 0.1 -> 0x1D), the ocp-v1 profile's
// FLOOR scale (amax 1.0 -> 2^(0 - 8) for E4M3, byte 119).
#include <cstdio>
#include <vector>

#include "emu/block/profile.h"
#include "emu/block/quantize.h"
#include "emu/convert.h"
#include "emu/mma/models.h"

int main() {
  int bad = 0;
  const auto e = mxc::f32_to_e4m3(mxc::f32_from(0.1f));
  if (e.v != 0x1D) { std::printf("e4m3(0.1) = %02X\n", e.v); ++bad; }
  const mxc::MxProfile* p = mxc::find_mx_profile("ocp-v1");
  if (!p) { std::puts("no ocp-v1 profile"); return 1; }
  std::vector<uint32_t> x(32, 0x3F800000u);  // 1.0f
  const mxc::MxBlock b = mxc::mx_quantize_block(*p, mxc::Fmt::kE4M3, x);
  if (b.scale != 119) { std::printf("scale = %u\n", b.scale); ++bad; }
  if (!mxc::find_mma_model("sm90_wgmma_fp8_f32")) { std::puts("no model"); ++bad; }
  std::printf("consumer: %s\n", bad ? "FAIL" : "ok");
  return bad ? 1 : 0;
}
