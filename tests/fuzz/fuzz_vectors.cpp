// libFuzzer target for the vector reader, the header and every verify op:
// any bytes must give either a verification report or an InputError
// (file:line), never a crash, a hang or unbounded memory. Built by the
// `fuzz` preset (clang); scripts/test-fuzz runs it.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "conformance/vectors/verify.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string s(reinterpret_cast<const char*>(data), size);
  mxc::vec::VerifyOptions o;
  o.max_errors = 4;
  for (bool sequence : {true, false}) {
    // As a vector file, pipe form (expected results recomputed). Without
    // the sequence check the fuzzer reaches every op's expected/classify.
    o.check_sequence = sequence;
    o.allow = sequence ? std::vector<std::string>{}
                       : std::vector<std::string>{"nan-payload", "ulp=3"};
    try {
      std::istringstream in(s);
      mxc::vec::verify(in, "fuzz", nullptr, "", o);
    } catch (const mxc::vec::InputError&) {
    }
  }
  try {  // as a results file against a fixed small vector file
    o.check_sequence = false;
    std::istringstream v(
        "# mxconform-vectors=1\n# op=convert\n# from=f32\n# to=e2m1\n"
        "# round=rne\n# cases=2\n3F800000 2 00\n40400000 5 01\n");
    std::istringstream r(s);
    mxc::vec::verify(v, "vectors", &r, "fuzz", o);
  } catch (const mxc::vec::InputError&) {
  }
  return 0;
}
