// What the runner needs from a device: the CUDA backend (gpu_check/device)
// runs the instructions; the test-only fake backend (gpu_check/tests)
// computes them with the emulator and injects faults. The fake is never
// linked into mxc-gpu, so it can never be used to claim conformance.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "emu/mma/gemm.h"
#include "gpu_check/host/families.h"

namespace mxc::gpu {

struct DeviceInfo {
  bool present = false;
  std::string why;        // when absent: the CUDA error or "0 devices"
  std::string name;       // "NVIDIA H200"
  int cc = 0;             // 90 for 9.0, 120 for 12.0
  unsigned features = 0;  // Feature bits of the SASS that runs (probe kernel)
  std::string driver, runtime, cublaslt;
  bool fake = false;      // the test backend
  int index = 0;          // CUDA device ordinal (as CUDA_VISIBLE_DEVICES maps it)
  std::string uuid;       // "GPU-8c1e...": names the part in a report
  std::string pci_bus_id; // "0000:17:00.0"
};

// A device-side failure: the CUDA error text. The runner adds the family
// and case index.
class BackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A batch of MMA tiles, lane-packed as host/fragments.h produces them.
struct MmaBatch {
  size_t tiles = 0;
  std::vector<uint32_t> a, b, c;  // tiles * 32 * {a_regs, b_regs, 4}
  std::vector<uint32_t> sfa, sfb; // tiles * 32 (empty without scales)
};

// cuBLASLt support-matrix entry.
struct SupportEntry {
  std::string format;   // "fp8-tensor", "fp8-vec128x1d2d", "fp8-vec128x1d1d", "fp8-blk128x128", "mxfp8", "nvfp4"
  std::string layout;   // TN (forward), NN (dgrad), NT (wgrad), TT
  std::string out;      // f32, bf16, f16
  bool supported = false;
  std::string detail;   // heuristic status / algorithm count / error
};

// One GEMM for cuBLASLt: D = alpha * op(A) op(B) (beta = 0), D f32.
// p.A, p.B: one code per element as stored per p.layout (FP4 unpacked; the
// backend packs). p.SA / p.SB: plain scales, the backend lays them out as
// the library needs (host/replay.h gemm_images):
//   mxfp8 / nvfp4: UE8M0 / UE4M3 codes [row or column][k-block];
//   fp8-vec128*: f32 bit patterns [row][K/128];
//   BLK128x128 operands: f32 bit patterns [row / 128][K/128];
//   fp8-tensor: empty (tensor scales 1.0).
struct GemmCase {
  std::string format;  // host/replay.h gemm_format names
  GemmProblem p;
  float alpha = 1.0f;
  bool deterministic = true;  // split-K 1, reduction NONE; else the heuristic's first algorithm
  bool fast_accum = true;     // CUBLASLT_MATMUL_DESC_FAST_ACCUM (FP8 tensor-scale only)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual DeviceInfo probe() = 0;
  // out[j] = the instruction on operands (in0[j], in1[j], rbits[j]).
  virtual void convert(const Family& f, std::span<const uint32_t> in0,
                       std::span<const uint32_t> in1,
                       std::span<const uint32_t> rbits,
                       std::span<uint32_t> out) = 0;
  // d: tiles * 32 * 4 accumulator registers.
  virtual void mma(const Family& f, const MmaBatch& b,
                   std::vector<uint32_t>& d) = 0;
  virtual std::vector<SupportEntry> cublaslt_support() { return {}; }
  // D (M x N column-major f32 bits); false + why when it cannot run. On
  // success `why` describes the algorithm that ran (id, tile, split-K).
  virtual bool cublaslt_gemm(const GemmCase&, std::vector<uint64_t>& d,
                             std::string& why) {
    d.clear();
    why = "cuBLASLt not available in this backend";
    return false;
  }
  // `mxc-gpu libs`: the run-time libraries this backend found or did not
  // (the CUDA backend: cuBLASLt and every place it looked); true when every
  // library the backend can use was found.
  virtual bool libraries(std::string& text) {
    text = "no run-time libraries (this backend links everything it uses)\n";
    return true;
  }
  // Launches a kernel that never finishes (watchdog self-test).
  virtual void hang() {}
  // Several devices (mxc-gpu run --devices): how many there are, and a
  // backend bound to device i, used by one host thread only (CUDA: every
  // call runs on that device, its kernels on that device's own stream).
  // This backend itself is device 0; nullptr: it drives one device only.
  virtual int device_count() { return 1; }
  virtual std::unique_ptr<Backend> open_device(int /*i*/) { return nullptr; }
};

}  // namespace mxc::gpu
