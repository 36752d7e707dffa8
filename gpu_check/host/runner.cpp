#include "gpu_check/host/runner.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "conformance/io.h"
#include "conformance/vectors/report.h"
#include "gpu_check/host/replay.h"

namespace mxc::gpu {
namespace {

// Aborts the process when a device call makes no progress for too long
// (a hung kernel cannot be cancelled from the host).
class Watchdog {
 public:
  Watchdog(double timeout_s, std::string report_dir)
      : timeout_(std::chrono::duration<double>(timeout_s)), dir_(std::move(report_dir)) {
    kick("startup", 0);
    th_ = std::thread([this] { loop(); });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> l(m_);
      stop_ = true;
    }
    cv_.notify_all();
    th_.join();
  }
  void kick(const std::string& family, uint64_t index) {
    std::lock_guard<std::mutex> l(m_);
    family_ = family;
    index_ = index;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout_);
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> l(m_);
    while (!stop_) {
      if (cv_.wait_until(l, deadline_, [this] { return stop_; })) return;
      if (std::chrono::steady_clock::now() >= deadline_) {
        const std::string msg = fmt::format(
            "mxc-gpu: watchdog: family {} made no progress for {:.0f} s (at case index {}); "
            "aborting\n",
            family_, timeout_.count(), index_);
        std::fputs(msg.c_str(), stderr);
        std::fflush(stderr);
        if (!dir_.empty()) std::ofstream(dir_ + "/watchdog.txt") << msg;
        std::_Exit(kExitWatchdog);
      }
    }
  }
  std::chrono::duration<double> timeout_;
  std::string dir_;
  std::mutex m_;
  std::condition_variable cv_;
  std::chrono::steady_clock::time_point deadline_;
  std::string family_;
  uint64_t index_ = 0;
  bool stop_ = false;
  std::thread th_;
};

bool selected(const Family& f, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  for (const std::string& s : only)
    if (family_matches(f, s)) return true;
  return false;
}

std::string cc_text(int cc) { return fmt::format("{}.{}", cc / 10, cc % 10); }

// Why a family cannot run here ("" if it can).
std::string skip_reason(const Family& f, const DeviceInfo& d) {
  if (!f.ccs.empty() && std::find(f.ccs.begin(), f.ccs.end(), d.cc) == f.ccs.end()) {
    std::string s;
    for (int c : f.ccs) s += (s.empty() ? "" : ", ") + cc_text(c);
    return fmt::format("runs on compute capability {} only; this device is {}", s, cc_text(d.cc));
  }
  if ((f.needs & d.features) != f.needs) {
    return fmt::format("its instructions are not in the SASS that runs on this device "
                       "(needs feature bits {:#x}, device SASS has {:#x})",
                       f.needs, d.features);
  }
  return "";
}

bool sweepable(const Family& f) {
  if (f.kind == FamilyKind::kMma) return true;
  if (f.kind != FamilyKind::kConvert) return false;
  const auto from = parse_format(f.header.get("from"));
  return from && desc(*from).bits > 16;  // narrower sources are exhaustive already
}

}  // namespace

std::string render_support_matrix(const std::vector<SupportEntry>& m) {
  if (m.empty()) return "cuBLASLt support matrix: not probed\n";
  // TN is the forward GEMM of training, NN dgrad, NT wgrad (cuBLAS naming,
  // emu/mma/gemm.h).
  auto role = [](const std::string& l) {
    return l == "TN" ? "forward" : l == "NN" ? "dgrad" : l == "NT" ? "wgrad" : "-";
  };
  std::string s = fmt::format("{:<16} {:<6} {:<8} {:<6} {:<40} {}\n", "format", "layout", "role",
                              "out", "supported", "detail");
  for (const SupportEntry& e : m) {
    s += fmt::format("{:<16} {:<6} {:<8} {:<6} {:<40} {}\n", e.format, e.layout, role(e.layout),
                     e.out, e.supported ? "yes" : "no: not supported by this library/GPU",
                     e.detail);
  }
  return s;
}

