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
#include <sstream>
#include <thread>

#include "conformance/io.h"
#include "conformance/vectors/report.h"
#include "conformance/vectors/vector_file.h"
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

std::string capture_name(std::string_view family) {
  std::string s(family);
  for (char& c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return s;
}

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

namespace {

struct Shard {
  uint64_t index = 0, count = 1;
};

// What one device's run gives the multi-device summary.
struct DeviceOutcome {
  int status = 0;
  DeviceInfo info;
  uint64_t cases = 0, mismatches = 0;
};

// The suite as `mxc report merge` compares it: everything that decides the
// cases except the seed and the shard.
std::string suite_text(const RunOptions& o) {
  std::string s = o.suite;
  for (const std::string& f : o.only) s += " only=" + f;
  if (o.sweep) s += fmt::format(" sweep={}", o.sweep);
  for (const std::string& v : o.vectors) s += " vectors=" + v;
  return s;
}

std::string device_label(const DeviceInfo& d) {
  return fmt::format("gpu {}{}{}", d.index, d.uuid.empty() ? "" : " " + d.uuid,
                     d.pci_bus_id.empty() ? "" : " pci " + d.pci_bus_id);
}

DeviceOutcome run_one(Backend& b, const RunOptions& o, const Shard& sh, bool name_device,
                      std::ostream& out, std::ostream& err) {
  DeviceOutcome oc;
  const DeviceInfo d = b.probe();
  oc.info = d;
  int& status = oc.status;
  if (!d.present) {
    out << "mxc-gpu: no CUDA device: " << d.why
        << "\nmxc-gpu: nothing replayed (exit 77: skipped)\n";
    status = kExitSkip;
    return oc;
  }
  if (!o.capture_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.capture_dir, ec);
    if (ec) {
      err << "mxc-gpu: error: --capture: cannot create " << o.capture_dir << ": " << ec.message()
          << "\n";
      status = 2;
      return oc;
    }
  }
  if (!o.report_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.report_dir, ec);
    if (ec) {
      err << "mxc-gpu: error: cannot create " << o.report_dir << ": " << ec.message() << "\n";
      status = 2;
      return oc;
    }
  }
  out << fmt::format("mxc-gpu: {}: {} (compute capability {}), SASS features {:#x}{}\n",
                     device_label(d), d.name, cc_text(d.cc), d.features,
                     d.fake ? " [FAKE TEST BACKEND]" : "");
  if (sh.count > 1) out << fmt::format("mxc-gpu: shard {}/{}\n", sh.index, sh.count);
  out << fmt::format("mxc-gpu: driver {}, runtime {}, cuBLASLt {}\n", d.driver, d.runtime,
                     d.cublaslt);
  Watchdog wd(o.timeout_s, o.report_dir);
  if (o.selftest_hang) {
    wd.kick("selftest.hang", 0);
    b.hang();
    err << "mxc-gpu: hang self-test returned\n";
    status = 2;
    return oc;
  }
  ReplayOptions ro;
  ro.level = o.suite == "level2" ? 2 : 1;
  ro.seed = o.seed;
  ro.threads = o.threads;
  ro.shard_index = sh.index;
  ro.shard_count = sh.count;
  std::string current;
  // The case index the current family has reached (for error messages);
  // one variable for the whole run, so the progress hook never outlives it.
  uint64_t at = 0;
  ro.progress = [&](uint64_t i) {
    at = i;
    wd.kick(current, i);
  };

  std::vector<vec::Report> reports;
  nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
  std::string summary;
  std::string gemm_layouts;  // the training-layout answer, one line per cuBLASLt family
  bool cuda_failed = false;
  const std::string suite = suite_text(o), dl = device_label(d);
  // unsharded: a case set this run covers whole even when sharded (the
  // cuBLASLt families, run by shard 0 only).
  auto add = [&](vec::Report r, bool unsharded = false) {
    // Provenance for `mxc report merge`, and the device in every mismatch.
    r.run["suite"] = suite;
    r.run["id"] = r.file;
    r.run["seed"] = std::to_string(o.seed);
    r.run["version"] = kGpuVersion;
    r.run["shard"] = unsharded ? "0/1" : fmt::format("{}/{}", sh.index, sh.count);
    r.run["device"] = std::to_string(d.index);
    if (!d.uuid.empty()) r.run["device_uuid"] = d.uuid;
    if (!d.pci_bus_id.empty()) r.run["device_pci"] = d.pci_bus_id;
    if (name_device) {
      for (vec::MismatchLine& m : r.first) m.text = "[" + dl + "] " + m.text;
    }
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
    at = 0;
    try {
      if (f.kind == FamilyKind::kGemm && sh.index != 0) {
        // A handful of random problems: shard 0 runs them all, as a case
        // set of its own ("0/1"), so the shards sum to the unsharded run.
        gemm_line(fmt::format("in shard 0 of {}", sh.count));
        skip(f.name, fmt::format("cuBLASLt problems run in shard 0 of {}", sh.count));
        continue;
      }
      if (f.kind == FamilyKind::kGemm) {
        vec::Report r;
        std::string gw;
        if (replay_gemm(b, f, d.cc, ro, r, gw)) {
          add(r, true);
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
      // The capture: case lines go to PATH.part as they come; at the end
      // the header (cases= the count written) and the lines become PATH.
      std::ofstream cap;
      ReplayOptions::CaptureSink sink;
      std::string cap_path;
      auto open_capture = [&](const std::string& suffix) {
        ro.capture = nullptr;
        if (o.capture_dir.empty()) return;
        cap_path = o.capture_dir + "/" + capture_name(f.name) + suffix + ".txt";
        cap.open(cap_path + ".part", std::ios::binary | std::ios::trunc);
        if (!cap) {
          err << "mxc-gpu: error: cannot write the capture file " << cap_path << ".part\n";
          status = 2;
          return;
        }
        sink = {&cap, o.capture_max, 0};
        ro.capture = &sink;
      };
      auto close_capture = [&] {
        if (ro.capture == nullptr) return;
        ro.capture = nullptr;
        cap.close();
        vec::Header h = family_header(f, ro.level, o.seed);
        h.kv["cases"] = std::to_string(sink.written);
        std::ifstream part(cap_path + ".part", std::ios::binary);
        std::ofstream whole(cap_path, std::ios::binary | std::ios::trunc);
        whole << vec::write_header(h) << part.rdbuf();
        whole.flush();
        if (!cap || !part || !whole) {
          err << "mxc-gpu: error: writing the capture " << cap_path << " failed (disk full?)\n";
          status = 2;
          return;
        }
        part.close();
        std::remove((cap_path + ".part").c_str());
      };
      open_capture("");
      {
        vec::Report lr = replay_level(b, f, ro);
        close_capture();
        add(std::move(lr));
      }
      if (o.sweep && sweepable(f)) {
        current = f.name + " (sweep)";
        open_capture(".sweep");
        vec::Report sr = replay_sweep(b, f, o.sweep, ro);
        close_capture();
        add(std::move(sr));
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
      status = 2;
      return oc;
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
      status = 2;
      return oc;
    } catch (const BackendError& e) {
      err << "mxc-gpu: CUDA error in " << path << ": " << e.what() << "\n";
      status = kExitCudaError;
      break;
    }
  }
  std::vector<SupportEntry> matrix;
  const bool want_matrix =
      o.support_matrix && !cuda_failed && sh.index == 0 &&
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
  uint64_t& cases = oc.cases;
  uint64_t& mism = oc.mismatches;
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
    dj["index"] = d.index;
    dj["uuid"] = d.uuid;
    dj["pci_bus_id"] = d.pci_bus_id;
    dj["suite"] = o.suite;
    dj["sweep"] = o.sweep;
    dj["shard"] = fmt::format("{}/{}", sh.index, sh.count);
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
  return oc;
}

// Worst first: watchdog, CUDA error, usage, mismatches, pass; 77 only when
// every device skipped.
int worst_status(const std::vector<DeviceOutcome>& v) {
  auto rank = [](int s) {
    return s == kExitWatchdog ? 5 : s == kExitCudaError ? 4 : s == 2 ? 3 : s == 1 ? 2
           : s == kExitSkip ? 0 : 1;
  };
  int w = kExitSkip;
  for (const DeviceOutcome& d : v) {
    if (rank(d.status) > rank(w)) w = d.status;
  }
  return w;
}

// Several devices, one host thread each (docs/scale-out.md).
int run_devices(Backend& b, const RunOptions& o, const Shard& sh, const std::vector<int>& list,
                std::ostream& out, std::ostream& err) {
  std::vector<std::unique_ptr<Backend>> backends;
  for (int i : list) {
    backends.push_back(b.open_device(i));
    if (!backends.back()) {
      err << "mxc-gpu: error: this backend drives one device only (--devices)\n";
      return 2;
    }
  }
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const unsigned total = o.threads ? o.threads : hw;
  // The emulator computes every expected result: its threads are shared
  // fairly, so no device waits on another's host work.
  const unsigned per = std::max(1u, total / static_cast<unsigned>(list.size()));
  out << fmt::format("mxc-gpu: {} devices, one host thread each, {} emulator threads each\n",
                     list.size(), per);
  std::vector<DeviceOutcome> outcomes(list.size());
  std::vector<std::ostringstream> outs(list.size()), errs(list.size());
  std::mutex print;
  std::vector<std::thread> threads;
  for (size_t k = 0; k < list.size(); ++k) {
    threads.emplace_back([&, k] {
      RunOptions ok = o;
      ok.threads = per;
      if (!o.report_dir.empty()) ok.report_dir = fmt::format("{}/gpu{}", o.report_dir, list[k]);
      try {
        outcomes[k] = run_one(*backends[k], ok, sh, true, outs[k], errs[k]);
      } catch (const std::exception& e) {
        errs[k] << "mxc-gpu: gpu " << list[k] << ": " << e.what() << "\n";
        outcomes[k].status = kExitCudaError;
        outcomes[k].info.index = list[k];
      }
      std::lock_guard<std::mutex> l(print);
      out << fmt::format("mxc-gpu: gpu {} done: {} cases, {} mismatches, exit {}\n", list[k],
                         outcomes[k].cases, outcomes[k].mismatches, outcomes[k].status);
      out.flush();
    });
  }
  for (std::thread& t : threads) t.join();
  std::string table = fmt::format("\n{:<6} {:<28} {:<44} {:<14} {:>12} {:>10}  {}\n", "gpu",
                                   "name", "uuid", "pci", "cases", "mismatches", "status");
  nlohmann::ordered_json dj = nlohmann::ordered_json::array();
  for (size_t k = 0; k < list.size(); ++k) {
    out << "\n--- gpu " << list[k] << " ---\n" << outs[k].str();
    err << errs[k].str();
    const DeviceOutcome& c = outcomes[k];
    const char* verdict = c.status == 0   ? "PASS"
                          : c.status == 1 ? "FAIL"
                          : c.status == kExitSkip ? "skipped"
                                                  : "ERROR";
    table += fmt::format("{:<6} {:<28} {:<44} {:<14} {:>12} {:>10}  {} (exit {})\n", list[k],
                         c.info.name, c.info.uuid, c.info.pci_bus_id, c.cases, c.mismatches,
                         verdict, c.status);
    dj.push_back({{"index", list[k]}, {"name", c.info.name}, {"uuid", c.info.uuid},
                  {"pci_bus_id", c.info.pci_bus_id}, {"cases", c.cases},
                  {"mismatches", c.mismatches}, {"exit", c.status},
                  {"report", fmt::format("gpu{}/", list[k])}});
  }
  const int status = worst_status(outcomes);
  table += fmt::format("mxc-gpu: {} devices: {}\n", list.size(),
                       status == 0 ? "PASS" : status == 1 ? "FAIL" : status == kExitSkip ? "skipped" : "ERROR");
  out << table;
  if (!o.report_dir.empty()) {
    std::ofstream(o.report_dir + "/devices.json") << dj.dump(2) << "\n";
    std::ofstream(o.report_dir + "/summary.txt") << table;
  }
  return status;
}

// "all" or "0,2,5" -> device list; "" with an error message when bad.
std::vector<int> parse_devices(const std::string& s, int count, std::string& error) {
  std::vector<int> v;
  if (s == "all") {
    for (int i = 0; i < count; ++i) v.push_back(i);
    return v;
  }
  size_t at = 0;
  while (at <= s.size()) {
    const size_t comma = std::min(s.find(',', at), s.size());
    const std::string t = s.substr(at, comma - at);
    char* end = nullptr;
    const long i = std::strtol(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || i < 0) {
      error = fmt::format("--devices '{}': '{}' is not a device index (use all or 0,2,5)", s, t);
      return {};
    }
    if (i >= count) {
      error = fmt::format("--devices '{}': device {} does not exist ({} device{} visible)", s, i,
                          count, count == 1 ? "" : "s");
      return {};
    }
    if (std::find(v.begin(), v.end(), static_cast<int>(i)) != v.end()) {
      error = fmt::format("--devices '{}': device {} listed twice", s, i);
      return {};
    }
    v.push_back(static_cast<int>(i));
    at = comma + 1;
  }
  return v;
}

}  // namespace

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
  Shard sh;
  {
    char tail = 0;
    unsigned long long i = 0, n = 0;
    if (std::sscanf(o.shard.c_str(), "%llu/%llu%c", &i, &n, &tail) != 2 || n == 0 || i >= n) {
      err << "mxc-gpu: error: --shard '" << o.shard << "' must be i/n with 0 <= i < n\n";
      return 2;
    }
    sh = {i, n};
  }
  if (sh.count > 1 && !o.vectors.empty()) {
    err << "mxc-gpu: error: --vectors with --shard: shard the vector files themselves "
           "(mxc gen --shard i/n) and give each run its own\n";
    return 2;
  }
  if (!o.devices.empty() && o.device >= 0) {
    err << "mxc-gpu: error: --device and --devices: give one of them\n";
    return 2;
  }
  if (o.devices.empty() && o.device < 0) {
    return run_one(b, o, sh, false, out, err).status;  // device 0, as before
  }
  const int count = b.device_count();
  if (count == 0) return run_one(b, o, sh, false, out, err).status;  // says why: exit 77
  std::string error;
  const std::vector<int> list =
      o.device >= 0 ? parse_devices(std::to_string(o.device), count, error)
                    : parse_devices(o.devices, count, error);
  if (list.empty()) {
    err << "mxc-gpu: error: " << (o.device >= 0 ? "--device" + error.substr(9) : error) << "\n";
    return 2;
  }
  if (list.size() == 1) {
    std::unique_ptr<Backend> one = b.open_device(list[0]);
    if (!one) {
      if (list[0] != 0) {
        err << "mxc-gpu: error: this backend drives device 0 only\n";
        return 2;
      }
      return run_one(b, o, sh, true, out, err).status;
    }
    return run_one(*one, o, sh, true, out, err).status;
  }
  return run_devices(b, o, sh, list, out, err);
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
  rc->add_option("--threads", o.threads, "emulator threads (0: all cores; shared among devices)");
  rc->add_option("--shard", o.shard,
                 "i/n: level cases i, i+n, ... and the same share of the sweep (n shards "
                 "together are one run; merge with mxc report merge)")
      ->capture_default_str();
  rc->add_option("--capture", o.capture_dir,
                 "write every replayed case with the DEVICE's results as a vector file, "
                 "DIR/<family>.txt (level cases) and DIR/<family>.sweep.txt (sweep; '@' "
                 "and ':' in names become '_'): a hardware capture that `mxc verify "
                 "--hand-picked --vectors FILE` checks against the header's model on the "
                 "CPU (instruction families; cuBLASLt families are not captured)");
  rc->add_option("--capture-max", o.capture_max,
                 "with --capture: at most N cases per file (the first N replayed)")
      ->check(CLI::PositiveNumber);
  rc->add_option("--device", o.device, "run on CUDA device N only (reports name it)");
  rc->add_option("--devices", o.devices,
                 "all or a list 0,2,5: every listed device concurrently, one host thread "
                 "each; reports in DIR/gpu<N>/, summary in DIR/summary.txt");
  rc->add_flag("--selftest-hang", o.selftest_hang, "launch a kernel that never ends (watchdog test)")
      ->group("");
  CLI::App* lc = app.add_subcommand("list", "List the replay families and where they run");
  CLI::App* libs = app.add_subcommand(
      "libs",
      "Show the run-time libraries found (cuBLASLt: which file, or every place tried). "
      "Exit 0 all found, 1 one is missing (its phase is then skipped)");
  int code = 0;
  libs->callback([&] {
    std::string text;
    code = b.libraries(text) ? 0 : 1;
    std::cout << text;
  });
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
