// cuBLASLt: the support-matrix probe (one heuristic query per format x
// layout x output type) and GEMM runs for the comparison with the composed
// model. Layout naming as emu/mma/gemm.h (cuBLAS, column-major). Operand
// and scale images come from host/replay.h gemm_images (FP4 packed two per
// byte, 1D block scales in the 128x4 tiles, FP32 block scales [k-block][row]).
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cstring>

#include "gpu_check/device/cublaslt_loader.h"
#include "gpu_check/device/cuda_backend.h"
#include "gpu_check/host/replay.h"

namespace mxc::gpu {
namespace {

// Every call below goes through the library found at run time
// (cublaslt_loader.h); callers check cublaslt_api().loaded first.
const LtApi& api() { return cublaslt_api(); }

struct Lt {
  cublasLtHandle_t h = nullptr;
  Lt() {
    if (api().Create(&h) != CUBLAS_STATUS_SUCCESS) h = nullptr;
  }
  ~Lt() {
    if (h) api().Destroy(h);
  }
};

struct DevMem {
  void* p = nullptr;
  explicit DevMem(size_t bytes) {
    if (bytes && cudaMalloc(&p, bytes) != cudaSuccess) {
      p = nullptr;
      throw BackendError(fmt::format("cudaMalloc of {} bytes failed", bytes));
    }
  }
  ~DevMem() {
    if (p) cudaFree(p);
  }
  DevMem(const DevMem&) = delete;
  DevMem& operator=(const DevMem&) = delete;
};

struct Format {
  const char* name;
  cudaDataType_t ab;
  int a_mode, b_mode;  // cublasLtMatmulMatrixScale_t, -1: no scale pointer
};

const Format kFormats[] = {
    {"fp8-tensor", CUDA_R_8F_E4M3, CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F,
     CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F},
    {"fp8-vec128x1d2d", CUDA_R_8F_E4M3, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F,
     CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F},
    {"fp8-vec128x1d1d", CUDA_R_8F_E4M3, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F,
     CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F},
    {"fp8-blk128x128", CUDA_R_8F_E4M3,
     CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F,
     CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F},
    {"mxfp8", CUDA_R_8F_E4M3, CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0,
     CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0},
    {"nvfp4", CUDA_R_4F_E2M1, CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3,
     CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3},
};

std::string status_text(cublasStatus_t s) {
  return fmt::format("{} ({})", api().GetStatusName(s), static_cast<int>(s));
}

// Everything one matmul needs besides data pointers.
struct Plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  ~Plan() {
    if (op) api().MatmulDescDestroy(op);
    for (auto* l : {a, b, c, d})
      if (l) api().MatrixLayoutDestroy(l);
  }
};

cublasStatus_t make_plan(Plan& p, const Format& f, bool ta, bool tb,
                         cudaDataType_t out, int M, int N, int K,
                         const void* sa, const void* sb, bool fast_accum) {
  cublasStatus_t s =
      api().MatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  if (s) return s;
  const cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                          ob = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  api().MatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &oa,
                               sizeof(oa));
  api().MatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &ob,
                               sizeof(ob));
  const int32_t am = f.a_mode, bm = f.b_mode;
  if ((s = api().MatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE,
                                        &am, sizeof(am))))
    return s;
  if ((s = api().MatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
                                        &bm, sizeof(bm))))
    return s;
  api().MatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa,
                               sizeof(sa));
  api().MatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb,
                               sizeof(sb));
  const int8_t fa = fast_accum ? 1 : 0;
  api().MatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fa,
                               sizeof(fa));
  // Stored shapes (column-major): op(A) = T stores A as K x M.
  if ((s = api().MatrixLayoutCreate(&p.a, f.ab, ta ? K : M, ta ? M : K,
                                    ta ? K : M)))
    return s;
  if ((s = api().MatrixLayoutCreate(&p.b, f.ab, tb ? N : K, tb ? K : N,
                                    tb ? N : K)))
    return s;
  const cudaDataType_t ct = out == CUDA_R_32F ? CUDA_R_32F : out;
  if ((s = api().MatrixLayoutCreate(&p.c, ct, M, N, M))) return s;
  return api().MatrixLayoutCreate(&p.d, out, M, N, M);
}

}  // namespace

