// The AMD MFMA rows of microsoft/MMA-Sim (tests/data/mmasim-amd/, README
// there) through the instruction models and through the independent exact
// reference (conformance/oracle/fdpa_oracle.cpp): 0 mismatches. Then the
// rows must separate each structural parameter of the AMD datapaths: the
// model with one parameter changed (split, ftz, L, F, the zero exponent)
// must mismatch some rows, or the rows would not be evidence for it. The
// same rows go through `mxc mma` in tests/mmasim_amd_cli.sh.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/oracle/fdpa_oracle.h"
#include "emu/fast/gemm_fast.h"
#include "emu/format.h"
#include "emu/mma/models.h"
#include "emu/unpack.h"
#include "test_isas.h"
#include "test_level.h"

using namespace mxc;
namespace fs = std::filesystem;
namespace fo = mxc::fdpa_oracle;

namespace {

struct Row {
  std::vector<uint64_t> a, b;
  uint64_t c = 0, d = 0;
};

struct RowFile {
  std::string name;
  std::map<std::string, std::string> hdr;
  std::vector<Row> rows;
};

// The inputs come from tests/mmasim_amd_cases.py (pure Python, seeded).
std::vector<std::string> case_lines(
    const std::map<std::string, std::string>& h) {
  const std::string cmd = fmt::format(
      "python3 '{}/tests/mmasim_amd_cases.py' {} {} {} {} {}", MXC_SOURCE_DIR,
      h.at("a-fmt"), h.at("b-fmt"), h.at("k"), h.at("seed"), h.at("n"));
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::vector<std::string> out;
  std::string cur;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) {
    for (size_t i = 0; i < n; ++i) {
      if (buf[i] == '\n') {
        out.push_back(cur);
        cur.clear();
      } else {
        cur += buf[i];
      }
    }
  }
  REQUIRE(pclose(p) == 0);
  return out;
}

std::vector<RowFile> read_rows() {
  const fs::path dir = fs::path(MXC_SOURCE_DIR) / "tests/data/mmasim-amd";
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".tsv") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  std::vector<RowFile> files;
  for (const auto& path : paths) {
    RowFile f;
    f.name = path.filename().string();
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    std::istringstream hs(line.substr(1));
    for (std::string t; hs >> t;) {
      const size_t eq = t.find('=');
      if (eq != std::string::npos) f.hdr[t.substr(0, eq)] = t.substr(eq + 1);
    }
    std::vector<uint64_t> d;
    while (std::getline(in, line))
      if (!line.empty() && line[0] != '#')
        d.push_back(std::stoull(line, nullptr, 16));
    const auto inputs = case_lines(f.hdr);
    REQUIRE(inputs.size() == d.size());
    const size_t K = std::stoul(f.hdr.at("k"));
    for (size_t i = 0; i < d.size(); ++i) {
      std::istringstream ls(inputs[i]);
      std::vector<uint64_t> v;
      for (std::string t; ls >> t;) v.push_back(std::stoull(t, nullptr, 16));
      REQUIRE(v.size() == 2 * K + 1);
      Row r;
      r.a.assign(v.begin(), v.begin() + K);
      r.b.assign(v.begin() + K, v.begin() + 2 * K);
      r.c = v[2 * K];
      r.d = d[i];
      f.rows.push_back(std::move(r));
    }
    files.push_back(std::move(f));
  }
  return files;
}

bool is_nan32(uint64_t x) {
  return (x & 0x7F800000u) == 0x7F800000u && (x & 0x7FFFFFu) != 0;
}
bool same(uint64_t got, uint64_t want) {
  return got == want || (is_nan32(got) && is_nan32(want));
}

fo::Params oracle_params(const FdpaParams& f) {
  fo::Params p;
  p.L = f.L;
  p.G = f.G;
  p.F = f.F;
  REQUIRE(f.rho == AccRound::kRneF32);
  p.rho = fo::Rho::RneF32;
  p.e_zero = f.e_zero;
  p.zero_exp = f.zero_exp == ZeroExp::kFixed ? fo::Params::ZeroExp::Fixed
                                             : fo::Params::ZeroExp::OperandMin;
  p.zero_sign = f.zero_sign == ZeroSign::kIeee ? fo::Params::ZeroSign::Ieee
                                               : fo::Params::ZeroSign::Positive;
  p.datapath = f.datapath == Datapath::kTwoStageRd
                   ? fo::Params::Datapath::TwoStageRd
                   : fo::Params::Datapath::F32Pairwise;
  p.split = f.split;
  p.ftz = f.ftz;
  return p;
}

Fmt fmt_of(const std::string& name) {
  for (Fmt f :
       {Fmt::kF16, Fmt::kBF16, Fmt::kTF32, Fmt::kE4M3Fnuz, Fmt::kE5M2Fnuz})
    if (desc(f).name == name) return f;
  FAIL("unknown format " << name);
  return Fmt::kF32;
}

