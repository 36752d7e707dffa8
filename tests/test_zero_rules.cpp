// The zero-rule variants (issue 12) at the vector layer: header keys
// zero-exp / zero-sign select them, resolved headers state them, and `mxc
// verify`'s classifier names a mismatch that another variant explains
// "zero-rule:<variant>". Operands and expected bits as derived in
// tests/test_fdpa_oracle_self.cpp (zero-term exponent, sign of zero).
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

#include "conformance/vectors/op.h"
#include "conformance/vectors/vector_file.h"
#include "conformance/vectors/verify.h"

using namespace mxc;

namespace {

vec::Header mma_header(const char* model, const char* ze, const char* zs) {
  vec::Header h;
  h.kv["op"] = "mma";
  h.kv["model"] = model;
  h.kv["a-fmt"] = "e4m3";
  h.kv["b-fmt"] = "e4m3";
  if (ze) h.kv["zero-exp"] = ze;
  if (zs) h.kv["zero-sign"] = zs;
  return h;
}

}  // namespace

TEST_CASE("vector headers select the zero rules and verify classifies them",
          "[vectors][zero-rule]") {
  // Every product -0 (A = -0, B = +0), C = -0: ieee gives -0, positive +0.
  std::vector<uint64_t> in(32, 0x80);
  in.resize(64, 0x00);
  in.push_back(0x80000000);
  const auto ieee =
      vec::make_op(mma_header("sm100_tcgen05_f8f6f4_f32", "fixed", "ieee"));
  const auto pos =
      vec::make_op(mma_header("sm100_tcgen05_f8f6f4_f32", nullptr, nullptr));
  CHECK(ieee->expected(in) == std::vector<uint64_t>{0x80000000});
  CHECK(pos->expected(in) == std::vector<uint64_t>{0});
  CHECK(pos->resolved().get("zero-sign") == "positive");  // the default
  CHECK(pos->resolved().get("zero-exp") == "fixed");
  const uint64_t plus0[] = {0}, minus0[] = {0x80000000};
  CHECK(ieee->classify(in, minus0, plus0) == "zero-rule:positive");
  CHECK(pos->classify(in, plus0, minus0) == "zero-rule:ieee");

  // Zero A against B = 448, C = (1 + 2^-12 + 2^-13) * 2^-120 on Hopper FP8:
  // fixed keeps C (0x03800C00), operand-min truncates it to 2^-120.
  std::vector<uint64_t> z(64, 0);
  z[32] = 0x7E;
  z.push_back(0x03800C00);
  const auto fixed =
      vec::make_op(mma_header("sm90_wgmma_fp8_f32", "fixed", nullptr));
  CHECK(fixed->expected(z) == std::vector<uint64_t>{0x03800C00});
  const uint64_t want[] = {0x03800C00}, got[] = {0x03800000};
  CHECK(fixed->classify(z, want, got) == "zero-rule:operand-min");
  // A difference no zero rule explains is not called one.
  const uint64_t other[] = {0x03800400};
  CHECK(fixed->classify(z, want, other) != "zero-rule:operand-min");

  CHECK_THROWS_AS(
      vec::make_op(mma_header("sm90_wgmma_fp8_f32", "none", nullptr)),
      std::invalid_argument);
  CHECK_THROWS_AS(
      vec::make_op(mma_header("sm90_wgmma_fp8_f32", nullptr, "neg")),
      std::invalid_argument);
}

TEST_CASE(
    "TF32 operands in vectors are f32 patterns with the low 13 bits "
    "zero",
    "[vectors][tf32]") {
  vec::Header h;
  h.kv["op"] = "mma";
  h.kv["model"] = "sm90_wgmma_tf32_f32";
  h.kv["a-fmt"] = "tf32";
  h.kv["b-fmt"] = "tf32";
  const auto op = vec::make_op(h);
  REQUIRE(op->inputs().front().width == 8);
  for (size_t i = 0; i < 200; ++i) {
    const auto c = op->make_case(i);
    for (size_t k = 0; k < 16; ++k) CHECK((c[k] & 0x1FFF) == 0);
  }
  // 1.0 x 1.0 (0x3F800000 each) + 0 = 1.0: the pattern is read once.
  std::vector<uint64_t> in(16, 0);
  in[0] = in[8] = 0x3F800000;
  in.push_back(0);
  CHECK(op->expected(in) == std::vector<uint64_t>{0x3F800000});
}
