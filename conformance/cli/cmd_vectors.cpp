// mxc gen: golden vectors. mxc verify: a subject's results against them.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "conformance/cli/commands.h"
#include "conformance/cli/options.h"
#include "conformance/io.h"
#include "conformance/vectors/generate.h"
#include "conformance/vectors/op.h"
#include "conformance/vectors/verify.h"

namespace mxc::cli {
namespace {

struct GenOptions {
  std::string op;
  int level = 1;
  uint64_t seed = 1;
  std::string shard = "0/1";
  std::string out, npy;
  std::vector<std::string> set;  // KEY=VALUE op keys
  // Convenience flags for the common keys.
  std::string from, to, round, overflow, profile, elem, model, a_fmt, b_fmt,
      elem_a, elem_b, out_fmt, k, block, blocks, relu, sr, layout, m, n,
      split_k, zero_exp, zero_sign, range;
};

int run_gen(const GenOptions& o) {
  vec::Header h;
  h.kv["op"] = o.op;
  h.kv["level"] = std::to_string(o.level);
  h.kv["seed"] = std::to_string(o.seed);
  const std::pair<const char*, const std::string*> keys[] = {
      {"from", &o.from},       {"to", &o.to},         {"round", &o.round},
      {"overflow", &o.overflow}, {"profile", &o.profile}, {"elem", &o.elem},
      {"model", &o.model},     {"a-fmt", &o.a_fmt},   {"b-fmt", &o.b_fmt},
      {"elem-a", &o.elem_a},   {"elem-b", &o.elem_b}, {"out", &o.out_fmt},
      {"k", &o.k},             {"block", &o.block},   {"blocks", &o.blocks},
      {"relu", &o.relu},       {"sr", &o.sr},         {"layout", &o.layout},
      {"m", &o.m},             {"n", &o.n},           {"split-k", &o.split_k},
      {"zero-exp", &o.zero_exp}, {"zero-sign", &o.zero_sign},
      {"range", &o.range}};
  for (const auto& [k, v] : keys) {
    if (!v->empty()) h.kv[k] = *v;
  }
  for (const std::string& s : o.set) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(stderr, "mxc gen: error: --set '%s' is not KEY=VALUE\n",
                   s.c_str());
      return 2;
    }
    h.kv[s.substr(0, eq)] = s.substr(eq + 1);
  }
  if (h.has("range") && o.op != "convert") {
    std::fprintf(stderr, "mxc gen: error: range applies to op convert only\n");
    return 2;
  }
  vec::Shard sh;  // validated by shard_spec() at parse time
  const auto slash = o.shard.find('/');
  sh.index = *parse_unsigned(o.shard.substr(0, slash));
  sh.count = *parse_unsigned(o.shard.substr(slash + 1));
  for (const auto& [k, v] : h.kv) {
    if (!vec::known_header_key(k)) {
      std::fprintf(stderr, "mxc gen: error: unknown key %s\n",
                   io::quote(k).c_str());
      return 2;
    }
  }
  try {
    if (!o.npy.empty()) vec::export_npy(h, sh, o.npy);
    io::Output out(o.out);
    const size_t n = vec::generate(h, sh, out.stream());
    out.close();  // throws io::OutputError naming the path
    if (!o.out.empty() && o.out != "-") {
      std::fprintf(stderr, "mxc gen: %zu cases -> %s\n", n, o.out.c_str());
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "mxc gen: error: %s\n%s", e.what(),
                 vec::op_help().c_str());
    return 2;
  }
  return 0;
}

struct VerifyCli {
  std::string vectors, results, json, junit;
  std::vector<std::string> allow, require;
  size_t max_errors = 20;
  bool quiet = false;
  bool hand_picked = false;
};

int run_verify(const VerifyCli& o) {
  vec::VerifyOptions vo;  // o.allow was validated at parse time
  vo.allow = o.allow;
  vo.require = o.require;
  vo.max_errors = o.max_errors;
  vo.check_sequence = !o.hand_picked;
  if (!o.quiet) {
    vo.progress = [](uint64_t n) {
      std::fprintf(stderr, "\rmxc verify: %llu cases", (unsigned long long)n);
    };
  }
  std::vector<vec::Report> reports;
  try {
    std::ifstream vf, rf;
    std::istream* vin = &std::cin;
    std::string vname = "<stdin>";
    if (!o.vectors.empty() && o.vectors != "-") {
      vf.open(o.vectors);
      if (!vf) {
        std::fprintf(stderr, "mxc verify: error: cannot open %s\n",
                     o.vectors.c_str());
        return 2;
      }
      vin = &vf;
      vname = o.vectors;
    }
    std::istream* rin = nullptr;
    if (!o.results.empty()) {
      if (o.results == "-" && vin == &std::cin) {
        std::fprintf(stderr,
                     "mxc verify: error: --results - needs --vectors FILE "
                     "(stdin cannot be both)\n");
        return 2;
      }
      if (o.results == "-") {
        rin = &std::cin;
      } else {
        rf.open(o.results);
        if (!rf) {
          std::fprintf(stderr, "mxc verify: error: cannot open %s\n",
                       o.results.c_str());
          return 2;
        }
        rin = &rf;
      }
    }
    reports.push_back(vec::verify(*vin, vname, rin,
                                  o.results == "-" ? "<stdin>" : o.results, vo));
  } catch (const vec::InputError& e) {
    if (!o.quiet) std::fputc('\n', stderr);
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  const vec::Report& r = reports.back();
  if (vo.progress && r.cases >= (1u << 20)) std::fputc('\n', stderr);
  fmt::print("{}", vec::render_terminal(r));
  // Reports are written atomically; a failure is exit 2 naming the path.
  if (!o.json.empty()) io::write_file_atomic(o.json, vec::render_json(reports));
  if (!o.junit.empty()) {
    io::write_file_atomic(o.junit, vec::render_junit(reports));
  }
  return r.mismatches ? 1 : 0;
}

}  // namespace