int run(Backend& b, const RunOptions& o, std::ostream& out, std::ostream& err) {
  if (o.suite != "level1" && o.suite != "level2") {
    err << "mxc-gpu: error: --suite must be level1 or level2\n";
    return 2;
  }
  for (const std::string& s : o.only) {
    bool any = s == "cublaslt-support";
    for (const Family& f : families()) any = any || family_matches(f, s);
    if (!any) {
      err << "mxc-gpu: error: --only '" << s << "' matches no family (mxc-gpu list)\n";
      return 2;
    }
  }
  const DeviceInfo d = b.probe();
  if (!d.present) {
    out << "mxc-gpu: no CUDA device: " << d.why
        << "\nmxc-gpu: nothing replayed (exit 77: skipped)\n";
    return kExitSkip;
  }
  if (!o.report_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.report_dir, ec);
    if (ec) {
      err << "mxc-gpu: error: cannot create " << o.report_dir << ": " << ec.message() << "\n";
      return 2;
    }
  }
  out << fmt::format("mxc-gpu: {} (compute capability {}), SASS features {:#x}{}\n", d.name,
                     cc_text(d.cc), d.features, d.fake ? " [FAKE TEST BACKEND]" : "");
  out << fmt::format("mxc-gpu: driver {}, runtime {}, cuBLASLt {}\n", d.driver, d.runtime,
                     d.cublaslt);
  Watchdog wd(o.timeout_s, o.report_dir);
  if (o.selftest_hang) {
    wd.kick("selftest.hang", 0);
    b.hang();
    err << "mxc-gpu: hang self-test returned\n";
    return 2;
  }
  ReplayOptions ro;
  ro.level = o.suite == "level2" ? 2 : 1;
  ro.seed = o.seed;
  ro.threads = o.threads;
  std::string current;
  ro.progress = [&](uint64_t i) { wd.kick(current, i); };

  std::vector<vec::Report> reports;
  nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
  std::string summary;
  std::string gemm_layouts;  // the training-layout answer, one line per cuBLASLt family
  int status = 0;
  bool cuda_failed = false;
  auto add = [&](const vec::Report& r) {
    reports.push_back(r);
    const std::string line = fmt::format("  {:<52} {:>10} cases {:>8} mismatches  {}\n", r.file,
                                         r.cases, r.mismatches, r.mismatches ? "FAIL" : "PASS");
    out << line;
    summary += line;
    if (r.mismatches) status = std::max(status, 1);
  };
  auto skip = [&](const std::string& name, const std::string& why) {
    skipped.push_back({{"family", name}, {"reason", why}});
    const std::string line = fmt::format("  {:<52} skipped: {}\n", name, why);
    out << line;
    summary += line;
  };
  for (const Family& f : families()) {
    if (!selected(f, o.only)) continue;
    if (cuda_failed) {
      skip(f.name, "not run: an earlier CUDA error may have left the context unusable");
      continue;
    }
    const std::string why = skip_reason(f, d);
    auto gemm_line = [&](const std::string& outcome) {
      if (f.kind != FamilyKind::kGemm) return;
      const std::string l = f.header.get("layout", "TN");
      gemm_layouts += fmt::format("  {:<36} {:<8} {:<3} {}\n", f.name,
                                  l == "TN"   ? "forward"
                                  : l == "NN" ? "dgrad"
                                  : l == "NT" ? "wgrad"
                                              : "-",
                                  l, outcome);
    };
    if (!why.empty()) {
      gemm_line("skipped: " + why);
      skip(f.name, why);
      continue;
    }
    current = f.name;
    uint64_t at = 0;
    ro.progress = [&](uint64_t i) {
      at = i;
      wd.kick(current, i);
    };
    try {
      if (f.kind == FamilyKind::kGemm) {
        vec::Report r;
        std::string gw;
        if (replay_gemm(b, f, d.cc, ro, r, gw)) {
          add(r);
          gemm_line(r.mismatches ? fmt::format("FAIL: {} of {} elements differ", r.mismatches,
                                               r.cases)
                                 : fmt::format("PASS: {} elements{}", r.cases,
                                               r.accepted ? fmt::format(" ({} within the bound)",
                                                                        r.accepted)
                                                          : std::string(" bit-exact")));
        } else {
          gemm_line(gw);
          skip(f.name, gw);
        }
        continue;
      }
      add(replay_level(b, f, ro));
      if (o.sweep && sweepable(f)) {
        current = f.name + " (sweep)";
        add(replay_sweep(b, f, o.sweep, ro));
      }
    } catch (const BackendError& e) {
      const std::string msg =
          fmt::format("CUDA error in family {} at case index {}: {}", current, at, e.what());
      err << "mxc-gpu: " << msg << "\n";
      vec::Report r;
      r.file = current;
      r.op = f.header.get("op");
      r.description = f.ptx;
      r.mismatches = 1;
      r.by_class["cuda-error"] = 1;
      r.first.push_back({static_cast<long>(at), "cuda-error", msg});
      add(r);
      status = kExitCudaError;
      cuda_failed = true;
    }
  }
  for (const std::string& path : o.vectors) {
    std::ifstream in(path);
    vec::Reader rd(in, path);
    if (!in) {
      err << "mxc-gpu: error: cannot open " << path << "\n";
      return 2;
    }
    const vec::Header& h = rd.header();
    const Family* match = nullptr;
    for (const Family& f : families()) {
      bool ok = f.kind != FamilyKind::kGemm && skip_reason(f, d).empty();
      for (const auto& [k, v] : f.header.kv) ok = ok && h.get(k) == v;
      if (ok) {
        match = &f;
        break;
      }
    }
    if (!match) {
      skip(path, "no family available on this device replays this file's header");
      continue;
    }
    std::ifstream again(path);
    current = match->name;
    try {
      add(replay_file(b, *match, again, path, ro));
    } catch (const vec::InputError& e) {
      err << e.what() << "\n";
      return 2;
    } catch (const BackendError& e) {
      err << "mxc-gpu: CUDA error in " << path << ": " << e.what() << "\n";
      status = kExitCudaError;
      break;
    }
  }
  std::vector<SupportEntry> matrix;
  const bool want_matrix =
      o.support_matrix && !cuda_failed &&
      (o.only.empty() || std::find_if(o.only.begin(), o.only.end(), [](const std::string& s) {
                           return s == "cublaslt" || s == "cublaslt-support";
                         }) != o.only.end());
  if (want_matrix) {
    current = "cublaslt-support";
    wd.kick(current, 0);
    try {
      matrix = b.cublaslt_support();
    } catch (const BackendError& e) {
      err << "mxc-gpu: CUDA error in cuBLASLt support probe: " << e.what() << "\n";
      status = kExitCudaError;
    }
    out << "\ncuBLASLt support matrix (heuristic query per combination):\n"
        << render_support_matrix(matrix);
  }
  if (!gemm_layouts.empty()) {
    const std::string t =
        "\ncuBLASLt training layouts (forward = TN, dgrad = NN, wgrad = NT; TT for "
        "completeness):\n" +
        gemm_layouts;
    out << t;
    summary += t;
  }
  uint64_t cases = 0, mism = 0;
  for (const auto& r : reports) {
    cases += r.cases;
    mism += r.mismatches;
  }
  const std::string total = fmt::format(
      "mxc-gpu: {} families replayed, {} skipped, {} cases, {} mismatches: {}\n", reports.size(),
      skipped.size(), cases, mism, status == 0 ? "PASS" : status == 1 ? "FAIL" : "ERROR");
  out << total;
  if (!o.report_dir.empty()) {
    const std::string dir = o.report_dir + "/";
    // Checked and atomic (io::OutputError names the path; main_cli: exit 2).
    const auto replace = nlohmann::json::error_handler_t::replace;
    io::write_file_atomic(dir + "report.json", vec::render_json(reports));
    io::write_file_atomic(dir + "report.junit.xml", vec::render_junit(reports));
    io::write_file_atomic(dir + "skipped.json",
                          skipped.dump(2, ' ', false, replace) + "\n");
    {
      std::string s = summary + total + "\n";
      for (const auto& r : reports) s += vec::render_terminal(r);
      io::write_file_atomic(dir + "summary.txt", s);
    }
    nlohmann::ordered_json dj;
    dj["name"] = d.name;
    dj["compute_capability"] = cc_text(d.cc);
    dj["sass_features"] = d.features;
    dj["driver"] = d.driver;
    dj["runtime"] = d.runtime;
    dj["cublaslt"] = d.cublaslt;
    dj["fake_backend"] = d.fake;
    dj["suite"] = o.suite;
    dj["sweep"] = o.sweep;
    io::write_file_atomic(dir + "device.json", dj.dump(2, ' ', false, replace) + "\n");
    nlohmann::ordered_json mj = nlohmann::ordered_json::array();
    for (const SupportEntry& e : matrix) {
      mj.push_back({{"format", e.format}, {"layout", e.layout}, {"out", e.out},
                    {"supported", e.supported}, {"detail", e.detail}});
    }
    io::write_file_atomic(dir + "support-matrix.json",
                          mj.dump(2, ' ', false, replace) + "\n");
    io::write_file_atomic(dir + "support-matrix.txt", render_support_matrix(matrix));
    out << "mxc-gpu: reports in " << o.report_dir << "\n";
  }
  return status;
}

