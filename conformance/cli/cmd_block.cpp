// mxc profiles: list the named quantization profiles.
// mxc quantize --profile NAME: f32 hex blocks in, scale + element codes out.
// mxc diff-profiles A B: which classes of input two profiles treat
// differently, with an example of each.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/block_cases.h"
#include "conformance/cli/commands.h"
#include "conformance/cli/options.h"
#include "conformance/hex_io.h"
#include "conformance/io.h"
#include "conformance/splitmix64.h"
#include "emu/block/philox.h"
#include "emu/block/profile.h"
#include "emu/block/quantize.h"
#include "emu/convert.h"
#include "emu/round_pack.h"

namespace mxc::cli {
namespace {

int run_profiles(bool verbose) {
  // Names are versioned (NAME@RELEASE, or NAME@main-COMMIT for unreleased
  // behaviour); the aliases below stand for one of them.
  fmt::print("MX profiles (E8M0 scale; element format selectable):\n");
  for (const MxProfile& p : mx_profiles()) {
    fmt::print("  {:<28} block {:>3}  {}\n", p.name, p.block, p.summary);
    if (verbose) {
      fmt::print("  {:<28} versions: {}\n", "", p.versions);
      fmt::print("  {:<28} source: {}\n", "", p.source);
      fmt::print("  {:<28} evidence: {}\n", "", p.evidence);
    }
  }
  fmt::print("NVFP4 profiles (E2M1, UE4M3 scale per 16, FP32 tensor scale):\n");
  for (const Nvfp4Profile& p : nvfp4_profiles()) {
    fmt::print("  {:<28} {}\n", p.name, p.summary);
    if (verbose) {
      fmt::print("  {:<28} versions: {}\n", "", p.versions);
      fmt::print("  {:<28} source: {}\n", "", p.source);
      fmt::print("  {:<28} evidence: {}\n", "", p.evidence);
    }
  }
  fmt::print("Aliases (accepted wherever a profile name is):\n");
  for (const ProfileAlias& a : profile_aliases()) {
    fmt::print("  {:<28} -> {} ({})\n", a.alias, a.target, a.why);
  }
  return 0;
}

// The element formats of the OCP MX spec (section 5.3).
bool is_mx_element(Fmt e) {
  return e == Fmt::kE4M3 || e == Fmt::kE5M2 || e == Fmt::kE3M2 ||
         e == Fmt::kE2M3 || e == Fmt::kE2M1 || e == Fmt::kInt8;
}

struct QuantizeOptions {
  std::string profile, elem;
  std::string tensor_amax;
  int block = 0;
  std::string sr_seed;     // NVFP4 stochastic rounding: Philox seed
  std::string rbits_file;  // or random bits from a file (hex, one per value)
};

int run_quantize(const QuantizeOptions& o) {
  const MxProfile* mx = find_mx_profile(o.profile);
  const Nvfp4Profile* nv = find_nvfp4_profile(o.profile);
  if (!mx && !nv) {
    std::fprintf(stderr,
                 "mxc quantize: error: unknown profile '%s' (see mxc "
                 "profiles)\n",
                 o.profile.c_str());
    return 2;
  }
  MxProfile p = mx ? *mx : MxProfile{};
  Fmt elem = mx ? mx->default_elem : Fmt::kE2M1;
  if (!o.elem.empty()) {
    const auto e = parse_format(o.elem);
    const bool ok = e && mx && is_mx_element(*e);
    if (!ok) {
      std::fprintf(stderr, "mxc quantize: error: --elem '%s' %s\n",
                   o.elem.c_str(),
                   mx ? "is not an MX element format"
                      : "is fixed (e2m1) for NVFP4 profiles");
      return 2;
    }
    elem = *e;
  }
  if (o.block > 0) p.block = o.block;  // 0: the profile's (validated range)
  const int block = mx ? p.block : 16;
  std::string why;
  uint32_t s_enc = 0x3F800000u;
  if (nv) {
    if (o.tensor_amax.empty()) {
      std::fprintf(stderr,
                   "mxc quantize: error: NVFP4 profiles need --tensor-amax "
                   "HEX (f32 bits of the tensor's amax)\n");
      return 2;
    }
    const auto a = parse_hex(o.tensor_amax, &why);
    if (!a || *a > 0xFFFFFFFFu) {
      std::fprintf(stderr, "mxc quantize: error: --tensor-amax: %s\n",
                   a ? "wider than 32 bits" : why.c_str());
      return 2;
    }
    s_enc = nvfp4_tensor_scale(*nv, static_cast<uint32_t>(*a));
  }
  const bool sr = !o.sr_seed.empty() || !o.rbits_file.empty();
  if (sr && !nv) {
    std::fprintf(stderr,
                 "mxc quantize: error: stochastic rounding (--sr-seed, "
                 "--rbits-file) is offered for NVFP4 profiles\n");
    return 2;
  }
  if (sr && nv->rule != Nvfp4Rule::kTe && nv->rule != Nvfp4Rule::kCutlass) {
    std::fprintf(stderr,
                 "mxc quantize: error: profile '%s' has no stochastic "
                 "rounding (its library rounds to nearest)\n",
                 o.profile.c_str());
    return 2;
  }
  uint64_t seed = 0;
  if (!o.sr_seed.empty()) {
    const auto sv = parse_hex(o.sr_seed, &why);
    if (!sv) {
      std::fprintf(stderr, "mxc quantize: error: --sr-seed: %s\n",
                   why.c_str());
      return 2;
    }
    seed = *sv;
  }
  std::ifstream rbits_in;
  long rbits_count = 0;
  if (!o.rbits_file.empty()) {
    rbits_in.open(o.rbits_file);
    if (!rbits_in) {
      std::fprintf(stderr, "mxc quantize: error: cannot open %s\n",
                   o.rbits_file.c_str());
      return 2;
    }
  }
  // The random-bit file is read with the same capped line reader as stdin.
  io::LineReader rbits_lines(rbits_in, o.rbits_file);
  std::string rbits_line;
  std::istringstream rbits_tokens;
  auto next_rbits = [&](std::string& t) {
    while (!(rbits_tokens >> t)) {
      if (!rbits_lines.next(rbits_line)) return false;
      rbits_tokens.clear();
      rbits_tokens.str(rbits_line);
    }
    return true;
  };
  uint64_t element_index = 0;  // Philox counter: position in the stream
  std::string line, out;
  io::LineReader lines(std::cin, "<stdin>");  // capped; read errors throw
  while (lines.next(line)) {
    const long line_no = lines.line();
    std::istringstream ss(line);
    std::vector<uint32_t> x;
    std::string tok;
    while (ss >> tok) {
      const auto v = parse_hex(tok, &why);
      if (!v || *v > 0xFFFFFFFFu) {
        std::fwrite(out.data(), 1, out.size(), stdout);
        std::fprintf(stderr, "<stdin>:%ld: error: bad f32 %s: %s\n", line_no,
                     io::quote(tok).c_str(),
                     v ? "wider than 32 bits" : why.c_str());
        return 2;
      }
      if (x.size() >= static_cast<size_t>(block)) {
        std::fwrite(out.data(), 1, out.size(), stdout);
        std::fprintf(stderr,
                     "<stdin>:%ld: error: more than %d values, the block "
                     "size is %d\n",
                     line_no, block, block);
        return 2;
      }
      x.push_back(static_cast<uint32_t>(*v));
    }
    if (x.empty()) continue;
    if (x.size() != static_cast<size_t>(block)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      std::fprintf(stderr,
                   "<stdin>:%ld: error: %zu values, the block size is %d\n",
                   line_no, x.size(), block);
      return 2;
    }
    uint8_t scale;
    std::vector<uint8_t> codes;
    if (mx) {
      const MxBlock b = mx_quantize_block(p, elem, x);
      scale = b.scale;
      codes = b.codes;
    } else {
      std::vector<uint32_t> rb;
      for (size_t i = 0; sr && i < x.size(); ++i, ++element_index) {
        if (o.rbits_file.empty()) {
          rb.push_back(sr_rbits(seed, element_index));
          continue;
        }
        std::string t;
        if (!next_rbits(t)) {
          std::fwrite(out.data(), 1, out.size(), stdout);
          std::fprintf(stderr, "%s: error: too few random-bit values\n",
                       o.rbits_file.c_str());
          return 2;
        }
        ++rbits_count;
        const auto v = parse_hex(t, &why);
        if (!v || *v > 0xFFFFFFFFu) {
          std::fwrite(out.data(), 1, out.size(), stdout);
          std::fprintf(stderr, "%s:%ld: value %ld: error: bad rbits %s\n",
                       o.rbits_file.c_str(), rbits_lines.line(), rbits_count,
                       io::quote(t).c_str());
          return 2;
        }
        rb.push_back(static_cast<uint32_t>(*v));
      }
      const Nvfp4Block b = nvfp4_quantize_block(*nv, s_enc, x, rb);
      scale = b.scale;
      codes = b.codes;
    }
    out += fmt::format("{:02X}", scale);
    for (uint8_t c : codes) out += " " + format_hex(elem, c);
    out += '\n';
    if (out.size() > (1 << 16)) {  // stream: memory stays flat
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

// Two NVFP4 profiles on the same blocks of 16: each block is a tensor of its
// own (tensor amax = the block's finite amax, or --tensor-amax), and each
// profile takes the tensor value its rule needs (nvfp4_tensor_scale).
int run_diff_nvfp4(const Nvfp4Profile& pa, const Nvfp4Profile& pb,
                   const std::string& a, const std::string& b,
                   const std::string& tensor_amax, int per_class,
                   uint64_t seed) {
  std::optional<uint32_t> fixed;
  if (!tensor_amax.empty()) {
    std::string why;
    const auto v = parse_hex(tensor_amax, &why);
    if (!v || *v > 0xFFFFFFFFu) {
      std::fprintf(stderr, "mxc diff-profiles: error: --tensor-amax: %s\n",
                   v ? "wider than 32 bits" : why.c_str());
      return 2;
    }
    fixed = static_cast<uint32_t>(*v);
  }
  constexpr int n = 16;
  fmt::print("{} vs {} (e2m1, block {}, tensor amax {}), {} blocks per "
             "class\n",
             a, b, n,
             fixed ? fmt::format("{:08X}", *fixed)
                   : std::string("= each block's finite amax"),
             per_class);
  fmt::print("{:<38} {:>8} {:>8} {:>9}  example (scale A/B, first differing "
             "code A/B)\n",
             "input class", "blocks", "scale!=", "codes!=");
  SplitMix64 g(seed);
  int any = 0;
  for (size_t c = 0; c < block_class_count(); ++c) {
    int ds = 0, dc = 0;
    std::string example;
    for (int i = 0; i < per_class; ++i) {
      const auto x = block_class_case(c, g, n, Fmt::kE2M1);
      uint32_t amax = 0;
      for (uint32_t v : x) {
        const uint32_t m = v & 0x7FFFFFFFu;
        if (m < 0x7F800000u) amax = std::max(amax, m);
      }
      const uint32_t at = fixed ? *fixed : amax;
      const Nvfp4Block ba =
          nvfp4_quantize_block(pa, nvfp4_tensor_scale(pa, at), x);
      const Nvfp4Block bb =
          nvfp4_quantize_block(pb, nvfp4_tensor_scale(pb, at), x);
      const bool s = ba.scale != bb.scale, k = ba.codes != bb.codes;
      ds += s;
      dc += k;
      if ((s || k) && example.empty()) {
        size_t j = 0;
        while (j < x.size() && ba.codes[j] == bb.codes[j]) ++j;
        example = fmt::format("{:02X}/{:02X}", ba.scale, bb.scale);
        if (j < x.size()) {
          example += fmt::format("  x[{}]={:08X}: {:X}/{:X}", j, x[j],
                                 ba.codes[j], bb.codes[j]);
        }
      }
    }
    any += ds + dc;
    fmt::print("{:<38} {:>8} {:>8} {:>9}  {}\n", block_class_name(c), per_class,
               ds, dc, example);
  }
  fmt::print("\n{}\n", any ? "the profiles differ on the classes above"
                           : "no difference found on these classes");
  return 0;
}

int run_diff(const std::string& a, const std::string& b, const std::string& e,
             const std::string& tensor_amax, int per_class, uint64_t seed) {
  const Nvfp4Profile* na = find_nvfp4_profile(a);
  const Nvfp4Profile* nb = find_nvfp4_profile(b);
  if (na && nb) {
    if (!e.empty() && e != "e2m1") {
      std::fprintf(stderr,
                   "mxc diff-profiles: error: --elem is fixed (e2m1) for "
                   "NVFP4 profiles\n");
      return 2;
    }
    return run_diff_nvfp4(*na, *nb, a, b, tensor_amax, per_class, seed);
  }
  if ((na || nb) && !find_mx_profile(na ? b : a)) {
    std::fprintf(stderr,
                 "mxc diff-profiles: error: unknown profile '%s' (see mxc "
                 "profiles)\n",
                 (na ? b : a).c_str());
    return 2;
  }
  if (na || nb) {
    std::fprintf(stderr,
                 "mxc diff-profiles: error: '%s' is an NVFP4 profile and "
                 "'%s' is not: both must be MX or both NVFP4\n",
                 (na ? a : b).c_str(), (na ? b : a).c_str());
    return 2;
  }
  if (!tensor_amax.empty()) {
    std::fprintf(stderr,
                 "mxc diff-profiles: error: --tensor-amax is for NVFP4 "
                 "profiles\n");
    return 2;
  }
  const MxProfile* pa = find_mx_profile(a);
  const MxProfile* pb = find_mx_profile(b);
  if (!pa || !pb) {
    std::fprintf(stderr,
                 "mxc diff-profiles: error: unknown MX profile '%s' (see mxc "
                 "profiles)\n",
                 (!pa ? a : b).c_str());
    return 2;
  }
  const auto elem = parse_format(e.empty() ? std::string(desc(pa->default_elem).name) : e);
  if (!elem || !is_mx_element(*elem)) {
    std::fprintf(stderr,
                 "mxc diff-profiles: error: --elem %s is not an MX element "
                 "format (e4m3 e5m2 e3m2 e2m3 e2m1 int8)\n",
                 io::quote(e).c_str());
    return 2;
  }
  const int n = pa->block;
  MxProfile pb_same = *pb;
  pb_same.block = n;  // compare on the same blocks
  fmt::print("{} vs {} ({}, block {}), {} blocks per class\n", a, b,
             desc(*elem).name, n, per_class);
  fmt::print("{:<38} {:>8} {:>8} {:>9}  example (scale A/B, first differing "
             "code A/B)\n",
             "input class", "blocks", "scale!=", "codes!=");
  SplitMix64 g(seed);
  int any = 0;
  for (size_t c = 0; c < block_class_count(); ++c) {
    int ds = 0, dc = 0;
    std::string example;
    for (int i = 0; i < per_class; ++i) {
      const auto x = block_class_case(c, g, n, *elem);
      const MxBlock ba = mx_quantize_block(*pa, *elem, x);
      const MxBlock bb = mx_quantize_block(pb_same, *elem, x);
      const bool s = ba.scale != bb.scale, k = ba.codes != bb.codes;
      ds += s;
      dc += k;
      if ((s || k) && example.empty()) {
        size_t j = 0;
        while (j < x.size() && ba.codes[j] == bb.codes[j]) ++j;
        example = fmt::format("{:02X}/{:02X}", ba.scale, bb.scale);
        if (j < x.size()) {
          example += fmt::format("  x[{}]={:08X}: {}/{}", j, x[j],
                                 format_hex(*elem, ba.codes[j]),
                                 format_hex(*elem, bb.codes[j]));
        }
      }
    }
    any += ds + dc;
    fmt::print("{:<38} {:>8} {:>8} {:>9}  {}\n", block_class_name(c), per_class,
               ds, dc, example);
  }
  fmt::print("\n{}\n", any ? "the profiles differ on the classes above"
                           : "no difference found on these classes");
  return 0;
}

}  // namespace

void add_block(CLI::App& app, int& exit_code) {
  auto verbose = std::make_shared<bool>(false);
  CLI::App* pr = app.add_subcommand(
      "profiles",
      "List the named quantization profiles (library conventions), each "
      "named NAME@VERSION for the library release it reproduces, and the "
      "aliases (a bare NAME is the newest release)");
  pr->add_flag("-v,--verbose", *verbose,
               "also print each profile's versions, source and evidence "
               "(run: the peer test, or read only)");
  pr->callback([verbose, &exit_code] { exit_code = run_profiles(*verbose); });

  auto q = std::make_shared<QuantizeOptions>();
  CLI::App* qc = app.add_subcommand(
      "quantize",
      "Quantize blocks read from stdin, one block of f32 hex values per line; "
      "writes the scale byte then the element codes per line");
  qc->add_option("--profile", q->profile, "profile name (mxc profiles)")
      ->required();
  qc->add_option("--elem", q->elem,
                 "MX element format: e4m3 e5m2 e3m2 e2m3 e2m1 int8 (default: "
                 "the profile's)");
  qc->add_option("--block", q->block, "MX block size 1..4096 (default: the profile's)")
      ->check(integer_in(1, 4096));
  qc->add_option("--tensor-amax", q->tensor_amax,
                 "NVFP4: the tensor amax as f32 hex (TE: S_enc = 448*6/amax; "
                 "4over6: 256*6/amax; torchao: amax/2688)");
  qc->add_option("--sr-seed", q->sr_seed,
                 "NVFP4: stochastic rounding with Philox4x32-10 random bits "
                 "(hex seed; element i of the stream uses sr_rbits(seed, i))");
  qc->add_option("--rbits-file", q->rbits_file,
                 "NVFP4: stochastic rounding with random bits read from a "
                 "file (whitespace-separated hex, one per element, low 8 "
                 "bits used), e.g. bits drawn on hardware");
  qc->callback([q, &exit_code] { exit_code = run_quantize(*q); });

  auto a = std::make_shared<std::string>(), b = std::make_shared<std::string>();
  auto e = std::make_shared<std::string>();
  auto n = std::make_shared<int>(2000);
  auto seed = std::make_shared<uint64_t>(1);
  CLI::App* d = app.add_subcommand(
      "diff-profiles",
      "Quantize the same structured inputs with two MX profiles, or two "
      "NVFP4 profiles, and report which input classes they treat "
      "differently");
  d->add_option("A", *a, "first profile")->required();
  d->add_option("B", *b, "second profile")->required();
  d->add_option("--elem", *e, "element format (default: A's)");
  auto ta = std::make_shared<std::string>();
  d->add_option("--tensor-amax", *ta,
                "NVFP4 profiles: the tensor amax as f32 hex for every block "
                "(default: each block's own finite amax)");
  d->add_option("--blocks", *n, "blocks per input class (1..10^7)")
      ->check(integer_in(1, 10000000))
      ->capture_default_str();
  d->add_option("--seed", *seed, "seed (unsigned 64-bit)")
      ->check(unsigned64())
      ->capture_default_str();
  d->callback([=, &exit_code] {
    exit_code = run_diff(*a, *b, *e, *ta, *n, *seed);
  });
}

}  // namespace mxc::cli
