// cuBLASLt, found at run time rather than linked (issue 26): the device kit
// carries no cuBLASLt and must run on a machine whose cuBLASLt is missing,
// elsewhere, or of another major version. Without one, the cuBLASLt phase
// is skipped with the reason (DeviceInfo::cublaslt) and every other phase
// runs.
#pragma once

#include <cublasLt.h>

#include <string>
#include <vector>

namespace mxc::gpu {

// The entry points gpu_check/device/cublaslt.cpp calls, resolved by dlsym.
struct LtApi {
  decltype(&cublasLtCreate) Create = nullptr;
  decltype(&cublasLtDestroy) Destroy = nullptr;
  decltype(&cublasLtGetStatusName) GetStatusName = nullptr;
  decltype(&cublasLtGetVersion) GetVersion = nullptr;
  decltype(&cublasLtMatmul) Matmul = nullptr;
  decltype(&cublasLtMatmulAlgoCheck) MatmulAlgoCheck = nullptr;
  decltype(&cublasLtMatmulAlgoConfigGetAttribute) AlgoConfigGetAttribute =
      nullptr;
  decltype(&cublasLtMatmulAlgoConfigSetAttribute) AlgoConfigSetAttribute =
      nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) MatmulAlgoGetHeuristic = nullptr;
  decltype(&cublasLtMatmulDescCreate) MatmulDescCreate = nullptr;
  decltype(&cublasLtMatmulDescDestroy) MatmulDescDestroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) MatmulDescSetAttribute = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) PreferenceCreate = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) PreferenceDestroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) PreferenceSetAttribute =
      nullptr;
  decltype(&cublasLtMatrixLayoutCreate) MatrixLayoutCreate = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) MatrixLayoutDestroy = nullptr;

  bool loaded = false;
  std::string path;  // the file dlopen loaded
  std::string why;   // when !loaded: every place tried and what failed
};

// The candidates, in order (cublaslt_loader.cpp): $MXC_CUBLASLT alone when
// set (a file path: a wrong one is reported, not replaced), else
// libcublasLt.so.<major this was built with> through the loader's own
// search (LD_LIBRARY_PATH, ld.so.cache), then the same name in each folder
// of $MXC_CUBLASLT_DIRS (':'-separated; run-device-check.sh puts the
// nvidia-cublas Python package's lib folder there) and in /usr/local/cuda's
// library folders, then the other major versions.
std::vector<std::string> cublaslt_candidates();

// Loads once (thread-safe); later calls return the same result.
const LtApi& cublaslt_api();

}  // namespace mxc::gpu
