#include "conformance/hex_io.h"

#include <fmt/format.h>

#include "emu/codes.h"

namespace mxc {

std::optional<uint64_t> parse_hex(std::string_view t, std::string* why) {
  if (t.size() >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    t.remove_prefix(2);
  }
  if (t.empty()) {
    *why = "empty hex number";
    return std::nullopt;
  }
  if (t.size() > 16) {
    *why = "more than 64 bits";
    return std::nullopt;
  }
  uint64_t v = 0;
  for (char c : t) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      *why = fmt::format("'{}' is not a hex digit", c);
      return std::nullopt;
    }
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

int hex_digits(Fmt f) { return code_hex_digits(f); }

std::string format_hex(Fmt f, uint64_t bits) {
  return fmt::format("{:0{}X}", code_from_storage(f, bits), hex_digits(f));
}

}  // namespace mxc
