// Codes as users see them (CLI tokens, vector files, Python arrays) against
// encodings as the format table stores them. They are the same for every
// format but TF32: a TF32 code is the f32 bit pattern whose low 13 bits are
// zero (what a tensor-core instruction reads from a 32-bit register and what
// the GPU captures in ../shared/oracles/km-hardware hold), while the table
// stores its top 19 bits (kFormats: tf32, 19 bits). One representation for
// users (issue 23, docs/vector-format.md); every boundary converts here.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "emu/format.h"

namespace mxc {

// What happens to a TF32 code with any of its low 13 bits set (an f32 that
// is not a TF32 value): refused (kStrict), or the bits dropped as the tensor
// core does (kTruncate: the instruction ignores them, as MMA-Sim's TF32
// operand decoding does; issue 23).
enum class Tf32Input : uint8_t { kStrict, kTruncate };

inline constexpr int kTf32LowBits = 13;  // f32's 23 fraction bits - tf32's 10
inline constexpr uint64_t kTf32LowMask = (uint64_t{1} << kTf32LowBits) - 1;

// "strict" / "truncate", as --tf32-input and tf32_input= spell them.
constexpr std::optional<Tf32Input> parse_tf32_input(std::string_view s) {
  if (s == "strict") return Tf32Input::kStrict;
  if (s == "truncate") return Tf32Input::kTruncate;
  return std::nullopt;
}

// Bits of a user code of `f`: 32 for TF32, the storage width otherwise.
constexpr int code_bits(Fmt f) { return f == Fmt::kTF32 ? 32 : desc(f).bits; }
// Hex digits of a user code of `f` (8 for TF32).
constexpr int code_hex_digits(Fmt f) { return (code_bits(f) + 3) / 4; }

// The user code of the stored encoding `storage` of `f`.
constexpr uint64_t code_from_storage(Fmt f, uint64_t storage) {
  return f == Fmt::kTF32 ? storage << kTf32LowBits : storage;
}

// Whether `code` is a user code of `f`: it fits code_bits(f) and, for TF32,
// its low 13 bits are zero.
constexpr bool code_ok(Fmt f, uint64_t code) {
  const int n = code_bits(f);
  if (n < 64 && (code >> n) != 0) return false;
  return f != Fmt::kTF32 || (code & kTf32LowMask) == 0;
}

// The stored encoding of the user code `code` of `f`, or nullopt when it is
// not one (too wide; a TF32 code with low bits set under kStrict). kTruncate
// clears a TF32 code's low 13 bits first.
constexpr std::optional<uint64_t> storage_from_code(
    Fmt f, uint64_t code, Tf32Input t = Tf32Input::kStrict) {
  if (f == Fmt::kTF32 && t == Tf32Input::kTruncate) code &= ~kTf32LowMask;
  if (!code_ok(f, code)) return std::nullopt;
  return f == Fmt::kTF32 ? code >> kTf32LowBits : code;
}

}  // namespace mxc
