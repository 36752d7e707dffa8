// mxc-gpu run --devices / --device / --shard against the fake backend
// standing in for several devices (docs/scale-out.md), and the shards of a
// run merged (conformance/vectors/merge.h) against one unsharded run.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "conformance/vectors/merge.h"
#include "gpu_check/host/runner.h"
#include "gpu_check/tests/fake_backend.h"

using namespace mxc::gpu;
using mxc::gpu::test::FakeBackend;
using mxc::gpu::test::Fault;

namespace {

std::string tmpdir(const std::string& name) {
  const auto p =
      std::filesystem::temp_directory_path() / ("mxc_gpu_scaleout_" + name);
  std::filesystem::remove_all(p);
  return p.string();
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f);
  return nlohmann::json::parse(f);
}

std::vector<mxc::vec::Report> read_reports(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f);
  return mxc::vec::parse_json_report(f, path);
}

// A JSON string as std::string (comparing json with a literal trips GCC
// 12's -Warray-bounds inside nlohmann).
std::string str(const nlohmann::json& j) { return j.get<std::string>(); }

}  // namespace

TEST_CASE(
    "--devices all: three devices, one faulty, each reported with its UUID and "
    "PCI id") {
  FakeBackend b;
  b.devices = 3;
  b.device_faults = {Fault::kNone, Fault::kNibbleOrder, Fault::kNone};
  RunOptions o;
  o.devices = "all";
  o.only = {"cvt.e2m1x2.f32", "cvt.e4m3x2.f32"};
  o.threads = 3;
  o.report_dir = tmpdir("all");
  std::ostringstream out, err;
  const int rc = run(b, o, out, err);
  INFO(out.str() << err.str());
  CHECK(rc == 1);  // the faulty device's mismatches
  CHECK(out.str().find(
            "3 devices, one host thread each, 1 emulator threads each") !=
        std::string::npos);
  const auto devs = read_json(o.report_dir + "/devices.json");
  REQUIRE(devs.size() == 3u);
  for (int k = 0; k < 3; ++k) {
    INFO("gpu " << k);
    const auto& d = devs[static_cast<size_t>(k)];
    CHECK(d["index"] == k);
    CHECK(d["exit"] == (k == 1 ? 1 : 0));
    CHECK((d["mismatches"].get<uint64_t>() > 0) == (k == 1));
    const std::string uuid =
        fmt::format("GPU-fake0000-0000-0000-0000-{:012x}", k);
    const std::string pci = fmt::format("0000:{:02x}:00.0", 0x17 + k);
    CHECK(str(d["uuid"]) == uuid);
    CHECK(str(d["pci_bus_id"]) == pci);
    const auto rep =
        read_json(fmt::format("{}/gpu{}/report.json", o.report_dir, k));
    REQUIRE(rep.size() ==
            4u);  // cvt.e2m1x2.f32, cvt.e4m3x2.f32 and their .relu forms
    for (const auto& e : rep) {
      CHECK(str(e["run"]["device"]) == std::to_string(k));
      CHECK(str(e["run"]["device_uuid"]) == uuid);
      CHECK(str(e["run"]["device_pci"]) == pci);
      CHECK(str(e["status"]) == std::string(k == 1 ? "fail" : "pass"));
      for (const auto& m : e["first_mismatches"]) {
        // Every mismatch names the part.
        const std::string text = m["text"];
        CHECK(text.rfind(fmt::format("[gpu {} {} pci {}] ", k, uuid, pci), 0) ==
              0);
        CHECK(str(m["class"]) == "lane-order");
      }
    }
  }
  // The healthy devices ran the same cases as the faulty one.
  const auto d0 = read_json(o.report_dir + "/gpu0/report.json");
  const auto d1 = read_json(o.report_dir + "/gpu1/report.json");
  CHECK(d0[0]["cases"] == d1[0]["cases"]);
  std::ifstream sum(o.report_dir + "/summary.txt");
  std::stringstream ss;
  ss << sum.rdbuf();
  CHECK(ss.str().find("GPU-fake0000-0000-0000-0000-000000000001") !=
        std::string::npos);
  CHECK(ss.str().find("3 devices: FAIL") != std::string::npos);
}

TEST_CASE(
    "--devices lists and --device: only the named devices, bad lists exit 2") {
  FakeBackend b;
  b.devices = 3;
  std::vector<int> opened;
  b.opened = &opened;
  RunOptions o;
  o.only = {"cvt.e4m3x2.f32"};
  o.report_dir = tmpdir("list");
  std::ostringstream out, err;
  o.devices = "0,2";
  CHECK(run(b, o, out, err) == 0);
  CHECK(opened == std::vector<int>{0, 2});
  CHECK(std::filesystem::exists(o.report_dir + "/gpu2/report.json"));
  CHECK_FALSE(std::filesystem::exists(o.report_dir + "/gpu1"));
  for (const auto& [list, why] :
       std::vector<std::pair<std::string, std::string>>{
           {"0,5", "device 5 does not exist (3 devices visible)"},
           {"1,1", "device 1 listed twice"},
           {"x", "'x' is not a device index"},
           {"0,", "'' is not a device index"}}) {
    INFO(list);
    std::ostringstream e2;
    o.devices = list;
    CHECK(run(b, o, out, e2) == 2);
    CHECK(e2.str().find(why) != std::string::npos);
  }
  o.devices.clear();
  o.device = 2;
  o.report_dir = tmpdir("one");
  opened.clear();
  CHECK(run(b, o, out, err) == 0);
  CHECK(opened == std::vector<int>{2});
  const auto rep = read_json(o.report_dir + "/report.json");
  CHECK(str(rep[0]["run"]["device"]) == "2");
  o.device = 3;
  std::ostringstream e3;
  CHECK(run(b, o, out, e3) == 2);
  CHECK(e3.str().find("--device '3': device 3 does not exist") !=
        std::string::npos);
}

