#include "gpu_check/device/cuda_backend.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "gpu_check/device/kernels.h"
#include "gpu_check/host/instr.h"
#include "gpu_check/host/tcgen05.h"
#include "gpu_check/host/wgmma.h"

namespace mxc::gpu {
namespace {

[[noreturn]] void fail(const char* what, int err) {
  const auto e = static_cast<cudaError_t>(err);
  throw BackendError(fmt::format("{}: {} ({})", what, cudaGetErrorName(e),
                                 cudaGetErrorString(e)));
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(what, static_cast<int>(e));
}

// A device buffer of 32-bit words.
class Buf {
 public:
  explicit Buf(size_t n) : n_(n) {
    if (n) check(cudaMalloc(&p_, n * sizeof(uint32_t)), "cudaMalloc");
  }
  Buf(std::span<const uint32_t> h) : Buf(h.size()) {
    if (n_)
      check(cudaMemcpy(p_, h.data(), n_ * sizeof(uint32_t),
                       cudaMemcpyHostToDevice),
            "cudaMemcpy H2D");
  }
  ~Buf() {
    if (p_) cudaFree(p_);
  }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  uint32_t* get() const { return static_cast<uint32_t*>(p_); }
  void to_host(std::span<uint32_t> h) const {
    check(cudaMemcpy(h.data(), p_, h.size() * sizeof(uint32_t),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy D2H");
  }

 private:
  void* p_ = nullptr;
  size_t n_;
};

std::string version_text(int v) {
  return fmt::format("{}.{}", v / 1000, v % 1000 / 10);
}

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi -L prints it.
std::string uuid_text(const cudaUUID_t& u) {
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", static_cast<unsigned char>(u.bytes[i]));
  }
  return s;
}

// Every call binds the calling thread to this backend's device first, so
// one backend per device, each driven by its own host thread, runs its
// kernels on its own device's stream (mxc-gpu run --devices).
class CudaBackend : public Backend {
 public:
  explicit CudaBackend(int device = 0) : dev_(device) {}

  int device_count() override {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
  }
  std::unique_ptr<Backend> open_device(int i) override {
    return std::make_unique<CudaBackend>(i);
  }

  DeviceInfo probe() override {
    DeviceInfo d;
    d.index = dev_;
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      d.why = fmt::format("cudaGetDeviceCount: {} ({})", cudaGetErrorName(e),
                          cudaGetErrorString(e));
      return d;
    }
    if (n == 0) {
      d.why = "cudaGetDeviceCount reports 0 devices";
      return d;
    }
    if (dev_ >= n) {
      d.why = fmt::format("device {} does not exist ({} visible)", dev_, n);
      return d;
    }
    bind();
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, dev_), "cudaGetDeviceProperties");
    d.present = true;
    d.name = p.name;
    d.uuid = uuid_text(p.uuid);
    d.pci_bus_id = fmt::format("{:04x}:{:02x}:{:02x}.0", p.pciDomainID, p.pciBusID,
                               p.pciDeviceID);
    d.cc = p.major * 10 + p.minor;
    int dv = 0, rv = 0;
    cudaDriverGetVersion(&dv);
    cudaRuntimeGetVersion(&rv);
    d.driver = version_text(dv);
    d.runtime = version_text(rv);
    d.cublaslt = cublaslt_description();
    Buf f(1);
    const int le = dev::launch_probe(f.get());
    if (le != 0) {
      d.features = 0;  // no kernel image for this device: every family skips
      d.why = fmt::format("probe kernel: {}",
                          cudaGetErrorString(static_cast<cudaError_t>(le)));
      cudaGetLastError();
      return d;
    }
    check(cudaDeviceSynchronize(), "probe kernel");
    uint32_t feat = 0;
    f.to_host(std::span(&feat, 1));
    d.features = feat;
    return d;
  }

  void convert(const Family& fam, std::span<const uint32_t> in0,
               std::span<const uint32_t> in1, std::span<const uint32_t> rbits,
               std::span<uint32_t> out) override {
    bind();
    Buf a(in0), b(in1), r(rbits), o(out.size());
    const int e = dev::launch_convert(fam.instr, a.get(), b.get(), r.get(),
                                      o.get(), out.size());
    if (e) fail("convert kernel launch", e);
    check(cudaDeviceSynchronize(), "convert kernel");
    o.to_host(out);
  }

