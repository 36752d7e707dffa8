// The sweep kernel (fast::sweep_range, emu/fast/sweep_binade.cpp) against
// the reference mxc::convert, bit for bit, on every ISA this machine has,
// for every (target, mode, overflow, relu) the fast path covers.
// Levels 0/1: windows of consecutive inputs across every binade boundary of
// both signs (zero, f32 subnormals, the target's subnormal and emin
// binades, Inf/NaN, the sign wrap at 0x7FFFFFFF), around every target value
// and midpoint (hence the overflow threshold) and at random places; every
// window starts off the 64-input grid, so vector loops, tails and fills all
// run. Then the kernel against run_plan (itself exhaustively checked at
// level 2 in test_fast_convert.cpp) on 64 random 64 Ki chunks per
// combination. Level 2: all 2^32 inputs through fast::sweep_f32 with the
// reference oracle, as in test_fast_convert.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "conformance/cases.h"
#include "conformance/splitmix64.h"
#include "emu/convert.h"
#include "emu/fast/convert_fast.h"
#include "emu/fast/sweep.h"
#include "test_isas.h"
#include "test_level.h"

using namespace mxc;

namespace {

constexpr Fmt kTargets[] = {Fmt::kE4M3, Fmt::kE5M2, Fmt::kE3M2, Fmt::kE2M3,
                            Fmt::kE2M1, Fmt::kE8M0, Fmt::kUE4M3};
constexpr Round kModes[] = {Round::kRNE, Round::kRZ,  Round::kRU,
                            Round::kRD,  Round::kRNA, Round::kOdd};
constexpr Overflow kOverflows[] = {Overflow::kFormat, Overflow::kSatFinite,
                                   Overflow::kInf};

struct Combo {
  Fmt to;
  RoundSpec r;
};

std::vector<Combo> combos() {
  std::vector<Combo> v;
  for (Fmt to : kTargets)
    for (Round m : kModes)
      for (Overflow o : kOverflows)
        for (bool relu : {false, true}) {
          RoundSpec r;
          r.mode = m;
          r.overflow = o;
          r.relu = relu;
          v.push_back({to, r});
        }
  return v;
}

std::string label(const Combo& c) {
  return fmt::format("f32 -> {} {} overflow={} relu={}", desc(c.to).name,
                     round_name(c.r.mode), static_cast<int>(c.r.overflow),
                     c.r.relu);
}

using test::isa_list;
using test::isas;

struct Range {
  uint32_t first;
  uint32_t len;
};

// Windows [c - w, c + w + 13) (clipped to [0, 2^32)); the odd width and
// the centres keep most windows off the 64-input grid.
void window(std::vector<Range>& out, uint64_t c, uint64_t w) {
  const uint64_t lo = c > w ? c - w : 0;
  const uint64_t hi = std::min<uint64_t>(c + w + 13, uint64_t{1} << 32);
  out.push_back({static_cast<uint32_t>(lo), static_cast<uint32_t>(hi - lo)});
}

std::vector<Range> ranges(Fmt to, int level) {
  const uint64_t wb = level <= 0 ? 19 : 150;  // binade boundaries
  const uint64_t wv = level <= 0 ? 5 : 40;    // values and midpoints
  std::vector<Range> v;
  for (uint64_t s : {uint64_t{0}, uint64_t{1} << 31})
    for (uint64_t e = 0; e <= 256; ++e) window(v, s + (e << 23), wb);
  // Each target value and midpoint as the nearest f32 (both signs).
  for (uint64_t c : boundary_inputs(Fmt::kF32, to, 0)) window(v, c, wv);
  SplitMix64 g(0x5EE9 + static_cast<uint64_t>(to));
  const int nrand = level <= 0 ? 4 : 32;
  for (int k = 0; k < nrand; ++k) window(v, g.next() >> 32, 2000);
  return v;
}

// The mismatches of one combination, on every ISA (the first few kept).
struct Outcome {
  uint64_t cases = 0, mismatches = 0;
  std::vector<std::string> first;
};

void note(Outcome& o, const std::string& s) {
  ++o.mismatches;
  if (o.first.size() < 6) o.first.push_back(s);
}

Outcome against_reference(const Combo& c, const std::vector<Range>& rs) {
  Outcome o;
  const fast::Plan p = fast::make_plan(c.to, c.r);
  std::vector<uint8_t> ref, got;
  for (const Range& rg : rs) {
    ref.resize(rg.len);
    got.resize(rg.len);
    for (uint32_t i = 0; i < rg.len; ++i)
      ref[i] =
          static_cast<uint8_t>(convert(Fmt::kF32, c.to, rg.first + i, c.r));
    uint64_t want = 0;
    for (uint8_t b : ref) want += b;
    for (fast::Isa isa : isas()) {
      const uint64_t sum =
          fast::sweep_range(p, isa, rg.first, got.data(), got.size());
      o.cases += rg.len;
      if (sum != want)
        note(o, fmt::format("  [{}] sum {} for {:08X}+{}: want {}",
                            fast::isa_name(isa), sum, rg.first, rg.len, want));
      for (uint32_t i = 0; i < rg.len; ++i)
        if (got[i] != ref[i])
          note(o,
               fmt::format("  [{}] {:08X} => sweep {:02X} reference {:02X}",
                           fast::isa_name(isa), rg.first + i, got[i], ref[i]));
    }
  }
  return o;
}

Outcome against_run_plan(const Combo& c, int chunks) {
  Outcome o;
  const fast::Plan p = fast::make_plan(c.to, c.r);
  constexpr size_t kLen = size_t{1} << 16;
  std::vector<uint32_t> in(kLen);
  std::vector<uint8_t> want(kLen), got(kLen);
  SplitMix64 g(0xB1AD + static_cast<uint64_t>(c.to) * 31 +
               static_cast<uint64_t>(c.r.mode));
  for (int k = 0; k < chunks; ++k) {
    // Half the chunks aligned as in sweep_f32, half at any start.
    uint32_t first = static_cast<uint32_t>(g.next() >> 32);
    if (k % 2 == 0) first &= ~uint32_t{0xFFFF};
    const size_t len = std::min<uint64_t>(kLen, (uint64_t{1} << 32) - first);
    for (size_t i = 0; i < len; ++i) in[i] = first + static_cast<uint32_t>(i);
    fast::run_plan(p, fast::best_convert_isa(), in.data(), want.data(), len);
    for (fast::Isa isa : isas()) {
      fast::sweep_range(p, isa, first, got.data(), len);
      o.cases += len;
      for (size_t i = 0; i < len; ++i)
        if (got[i] != want[i])
          note(o, fmt::format("  [{}] {:08X} => sweep {:02X} run_plan {:02X}",
                              fast::isa_name(isa), in[i], got[i], want[i]));
    }
  }
  return o;
}

// f(combo) for every combination on all cores; Catch2 checks run here, on
// the calling thread.
template <class F>
void for_all_combos(F f) {
  const std::vector<Combo> cs = combos();
  std::vector<Outcome> out(cs.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < cs.size();) out[i] = f(cs[i]);
  };
  std::vector<std::thread> pool;
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < n; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  for (size_t i = 0; i < cs.size(); ++i) {
    INFO(label(cs[i]) << ": " << out[i].cases << " cases, " << out[i].mismatches
                      << " mismatches");
    for (const auto& s : out[i].first) UNSCOPED_INFO(s);
    CHECK(out[i].cases > 0);
    CHECK(out[i].mismatches == 0);
  }
}

}  // namespace

