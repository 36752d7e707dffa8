// The sm_80+ mma.sync f16/bf16/tf32 families (host/families.cpp): one row
// per instruction and generation with the generation's model, and replays
// of every family through the fake backend (clean, and with a fault that
// must be caught). Their fragment layouts are checked against CUTLASS in
// test_fragments.cpp.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_check/host/fragments.h"
#include "gpu_check/host/instr.h"
#include "gpu_check/host/replay.h"
#include "gpu_check/host/runner.h"
#include "gpu_check/tests/fake_backend.h"
#include "gpu_check/tests/family_lookup.h"

using namespace mxc::gpu;

namespace {

struct Sm80Family {
  const char* stem;   // without @smXX
  const char* model;  // without smXX_
  const char* fmt;
  FragShape shape;
  bool f16_acc;
  uint32_t sum_of_ones;  // K products of 1.0 x 1.0, C = 0: D code
};

constexpr Sm80Family kSm80Families[] = {
    {"mma.m16n8k16.f32.f16.f16", "mma_f16_f32", "f16", FragShape::kM16N8K16x16,
     false, 0x41800000u},  // 16.0f
    {"mma.m16n8k16.f32.bf16.bf16", "mma_bf16_f32", "bf16",
     FragShape::kM16N8K16x16, false, 0x41800000u},
    {"mma.m16n8k16.f16.f16.f16", "mma_f16_f16", "f16", FragShape::kM16N8K16x16,
     true, 0x4C00u},  // 16.0 as f16
    {"mma.m16n8k8.f32.tf32.tf32", "mma_tf32_f32", "tf32",
     FragShape::kM16N8K8x32Sync, false, 0x41000000u},  // 8.0f
};

struct Generation {
  const char* tag;
  int cc;  // a compute capability it runs on
  std::vector<int> ccs;
};

}  // namespace

TEST_CASE("sm_80+ mma.sync families: one per generation, fake replays") {
  const Generation gens[] = {{"sm80", 86, {80, 86, 87}},
                             {"sm89", 89, {89}},
                             {"sm90", 90, {90}},
                             {"sm100", 100, {100, 103}}};
  for (const Sm80Family& s : kSm80Families) {
    for (const Generation& g : gens) {
      const std::string name = std::string(s.stem) + "@" + g.tag;
      INFO("family " << name);
      const Family& f = test::fam(name);
      CHECK(f.header.get("model") == std::string(g.tag) + "_" + s.model);
      CHECK(f.header.get("a-fmt") == s.fmt);
      CHECK(f.header.get("b-fmt") == s.fmt);
      CHECK(f.ccs == g.ccs);
      CHECK(f.needs == kFeatMmaSm80);
      CHECK(f.shape == s.shape);
      CHECK(f.engine == MmaEngine::kSync);
      CHECK(f.f16_acc == s.f16_acc);
      CHECK(family_matches(f, "mma"));
      test::FakeBackend dev;
      dev.cc = g.cc;
      dev.features = kFeatMmaSm80;
      ReplayOptions o;
      o.level = 1;
      o.batch = 4096;
      const auto r = replay_level(dev, f, o);
      CHECK(r.cases > 0);
      CHECK(r.mismatches == 0);
      const auto sw = replay_sweep(dev, f, 1024, o);
      CHECK(sw.cases == 1024u);
      CHECK(sw.mismatches == 0);
      // 1.0 x 1.0 over K through mma_pack_cases and the fake device.
      const int k = shape_info(s.shape).k;
      const uint64_t one = std::string(s.fmt) == "f16"    ? 0x3C00u
                           : std::string(s.fmt) == "bf16" ? 0x3F80u
                                                          : 0x3F800000u;
      std::vector<uint64_t> c(static_cast<size_t>(2 * k + 1), one);
      c.back() = 0;
      const std::vector<std::vector<uint64_t>> cases = {c};
      std::vector<uint32_t> d;
      dev.mma(f, mma_pack_cases(f, cases), d);
      const std::vector<uint64_t> want = {s.sum_of_ones};
      CHECK(mma_case_results(d, 1, want)[0] == s.sum_of_ones);
      // A fault in one result is caught.
      test::FakeBackend bad = dev;
      bad.fault = test::Fault::kBitFlip;
      bad.fault_index = 3 * 8 + 3;
      bad.flip_bit = 12;
      CHECK(replay_level(bad, f, o).mismatches == 1);
    }
  }
}

TEST_CASE(
    "sm_80+ mma.sync families: skipped where the model is not the device's") {
  // An sm_90 device runs the @sm90 rows only; the sm_80 model is not
  // compared on it (each generation has its own model).
  int on90 = 0;
  for (const Family& f : families()) {
    if (f.needs != kFeatMmaSm80) continue;
    const bool runs = std::find(f.ccs.begin(), f.ccs.end(), 90) != f.ccs.end();
    if (runs) {
      ++on90;
      CHECK(f.name.substr(f.name.size() - 5) == "@sm90");
    }
  }
  CHECK(on90 == 4);
}

TEST_CASE("sm_80+ mma.sync families: the device check's mma.legacy selection") {
  // run-device-check.sh phase mma.legacy: --only mma.m16n8k16 --only
  // mma.m16n8k8. On a 9.0 device with sm_80+ SASS the four @sm90 rows run;
  // the other generations' rows are skipped, naming where they run.
  test::FakeBackend b;
  b.cc = 90;
  b.features = kFeatIntrinsics | kFeatFp8Cvt | kFeatMmaFp8 | kFeatMmaSm80;
  RunOptions o;
  o.report_dir =
      (std::filesystem::temp_directory_path() / "mxc_gpu_test_mma_legacy")
          .string();
  std::filesystem::remove_all(o.report_dir);
  o.only = {"mma.m16n8k16", "mma.m16n8k8"};
  o.sweep = 256;
  std::ostringstream out, err;
  const int rc = run(b, o, out, err);
  const std::string text = out.str() + err.str();
  INFO(text);
  CHECK(rc == 0);
  // 4 families, each a level-1 and a sweep report.
  CHECK(text.find("8 families replayed, 12 skipped") != std::string::npos);
  std::ifstream sj(o.report_dir + "/skipped.json");
  const auto s = nlohmann::json::parse(sj);
  CHECK(s.size() == 12u);
  for (const auto& e : s) {
    const std::string f = e["family"];
    CHECK(f.find("@sm90") == std::string::npos);
  }
  // Without sm_80+ SASS (kFeatMmaSm80 absent) the @sm90 rows are skipped
  // too, with the feature reason.
  test::FakeBackend plain = b;
  plain.features = kFeatIntrinsics;
  std::ostringstream out2, err2;
  o.report_dir += "_nofeat";
  std::filesystem::remove_all(o.report_dir);
  CHECK(run(plain, o, out2, err2) == 0);
  CHECK(out2.str().find("0 families replayed, 16 skipped") !=
        std::string::npos);
}
