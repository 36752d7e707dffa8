// Parsing and printing of the names the CLI and the vector files use.
#include <array>
#include <string_view>

#include "emu/format.h"
#include "emu/rounding.h"

namespace mxc {
namespace {
constexpr std::array<std::string_view, 7> kRoundNames = {
    "rne", "rz", "ru", "rd", "rna", "odd", "rs"};
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

}  // namespace mxc
