// Differential test against CUDA's host conversion functions (cuda_fp8.h,
// cuda_fp6.h, cuda_fp4.h, cuda_fp16.h, cuda_bf16.h): code we did not write.
// Level 1 (CI): every source encoding near every representable value and
// midpoint of the target (+-4 ulps), all specials, 2^24 random f32 inputs
// per check (2^20 for f64), and every f16/bf16 encoding. Level 2: all 2^32
// f32 inputs per check.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <atomic>
#include <thread>

#include "conformance/cases.h"
#include "conformance/hex_io.h"
#include "conformance/oracle/cuda_host_oracle.h"
#include "conformance/selfcheck.h"
#include "test_level.h"

using namespace mxc;

namespace {

std::vector<uint64_t> inputs_for(const ConversionCheck& c, int level) {
  InputSet set;
  set.ulps = 4;
  set.walking = true;
  set.random = level <= 0 ? (1u << 12)
               : c.from == Fmt::kF32 ? (size_t{1} << 24)
                                     : (size_t{1} << 20);
  set.seed = 0xC0DA + static_cast<uint64_t>(c.to);
  return conversion_inputs(c.from, c.to, set);
}

void report(const CheckResult& r) {
  INFO(fmt::format("{} -> {} {} : {} cases, {} mismatches",
                   desc(r.check.from).name, desc(r.check.to).name,
                   spec_label(r.check.spec), r.cases, r.mismatches));
  for (const auto& m : r.first) {
    UNSCOPED_INFO(fmt::format("  {} => {} expected: {}",
                              format_hex(r.check.from, m.input),
                              format_hex(r.check.to, m.got),
                              format_hex(r.check.to, m.expected)));
  }
  CHECK(r.cases > 0);
  CHECK(r.mismatches == 0);
}

// All 2^32 f32 inputs, split over the machine's cores.
CheckResult sweep_f32(const ConversionCheck& c) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  CheckResult proto;
  proto.check = c;
  std::vector<CheckResult> parts(threads, proto);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::vector<uint64_t> chunk(1 << 20);
      for (uint64_t base = uint64_t{t} << 20; base < (uint64_t{1} << 32);
           base += uint64_t{threads} << 20) {
        for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = base + i;
        const CheckResult r = run_check(c, chunk);
        parts[t].cases += r.cases;
        parts[t].mismatches += r.mismatches;
        for (const auto& m : r.first)
          if (parts[t].first.size() < 8) parts[t].first.push_back(m);
      }
    });
  }
  for (auto& th : pool) th.join();
  CheckResult all = proto;
  for (const auto& p : parts) {
    all.cases += p.cases;
    all.mismatches += p.mismatches;
    for (const auto& m : p.first)
      if (all.first.size() < 8) all.first.push_back(m);
  }
  return all;
}

}  // namespace

TEST_CASE("conversions match CUDA's host functions", "[cuda][oracle]") {
  if (!cuda_oracle::available()) {
    WARN("built without CUDA headers: CUDA differential test skipped");
    return;
  }
  const int level = test::level();
  const auto checks = cuda_checks();
  REQUIRE(checks.size() >= 40);
  for (const auto& c : checks) {
    if (level >= 2 && c.from == Fmt::kF32) {
      report(sweep_f32(c));
    } else {
      report(run_check(c, inputs_for(c, level)));
    }
  }
}
