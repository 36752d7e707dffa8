// The one place mxc checks option values: CLI11 validators that every
// subcommand attaches to its numeric and structured options, so a bad value
// is refused before any work starts, with a message naming the option
// (exit 2), instead of being replaced by a default, wrapping around or
// crashing later.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "conformance/io.h"

namespace mxc::cli {

using io::parse_unsigned;  // strict unsigned decimal, the one parser

// Strict signed decimal in int64_t.
inline std::optional<int64_t> parse_signed(const std::string& s) {
  const bool neg = !s.empty() && s[0] == '-';
  const auto v = parse_unsigned(neg ? s.substr(1) : s);
  if (!v) return std::nullopt;
  if (neg) {
    if (*v > static_cast<uint64_t>(INT64_MAX) + 1) return std::nullopt;
    return static_cast<int64_t>(0 - *v);
  }
  if (*v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(*v);
}

// An integer option in [lo, hi]: no text after the number, no wrap-around.
inline CLI::Validator integer_in(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        const auto v = parse_signed(s);
        if (!v || *v < lo || *v > hi) {
          return "'" + s + "' is not an integer in " + std::to_string(lo) +
                 ".." + std::to_string(hi);
        }
        return "";
      },
      "INT in " + std::to_string(lo) + ".." + std::to_string(hi));
}

// A full-range unsigned 64-bit option (seeds): digits only, no sign.
inline CLI::Validator unsigned64() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return parse_unsigned(s)
                   ? ""
                   : "'" + s + "' is not an unsigned decimal integer (0.." +
                         std::to_string(UINT64_MAX) + ")";
      },
      "UINT64");
}

// i/n with 0 <= i < n, both strict unsigned decimals.
inline CLI::Validator shard_spec() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        const auto slash = s.find('/');
        const auto i = parse_unsigned(s.substr(0, slash));
        const auto n = slash == std::string::npos
                           ? std::nullopt
                           : parse_unsigned(s.substr(slash + 1));
        if (!i || !n || *n == 0 || *i >= *n) {
          return "'" + s + "' must be i/n with integers 0 <= i < n";
        }
        return "";
      },
      "i/n");
}

// Any check returning "" (ok) or the reason, as a validator.
inline CLI::Validator check_with(std::function<std::string(const std::string&)> f,
                                 const std::string& desc) {
  return CLI::Validator([f](std::string& s) { return f(s); }, desc);
}

}  // namespace mxc::cli