void add_vectors(CLI::App& app, int& exit_code) {
  auto g = std::make_shared<GenOptions>();
  CLI::App* gc = app.add_subcommand(
      "gen",
      "Generate golden vectors: a '#' header that records everything needed "
      "to regenerate the file, then one case per line (inputs then expected "
      "results, upper-case fixed-width hex). Same arguments, same bytes.");
  gc->add_option("op", g->op,
                 "convert | mx-quantize | mx-dequantize | nvfp4-quantize | mx-dot | "
                 "mma | gemm")
      ->required();
  gc->add_option("--level", g->level, "0 quick, 1 CI, 2 deep")
      ->check(integer_in(0, 2))
      ->capture_default_str();
  gc->add_option("--seed", g->seed, "PRNG seed (unsigned 64-bit)")
      ->check(unsigned64())
      ->capture_default_str();
  gc->add_option("--shard", g->shard,
                 "i/n: every n-th case from i (0 <= i < n)")
      ->check(shard_spec())
      ->capture_default_str();
  gc->add_option("-o,--out", g->out, "output file (default stdout)");
  gc->add_option("--npy", g->npy,
                 "also write PREFIX.inputs.npy, PREFIX.expected.npy, "
                 "PREFIX.fields.json");
  gc->add_option("--set", g->set, "any header key as KEY=VALUE");
  gc->add_option("--from", g->from, "convert: source format");
  gc->add_option("--to", g->to, "convert: target format");
  gc->add_option("--round", g->round,
                 "convert, mx-dot: rne rz ru rd rna odd rs rs-full");
  gc->add_option("--overflow", g->overflow, "convert: format | satfinite");
  gc->add_option("--relu", g->relu, "convert: 0 | 1");
  gc->add_option("--range", g->range,
                 "convert: FIRST+COUNT (hex): exactly these consecutive source "
                 "encodings (a slice of an exhaustive sweep)");
  gc->add_option("--profile", g->profile, "mx-/nvfp4-quantize: profile");
  gc->add_option("--elem", g->elem, "mx-quantize: element format");
  gc->add_option("--block", g->block, "mx-quantize: block size");
  gc->add_option("--sr", g->sr, "nvfp4-quantize: 1 = stochastic rounding");
  gc->add_option("--elem-a", g->elem_a, "mx-dot: A element format");
  gc->add_option("--elem-b", g->elem_b, "mx-dot: B element format");
  gc->add_option("--blocks", g->blocks, "mx-dot: 32-element blocks");
  gc->add_option("--out-fmt", g->out_fmt, "mx-dot: f32 | f16 | bf16");
  gc->add_option("--model", g->model, "mma: model (mxc models)");
  gc->add_option("--a-fmt", g->a_fmt, "mma: A element format");
  gc->add_option("--b-fmt", g->b_fmt, "mma: B element format");
  gc->add_option("--k", g->k, "mma, gemm: K (a multiple of the model's L)");
  gc->add_option("--layout", g->layout, "gemm: TN | NN | NT | TT");
  gc->add_option("--m", g->m, "gemm: M");
  gc->add_option("--n", g->n, "gemm: N");
  gc->add_option("--split-k", g->split_k, "gemm: K slices, FP32 reduction");
  gc->add_option("--zero-exp", g->zero_exp,
                 "mma, gemm: zero-term exponent, fixed | operand-min "
                 "(default: the model's, docs/models.md)");
  gc->add_option("--zero-sign", g->zero_sign,
                 "mma, gemm: sign of a zero result, ieee | positive "
                 "(default: the model's)");
  gc->callback([g, &exit_code] { exit_code = run_gen(*g); });

  auto v = std::make_shared<VerifyCli>();
  CLI::App* vc = app.add_subcommand(
      "verify",
      "Compare a subject's results with golden vectors, bit-exactly unless "
      "--allow names a variation; classify every mismatch. Exit 0 clean, 1 "
      "mismatches, 2 bad input. Pipe form: mxc gen ... | subject | mxc "
      "verify (the subject rewrites the result fields; the expected results "
      "are recomputed from the header).");
  vc->add_option("--vectors", v->vectors,
                 "vector file (default stdin: whole lines with observed "
                 "results)");
  vc->add_option("--results", v->results,
                 "the subject's results, one line per case (results only or "
                 "whole lines); '-' for stdin");
  vc->add_option("--allow", v->allow,
                 "accept a documented variation, named in the report: "
                 "nan-payload, sign-of-zero, ulp=N (N in 1..2^32), flags "
                 "(convert: the subject gives no exception flags); see "
                 "docs/gate.md for what each loosens")
      ->check(check_with(vec::allow_error, "VARIATION"));
  vc->add_option("--require", v->require,
                 "KEY=VALUE the header must carry (refuse otherwise)");
  vc->add_option("--max-errors", v->max_errors, "mismatch lines to print")
      ->check(integer_in(0, 1000000))
      ->capture_default_str();
  vc->add_option("--json", v->json, "write a JSON report");
  vc->add_option("--junit", v->junit, "write a JUnit XML report");
  vc->add_flag("-q,--quiet", v->quiet, "no progress on stderr");
  vc->add_flag("--hand-picked", v->hand_picked,
               "the cases are not the header's generated sequence (a "
               "hardware capture such as mxc-gpu run --capture writes for a "
               "sweep, or a selection of cases): do not require case n to be "
               "the header's case n; cases= must still equal the count");
  vc->callback([v, &exit_code] { exit_code = run_verify(*v); });
}

}  // namespace mxc::cli
