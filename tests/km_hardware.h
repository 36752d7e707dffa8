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
  std::string zero_exp, zero_sign;  // header's zero-exp= / zero-sign=, or ""
  int k = 0;
  std::vector<KmCase> cases;
};

// The capture folder: $MXC_KM_HARDWARE_DIR, else
// <source>/../shared/oracles/km-hardware. Empty when it does not exist.
std::filesystem::path km_hardware_dir();

// <source>/tests/data/<name>: the packed folders in this layout that the
// repository carries (km-hardware-extra, mmasim-nv).
std::filesystem::path repo_data_dir(const std::string& name);

// Unpacks every *.tsv.gz of `src` into a fresh temporary folder (gzip -dc)
// and returns it; throws std::runtime_error when gzip fails.
std::filesystem::path unpack_gz_folder(const std::filesystem::path& src);

// Every <model>.<fmt>.tsv of `dir` (sorted by name), read with its inputs.
// Throws std::runtime_error naming file:line on malformed data.
std::vector<KmFile> read_km_captures(const std::filesystem::path& dir);

}  // namespace mxc::test
