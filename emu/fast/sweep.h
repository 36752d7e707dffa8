// Multi-threaded sweeps over f32 inputs (up to all 2^32): chunked, with
// memory flat in the number of inputs (each thread owns two 64 Ki buffers).
// The fast conversion runs on every chunk; an optional batch oracle is
// compared against it, bit for bit.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "emu/fast/convert_fast.h"

namespace mxc::fast {

// Fills out[i] with the oracle's result for in[i], i < n.
using BatchOracle =
    std::function<void(const uint32_t* in, uint8_t* out, size_t n)>;

// The reference (mxc::convert) as a batch oracle.
BatchOracle reference_oracle(Fmt to, const RoundSpec& r);

struct SweepResult {
  uint64_t cases = 0;
  uint64_t mismatches = 0;
  uint64_t checksum = 0;  // sum of the fast path's output bytes
  // The first few mismatches: {input, fast result, oracle result}.
  std::vector<std::array<uint32_t, 3>> first;
};

// Inputs begin..end-1 (end <= 2^32), on `threads` threads (0: all cores).
// Without an oracle only the checksum is computed (a timing run).
SweepResult sweep_f32(Fmt to, const RoundSpec& r, const BatchOracle& oracle,
                      unsigned threads, uint64_t begin = 0,
                      uint64_t end = uint64_t{1} << 32, Isa isa = best_isa());

// The same over an explicit input list (any order, duplicates allowed).
SweepResult check_f32(Fmt to, const RoundSpec& r, const BatchOracle& oracle,
                      const std::vector<uint32_t>& inputs, unsigned threads,
                      Isa isa = best_isa());

}  // namespace mxc::fast
