#include "gpu_check/tests/fake_backend.h"

#include "conformance/vectors/op.h"
#include "emu/mma/gemm.h"
#include "gpu_check/host/replay.h"

namespace mxc::gpu::test {

DeviceInfo FakeBackend::probe() {
  DeviceInfo d;
  d.present = present;
  if (!present) {
    d.why = "fake backend: no device";
    return d;
  }
  d.name = "fake emulator device";
  d.cc = cc;
  d.features = features;
  d.driver = d.runtime = d.cublaslt = "fake";
  d.fake = true;
  return d;
}

void FakeBackend::convert(const Family& f, std::span<const uint32_t> in0,
                          std::span<const uint32_t> in1, std::span<const uint32_t> rbits,
                          std::span<uint32_t> out) {
  if (fault == Fault::kCudaError) throw BackendError("fake: cudaErrorIllegalInstruction");
  const auto op = vec::make_op(family_header(f, 1, 1));
  const bool sr = f.slots == Slots::kRsX4 || f.slots == Slots::kRsX2;
  auto eval = [&](uint32_t x, uint32_t r) {
    std::vector<uint64_t> in = {x};
    if (sr) in.push_back(r);
    return static_cast<uint32_t>(op->expected(in)[0]);
  };
  for (size_t j = 0; j < out.size(); ++j) {
    uint32_t lo = 0, hi = 0;
    bool pair = true;
    switch (f.slots) {
      case Slots::kPairAB: lo = in1[j]; hi = in0[j]; break;
      case Slots::kPairXY: lo = in0[j]; hi = in1[j]; break;
      case Slots::kPairPacked: {
        const uint32_t m = f.src_shift >= 32 ? ~0u : (1u << f.src_shift) - 1;
        lo = in0[j] & m;
        hi = (in0[j] >> f.src_shift) & m;
        break;
      }
      default: pair = false;
    }
    uint32_t w = 0;
    if (pair) {
      uint32_t zl = eval(lo, 0), zh = eval(hi, 0);
      if (fault == Fault::kNibbleOrder) std::swap(zl, zh);
      if (fault == Fault::kBitFlip && !flipped && j == fault_index / 2) {
        (fault_index % 2 ? zh : zl) ^= 1u << flip_bit;
        flipped = true;
      }
      w = (zl & f.dst_mask) | ((zh & f.dst_mask) << f.dst_shift);
    } else {
      const int slots = f.slots == Slots::kRsX4 ? 4 : f.slots == Slots::kRsX2 ? 2 : 1;
      const uint32_t r = f.slots == Slots::kRsX4 ? rbits[j] & 0xFF : rbits[j] & 0xFFFF;
      uint32_t z = eval(in0[j], r) & f.dst_mask;
      if (fault == Fault::kBitFlip && !flipped && j == fault_index) {
        z ^= 1u << flip_bit;
        flipped = true;
      }
      for (int s = 0; s < slots; ++s) w |= z << (s * f.dst_shift);
    }
    out[j] = w;
  }
}

void FakeBackend::mma(const Family& f, const MmaBatch& b, std::vector<uint32_t>& d) {
  if (fault == Fault::kCudaError) throw BackendError("fake: cudaErrorIllegalInstruction");
  const auto op = vec::make_op(family_header(f, 1, 1));
  MmaBatch swapped;
  const MmaBatch* src = &b;
  if (fault == Fault::kScaleSwap && f.scale_vec) {
    swapped = b;  // the scale registers exchanged, as a wrong operand order would
    std::swap(swapped.sfa, swapped.sfb);
    src = &swapped;
  }
  d.assign(b.tiles * 128, 0);
  for (size_t t = 0; t < b.tiles; ++t) {
    std::vector<uint32_t> tile(128);
    for (int m = 0; m < 16; ++m) {
      for (int n = 0; n < 8; ++n) {
        const auto in = mma_output_case(f, *src, t, m, n);
        uint32_t z = static_cast<uint32_t>(op->expected(in)[0]);
        if (fault == Fault::kBitFlip && !flipped &&
            t * 128 + static_cast<size_t>(m * 8 + n) == fault_index) {
          z ^= 1u << flip_bit;
          flipped = true;
        }
        tile[static_cast<size_t>(m * 8 + n)] = z;
      }
    }
    const auto packed = pack_c(tile);
    std::copy(packed.begin(), packed.end(), d.begin() + static_cast<long>(t * 128));
  }
}

std::vector<SupportEntry> FakeBackend::cublaslt_support() {
  return {{"mxfp8", "TN", "f32", true, "fake"}, {"mxfp8", "NN", "f32", false, "fake"}};
}

bool FakeBackend::cublaslt_gemm(const GemmCase& c, std::vector<uint64_t>& d, std::string& why) {
  if (fault == Fault::kCudaError) throw BackendError("fake: cudaErrorIllegalInstruction");
  Family f;
  f.instr = c.format == "mxfp8" ? 0 : 1;
  const MmaModel* m = gemm_model(f, cc);
  if (!m) {
    why = "fake: no model";
    return false;
  }
  d = gemm(*m, c.p);
  if (fault == Fault::kBitFlip && fault_index < d.size()) d[fault_index] ^= uint64_t{1} << flip_bit;
  return true;
}

}  // namespace mxc::gpu::test
