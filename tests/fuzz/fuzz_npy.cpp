// libFuzzer target for the .npy reader of `mxc study --input`: any bytes
// give the values or a std::runtime_error naming the offset, never a crash
// or a read past the buffer.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "conformance/study/data.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string s(reinterpret_cast<const char*>(data), size);
  try {
    std::vector<size_t> shape;
    const auto x = mxc::study::parse_npy_f32(s, "fuzz.npy", &shape);
    size_t n = 1;
    for (size_t d : shape) n *= d;
    if (n != x.size()) __builtin_trap();  // the shape must match the values
  } catch (const std::runtime_error&) {
  }
  return 0;
}
