// mxc conformance: the main job. Checks the emulator against its oracles
// (the self-check), verifies every committed golden-vector file against the
// emulator (and its MANIFEST sha256), replays on the GPU when mxc-gpu is
// built and a GPU is present, prints one summary table and writes JSON and
// JUnit reports.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "conformance/cli/commands.h"
#include "conformance/selfcheck.h"
#include "conformance/sha256.h"
#include "conformance/vectors/verify.h"

namespace mxc::cli {
namespace {

namespace fs = std::filesystem;

struct ConformanceOptions {
  std::string vectors_dir = MXC_SOURCE_DIR "/vectors";
  std::string report_dir = "build/reports";
  std::string gpu = "";
};

int run(const ConformanceOptions& o) {
  fs::create_directories(o.report_dir);
  std::vector<vec::Report> reports;
  fmt::print("{:<44} {:>10} {:>10} {:>9}\n", "check", "cases", "mismatch",
             "status");
  int failures = 0;

  // 1. Oracles.
  SelfcheckOptions so;
  const auto rows = run_selfcheck(so);
  for (Oracle orc : {Oracle::kCuda, Oracle::kExact}) {
    vec::Report r;
    r.file = fmt::format("selfcheck ({})", oracle_name(orc));
    r.op = "convert";
    r.description = "emulator vs " + std::string(oracle_name(orc));
    for (const auto& row : rows) {
      if (row.check.oracle != orc) continue;
      r.cases += row.cases;
      r.mismatches += row.mismatches;
      r.accepted += row.deviations;
      if (row.deviations) r.accepted_by["documented-deviation"] += row.deviations;
      if (row.mismatches) {
        r.by_class[fmt::format("{}->{} {}", desc(row.check.from).name,
                               desc(row.check.to).name,
                               spec_label(row.check.spec))] += row.mismatches;
      }
    }
    if (r.cases == 0) {
      fmt::print("{:<44} {:>10} {:>10} {:>9}\n", r.file, 0, 0, "skipped");
      continue;
    }
    fmt::print("{:<44} {:>10} {:>10} {:>9}\n", r.file, r.cases, r.mismatches,
               r.mismatches ? "FAIL" : "pass");
    failures += r.mismatches ? 1 : 0;
    reports.push_back(r);
  }

  // 2. The committed corpus.
  std::ifstream manifest(o.vectors_dir + "/MANIFEST");
  if (!manifest) {
    fmt::print(stderr, "mxc conformance: error: no {}/MANIFEST\n",
               o.vectors_dir);
    return 2;
  }
  std::string sha, file;
  size_t cases;
  while (manifest >> sha >> cases >> file) {
    const std::string path = o.vectors_dir + "/" + file;
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    vec::Report r;
    try {
      std::istringstream in(text);
      vec::VerifyOptions vo;
      r = vec::verify(in, file, nullptr, "", vo);
    } catch (const vec::InputError& e) {
      fmt::print(stderr, "{}\n", e.what());
      return 2;
    }
    if (sha256_hex(text) != sha) {
      r.mismatches += 1;
      r.by_class["sha256-differs-from-MANIFEST"] = 1;
    }
    fmt::print("{:<44} {:>10} {:>10} {:>9}\n", file, r.cases, r.mismatches,
               r.mismatches ? "FAIL" : "pass");
    failures += r.mismatches ? 1 : 0;
    reports.push_back(r);
  }

  // 3. GPU replay.
  std::string gpu = o.gpu;
  if (gpu.empty()) {
    const fs::path self = fs::read_symlink("/proc/self/exe");
    gpu = (self.parent_path() / "mxc-gpu").string();
  }
  if (fs::exists(gpu)) {
    const std::string cmd =
        fmt::format("'{}' run --report '{}/gpu' > '{}/gpu.log' 2>&1", gpu,
                    o.report_dir, o.report_dir);
    const int st = std::system(cmd.c_str());
    const int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    const char* status = rc == 0 ? "pass" : rc == 77 ? "no GPU" : "FAIL";
    fmt::print("{:<44} {:>10} {:>10} {:>9}\n", "gpu replay (mxc-gpu)", "-", "-",
               status);
    if (rc != 0 && rc != 77) ++failures;
  } else {
    fmt::print("{:<44} {:>10} {:>10} {:>9}\n", "gpu replay (mxc-gpu)", "-", "-",
               "not built");
  }

  std::ofstream(o.report_dir + "/conformance.json") << vec::render_json(reports);
  std::ofstream(o.report_dir + "/conformance.xml") << vec::render_junit(reports);
  fmt::print("\n{} checks, {} failing; reports in {}/conformance.{{json,xml}}\n",
             reports.size(), failures, o.report_dir);
  return failures ? 1 : 0;
}

}  // namespace

void add_conformance(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ConformanceOptions>();
  CLI::App* c = app.add_subcommand(
      "conformance",
      "The conformance run: emulator vs oracles, every committed vector file "
      "vs the emulator, GPU replay when available; summary table and "
      "JSON/JUnit reports");
  c->add_option("--vectors-dir", o->vectors_dir, "golden vector corpus")
      ->capture_default_str();
  c->add_option("--report-dir", o->report_dir, "where reports are written")
      ->capture_default_str();
  c->add_option("--gpu", o->gpu, "path of mxc-gpu (default: beside mxc)");
  c->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace mxc::cli
