// The real backend: CUDA runtime + the kernels + cuBLASLt.
#pragma once

#include <memory>

#include "gpu_check/host/backend.h"

namespace mxc::gpu {

std::unique_ptr<Backend> make_cuda_backend();

// cuBLASLt pieces (gpu_check/device/cublaslt.cpp).
std::vector<SupportEntry> cublaslt_probe_matrix();
bool cublaslt_run(const GemmCase& c, std::vector<uint64_t>& d, std::string& why);
// "13.1.0 (libcublasLt.so.13)", or "not loaded".
std::string cublaslt_description();
// Empty when cuBLASLt is loaded, else "cuBLASLt not loaded: <every place
// tried>".
std::string cublaslt_unavailable();

}  // namespace mxc::gpu
