// A specialised FDPA kernel for 8-bit-or-narrower operands (issue 7,
// docs/performance.md): T-FDPA and ST-FDPA (E8M0 / UE4M3 scales per block)
// and GST-FDPA on E4M3, E5M2, E3M2, E2M3, E2M1 operands. Operands decode
// through 256-entry tables; e_max is found first, then every term's aligned,
// truncated value is summed in int64 (with these formats every term is below
// 2^(F+4) <= 2^39); the sum is rounded as emu/mma/fdpa.cpp does. A chunk with
// a NaN or Inf anywhere (operand, scale or addend) or a code beyond its
// format's width is left to the reference. Bit-identical to the reference
// chain (tests/test_fast_fdpa.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/mma/fdpa.h"

namespace mxc {
// The reference chain (emu/mma/fdpa.cpp) without the fast dispatch, for
// differential tests and benchmarks.
uint64_t fdpa_chain_reference(const FdpaParams& p, const FdpaOperands& o);
}  // namespace mxc

namespace mxc::fast {

// Whether the fast kernel takes these parameters and operand formats (the
// caller has already validated the shapes, as fdpa_chain does).
bool fdpa_covers(const FdpaParams& p, const FdpaOperands& o);

// One FDPA over k in [k0, k0 + L) with addend c_bits (in o.c_fmt). Returns
// false, leaving `out` alone, when the chunk needs the reference (specials,
// codes out of range); otherwise out = the reference's result.
bool fdpa_chunk(const FdpaParams& p, const FdpaOperands& o, size_t k0,
                uint64_t c_bits, uint64_t& out);

}  // namespace mxc::fast
