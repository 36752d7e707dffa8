// Study inputs: deterministic random distributions built on SplitMix64 (never
// libc rand() or std::*_distribution, whose output differs between standard
// libraries) and a reader for float32 .npy files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/splitmix64.h"

namespace mxc::study {

enum class Dist : uint8_t { kGaussian, kLaplace, kStudentT, kLognormal };
inline constexpr Dist kAllDists[] = {Dist::kGaussian, Dist::kLaplace,
                                     Dist::kStudentT, Dist::kLognormal};

std::optional<Dist> parse_dist(std::string_view name);
std::string_view dist_name(Dist d);

// Draws from the four shapes, all from one SplitMix64 stream:
//   uniform   (top 53 bits + 1/2) * 2^-53, in (0, 1) (never 0 or 1)
//   gaussian  Box-Muller (both outputs used, in order)
//   laplace   inverse CDF, scale 1/sqrt(2) (unit variance)
//   student-t df = 3: Z / sqrt(V / 3), V the sum of three squared gaussians
//   lognormal exp(Z) (mu 0, sigma 1) with a random sign
// std::log/exp/cos/sqrt come from the C library; their last-ulp results are
// the same on one platform, so a seed gives the same data on that platform.
class Sampler {
 public:
  explicit Sampler(uint64_t seed) : g_(seed) {}
  double uniform();
  double gaussian();
  double draw(Dist d);

 private:
  SplitMix64 g_;
  bool have_spare_ = false;
  double spare_ = 0;
};

std::vector<float> sample(Dist d, size_t n, uint64_t seed);

// Throws std::runtime_error naming `path` unless it is a readable regular
// file (missing, a directory, a device or fifo, no permission).
void check_input_file(const std::string& path);

// A little-endian float32 .npy file (format version 1.0, 2.0 or 3.0), 1-D or
// 2-D, C order; values come back flattened row-major. Throws
// std::runtime_error("FILE:OFFSET: error: ...") for anything else.
std::vector<float> read_npy_f32(const std::string& path,
                                std::vector<size_t>* shape = nullptr);
// The same from the file's bytes (path only names it in messages).
std::vector<float> parse_npy_f32(const std::string& bytes,
                                 const std::string& path,
                                 std::vector<size_t>* shape = nullptr);

}  // namespace mxc::study
