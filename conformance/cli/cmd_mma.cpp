// mxc models: the instruction models with their parameters and sources.
// mxc mma: one output element per input line through a model:
//   A[0..K-1] B[0..K-1] SA[0..K/blk-1] SB[0..K/blk-1] C      (hex tokens)
// (A is a row block of op(A), B a column block of op(B); scales only for
// block-scaled models). Prints D's bits (upper-case hex) per line.
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/cli/commands.h"
#include "conformance/cli/options.h"
#include "conformance/hex_io.h"
#include "conformance/io.h"
#include "emu/mma/models.h"

namespace mxc::cli {
namespace {

std::string_view rho_name(AccRound r) {
  switch (r) {
    case AccRound::kRzF32: return "RZ-FP32";
    case AccRound::kRzE8M13: return "RZ-E8M13";
    case AccRound::kRneF16: return "RNE-FP16";
    case AccRound::kRneF32: return "RNE-FP32";
  }
  return "?";
}

std::string_view scale_name(ScaleKind s) {
  switch (s) {
    case ScaleKind::kNone: return "-";
    case ScaleKind::kUe8m0Block32: return "ue8m0/32 (1X)";
    case ScaleKind::kUe8m0Block32x2: return "ue8m0/32 (2X)";
    case ScaleKind::kUe8m0Block16: return "ue8m0/16 (4X)";
    case ScaleKind::kUe4m3Block16: return "ue4m3/16 (4X)";
  }
  return "?";
}

int run_models(bool verbose) {
  fmt::print("{:<34} {:>3} {:>3} {:>3} {:>3} {:<9} {:>6} {:<5} {:<14} {}\n",
             "model", "K", "L", "G", "F", "rho", "e_zero", "C/D", "scales",
             "status");
  for (const MmaModel& m : mma_models()) {
    fmt::print("{:<34} {:>3} {:>3} {:>3} {:>3} {:<9} {:>6} {:<5} {:<14} {}\n",
               m.name, m.k, m.fdpa.L, m.fdpa.G, m.fdpa.F, rho_name(m.fdpa.rho),
               m.fdpa.e_zero, desc(m.c_fmt).name, scale_name(m.scales),
               model_status(m));
    if (verbose) {
      std::string fmts;
      for (Fmt f : m.ab_formats) fmts += fmt::format(" {}", desc(f).name);
      fmt::print("    ptx: {}\n    A/B formats:{}\n    source: {}\n", m.ptx,
                 fmts, m.source);
      // One source for docs/models.md's evidence table
      // (tests/models_doc_test.sh compares them).
      fmt::print("    evidence: {} | rows {} | gpus {} | captures {}\n",
                 evidence_name(m.evidence.level), m.evidence.capture_rows,
                 m.evidence.gpus.empty() ? "-" : m.evidence.gpus,
                 m.evidence.captures.empty() ? "-" : m.evidence.captures);
      fmt::print("    zero rules: zero-exp={} zero-sign={}\n",
                 zero_exp_name(m.fdpa.zero_exp),
                 zero_sign_name(m.fdpa.zero_sign));
      if (m.fdpa.datapath == Datapath::kTwoStageRd) {
        fmt::print(
            "    datapath: two-stage (products truncated to F below their "
            "max{}; sum floored to {} bits, C to F, below max(products, C); "
            "{})\n",
            m.fdpa.split > 1
                ? fmt::format(", in {} interleaved sets", m.fdpa.split)
                : std::string(),
            kTwoStageSumBits, rho_name(m.fdpa.rho));
      } else if (m.fdpa.datapath == Datapath::kF32Pairwise) {
        fmt::print(
            "    datapath: f32 products, pairwise f32 RNE adds over L, then "
            "C + sum{}\n",
            m.fdpa.ftz ? "; subnormals flushed to zero" : "");
      }
      if (m.fdpa.k_block > 0) {
        fmt::print("    per instruction of k={}: {}{}\n", m.fdpa.k_block,
                   m.fdpa.k_period > 0
                       ? fmt::format("chunks by k mod {} in runs of {}; ",
                                     m.fdpa.k_period, m.fdpa.k_run)
                       : std::string(),
                   m.fdpa.c_outside ? "products from +0, then C by an RNE add"
                                    : "C is the first chunk's addend");
      }
    }
  }
  return 0;
}

struct MmaOptions {
  std::string model, a_fmt = "e4m3", b_fmt = "e4m3";
  int k = 0;
  std::string zero_exp, zero_sign;  // empty: the model's
  std::string tf32_input = "strict";  // strict | truncate
};

int run_mma(const MmaOptions& o) {
  const MmaModel* found = find_mma_model(o.model);
  if (found == nullptr) {
    std::fprintf(stderr, "mxc mma: error: unknown model '%s' (see mxc models)\n",
                 o.model.c_str());
    return 2;
  }
  const auto ze =
      o.zero_exp.empty() ? found->fdpa.zero_exp : parse_zero_exp(o.zero_exp);
  const auto zs = o.zero_sign.empty() ? found->fdpa.zero_sign
                                      : parse_zero_sign(o.zero_sign);
  if (!ze || !zs) {
    std::fprintf(stderr,
                 "mxc mma: error: --zero-exp takes fixed|operand-min, "
                 "--zero-sign takes ieee|positive\n");
    return 2;
  }
  if (o.tf32_input != "strict" && o.tf32_input != "truncate") {
    std::fprintf(stderr,
                 "mxc mma: error: --tf32-input takes strict|truncate, got "
                 "%s\n",
                 io::quote(o.tf32_input).c_str());
    return 2;
  }
  const bool tf32_truncate = o.tf32_input == "truncate";
  const MmaModel model = with_zero_rules(*found, *ze, *zs);
  const MmaModel* m = &model;
  const auto fa = parse_format(o.a_fmt), fb = parse_format(o.b_fmt);
  auto allowed = [&](std::optional<Fmt> f) {
    if (!f) return false;
    for (Fmt x : m->ab_formats)
      if (x == *f) return true;
    return false;
  };
  if (!allowed(fa) || !allowed(fb)) {
    std::fprintf(stderr,
                 "mxc mma: error: model %s does not take A=%s B=%s\n",
                 std::string(m->name).c_str(), o.a_fmt.c_str(),
                 o.b_fmt.c_str());
    return 2;
  }
  const int K = o.k > 0 ? o.k : m->k;
  const int blk = scale_block(m->scales);
  const int step = m->fdpa.k_block > 0 ? m->fdpa.k_block : m->fdpa.L;
  if (K % step != 0 || (blk > 0 && K % blk != 0)) {
    std::fprintf(stderr, "mxc mma: error: --k %d is not a multiple of %s=%d\n",
                 K, m->fdpa.k_block > 0 ? "the instruction's k" : "L", step);
    return 2;
  }
  const size_t ns = blk > 0 ? static_cast<size_t>(K / blk) : 0;
  const size_t want = 2 * static_cast<size_t>(K) + 2 * ns + 1;
  const Fmt sfmt = scale_format(m->scales);
  std::string line, out, why;
  io::LineReader lines(std::cin, "<stdin>");  // capped; read errors throw
  while (lines.next(line)) {
    const long line_no = lines.line();
    std::istringstream ss(line);
    std::vector<uint64_t> v;
    std::string tok;
    bool bad = false;
    while (ss >> tok) {
      const size_t i = v.size();
      const Fmt f = i < static_cast<size_t>(K) ? *fa
                    : i < 2 * static_cast<size_t>(K) ? *fb
                    : i < want - 1 ? sfmt
                                   : m->c_fmt;
      auto x = parse_hex(tok, &why);
      const bool operand = i < 2 * static_cast<size_t>(K);
      // The instruction ignores a TF32 operand's low 13 bits.
      if (x && operand && f == Fmt::kTF32 && tf32_truncate) *x &= ~0x1FFFull;
      if (!x || (operand ? !operand_code_ok(f, *x)
                         : (*x & ~desc(f).storage_mask()) != 0)) {
        if (x && f == Fmt::kTF32) {
          why =
              "not a tf32 operand (an f32 bit pattern whose low 13 bits are "
              "zero; --tf32-input truncate drops them as the instruction "
              "does)";
        } else if (x) {
          why = fmt::format("wider than {}", desc(f).name);
        }
        std::fprintf(stderr, "<stdin>:%ld: error: token %zu %s: %s\n",
                     line_no, i + 1, io::quote(tok).c_str(), why.c_str());
        bad = true;
        break;
      }
      v.push_back(*x);
    }
    if (!bad && v.empty()) continue;  // blank line
    if (!bad && v.size() != want) {
      std::fprintf(stderr,
                   "<stdin>:%ld: error: %zu tokens, expected %zu (K=%d A, K "
                   "B, %zu+%zu scales, 1 C)\n",
                   line_no, v.size(), want, K, ns, ns);
      bad = true;
    }
    if (bad) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      return 2;
    }
    const std::span<const uint64_t> all(v);
    const uint64_t d = mma_dot(*m, *fa, *fb, all.subspan(0, K),
                               all.subspan(K, K), v.back(),
                               all.subspan(2 * K, ns),
                               all.subspan(2 * K + ns, ns));
    out += format_hex(m->c_fmt, d);
    out += '\n';
    if (out.size() > (1 << 16)) {  // stream: memory stays flat
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace

void add_mma(CLI::App& app, int& exit_code) {
  auto verbose = std::make_shared<bool>(false);
  CLI::App* models = app.add_subcommand(
      "models", "List the tensor-core instruction models, their parameters "
                "(L products per FDPA, G group size, F fraction bits, output "
                "rounding, zero exponent) and status");
  models->add_flag("-v,--verbose", *verbose,
                   "also print the PTX instruction, formats and sources");
  models->callback([verbose, &exit_code] { exit_code = run_models(*verbose); });

  auto o = std::make_shared<MmaOptions>();
  CLI::App* c = app.add_subcommand(
      "mma",
      "Compute D = A.B + C for one output element per stdin line through an "
      "instruction model. Line: K hex A elements, K hex B elements, K/blk A "
      "scales, K/blk B scales (block-scaled models only), C. Prints D's hex. "
      "TF32 operands are f32 bit patterns with the low 13 bits "
      "zero (8 hex digits).");
  c->add_option("--model", o->model, "model name (mxc models)")->required();
  c->add_option("--a-fmt", o->a_fmt, "A element format")->capture_default_str();
  c->add_option("--b-fmt", o->b_fmt, "B element format")->capture_default_str();
  c->add_option("--k", o->k,
                "K per line (default: the instruction's K; a multiple of L "
                "chains FDPAs in increasing k; 1..262144)")
      ->check(integer_in(1, 262144));
  c->add_option("--zero-exp", o->zero_exp,
                "alignment exponent of zero terms: fixed (the model's e_zero) "
                "or operand-min (a zero operand has exponent -126, MMA-Sim "
                "HEAD); default: the model's (docs/models.md)");
  c->add_option("--zero-sign", o->zero_sign,
                "sign of a zero result: ieee (-0 from all -0 terms or a "
                "negative underflow) or positive (always +0, MMA-Sim and "
                "Khattak-Mikaitis); default: the model's");
  c->add_option("--tf32-input", o->tf32_input,
                "TF32 operands with any of the low 13 bits set: strict "
                "(refuse the line, exit 2) or truncate (clear them, as the "
                "instruction does)")
      ->capture_default_str();
  c->callback([o, &exit_code] { exit_code = run_mma(*o); });
}

}  // namespace mxc::cli
