// mxc study: numerics studies built on the block quantizers, profiles and MMA
// models. Each study is a pure function of its options (deterministic for a
// seed) returning a printable table, the numbers as JSON and a figure;
// docs/studies.md describes what each one measures and how to read it.
#pragma once

#include <bit>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/study/data.h"
#include "conformance/study/svg_plot.h"

namespace mxc::study {

struct Options {
  std::vector<Dist> dists;  // empty: every distribution
  std::string input;        // a float32 .npy file instead of distributions
  uint64_t seed = 1;
  size_t size = 0;          // 0: the study's default (see `mxc study --list`)
};

struct Result {
  std::string name;
  std::string table;  // printed to stdout
  nlohmann::ordered_json json;
  Figure figure;
};

using StudyFn = Result (*)(const Options&);
struct StudyInfo {
  std::string_view name;
  std::string_view summary;
  std::string_view size_meaning;  // what --size counts
  size_t default_size;
  StudyFn run;
};

std::span<const StudyInfo> studies();
const StudyInfo* find_study(std::string_view name);

// One input: a named array of values (a distribution or the .npy file).
struct DataSet {
  std::string name;
  std::vector<float> x;
};
// The data sets a study runs on: the .npy file (truncated to a multiple of
// `multiple` values) or n draws from each selected distribution, seeded by
// (seed, distribution). Throws std::runtime_error on a bad file or one with
// fewer than at_least values (studies that index a fixed amount of data).
std::vector<DataSet> datasets(const Options& o, size_t n, size_t multiple,
                              size_t at_least = 0);

// Largest --size any study takes (mxc study validates it).
inline constexpr size_t kMaxStudySize = size_t{1} << 24;

// Writes DIR/NAME.svg and DIR/NAME.json (creating DIR); returns the paths.
std::vector<std::string> write_outputs(const Result& r, const std::string& dir);

// The studies (studies_*.cpp).
Result scale_rounding(const Options& o);
Result element_format(const Options& o);
Result fp4(const Options& o);
Result stochastic(const Options& o);
Result accumulation(const Options& o);
Result block_vs_tensor(const Options& o);

// Shared helpers.
inline uint32_t f32_bits(float v) { return std::bit_cast<uint32_t>(v); }
inline float bits_f32(uint32_t b) { return std::bit_cast<float>(b); }
// 10 log10(signal / noise) in dB; +inf for zero noise.
double sqnr_db(double signal, double noise);

}  // namespace mxc::study
