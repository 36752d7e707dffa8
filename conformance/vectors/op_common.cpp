#include <fmt/format.h>

#include <cstdint>
#include <sstream>
#include <stdexcept>

#include "conformance/splitmix64.h"
#include "conformance/vectors/op.h"

namespace mxc::vec {

uint64_t case_random(uint64_t seed, uint64_t i, uint64_t k) {
  SplitMix64 g(seed ^ (i * 0xD1B54A32D192ED03ull) ^ (k * 0x8CB92BA72F3D8DD7ull));
  g.next();
  return g.next();
}

Level level_of(const Header& h) {
  Level l{1, 1};
  // Strict decimal: no sign, spaces or trailing text ("1x", "-1" refused).
  auto parse = [](const std::string& s, uint64_t& v) {
    if (s.empty() || s.size() > 20) return false;
    v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      const uint64_t d = static_cast<uint64_t>(c - '0');
      if (v > (UINT64_MAX - d) / 10) return false;
      v = v * 10 + d;
    }
    return true;
  };
  uint64_t lv = 0;
  if (!parse(h.get("level", "1"), lv) || !parse(h.get("seed", "1"), l.seed)) {
    throw std::invalid_argument(
        "header: level and seed must be unsigned decimal integers");
  }
  l.level = lv > 2 ? 3 : static_cast<int>(lv);
  if (l.level < 0 || l.level > 2) {
    throw std::invalid_argument("header: level must be 0, 1 or 2");
  }
  return l;
}

std::string Op::explain(std::span<const uint64_t>, std::span<const uint64_t>,
                        std::span<const uint64_t>) const {
  return "";
}

std::string Op::accepted(std::span<const uint64_t>, std::span<const uint64_t>,
                         std::span<const uint64_t>,
                         const std::vector<std::string>&) const {
  return "";
}

}  // namespace mxc::vec
