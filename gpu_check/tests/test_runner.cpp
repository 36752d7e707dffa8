// The mxc-gpu runner against the fake backend: exit codes, skips with
// reasons, reports, CUDA errors with family and case index.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "conformance/vectors/op.h"
#include "conformance/vectors/vector_file.h"
#include "gpu_check/host/runner.h"
#include "gpu_check/tests/fake_backend.h"

using namespace mxc::gpu;
using mxc::gpu::test::FakeBackend;
using mxc::gpu::test::Fault;

namespace {

std::string tmpdir(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("mxc_gpu_test_" + name);
  std::filesystem::remove_all(p);
  return p.string();
}

}  // namespace

TEST_CASE("no device: message and exit 77") {
  FakeBackend b;
  b.present = false;
  RunOptions o;
  o.report_dir = tmpdir("nodev");
  std::ostringstream out, err;
  CHECK(run(b, o, out, err) == kExitSkip);
  CHECK(out.str().find("no CUDA device") != std::string::npos);
}

TEST_CASE("a clean run writes the reports and skips what the device lacks") {
  FakeBackend b;  // sm_120-like: no cvt.rs
  RunOptions o;
  o.report_dir = tmpdir("clean");
  o.only = {"cvt.e2m1x2", "cvt.rs.e4m3x4.f32", "mma.m16n8k32.f32.e4m3.e4m3", "cublaslt"};
  o.sweep = 2000;
  std::ostringstream out, err;
  const int rc = run(b, o, out, err);
  INFO(out.str() << err.str());
  CHECK(rc == 0);
  for (const char* f : {"report.json", "report.junit.xml", "skipped.json", "device.json",
                        "support-matrix.json", "support-matrix.txt", "summary.txt"}) {
    CHECK(std::filesystem::exists(o.report_dir + "/" + f));
  }
  std::ifstream rj(o.report_dir + "/report.json");
  const auto j = nlohmann::json::parse(rj);
  REQUIRE(j.is_array());
  CHECK(j.size() >= 3);
  for (const auto& e : j) CHECK(e["status"] == "pass");
  std::ifstream sj(o.report_dir + "/skipped.json");
  const auto s = nlohmann::json::parse(sj);
  bool rs_skipped = false, sm89_skipped = false;
  for (const auto& e : s) {
    rs_skipped |= e["family"] == "cvt.rs.e4m3x4.f32";
    sm89_skipped |= e["family"] == "mma.m16n8k32.f32.e4m3.e4m3@sm89";
  }
  CHECK(rs_skipped);
  CHECK(sm89_skipped);
  CHECK(out.str().find("FAKE TEST BACKEND") != std::string::npos);
}

TEST_CASE("mismatches give exit 1 and a failing JUnit testcase") {
  FakeBackend b;
  b.fault = Fault::kNibbleOrder;
  RunOptions o;
  o.report_dir = tmpdir("fault");
  o.only = {"cvt.e2m1x2.f32"};
  std::ostringstream out, err;
  CHECK(run(b, o, out, err) == 1);
  std::ifstream x(o.report_dir + "/report.junit.xml");
  std::stringstream ss;
  ss << x.rdbuf();
  CHECK(ss.str().find("lane-order") != std::string::npos);
}

TEST_CASE("a CUDA error names the family and the case index, exit 3") {
  FakeBackend b;
  b.fault = Fault::kCudaError;
  RunOptions o;
  o.only = {"cvt.e4m3x2.f32", "cvt.e5m2x2.f32"};
  std::ostringstream out, err;
  CHECK(run(b, o, out, err) == kExitCudaError);
  CHECK(err.str().find("CUDA error in family cvt.e4m3x2.f32 at case index 0") !=
        std::string::npos);
  CHECK(out.str().find("earlier CUDA error") != std::string::npos);
}

TEST_CASE("bad usage exits 2") {
  FakeBackend b;
  RunOptions o;
  o.only = {"no-such-family"};
  std::ostringstream out, err;
  CHECK(run(b, o, out, err) == 2);
  o.only.clear();
  o.suite = "level9";
  CHECK(run(b, o, out, err) == 2);
}

TEST_CASE("wgmma and tcgen05 families: skipped with reasons elsewhere, run where present") {
  auto reasons = [](FakeBackend& b, const std::string& dir, std::string& text) {
    RunOptions o;
    o.report_dir = tmpdir(dir);
    o.only = {"wgmma", "tcgen05.mma"};
    std::ostringstream out, err;
    const int rc = run(b, o, out, err);
    text = out.str() + err.str();
    std::ifstream sj(o.report_dir + "/skipped.json");
    return std::pair{rc, nlohmann::json::parse(sj)};
  };
  {
    FakeBackend b;  // 12.0
    std::string text;
    const auto [rc, s] = reasons(b, "wg120", text);
    INFO(text);
    CHECK(rc == 0);  // a device is there: skipping is not a failure
    CHECK(s.size() == 33u);  // 8 FP8 + 1 TF32 wgmma + 24 tcgen05 families
    for (const auto& e : s) {
      const std::string f = e["family"], why = e["reason"];
      if (f.rfind("wgmma", 0) == 0)
        CHECK(why.find("9.0 only") != std::string::npos);
      else
        CHECK(why.find("10.0, 10.3") != std::string::npos);
    }
  }
  {
    FakeBackend b;
    b.cc = 90;
    b.features = kFeatIntrinsics | kFeatFp8Cvt | kFeatMmaFp8;  // plain sm_90 SASS
    std::string text;
    const auto [rc, s] = reasons(b, "wg90plain", text);
    INFO(text);
    CHECK(rc == 0);  // a device is there: skipping is not a failure
    CHECK(s.size() == 33u);  // 8 FP8 + 1 TF32 wgmma + 24 tcgen05 families
  }
  {
    FakeBackend b;
    b.cc = 90;
    b.features = kFeatIntrinsics | kFeatFp8Cvt | kFeatMmaFp8 | kFeatWgmma;
    std::string text;
    const auto [rc, s] = reasons(b, "wg90a", text);
    INFO(text);
    CHECK(rc == 0);
    CHECK(s.size() == 24u);  // the tcgen05 families
  }
}

