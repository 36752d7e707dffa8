// mxc report merge: the reports of the shards and devices of one run
// combined into one (conformance/vectors/merge.h, docs/scale-out.md).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "conformance/cli/commands.h"
#include "conformance/vectors/merge.h"
#include "conformance/vectors/vector_file.h"

namespace mxc::cli {
namespace {

namespace fs = std::filesystem;

// Exit status (also in --help).
constexpr int kMergeMismatches = 1, kMergeBadInput = 2, kMergeIncomplete = 3;

struct MergeCli {
  std::vector<std::string> inputs;
  std::string out;
  bool allow_incomplete = false;
  size_t max_errors = 20;
};

bool is_report_name(const fs::path& p) {
  const std::string n = p.filename().string();
  return n == "report.json" ||
         (n.size() > 12 && n.compare(n.size() - 12, 12, ".report.json") == 0);
}

// Writes through a temporary file and a rename: a reader never sees half.
bool write_file(const fs::path& p, const std::string& text) {
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.flush();
    if (!f) {
      std::fprintf(stderr, "mxc report merge: error: cannot write %s\n",
                   tmp.c_str());
      return false;
    }
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) {
    std::fprintf(stderr,
                 "mxc report merge: error: cannot rename %s to %s: %s\n",
                 tmp.c_str(), p.c_str(), ec.message().c_str());
    return false;
  }
  return true;
}

int run_merge(const MergeCli& o) {
  // Each argument: a report file, or a folder searched (recursively, in
  // name order) for report.json and *.report.json.
  std::vector<std::string> files;
  for (const std::string& a : o.inputs) {
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(a, ec), end; !ec && it != end;
           it.increment(ec)) {
        if (it->is_regular_file() && is_report_name(it->path()))
          found.push_back(it->path().string());
      }
      if (ec) {
        std::fprintf(stderr,
                     "mxc report merge: error: cannot read folder %s: %s\n",
                     a.c_str(), ec.message().c_str());
        return kMergeBadInput;
      }
      if (found.empty()) {
        std::fprintf(stderr,
                     "mxc report merge: error: %s holds no report.json or "
                     "*.report.json (the "
                     "merge reads the JSON reports; the JUnit files are "
                     "rendered from the same "
                     "data)\n",
                     a.c_str());
        return kMergeBadInput;
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(a, ec)) {
      files.push_back(a);
    } else {
      std::fprintf(stderr,
                   "mxc report merge: error: %s: no such file or folder\n",
                   a.c_str());
      return kMergeBadInput;
    }
  }
  const fs::path out(o.out);
  std::vector<vec::MergeInput> in;
  for (const std::string& f : files) {
    std::error_code ec;
    if (fs::exists(out, ec) &&
        fs::equivalent(fs::path(f).parent_path(), out, ec))
      continue;  // an earlier merge's output
    std::ifstream is(f);
    if (!is) {
      std::fprintf(stderr, "mxc report merge: error: cannot open %s\n",
                   f.c_str());
      return kMergeBadInput;
    }
    try {
      in.push_back({f, vec::parse_json_report(is, f)});
    } catch (const vec::InputError& e) {
      std::fprintf(stderr, "mxc report merge: error: %s\n", e.what());
      return kMergeBadInput;
    }
  }
  const vec::MergeResult m = vec::merge_reports(in, o.max_errors);
  if (!m.errors.empty()) {
    for (const std::string& e : m.errors)
      std::fprintf(stderr, "mxc report merge: error: %s\n", e.c_str());
    std::fprintf(stderr, "mxc report merge: nothing written\n");
    return kMergeBadInput;
  }
  const std::string summary = vec::render_merge_summary(m);
  if (!m.missing.empty() && !o.allow_incomplete) {
    std::fputs(summary.c_str(), stderr);
    std::fprintf(
        stderr,
        "mxc report merge: error: shards are missing; nothing written "
        "(--allow-incomplete writes the partial report, marked incomplete)\n");
    return kMergeIncomplete;
  }
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) {
    std::fprintf(stderr, "mxc report merge: error: cannot create %s: %s\n",
                 o.out.c_str(), ec.message().c_str());
    return kMergeBadInput;
  }
  std::string text;
  for (const vec::Report& r : m.merged) text += vec::render_terminal(r);
  text += "\n" + summary;
  if (!write_file(out / "report.json", vec::render_json(m.merged)) ||
      !write_file(out / "report.junit.xml", vec::render_junit(m.merged)) ||
      !write_file(out / "summary.txt", text)) {
    return kMergeBadInput;
  }
  std::fputs(summary.c_str(), stdout);
  fmt::print(
      "mxc report merge: {} -> {}\n",
      files.size() == 1 ? "1 report" : fmt::format("{} reports", files.size()),
      o.out);
  if (!m.missing.empty()) return kMergeIncomplete;
  for (const vec::Report& r : m.merged) {
    if (r.mismatches) return kMergeMismatches;
  }
  return 0;
}

}  // namespace

void add_report(CLI::App& app, int& exit_code) {
  CLI::App* rc = app.add_subcommand("report", "Work with JSON/JUnit reports");
  rc->require_subcommand(1);
  auto o = std::make_shared<MergeCli>();
  CLI::App* mc =
      rc->add_subcommand("merge",
                         "Combine the reports of the shards (mxc verify --json "
                         "of mxc gen --shard i/n, mxc-gpu "
                         "run --shard i/n) and devices (mxc-gpu --devices) of "
                         "one run into one: OUT/report.json, "
                         "OUT/report.junit.xml, OUT/summary.txt. Refuses "
                         "reports of different suites, seeds, "
                         "versions or shard counts, and shards given twice. "
                         "Exit 0 complete and clean, 1 "
                         "mismatches, 2 bad input or refused (nothing "
                         "written), 3 shards missing (nothing "
                         "written unless --allow-incomplete; never a pass).");
  mc->add_option(
        "inputs", o->inputs,
        "report files, or folders searched for report.json / *.report.json")
      ->required();
  mc->add_option("-o,--out", o->out, "output folder")->required();
  mc->add_flag("--allow-incomplete", o->allow_incomplete,
               "write the merged report even with shards missing (marked "
               "incomplete; exit 3)");
  mc->add_option("--max-errors", o->max_errors,
                 "mismatch lines kept per case set")
      ->capture_default_str();
  mc->callback([o, &exit_code] { exit_code = run_merge(*o); });
}

}  // namespace mxc::cli
