// Exact reference ("oracle") for format conversions, written independently
// of the fast emulator under emu/: it includes nothing from there, has its own
// format table and decoder, and does all arithmetic on exact dyadic rationals
// (Boost.Multiprecision cpp_int mantissa times an explicit power of two).
//
// Method: for a target format every encoding is enumerated once, decoded to
// an exact value and sorted. An input x is decoded exactly; the representable
// neighbours lo <= x <= hi are found by binary search (or, above the largest
// finite value M, by continuing the top binade's spacing), and the rounding
// mode is applied to the rationals literally as docs/rounding.md defines it
// (rule numbers 1..8 in the comments refer to that document).
//
// Format names: "e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "e8m0", "ue4m3",
// "int8", "f16", "bf16", "tf32" (19-bit storage: the top of an f32), "f32",
// "f64". Inputs are masked to the format's
// storage width (e.g. the low 6 bits for e3m2); ue4m3 inputs ignore bit 7.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mxc::oracle {

enum class Mode { RNE, RZ, RU, RD, RNA, Odd, SR, RNZ };

struct Spec {
  Mode mode = Mode::RNE;
  bool saturate = false;
  bool relu = false;
  uint32_t rbits = 0;  // SR: random bits, only the low sr_bits are used
  int sr_bits = 8;     // SR: 1..32
};

// Converts the bit pattern `bits` of format `from` to format `to`.
// Throws std::invalid_argument for an unknown name, for `to` = "f32"/"f64",
// and for mode SR with sr_bits outside 1..32.
uint64_t exact_convert(std::string_view from, std::string_view to,
                       uint64_t bits, const Spec& s);

// The two candidates for rounding x (the exact input value), in signed order
// lo <= x <= hi, as the encodings that choosing each of them yields under `s`
// (so the overflow rule 8, the zero-sign rule and the e8m0 clamp of rule 7 are
// applied to each; s.mode matters only there). frac = (x-lo)/(hi-lo) as a
// reduced "num/den". SR rounds away from zero (to hi for x > 0, to lo for
// x < 0) for exactly floor(f * 2^k) of the 2^k values of r, where
// f = (|x| - |t|)/ulp is frac for x > 0 and 1 - frac for x < 0.
// exact: x needs no rounding (representable, zero, Inf, NaN, or forced by
// relu); then lo_bits == hi_bits == exact_convert(...) and frac = "0/1".
struct Neighbours {
  uint64_t lo_bits = 0, hi_bits = 0;
  std::string frac;
  bool exact = false;
};
Neighbours neighbours(std::string_view from, std::string_view to,
                      uint64_t bits, const Spec& s);

// Diagnostics: the exact value of an encoding: "NaN", "+Inf", "-Inf", "0",
// "-0", an integer ("448", "-2") or a reduced fraction ("-3/512").
std::string exact_value(std::string_view fmt, uint64_t bits);

// Whether `name` is one of the format names above.
bool known_format(std::string_view name);

// Name of a mode ("rne", "rz", "ru", "rd", "rna", "odd", "sr",
// "rnz").
std::string_view mode_name(Mode m);

}  // namespace mxc::oracle
