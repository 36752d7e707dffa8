// Shared pieces of the 8-bit-operand FDPA kernels (emu/fast/fdpa_fast.cpp,
// emu/fast/gemm_fast.cpp): the 256-entry operand decode tables and the final
// rounding of a chunk's exact sum. Internal to emu/fast.
#pragma once

#include <array>
#include <cstdint>

#include "emu/format.h"
#include "emu/mma/fdpa.h"

namespace mxc::fast::detail {

// One decoded code, exactly as fdpa.cpp's read(): |v| = sig * 2^lsb with
// lsb = exp - frac; exp is the alignment exponent (the format's emin for
// subnormals and zeros).
struct Dec {
  uint16_t sig;
  int16_t exp;
  int16_t lsb;
  uint8_t neg;      // 0 or 1
  uint8_t special;  // NaN or Inf
};
static_assert(sizeof(Dec) == 8);

using DecTable = std::array<Dec, 256>;

// Whether the kernels take `f` as an A/B element format: E4M3, E5M2, E3M2,
// E2M3, E2M1.
bool elem_ok(Fmt f);

// The table of an element format (elem_ok) or a scale format (E8M0, UE4M3,
// whose sign bit is ignored). Codes beyond the format's width are marked
// special; callers range-check codes first.
const DecTable& decode_table(Fmt f);

// The accumulator format of an AccRound as the integer packers see it: P
// fraction bits, the least normal exponent, round to nearest even or toward
// zero, the code of +Inf before out_shift, the left shift that stores it in
// the C/D format (E8M13 sits in the top of a binary32) and the sign bit.
struct AccFormat {
  int P;
  int32_t emin;
  bool rne;
  uint64_t inf;
  int out_shift;
  int sign_bit;
};
constexpr AccFormat acc_format_of(AccRound rho) {
  switch (rho) {
    case AccRound::kRzE8M13:
      return {13, -126, false, uint64_t{0xFF} << 13, 10, 31};
    case AccRound::kRneF16:
      return {10, -14, true, uint64_t{0x1F} << 10, 0, 15};
    case AccRound::kRneF32:  // the AMD datapaths' final rounding
      return {23, -126, true, uint64_t{0xFF} << 23, 0, 31};
    case AccRound::kRzF32:
      break;
  }
  return {23, -126, false, uint64_t{0xFF} << 23, 0, 31};
}

// fdpa_round_sum (emu/mma/fdpa.h) of |sum| = mag * 2^exp, 0 < mag < 2^63
// (exact: no sticky bit), in integers for every AccRound.
uint64_t finish_sum(AccRound rho, bool neg, int32_t exp, uint64_t mag);

}  // namespace mxc::fast::detail
