// convert range=FIRST+COUNT (docs/vector-format.md): exactly the COUNT
// consecutive source encodings from FIRST, so slices of an exhaustive sweep
// can be run as shards (docs/scale-out.md); bad ranges are refused.
#include <catch2/catch.hpp>
#include <sstream>
#include <stdexcept>

#include "conformance/vectors/generate.h"
#include "conformance/vectors/op.h"

using namespace mxc::vec;

namespace {

Header convert_header(const std::string& range) {
  Header h;
  h.kv = {{"op", "convert"}, {"from", "f32"},           {"to", "e4m3"},
          {"round", "rne"},  {"overflow", "satfinite"}, {"range", range}};
  return h;
}

}  // namespace

TEST_CASE("range=FIRST+COUNT gives exactly those encodings", "[vectors]") {
  const auto op = make_op(convert_header("3F7FFFFE+5"));
  REQUIRE(op->count() == 5u);
  for (size_t i = 0; i < 5; ++i) CHECK(op->make_case(i)[0] == 0x3F7FFFFEu + i);
  // The last encoding of the space is reachable, one past it is not.
  CHECK(make_op(convert_header("FFFFFFFF+1"))->count() == 1u);
  for (const char* bad : {"FFFFFFFF+2", "0+0", "3F80", "3F80+", "+4", "3F80+x",
                          "G+1", "100000000+1", "0+100000001"}) {
    INFO(bad);
    CHECK_THROWS_AS(make_op(convert_header(bad)), std::invalid_argument);
  }
}

TEST_CASE("range slices shard like any case set", "[vectors]") {
  // Shard 1 of 3 of range 3F800000+7 holds inputs 1, 4 (cases i % 3 == 1).
  std::ostringstream out;
  Header h = convert_header("3F800000+7");
  h.kv["seed"] = "1";
  CHECK(generate(h, Shard{1, 3}, out) == 2u);
  const std::string t = out.str();
  CHECK(t.find("\n3F800001 ") != std::string::npos);
  CHECK(t.find("\n3F800004 ") != std::string::npos);
  CHECK(t.find("\n3F800000 ") == std::string::npos);
  CHECK(t.find("# range=3F800000+7\n") != std::string::npos);
}
