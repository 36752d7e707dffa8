#include <fmt/format.h>

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
  try {
    l.level = std::stoi(h.get("level", "1"));
    l.seed = std::stoull(h.get("seed", "1"));
  } catch (const std::exception&) {
    throw std::invalid_argument("header: level and seed must be integers");
  }
  if (l.level < 0 || l.level > 3) {
    throw std::invalid_argument("header: level must be 0..3");
  }
  return l;
}

std::string Op::accepted(std::span<const uint64_t>, std::span<const uint64_t>,
                         const std::vector<std::string>&) const {
  return "";
}

}  // namespace mxc::vec
