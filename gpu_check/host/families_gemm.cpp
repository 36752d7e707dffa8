// The cuBLASLt replay families (FamilyKind::kGemm): which library calls
// gpu_check makes and what they are compared with (host/gemm_replay.cpp).
#include "gpu_check/host/families.h"

namespace mxc::gpu {

void add_gemm_families(std::vector<Family>& v) {
  Family g;
  g.name = "cublaslt.mxfp8.tn.bitexact";
  g.ptx =
      "cublasLtMatmul e4m3 x e4m3 -> f32, VEC32_UE8M0 scales (128x4 layout), "
      "TN, "
      "split-K 1, reduction NONE";
  g.kind = FamilyKind::kGemm;
  g.instr = 0;
  g.header.kv["op"] = "gemm";
  g.needs = 0;
  g.ccs = {100, 103, 120, 121};
  g.note =
      "compared with emu/mma/gemm.h over the architecture's mxf8f6f4 model";
  v.push_back(g);
  Family g2 = g;
  g2.name = "cublaslt.fp8.tn.tensorscale";
  g2.ptx =
      "cublasLtMatmul e4m3 x e4m3 -> f32, scalar scales 1.0, TN, fast "
      "accumulation, "
      "split-K 1";
  g2.instr = 1;
  g2.ccs = {89, 90, 100, 103, 120, 121};
  g2.note =
      "bit-exact where the library keeps one tensor-core chain per element; "
      "any "
      "other composition is reported with its ULP distance";
  v.push_back(g2);
}

}  // namespace mxc::gpu
