// Shared pieces of the ops (not part of the public vector API).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "conformance/vectors/op.h"
#include "emu/format.h"
#include "emu/rounding.h"

namespace mxc::vec {

std::unique_ptr<Op> make_convert_op(const Header& h);
std::unique_ptr<Op> make_mx_quantize_op(const Header& h);
std::unique_ptr<Op> make_nvfp4_quantize_op(const Header& h);
std::unique_ptr<Op> make_mx_dot_op(const Header& h);
std::unique_ptr<Op> make_mma_op(const Header& h);
std::unique_ptr<Op> make_gemm_op(const Header& h);
std::unique_ptr<Op> make_mx_dequantize_op(const Header& h);

RoundSpec parse_round_spec(const Header& h);
// "448 (e4m3 7E)".
std::string describe(Fmt f, uint64_t bits);
// Mismatch class of one converted element.
std::string classify_element(Fmt from, Fmt to, const RoundSpec& spec,
                             uint64_t in, uint64_t want, uint64_t got);
std::string accept_element(Fmt to, uint64_t want, uint64_t got,
                           const std::vector<std::string>& allow);

}  // namespace mxc::vec
