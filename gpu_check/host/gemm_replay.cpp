// cuBLASLt replay: each output element of D is one `op=mma` case with
// k = K (A row, B column, scales, C), so the report classifies mismatches
// exactly like the instruction families; the expected D is the composed
// GEMM of emu/mma/gemm.h (checked to agree with the per-element op).
#include <fmt/format.h>

#include "emu/mma/gemm.h"
#include "gpu_check/host/replay.h"

namespace mxc::gpu {

const MmaModel* gemm_model(const Family& f, int cc) {
  const bool mx = f.instr == 0;
  const char* name = nullptr;
  if (cc == 100 || cc == 103) name = mx ? "sm100_tcgen05_mxf8f6f4" : "sm100_tcgen05_f8f6f4_f32";
  if (cc == 120 || cc == 121) name = mx ? "sm120_mma_mxf8f6f4" : "sm120_mma_f8f6f4_f32";
  if (!mx && cc == 90) name = "sm90_wgmma_fp8_f32";
  if (!mx && cc == 89) name = "sm89_mma_fp8_f32";
  return name ? find_mma_model(name) : nullptr;
}

bool replay_gemm(Backend& b, const Family& f, int cc, const ReplayOptions& o, vec::Report& r,
                 std::string& why) {
  const MmaModel* m = gemm_model(f, cc);
  if (!m) {
    why = fmt::format("no GEMM model for compute capability {}.{}", cc / 10, cc % 10);
    return false;
  }
  const bool mx = f.instr == 0;
  struct Size {
    int M, N, K;
  };
  // Multiples of 16 in M/N (cuBLASLt FP8 alignment) but not of the tile
  // sizes, K a multiple of 32 (the MX block) and of the model's L.
  const Size sizes[] = {{128, 128, 256}, {208, 80, 160}, {64, 48, 1024}};
  r = vec::Report{};
  r.file = f.name;
  r.op = "mma";
  r.description = f.ptx + fmt::format(" | model={} (composed over K)", m->name);
  uint64_t index = 0;
  for (const Size& s : sizes) {
    if (s.K % m->fdpa.L != 0) continue;
    GemmCase gc;
    gc.format = mx ? "mxfp8" : "fp8-tensor";
    GemmProblem& p = gc.p;
    p.M = s.M;
    p.N = s.N;
    p.K = s.K;
    p.layout = GemmLayout::kTN;
    p.a_fmt = p.b_fmt = Fmt::kE4M3;
    const uint64_t seed = o.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(s.M * 7 + s.N * 3 + s.K);
    auto code = [&](uint64_t i, uint64_t k) {
      uint64_t c = vec::case_random(seed, i, k) & 0xFF;
      if ((c & 0x7F) == 0x7F) c ^= 0x01;  // no NaN operands
      return c;
    };
    p.A.resize(static_cast<size_t>(s.M) * s.K);
    p.B.resize(static_cast<size_t>(s.N) * s.K);
    for (size_t i = 0; i < p.A.size(); ++i) p.A[i] = code(i, 1) & 0xBF;  // |x| <= 2^1-ish range
    for (size_t i = 0; i < p.B.size(); ++i) p.B[i] = code(i, 2) & 0xBF;
    p.C.assign(static_cast<size_t>(s.M) * s.N, 0);
    if (mx) {
      const size_t kb = static_cast<size_t>(s.K / 32);
      p.SA.resize(static_cast<size_t>(s.M) * kb);
      p.SB.resize(static_cast<size_t>(s.N) * kb);
      for (size_t i = 0; i < p.SA.size(); ++i) p.SA[i] = 120 + vec::case_random(seed, i, 3) % 14;
      for (size_t i = 0; i < p.SB.size(); ++i) p.SB[i] = 120 + vec::case_random(seed, i, 4) % 14;
    }
    if (o.progress) o.progress(index);
    std::vector<uint64_t> d;
    if (!b.cublaslt_gemm(gc, d, why)) {
      if (r.cases == 0) return false;
      r.description += fmt::format("; {}x{}x{} not run: {}", s.M, s.N, s.K, why);
      continue;
    }
    const std::vector<uint64_t> want = gemm(*m, p);
    vec::Header h;
    h.kv["op"] = "mma";
    h.kv["model"] = std::string(m->name);
    h.kv["a-fmt"] = "e4m3";
    h.kv["b-fmt"] = "e4m3";
    h.kv["k"] = std::to_string(s.K);
    const auto op = vec::make_op(h);
    const int kb = mx ? s.K / 32 : 0;
    Family ef = f;
    ef.kind = FamilyKind::kGemm;
    for (int n = 0; n < s.N; ++n) {
      for (int mm = 0; mm < s.M; ++mm) {
        std::vector<uint64_t> in;
        for (int k = 0; k < s.K; ++k) in.push_back(p.A[static_cast<size_t>(mm) * s.K + k]);
        for (int k = 0; k < s.K; ++k) in.push_back(p.B[static_cast<size_t>(n) * s.K + k]);
        for (int q = 0; q < kb; ++q) in.push_back(p.SA[static_cast<size_t>(mm) * kb + q]);
        for (int q = 0; q < kb; ++q) in.push_back(p.SB[static_cast<size_t>(n) * kb + q]);
        in.push_back(0);
        const size_t e = static_cast<size_t>(n) * s.M + mm;
        const std::vector<uint64_t> w = {want[e]}, g = {d[e]};
        tally(r, *op, ef, in, w, g, index++, o);
      }
    }
    r.description += fmt::format("; {}x{}x{} TN", s.M, s.N, s.K);
  }
  return true;
}

}  // namespace mxc::gpu
