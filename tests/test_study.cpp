// mxc study: each study at a small size, checked for the direction and
// sanity of its numbers (never a golden picture), plus the .npy reader, the
// SVG writer and determinism.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "conformance/study/study.h"

using mxc::study::Dist;
using mxc::study::Options;
using Json = nlohmann::ordered_json;

namespace {

Options small(size_t size, std::vector<Dist> dists = {Dist::kGaussian}) {
  Options o;
  o.seed = 7;
  o.size = size;
  o.dists = std::move(dists);
  return o;
}

const Json& row(const Json& results, const std::string& key1,
                const std::string& v1, const std::string& key2,
                const std::string& v2, const std::string& key3 = "",
                const std::string& v3 = "") {
  for (const Json& r : results)
    if (r[key1] == v1 && r[key2] == v2 && (key3.empty() || r[key3] == v3))
      return r;
  throw std::runtime_error("no row " + v1 + " " + v2 + " " + v3);
}

void check_svg(const mxc::study::Result& r) {
  const std::string svg = mxc::study::render_svg(r.figure);
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(svg.find("<text") != std::string::npos);
  CHECK(svg.find("nan") == std::string::npos);
  CHECK(svg.find("inf") == std::string::npos);
}

}  // namespace

TEST_CASE("study: registry and distributions", "[study]") {
  CHECK(mxc::study::studies().size() == 6);
  CHECK(mxc::study::find_study("fp4") != nullptr);
  CHECK(mxc::study::find_study("nope") == nullptr);
  CHECK(mxc::study::parse_dist("student-t") == Dist::kStudentT);
  CHECK(!mxc::study::parse_dist("cauchy"));
  // Deterministic, and the moments are what the names say.
  const auto g = mxc::study::sample(Dist::kGaussian, 20000, 3);
  CHECK(g == mxc::study::sample(Dist::kGaussian, 20000, 3));
  CHECK(g != mxc::study::sample(Dist::kGaussian, 20000, 4));
  for (Dist d : {Dist::kGaussian, Dist::kLaplace}) {
    const auto x = mxc::study::sample(d, 20000, 5);
    double m = 0, v = 0;
    for (float f : x) m += f;
    m /= 20000;
    for (float f : x) v += (f - m) * (f - m);
    v /= 20000;
    CHECK(std::fabs(m) < 0.05);
    CHECK(std::fabs(v - 1) < 0.08);
  }
  const auto ln = mxc::study::sample(Dist::kLognormal, 20000, 5);
  double logm = 0;
  for (float f : ln) logm += std::log(std::fabs(f));
  CHECK(std::fabs(logm / 20000) < 0.05);
}

TEST_CASE("study: .npy reader", "[study]") {
  const auto dir = std::filesystem::temp_directory_path() / "mxc_study_test";
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& header,
                         const std::vector<float>& v, int major = 1) {
    std::string h = header;
    const size_t pre = major == 1 ? 10 : 12;
    while ((pre + h.size() + 1) % 64 != 0) h += ' ';
    h += '\n';
    std::string b = "\x93NUMPY";
    b += static_cast<char>(major);
    b += '\0';
    const size_t n = h.size();
    b += static_cast<char>(n & 0xFF);
    b += static_cast<char>((n >> 8) & 0xFF);
    if (major != 1) b += std::string(2, '\0');
    b += h;
    for (float f : v) {
      char c[4];
      std::memcpy(c, &f, 4);
      b.append(c, 4);
    }
    const auto p = (dir / name).string();
    std::ofstream(p, std::ios::binary) << b;
    return p;
  };
  const std::vector<float> v = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -0.5f};
  std::vector<size_t> shape;
  const auto p1 = write("a.npy",
                        "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", v);
  CHECK(mxc::study::read_npy_f32(p1, &shape) == v);
  CHECK(shape == std::vector<size_t>{6});
  const auto p2 = write("b.npy",
                        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                        v, 2);
  CHECK(mxc::study::read_npy_f32(p2, &shape) == v);
  CHECK(shape == std::vector<size_t>{2, 3});
  const auto p3 = write("c.npy",
                        "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", v);
  try {
    mxc::study::read_npy_f32(p3);
    FAIL("f8 accepted");
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    CHECK(m.find(p3 + ":") == 0);
    CHECK(m.find("'<f8'") != std::string::npos);
  }
  const auto p4 = write("d.npy",
                        "{'descr': '<f4', 'fortran_order': False, 'shape': (9,), }", v);
  CHECK_THROWS_AS(mxc::study::read_npy_f32(p4), std::runtime_error);
  CHECK_THROWS_AS(mxc::study::read_npy_f32((dir / "missing.npy").string()),
                  std::runtime_error);
  // A study reads it (truncated to whole blocks: 6 values < 32 -> error).
  Options o;
  o.input = p1;
  CHECK_THROWS_AS(mxc::study::scale_rounding(o), std::runtime_error);
  std::filesystem::remove_all(dir);
}

