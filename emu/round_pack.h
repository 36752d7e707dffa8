// The one rounding core. Every conversion, and later every arithmetic result
// (dot products, MMA models), ends here: an exact (sign, exponent, integer
// significand) is rounded once under a RoundSpec and packed into a format.
// This mirrors SoftFloat's softfloat_roundPackToF32 family. docs/rounding.md
// states the semantics this file implements.
#pragma once

#include <cstdint>

#include "emu/format.h"
#include "emu/rounding.h"
#include "emu/unpack.h"

namespace mxc {

// Round sign * sig * 2^exp (sig != 0) into format f. `sticky` says that the
// true value is slightly larger in magnitude than sig * 2^exp (by less than
// one unit of sig's last bit); pass false when the value is exact.
uint64_t round_pack(Fmt f, bool sign, int32_t exp, uint64_t sig, bool sticky,
                    const RoundSpec& r);

// Encode any decoded value, specials included, into format f.
uint64_t encode(Fmt f, const Unpacked& u, const RoundSpec& r);

// Canonical encodings used by the core (exposed for tests and reports).
uint64_t canonical_nan(Fmt f);        // all ones but the sign bit
uint64_t max_finite_bits(Fmt f, bool sign);
uint64_t inf_bits(Fmt f, bool sign);  // only for formats with Inf
uint64_t zero_bits(Fmt f, bool sign);

}  // namespace mxc
