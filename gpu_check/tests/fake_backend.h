// TEST ONLY. A backend that computes every instruction with the emulator
// and can inject one kind of fault, so the CPU tests can check that the
// harness catches and classifies each. Never linked into mxc-gpu: it can
// never be used to claim conformance (DeviceInfo::fake is set, and the
// runner prints [FAKE TEST BACKEND]).
#pragma once

#include "gpu_check/host/backend.h"
#include "gpu_check/host/instr.h"

namespace mxc::gpu::test {

enum class Fault {
  kNone,
  kBitFlip,      // one result (index fault_index) gets bit flip_bit flipped
  kScaleSwap,    // MMA: A and B block scales exchanged
  kNibbleOrder,  // x2 conversions: the two results of every pair swapped
  kCudaError,    // every call throws BackendError
  // cuBLASLt (cublaslt_gemm), each a GemmReading of the images:
  kGemmTransposeA,    // A read with the other transpose
  kGemmScaleLayout,   // 128x4 scale tiles read as plain [row][k-block]
  kGemmAlpha,         // alpha ignored
  // (kScaleSwap also swaps the GEMM's A and B scales; kBitFlip flips
  // element fault_index of every D)
};

class FakeBackend : public Backend {
 public:
  bool present = true;
  int cc = 120;
  unsigned features = kFeatFp8Cvt | kFeatF6F4Cvt | kFeatMmaFp8 | kFeatMmaSm120 | kFeatIntrinsics;
  Fault fault = Fault::kNone;
  size_t fault_index = 5;
  int flip_bit = 6;
  bool flipped = false;  // the bit flip is injected once per backend
  // cuBLASLt: layouts the fake library "supports" per format (others get
  // the heuristic's NOT_SUPPORTED), and M must be a multiple of 4 (f32 D
  // columns 16-byte aligned), as a stand-in for the library's rules.
  bool nvfp4_tn_only = true;
  // Several fake devices (mxc-gpu run --devices): device_count, and the
  // fault of each opened device (missing entries: `fault`).
  int devices = 1;
  std::vector<Fault> device_faults;
  int index = 0;
  std::vector<int>* opened = nullptr;  // records open_device calls (tests)

  DeviceInfo probe() override;
  void convert(const Family& f, std::span<const uint32_t> in0, std::span<const uint32_t> in1,
               std::span<const uint32_t> rbits, std::span<uint32_t> out) override;
  void mma(const Family& f, const MmaBatch& b, std::vector<uint32_t>& d) override;
  std::vector<SupportEntry> cublaslt_support() override;
  bool cublaslt_gemm(const GemmCase& c, std::vector<uint64_t>& d, std::string& why) override;
  int device_count() override { return present ? devices : 0; }
  std::unique_ptr<Backend> open_device(int i) override;
};

}  // namespace mxc::gpu::test
