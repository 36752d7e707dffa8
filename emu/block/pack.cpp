#include "emu/block/pack.h"

#include <stdexcept>
#include <string>

#include "emu/checked.h"

namespace mxc {
namespace {

// Errors name the argument ("codes", "n") and then the function.
void check_codes(std::span<const uint8_t> codes, unsigned max_code,
                 const char* what) {
  for (size_t i = 0; i < codes.size(); ++i) {
    if (codes[i] > max_code) {
      throw std::invalid_argument(
          "codes: code " + std::to_string(codes[i]) + " at index " +
          std::to_string(i) + " is wider than the format (" + what + ")");
    }
  }
}

// n codes of `bits` bits each need ceil(n * bits / 8) bytes; n is checked
// for overflow before the multiply.
void check_length(std::span<const uint8_t> bytes, size_t n, unsigned bits,
                  const char* what) {
  const size_t need = checked_mul(n / 8, bits, "n") +
                      (n % 8 * bits + 7) / 8;
  if (bytes.size() < need) {
    throw std::invalid_argument(
        "n: " + std::to_string(n) + " codes need " + std::to_string(need) +
        " packed bytes, got " + std::to_string(bytes.size()) + " (" + what +
        ")");
  }
}

}  // namespace

std::vector<uint8_t> pack_fp4(std::span<const uint8_t> codes) {
  check_codes(codes, 0xF, "pack_fp4");
  std::vector<uint8_t> out(packed_fp4_bytes(codes.size()), 0);
  for (size_t i = 0; i < codes.size(); ++i) {
    // Element 2i low nibble, 2i+1 high nibble (PTX cvt e2m1x2: d[3:0] = b).
    out[i / 2] = static_cast<uint8_t>(out[i / 2] | (codes[i] << (4 * (i % 2))));
  }
  return out;
}

std::vector<uint8_t> unpack_fp4(std::span<const uint8_t> bytes, size_t n) {
  check_length(bytes, n, 4, "unpack_fp4");
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    out[i] = static_cast<uint8_t>((bytes[i / 2] >> (4 * (i % 2))) & 0xF);
  }
  return out;
}

std::vector<uint8_t> pack_fp6(std::span<const uint8_t> codes) {
  check_codes(codes, 0x3F, "pack_fp6");
  std::vector<uint8_t> out(packed_fp6_bytes(codes.size()), 0);
  for (size_t i = 0; i < codes.size(); ++i) {
    // Stream bits [6i, 6i + 6): spread over byte 6i / 8 and maybe the next.
    const size_t bit = 6 * i;
    const unsigned v = unsigned{codes[i]} << (bit % 8);  // up to 13 bits
    out[bit / 8] = static_cast<uint8_t>(out[bit / 8] | (v & 0xFF));
    if ((v >> 8) != 0) {
      out[bit / 8 + 1] = static_cast<uint8_t>(out[bit / 8 + 1] | (v >> 8));
    }
  }
  return out;
}

std::vector<uint8_t> unpack_fp6(std::span<const uint8_t> bytes, size_t n) {
  check_length(bytes, n, 6, "unpack_fp6");
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t bit = 6 * i;
    unsigned w = bytes[bit / 8];
    if (bit % 8 > 2) w |= unsigned{bytes[bit / 8 + 1]} << 8;  // straddles
    out[i] = static_cast<uint8_t>((w >> (bit % 8)) & 0x3F);
  }
  return out;
}

}  // namespace mxc
