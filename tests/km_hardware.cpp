#include "tests/km_hardware.h"

#include <unistd.h>  // getpid

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace mxc::test {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const fs::path& p, long line, const std::string& why) {
  throw std::runtime_error(p.string() + ":" + std::to_string(line) + ": " +
                           why);
}

uint64_t hex(const fs::path& p, long line, const std::string& s) {
  if (s.empty() || s.size() > 16 ||
      s.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    fail(p, line, "bad hex field '" + s + "'");
  return std::stoull(s, nullptr, 16);
}

// Hex digits of one element of `fmt` in the inputs files.
int width_of(const std::string& fmt) {
  if (fmt == "tf32") return 8;  // f32 bit patterns, low 13 bits zero
  if (fmt == "f16" || fmt == "bf16") return 4;
  return 2;
}

struct Inputs {
  std::vector<std::vector<uint64_t>> a, b;
};

Inputs read_inputs(const fs::path& p, int k, int w) {
  std::ifstream in(p);
  if (!in) fail(p, 0, "cannot open");
  Inputs r;
  std::string line;
  long n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string sa, sb;
    if (!(ss >> sa >> sb) || sa.size() != static_cast<size_t>(k * w) ||
        sb.size() != sa.size())
      fail(p, n,
           "expected two fields of " + std::to_string(k * w) + " hex digits");
    std::vector<uint64_t> a, b;
    for (int i = 0; i < k; ++i) {
      a.push_back(hex(
          p, n, sa.substr(static_cast<size_t>(i * w), static_cast<size_t>(w))));
      b.push_back(hex(
          p, n, sb.substr(static_cast<size_t>(i * w), static_cast<size_t>(w))));
    }
    r.a.push_back(std::move(a));
    r.b.push_back(std::move(b));
  }
  return r;
}

}  // namespace

fs::path km_hardware_dir() {
  if (const char* e = std::getenv("MXC_KM_HARDWARE_DIR"); e && *e) {
    return fs::exists(e) ? fs::path(e) : fs::path();
  }
  const fs::path d =
      fs::path(MXC_SOURCE_DIR) / ".." / "shared" / "oracles" / "km-hardware";
  return fs::exists(d) ? d : fs::path();
}

fs::path repo_data_dir(const std::string& name) {
  return fs::path(MXC_SOURCE_DIR) / "tests" / "data" / name;
}

fs::path unpack_gz_folder(const fs::path& src) {
  std::vector<fs::path> packed;
  for (const auto& e : fs::directory_iterator(src)) {
    if (e.path().extension() == ".gz") packed.push_back(e.path());
  }
  if (packed.empty()) fail(src, 0, "no .gz files");
  std::sort(packed.begin(), packed.end());
  // One folder per source and process: parallel ctest runs do not collide.
  const fs::path dst = fs::temp_directory_path() /
                       ("mxc-" + src.filename().string() + "-" +
                        std::to_string(static_cast<long>(fs::hash_value(src))) +
                        "-" + std::to_string(static_cast<long>(::getpid())));
  fs::remove_all(dst);
  fs::create_directories(dst);
  for (const fs::path& p : packed) {
    const fs::path out = dst / p.stem();  // drops ".gz"
    const std::string cmd =
        "gzip -dc '" + p.string() + "' > '" + out.string() + "'";
    if (std::system(cmd.c_str()) != 0) fail(p, 0, "gzip -dc failed");
  }
  return dst;
}

std::vector<KmFile> read_km_captures(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() == ".tsv" && name.rfind("inputs-", 0) != 0)
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<KmFile> out;
  for (const fs::path& p : files) {
    std::ifstream in(p);
    if (!in) fail(p, 0, "cannot open");
    KmFile f;
    f.path = p;
    std::map<std::string, std::string> kv;
    std::string line, inputs;
    long n = 0;
    std::vector<std::pair<long, std::string>> rows;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty()) continue;
      if (line[0] == '#') {
        std::istringstream ss(line.substr(1));
        std::string tok;
        while (ss >> tok) {
          const size_t eq = tok.find('=');
          if (eq != std::string::npos && !kv.count(tok.substr(0, eq)))
            kv[tok.substr(0, eq)] = tok.substr(eq + 1);
        }
        continue;
      }
      rows.emplace_back(n, line);
    }
    for (const char* key : {"model", "a-fmt", "b-fmt", "k", "c-fmt", "inputs"})
      if (!kv.count(key)) fail(p, 1, std::string("header lacks ") + key + "=");
    f.model = kv["model"];
    f.a_fmt = kv["a-fmt"];
    f.b_fmt = kv["b-fmt"];
    f.c_fmt = kv["c-fmt"];
    f.k = std::stoi(kv["k"]);
    if (kv.count("zero-exp")) f.zero_exp = kv["zero-exp"];
    if (kv.count("zero-sign")) f.zero_sign = kv["zero-sign"];
    const Inputs ins = read_inputs(dir / kv["inputs"], f.k, width_of(f.a_fmt));
    if (ins.a.empty()) fail(dir / kv["inputs"], 0, "no rows");
    // Rows restart the inputs for each GPU.
    std::string gpu;
    size_t i = 0;
    for (const auto& [ln, text] : rows) {
      std::istringstream ss(text);
      KmCase c;
      std::string sc, sd;
      if (!(ss >> c.gpu >> sc >> sd)) fail(p, ln, "expected: gpu C D");
      if (c.gpu != gpu) {
        gpu = c.gpu;
        i = 0;
      }
      if (i >= ins.a.size()) fail(p, ln, "more rows than inputs for " + gpu);
      c.a = ins.a[i];
      c.b = ins.b[i];
      c.c = hex(p, ln, sc);
      c.d = hex(p, ln, sd);
      ++i;
      f.cases.push_back(std::move(c));
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace mxc::test
