#include "conformance/oracle/cuda_host_batch.h"

#ifdef MXC_HAVE_CUDA_HEADERS
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#endif

#include <bit>

namespace mxc::cuda_oracle {

#ifdef MXC_HAVE_CUDA_HEADERS
namespace {

// One loop per CUDA function, its mode arguments compile-time constants.
template <class F>
void loop(const uint32_t* in, uint8_t* out, size_t n, F&& f) {
  for (size_t i = 0; i < n; ++i)
    out[i] = static_cast<uint8_t>(f(std::bit_cast<float>(in[i])));
}

enum class Kind { kNone, kFp8, kFp6, kFp4, kE8m0 };

Kind kind(Fmt to, const RoundSpec& r) {
  if (r.relu) return Kind::kNone;
  const bool sat = r.overflow == Overflow::kSatFinite;
  switch (to) {
    case Fmt::kE4M3:
    case Fmt::kE5M2:
      return r.mode == Round::kRNE ? Kind::kFp8 : Kind::kNone;
    case Fmt::kE2M3:
    case Fmt::kE3M2:
      return r.mode == Round::kRNE && sat ? Kind::kFp6 : Kind::kNone;
    case Fmt::kE2M1:
      return r.mode == Round::kRNE && sat ? Kind::kFp4 : Kind::kNone;
    case Fmt::kE8M0:
      return r.mode == Round::kRZ || r.mode == Round::kRU ? Kind::kE8m0
                                                          : Kind::kNone;
    default:
      return Kind::kNone;
  }
}

}  // namespace

const char* batch_function(Fmt to, const RoundSpec& r) {
  switch (kind(to, r)) {
    case Kind::kFp8:
      return "__nv_cvt_float_to_fp8";
    case Kind::kFp6:
      return "__nv_cvt_float_to_fp6";
    case Kind::kFp4:
      return "__nv_cvt_float_to_fp4";
    case Kind::kE8m0:
      return "__nv_cvt_float_to_e8m0";
    case Kind::kNone:
      break;
  }
  return nullptr;
}

bool convert_f32_batch(Fmt to, const RoundSpec& r, const uint32_t* in,
                       uint8_t* out, size_t n) {
  const bool sat = r.overflow == Overflow::kSatFinite;
  switch (kind(to, r)) {
    case Kind::kFp8: {
      const auto i = to == Fmt::kE4M3 ? __NV_E4M3 : __NV_E5M2;
      if (sat) {
        loop(in, out, n, [i](float x) {
          return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, i);
        });
      } else {
        loop(in, out, n,
             [i](float x) { return __nv_cvt_float_to_fp8(x, __NV_NOSAT, i); });
      }
      return true;
    }
    case Kind::kFp6: {
      const auto i = to == Fmt::kE2M3 ? __NV_E2M3 : __NV_E3M2;
      loop(in, out, n, [i](float x) {
        return __nv_cvt_float_to_fp6(x, i, cudaRoundNearest);
      });
      return true;
    }
    case Kind::kFp4:
      loop(in, out, n, [](float x) {
        return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest);
      });
      return true;
    case Kind::kE8m0: {
      const auto s = sat ? __NV_SATFINITE : __NV_NOSAT;
      if (r.mode == Round::kRZ) {
        loop(in, out, n, [s](float x) {
          return __nv_cvt_float_to_e8m0(x, s, cudaRoundZero);
        });
      } else {
        loop(in, out, n, [s](float x) {
          return __nv_cvt_float_to_e8m0(x, s, cudaRoundPosInf);
        });
      }
      return true;
    }
    case Kind::kNone:
      break;
  }
  return false;
}
#else
const char* batch_function(Fmt, const RoundSpec&) { return nullptr; }
bool convert_f32_batch(Fmt, const RoundSpec&, const uint32_t*, uint8_t*,
                       size_t) {
  return false;
}
#endif

}  // namespace mxc::cuda_oracle