std::string cublaslt_description() {
  const LtApi& a = api();
  if (!a.loaded) return "not loaded";
  const size_t v = a.GetVersion();
  return fmt::format("{}.{}.{} ({})", v / 10000, v % 10000 / 100, v % 100,
                     a.path);
}

std::string cublaslt_unavailable() {
  const LtApi& a = api();
  return a.loaded ? std::string() : "cuBLASLt not loaded: " + a.why;
}

std::vector<SupportEntry> cublaslt_probe_matrix() {
  std::vector<SupportEntry> m;
  if (!api().loaded) {
    m.push_back({"*", "*", "*", false, cublaslt_unavailable()});
    return m;
  }
  Lt lt;
  if (!lt.h) {
    m.push_back({"*", "*", "*", false, "cublasLtCreate failed"});
    return m;
  }
  DevMem scales(1 << 20);
  cublasLtMatmulPreference_t pref = nullptr;
  api().PreferenceCreate(&pref);
  const size_t ws = size_t{64} << 20;
  api().PreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                               &ws, sizeof(ws));
  const struct {
    const char* name;
    cudaDataType_t t;
  } outs[] = {{"f32", CUDA_R_32F}, {"bf16", CUDA_R_16BF}, {"f16", CUDA_R_16F}};
  const char* layouts[] = {"TN", "NN", "NT", "TT"};
  for (const Format& f : kFormats) {
    for (const char* l : layouts) {
      for (const auto& o : outs) {
        SupportEntry e{f.name, l, o.name, false, ""};
        Plan p;
        const int M = 256, N = 256, K = 256;
        cublasStatus_t s = make_plan(p, f, l[0] == 'T', l[1] == 'T', o.t, M, N,
                                     K, scales.p, scales.p, false);
        if (s) {
          e.detail = "descriptor: " + status_text(s);
        } else {
          cublasLtMatmulHeuristicResult_t res[8];
          int n = 0;
          s = api().MatmulAlgoGetHeuristic(lt.h, p.op, p.a, p.b, p.c, p.d, pref,
                                           8, res, &n);
          e.supported = s == CUBLAS_STATUS_SUCCESS && n > 0;
          e.detail = s ? "heuristic: " + status_text(s)
                       : fmt::format("{} algorithms", n);
        }
        m.push_back(e);
      }
    }
  }
  api().PreferenceDestroy(pref);
  return m;
}

namespace {

const Format* find_format(const std::string& name) {
  for (const Format& f : kFormats)
    if (name == f.name) return &f;
  return nullptr;
}

// "algo 21 tile 18 split-K 1 reduction 0" for the report.
std::string algo_text(const cublasLtMatmulAlgo_t& a) {
  int32_t id = -1, split = -1;
  uint32_t tile = 0, red = 0;
  size_t w = 0;
  api().AlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof(id),
                               &w);
  api().AlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile,
                               sizeof(tile), &w);
  api().AlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split,
                               sizeof(split), &w);
  api().AlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red,
                               sizeof(red), &w);
  return fmt::format("algo {} tile {} split-K {} reduction {}", id, tile, split,
                     red);
}

}  // namespace

