// The quantization studies: scale-rounding, element-format, fp4,
// block-vs-tensor.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "conformance/study/quant_util.h"
#include "conformance/study/study.h"
#include "emu/block/profile.h"
#include "emu/format.h"

namespace mxc::study {
namespace {

using json = nlohmann::ordered_json;

const MxProfile& mx_profile(std::string_view name) {
  const MxProfile* p = find_mx_profile(name);
  if (!p) throw std::logic_error(fmt::format("missing profile {}", name));
  return *p;
}

std::string pct(double f) { return fmt::format("{:.3f}%", 100 * f); }

// JSON has no Inf: an infinite SQNR (no error at all) is written as null.
json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

struct ElemFormat {
  const char* label;
  Fmt fmt;
};
constexpr ElemFormat kMxFormats[] = {{"MXFP8 E4M3", Fmt::kE4M3},
                                     {"MXFP8 E5M2", Fmt::kE5M2},
                                     {"MXFP6 E2M3", Fmt::kE2M3},
                                     {"MXFP6 E3M2", Fmt::kE3M2},
                                     {"MXFP4 E2M1", Fmt::kE2M1}};
struct Rule {
  const char* label;
  const char* profile;
};
constexpr Rule kRules[] = {{"FLOOR (OCP v1.0)", "torchao-floor@main-5d73a0c1"},
                           {"CEIL", "torchao-ceil@main-5d73a0c1"},
                           {"EVEN", "torchao-even@main-5d73a0c1"},
                           {"RCEIL", "torchao-rceil@main-5d73a0c1"}};

// Per-block outlier ratio amax / rms: bin edges.
constexpr double kRatioEdges[] = {1, 2, 2.5, 3, 3.5, 4, 5, 6};
constexpr size_t kRatioBins = std::size(kRatioEdges) - 1;
size_t ratio_bin(double r) {
  for (size_t b = 0; b + 1 < kRatioBins; ++b)
    if (r < kRatioEdges[b + 1]) return b;
  return kRatioBins - 1;
}

struct BinCount {
  size_t blocks = 0, elems = 0, saturated = 0, flushed = 0;
};

}  // namespace

// ---------------------------------------------------------------------------
Result scale_rounding(const Options& o) {
  const size_t n = o.size ? o.size : 65536;
  const auto data = datasets(o, n, 32);
  Result r;
  r.name = "scale-rounding";
  json results = json::array();
  std::string& t = r.table;
  t += fmt::format(
      "scale-rounding: E8M0 scale rule vs element format, blocks of 32 "
      "(torchao profiles), seed {}\n"
      "saturated = |x| / 2^X beyond max + half an ulp (clipped, not rounded); "
      "flushed = x != 0 quantized to 0\n",
      o.seed);
  // [format][rule][bin] over all data sets, for the outlier-ratio view.
  std::vector<std::vector<std::vector<BinCount>>> bins(
      std::size(kMxFormats),
      std::vector<std::vector<BinCount>>(std::size(kRules),
                                         std::vector<BinCount>(kRatioBins)));
  // First data set's numbers for the bar panels.
  std::vector<std::vector<double>> sat0(std::size(kRules)), sqnr0(std::size(kRules));
  for (size_t di = 0; di < data.size(); ++di) {
    const DataSet& ds = data[di];
    const std::span<const float> x = ds.x;
    // Block outlier ratios (independent of the rule).
    std::vector<size_t> bin_of(x.size() / 32);
    for (size_t b = 0; b < bin_of.size(); ++b) {
      double amax = 0, s2 = 0;
      for (size_t j = 0; j < 32; ++j) {
        const double v = x[b * 32 + j];
        amax = std::max(amax, std::fabs(v));
        s2 += v * v;
      }
      bin_of[b] = s2 > 0 ? ratio_bin(amax / std::sqrt(s2 / 32)) : 0;
    }
    t += fmt::format("\n[{}] {} values\n", ds.name, x.size());
    t += fmt::format("{:<11} {:<17} {:>10} {:>10} {:>11} {:>9} {:>9} {:>11}\n",
                     "format", "scale rule", "saturated", "flushed", "MSE",
                     "SQNR dB", "max rel", "max rel amx");
    for (size_t fi = 0; fi < std::size(kMxFormats); ++fi) {
      const Fmt elem = kMxFormats[fi].fmt;
      const double limit = elem_max(elem) + elem_half_ulp_at_max(elem);
      for (size_t ri = 0; ri < std::size(kRules); ++ri) {
        const MxProfile& p = mx_profile(kRules[ri].profile);
        const MxPass q = mx_pass(p, elem, x);
        ErrStats st;
        size_t saturated = 0;
        double max_rel_amax = 0;
        for (size_t b = 0; b < q.scales.size(); ++b) {
          const double scale = std::ldexp(1.0, q.scales[b] - 127);
          BinCount& bc = bins[fi][ri][bin_of[b]];
          ++bc.blocks;
          size_t amax_j = 0;
          for (size_t j = 0; j < 32; ++j) {
            const size_t i = b * 32 + j;
            const double xv = x[i];
            st.add(xv, q.q[i]);
            ++bc.elems;
            if (std::fabs(xv) / scale > limit) {
              ++saturated;
              ++bc.saturated;
            }
            if (xv != 0 && q.q[i] == 0) ++bc.flushed;
            if (std::fabs(xv) > std::fabs(x[b * 32 + amax_j])) amax_j = j;
          }
          const double a = x[b * 32 + amax_j];
          if (a != 0)
            max_rel_amax = std::max(max_rel_amax,
                                    std::fabs(q.q[b * 32 + amax_j] - a) / std::fabs(a));
        }
        const double sat_frac = dbl(saturated) / dbl(st.n);
        t += fmt::format("{:<11} {:<17} {:>10} {:>10} {:>11.4e} {:>9.2f} {:>9.4f} {:>11.4f}\n",
                         kMxFormats[fi].label, kRules[ri].label, pct(sat_frac),
                         pct(st.flushed_frac()), st.mse(), st.sqnr(),
                         st.max_rel, max_rel_amax);
        if (di == 0) {
          sat0[ri].push_back(100 * sat_frac);
          sqnr0[ri].push_back(st.sqnr());
        }
        results.push_back({{"data", ds.name},
                           {"format", kMxFormats[fi].label},
                           {"elem", desc(elem).name},
                           {"rule", kRules[ri].label},
                           {"profile", kRules[ri].profile},
                           {"saturated_frac", sat_frac},
                           {"flushed_frac", st.flushed_frac()},
                           {"mse", st.mse()},
                           {"sqnr_db", num(st.sqnr())},
                           {"max_rel_err", st.max_rel},
                           {"max_rel_err_block_amax", max_rel_amax}});
      }
    }
  }
  // Outlier-ratio view (all data sets pooled).
  json by_ratio = json::array();
  t += "\nBy block outlier ratio amax/rms (all data sets pooled): saturated / "
       "flushed\n";
  for (size_t fi = 0; fi < std::size(kMxFormats); ++fi) {
    t += fmt::format("{}\n{:<17}", kMxFormats[fi].label, "ratio");
    for (size_t b = 0; b < kRatioBins; ++b)
      t += fmt::format(" {:>15}", fmt::format("[{:g},{:g})", kRatioEdges[b],
                                              kRatioEdges[b + 1]));
    t += fmt::format("\n{:<17}", "blocks");
    for (size_t b = 0; b < kRatioBins; ++b)
      t += fmt::format(" {:>15}", bins[fi][0][b].blocks);
    t += "\n";
    for (size_t ri = 0; ri < std::size(kRules); ++ri) {
      t += fmt::format("{:<17}", kRules[ri].label);
      json row = json::array();
      for (size_t b = 0; b < kRatioBins; ++b) {
        const BinCount& c = bins[fi][ri][b];
        const double s = c.elems ? dbl(c.saturated) / dbl(c.elems) : 0;
        const double f = c.elems ? dbl(c.flushed) / dbl(c.elems) : 0;
        t += c.elems ? fmt::format(" {:>7.3f}/{:<7.3f}", 100 * s, 100 * f)
                     : fmt::format(" {:>15}", "-");
        row.push_back({{"lo", kRatioEdges[b]},
                       {"hi", kRatioEdges[b + 1]},
                       {"blocks", c.blocks},
                       {"saturated_frac", s},
                       {"flushed_frac", f}});
      }
      t += "\n";
      by_ratio.push_back({{"format", kMxFormats[fi].label},
                          {"rule", kRules[ri].label},
                          {"bins", row}});
    }
  }
  t += "(percent of elements in blocks of that ratio)\n";
  r.json = {{"study", r.name}, {"seed", o.seed}, {"block", 32},
            {"saturation_definition",
             "|x| / 2^X > max_elem + half an ulp at max_elem"},
            {"results", results}, {"by_outlier_ratio", by_ratio}};

  Figure& f = r.figure;
  f.title = "E8M0 scale rounding: FLOOR saturates, RCEIL does not";
  std::vector<std::string> cats;
  for (const auto& e : kMxFormats) cats.push_back(e.label);
  Panel p1 = make_panel(fmt::format("Elements clipped by saturation ({})", data[0].name), "element format (block 32)", "saturated elements (%)");
  Panel p2 = make_panel(fmt::format("Quantization SQNR ({})", data[0].name), "element format (block 32)", "SQNR (dB, higher is better)");
  p1.categories = p2.categories = cats;
  for (size_t ri = 0; ri < std::size(kRules); ++ri) {
    p1.bars.push_back({kRules[ri].label, sat0[ri]});
    p2.bars.push_back({kRules[ri].label, sqnr0[ri]});
  }
  Panel p3 = make_panel("MXFP4: saturated vs block outlier ratio (pooled)", "block amax / block rms", "saturated elements (%)");
  Panel p4 = make_panel("MXFP4: flushed to zero vs block outlier ratio (pooled)", "block amax / block rms", "elements flushed to zero (%)");
  const size_t fp4 = std::size(kMxFormats) - 1;
  for (size_t ri = 0; ri < std::size(kRules); ++ri) {
    LineSeries s3{kRules[ri].label, {}, {}}, s4{kRules[ri].label, {}, {}};
    s3.dashed = s4.dashed = ri == 2;  // EVEN often overlaps FLOOR
    for (size_t b = 0; b < kRatioBins; ++b) {
      const BinCount& c = bins[fp4][ri][b];
      if (c.elems < 32 * 4) continue;  // too few blocks to say anything
      const double mid = (kRatioEdges[b] + kRatioEdges[b + 1]) / 2;
      s3.x.push_back(mid);
      s3.y.push_back(100 * dbl(c.saturated) / dbl(c.elems));
      s4.x.push_back(mid);
      s4.y.push_back(100 * dbl(c.flushed) / dbl(c.elems));
    }
    p3.lines.push_back(s3);
    p4.lines.push_back(s4);
  }
  f.panels = {p1, p2, p3, p4};
  return r;
}

// ---------------------------------------------------------------------------
Result element_format(const Options& o) {
  const size_t n = o.size ? o.size : 65536;
  const auto data = datasets(o, n, 32);
  const MxProfile& p = mx_profile("torchao-rceil@main-5d73a0c1");
  constexpr ElemFormat kF[] = {{"E4M3", Fmt::kE4M3}, {"E5M2", Fmt::kE5M2}};
  Result r;
  r.name = "element-format";
  std::string& t = r.table;
  t += fmt::format(
      "element-format: MXFP8 E4M3 vs E5M2, blocks of 32, RCEIL scale "
      "(torchao-rceil), seed {}\n\n",
      o.seed);
  json formats = json::array();
  t += fmt::format("{:<6} {:>9} {:>9} {:>10} {:>15} {:>16} {:>13}\n", "format",
                   "max", "min norm", "min subn", "normal binades",
                   "binades w/ subn", "rel. step");
  for (const auto& e : kF) {
    const FormatDesc& d = desc(e.fmt);
    const double mx = elem_max(e.fmt);
    const double min_norm = std::ldexp(1.0, d.emin());
    const double min_sub = std::ldexp(1.0, d.emin() - d.man_bits);
    const int normal_binades = d.emax() - d.emin() + 1;
    const double all_binades = std::log2(mx / min_sub);
    const double step = std::ldexp(1.0, -d.man_bits);
    t += fmt::format("{:<6} {:>9g} {:>9g} {:>10g} {:>15} {:>16.2f} {:>13g}\n",
                     e.label, mx, min_norm, min_sub, normal_binades,
                     all_binades, step);
    formats.push_back({{"format", e.label},
                       {"max", mx},
                       {"min_normal", min_norm},
                       {"min_subnormal", min_sub},
                       {"normal_binades", normal_binades},
                       {"binades_with_subnormals", all_binades},
                       {"relative_step", step}});
  }
  t += "(binades = log2(max / min); rel. step = spacing / value at the bottom "
       "of a binade)\n";

  json results = json::array();
  std::vector<double> sq[2];
  std::vector<std::string> cats;
  t += fmt::format("\n{:<12} {:<6} {:>11} {:>9} {:>10} {:>11} {:>9}\n", "data",
                   "format", "MSE", "SQNR dB", "flushed", "subnormal",
                   "max rel");
  for (const DataSet& ds : data) {
    cats.push_back(ds.name);
    for (size_t fi = 0; fi < 2; ++fi) {
      const Fmt elem = kF[fi].fmt;
      const MxPass q = mx_pass(p, elem, ds.x);
      ErrStats st;
      size_t subn = 0;
      const double min_norm = std::ldexp(1.0, desc(elem).emin());
      for (size_t i = 0; i < ds.x.size(); ++i) {
        st.add(ds.x[i], q.q[i]);
        const double scale = std::ldexp(1.0, q.scales[i / 32] - 127);
        const double m = std::fabs(q.q[i]) / scale;
        if (m > 0 && m < min_norm) ++subn;
      }
      const double subn_frac = dbl(subn) / dbl(st.n);
      sq[fi].push_back(st.sqnr());
      t += fmt::format("{:<12} {:<6} {:>11.4e} {:>9.2f} {:>10} {:>11} {:>9.4f}\n",
                       ds.name, kF[fi].label, st.mse(), st.sqnr(),
                       pct(st.flushed_frac()), pct(subn_frac), st.max_rel);
      results.push_back({{"data", ds.name},
                         {"format", kF[fi].label},
                         {"mse", st.mse()},
                         {"sqnr_db", num(st.sqnr())},
                         {"flushed_frac", st.flushed_frac()},
                         {"subnormal_frac", subn_frac},
                         {"max_rel_err", st.max_rel}});
    }
  }

  // Precision vs range probe: blocks with amax 1.0 and the other 31 values
  // log-uniform over 2^-32 .. 1; RMS relative error per binade below amax.
  constexpr int kDepth = 32;
  const size_t probe_blocks = std::max<size_t>(64, n / 32);
  std::vector<float> probe(probe_blocks * 32);
  {
    Sampler s(o.seed ^ 0xB10C5EEDull);
    for (size_t b = 0; b < probe_blocks; ++b) {
      probe[b * 32] = 1.0f;
      for (size_t j = 1; j < 32; ++j) {
        const double v = std::exp2(-kDepth * s.uniform());
        probe[b * 32 + j] = static_cast<float>(s.uniform() < 0.5 ? -v : v);
      }
    }
  }
  json curve = json::array();
  Panel p2 = make_panel("Precision vs range inside one block", "binades below the block amax (log2 amax/|x|)", "RMS relative error (log)");
  p2.log_y = true;
  p2.y_min = 1e-3;
  p2.y_max = 2;
  for (size_t fi = 0; fi < 2; ++fi) {
    const MxPass q = mx_pass(p, kF[fi].fmt, probe);
    std::vector<double> se(kDepth, 0);
    std::vector<size_t> cnt(kDepth, 0);
    for (size_t i = 0; i < probe.size(); ++i) {
      if (i % 32 == 0) continue;
      const double x = probe[i];
      const int bin = std::clamp(static_cast<int>(std::floor(-std::log2(std::fabs(x)))),
                                 0, kDepth - 1);
      const double rel = (q.q[i] - x) / x;
      se[bin] += rel * rel;
      ++cnt[bin];
    }
    LineSeries ls{kF[fi].label, {}, {}};
    json pts = json::array();
    for (int b = 0; b < kDepth; ++b) {
      if (!cnt[b]) continue;
      const double rms = std::sqrt(se[b] / dbl(cnt[b]));
      ls.x.push_back(b + 0.5);
      ls.y.push_back(rms);
      pts.push_back({{"binades_below_amax", b + 0.5}, {"rms_rel_err", rms}});
    }
    p2.lines.push_back(ls);
    curve.push_back({{"format", kF[fi].label}, {"points", pts}});
  }
  t += "\nPrecision vs range probe (amax 1.0, others log-uniform over 2^-32..1): "
       "RMS relative error by binades below amax\n";
  t += fmt::format("{:<8}", "binades");
  for (int b = 0; b < kDepth; b += 4) t += fmt::format(" {:>8}", fmt::format("{}-{}", b, b + 1));
  for (size_t fi = 0; fi < 2; ++fi) {
    t += fmt::format("\n{:<8}", kF[fi].label);
    for (int b = 0; b < kDepth; b += 4)
      t += fmt::format(" {:>8.4f}", curve[fi]["points"][static_cast<size_t>(b)]["rms_rel_err"].get<double>());
  }
  t += "\n";

  r.json = {{"study", r.name}, {"seed", o.seed}, {"profile", p.name},
            {"formats", formats}, {"results", results},
            {"precision_vs_range", curve}};
  Panel p1 = make_panel("SQNR per distribution (MXFP8, RCEIL)", "data", "SQNR (dB, higher is better)");
  p1.categories = cats;
  p1.bars = {{"E4M3", sq[0]}, {"E5M2", sq[1]}};
  r.figure.title = "MXFP8 element formats: E4M3 (precision) vs E5M2 (range)";
  r.figure.panels = {p1, p2};
  return r;
}

// ---------------------------------------------------------------------------
Result fp4(const Options& o) {
  const size_t n = o.size ? o.size : 65536;
  const auto data = datasets(o, n, 32);
  const Nvfp4Profile* nv = find_nvfp4_profile("te-nvfp4");
  if (!nv) throw std::logic_error("missing profile te-nvfp4");
  struct Cfg {
    const char* label;
    const char* mx;  // nullptr: NVFP4
    bool rht;
  };
  constexpr Cfg kCfg[] = {{"MXFP4 FLOOR", "ocp-v1", false},
                          {"MXFP4 FLOOR + RHT", "ocp-v1", true},
                          {"MXFP4 RCEIL", "torchao-rceil@main-5d73a0c1", false},
                          {"MXFP4 RCEIL + RHT", "torchao-rceil@main-5d73a0c1", true},
                          {"NVFP4", nullptr, false},
                          {"NVFP4 + RHT", nullptr, true}};
  Result r;
  r.name = "fp4";
  std::string& t = r.table;
  t += fmt::format(
      "fp4: MXFP4 (E2M1, E8M0 scale per 32: ocp-v1 FLOOR, torchao-rceil) vs "
      "NVFP4 (E2M1, UE4M3 per 16, FP32 tensor scale: te-nvfp4);\n"
      "RHT = 16-point random Hadamard transform (TE wgrad signs) before "
      "quantization, error measured after the exact inverse; seed {}\n",
      o.seed);
  t += fmt::format("\n{:<12} {:<18} {:>11} {:>9} {:>10} {:>12}\n", "data",
                   "scheme", "MSE", "SQNR dB", "flushed", "MSE/MXFP4-RC");
  json results = json::array();
  std::vector<std::vector<double>> sq(std::size(kCfg)), fl(std::size(kCfg));
  std::vector<std::string> cats;
  for (const DataSet& ds : data) {
    cats.push_back(ds.name);
    const std::vector<float> y = rht_forward(ds.x);
    double ref_mse = 0;
    std::vector<ErrStats> sts;
    for (const Cfg& c : kCfg) {
      const std::span<const float> in = c.rht ? std::span<const float>(y)
                                              : std::span<const float>(ds.x);
      std::vector<double> q = c.mx ? mx_pass(mx_profile(c.mx), Fmt::kE2M1, in).q
                                   : nvfp4_pass(*nv, in);
      // Flushed counted in the quantized domain (the transformed values
      // under RHT); error in the original domain.
      size_t flushed = 0;
      for (size_t i = 0; i < q.size(); ++i)
        if (in[i] != 0 && q[i] == 0) ++flushed;
      if (c.rht) q = rht_inverse(q);
      ErrStats st;
      for (size_t i = 0; i < q.size(); ++i) st.add(ds.x[i], q[i]);
      st.flushed = flushed;
      sts.push_back(st);
    }
    ref_mse = sts[2].mse();
    for (size_t ci = 0; ci < std::size(kCfg); ++ci) {
      const ErrStats& st = sts[ci];
      sq[ci].push_back(st.sqnr());
      fl[ci].push_back(100 * st.flushed_frac());
      t += fmt::format("{:<12} {:<18} {:>11.4e} {:>9.2f} {:>10} {:>12.3f}\n",
                       ds.name, kCfg[ci].label, st.mse(), st.sqnr(),
                       pct(st.flushed_frac()), st.mse() / ref_mse);
      results.push_back({{"data", ds.name},
                         {"scheme", kCfg[ci].label},
                         {"rht", kCfg[ci].rht},
                         {"mse", st.mse()},
                         {"sqnr_db", num(st.sqnr())},
                         {"flushed_frac", st.flushed_frac()},
                         {"mse_vs_mxfp4_rceil", st.mse() / ref_mse}});
    }
  }
  r.json = {{"study", r.name}, {"seed", o.seed},
            {"rht_signs", "0xD7E8 (TransformerEngine wgrad)"},
            {"results", results}};
  Panel p1 = make_panel("FP4 quantization SQNR", "data", "SQNR (dB, higher is better)");
  Panel p2 = make_panel("Elements flushed to zero", "data", "flushed (% of elements)");
  p1.categories = p2.categories = cats;
  for (size_t ci = 0; ci < std::size(kCfg); ++ci) {
    p1.bars.push_back({kCfg[ci].label, sq[ci]});
    p2.bars.push_back({kCfg[ci].label, fl[ci]});
  }
  r.figure.title = "MXFP4 vs NVFP4, with and without the 16-point RHT";
  r.figure.panels = {p1, p2};
  r.figure.columns = 1;
  r.figure.panel_width = 900;
  r.figure.panel_height = 380;
  return r;
}

// ---------------------------------------------------------------------------
Result block_vs_tensor(const Options& o) {
  const size_t n = o.size ? o.size : 32768;
  const auto data = datasets(o, n, 32);
  const MxProfile& p = mx_profile("torchao-rceil@main-5d73a0c1");
  struct Scheme {
    const char* label;
    int kind;  // 0 per-tensor E4M3, 1 per-tensor E5M2, 2 MXFP8 E4M3
  };
  constexpr Scheme kS[] = {{"per-tensor E4M3", 0},
                           {"per-tensor E5M2", 1},
                           {"MXFP8 E4M3 (block 32, RCEIL)", 2}};
  const auto quant = [&](int kind, std::span<const float> x) {
    switch (kind) {
      case 0: return tensor_pass(Fmt::kE4M3, x);
      case 1: return tensor_pass(Fmt::kE5M2, x);
      default: return mx_pass(p, Fmt::kE4M3, x).q;
    }
  };
  struct Metrics {
    double sqnr, block_sqnr, flushed;
  };
  const auto measure = [&](std::span<const float> x, std::span<const double> q) {
    ErrStats all;
    double bsum = 0;
    const size_t nb = x.size() / 32;
    for (size_t b = 0; b < nb; ++b) {
      ErrStats bs;
      for (size_t j = 0; j < 32; ++j) {
        bs.add(x[b * 32 + j], q[b * 32 + j]);
        all.add(x[b * 32 + j], q[b * 32 + j]);
      }
      bsum += std::min(bs.sqnr(), 200.0);  // cap: an error-free block
    }
    return Metrics{all.sqnr(), bsum / dbl(nb), all.flushed_frac()};
  };

  Result r;
  r.name = "block-vs-tensor";
  std::string& t = r.table;
  t += fmt::format(
      "block-vs-tensor: one FP8 scale per tensor (s = amax/max, RNE, "
      "saturating) vs MXFP8 E4M3 blocks (torchao-rceil);\ndata: each block "
      "of 32 multiplied by 2^u, u uniform in [-S/2, S/2] (S = magnitude "
      "spread in binades); seed {}\n",
      o.seed);
  json results = json::array(), two_level = json::array();
  Panel p1 = make_panel(fmt::format("Mean per-block SQNR ({})", data[0].name), "magnitude spread across blocks S (binades)", "mean block SQNR (dB)");
  Panel p2 = make_panel(fmt::format("Elements flushed to zero ({})", data[0].name), "magnitude spread across blocks S (binades)", "flushed (% of elements)");
  constexpr int kSpreads[] = {0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40};
  for (size_t di = 0; di < data.size(); ++di) {
    const DataSet& ds = data[di];
    const size_t nb = ds.x.size() / 32;
    std::vector<double> u(nb);
    Sampler s(o.seed ^ 0x5CA1Eull);
    for (auto& v : u) v = s.uniform() - 0.5;
    t += fmt::format("\n[{}] {} values\n{:<7}", ds.name, ds.x.size(), "spread");
    for (const Scheme& sc : kS) t += fmt::format(" {:>30}", sc.label);
    t += fmt::format("\n{:<7}", "");
    for (size_t si = 0; si < std::size(kS); ++si)
      t += fmt::format(" {:>30}", "SQNR / block SQNR / flushed");
    t += "\n";
    std::vector<LineSeries> l1, l2;
    for (const Scheme& sc : kS) {
      l1.push_back({sc.label, {}, {}});
      l2.push_back({sc.label, {}, {}});
    }
    for (int spread : kSpreads) {
      std::vector<float> x(ds.x.size());
      for (size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<float>(ds.x[i] * std::exp2(spread * u[i / 32]));
      t += fmt::format("{:<7}", spread);
      json row = {{"data", ds.name}, {"spread_binades", spread}};
      for (size_t si = 0; si < std::size(kS); ++si) {
        const std::vector<double> q = quant(kS[si].kind, x);
        const Metrics m = measure(x, q);
        t += fmt::format(" {:>30}", fmt::format("{:.1f} / {:.1f} / {}", m.sqnr,
                                                m.block_sqnr, pct(m.flushed)));
        row[kS[si].label] = {{"sqnr_db", num(m.sqnr)},
                             {"mean_block_sqnr_db", m.block_sqnr},
                             {"flushed_frac", m.flushed}};
        l1[si].x.push_back(spread);
        l1[si].y.push_back(m.block_sqnr);
        l2[si].x.push_back(spread);
        l2[si].y.push_back(100 * m.flushed);
      }
      t += "\n";
      results.push_back(row);
    }
    if (di == 0) {
      p1.lines = l1;
      p2.lines = l2;
    }
    // The two-level example: alternate blocks at 2^10 and 2^-12.
    std::vector<float> x(ds.x.size());
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(ds.x[i] * ((i / 32) % 2 ? 0x1p-12 : 0x1p10));
    t += fmt::format("{:<7}", "2^10|2^-12");
    json row = {{"data", ds.name}};
    for (size_t si = 0; si < std::size(kS); ++si) {
      const Metrics m = measure(x, quant(kS[si].kind, x));
      t += fmt::format(" {:>30}", fmt::format("{:.1f} / {:.1f} / {}", m.sqnr,
                                              m.block_sqnr, pct(m.flushed)));
      row[kS[si].label] = {{"sqnr_db", num(m.sqnr)},
                           {"mean_block_sqnr_db", m.block_sqnr},
                           {"flushed_frac", m.flushed}};
    }
    t += "\n";
    two_level.push_back(row);
  }
  t += "(SQNR over the whole tensor, mean of per-block SQNR in dB, percent "
       "flushed to zero)\n";
  r.json = {{"study", r.name}, {"seed", o.seed}, {"results", results},
            {"two_level_2p10_2m12", two_level}};
  r.figure.title = "Per-tensor FP8 scale vs MXFP8 block scales on mixed magnitudes";
  r.figure.panels = {p1, p2};
  return r;
}

}  // namespace mxc::study
