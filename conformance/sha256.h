// SHA-256 (FIPS 180-4) for the vector corpus MANIFEST: small, dependency
// free, streaming.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace mxc {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  std::string hex();  // finishes; the object is spent afterwards

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  uint8_t buf_[64];
  size_t used_ = 0;
  uint64_t bytes_ = 0;
};

std::string sha256_hex(std::string_view data);

}  // namespace mxc
