#include "gpu_check/tests/fake_backend.h"

#include <fmt/format.h>

#include <bit>

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
  d.index = index;
  d.uuid = fmt::format("GPU-fake0000-0000-0000-0000-{:012x}", index);
  d.pci_bus_id = fmt::format("0000:{:02x}:00.0", 0x17 + index);
  return d;
}

std::unique_ptr<Backend> FakeBackend::open_device(int i) {
  auto b = std::make_unique<FakeBackend>(*this);
  b->index = i;
  b->flipped = false;
  if (static_cast<size_t>(i) < device_faults.size()) b->fault = device_faults[static_cast<size_t>(i)];
  if (opened) opened->push_back(i);
  return b;
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
  // mma.sync with an f16 accumulator: C travels to the "device" as the
  // .f16x2 registers the CUDA backend sends (host/fragments.h), and D comes
  // back through the same registers, so the conversion is on the path the
  // runner tests take.
  const bool f16x2 = f.engine == MmaEngine::kSync && f.f16_acc;
  if (f16x2) {
    swapped = b;
    swapped.c = mma_d_from_f16x2(mma_c_to_f16x2(b.c, b.tiles), b.tiles);
    src = &swapped;
  }
  if (fault == Fault::kScaleSwap && f.scale_vec) {
    if (!f16x2) swapped = b;  // the scale registers exchanged, as a wrong operand order would
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
    const auto packed = f16x2 ? mma_d_from_f16x2(pack_c_f16x2(tile), 1) : pack_c(tile);
    std::copy(packed.begin(), packed.end(), d.begin() + static_cast<long>(t * 128));
  }
}

std::vector<SupportEntry> FakeBackend::cublaslt_support() {
  std::vector<SupportEntry> m;
  for (const char* f : {"fp8-tensor", "fp8-vec128x1d2d", "fp8-vec128x1d1d", "fp8-blk128x128",
                        "mxfp8", "nvfp4"}) {
    for (const char* l : {"TN", "NN", "NT", "TT"}) {
      const bool ok = !(nvfp4_tn_only && std::string(f) == "nvfp4" && std::string(l) != "TN");
      m.push_back({f, l, "f32", ok, ok ? "fake: 1 algorithms" : "fake: heuristic: NOT_SUPPORTED"});
    }
  }
  return m;
}

namespace {

// Hopper block scaling as a plausible library would do it: per 128-k block
// a tensor-core partial (the architecture's FP8 model, C = 0), then
// acc = acc + partial * sa * sb in FP32 (each operation rounded).
std::vector<uint64_t> fake_block128(const MmaModel& m, const GemmCase& c) {
  const GemmFormat* g = gemm_format(c.format);
  const GemmProblem& p = c.p;
  const size_t M = static_cast<size_t>(p.M), N = static_cast<size_t>(p.N),
               K = static_cast<size_t>(p.K), kb = K / 128;
  const bool ak = p.layout == GemmLayout::kTN || p.layout == GemmLayout::kTT;
  const bool bk = p.layout == GemmLayout::kTN || p.layout == GemmLayout::kNN;
  std::vector<uint64_t> d(M * N);
  std::vector<uint64_t> a(128), b(128);
  for (size_t n = 0; n < N; ++n) {
    for (size_t mm = 0; mm < M; ++mm) {
      float acc = 0;
      for (size_t q = 0; q < kb; ++q) {
        for (size_t j = 0; j < 128; ++j) {
          const size_t k = q * 128 + j;
          a[j] = p.A[ak ? mm * K + k : k * M + mm];
          b[j] = p.B[bk ? n * K + k : k * N + n];
        }
        const float part = std::bit_cast<float>(
            static_cast<uint32_t>(mma_dot(m, p.a_fmt, p.b_fmt, a, b, 0)));
        const size_t ra = g->blk2d_a ? mm / 128 : mm, rb = g->blk2d_b ? n / 128 : n;
        const float sa = std::bit_cast<float>(static_cast<uint32_t>(p.SA[ra * kb + q]));
        const float sb = std::bit_cast<float>(static_cast<uint32_t>(p.SB[rb * kb + q]));
        acc = acc + (part * sa) * sb;
      }
      d[n * M + mm] = std::bit_cast<uint32_t>(acc * c.alpha);
    }
  }
  return d;
}

}  // namespace

bool FakeBackend::cublaslt_gemm(const GemmCase& c, std::vector<uint64_t>& d, std::string& why) {
  if (fault == Fault::kCudaError) throw BackendError("fake: cudaErrorIllegalInstruction");
  const GemmFormat* g = gemm_format(c.format);
  const MmaModel* m = gemm_model(c.format, cc);
  if (!g || !m) {
    why = "fake: no model";
    return false;
  }
  if (nvfp4_tn_only && c.format == "nvfp4" && c.p.layout != GemmLayout::kTN) {
    why = "fake: heuristic: CUBLAS_STATUS_NOT_SUPPORTED (0 algorithms)";
    return false;
  }
  if (c.p.M % 4 != 0) {
    why = "fake: heuristic: CUBLAS_STATUS_NOT_SUPPORTED (ldc not 16-byte aligned)";
    return false;
  }
  GemmReading how = GemmReading::kAsIs;
  if (fault == Fault::kGemmTransposeA) how = GemmReading::kTransposedA;
  if (fault == Fault::kScaleSwap) how = GemmReading::kScalesSwapped;
  if (fault == Fault::kGemmScaleLayout) how = GemmReading::kScalesPlain;
  if (fault == Fault::kGemmAlpha) how = GemmReading::kAlphaIgnored;
  GemmCase r = gemm_reading(c, how);  // through the images, as the library gets them
  if (g->scale == Fmt::kF32 && g->block > 0) {
    d = fake_block128(*m, r);
    why = "fake algo: 128-k partials promoted in FP32";
  } else if (!c.deterministic && c.p.K % (2 * m->fdpa.L) == 0 &&
             (g->block == 0 || c.p.K % (2 * g->block) == 0)) {
    r.p.split_k = 2;  // "any algorithm": split-K 2 with an FP32 reduction
    d = gemm_model_d(*m, r);
    why = "fake algo: split-K 2";
  } else {
    d = gemm_model_d(*m, r);
    why = "fake algo: split-K 1";
  }
  if (fault == Fault::kBitFlip && fault_index < d.size()) d[fault_index] ^= uint64_t{1} << flip_bit;
  return true;
}

}  // namespace mxc::gpu::test
