// Multi-threaded sweeps over f32 inputs (up to all 2^32): chunked, with
// memory flat in the number of inputs (each thread owns three 64 Ki
// buffers). The fast conversion runs on every chunk; an optional batch
// oracle is compared against it, bit for bit.
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

// How sweep_f32 computes the fast results of a chunk of consecutive inputs.
enum class SweepKernel : uint8_t {
  // sweep_range: the rounding constants hoisted per binade
  // (emu/fast/sweep_binade.cpp).
  kBinade,
  // run_plan on the chunk's inputs, as for any batch (checks run_plan).
  kGeneric,
};
const char* sweep_kernel_name(SweepKernel k);

// Inputs begin..end-1 (end <= 2^32), on `threads` threads (0: all cores).
// Without an oracle only the checksum is computed (a timing run).
SweepResult sweep_f32(Fmt to, const RoundSpec& r, const BatchOracle& oracle,
                      unsigned threads, uint64_t begin = 0,
                      uint64_t end = uint64_t{1} << 32,
                      Isa isa = best_convert_isa(),
                      SweepKernel kernel = SweepKernel::kBinade);

// The same over an explicit input list (any order, duplicates allowed),
// always through run_plan.
SweepResult check_f32(Fmt to, const RoundSpec& r, const BatchOracle& oracle,
                      const std::vector<uint32_t>& inputs, unsigned threads,
                      Isa isa = best_convert_isa());

// The sweep kernel: out[i] = run_plan_one(p, first + i) for i < n
// (first + n <= 2^32), computed binade by binade; returns the sum of the n
// output bytes.
uint64_t sweep_range(const Plan& p, Isa isa, uint32_t first, uint8_t* out,
                     size_t n);

namespace detail {

// A run of consecutive inputs inside one binade (fixed sign and exponent)
// whose results cannot overflow: the shift sh, the exponent offset and the
// sign are constant there, so with sig = sig0 + i the result is
// q(sig) + base, q the rounded quotient sig / 2^sh:
struct BinadeRun {
  enum Kind : uint8_t {
    kAdd,  // (sig + a) >> sh: RZ, RU, RD, RNA, E8M0's RNE and odd
    kRne,  // u = sig + half - 1: (u + ((u >> sh) & 1)) >> sh
    kOdd,  // n | ((n ^ c) & 1), n = sig >> sh, c = (sig + 2^sh - 1) >> sh
  };
  Kind kind = kAdd;
  uint32_t sig0 = 0;  // sig of the run's first input
  uint32_t a = 0;     // kAdd's addend
  uint32_t sh = 0;
  uint8_t base = 0;  // the exponent offset plus the sign bit
};
// q of the run's i-th input (its result less base).
uint32_t binade_round(const BinadeRun& r, uint32_t i);
// Fill out[0..n) and return the byte sum (sig0 + n + 2^sh < 2^32).
uint64_t binade_scalar(const BinadeRun& r, uint8_t* out, size_t n);
// The Highway kernel (emu/fast/sweep_hwy.cpp) on `isa` (isa_supported, not
// kScalar): the same fill and sum. Its vectors compute kRne as
// (sig + half) >> sh and kOdd as (sig >> sh) | 1, which differ from q only
// where sig mod 2^sh is half (a tie) or 0 (exact): one input in 2^sh
// (sh >= 20 for every covered target), recomputed with binade_round
// afterwards.
uint64_t binade_simd(Isa isa, const BinadeRun& r, uint8_t* out, size_t n);

}  // namespace detail

}  // namespace mxc::fast
