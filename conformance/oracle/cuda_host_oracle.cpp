#include "conformance/oracle/cuda_host_oracle.h"

#if MXC_HAVE_CUDA_HEADERS
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#endif

#include <bit>
#include <cstring>

#include "emu/unpack.h"

namespace mxc::cuda_oracle {

#if MXC_HAVE_CUDA_HEADERS
namespace {

__half_raw half_raw(uint64_t b) {
  __half_raw h;
  h.x = static_cast<unsigned short>(b);
  return h;
}
__nv_bfloat16_raw bf16_raw(uint64_t b) {
  __nv_bfloat16_raw h;
  h.x = static_cast<unsigned short>(b);
  return h;
}

// Only RNE (fp8) or RNE/RZ (fp6/fp4) or RZ/RU (e8m0) exist; relu never.
std::optional<cudaRoundMode> cuda_mode(Round m) {
  switch (m) {
    case Round::kRNE:
      return cudaRoundNearest;
    case Round::kRZ:
      return cudaRoundZero;
    case Round::kRU:
      return cudaRoundPosInf;
    case Round::kRD:
      return cudaRoundMinInf;
    default:
      return std::nullopt;
  }
}

std::optional<uint64_t> to_fp8(Fmt from, uint64_t bits, __nv_saturation_t sat,
                               __nv_fp8_interpretation_t kind) {
  switch (from) {
    case Fmt::kF32:
      return __nv_cvt_float_to_fp8(std::bit_cast<float>(uint32_t(bits)), sat,
                                   kind);
    case Fmt::kF64:
      return __nv_cvt_double_to_fp8(std::bit_cast<double>(bits), sat, kind);
    case Fmt::kF16:
      return __nv_cvt_halfraw_to_fp8(half_raw(bits), sat, kind);
    case Fmt::kBF16:
      return __nv_cvt_bfloat16raw_to_fp8(bf16_raw(bits), sat, kind);
    default:
      return std::nullopt;
  }
}

std::optional<uint64_t> to_fp6(Fmt from, uint64_t bits, cudaRoundMode m,
                               __nv_fp6_interpretation_t kind) {
  switch (from) {
    case Fmt::kF32:
      return __nv_cvt_float_to_fp6(std::bit_cast<float>(uint32_t(bits)), kind,
                                   m);
    case Fmt::kF64:
      return __nv_cvt_double_to_fp6(std::bit_cast<double>(bits), kind, m);
    case Fmt::kF16:
      return __nv_cvt_halfraw_to_fp6(half_raw(bits), kind, m);
    case Fmt::kBF16:
      return __nv_cvt_bfloat16raw_to_fp6(bf16_raw(bits), kind, m);
    default:
      return std::nullopt;
  }
}

std::optional<uint64_t> to_fp4(Fmt from, uint64_t bits, cudaRoundMode m) {
  switch (from) {
    case Fmt::kF32:
      return __nv_cvt_float_to_fp4(std::bit_cast<float>(uint32_t(bits)),
                                   __NV_E2M1, m);
    case Fmt::kF64:
      return __nv_cvt_double_to_fp4(std::bit_cast<double>(bits), __NV_E2M1, m);
    case Fmt::kF16:
      return __nv_cvt_halfraw_to_fp4(half_raw(bits), __NV_E2M1, m);
    case Fmt::kBF16:
      return __nv_cvt_bfloat16raw_to_fp4(bf16_raw(bits), __NV_E2M1, m);
    default:
      return std::nullopt;
  }
}

std::optional<uint64_t> to_e8m0(Fmt from, uint64_t bits, __nv_saturation_t sat,
                                cudaRoundMode m) {
  switch (from) {
    case Fmt::kF32:
      return __nv_cvt_float_to_e8m0(std::bit_cast<float>(uint32_t(bits)), sat,
                                    m);
    case Fmt::kF64:
      return __nv_cvt_double_to_e8m0(std::bit_cast<double>(bits), sat, m);
    case Fmt::kBF16:
      return __nv_cvt_bfloat16raw_to_e8m0(bf16_raw(bits), sat, m);
    default:
      return std::nullopt;
  }
}

// Narrow -> f16 (fp8/fp6/fp4) or bf16 (e8m0): CUDA's decode functions.
std::optional<uint64_t> from_narrow(Fmt from, Fmt to, uint64_t bits) {
  const auto b8 = static_cast<unsigned char>(bits);
  if (to == Fmt::kF16) {
    switch (from) {
      case Fmt::kE4M3:
        return __nv_cvt_fp8_to_halfraw(b8, __NV_E4M3).x;
      case Fmt::kE5M2:
        return __nv_cvt_fp8_to_halfraw(b8, __NV_E5M2).x;
      case Fmt::kE2M3:
        return __nv_cvt_fp6_to_halfraw(b8, __NV_E2M3).x;
      case Fmt::kE3M2:
        return __nv_cvt_fp6_to_halfraw(b8, __NV_E3M2).x;
      case Fmt::kE2M1:
        return __nv_cvt_fp4_to_halfraw(b8, __NV_E2M1).x;
      default:
        return std::nullopt;
    }
  }
  if (to == Fmt::kBF16 && from == Fmt::kE8M0) {
    return __nv_cvt_e8m0_to_bf16raw(b8).x;
  }
  return std::nullopt;
}

// f32 -> f16 / bf16 with CUDA's directed-rounding host intrinsics.
std::optional<uint64_t> f32_to_half(uint64_t bits, Fmt to, Round m) {
  const float x = std::bit_cast<float>(uint32_t(bits));
  if (to == Fmt::kF16) {
    __half h;
    switch (m) {
      case Round::kRNE: h = __float2half_rn(x); break;
      case Round::kRZ: h = __float2half_rz(x); break;
      case Round::kRU: h = __float2half_ru(x); break;
      case Round::kRD: h = __float2half_rd(x); break;
      default: return std::nullopt;
    }
    return static_cast<__half_raw>(h).x;
  }
  __nv_bfloat16 h;
  switch (m) {
    case Round::kRNE: h = __float2bfloat16_rn(x); break;
    case Round::kRZ: h = __float2bfloat16_rz(x); break;
    case Round::kRU: h = __float2bfloat16_ru(x); break;
    case Round::kRD: h = __float2bfloat16_rd(x); break;
    default: return std::nullopt;
  }
  return static_cast<__nv_bfloat16_raw>(h).x;
}

}  // namespace

bool available() { return true; }

std::optional<uint64_t> convert(Fmt from, Fmt to, uint64_t bits,
                                const RoundSpec& r) {
  if (r.relu) return std::nullopt;
  const bool wide_src = from == Fmt::kF32 || from == Fmt::kF64 ||
                        from == Fmt::kF16 || from == Fmt::kBF16;
  if (!wide_src) {
    // Decoding is exact, so the rounding spec does not matter.
    return from_narrow(from, to, bits);
  }
  const auto sat = r.overflow == Overflow::kSatFinite ? __NV_SATFINITE
                                                      : __NV_NOSAT;
  const auto mode = cuda_mode(r.mode);
  if (!mode) return std::nullopt;
  switch (to) {
    case Fmt::kE4M3:
      if (r.mode != Round::kRNE) return std::nullopt;
      return to_fp8(from, bits, sat, __NV_E4M3);
    case Fmt::kE5M2:
      if (r.mode != Round::kRNE) return std::nullopt;
      return to_fp8(from, bits, sat, __NV_E5M2);
    // FP6/FP4: RN or RZ only, and always saturating (the formats have no
    // Inf/NaN, so both overflow policies give the same result).
    case Fmt::kE2M3:
    case Fmt::kE3M2:
    case Fmt::kE2M1:
      if (r.mode != Round::kRNE && r.mode != Round::kRZ) return std::nullopt;
      if (to == Fmt::kE2M1) return to_fp4(from, bits, *mode);
      return to_fp6(from, bits, *mode, to == Fmt::kE2M3 ? __NV_E2M3 : __NV_E3M2);
    case Fmt::kE8M0:
      if (r.mode != Round::kRZ && r.mode != Round::kRU) return std::nullopt;
      return to_e8m0(from, bits, sat, *mode);
    case Fmt::kF16:
    case Fmt::kBF16:
      if (from != Fmt::kF32 || r.overflow != Overflow::kFormat) {
        return std::nullopt;
      }
      return f32_to_half(bits, to, r.mode);
    default:
      return std::nullopt;
  }
}

#else  // no CUDA headers

bool available() { return false; }
std::optional<uint64_t> convert(Fmt, Fmt, uint64_t, const RoundSpec&) {
  return std::nullopt;
}

#endif

std::optional<const char*> deviation_class(Fmt from, Fmt to, uint64_t input,
                                           uint64_t ours, uint64_t cuda) {
  const bool fp8 = to == Fmt::kE4M3 || to == Fmt::kE5M2;
  if (from == Fmt::kF64 && fp8 && unpack(from, input).cls == Class::kNaN &&
      unpack(to, ours).cls == Class::kNaN &&
      unpack(to, cuda).cls == Class::kNaN) {
    return "f64-nan-payload";
  }
  return std::nullopt;
}

}  // namespace mxc::cuda_oracle
