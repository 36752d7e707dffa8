// The direct CUDA batch baseline of `mxc bench` (cuda_host_batch.h) gives
// the same results as the per-call CUDA oracle and as our fast path, so the
// bench compares like with like.
#include <catch2/catch.hpp>
#include <vector>

#include "conformance/oracle/cuda_host_batch.h"
#include "conformance/oracle/cuda_host_oracle.h"
#include "conformance/splitmix64.h"
#include "emu/fast/convert_fast.h"

namespace mxc {
namespace {

TEST_CASE("cuda direct batch == per-call CUDA oracle == fast path") {
  if (!cuda_oracle::available()) {
    WARN("built without CUDA headers: direct batch test skipped");
    return;
  }
  SplitMix64 g(11);
  std::vector<uint32_t> in(1 << 14);
  for (auto& v : in) v = static_cast<uint32_t>(g.next());
  for (size_t i = 0; i < 512; ++i) in[i] = 0x3F000000u + (uint32_t(i) << 16);
  in[0] = 0x7F800000u;
  in[1] = 0xFF800000u;
  in[2] = 0x7FC00001u;
  in[3] = 0x80000000u;
  struct C {
    Fmt to;
    Round mode;
    Overflow o;
  };
  int checked = 0;
  for (const C c : {C{Fmt::kE4M3, Round::kRNE, Overflow::kSatFinite},
                    C{Fmt::kE4M3, Round::kRNE, Overflow::kFormat},
                    C{Fmt::kE5M2, Round::kRNE, Overflow::kSatFinite},
                    C{Fmt::kE5M2, Round::kRNE, Overflow::kInf},
                    C{Fmt::kE2M3, Round::kRNE, Overflow::kSatFinite},
                    C{Fmt::kE3M2, Round::kRNE, Overflow::kSatFinite},
                    C{Fmt::kE2M1, Round::kRNE, Overflow::kSatFinite},
                    C{Fmt::kE8M0, Round::kRZ, Overflow::kSatFinite},
                    C{Fmt::kE8M0, Round::kRU, Overflow::kSatFinite},
                    C{Fmt::kE8M0, Round::kRU, Overflow::kFormat}}) {
    RoundSpec r;
    r.mode = c.mode;
    r.overflow = c.o;
    CAPTURE(desc(c.to).name, round_name(c.mode), int(c.o));
    const auto one = cuda_oracle::convert(Fmt::kF32, c.to, in[0], r);
    if (!one) continue;  // no such CUDA function: the batch has none either
    REQUIRE(cuda_oracle::batch_function(c.to, r) != nullptr);
    std::vector<uint8_t> batch(in.size()), fast(in.size());
    REQUIRE(cuda_oracle::convert_f32_batch(c.to, r, in.data(), batch.data(),
                                           in.size()));
    fast::convert_f32_batch(c.to, r, in.data(), fast.data(), in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      const auto want = cuda_oracle::convert(Fmt::kF32, c.to, in[i], r);
      REQUIRE(want);
      CAPTURE(i, in[i]);
      REQUIRE(batch[i] == *want);
      REQUIRE(fast[i] == *want);
    }
    ++checked;
  }
  CHECK(checked >= 8);
}

}  // namespace
}  // namespace mxc