bool cublaslt_run(const GemmCase& gc, std::vector<uint64_t>& dout,
                  std::string& why) {
  const GemmProblem& p = gc.p;
  const Format* f = find_format(gc.format);
  if (!f) {
    why = "unknown cuBLASLt format " + gc.format;
    return false;
  }
  if (!api().loaded) {
    why = cublaslt_unavailable();
    return false;
  }
  Lt lt;
  if (!lt.h) {
    why = "cublasLtCreate failed";
    return false;
  }
  const int M = p.M, N = p.N, K = p.K;
  // cuBLAS naming (emu/mma/gemm.h): op(A) = T for TN and TT, op(B) = T for
  // NT and TT; make_plan derives the stored shapes and leading dimensions.
  const bool ta = p.layout == GemmLayout::kTN || p.layout == GemmLayout::kTT;
  const bool tb = p.layout == GemmLayout::kNT || p.layout == GemmLayout::kTT;
  const GemmImages im = gemm_images(gc);  // packed operands, scale tensors
  DevMem da(im.a.size()), db(im.b.size()), dsa(im.sa.size()), dsb(im.sb.size()),
      dd(static_cast<size_t>(M) * N * 4), ws(size_t{64} << 20);
  auto up = [](DevMem& m, const std::vector<uint8_t>& v) {
    if (cudaMemcpy(m.p, v.data(), v.size(), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      throw BackendError("cudaMemcpy to cuBLASLt operands failed");
  };
  up(da, im.a);
  up(db, im.b);
  up(dsa, im.sa);
  up(dsb, im.sb);
  cudaMemset(dd.p, 0, static_cast<size_t>(M) * N * 4);
  Plan plan;
  const bool fast =
      gc.fast_accum && f->a_mode == CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  cublasStatus_t s =
      make_plan(plan, *f, ta, tb, CUDA_R_32F, M, N, K, dsa.p, dsb.p, fast);
  if (s) {
    why = "descriptor: " + status_text(s);
    return false;
  }
  cublasLtMatmulPreference_t pref = nullptr;
  api().PreferenceCreate(&pref);
  const size_t wsb = size_t{64} << 20;
  api().PreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                               &wsb, sizeof(wsb));
  cublasLtMatmulHeuristicResult_t res[16];
  int n = 0;
  s = api().MatmulAlgoGetHeuristic(lt.h, plan.op, plan.a, plan.b, plan.c,
                                   plan.d, pref, 16, res, &n);
  api().PreferenceDestroy(pref);
  if (s || n == 0) {
    why = s ? "heuristic: " + status_text(s)
            : "heuristic: no algorithm for this problem";
    return false;
  }
  // Deterministic: split-K 1, no reduction scheme (docs/models.md); else
  // the heuristic's first algorithm as it comes ("any algorithm").
  const cublasLtMatmulAlgo_t* chosen = nullptr;
  cublasLtMatmulAlgo_t algo;
  for (int i = 0; i < n && !chosen; ++i) {
    algo = res[i].algo;
    if (gc.deterministic) {
      const int32_t split = 1;
      const uint32_t red = CUBLASLT_REDUCTION_SCHEME_NONE;
      api().AlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                                   &split, sizeof(split));
      api().AlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
                                   &red, sizeof(red));
      cublasLtMatmulHeuristicResult_t chk{};
      if (api().MatmulAlgoCheck(lt.h, plan.op, plan.a, plan.b, plan.c, plan.d,
                                &algo, &chk) != CUBLAS_STATUS_SUCCESS)
        continue;
    }
    chosen = &algo;
  }
  if (!chosen) {
    why = "no heuristic algorithm accepts split-K 1 with reduction NONE";
    return false;
  }
  const float alpha = gc.alpha, beta = 0.0f;
  s = api().Matmul(lt.h, plan.op, &alpha, da.p, plan.a, db.p, plan.b, &beta,
                   dd.p, plan.c, dd.p, plan.d, chosen, ws.p, wsb, nullptr);
  if (s) {
    why = "cublasLtMatmul: " + status_text(s);
    return false;
  }
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess)
    throw BackendError(
        fmt::format("cublasLtMatmul: {}", cudaGetErrorString(e)));
  std::vector<uint32_t> d(static_cast<size_t>(M) * N);
  if (cudaMemcpy(d.data(), dd.p, d.size() * 4, cudaMemcpyDeviceToHost) !=
      cudaSuccess)
    throw BackendError("cudaMemcpy of the cuBLASLt result failed");
  dout.assign(d.begin(), d.end());
  why = algo_text(*chosen);
  return true;
}

}  // namespace mxc::gpu
