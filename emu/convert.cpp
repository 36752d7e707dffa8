#include "emu/convert.h"

#include <algorithm>

namespace mxc {

int full_sr_bits(Fmt from, Fmt to) {
  const int k = desc(from).man_bits - desc(to).man_bits;
  return std::clamp(k, 1, 32);
}

uint64_t convert(Fmt from, Fmt to, uint64_t bits, const RoundSpec& r) {
  if (r.mode == Round::kSR && r.sr_bits == kSrBitsFull) {
    RoundSpec full = r;
    full.sr_bits = full_sr_bits(from, to);
    return encode(to, unpack(from, bits), full);
  }
  return encode(to, unpack(from, bits), r);
}

}  // namespace mxc
