// Reader of the Khattak-Mikaitis GPU captures as laid out in
// ../shared/oracles/km-hardware/ (README there): inputs-<fmt>.tsv (A then B
// per row, fixed-width hex fields) and <model>.<fmt>.tsv (`#` header lines,
// then `gpu C D` per row, restarting the inputs for each GPU).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mxc::test {

struct KmCase {
  std::string gpu;
  std::vector<uint64_t> a, b;
  uint64_t c = 0, d = 0;
};

struct KmFile {
  std::filesystem::path path;
  std::string model, a_fmt, b_fmt, c_fmt;
  int k = 0;
  std::vector<KmCase> cases;
};

// The capture folder: $MXC_KM_HARDWARE_DIR, else
// <source>/../shared/oracles/km-hardware. Empty when it does not exist.
std::filesystem::path km_hardware_dir();

// Every <model>.<fmt>.tsv of `dir` (sorted by name), read with its inputs.
// Throws std::runtime_error naming file:line on malformed data.
std::vector<KmFile> read_km_captures(const std::filesystem::path& dir);

}  // namespace mxc::test
