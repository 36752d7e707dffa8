// mxc conformance: the main job. Checks the emulator against its oracles
// (the self-check), verifies every committed golden-vector file against the
// emulator (and its MANIFEST sha256), replays on the GPU when mxc-gpu is
// built and a GPU is present, prints one summary table and writes JSON and
// JUnit reports.
#include <fmt/format.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "conformance/cli/commands.h"
#include "conformance/cli/options.h"
#include "conformance/io.h"
#include "conformance/selfcheck.h"
#include "conformance/sha256.h"
#include "conformance/vectors/verify.h"

namespace mxc::cli {
namespace {

namespace fs = std::filesystem;

// The corpus: the source tree's vectors/, or, for the mxc of the Python
// package (MXC_PACKAGED_CORPUS: mxconform/_bin/mxc), the corpus shipped
// beside it (mxconform/corpus/), wherever the wheel was installed.
std::string default_vectors_dir() {
#ifdef MXC_PACKAGED_CORPUS
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  // Unreadable: a relative path that names itself in the error.
  if (ec) return "mxconform/corpus (/proc/self/exe unreadable)";
  return (self.parent_path().parent_path() / "corpus").string();
#else
  return MXC_SOURCE_DIR "/vectors";
#endif
}

struct ConformanceOptions {
  std::string vectors_dir = default_vectors_dir();
  std::string report_dir = "build/reports";
  std::string gpu = "";
};

struct ManifestEntry {
  std::string sha, file;
  uint64_t cases = 0;
  long line = 0;
};

// MANIFEST: one "SHA256 CASES FILE" line per vector file ('#' comments and
// blank lines allowed). Refuses an empty manifest, malformed lines, repeated
// files and paths that leave the vectors directory.
std::vector<ManifestEntry> read_manifest(const std::string& path,
                                         const std::string& dir) {
  std::ifstream in(path);
  if (!in) throw vec::InputError(path, 0, "cannot open (no corpus manifest)");
  io::LineReader lines(in, path);
  std::vector<ManifestEntry> out;
  std::set<std::string> seen;
  std::string line;
  const fs::path root = fs::weakly_canonical(dir);
  while (lines.next(line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    ManifestEntry e;
    std::string cases, extra;
    e.line = lines.line();
    auto bad = [&](const std::string& why) {
      throw vec::InputError(path, e.line, why);
    };
    if (!(ls >> e.sha >> cases >> e.file) || (ls >> extra)) {
      bad("expected 'SHA256 CASES FILE', got " + io::quote(line));
    }
    if (e.sha.size() != 64 ||
        e.sha.find_first_not_of("0123456789abcdef") != std::string::npos) {
      bad("sha256 " + io::quote(e.sha) + " is not 64 lower-case hex digits");
    }
    const auto n = parse_unsigned(cases);
    if (!n || *n == 0) bad("case count " + io::quote(cases) + " is not > 0");
    e.cases = *n;
    const fs::path rel(e.file);
    const fs::path full = fs::weakly_canonical(root / rel);
    const auto [r_end, f_it] =
        std::mismatch(root.begin(), root.end(), full.begin(), full.end());
    if (rel.is_absolute() || r_end != root.end() || full == root) {
      bad("file " + io::quote(e.file) + " is outside " + dir);
    }
    if (!seen.insert(full.string()).second) {
      bad("file " + io::quote(e.file) + " is listed twice");
    }
    out.push_back(e);
  }
  if (out.empty()) throw vec::InputError(path, lines.line(), "lists no vector file");
  return out;
}

// Runs argv[0] with argv (no shell), stdout and stderr to log; returns its
// exit status (128+signal when killed, 127 when it could not start).
int spawn_and_wait(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  const int err = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0) {
    fmt::print(stderr, "mxc conformance: cannot run {}: {}\n", args[0],
               std::strerror(err));
    return 127;
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int run(const ConformanceOptions& o) {
  std::error_code ec;
  fs::create_directories(o.report_dir, ec);
  if (ec || !fs::is_directory(o.report_dir)) {
    fmt::print(stderr, "mxc conformance: error: cannot create --report-dir {}: {}\n",
               o.report_dir, ec ? ec.message() : "not a directory");
    return 2;
  }
  std::vector<vec::Report> reports;
  // The manifest is checked first: a broken corpus fails before any work.
  const std::string manifest_path = o.vectors_dir + "/MANIFEST";
  std::vector<ManifestEntry> entries;
  try {
    entries = read_manifest(manifest_path, o.vectors_dir);
  } catch (const vec::InputError& e) {
    fmt::print(stderr, "mxc conformance: error: {}\n", e.what());
    return 2;
  }
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

  // 2. The committed corpus: every MANIFEST entry (read before step 1).
  for (const ManifestEntry& m : entries) {
    const std::string path = o.vectors_dir + "/" + m.file;
    std::ifstream f(path, std::ios::binary);
    if (!f) {
      fmt::print(stderr, "{}:{}: error: cannot open {}\n", manifest_path,
                 m.line, path);
      return 2;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    if (f.bad()) {
      fmt::print(stderr, "{}:{}: error: cannot read {}\n", manifest_path,
                 m.line, path);
      return 2;
    }
    const std::string text = ss.str();
    vec::Report r;
    try {
      std::istringstream in(text);
      vec::VerifyOptions vo;
      r = vec::verify(in, m.file, nullptr, "", vo);
    } catch (const vec::InputError& e) {
      fmt::print(stderr, "{}\n", e.what());
      return 2;
    }
    if (sha256_hex(text) != m.sha) {
      r.mismatches += 1;
      r.by_class["sha256-differs-from-MANIFEST"] = 1;
    }
    if (r.cases != m.cases) {
      r.mismatches += 1;
      r.by_class["case-count-differs-from-MANIFEST"] = 1;
    }
    fmt::print("{:<44} {:>10} {:>10} {:>9}\n", m.file, r.cases, r.mismatches,
               r.mismatches ? "FAIL" : "pass");
    failures += r.mismatches ? 1 : 0;
    reports.push_back(r);
  }

  // 3. GPU replay: the child gets an argument vector (no shell), its output
  // goes to REPORT_DIR/gpu.log.
  std::string gpu = o.gpu;
  if (gpu.empty()) {
    const fs::path self = fs::read_symlink("/proc/self/exe");
    gpu = (self.parent_path() / "mxc-gpu").string();
  }
  if (fs::exists(gpu)) {
    const int rc = spawn_and_wait(
        {gpu, "run", "--report", o.report_dir + "/gpu"},
        o.report_dir + "/gpu.log");
    const char* status = rc == 0 ? "pass" : rc == 77 ? "no GPU" : "FAIL";
    fmt::print("{:<44} {:>10} {:>10} {:>9}\n", "gpu replay (mxc-gpu)", "-", "-",
               status);
    if (rc != 0 && rc != 77) ++failures;
  } else {
    fmt::print("{:<44} {:>10} {:>10} {:>9}\n", "gpu replay (mxc-gpu)", "-", "-",
               "not built");
  }

  io::write_file_atomic(o.report_dir + "/conformance.json",
                        vec::render_json(reports));
  io::write_file_atomic(o.report_dir + "/conformance.xml",
                        vec::render_junit(reports));
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
