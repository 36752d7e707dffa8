// Hex text I/O shared by the CLI commands and the vector files: parse one
// whitespace-separated token, format a bit pattern at its format's width.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "emu/format.h"

namespace mxc {

// Parse a hex token (optional 0x/0X prefix). On failure returns nullopt and
// sets *why to a human-readable reason.
std::optional<uint64_t> parse_hex(std::string_view token, std::string* why);

// The user code (emu/codes.h: TF32 as its f32 bit pattern) of the stored
// encoding `bits` of `f`, upper-case hex zero-padded to hex_digits(f), no
// prefix.
std::string format_hex(Fmt f, uint64_t bits);
// Hex digits of a user code of `f` (emu/codes.h: 8 for TF32).
int hex_digits(Fmt f);

}  // namespace mxc