TEST_CASE(
    "zero-rule separator files replay on sm_90a (fake backend: the model's "
    "rules)") {
  // gpu_check/zero-rules/*.txt: hand-built wgmma FP8 cases whose result
  // differs between the zero-rule variants (docs/gpu-check.md); a device
  // that follows another variant shows mismatches classed zero-rule:<v>.
  FakeBackend b;
  b.cc = 90;
  b.features = kFeatIntrinsics | kFeatFp8Cvt | kFeatMmaFp8 | kFeatWgmma;
  RunOptions o;
  o.report_dir = tmpdir("zero_rules");
  o.only = {"wgmma.m64n8k32.f32.e4m3.e4m3"};
  o.support_matrix = false;
  const std::string dir =
      std::string(MXC_SOURCE_DIR) + "/gpu_check/zero-rules/";
  for (const char* f :
       {"sm90-wgmma-fp8-f32-zero-exp.txt", "sm90-wgmma-fp8-f32-zero-sign.txt",
        "sm90-wgmma-fp8-f16-zero-sign.txt"})
    o.vectors.push_back(dir + f);
  std::ostringstream out, err;
  const int rc = run(b, o, out, err);
  INFO(out.str() + err.str());
  CHECK(rc == 0);
  std::ifstream sj(o.report_dir + "/skipped.json");
  CHECK(nlohmann::json::parse(sj).empty());  // every file found its family
  std::ifstream s(o.report_dir + "/summary.txt");
  const std::string summary((std::istreambuf_iterator<char>(s)),
                            std::istreambuf_iterator<char>());
  CHECK(summary.find("zero-exp") != std::string::npos);
  CHECK(summary.find("f16-zero-sign") != std::string::npos);
}

TEST_CASE("capture (--capture) writes the device's results as vector files that read back") {
  // The fake backend swaps the two results of every x2 conversion pair, so
  // the capture must hold the DEVICE's (swapped) results, not the model's:
  // read back, the cases whose captured result differs from the model's
  // expected one are exactly the run's mismatches.
  FakeBackend b;
  b.fault = Fault::kNibbleOrder;
  RunOptions o;
  o.capture_dir = tmpdir("capture");
  o.only = {"cvt.e2m1x2.f32", "mma.m16n8k32.f32.e4m3.e4m3"};
  o.sweep = 300;
  o.report_dir = tmpdir("capture_report");
  std::ostringstream out, err;
  CHECK(run(b, o, out, err) == 1);
  std::ifstream rj(o.report_dir + "/report.json");
  const auto j = nlohmann::json::parse(rj);
  size_t files = 0;
  for (const auto& e : j) {
    const std::string fam = e["file"];
    const bool sweep = fam.size() > 8 && fam.substr(fam.size() - 8) == " (sweep)";
    const std::string base = sweep ? fam.substr(0, fam.size() - 8) : fam;
    const std::string path =
        o.capture_dir + "/" + capture_name(base) + (sweep ? ".sweep" : "") + ".txt";
    INFO(path);
    REQUIRE(std::filesystem::exists(path));
    ++files;
    std::ifstream in(path);
    mxc::vec::Reader rd(in, path);
    const auto op = mxc::vec::make_op(rd.header());
    const auto fi = op->inputs(), fr = op->results();
    std::vector<std::string_view> t;
    uint64_t cases = 0, differ = 0;
    while (rd.next(t)) {
      REQUIRE(t.size() == fi.size() + fr.size());
      std::vector<uint64_t> a(fi.size());
      for (size_t i = 0; i < fi.size(); ++i)
        a[i] = mxc::vec::parse_field(rd, t[i], fi[i].width, fi[i].name.c_str());
      const uint64_t got = mxc::vec::parse_field(rd, t[fi.size()], fr[0].width, "result");
      ++cases;
      if (got != op->expected(a)[0]) ++differ;
    }
    CHECK(cases == e["cases"].get<uint64_t>());
    CHECK(rd.header().get("cases") == std::to_string(cases));
    CHECK(differ == e["mismatches"].get<uint64_t>());
    if (base.rfind("cvt.", 0) == 0) CHECK(differ > 0);
  }
  CHECK(files >= 4);  // cvt level + sweep, mma@sm90-like level + sweep at least
  CHECK(capture_name("mma.m16n8k32.f32.e4m3.e4m3@sm90") == "mma.m16n8k32.f32.e4m3.e4m3_sm90");
}

TEST_CASE("capture (--capture-max) keeps the first N cases of each file") {
  FakeBackend b;
  RunOptions o;
  o.capture_dir = tmpdir("capture_max");
  o.capture_max = 50;
  o.only = {"cvt.e2m1x2.f32"};
  o.sweep = 300;
  std::ostringstream out, err;
  CHECK(run(b, o, out, err) == 0);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(o.capture_dir)) {
    ++files;
    std::ifstream in(e.path());
    mxc::vec::Reader rd(in, e.path().string());
    std::vector<std::string_view> t;
    uint64_t n = 0;
    while (rd.next(t)) ++n;
    CHECK(n == 50);
    CHECK(rd.header().get("cases") == "50");
    CHECK(e.path().extension() == ".txt");  // no .part left behind
  }
  CHECK(files >= 2);  // level and sweep of each family the prefix selects
  CHECK(files % 2 == 0);
}
