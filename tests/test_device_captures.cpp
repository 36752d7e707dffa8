// Results captured by our own device check (gpu_check, mxc-gpu) on real
// GPUs, committed in tests/data/<gpu>-device/ (README there): each file is a
// vector file whose result fields are what the GPU returned. The models
// must reproduce every row; where a capture separated an earlier reading of
// a model, that reading must fail on it (so the data keeps the evidence).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "conformance/vectors/op.h"
#include "conformance/vectors/vector_file.h"
#include "emu/format.h"
#include "emu/mma/fdpa.h"
#include "emu/mma/models.h"
#include "tests/km_hardware.h"

namespace fs = std::filesystem;
using namespace mxc;

namespace {

struct Row {
  std::vector<uint64_t> a, b;
  uint64_t c = 0, d = 0;
};
struct Capture {
  std::string model;
  Fmt a_fmt, b_fmt;
  std::vector<Row> rows;
};

Capture read_capture(const fs::path& p) {
  std::ifstream in(p);
  REQUIRE(in);
  vec::Reader rd(in, p.string());
  const vec::Header& h = rd.header();
  REQUIRE(h.get("op") == "mma");
  Capture c;
  c.model = h.get("model");
  c.a_fmt = *parse_format(h.get("a-fmt"));
  c.b_fmt = *parse_format(h.get("b-fmt"));
  const auto op = vec::make_op(h);
  const auto fi = op->inputs(), fr = op->results();
  std::vector<std::string_view> t;
  while (rd.next(t)) {
    REQUIRE(t.size() == fi.size() + fr.size());
    std::vector<uint64_t> v(t.size());
    for (size_t i = 0; i < t.size(); ++i) {
      const vec::Field& f = i < fi.size() ? fi[i] : fr[i - fi.size()];
      v[i] = vec::parse_field(rd, t[i], f.width, f.name.c_str());
    }
    Row r;
    const size_t k = (fi.size() - 1) / 2;  // fields a[k] b[k] c | d
    r.a.assign(v.begin(), v.begin() + static_cast<long>(k));
    r.b.assign(v.begin() + static_cast<long>(k), v.begin() + static_cast<long>(2 * k));
    r.c = v[2 * k];
    r.d = v[2 * k + 1];
    c.rows.push_back(std::move(r));
  }
  REQUIRE(std::to_string(c.rows.size()) == h.get("cases"));
  return c;
}

}  // namespace

TEST_CASE("H200 device check: mma.sync FP8 -> f32 rows replay through sm90_mma_fp8_f32",
          "[mma][hardware]") {
  const fs::path dir = test::repo_data_dir("h200-device");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".txt") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() == 4);
  // The reading before the H200 run: one FDPA of all 32 products (L = 32, no
  // k permutation), F = 25, RZ-FP32, C added outside. KM's H100/H200/B200
  // captures cannot tell it from the model; these rows can.
  FdpaParams one_fdpa = find_mma_model("sm90_mma_fp8_f32")->fdpa;
  one_fdpa.L = 32;
  one_fdpa.k_period = 0;
  one_fdpa.k_run = 0;
  size_t rows = 0, model_bad = 0, one_fdpa_bad = 0;
  for (const fs::path& p : files) {
    const Capture c = read_capture(p);
    const MmaModel* m = find_mma_model(c.model);
    REQUIRE(m != nullptr);
    REQUIRE(m->name == "sm90_mma_fp8_f32");
    size_t file_bad_old = 0;
    for (const Row& r : c.rows) {
      ++rows;
      const uint64_t d = mma_dot(*m, c.a_fmt, c.b_fmt, r.a, r.b, r.c);
      if (d != r.d) ++model_bad;
      FdpaOperands o;
      o.a_fmt = c.a_fmt;
      o.b_fmt = c.b_fmt;
      o.c_fmt = Fmt::kF32;
      o.a = r.a;
      o.b = r.b;
      o.c = r.c;
      if (fdpa_chain(one_fdpa, o) != r.d) ++file_bad_old;
    }
    INFO(p.filename().string());
    CHECK(file_bad_old > 0);
    one_fdpa_bad += file_bad_old;
  }
  CHECK(rows == 288);
  CHECK(model_bad == 0);
  CHECK(one_fdpa_bad == 79);
}
