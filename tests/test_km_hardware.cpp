// Replays every GPU capture of ../shared/oracles/km-hardware/ (Khattak &
// Mikaitis, BSD-2: results of real Ada/H100/H200/B200 tensor cores) through
// the instruction models and through the exact reference
// (conformance/oracle/fdpa_oracle.cpp). The expected D is the GPU's; 0
// mismatches on every row. Skipped, saying so, when the folder is absent (a
// user's clone); CI has it. The same files go through `mxc mma` in
// tests/km_hardware_cli.sh.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <utility>

#include "conformance/oracle/fdpa_oracle.h"
#include "emu/fast/gemm_fast.h"
#include "emu/format.h"
#include "emu/mma/gemm.h"
#include "emu/mma/models.h"
#include "emu/unpack.h"
#include "test_isas.h"
#include "tests/km_hardware.h"

using namespace mxc;

namespace {

fdpa_oracle::Params oracle_params(const FdpaParams& f) {
  fdpa_oracle::Params p;
  p.L = f.L;
  p.G = f.G;
  p.F = f.F;
  p.rho = f.rho == AccRound::kRzF32     ? fdpa_oracle::Rho::RzF32
          : f.rho == AccRound::kRzE8M13 ? fdpa_oracle::Rho::RzE8M13
                                        : fdpa_oracle::Rho::RneF16;
  p.e_zero = f.e_zero;
  p.zero_exp = f.zero_exp == ZeroExp::kFixed
                   ? fdpa_oracle::Params::ZeroExp::Fixed
                   : fdpa_oracle::Params::ZeroExp::OperandMin;
  p.zero_sign = f.zero_sign == ZeroSign::kIeee
                    ? fdpa_oracle::Params::ZeroSign::Ieee
                    : fdpa_oracle::Params::ZeroSign::Positive;
  p.k_block = f.k_block;
  p.k_period = f.k_period;
  p.k_run = f.k_run;
  p.c_outside = f.c_outside;
  return p;
}

// Every row of `files` through its model (with the header's zero rules,
// if any) and through the exact reference; prints one line per file.
size_t replay(const std::vector<test::KmFile>& files, const char* label) {
  size_t total = 0;
  for (const auto& f : files) {
    INFO(f.path.string());
    const MmaModel* found = find_mma_model(f.model);
    REQUIRE(found != nullptr);
    const auto ze =
        f.zero_exp.empty() ? found->fdpa.zero_exp : parse_zero_exp(f.zero_exp);
    const auto zs = f.zero_sign.empty() ? found->fdpa.zero_sign
                                        : parse_zero_sign(f.zero_sign);
    REQUIRE(ze.has_value());
    REQUIRE(zs.has_value());
    const MmaModel model = with_zero_rules(*found, *ze, *zs);
    const MmaModel* m = &model;
    const auto af = parse_format(f.a_fmt), bf = parse_format(f.b_fmt);
    REQUIRE(af.has_value());
    REQUIRE(bf.has_value());
    REQUIRE(f.c_fmt == desc(m->c_fmt).name);
    REQUIRE(f.k == m->k);
    const fdpa_oracle::Params op = oracle_params(m->fdpa);
    size_t bad = 0, bad_oracle = 0;
    std::string first;
    for (size_t i = 0; i < f.cases.size(); ++i) {
      const auto& c = f.cases[i];
      const uint64_t d = mma_dot(*m, *af, *bf, c.a, c.b, c.c);
      if (d != c.d) {
        if (bad++ == 0)
          first = fmt::format("row {} ({}): model {:X}, expected {:X}", i + 1,
                              c.gpu, d, c.d);
      }
      // The exact reference, where the model runs natively (no operand
      // emulation), must agree too.
      if (m->emulate_as == Fmt::kF64) {
        fdpa_oracle::Operands o;
        o.a_fmt = f.a_fmt;
        o.b_fmt = f.b_fmt;
        o.c_fmt = f.c_fmt;
        o.a = c.a;
        o.b = c.b;
        o.c = c.c;
        if (fdpa_oracle::fdpa_chain(op, o) != c.d) ++bad_oracle;
      }
    }
    total += f.cases.size();
    INFO(first);
    CHECK(bad == 0);
    CHECK(bad_oracle == 0);
    // Evidence in the test log.
    fmt::print("{} {}: {} rows, {} model / {} reference mismatches\n", label,
               f.path.filename().string(), f.cases.size(), bad, bad_oracle);
  }
  return total;
}

}  // namespace

