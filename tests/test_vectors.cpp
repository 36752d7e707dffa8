// The golden-vector format: the committed corpus regenerates byte for byte
// from each file's own header (and matches its MANIFEST sha256, written by
// coreutils sha256sum); malformed files fail with file:line; the verifier
// catches and classifies injected faults.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/sha256.h"
#include "conformance/vectors/generate.h"
#include "conformance/vectors/op.h"
#include "conformance/vectors/verify.h"

using namespace mxc;
using namespace mxc::vec;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const std::string kDir = MXC_SOURCE_DIR "/vectors/";

std::string gen_text(const std::string& header_text) {
  std::istringstream in(header_text);
  Reader r(in, "test");
  Header h = r.header();
  Shard s;
  std::sscanf(h.get("shard", "0/1").c_str(), "%zu/%zu", &s.index, &s.count);
  std::ostringstream out;
  generate(h, s, out);
  return out.str();
}

Report verify_text(const std::string& vectors, const std::string* results,
                   std::vector<std::string> allow = {}) {
  std::istringstream v(vectors);
  std::istringstream r(results ? *results : "");
  VerifyOptions o;
  o.allow = std::move(allow);
  o.check_sequence = false;  // hand-picked cases (cases= is still enforced)
  return verify(v, "vectors", results ? &r : nullptr, "results", o);
}

}  // namespace

