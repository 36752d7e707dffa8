#include "gpu_check/device/cublaslt_loader.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

namespace mxc::gpu {
namespace {

// Major versions tried after the one the headers are from. cuBLASLt 12.8
// is the first with the block-scale modes; an older library loads, and the
// descriptors it refuses are reported per family as "descriptor: ...".
constexpr int kOtherMajors[] = {14, 12};

std::vector<std::string> split_dirs(const char* s) {
  std::vector<std::string> v;
  if (!s) return v;
  std::string_view sv(s);
  while (!sv.empty()) {
    const size_t c = sv.find(':');
    const std::string_view d = sv.substr(0, c);
    if (!d.empty()) v.emplace_back(d);
    if (c == std::string_view::npos) break;
    sv.remove_prefix(c + 1);
  }
  return v;
}

template <typename F>
bool bind(void* h, const char* name, F& f, std::string& missing) {
  f = reinterpret_cast<F>(dlsym(h, name));
  if (!f) missing += std::string(missing.empty() ? "" : ", ") + name;
  return f != nullptr;
}

// Resolves every entry point from handle h; false + why if one is absent.
bool bind_all(void* h, LtApi& a, std::string& why) {
  std::string m;
  bind(h, "cublasLtCreate", a.Create, m);
  bind(h, "cublasLtDestroy", a.Destroy, m);
  bind(h, "cublasLtGetStatusName", a.GetStatusName, m);
  bind(h, "cublasLtGetVersion", a.GetVersion, m);
  bind(h, "cublasLtMatmul", a.Matmul, m);
  bind(h, "cublasLtMatmulAlgoCheck", a.MatmulAlgoCheck, m);
  bind(h, "cublasLtMatmulAlgoConfigGetAttribute", a.AlgoConfigGetAttribute, m);
  bind(h, "cublasLtMatmulAlgoConfigSetAttribute", a.AlgoConfigSetAttribute, m);
  bind(h, "cublasLtMatmulAlgoGetHeuristic", a.MatmulAlgoGetHeuristic, m);
  bind(h, "cublasLtMatmulDescCreate", a.MatmulDescCreate, m);
  bind(h, "cublasLtMatmulDescDestroy", a.MatmulDescDestroy, m);
  bind(h, "cublasLtMatmulDescSetAttribute", a.MatmulDescSetAttribute, m);
  bind(h, "cublasLtMatmulPreferenceCreate", a.PreferenceCreate, m);
  bind(h, "cublasLtMatmulPreferenceDestroy", a.PreferenceDestroy, m);
  bind(h, "cublasLtMatmulPreferenceSetAttribute", a.PreferenceSetAttribute, m);
  bind(h, "cublasLtMatrixLayoutCreate", a.MatrixLayoutCreate, m);
  bind(h, "cublasLtMatrixLayoutDestroy", a.MatrixLayoutDestroy, m);
  if (!m.empty()) why = "missing symbols " + m;
  return m.empty();
}

LtApi load() {
  LtApi a;
  std::string tried;
  for (const std::string& c : cublaslt_candidates()) {
    void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      tried += fmt::format("\n  {}: {}", c, e ? e : "not loadable");
      continue;
    }
    std::string why;
    if (!bind_all(h, a, why)) {
      tried += fmt::format("\n  {}: {}", c, why);
      dlclose(h);
      a = LtApi{};
      continue;
    }
    a.loaded = true;
    a.path = c;
    return a;
  }
  a.why = "no cuBLASLt could be loaded; tried:" + tried +
          "\n  (set MXC_CUBLASLT=/path/libcublasLt.so.N or MXC_CUBLASLT_DIRS)";
  return a;
}

}  // namespace

std::vector<std::string> cublaslt_candidates() {
  if (const char* p = std::getenv("MXC_CUBLASLT"); p && *p) return {p};
  std::vector<std::string> dirs = split_dirs(std::getenv("MXC_CUBLASLT_DIRS"));
  for (const char* d :
       {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
        "/usr/local/cuda/targets/sbsa-linux/lib"})
    dirs.emplace_back(d);
  std::vector<std::string> v;
  auto add_major = [&](int major) {
    const std::string name = fmt::format("libcublasLt.so.{}", major);
    v.push_back(name);
    for (const std::string& d : dirs) v.push_back(d + "/" + name);
  };
  add_major(CUBLAS_VER_MAJOR);
  for (int m : kOtherMajors)
    if (m != CUBLAS_VER_MAJOR) add_major(m);
  return v;
}

const LtApi& cublaslt_api() {
  static const LtApi api = load();
  return api;
}

}  // namespace mxc::gpu
