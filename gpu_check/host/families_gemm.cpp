// The cuBLASLt replay families (FamilyKind::kGemm): which library calls
// gpu_check makes and what they are compared with (host/gemm_replay.cpp).
// Header keys: format (host/replay.h gemm_format), layout (TN forward,
// NN dgrad, NT wgrad, TT), compare (bitexact / ulp / bound-model /
// bound-exact), alpha, ulp. A layout the library refuses is reported as
// "not supported by this library/GPU", never as a failure.
#include <fmt/format.h>

#include <cctype>

#include "gpu_check/host/families.h"

namespace mxc::gpu {
namespace {

const std::vector<int> kBlackwell = {100, 103, 120, 121};
const std::vector<int> kFp8 = {89, 90, 100, 103, 120, 121};
// Hopper-style block scaling: cuBLAS 12.9 added it for sm_90 and sm_100
// (NVIDIA/CUDALibrarySamples#310 asks the same question; not confirmed).
const std::vector<int> kHopperBlock = {90, 100, 103};

std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Family gemm_family(std::string name, std::string ptx, const char* format,
                   const char* layout, const char* compare,
                   std::vector<int> ccs, std::string note) {
  Family g;
  g.name = std::move(name);
  g.ptx = std::move(ptx);
  g.kind = FamilyKind::kGemm;
  g.instr = 0;
  g.header.kv["op"] = "gemm";
  g.header.kv["format"] = format;
  g.header.kv["layout"] = layout;
  g.header.kv["compare"] = compare;
  g.needs = 0;
  g.ccs = std::move(ccs);
  g.note = std::move(note);
  return g;
}

const char* role(const std::string& layout) {
  return layout == "TN"   ? "forward"
         : layout == "NN" ? "dgrad"
         : layout == "NT" ? "wgrad"
                          : "-";
}

}  // namespace

void add_gemm_families(std::vector<Family>& v) {
  for (const char* l : {"TN", "NN", "NT", "TT"}) {
    const std::string ll = lower(l), r = role(l);
    v.push_back(
        gemm_family("cublaslt.mxfp8." + ll + ".bitexact",
                    fmt::format("cublasLtMatmul e4m3 x e4m3 -> f32, "
                                "VEC32_UE8M0 scales (128x4 layout), {} ({}), "
                                "split-K 1, reduction NONE",
                                l, r),
                    "mxfp8", l, "bitexact", kBlackwell,
                    "compared bit-exactly with emu/mma/gemm.h over the "
                    "architecture's mxf8f6f4 model"));
    v.push_back(gemm_family(
        "cublaslt.fp8." + ll + ".tensorscale",
        fmt::format("cublasLtMatmul e4m3 x e4m3 -> f32, scalar scales 1.0, {} "
                    "({}), fast "
                    "accumulation, split-K 1",
                    l, r),
        "fp8-tensor", l, "bitexact", kFp8,
        "bit-exact where the library keeps one tensor-core chain per element"));
    Family nv = gemm_family(
        "cublaslt.nvfp4." + ll + ".bitexact",
        fmt::format("cublasLtMatmul e2m1 x e2m1 (packed) -> f32, VEC16_UE4M3 "
                    "scales (128x4 layout), "
                    "alpha 0.25, {} ({}), split-K 1, reduction NONE",
                    l, r),
        "nvfp4", l, "bitexact", kBlackwell,
        "compared bit-exactly with the mxf4nvf4 4X model; alpha = 2^-2 scales "
        "the f32 result "
        "exactly wherever the library applies it");
    nv.header.kv["alpha"] = "0.25";
    v.push_back(nv);
  }
  Family na = gemm_family("cublaslt.nvfp4.tn.alpha",
                          "cublasLtMatmul e2m1 x e2m1 -> f32, VEC16_UE4M3 "
                          "scales, alpha 0.3 (tensor scale), TN, split-K 1",
                          "nvfp4", "TN", "ulp", kBlackwell,
                          "model D times alpha in one f32 RNE multiply, within "
                          "1 ULP (where alpha is applied is not "
                          "documented)");
  na.header.kv["alpha"] = "0.3";
  na.header.kv["ulp"] = "1";
  v.push_back(na);
  const struct {
    const char* format;
    const char* modes;
  } hopper[] = {{"fp8-vec128x1d2d", "VEC128_32F (A) x BLK128x128_32F (B)"},
                {"fp8-vec128x1d1d", "VEC128_32F (A) x VEC128_32F (B)"},
                {"fp8-blk128x128", "BLK128x128_32F (A) x BLK128x128_32F (B)"}};
  for (const auto& h : hopper) {
    v.push_back(gemm_family(
        fmt::format("cublaslt.fp8.{}.tn.bound",
                    std::string(h.format).substr(4)),
        fmt::format(
            "cublasLtMatmul e4m3 x e4m3 -> f32, {} scales, TN, split-K 1",
            h.modes),
        h.format, "TN", "bound-exact", kHopperBlock,
        "no published model of how the library promotes partial sums: compared "
        "with the exact "
        "dot of the scaled operands under the documented relative bound"));
  }
  v.push_back(gemm_family("cublaslt.mxfp8.tn.anyalgo",
                          "cublasLtMatmul e4m3 x e4m3 -> f32, VEC32_UE8M0 "
                          "scales, TN, the heuristic's first algorithm "
                          "(any split-K / reduction)",
                          "mxfp8", "TN", "bound-model", kBlackwell,
                          "any algorithm: within the documented bound of the "
                          "composed model; max ULP distance "
                          "reported"));
  v.push_back(gemm_family("cublaslt.fp8.tn.anyalgo",
                          "cublasLtMatmul e4m3 x e4m3 -> f32, scalar scales, "
                          "TN, fast accumulation, the heuristic's "
                          "first algorithm",
                          "fp8-tensor", "TN", "bound-model", kFp8,
                          "any algorithm: within the documented bound of the "
                          "composed model; max ULP distance "
                          "reported"));
}

}  // namespace mxc::gpu