TEST_CASE("SHA-256 known answers (FIPS 180-4 examples)", "[vectors]") {
  CHECK(sha256_hex("abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("") ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("the committed corpus regenerates byte for byte", "[vectors]") {
  std::istringstream manifest(slurp(kDir + "MANIFEST"));
  std::string sha, file;
  size_t cases = 0, files = 0;
  while (manifest >> sha >> cases >> file) {
    INFO(file);
    const std::string text = slurp(kDir + file);
    REQUIRE(!text.empty());
    CHECK(sha256_hex(text) == sha);
    CHECK(gen_text(text) == text);
    ++files;
  }
  CHECK(files >= 20);
}

TEST_CASE("shards together are exactly one run", "[vectors]") {
  const std::string h =
      "# mxconform-vectors=1\n# op=convert\n# from=f32\n# to=e2m1\n"
      "# round=rne\n# level=0\n# seed=5\n";
  std::istringstream in(h);
  Reader r(in, "h");
  const Header hd = r.header();
  std::ostringstream whole;
  generate(hd, Shard{0, 1}, whole);
  std::vector<std::string> lines_whole, lines_shards;
  {
    std::istringstream s(whole.str());
    std::string l;
    while (std::getline(s, l)) if (l[0] != '#') lines_whole.push_back(l);
  }
  for (size_t i = 0; i < 3; ++i) {
    std::ostringstream part;
    generate(hd, Shard{i, 3}, part);
    std::istringstream s(part.str());
    std::string l;
    while (std::getline(s, l)) if (l[0] != '#') lines_shards.push_back(l);
  }
  std::sort(lines_whole.begin(), lines_whole.end());
  std::sort(lines_shards.begin(), lines_shards.end());
  CHECK(lines_whole == lines_shards);
}

TEST_CASE("malformed input fails with file:line", "[vectors][robustness]") {
  const std::string good =
      "# mxconform-vectors=1\n# op=convert\n# from=f32\n# to=e4m3\n"
      "# round=rne\n# level=0\n# cases=1\n43E80000 7E 01\n";
  auto error_of = [](const std::string& v, const std::string* r = nullptr) {
    try {
      verify_text(v, r);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of(good) == "no error");
  CHECK(error_of("") .find("vectors:0: no header") == 0);
  CHECK(error_of(good + "43E8000 7E 01\n").find("vectors:9: a '43E8000' has 7") == 0);
  CHECK(error_of(good + "43E80000 7E\n").find("vectors:9: 2 fields, expected 3") == 0);
  CHECK(error_of(good + "43E8000G 7E 01\n").find("vectors:9:") == 0);
  CHECK(error_of(good + std::string("43E8\x01\x02 7E 01\n")).find("not text") != std::string::npos);
  CHECK(error_of("# mxconform-vectors=2\n# op=convert\n").find("version '2'") != std::string::npos);
  CHECK(error_of("# mxconform-vectors=1\n# op=convert\n# from=f32\n# to=e4m3\n# colour=blue\n")
            .find("vectors:5: header key 'colour'") == 0);
  CHECK(error_of("# mxconform-vectors=1\n# op=frobnicate\n").find("unknown op") != std::string::npos);
  CHECK(error_of("# mxconform-vectors=1\n# op=convert\n# from=f32\n# to=e4m3\n# to=e5m2\n")
            .find("repeated") != std::string::npos);
  std::string huge = good + std::string(2 << 20, 'A') + "\n";
  CHECK(error_of(huge).find("longer than") != std::string::npos);
  const std::string short_results = "";
  CHECK(error_of(good, &short_results).find("results end early") != std::string::npos);
  const std::string wrong_hdr = "# mxconform-vectors=1\n# to=e5m2\n7E 01\n";
  CHECK(error_of(good, &wrong_hdr).find("contradicts") != std::string::npos);
  // Integer header keys are parsed whole (std::stoi took "32x" as 32), range
  // checked, and the error names the key and its own line.
  const std::string mma =
      "# mxconform-vectors=1\n# op=mma\n# model=sm89_mma_fp8_f32\n"
      "# a-fmt=e4m3\n# b-fmt=e4m3\n";
  for (const char* k :
       {"32x", "3 2", " 32", "+32", "0x20", "", "-", "32.0", "99999999999"}) {
    INFO("k=" << k);
    CHECK(error_of(mma + "# k=" + k + "\n# level=0\n# cases=1\n")
              .find("vectors:6: header: k='" + std::string(k) +
                    "' must be an integer in 1..8192") == 0);
  }
  CHECK(error_of(mma + "# k=0\n")
            .find("vectors:6: header: k='0' must be an integer in 1..8192") ==
        0);
  const std::string gemm =
      "# mxconform-vectors=1\n# op=gemm\n# model=sm89_mma_fp8_f32\n"
      "# a-fmt=e4m3\n# b-fmt=e4m3\n";
  CHECK(error_of(gemm + "# m=4\n# n=2x\n")
            .find("vectors:7: header: n='2x' must be an integer in 1..64") ==
        0);
  CHECK(error_of(gemm + "# m=65\n")
            .find("vectors:6: header: m='65' must be an integer in 1..64") ==
        0);
  CHECK(error_of(gemm + "# split-k=1;\n")
            .find("vectors:6: header: split-k='1;' must be an integer") == 0);
  CHECK(
      error_of("# mxconform-vectors=1\n# op=mx-quantize\n# profile=ocp-v1\n# "
               "block=32x\n")
          .find(
              "vectors:4: header: block='32x' must be an integer in 1..4096") ==
      0);
}

TEST_CASE("the verifier classifies injected faults", "[vectors][classify]") {
  // 400 (0x43C80000) ties E4M3 384 (1.100 x 2^8, 0x7C) and 416 (1.101,
  // 0x7D): RNE gives the even 384; answering 416 is a tie flip.
  const std::string hdr =
      "# mxconform-vectors=1\n# op=convert\n# from=f32\n# to=e4m3\n"
      "# round=rne\n# overflow=satfinite\n# level=0\n# cases=1\n";
  auto one = [&](const std::string& in, const std::string& got) {
    return verify_text(hdr + in + " " + got + "\n", nullptr);
  };
  // Pipe form: the line carries the observed result; expected recomputed.
  Report r = one("43C80000", "7D 01");  // 400 -> 416 instead of 384 (0x7C)
  CHECK(r.mismatches == 1);
  CHECK(r.by_class.count("tie-flip") == 1);
  r = one("7FC00000", "7E 10");  // NaN saturated instead of NaN
  CHECK(r.by_class.count("saturation-vs-inf-nan") == 1);
  r = one("80000000", "00 00");  // -0 -> +0
  CHECK(r.by_class.count("sign-of-zero") == 1);
  r = verify_text(hdr + "80000000 00 00\n", nullptr, {"sign-of-zero"});
  CHECK(r.mismatches == 0);
  CHECK(r.accepted_by.count("sign-of-zero") == 1);
  r = one("3B000000", "00 03");  // 2^-9 (E4M3 subnormal 0x01) flushed to 0
  CHECK(r.by_class.count("subnormal-flush") == 1);
  r = one("3F880000", "39 01");  // 1.0625 -> RNE 1.0 (0x38); 0x39 = 1.125
  CHECK(r.by_class.count("tie-flip") == 1);  // and it is a tie: 1.0/1.125
  r = one("3F8C0000", "38 01");  // 1.09375 -> RNE 1.125 (0x39); 0x38 is RZ
  CHECK(r.by_class.count("rounding-mode:rz") == 1);
}

TEST_CASE("quantize ops accept what --allow names, per block",
          "[vectors][classify]") {
  auto op_of = [](std::map<std::string, std::string> kv) {
    Header h;
    h.kv = std::move(kv);
    return make_op(h);
  };
  const std::vector<std::string> none, nan = {"nan-payload"},
                                       soz = {"sign-of-zero"};
  // MX E4M3: element 0 is +0; -0 is a sign-of-zero variation.
  auto mx = op_of({{"op", "mx-quantize"}, {"profile", "ocp-v1"},
                   {"elem", "e4m3"}, {"block", "32"}});
  std::vector<uint64_t> in(32, 0);
  in[1] = 0x3F800000;  // 1.0
  const auto want = mx->expected(in);
  auto got = want;
  REQUIRE(want[1] == 0x00);
  got[1] = 0x80;
  CHECK(mx->accepted(in, want, got, none).empty());
  CHECK(mx->accepted(in, want, got, soz) == "sign-of-zero");
  CHECK(mx->accepted(in, want, got, nan).empty());
  got[2] ^= 1;  // and one more element differs: not accepted
  CHECK(mx->accepted(in, want, got, soz).empty());
  // A NaN element written with the other sign (torchao vs OCP).
  got = want;
  got[2] = 0x7F;
  auto want_nan = want;
  want_nan[2] = 0xFF;
  CHECK(mx->accepted(in, want_nan, got, nan) == "nan-payload");

  // NVFP4: UE4M3 scale NaN 0x7F vs 0xFF.
  auto te = op_of({{"op", "nvfp4-quantize"}, {"profile", "te-nvfp4"}});
  std::vector<uint64_t> tin(17, 0x3F800000);
  auto tw = te->expected(tin), tg = tw;
  tw[0] = 0x7F;
  tg[0] = 0xFF;
  CHECK(te->classify(tin, tw, tg) == "scale:nan-payload");
  CHECK(te->accepted(tin, tw, tg, nan) == "nan-payload");
  CHECK(te->accepted(tin, tw, tg, none).empty());
  tg[0] = 0x7E;  // NaN vs 448: a scale mismatch
  CHECK(te->classify(tin, tw, tg) == "scale-off-by-one");
  CHECK(te->accepted(tin, tw, tg, nan).empty());

  // torchao NVFP4, amax 6e-45: the decode scale amax / 2688 is 0, so the
  // zero elements are 0 / 0 inside a block with a finite scale.
  auto ta = op_of({{"op", "nvfp4-quantize"}, {"profile", "torchao-nvfp4"}});
  std::vector<uint64_t> ain(17, 0);
  ain[0] = 4;  // tensor amax 6e-45 (f32 subnormal 4)
  ain[1] = 4;  // x0 = 6e-45: 6e-45 / 0 = Inf, not NaN
  const auto aw = ta->expected(ain);
  auto ag = aw;
  ag[1 + 2] ^= 0x80;  // element 5: the high nibble of byte 2
  CHECK(ta->classify(ain, aw, ag) == "element:nan-input");
  CHECK(ta->accepted(ain, aw, ag, nan) == "nan-payload");
  CHECK(ta->accepted(ain, aw, ag, none).empty());
  ag = aw;
  ag[1] ^= 0x01;  // element 0 (x = 6e-45): not a NaN variation
  CHECK(ta->accepted(ain, aw, ag, nan).empty());
}

TEST_CASE("verify reports the differing elements of a quantized block",
          "[vectors][classify]") {
  Header h;
  h.kv = {{"op", "mx-quantize"}, {"profile", "ocp-v1"}, {"elem", "e4m3"},
          {"block", "32"}};
  const auto op = make_op(h);
  std::vector<uint64_t> in(32, 0x3F800000);  // 1.0
  in[13] = 0x40400000;                       // 3.0
  const auto want = op->expected(in);
  auto got = want;
  // Scale 2^-7 (ocp-v1: floor(log2 3) - 8), so 3.0 is element code 384
  // (0x7C); one code up is 416.
  got[1 + 13] += 1;
  const std::string e = op->explain(in, want, got);
  INFO(e);
  CHECK(e.find("element 13: expected 384 (e4m3 7C), got 416 (e4m3 7D)") !=
        std::string::npos);
  CHECK(e.find("one ulp apart") != std::string::npos);
  CHECK(e.find("element 0") == std::string::npos);
  got[1 + 13] ^= 0x80;  // opposite signs: not one ulp
  CHECK(op->explain(in, want, got).find("one ulp") == std::string::npos);
  CHECK(op->explain(in, want, want).empty());
}