TEST_CASE("study scale-rounding: FLOOR saturates, RCEIL does not", "[study]") {
  const auto r = mxc::study::scale_rounding(small(4096));
  const Json& res = r.json["results"];
  for (const char* f : {"MXFP8 E4M3", "MXFP8 E5M2", "MXFP6 E2M3", "MXFP4 E2M1"}) {
    const Json& fl = row(res, "format", f, "rule", "FLOOR (OCP v1.0)");
    const Json& rc = row(res, "format", f, "rule", "RCEIL");
    CHECK(fl["saturated_frac"].get<double>() > 0.0005);
    CHECK(rc["saturated_frac"].get<double>() == 0);
    CHECK(row(res, "format", f, "rule", "CEIL")["saturated_frac"].get<double>() == 0);
    // FLOOR clips the block amax by up to 1 - max/2^(emax+1).
    CHECK(fl["max_rel_err_block_amax"].get<double>() >
          rc["max_rel_err_block_amax"].get<double>());
  }
  // CEIL wastes range: more flushed to zero than FLOOR in MXFP4.
  CHECK(row(res, "format", "MXFP4 E2M1", "rule", "CEIL")["flushed_frac"].get<double>() >
        row(res, "format", "MXFP4 E2M1", "rule", "FLOOR (OCP v1.0)")["flushed_frac"].get<double>());
  for (const Json& x : res) {
    CHECK(x["sqnr_db"].get<double>() > 10);
    CHECK(x["sqnr_db"].get<double>() < 40);
  }
  check_svg(r);
}

TEST_CASE("study element-format: E5M2 range, E4M3 precision", "[study]") {
  const auto r = mxc::study::element_format(small(4096));
  const Json& f = r.json["formats"];
  CHECK(f[0]["format"] == "E4M3");
  CHECK(f[0]["normal_binades"] == 15);
  CHECK(f[1]["normal_binades"] == 30);
  CHECK(f[1]["binades_with_subnormals"].get<double>() >
        f[0]["binades_with_subnormals"].get<double>() + 10);
  const Json& res = r.json["results"];
  CHECK(row(res, "data", "gaussian", "format", "E5M2")["mse"].get<double>() >
        2 * row(res, "data", "gaussian", "format", "E4M3")["mse"].get<double>());
  // The probe: E4M3 more precise near amax, E5M2 still representing values
  // 20 binades below it where E4M3 has flushed them.
  const Json& c4 = r.json["precision_vs_range"][0]["points"];
  const Json& c5 = r.json["precision_vs_range"][1]["points"];
  CHECK(c4[0]["rms_rel_err"].get<double>() < c5[0]["rms_rel_err"].get<double>());
  CHECK(c4[20]["rms_rel_err"].get<double>() > 0.9);
  CHECK(c5[20]["rms_rel_err"].get<double>() < 0.1);
  check_svg(r);
}

TEST_CASE("study fp4: NVFP4 beats MXFP4; RHT tames heavy tails", "[study]") {
  const auto r = mxc::study::fp4(small(8192, {Dist::kGaussian, Dist::kStudentT}));
  const Json& res = r.json["results"];
  const auto mse = [&](const char* d, const char* s) {
    return row(res, "data", d, "scheme", s)["mse"].get<double>();
  };
  const auto flushed = [&](const char* d, const char* s) {
    return row(res, "data", d, "scheme", s)["flushed_frac"].get<double>();
  };
  for (const char* d : {"gaussian", "student-t"}) {
    CHECK(mse(d, "NVFP4") < mse(d, "MXFP4 RCEIL"));
    CHECK(mse(d, "NVFP4") < mse(d, "MXFP4 FLOOR"));
  }
  // Heavy tails: the RHT lowers MXFP4 error a lot and halves NVFP4's
  // flush-to-zero fraction; on gaussian data it changes little.
  CHECK(mse("student-t", "MXFP4 RCEIL + RHT") < 0.8 * mse("student-t", "MXFP4 RCEIL"));
  CHECK(flushed("student-t", "NVFP4 + RHT") < 0.7 * flushed("student-t", "NVFP4"));
  CHECK(std::fabs(mse("gaussian", "NVFP4 + RHT") / mse("gaussian", "NVFP4") - 1) < 0.1);
  check_svg(r);
}

