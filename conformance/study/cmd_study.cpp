// mxc study NAME [--input FILE.npy | --dist D] [--out DIR] [--seed S]
// [--size N]: run one numerics study, print its table, write NAME.svg and
// NAME.json. `mxc study --list` lists the studies. docs/studies.md.
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "conformance/cli/commands.h"
#include "conformance/cli/options.h"
#include "conformance/study/data.h"
#include "conformance/study/study.h"

namespace mxc::cli {
namespace {

struct StudyArgs {
  std::string name, input, dist, out = "build/studies";
  uint64_t seed = 1;
  size_t size = 0;
  bool list = false;
};

int run_study(const StudyArgs& a) {
  if (a.list) {
    fmt::print("studies (mxc study NAME; --size default in brackets):\n");
    for (const auto& s : study::studies())
      fmt::print("  {:<16} {}\n  {:<16} [--size: {}, default {}]\n", s.name,
                 s.summary, "", s.size_meaning, s.default_size);
    fmt::print("distributions (--dist): gaussian laplace student-t lognormal "
               "(default: all)\n");
    return 0;
  }
  if (a.name.empty()) {
    std::fprintf(stderr,
                 "mxc study: error: name a study (mxc study --list)\n");
    return 2;
  }
  const study::StudyInfo* info = study::find_study(a.name);
  if (!info) {
    std::fprintf(stderr,
                 "mxc study: error: unknown study '%s' (mxc study --list)\n",
                 a.name.c_str());
    return 2;
  }
  study::Options o;
  o.seed = a.seed;
  o.size = a.size;
  o.input = a.input;
  if (!a.dist.empty()) {
    if (!a.input.empty()) {
      std::fprintf(stderr,
                   "mxc study: error: --input and --dist are exclusive\n");
      return 2;
    }
    const auto d = study::parse_dist(a.dist);
    if (!d) {
      std::fprintf(stderr,
                   "mxc study: error: unknown --dist '%s' (gaussian laplace "
                   "student-t lognormal)\n",
                   a.dist.c_str());
      return 2;
    }
    o.dists = {*d};
  }
  if (!a.input.empty()) {
    // Checked here so the message names the option (the reader names the
    // path and what is wrong with it).
    try {
      study::check_input_file(a.input);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mxc study %s: --input: %s\n", a.name.c_str(),
                   e.what());
      return 2;
    }
  }
  study::Result r;
  try {
    r = info->run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mxc study %s: %s\n", a.name.c_str(), e.what());
    return 2;
  }
  fmt::print("{}", r.table);
  try {
    for (const std::string& p : study::write_outputs(r, a.out))
      fmt::print("wrote {}\n", p);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mxc study %s: %s\n", a.name.c_str(), e.what());
    return 2;
  }
  return 0;
}

}  // namespace

void add_study(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<StudyArgs>();
  CLI::App* s = app.add_subcommand(
      "study",
      "Run a numerics study on the block quantizers and MMA models: prints a "
      "table, writes NAME.svg and NAME.json (docs/studies.md)");
  s->add_option("NAME", a->name, "the study (see --list)");
  s->add_flag("--list", a->list, "list the studies");
  s->add_option("--input", a->input,
                "a little-endian float32 .npy file (1-D or 2-D) to study "
                "instead of the distributions");
  s->add_option("--dist", a->dist,
                "one distribution: gaussian laplace student-t lognormal "
                "(default: all)");
  s->add_option("--out", a->out, "output directory")->capture_default_str();
  s->add_option("--seed", a->seed, "random seed (unsigned 64-bit)")
      ->check(cli::unsigned64())
      ->capture_default_str();
  s->add_option("--size", a->size,
                "problem size (0: the study's default; meaning per study in "
                "--list; at most 2^24)")
      ->check(cli::integer_in(0, static_cast<int64_t>(study::kMaxStudySize)));
  s->callback([a, &exit_code] { exit_code = run_study(*a); });
}

}  // namespace mxc::cli
