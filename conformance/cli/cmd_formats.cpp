// mxc formats: the table of every format the emulator models, computed from
// the descriptors (docs/formats.md quotes this output).
#include <fmt/format.h>

#include <cmath>

#include "conformance/cli/commands.h"
#include "emu/format.h"
#include "emu/round_pack.h"
#include "emu/unpack.h"

namespace mxc::cli {
namespace {

int run() {
  fmt::print("{:<11} {:>4} {:>10} {:>5} {:>5} {:>13} {:>13} {:>13} {:>8}\n",
             "format", "bits", "e/m/bias", "inf", "nan", "max", "min normal",
             "min subnorm", "binades");
  for (const FormatDesc& d : kFormats) {
    const double mx = to_double(unpack(d.id, max_finite_bits(d.id, false)));
    double min_normal, min_sub;
    if (d.specials == Specials::kInt) {
      min_normal = min_sub = std::ldexp(1.0, -d.bias);
    } else {
      min_normal = std::ldexp(1.0, d.emin());
      min_sub = d.has_subnormals() ? std::ldexp(1.0, d.emin() - d.man_bits)
                                   : min_normal;
    }
    // Dynamic range in binades: log2(max finite / least positive).
    const double binades = std::log2(mx) - std::log2(min_sub);
    fmt::print(
        "{:<11} {:>4} {:>10} {:>5} {:>5} {:>13.6g} {:>13.6g} {:>13.6g} "
        "{:>8.2f}\n",
        d.name, d.bits, fmt::format("{}/{}/{}", d.exp_bits, d.man_bits, d.bias),
        d.has_inf() ? "yes" : "no", d.has_nan() ? "yes" : "no", mx, min_normal,
        min_sub, binades);
  }
  return 0;
}

}  // namespace

void add_formats(CLI::App& app, int& exit_code) {
  CLI::App* c = app.add_subcommand(
      "formats", "Print every modelled format: layout, specials, range");
  c->callback([&exit_code] { exit_code = run(); });
}

}  // namespace mxc::cli
