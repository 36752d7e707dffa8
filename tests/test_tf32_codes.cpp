// TF32 codes (issue 23): users see f32 bit patterns whose low 13 bits are
// zero (emu/codes.h), the table stores 19 bits. The boundary functions, the
// text boundary (conformance/hex_io), and TF32 conversions against the
// independent exact reference (conformance/oracle, with its own TF32 table
// row) in every rounding mode. tests/python/test_tf32.py checks the same
// conversions through Python and the CLI against numpy bit rounding.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "conformance/cases.h"
#include "conformance/hex_io.h"
#include "conformance/selfcheck.h"
#include "emu/codes.h"
#include "emu/convert.h"
#include "emu/mma/models.h"
#include "test_level.h"

using namespace mxc;

TEST_CASE("tf32 user codes are f32 patterns, stored as 19 bits",
          "[tf32][codes]") {
  CHECK(code_bits(Fmt::kTF32) == 32);
  CHECK(code_hex_digits(Fmt::kTF32) == 8);
  CHECK(hex_digits(Fmt::kTF32) == 8);
  CHECK(code_from_storage(Fmt::kTF32, 0x1FC00) == 0x3F800000u);  // 1.0
  CHECK(format_hex(Fmt::kTF32, 0x1FC00) == "3F800000");
  CHECK(storage_from_code(Fmt::kTF32, 0x3F800000) == 0x1FC00u);
  // Low bits: refused under strict, dropped under truncate.
  CHECK_FALSE(storage_from_code(Fmt::kTF32, 0x3F801000));
  CHECK_FALSE(storage_from_code(Fmt::kTF32, 0x3F800001));
  CHECK(storage_from_code(Fmt::kTF32, 0x3F801FFF, Tf32Input::kTruncate) ==
        0x1FC00u);
  // The old 19-bit code of 1.0 is not a code; nor is anything over 32 bits.
  CHECK_FALSE(storage_from_code(Fmt::kTF32, 0x1FC00));
  CHECK_FALSE(
      storage_from_code(Fmt::kTF32, 0x100000000ull, Tf32Input::kTruncate));
  CHECK(parse_tf32_input("strict") == Tf32Input::kStrict);
  CHECK(parse_tf32_input("truncate") == Tf32Input::kTruncate);
  CHECK_FALSE(parse_tf32_input("Truncate"));
  // Every stored encoding round-trips; operand checks agree with codes.
  for (uint64_t s = 0; s < (uint64_t{1} << 19); ++s) {
    const uint64_t c = code_from_storage(Fmt::kTF32, s);
    if ((c & kTf32LowMask) != 0 || storage_from_code(Fmt::kTF32, c) != s ||
        !operand_code_ok(Fmt::kTF32, c)) {
      FAIL(fmt::format("storage {:05X} code {:08X}", s, c));
    }
  }
  // Other formats: codes are their storage.
  for (Fmt f : {Fmt::kE4M3, Fmt::kE2M1, Fmt::kBF16, Fmt::kF32, Fmt::kF64}) {
    CHECK(code_bits(f) == desc(f).bits);
    CHECK(code_from_storage(f, 1) == 1u);
    CHECK(storage_from_code(f, 1) == 1u);
    CHECK(operand_hex_digits(f) == hex_digits(f));
  }
  CHECK_FALSE(storage_from_code(Fmt::kE2M1, 0x10));
}

TEST_CASE("tf32 decodes to the f32 with the same bits", "[tf32][codes]") {
  // Exhaustive over the 2^19 encodings: TF32 -> f32 is exact, so the f32
  // result is the TF32 code itself (a NaN is a NaN: the emulator writes its
  // canonical NaN, docs/rounding.md).
  uint64_t nans = 0;
  for (uint64_t s = 0; s < (uint64_t{1} << 19); ++s) {
    const uint64_t c = code_from_storage(Fmt::kTF32, s);
    const uint64_t z = convert(Fmt::kTF32, Fmt::kF32, s);
    const bool nan = (c & 0x7F800000u) == 0x7F800000u && (c & 0x7FE000u);
    if (nan) {
      nans += (z & 0x7F800000u) == 0x7F800000u && (z & 0x7FFFFFu);
      continue;
    }
    if (z != c) {
      FAIL(fmt::format("tf32 {:08X} -> f32 {:08X}", c, z));
    }
  }
  CHECK(nans == 2 * 1023);  // every NaN encoding (2 signs, 1023 payloads)
}

TEST_CASE("tf32 conversions match the exact reference in every mode",
          "[tf32][exact][oracle]") {
  const size_t n = test::level() <= 0 ? 400 : 4000;
  InputSet set;
  set.ulps = 2;
  // (from, to, modes): into TF32 from f32/f64 in every deterministic mode
  // and both overflow rules; out of TF32 into narrower formats.
  struct Pair {
    Fmt from, to;
    std::vector<Round> modes;
  };
  const std::vector<Round> all = {Round::kRNE, Round::kRZ,  Round::kRU,
                                  Round::kRD,  Round::kRNA, Round::kOdd,
                                  Round::kRNZ};
  const std::vector<Pair> pairs = {
      {Fmt::kF32, Fmt::kTF32, all},
      {Fmt::kF64, Fmt::kTF32, all},
      {Fmt::kTF32, Fmt::kF16, {Round::kRNE, Round::kRZ}},
      {Fmt::kTF32, Fmt::kBF16, {Round::kRNE, Round::kRZ}},
      {Fmt::kTF32, Fmt::kE4M3, {Round::kRNE, Round::kRZ}},
      {Fmt::kTF32, Fmt::kE2M1, {Round::kRNE, Round::kRZ}},
  };
  uint64_t total = 0, rows = 0;
  for (const Pair& p : pairs) {
    const auto in = sample_inputs(p.from, conversion_inputs(p.from, p.to, set),
                                  n, 0x7F32 ^ static_cast<uint64_t>(p.to));
    for (Round m : p.modes) {
      for (Overflow ov : {Overflow::kFormat, Overflow::kSatFinite}) {
        RoundSpec r;
        r.mode = m;
        r.overflow = ov;
        const ConversionCheck c{p.from, p.to, r, Oracle::kExact};
        const CheckResult res = run_check(c, in);
        total += res.cases;
        ++rows;
        INFO(fmt::format("{} -> {} {}: {} cases, {} mismatches",
                         desc(c.from).name, desc(c.to).name, spec_label(c.spec),
                         res.cases, res.mismatches));
        for (const auto& mm : res.first) {
          UNSCOPED_INFO(fmt::format(
              "  {} => {} expected: {}", format_hex(c.from, mm.input),
              format_hex(c.to, mm.got), format_hex(c.to, mm.expected)));
        }
        CHECK(res.unsupported == 0);
        CHECK(res.mismatches == 0);
      }
    }
  }
  CHECK(total >= rows * n / 2);
}
