// mxc-gpu: the CUDA conformance harness (docs/gpu-check.md).
#include "gpu_check/device/cuda_backend.h"
#include "gpu_check/host/runner.h"

int main(int argc, char** argv) {
  auto backend = mxc::gpu::make_cuda_backend();
  return mxc::gpu::main_cli(argc, argv, *backend);
}
