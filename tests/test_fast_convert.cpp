// The fast f32 -> narrow conversions (emu/fast/) against the reference
// mxc::convert, bit for bit, on every ISA path this machine has (scalar,
// AVX2, AVX-512).
// Level 0: structured cases + 2^12 random per check. Level 1 (CI): the same
// structured cases as test_cuda_oracle.cpp (every f32 within +-4 ulps of
// every representable value and midpoint of the target, all specials) plus
// 2^24 random inputs per target under RNE satfinite and 2^18 under every
// other (mode, overflow, relu). Level 2: all 2^32 inputs for every
// (target, RNE/RZ/RU/RD, satfinite or not), multi-threaded, through run_plan
// (SweepKernel::kGeneric; the sweep kernel has tests/test_fast_sweep.cpp).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdio>

#include "conformance/cases.h"
#include "emu/convert.h"
#include "emu/fast/convert_fast.h"
#include "emu/fast/sweep.h"
#include "test_isas.h"
#include "test_level.h"

using namespace mxc;

namespace {

constexpr Fmt kTargets[] = {
    Fmt::kE4M3,     Fmt::kE5M2,     Fmt::kE3M2,        Fmt::kE2M3,
    Fmt::kE2M1,     Fmt::kE8M0,     Fmt::kUE4M3,       Fmt::kE4M3Fnuz,
    Fmt::kE5M2Fnuz, Fmt::kE4M3B11Fnuz};
constexpr Round kModes[] = {Round::kRNE, Round::kRZ,  Round::kRU, Round::kRD,
                            Round::kRNA, Round::kOdd, Round::kRNZ};
constexpr Overflow kOverflows[] = {Overflow::kFormat, Overflow::kSatFinite,
                                   Overflow::kInf};

std::string label(Fmt to, const RoundSpec& r, fast::Isa isa) {
  return fmt::format("f32 -> {} {} overflow={} relu={} [{}]", desc(to).name,
                     round_name(r.mode), static_cast<int>(r.overflow), r.relu,
                     fast::isa_name(isa));
}

std::vector<uint32_t> structured(Fmt to) {
  std::vector<uint32_t> in;
  for (uint64_t v : boundary_inputs(Fmt::kF32, to, 4))
    in.push_back(static_cast<uint32_t>(v));
  for (uint64_t v : special_inputs(Fmt::kF32))
    in.push_back(static_cast<uint32_t>(v));
  return in;
}

void check(Fmt to, const RoundSpec& r, const std::vector<uint32_t>& in,
           fast::Isa isa) {
  const auto res =
      fast::check_f32(to, r, fast::reference_oracle(to, r), in, 0, isa);
  INFO(label(to, r, isa) << ": " << res.cases << " cases, " << res.mismatches
                         << " mismatches");
  for (const auto& m : res.first) {
    UNSCOPED_INFO(fmt::format("  {:08X} => fast {:02X} reference {:02X}", m[0],
                              m[1], m[2]));
  }
  CHECK(res.cases == in.size());
  CHECK(res.mismatches == 0);
  // The ISA asked for is the one that ran: a SIMD target's kernel took the
  // inputs (not a silent scalar fallback).
  std::vector<uint8_t> out(in.size());
  CHECK(fast::convert_f32_batch(isa, to, r, in.data(), out.data(), in.size()) ==
        isa);
}

using test::isa_list;
using test::isas;

}  // namespace

TEST_CASE("fast conversions cover the deterministic modes", "[fast]") {
  for (Fmt to : kTargets) {
    for (Round m : kModes) {
      RoundSpec r;
      r.mode = m;
      CHECK(fast::covers(to, r));
    }
    RoundSpec sr;
    sr.mode = Round::kSR;
    CHECK_FALSE(fast::covers(to, sr));
  }
  CHECK_FALSE(fast::covers(Fmt::kInt8, RoundSpec{}));
  CHECK_FALSE(fast::covers(Fmt::kF16, RoundSpec{}));
}