int main_cli(int argc, char** argv, Backend& b) {
  CLI::App app{
      "mxc-gpu: replay mxconform golden vectors on the GPU (cvt, mma.sync, cuBLASLt) and "
      "report every mismatch. Exit 0 pass, 1 mismatches, 2 usage, 3 CUDA error, 124 "
      "watchdog, 77 no GPU (skipped)."};
  app.require_subcommand(1);
  RunOptions o;
  CLI::App* rc = app.add_subcommand("run", "Detect the GPU and replay every family it has");
  rc->add_option("--suite", o.suite, "level1 (CI vectors) or level2 (deep)")->capture_default_str();
  rc->add_option("--only", o.only,
                 "family name or prefix (mxc-gpu list), or a kind: convert, mma, cublaslt");
  rc->add_option("--vectors", o.vectors, "also replay these vector files (mxc gen output)");
  rc->add_option("--report", o.report_dir, "write JSON/JUnit reports and the support matrix here");
  rc->add_option("--sweep", o.sweep, "random cases per instruction family (e.g. 10000000)");
  rc->add_option("--seed", o.seed, "seed of the level vectors and the sweep")->capture_default_str();
  rc->add_option("--timeout", o.timeout_s, "watchdog: seconds one device call may take")
      ->capture_default_str();
  rc->add_option("--threads", o.threads, "emulator threads (0: all cores)");
  rc->add_flag("--selftest-hang", o.selftest_hang, "launch a kernel that never ends (watchdog test)")
      ->group("");
  CLI::App* lc = app.add_subcommand("list", "List the replay families and where they run");
  int code = 0;
  rc->callback([&] { code = run(b, o, std::cout, std::cerr); });
  lc->callback([&] {
    for (const Family& f : families()) {
      std::string ccs;
      for (int c : f.ccs) ccs += (ccs.empty() ? "" : ",") + cc_text(c);
      fmt::print("{:<48} {:<8} {:<10} {}\n", f.name, kind_name(f.kind),
                 ccs.empty() ? "any" : ccs, f.ptx);
    }
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const io::OutputError& e) {  // a report could not be written
    std::fprintf(stderr, "mxc-gpu: error: %s\n", e.what());
    return 2;
  }
  return code;
}

}  // namespace mxc::gpu