TEST_CASE("GPU captures (km-hardware) replay bit-exact through every model",
          "[mma][hardware]") {
  const auto dir = test::km_hardware_dir();
  if (dir.empty()) {
    WARN(
        "SKIPPED: ../shared/oracles/km-hardware not found (set "
        "MXC_KM_HARDWARE_DIR); GPU captures not replayed");
    return;
  }
  const auto files = test::read_km_captures(dir);
  REQUIRE(!files.empty());
  CHECK(replay(files, "km-hardware") > 0);
}

// The packed folders the repository carries (README in each): more KM GPU
// captures (A2, A100, Ada, L40S, V100, H100, H200, B200) and microsoft/
// MMA-Sim's rows for the legacy mma.sync models, through the models and
// the exact reference. Also replayed through `mxc mma` by the ctests
// km_hardware_extra_cli and mmasim_rows.
TEST_CASE(
    "committed captures and MMA-Sim rows replay through the models "
    "and the exact reference",
    "[mma][hardware]") {
  for (const auto& [name, min_files] :
       {std::pair<const char*, size_t>{"km-hardware-extra", 18},
        std::pair<const char*, size_t>{"mmasim-nv", 20}}) {
    const auto dir = test::unpack_gz_folder(test::repo_data_dir(name));
    const auto files = test::read_km_captures(dir);
    std::filesystem::remove_all(dir);
    CHECK(files.size() >= min_files);
    CHECK(replay(files, name) > 0);
  }
}

// The same GPU rows through the batched fast GEMM (emu/fast/gemm_fast.h),
// one 1x1xK problem per row, on every ISA this machine has: the fast path
// is held to the hardware directly, not only to the reference composition
// (issue 22). Rows with a NaN/Inf operand may go to the reference per
// element; a finite row that does is counted as a fallback and fails.
TEST_CASE("GPU captures (km-hardware) replay bit-exact through the fast GEMM",
          "[mma][gemm][hardware]") {
  const auto dir = test::km_hardware_dir();
  if (dir.empty()) {
    WARN(
        "SKIPPED: ../shared/oracles/km-hardware not found (set "
        "MXC_KM_HARDWARE_DIR); GPU captures not replayed through gemm_fast");
    return;
  }
  const auto files = test::read_km_captures(dir);
  REQUIRE(!files.empty());
  size_t total = 0;
  for (const auto& f : files) {
    INFO(f.path.string());
    const MmaModel* m = find_mma_model(f.model);
    REQUIRE(m != nullptr);
    const auto af = parse_format(f.a_fmt), bf = parse_format(f.b_fmt);
    REQUIRE(af.has_value());
    REQUIRE(bf.has_value());
    size_t bad = 0, finite_fallbacks = 0;
    std::string first;
    for (size_t i = 0; i < f.cases.size(); ++i) {
      const auto& c = f.cases[i];
      GemmProblem p;
      p.M = p.N = 1;
      p.K = static_cast<int>(c.a.size());
      p.a_fmt = *af;
      p.b_fmt = *bf;
      p.A = c.a;
      p.B = c.b;
      p.C = {c.c};
      REQUIRE(fast::gemm_covers(*m, p));
      const auto fin = [](Fmt fm, uint64_t v) {
        if (fm == Fmt::kTF32) v >>= 13;
        const Class cls = unpack(fm, v).cls;
        return cls != Class::kNaN && cls != Class::kInf;
      };
      bool finite = fin(m->c_fmt, c.c);
      for (uint64_t v : c.a) finite = finite && fin(*af, v);
      for (uint64_t v : c.b) finite = finite && fin(*bf, v);
      for (fast::Isa isa : test::isas()) {
        size_t fb = 0;
        const uint64_t d = fast::gemm_fast(*m, p, isa, &fb)[0];
        if (finite && fb != 0) ++finite_fallbacks;
        if (d != c.d && bad++ == 0)
          first = fmt::format("row {} ({}) isa {}: fast {:X}, GPU {:X}", i + 1,
                              c.gpu, fast::isa_name(isa), d, c.d);
      }
    }
    total += f.cases.size();
    INFO(first);
    CHECK(bad == 0);
    CHECK(finite_fallbacks == 0);
    fmt::print(
        "km-hardware {} through gemm_fast ({}): {} rows, {} mismatches\n",
        f.path.filename().string(), test::isa_list(), f.cases.size(), bad);
  }
  CHECK(total > 0);
}
