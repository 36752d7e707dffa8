// The summation studies: stochastic (RNE vs SR on long sums of small
// gradients) and accumulation (FP8 dot products under the MMA models).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "conformance/study/quant_util.h"
#include "conformance/study/study.h"
#include "emu/arith.h"
#include "emu/block/philox.h"
#include "emu/block/quantize.h"
#include "emu/convert.h"
#include "emu/mma/models.h"

namespace mxc::study {
namespace {

using json = nlohmann::ordered_json;

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

}  // namespace

// ---------------------------------------------------------------------------
Result stochastic(const Options& o) {
  const size_t n = o.size ? o.size : 131072;
  auto data = datasets(o, n, 16);
  constexpr double kStep = 0x1p-10;  // the mean gradient
  const bool from_file = !o.input.empty();
  if (!from_file)
    for (DataSet& ds : data)
      for (float& v : ds.x) v = static_cast<float>(kStep * (1.0 + 0.5 * v));
  constexpr int kSeeds = 8;
  const Nvfp4Profile* nv = find_nvfp4_profile("te-nvfp4");
  if (!nv) throw std::logic_error("missing profile te-nvfp4");

  Result r;
  r.name = "stochastic";
  std::string& t = r.table;
  t += fmt::format(
      "stochastic: RNE vs stochastic rounding (SR) on long sums of small "
      "gradients; seed {}\n"
      "gradients g_i = 2^-10 * (1 + 0.5 d_i), d_i from the distribution (or "
      "the .npy values as given)\n"
      "A. running sum S <- bf16(S + g_i), RNE vs SR (Philox bits "
      "sr_rbits(seed, i), every discarded bit); reference: f64 sum\n"
      "B. each g_i quantized to NVFP4 (te-nvfp4), RNE vs SR (8 bits, "
      "cvt.rs); error of the sum of the first N quantized values\n",
      o.seed);
  json results = json::array();
  Panel p1 = make_panel("A. Running sum in bf16", "steps summed", "sum of gradients");
  Panel p2 = make_panel("B. NVFP4 gradients: error of their sum", "values summed N", "|sum(q) - sum(g)| / sum|g| (log)");
  p2.log_x = p2.log_y = true;
  t += fmt::format("\n{:<12} {:>7} {:>12} {:>12} {:>14} {:>12} | {:>11} {:>11} {:>11} {:>11}\n",
                   "data", "steps", "exact sum", "A: RNE err", "A: SR err", "A: SR bias",
                   "B: RNE bias", "B: SR bias", "B: RNE rms", "B: SR rms");
  for (size_t di = 0; di < data.size(); ++di) {
    const DataSet& ds = data[di];
    const size_t m = ds.x.size();
    // A. Running sums.
    const size_t every = std::max<size_t>(1, m / 64);
    std::vector<double> cx, c_exact, c_rne, c_sr;
    double exact = 0;
    uint64_t s_rne = 0;  // bf16 encodings, +0 at the start
    std::vector<uint64_t> s_sr(kSeeds, 0);
    RoundSpec rne;
    RoundSpec sr;
    sr.mode = Round::kSR;
    sr.sr_bits = kSrBitsFull;
    const auto bf = [](uint64_t b) {
      return static_cast<double>(
          bits_f32(static_cast<uint32_t>(convert(Fmt::kBF16, Fmt::kF32, b))));
    };
    const auto f64b = [](double v) { return std::bit_cast<uint64_t>(v); };
    for (size_t i = 0; i < m; ++i) {
      const double g = ds.x[i];
      exact += g;
      // bf16 + f32 fits in f64 exactly unless their exponents are > 29 apart.
      s_rne = convert(Fmt::kF64, Fmt::kBF16, f64b(bf(s_rne) + g), rne);
      for (int k = 0; k < kSeeds; ++k) {
        sr.rbits = sr_rbits(o.seed + static_cast<uint64_t>(k), i);
        s_sr[k] = convert(Fmt::kF64, Fmt::kBF16, f64b(bf(s_sr[k]) + g), sr);
      }
      if ((i + 1) % every == 0 || i + 1 == m) {
        cx.push_back(dbl(i + 1));
        c_exact.push_back(exact);
        c_rne.push_back(bf(s_rne));
        c_sr.push_back(bf(s_sr[0]));
      }
    }
    const double rel_rne = (bf(s_rne) - exact) / std::fabs(exact);
    double mean_sr = 0, mean_abs_sr = 0;
    json sr_errs = json::array();
    for (int k = 0; k < kSeeds; ++k) {
      const double e = (bf(s_sr[k]) - exact) / std::fabs(exact);
      mean_sr += e / kSeeds;
      mean_abs_sr += std::fabs(e) / kSeeds;
      sr_errs.push_back(e);
    }
    const double rel_sr = (bf(s_sr[0]) - exact) / std::fabs(exact);

    // B. NVFP4 quantization of the gradients, RNE vs SR.
    float amax = 0;
    for (float v : ds.x) amax = std::max(amax, std::fabs(v));
    const uint32_t s_enc = nvfp4_tensor_scale(f32_bits(amax));
    std::vector<double> e_rne(m), e_sr(m);
    std::vector<uint32_t> b(16), rb(16);
    for (size_t i = 0; i + 16 <= m; i += 16) {
      for (size_t j = 0; j < 16; ++j) {
        b[j] = f32_bits(ds.x[i + j]);
        rb[j] = sr_rbits(o.seed, i + j);
      }
      const auto q0 = nvfp4_dequantize_block(nvfp4_quantize_block(*nv, s_enc, b), s_enc);
      const auto q1 = nvfp4_dequantize_block(nvfp4_quantize_block(*nv, s_enc, b, rb), s_enc);
      for (size_t j = 0; j < 16; ++j) {
        e_rne[i + j] = static_cast<double>(bits_f32(q0[j])) - ds.x[i + j];
        e_sr[i + j] = static_cast<double>(bits_f32(q1[j])) - ds.x[i + j];
      }
    }
    double bias_rne = 0, bias_sr = 0, ms_rne = 0, ms_sr = 0, mean_abs_g = 0;
    LineSeries l_rne{"RNE", {}, {}}, l_sr{"SR", {}, {}};
    double sum_rne = 0, sum_sr = 0, sum_abs = 0;
    size_t next = 16;
    for (size_t i = 0; i < m; ++i) {
      sum_rne += e_rne[i];
      sum_sr += e_sr[i];
      sum_abs += std::fabs(ds.x[i]);
      ms_rne += e_rne[i] * e_rne[i];
      ms_sr += e_sr[i] * e_sr[i];
      if (i + 1 == next || i + 1 == m) {
        l_rne.x.push_back(dbl(i + 1));
        l_rne.y.push_back(std::fabs(sum_rne) / sum_abs);
        l_sr.x.push_back(dbl(i + 1));
        l_sr.y.push_back(std::fabs(sum_sr) / sum_abs);
        next *= 2;
      }
    }
    mean_abs_g = sum_abs / dbl(m);
    bias_rne = sum_rne / dbl(m) / mean_abs_g;
    bias_sr = sum_sr / dbl(m) / mean_abs_g;
    const double rms_rne = std::sqrt(ms_rne / dbl(m)) / mean_abs_g;
    const double rms_sr = std::sqrt(ms_sr / dbl(m)) / mean_abs_g;
    t += fmt::format(
        "{:<12} {:>7} {:>12.5g} {:>+12.4e} {:>+14.4e} {:>+12.3e} | {:>+11.3e} "
        "{:>+11.3e} {:>11.4f} {:>11.4f}\n",
        ds.name, m, exact, rel_rne, rel_sr, mean_sr, bias_rne, bias_sr, rms_rne,
        rms_sr);
    results.push_back(
        {{"data", ds.name},
         {"steps", m},
         {"exact_sum", exact},
         {"bf16_sum_rne", bf(s_rne)},
         {"bf16_sum_sr", bf(s_sr[0])},
         {"bf16_rel_err_rne", rel_rne},
         {"bf16_rel_err_sr", rel_sr},
         {"bf16_rel_err_sr_by_seed", sr_errs},
         {"bf16_rel_err_sr_mean_over_seeds", mean_sr},
         {"bf16_abs_rel_err_sr_mean_over_seeds", mean_abs_sr},
         {"nvfp4_bias_rne", bias_rne},
         {"nvfp4_bias_sr", bias_sr},
         {"nvfp4_rms_err_rne", rms_rne},
         {"nvfp4_rms_err_sr", rms_sr},
         {"nvfp4_sum_err_rne", l_rne.y.back()},
         {"nvfp4_sum_err_sr", l_sr.y.back()}});
    if (di == 0) {
      p1.title = fmt::format("A. Running sum in bf16 ({})", ds.name);
      p1.lines = {{"exact (f64)", cx, c_exact, true},
                  {"bf16, RNE", cx, c_rne, false},
                  {"bf16, SR", cx, c_sr, false}};
      p2.title = fmt::format("B. NVFP4 gradients: error of their sum ({})", ds.name);
      l_rne.color = 1;  // the colours of panel A
      l_sr.color = 2;
      p2.lines = {l_rne, l_sr};
    }
  }
  t += fmt::format(
      "(A: relative error of the final bf16 sum, SR with seed {0}, SR bias = "
      "mean over seeds {0}..{1};\n B: bias and rms of the per-element error, "
      "relative to mean |g|)\n",
      o.seed, o.seed + kSeeds - 1);
  r.json = {{"study", r.name}, {"seed", o.seed}, {"sr_seeds", kSeeds},
            {"results", results}};
  r.figure.title = "Stochastic rounding: unbiased sums, noisier elements";
  r.figure.panels = {p1, p2};
  return r;
}

// ---------------------------------------------------------------------------
Result accumulation(const Options& o) {
  const size_t kmax_req = o.size ? o.size : 16384;
  if (kmax_req < 128 || kmax_req > (size_t{1} << 20))
    throw std::runtime_error("accumulation: --size (largest K) must be in [128, 2^20]");
  size_t kmax = 128;
  while (kmax * 2 <= kmax_req) kmax *= 2;
  const size_t trials = 12;
  // Every trial reads 2*kmax values: a shorter file is refused, not read
  // past its end.
  const auto data = datasets(o, 2 * kmax * trials, 32, 2 * kmax * trials);
  const MmaModel* hop = find_mma_model("sm90_wgmma_fp8_f32");
  const MmaModel* bw = find_mma_model("sm100_tcgen05_f8f6f4_f32");
  if (!hop || !bw) throw std::logic_error("missing MMA model");
  constexpr const char* kLabels[] = {
      "sm90 wgmma FP8 (13-bit window)",
      "sm90 + f32 promotion every 128 (DeepSeek-V3)",
      "sm100 tcgen05 FP8 (25-bit)", "f32 FMA chain (CUDA cores)"};
  constexpr size_t kM = std::size(kLabels);

  // E4M3 codes of x scaled so that its amax maps to 448 (RNE, saturating).
  const auto to_e4m3 = [](std::span<const float> x) {
    float amax = 0;
    for (float v : x) amax = std::max(amax, std::fabs(v));
    const uint32_t s = amax > 0 ? f32_div(f32_bits(448.0f), f32_bits(amax))
                                : f32_bits(1.0f);
    RoundSpec sat;
    sat.overflow = Overflow::kSatFinite;
    std::vector<uint64_t> c(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      c[i] = convert(Fmt::kF32, Fmt::kE4M3, f32_mul(f32_bits(x[i]), s), sat);
    return c;
  };
  // Exact: every E4M3 value is an integer multiple of 2^-9.
  const auto e4m3_int = [](uint64_t c) {
    const double v = bits_f32(static_cast<uint32_t>(convert(Fmt::kE4M3, Fmt::kF32, c)));
    return static_cast<int64_t>(v * 512.0);
  };
  const auto f32v = [](uint64_t bits) {
    return static_cast<double>(bits_f32(static_cast<uint32_t>(bits)));
  };

  Result r;
  r.name = "accumulation";
  std::string& t = r.table;
  t += fmt::format(
      "accumulation: D = sum_k a_k b_k over K, a and b E4M3 (per-vector scale "
      "to amax 448), under each MMA model; {} dot products per K; seed {}\n"
      "error = |D - exact| / sum_k |a_k b_k| (exact: integer arithmetic); "
      "same-sign: |a|, |b| (error = relative error)\n",
      trials, o.seed);
  json results = json::array();
  std::vector<Panel> panels;
  std::vector<std::pair<double, std::string>> xt;
  for (size_t k = 32; k <= kmax; k *= 4) xt.emplace_back(dbl(k), fmt::format("{}", k));
  for (size_t di = 0; di < data.size(); ++di) {
    const DataSet& ds = data[di];
    for (int same_sign = 0; same_sign < 2; ++same_sign) {
      t += fmt::format("\n[{}{}]\n{:>6}", ds.name, same_sign ? ", same-sign" : "", "K");
      for (const char* l : kLabels) t += fmt::format(" {:>22.22}", l);
      t += "\n";
      std::vector<LineSeries> lines;
      for (const char* l : kLabels) lines.push_back({l, {}, {}});
      lines[1].dashed = true;
      for (size_t K = 32; K <= kmax; K *= 2) {
        std::vector<double> mean(kM, 0), mx(kM, 0);
        for (size_t tr = 0; tr < trials; ++tr) {
          const std::span<const float> xa(ds.x.data() + tr * 2 * kmax, K);
          const std::span<const float> xb(ds.x.data() + tr * 2 * kmax + kmax, K);
          std::vector<uint64_t> a = to_e4m3(xa), b = to_e4m3(xb);
          if (same_sign) {
            for (auto& c : a) c &= 0x7F;
            for (auto& c : b) c &= 0x7F;
          }
          int64_t exact_i = 0, abs_i = 0;
          for (size_t i = 0; i < K; ++i) {
            const int64_t p = e4m3_int(a[i]) * e4m3_int(b[i]);
            exact_i += p;
            abs_i += p < 0 ? -p : p;
          }
          const double exact = static_cast<double>(exact_i) * 0x1p-18;
          const double norm = static_cast<double>(abs_i) * 0x1p-18;
          double d[kM];
          d[0] = f32v(mma_dot(*hop, Fmt::kE4M3, Fmt::kE4M3, a, b, 0));
          uint32_t acc = 0;
          for (size_t c0 = 0; c0 < K; c0 += 128) {
            const size_t len = std::min<size_t>(128, K - c0);
            const uint64_t part = mma_dot(*hop, Fmt::kE4M3, Fmt::kE4M3,
                                          std::span(a).subspan(c0, len),
                                          std::span(b).subspan(c0, len), 0);
            acc = f32_add(acc, static_cast<uint32_t>(part));
          }
          d[1] = bits_f32(acc);
          d[2] = f32v(mma_dot(*bw, Fmt::kE4M3, Fmt::kE4M3, a, b, 0));
          uint32_t seq = 0;
          for (size_t i = 0; i < K; ++i) {
            const double p = static_cast<double>(e4m3_int(a[i]) * e4m3_int(b[i])) * 0x1p-18;
            seq = f32_add(seq, f32_bits(static_cast<float>(p)));  // p exact in f32
          }
          d[3] = bits_f32(seq);
          for (size_t mi = 0; mi < kM; ++mi) {
            const double e = norm > 0 ? std::fabs(d[mi] - exact) / norm : 0;
            mean[mi] += e / dbl(trials);
            mx[mi] = std::max(mx[mi], e);
          }
        }
        t += fmt::format("{:>6}", K);
        json row = {{"data", ds.name}, {"same_sign", same_sign != 0}, {"K", K}};
        json models = json::array();
        for (size_t mi = 0; mi < kM; ++mi) {
          t += fmt::format(" {:>22}", fmt::format("{:.3e} (max {:.2e})", mean[mi], mx[mi]));
          models.push_back({{"model", kLabels[mi]}, {"mean_err", num(mean[mi])},
                            {"max_err", num(mx[mi])}});
          lines[mi].x.push_back(dbl(K));
          lines[mi].y.push_back(mean[mi]);
        }
        row["models"] = models;
        results.push_back(row);
        t += "\n";
      }
      if (di == 0) {
        Panel p = make_panel(fmt::format("{} ({})", same_sign ? "Same-sign operands"
                                                          : "Signed operands",
                                     ds.name), "K (dot-product length, log scale)", same_sign ? "mean relative error (log)"
                                    : "mean |D - exact| / sum|a b| (log)");
        p.log_x = p.log_y = true;
        p.x_ticks = xt;
        p.lines = lines;
        panels.push_back(p);
      }
    }
  }
  t += "(mean error over the dot products, max in parentheses; a zero error "
       "is left off the log plot)\n";
  r.json = {{"study", r.name}, {"seed", o.seed}, {"trials", trials},
            {"models", {hop->name, bw->name}}, {"results", results}};
  r.figure.title = "FP8 dot-product accumulation error vs K (reference: exact sum)";
  r.figure.panels = panels;
  return r;
}

}  // namespace mxc::study
