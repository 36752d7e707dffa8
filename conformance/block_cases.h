// Structured input blocks for quantization checks: the named corner cases
// (zero, smallest normal, Inf/NaN, max, subnormals, underflow, saturation,
// the premature-bf16 cases: torchao's list, generalised to any block size)
// and classes of random blocks (Gaussian, amax just above max * 2^k, just
// below 2^k, tiny, huge, with Inf/NaN, with -0). Deterministic per seed.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "conformance/splitmix64.h"
#include "emu/format.h"

namespace mxc {

size_t named_block_count();
std::string_view named_block_name(size_t i);
std::vector<uint32_t> named_block(size_t i, int n);

size_t block_class_count();
std::string_view block_class_name(size_t c);
std::vector<uint32_t> block_class_case(size_t c, SplitMix64& g, int n,
                                       Fmt elem);

}  // namespace mxc