TEST_CASE("sweep kernel matches the reference across binades and specials",
          "[fast][sweep]") {
  const int level = test::level();
  std::vector<std::vector<Range>> per_target;
  for (Fmt to : kTargets) per_target.push_back(ranges(to, level));
  for_all_combos([&](const Combo& c) {
    const size_t t = static_cast<size_t>(
        std::find(std::begin(kTargets), std::end(kTargets), c.to) -
        std::begin(kTargets));
    return against_reference(c, per_target[t]);
  });
  std::printf("fast sweep: binades and specials checked on %s\n",
              isa_list().c_str());
}

TEST_CASE("sweep kernel matches run_plan on whole chunks", "[fast][sweep]") {
  const int chunks = test::level() <= 0 ? 4 : 64;
  for_all_combos([&](const Combo& c) { return against_run_plan(c, chunks); });
}

TEST_CASE("sweep_f32: the binade and generic kernels agree", "[fast][sweep]") {
  RoundSpec r;
  r.overflow = Overflow::kSatFinite;
  // Across 0x7F800000 (Inf, NaN) and the sign wrap, with the reference.
  const auto a =
      fast::sweep_f32(Fmt::kE4M3, r, fast::reference_oracle(Fmt::kE4M3, r), 2,
                      0x7F7F0000, 0x80010000);
  CHECK(a.cases == 0x820000);
  CHECK(a.mismatches == 0);
  for (fast::Isa isa : isas()) {
    for (Fmt to : {Fmt::kE4M3, Fmt::kE2M1, Fmt::kE8M0}) {
      const auto b = fast::sweep_f32(to, r, {}, 2, 0x43000000, 0x45000000, isa,
                                     fast::SweepKernel::kBinade);
      const auto g = fast::sweep_f32(to, r, {}, 2, 0x43000000, 0x45000000, isa,
                                     fast::SweepKernel::kGeneric);
      INFO(desc(to).name << " [" << fast::isa_name(isa) << "]");
      CHECK(b.cases == g.cases);
      CHECK(b.checksum == g.checksum);
    }
  }
}

TEST_CASE("sweep kernel matches the reference on all 2^32 inputs",
          "[fast][sweep][exhaustive]") {
  if (test::level() < 2) {
    SUCCEED("exhaustive sweep runs at MXC_TEST_LEVEL=2");
    return;
  }
  for (Fmt to : kTargets) {
    for (Round m : {Round::kRNE, Round::kRZ, Round::kRU, Round::kRD}) {
      for (Overflow o : {Overflow::kFormat, Overflow::kSatFinite}) {
        RoundSpec r;
        r.mode = m;
        r.overflow = o;
        const auto res =
            fast::sweep_f32(to, r, fast::reference_oracle(to, r), 0);
        INFO(label({to, r}) << " [" << fast::isa_name(fast::best_convert_isa())
                            << "]: " << res.mismatches);
        for (const auto& x : res.first) {
          UNSCOPED_INFO(fmt::format("  {:08X} => sweep {:02X} reference {:02X}",
                                    x[0], x[1], x[2]));
        }
        CHECK(res.cases == (uint64_t{1} << 32));
        CHECK(res.mismatches == 0);
      }
    }
  }
}