// fn(file, its model, A's format, B's format) for every row file.
template <class Fn>
void for_each_file(Fn&& fn) {
  const auto files = read_rows();
  REQUIRE(files.size() >= 12);
  for (const RowFile& f : files) {
    INFO(f.name);
    const MmaModel* m = find_mma_model(f.hdr.at("model"));
    REQUIRE(m != nullptr);
    fn(f, m, fmt_of(f.hdr.at("a-fmt")), fmt_of(f.hdr.at("b-fmt")));
  }
}

// Mismatches on the first `limit` rows.
size_t mismatches(const MmaModel& m, const RowFile& f, Fmt af, Fmt bf,
                  size_t limit = SIZE_MAX) {
  size_t bad = 0;
  for (size_t i = 0; i < f.rows.size() && i < limit; ++i) {
    const Row& r = f.rows[i];
    if (!same(mma_dot(m, af, bf, r.a, r.b, r.c), r.d)) ++bad;
  }
  return bad;
}

// Sanitizer builds (level 0) check fewer rows against the slow reference
// and the variants; every row still goes through the models.
size_t oracle_limit() { return test::level() <= 0 ? 300 : 2000; }
size_t variant_limit() { return test::level() <= 0 ? 3000 : SIZE_MAX; }

}  // namespace

TEST_CASE("MMA-Sim AMD rows replay through every AMD model and the reference",
          "[mma][mmasim]") {
  const auto files = read_rows();
  REQUIRE(files.size() >= 12);
  size_t total = 0, oracle_rows = 0;
  for (const RowFile& f : files) {
    INFO(f.name);
    const MmaModel* m = find_mma_model(f.hdr.at("model"));
    REQUIRE(m != nullptr);
    const Fmt af = fmt_of(f.hdr.at("a-fmt")), bf = fmt_of(f.hdr.at("b-fmt"));
    CHECK(mismatches(*m, f, af, bf) == 0);
    // The exact reference on the first 2000 rows (cpp_int is slow).
    const size_t limit = oracle_limit();
    const fo::Params op = oracle_params(m->fdpa);
    size_t bad = 0;
    for (size_t i = 0; i < f.rows.size() && i < limit; ++i) {
      const Row& r = f.rows[i];
      fo::Operands o;
      o.a_fmt = f.hdr.at("a-fmt");
      o.b_fmt = f.hdr.at("b-fmt");
      o.c_fmt = "f32";
      o.a = r.a;
      o.b = r.b;
      o.c = r.c;
      const uint64_t got = fo::fdpa_chain(op, o);
      if (!same(got, r.d) && ++bad <= 3)
        UNSCOPED_INFO(fmt::format("row {}: reference {:08X}, MMA-Sim {:08X}",
                                  i + 1, got, r.d));
      ++oracle_rows;
    }
    CHECK(bad == 0);
    total += f.rows.size();
  }
  CHECK(total >= 120000);
  CHECK(oracle_rows >= 12 * oracle_limit());
}

// Every row through fast::gemm_fast as a 1x1xK GEMM on every ISA (the
// scalar kernels of gemm_amd.cpp; a row with a NaN/Inf operand takes the
// reference, counted): 0 mismatches against MMA-Sim.
TEST_CASE("MMA-Sim AMD rows replay through the fast GEMM on every ISA",
          "[mma][mmasim][gemm]") {
  for_each_file([](const RowFile& f, const MmaModel* m, Fmt af, Fmt bf) {
    const int K = std::stoi(f.hdr.at("k"));
    size_t bad = 0, slow = 0;
    for (const Row& r : f.rows) {
      GemmProblem p;
      p.M = p.N = 1;
      p.K = K;
      p.layout = GemmLayout::kTN;
      p.a_fmt = af;
      p.b_fmt = bf;
      p.A = r.a;
      p.B = r.b;
      p.C = {r.c};
      REQUIRE(fast::gemm_covers(*m, p));
      for (fast::Isa isa : test::isas()) {
        size_t fb = 0;
        const uint64_t d = fast::gemm_fast(*m, p, isa, &fb)[0];
        if (isa == fast::Isa::kScalar) slow += fb;
        if (!same(d, r.d) && ++bad <= 3)
          UNSCOPED_INFO(fmt::format("isa {}: fast {:08X}, MMA-Sim {:08X}",
                                    fast::isa_name(isa), d, r.d));
      }
    }
    fmt::print(
        "mmasim-amd {} through gemm_fast ({}): {} rows, {} through "
        "the reference, {} mismatches\n",
        f.name, test::isa_list(), f.rows.size(), slow, bad);
    CHECK(bad == 0);
    CHECK(slow < f.rows.size());
  });
}