TEST_CASE(
    "--shard i/n: three shards merged equal one unsharded run, a missing one "
    "is named") {
  // The fault is per tile (A/B scales exchanged): every shard finds the
  // mismatches of its own tiles, so counts and classes must add up.
  FakeBackend b;
  b.fault = Fault::kScaleSwap;
  RunOptions o;
  o.only = {"mma.m16n8k32.kind::mxf8f6f4.1X.e4m3.e5m2", "cvt.e4m3x2.f32",
            "cublaslt.nvfp4.tn.alpha"};
  o.sweep = 128 * 30;
  o.support_matrix = false;
  std::ostringstream out, err;
  o.report_dir = tmpdir("whole");
  CHECK(run(b, o, out, err) == 1);
  const auto whole = read_reports(o.report_dir + "/report.json");
  // The cuBLASLt family (a few problems) runs whole in shard 0: "0/1".
  const auto gemm = std::find_if(whole.begin(), whole.end(), [](const auto& r) {
    return r.file == "cublaslt.nvfp4.tn.alpha";
  });
  REQUIRE(gemm != whole.end());
  CHECK(gemm->cases > 0);
  std::vector<mxc::vec::MergeInput> parts;
  for (int i = 0; i < 3; ++i) {
    o.shard = fmt::format("{}/3", i);
    o.report_dir = tmpdir(fmt::format("shard{}", i));
    run(b, o, out, err);
    parts.push_back(
        {o.report_dir, read_reports(o.report_dir + "/report.json")});
    for (const auto& r : parts.back().reports) {
      const bool g = r.file == "cublaslt.nvfp4.tn.alpha";
      CHECK(r.run.at("shard") == (g ? "0/1" : o.shard));
      CHECK((!g || i == 0));  // shards 1 and 2 skip it (skipped.json says why)
      // Mismatches keep the whole run's case index: the MMA sweep's tile
      // (index / 128) is one of this shard's, i mod 3, as mxc gen --shard.
      if (r.file.find("(sweep)") != std::string::npos && r.op == "mma") {
        CHECK_FALSE(r.first.empty());
        for (const auto& ml : r.first) CHECK(ml.line / 128 % 3 == i);
      }
    }
  }
  const auto m = mxc::vec::merge_reports(parts);
  INFO(mxc::vec::render_merge_summary(m));
  CHECK(m.errors.empty());
  CHECK(m.missing.empty());
  REQUIRE(m.merged.size() == whole.size());
  uint64_t mism = 0;
  for (size_t k = 0; k < whole.size(); ++k) {
    INFO(whole[k].file);
    CHECK(m.merged[k].file == whole[k].file);
    CHECK(m.merged[k].cases == whole[k].cases);
    CHECK(m.merged[k].mismatches == whole[k].mismatches);
    CHECK(m.merged[k].by_class == whole[k].by_class);
    mism += whole[k].mismatches;
  }
  CHECK(mism > 0);
  // The sweep's 30 tiles split 10 + 10 + 10 (tiles i, i+3, ...).
  for (const auto& r : parts[1].reports) {
    if (r.file.find("(sweep)") != std::string::npos) CHECK(r.cases == 128 * 10);
  }
  parts.erase(parts.begin() + 1);
  const auto gap = mxc::vec::merge_reports(parts);
  REQUIRE(gap.missing.size() >= 1u);
  CHECK(gap.missing[0] == "shard 1/3");
  // The same shard twice is refused.
  parts.push_back(parts[0]);
  const auto dup = mxc::vec::merge_reports(parts);
  REQUIRE_FALSE(dup.errors.empty());
  CHECK(dup.errors[0].find("shard 0/3 given twice") != std::string::npos);
}

TEST_CASE("--shard: malformed shards and vector files with shards exit 2") {
  FakeBackend b;
  RunOptions o;
  o.only = {"cvt.e4m3x2.f32"};
  for (const char* s : {"3/3", "1/0", "a/2", "1/2/3", "1"}) {
    INFO(s);
    o.shard = s;
    std::ostringstream out, err;
    CHECK(run(b, o, out, err) == 2);
    CHECK(err.str().find("--shard") != std::string::npos);
  }
  o.shard = "1/2";
  o.vectors = {"x.txt"};
  std::ostringstream out, err;
  CHECK(run(b, o, out, err) == 2);
  CHECK(err.str().find("shard the vector files themselves") !=
        std::string::npos);
}