TEST_CASE("fast conversions match the reference on structured cases",
          "[fast][convert]") {
  const int level = test::level();
  for (Fmt to : kTargets) {
    std::vector<uint32_t> base = structured(to);
    for (Round m : kModes) {
      for (Overflow o : kOverflows) {
        for (bool relu : {false, true}) {
          RoundSpec r;
          r.mode = m;
          r.overflow = o;
          r.relu = relu;
          const bool main =
              m == Round::kRNE && o == Overflow::kSatFinite && !relu;
          const size_t n = level <= 0 ? (size_t{1} << 12)
                           : main     ? (size_t{1} << 24)
                                      : (size_t{1} << 18);
          std::vector<uint32_t> in = base;
          for (uint64_t v :
               random_inputs(Fmt::kF32,
                             0xFA57 + 131 * static_cast<uint64_t>(to) +
                                 17 * static_cast<uint64_t>(m),
                             n))
            in.push_back(static_cast<uint32_t>(v));
          for (fast::Isa isa : isas()) check(to, r, in, isa);
        }
      }
    }
  }
  std::printf("fast convert: structured cases checked on %s\n",
              isa_list().c_str());
}

TEST_CASE("fast batch falls back to the reference where not covered",
          "[fast][convert]") {
  std::vector<uint32_t> in;
  for (uint64_t v : random_inputs(Fmt::kF32, 99, 4096))
    in.push_back(static_cast<uint32_t>(v));
  for (uint64_t v : special_inputs(Fmt::kF32))
    in.push_back(static_cast<uint32_t>(v));
  RoundSpec sr;
  sr.mode = Round::kSR;
  sr.rbits = 0x5A;
  std::vector<uint8_t> out(in.size());
  fast::convert_f32_batch(Fmt::kE2M1, sr, in.data(), out.data(), in.size());
  for (size_t i = 0; i < in.size(); ++i)
    REQUIRE(out[i] == convert(Fmt::kF32, Fmt::kE2M1, in[i], sr));
  fast::convert_f32_batch(Fmt::kInt8, RoundSpec{}, in.data(), out.data(),
                          in.size());
  for (size_t i = 0; i < in.size(); ++i)
    REQUIRE(out[i] == convert(Fmt::kF32, Fmt::kInt8, in[i], RoundSpec{}));
}

TEST_CASE("sweep helper: ranges, threads and mismatch reporting", "[fast]") {
  RoundSpec r;
  r.overflow = Overflow::kSatFinite;
  // A window around 1.0 and the top of the range, on 1 and 2 threads.
  for (unsigned threads : {1u, 2u}) {
    const auto a =
        fast::sweep_f32(Fmt::kE4M3, r, fast::reference_oracle(Fmt::kE4M3, r),
                        threads, 0x3F700000, 0x3F900000);
    CHECK(a.cases == 0x200000);
    CHECK(a.mismatches == 0);
    const auto b =
        fast::sweep_f32(Fmt::kE4M3, r, fast::reference_oracle(Fmt::kE4M3, r),
                        threads, 0xFFFF0000, uint64_t{1} << 32);
    CHECK(b.cases == 0x10000);
    CHECK(b.mismatches == 0);
  }
  // A deliberately wrong oracle is caught and reported.
  const auto bad = fast::sweep_f32(
      Fmt::kE4M3, r,
      [](const uint32_t*, uint8_t* out, size_t n) {
        for (size_t i = 0; i < n; ++i) out[i] = 0;
      },
      2, 0x3F800000, 0x3F800100);
  CHECK(bad.mismatches == 0x100);
  CHECK(bad.first.size() == 8);
  // Checksums agree between thread counts.
  CHECK(fast::sweep_f32(Fmt::kE2M1, r, {}, 1, 0, 1u << 24).checksum ==
        fast::sweep_f32(Fmt::kE2M1, r, {}, 2, 0, 1u << 24).checksum);
}

TEST_CASE("fast conversions match the reference on all 2^32 inputs",
          "[fast][convert][exhaustive]") {
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
        const fast::Isa isa = fast::best_convert_isa();
        const auto res = fast::sweep_f32(to, r, fast::reference_oracle(to, r),
                                         0, 0, uint64_t{1} << 32, isa,
                                         fast::SweepKernel::kGeneric);
        INFO(label(to, r, isa) << ": " << res.mismatches);
        for (const auto& x : res.first) {
          UNSCOPED_INFO(fmt::format("  {:08X} => fast {:02X} reference {:02X}",
                                    x[0], x[1], x[2]));
        }
        CHECK(res.cases == (uint64_t{1} << 32));
        CHECK(res.mismatches == 0);
      }
    }
  }
}