// The rows through the vector kernels (gemm_amd_hwy.cpp, which take rows in
// whole groups of lanes): 16 rows at a time on the diagonal of a 16x16xK
// GEMM (row i's A is row i of A, its B column i of B, its C at (i, i); the
// other elements are not read), first in file order, then the rows whose
// nonzero operands are all normal in [2^-60, 2^61), so that CDNA3's stage 1
// from binary32 operands and its Stage2F run them (a batch holding a
// subnormal, or a product that may reach 2^128, runs otherwise). On every
// ISA: 0 mismatches against MMA-Sim.
TEST_CASE("MMA-Sim AMD rows replay through the vector GEMM kernels",
          "[mma][mmasim][gemm]") {
  for_each_file([](const RowFile& f, const MmaModel* m, Fmt af, Fmt bf) {
    const size_t K = std::stoul(f.hdr.at("k"));
    const auto moderate = [](Fmt fm, uint64_t code) {
      const Unpacked u = unpack(fm, fm == Fmt::kTF32 ? code >> 13 : code);
      if (u.cls == Class::kZero) return true;
      if (u.cls != Class::kNormal) return false;
      const int e = u.exp + static_cast<int>(std::bit_width(u.sig)) - 1;
      return e >= -60 && e <= 60;
    };
    std::vector<size_t> all(f.rows.size()), mild;
    for (size_t i = 0; i < f.rows.size(); ++i) {
      all[i] = i;
      const Row& r = f.rows[i];
      bool ok = true;
      for (size_t k = 0; k < K; ++k)
        ok = ok && moderate(af, r.a[k]) && moderate(bf, r.b[k]);
      if (ok) mild.push_back(i);
    }
    constexpr size_t kB = 16;
    size_t bad = 0;
    for (const std::vector<size_t>* list : {&all, &mild}) {
      for (size_t i0 = 0; i0 < list->size(); i0 += kB) {
        GemmProblem p;
        p.M = p.N = kB;
        p.K = static_cast<int>(K);
        p.layout = GemmLayout::kTN;
        p.a_fmt = af;
        p.b_fmt = bf;
        p.A.resize(kB * K);
        p.B.resize(kB * K);
        p.C.assign(kB * kB, 0);
        // A last partial batch repeats its first row.
        const auto row = [&](size_t j) -> const Row& {
          return f.rows[(*list)[i0 + j < list->size() ? i0 + j : i0]];
        };
        for (size_t j = 0; j < kB; ++j) {
          std::copy(row(j).a.begin(), row(j).a.end(), p.A.begin() + j * K);
          std::copy(row(j).b.begin(), row(j).b.end(), p.B.begin() + j * K);
          p.C[j * kB + j] = row(j).c;
        }
        REQUIRE(fast::gemm_covers(*m, p));
        for (fast::Isa isa : test::isas()) {
          const std::vector<uint64_t> d = fast::gemm_fast(*m, p, isa);
          for (size_t j = 0; j < kB; ++j) {
            if (!same(d[j * kB + j], row(j).d) && ++bad <= 3)
              UNSCOPED_INFO(fmt::format("isa {}: fast {:08X}, MMA-Sim {:08X}",
                                        fast::isa_name(isa), d[j * kB + j],
                                        row(j).d));
          }
        }
      }
    }
    fmt::print(
        "mmasim-amd {} through the vector GEMM kernels ({}): {} rows, {} of "
        "them also in batches of moderate operands, {} mismatches\n",
        f.name, test::isa_list(), f.rows.size(), mild.size(), bad);
    CHECK(bad == 0);
  });
}

TEST_CASE("MMA-Sim AMD rows separate every structural parameter",
          "[mma][mmasim]") {
  const auto files = read_rows();
  for (const RowFile& f : files) {
    const MmaModel* m = find_mma_model(f.hdr.at("model"));
    REQUIRE(m != nullptr);
    const Fmt af = fmt_of(f.hdr.at("a-fmt")), bf = fmt_of(f.hdr.at("b-fmt"));
    std::vector<std::pair<std::string, MmaModel>> variants;
    auto add = [&](const std::string& what, auto&& change) {
      MmaModel v = *m;
      change(v.fdpa);
      variants.emplace_back(what, v);
    };
    if (m->fdpa.datapath == Datapath::kF32Pairwise) {
      add("ftz toggled", [](FdpaParams& p) { p.ftz = !p.ftz; });
      add("L doubled", [](FdpaParams& p) { p.L *= 2; });
      if (m->fdpa.L > 2) add("L halved", [](FdpaParams& p) { p.L /= 2; });
    } else {
      add("split toggled",
          [](FdpaParams& p) { p.split = p.split == 1 ? 2 : 1; });
      add("F - 1", [](FdpaParams& p) { --p.F; });
      add("F + 1", [](FdpaParams& p) { ++p.F; });
      // A zero operand's exponent (-126 + the partner's) can exceed the
      // nonzero products' only with an 8-bit exponent partner (bf16, tf32);
      // with f16 and FP8 it shows only when every product is zero.
      if (af == Fmt::kBF16 || af == Fmt::kTF32)
        add("zero-exp fixed",
            [](FdpaParams& p) { p.zero_exp = ZeroExp::kFixed; });
    }
    for (const auto& [what, v] : variants) {
      INFO(f.name << ": " << what);
      const size_t n = std::min(f.rows.size(), variant_limit());
      const size_t bad = mismatches(v, f, af, bf, n);
      fmt::print("mmasim-amd {} {}: {} of {} rows differ\n", f.name, what, bad,
                 n);
      CHECK(bad > 0);
    }
  }
}