TEST_CASE("study stochastic: SR is unbiased on long sums", "[study]") {
  const auto r = mxc::study::stochastic(small(32768));
  const Json& g = r.json["results"][0];
  // bf16 RNE stagnates: almost the whole sum is lost; SR keeps it.
  CHECK(g["bf16_rel_err_rne"].get<double>() < -0.9);
  CHECK(std::fabs(g["bf16_rel_err_sr_mean_over_seeds"].get<double>()) <
        0.05 * std::fabs(g["bf16_rel_err_rne"].get<double>()));
  // NVFP4: SR costs per-element error, buys a smaller bias.
  CHECK(g["nvfp4_rms_err_sr"].get<double>() > g["nvfp4_rms_err_rne"].get<double>());
  CHECK(std::fabs(g["nvfp4_bias_sr"].get<double>()) <
        std::fabs(g["nvfp4_bias_rne"].get<double>()));
  check_svg(r);
}

TEST_CASE("study accumulation: Hopper FP8 error grows with K", "[study]") {
  const auto r = mxc::study::accumulation(small(1024));
  std::vector<double> hop, bw, promo;
  for (const Json& x : r.json["results"]) {
    if (!x["same_sign"].get<bool>()) continue;
    hop.push_back(x["models"][0]["mean_err"].get<double>());
    promo.push_back(x["models"][1]["mean_err"].get<double>());
    bw.push_back(x["models"][2]["mean_err"].get<double>());
  }
  REQUIRE(hop.size() == 6);  // K = 32 .. 1024
  CHECK(hop.back() > 20 * hop.front());
  for (size_t i = 1; i < hop.size(); ++i) CHECK(hop[i] > hop[i - 1]);
  for (size_t i = 0; i < hop.size(); ++i) CHECK(hop[i] > 100 * bw[i]);
  CHECK(promo.back() < hop.back() / 5);  // promotion every 128 caps it
  CHECK(hop.back() > 0.005);              // ~1% at K = 1024
  CHECK(bw.back() < 1e-5);
  check_svg(r);
}

TEST_CASE("study block-vs-tensor: MX blocks beat one tensor scale", "[study]") {
  const auto r = mxc::study::block_vs_tensor(small(4096));
  const Json& res = r.json["results"];
  const Json& s0 = res.front();
  const Json& s40 = res.back();
  REQUIRE(s40["spread_binades"] == 40);
  const char* mx = "MXFP8 E4M3 (block 32, RCEIL)";
  const char* pt = "per-tensor E4M3";
  // Same data, no spread: equal quality; 40 binades: MX unchanged, per-tensor
  // flushes most small blocks.
  CHECK(std::fabs(s0[mx]["mean_block_sqnr_db"].get<double>() -
                  s0[pt]["mean_block_sqnr_db"].get<double>()) < 1);
  CHECK(s40[mx]["mean_block_sqnr_db"].get<double>() >
        s40[pt]["mean_block_sqnr_db"].get<double>() + 10);
  CHECK(s40[mx]["flushed_frac"].get<double>() == 0);
  CHECK(s40[pt]["flushed_frac"].get<double>() > 0.3);
  const Json& two = r.json["two_level_2p10_2m12"][0];
  CHECK(two[pt]["flushed_frac"].get<double>() > 0.45);
  CHECK(two[mx]["flushed_frac"].get<double>() == 0);
  check_svg(r);
}

TEST_CASE("study: same seed, same numbers; outputs written", "[study]") {
  const auto a = mxc::study::fp4(small(2048));
  const auto b = mxc::study::fp4(small(2048));
  CHECK(a.json == b.json);
  CHECK(a.table == b.table);
  const auto dir = std::filesystem::temp_directory_path() / "mxc_study_out";
  const auto paths = mxc::study::write_outputs(a, dir.string());
  REQUIRE(paths.size() == 2);
  CHECK(std::filesystem::file_size(paths[0]) > 1000);
  std::ifstream j(paths[1]);
  CHECK(Json::parse(j)["study"] == "fp4");
  std::filesystem::remove_all(dir);
}
