// sr_rbits_fill (emu/block/philox.h) on the vector ISAs
// (emu/fast/philox_hwy.cpp): the same words, several Philox counters at
// once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/fast/isa.h"

namespace mxc::fast {

// sr_rbits(seed, first + j) for j in [0, n) into out, on `isa` (kScalar:
// mxc::sr_rbits_fill; an ISA this CPU lacks: the same).
void sr_rbits_fill(Isa isa, uint64_t seed, uint64_t first, size_t n,
                   uint32_t* out);

}  // namespace mxc::fast
