// Parsing and printing of the names the CLI and the vector files use.
#include <array>
#include <string_view>

#include "emu/format.h"
#include "emu/rounding.h"

namespace mxc {
namespace {
constexpr std::array<std::string_view, 8> kRoundNames = {
    "rne", "rz", "ru", "rd", "rna", "odd", "rs", "rnz"};
}  // namespace

std::optional<Fmt> parse_format(std::string_view name) {
  for (const FormatDesc& d : kFormats) {
    if (d.name == name) return d.id;
  }
  if (name == "mxint8") return Fmt::kInt8;
  return std::nullopt;
}

std::optional<Round> parse_round(std::string_view name) {
  for (size_t i = 0; i < kRoundNames.size(); ++i) {
    if (kRoundNames[i] == name) return static_cast<Round>(i);
  }
  return std::nullopt;
}

std::string_view round_name(Round r) {
  return kRoundNames[static_cast<size_t>(r)];
}

std::optional<RoundSpec> parse_rounding(std::string_view name) {
  const bool full = name == "rs-full";
  const auto m = parse_round(full ? std::string_view("rs") : name);
  if (!m) return std::nullopt;
  RoundSpec r;
  r.mode = *m;
  r.sr_bits = full ? kSrBitsFull : kSrBitsPtx;
  return r;
}

std::string rounding_name(const RoundSpec& r) {
  std::string s(round_name(r.mode));
  if (r.mode == Round::kSR && r.sr_bits == kSrBitsFull) s += "-full";
  return s;
}

}  // namespace mxc