  void mma(const Family& fam, const MmaBatch& bt,
           std::vector<uint32_t>& d) override {
    bind();
    if (fam.engine == MmaEngine::kWgmma) {
      wgmma(fam, bt, d);
      return;
    }
    if (fam.engine == MmaEngine::kTcgen05) {
      tcgen05(fam, bt, d);
      return;
    }
    if (fam.f16_acc) {
      // Two .f16x2 C/D registers per lane (host/fragments.h).
      const std::vector<uint32_t> c16 = mma_c_to_f16x2(bt.c, bt.tiles);
      Buf a(bt.a), b(bt.b), c(c16), o(c16.size());
      const int e = dev::launch_mma_f16acc(fam.instr, a.get(), b.get(), c.get(),
                                           o.get(), bt.tiles);
      if (e) fail("mma (f16 accumulator) kernel launch", e);
      check(cudaDeviceSynchronize(), "mma (f16 accumulator) kernel");
      std::vector<uint32_t> regs(c16.size());
      o.to_host(regs);
      d = mma_d_from_f16x2(regs, bt.tiles);
      return;
    }
    Buf a(bt.a), b(bt.b), c(bt.c), sa(bt.sfa), sb(bt.sfb), o(bt.tiles * 128);
    const int e =
        dev::launch_mma(fam.instr, a.get(), b.get(), c.get(),
                        bt.sfa.empty() ? nullptr : sa.get(),
                        bt.sfb.empty() ? nullptr : sb.get(), o.get(), bt.tiles);
    if (e) fail("mma kernel launch", e);
    check(cudaDeviceSynchronize(), "mma kernel");
    d.resize(bt.tiles * 128);
    o.to_host(d);
  }

  // One m64n8k32 (FP8) or m64n8k8 (TF32) wgmma per tile on images built
  // by host/wgmma.h.
  void wgmma(const Family& fam, const MmaBatch& bt, std::vector<uint32_t>& d) {
    const WgmmaImages im = fam.shape == FragShape::kM16N8K8x32 ? wgmma_images_tf32(bt)
                                                               : wgmma_images(bt, fam.f16_acc);
    Buf a(im.a), b(im.b), c(im.c), o(im.c.size());
    const int e =
        dev::launch_wgmma(fam.instr, a.get(), b.get(), c.get(), o.get(),
                          im.c_regs, kWgmmaLbo, kWgmmaSbo, bt.tiles);
    if (e) fail("wgmma kernel launch", e);
    check(cudaDeviceSynchronize(), "wgmma kernel");
    std::vector<uint32_t> regs(im.c.size());
    o.to_host(regs);
    d = wgmma_fold_d(regs, bt.tiles, fam.f16_acc);
  }

  // One tcgen05.mma (M=128, N=16) per tile on images built by host/tcgen05.h;
  // the operand types, D type and scale type travel in the instruction
  // descriptor (tcgen05_config), the kind in the kernel instantiation.
  void tcgen05(const Family& fam, const MmaBatch& bt,
               std::vector<uint32_t>& d) {
    const Tc05Config cfg = tcgen05_config(fam);
    const Tc05Images im = tcgen05_images(bt, fam);
    Buf a(im.a), b(im.b), c(im.c), sa(im.sfa), sb(im.sfb), o(im.c.size());
    const int e = dev::launch_tcgen05(fam.instr, a.get(), b.get(), c.get(),
                                      sa.get(), sb.get(), o.get(), cfg.idesc,
                                      kWgmmaLbo, kWgmmaSbo, bt.tiles);
    if (e) fail("tcgen05 kernel launch", e);
    check(cudaDeviceSynchronize(), "tcgen05 kernel");
    std::vector<uint32_t> regs(im.c.size());
    o.to_host(regs);
    d = tcgen05_fold_d(regs, bt.tiles, cfg.f16_d);
  }

  std::vector<SupportEntry> cublaslt_support() override {
    bind();
    return cublaslt_probe_matrix();
  }

  bool cublaslt_gemm(const GemmCase& c, std::vector<uint64_t>& d,
                     std::string& why) override {
    bind();
    return cublaslt_run(c, d, why);
  }

  bool libraries(std::string& text) override {
    const std::string lt = cublaslt_description();
    text = "cuBLASLt: " + lt + "\n";
    if (const std::string why = cublaslt_unavailable(); !why.empty()) {
      text += why + "\n";
      return false;
    }
    return true;
  }

  void hang() override {
    bind();
    Buf f(1);
    check(cudaMemset(f.get(), 0, sizeof(uint32_t)), "cudaMemset");
    const int e = dev::launch_hang(f.get());
    if (e) fail("hang kernel launch", e);
    check(cudaDeviceSynchronize(), "hang kernel");
  }

 private:
  void bind() { check(cudaSetDevice(dev_), "cudaSetDevice"); }
  int dev_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() {
  return std::make_unique<CudaBackend>();
}

}  // namespace mxc::gpu
