#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "conformance/io.h"
#include "conformance/study/study.h"

namespace mxc::study {
namespace {

constexpr std::array kStudies = {
    StudyInfo{"scale-rounding",
              "E8M0 scale rounding FLOOR (OCP v1.0) vs CEIL vs EVEN vs RCEIL "
              "for MXFP8/MXFP6/MXFP4: saturation, flush to zero, SQNR",
              "elements per distribution", 65536, scale_rounding},
    StudyInfo{"element-format",
              "MXFP8 E4M3 vs E5M2 under 32-element block scaling: binades "
              "covered, precision vs range",
              "elements per distribution", 65536, element_format},
    StudyInfo{"fp4",
              "MXFP4 (E8M0, block 32) vs NVFP4 (UE4M3, block 16, tensor "
              "scale), with and without the 16x16 random Hadamard transform",
              "elements per distribution", 65536, fp4},
    StudyInfo{"stochastic",
              "round-to-nearest-even vs stochastic rounding on a long sum of "
              "small gradients (bf16 accumulator; NVFP4 gradients)",
              "summation steps", 131072, stochastic},
    StudyInfo{"accumulation",
              "error of a K-long FP8 dot product under the Hopper (13-bit), "
              "Blackwell (25-bit) MMA models vs exact, as a function of K",
              "largest K", 16384, accumulation},
    StudyInfo{"block-vs-tensor",
              "one per-tensor FP8 scale vs MXFP8 block scales on data whose "
              "blocks span many binades",
              "elements per magnitude spread", 32768, block_vs_tensor},
};

}  // namespace

std::span<const StudyInfo> studies() { return kStudies; }

const StudyInfo* find_study(std::string_view name) {
  for (const StudyInfo& s : kStudies)
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<DataSet> datasets(const Options& o, size_t n, size_t multiple,
                              size_t at_least) {
  std::vector<DataSet> out;
  if (!o.input.empty()) {
    std::vector<float> x = read_npy_f32(o.input);
    const size_t keep = x.size() / multiple * multiple;
    const size_t need = std::max(multiple, at_least);
    if (keep < need)
      throw std::runtime_error(fmt::format(
          "{}: error: {} values, this study needs at least {}{}", o.input,
          x.size(), need,
          at_least > multiple ? " (a smaller --size needs fewer)" : ""));
    for (float v : x)
      if (!std::isfinite(v))
        throw std::runtime_error(fmt::format(
            "{}: error: the studies take finite values only (Inf/NaN found)",
            o.input));
    x.resize(keep);
    out.push_back({std::filesystem::path(o.input).stem().string(), std::move(x)});
    return out;
  }
  std::vector<Dist> ds = o.dists;
  if (ds.empty()) ds.assign(std::begin(kAllDists), std::end(kAllDists));
  if (n > kMaxStudySize * 64)
    throw std::runtime_error(fmt::format("--size: {} values is too many", n));
  const size_t m = (n + multiple - 1) / multiple * multiple;
  for (Dist d : ds) {
    // One stream per (seed, distribution), independent of which are chosen.
    SplitMix64 mix(o.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(d) + 1);
    out.push_back({std::string(dist_name(d)), sample(d, m, mix.next())});
  }
  return out;
}

std::vector<std::string> write_outputs(const Result& r, const std::string& dir) {
  std::filesystem::create_directories(dir);
  const std::string svg = (std::filesystem::path(dir) / (r.name + ".svg")).string();
  const std::string json = (std::filesystem::path(dir) / (r.name + ".json")).string();
  // Checked and atomic (io::write_file_atomic throws io::OutputError).
  io::write_file_atomic(svg, render_svg(r.figure));
  io::write_file_atomic(json, r.json.dump(2, ' ', false,
                                          nlohmann::json::error_handler_t::replace) +
                                  "\n");
  return {svg, json};
}

double sqnr_db(double signal, double noise) {
  if (noise == 0) return INFINITY;
  return 10.0 * std::log10(signal / noise);
}

}  // namespace mxc::study
