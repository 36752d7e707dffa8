// mxc convert: a filter from hex bit patterns to hex bit patterns, one
// conversion per input token, for external checks and the TestFloat-style
// gen | subject | verify pipes.
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "conformance/cli/commands.h"
#include "conformance/cli/options.h"
#include "conformance/hex_io.h"
#include "conformance/io.h"
#include "emu/convert.h"

namespace mxc::cli {
namespace {

struct ConvertOptions {
  std::string from = "f32";
  std::string to;
  std::string round = "rne";
  bool saturate = false;
  bool relu = false;
  std::string rbits = "0";
  int sr_bits = -1;
};

// Returns the exit code. Writes results as it goes; on the first bad token
// writes nothing more to stdout, names the token and line on stderr.
int run_convert(const ConvertOptions& o) {
  const auto from = parse_format(o.from);
  const auto to = parse_format(o.to);
  const auto rounding = parse_rounding(o.round);
  if (!from || !to || !rounding) {
    std::fprintf(stderr, "mxc convert: error: unknown %s '%s'\n",
                 !from ? "source format" : !to ? "target format" : "rounding",
                 (!from ? o.from : !to ? o.to : o.round).c_str());
    return 2;
  }
  RoundSpec r = *rounding;
  r.overflow = o.saturate ? Overflow::kSatFinite : Overflow::kFormat;
  r.relu = o.relu;
  std::string why;
  const auto rb = parse_hex(o.rbits, &why);
  if (!rb || *rb > 0xFFFFFFFFu) {
    std::fprintf(stderr, "mxc convert: error: --rbits '%s': %s\n",
                 o.rbits.c_str(), rb ? "wider than 32 bits" : why.c_str());
    return 2;
  }
  r.rbits = static_cast<uint32_t>(*rb);
  if (o.sr_bits != -1) {
    if (o.sr_bits < 1 || o.sr_bits > 32) {
      std::fprintf(stderr, "mxc convert: error: --sr-bits must be 1..32\n");
      return 2;
    }
    r.sr_bits = o.sr_bits;
  }

  const uint64_t src_mask = desc(*from).storage_mask();
  std::string out;
  std::string line;
  io::LineReader lines(std::cin, "<stdin>");  // capped; read errors throw
  while (lines.next(line)) {
    const long line_no = lines.line();
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
        ++i;
      if (i >= line.size()) break;
      size_t j = i;
      while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j])))
        ++j;
      const std::string_view tok(line.data() + i, j - i);
      const auto v = parse_hex(tok, &why);
      if (!v || (*v & ~src_mask) != 0) {
        std::fwrite(out.data(), 1, out.size(), stdout);
        std::fflush(stdout);
        std::fprintf(stderr, "<stdin>:%ld: error: bad input %s: %s\n",
                     line_no, io::quote(tok).c_str(),
                     v ? fmt::format("wider than the {}-bit source format {}",
                                     desc(*from).bits, desc(*from).name)
                             .c_str()
                       : why.c_str());
        return 2;
      }
      out += format_hex(*to, convert(*from, *to, *v, r));
      out += '\n';
      i = j;
    }
    if (out.size() > (1 << 16)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return 0;
}

}  // namespace

void add_convert(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ConvertOptions>();
  CLI::App* c = app.add_subcommand(
      "convert",
      "Convert hex bit patterns read from stdin (whitespace separated, with or "
      "without 0x) and write one upper-case hex result per line, in order. "
      "Bad input: an error naming the token and its line, exit 2.");
  c->add_option("--from", o->from,
                "source format: f32 f64 f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1 "
                "e8m0 ue4m3 int8 e4m3fnuz e5m2fnuz e4m3b11fnuz")
      ->capture_default_str();
  c->add_option("--to", o->to,
                "target format: e4m3 e5m2 e3m2 e2m3 e2m1 e8m0 ue4m3 int8 "
                "e4m3fnuz e5m2fnuz e4m3b11fnuz f16 bf16 f32")
      ->required();
  c->add_option("--round", o->round,
                "rne | rz | ru (toward +inf) | rd (toward -inf) | rna (ties "
                "away) | odd | rs (stochastic, 8 random bits as PTX cvt.rs "
                "to e2m1x4) | rs-full (every discarded source bit) | rnz (ties "
                "toward zero)")
      ->capture_default_str();
  c->add_flag("--saturate", o->saturate,
              "overflow clamps to the largest finite value (PTX .satfinite) "
              "instead of Inf/NaN");
  c->add_flag("--relu", o->relu, "negative results become +0 (PTX .relu)");
  c->add_option("--rbits", o->rbits,
                "random bits (hex, up to 32 bits) for --round rs/rs-full, "
                "used for every input")
      ->capture_default_str();
  c->add_option("--sr-bits", o->sr_bits,
                "override how many of --rbits stochastic rounding uses (1..32)")
      ->check(integer_in(1, 32));
  c->callback([o, &exit_code] { exit_code = run_convert(*o); });
}

}  // namespace mxc::cli
