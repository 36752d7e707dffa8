// FP6/FP4 operands and the K = 64 tcgen05 kinds: the 8-bit register
// container of a sub-byte element in mma.sync m16n8k32 kind::f8f6f4 /
// mxf8f6f4 (PTX ISA 9.7.14.5 "Matrix Fragments for mma.m16n8k32"), the new
// families' architectures, feature bits and models, the runner's skips,
// and a single injected fault caught and classified in each new group.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "emu/mma/models.h"
#include "emu/unpack.h"
#include "gpu_check/host/instr.h"
#include "gpu_check/host/replay.h"
#include "gpu_check/host/runner.h"
#include "gpu_check/tests/fake_backend.h"
#include "gpu_check/tests/family_lookup.h"

using namespace mxc::gpu;
using mxc::gpu::test::FakeBackend;
using mxc::gpu::test::Fault;

namespace {

using mxc::gpu::test::fam;

}  // namespace

TEST_CASE(
    "operand coding: FP4 in bits 5..2, FP6 in bits 5..0 of the 8-bit "
    "container") {
  const auto s = FragShape::kM16N8K32x8;
  const OperandCoding e2m1 = operand_coding(s, "e2m1");
  CHECK(e2m1.shift == 2);
  CHECK(e2m1.mask == 0xF);
  CHECK(encode_operand(e2m1, 0x2) == 0x08);  // +1.0 = e2m3 0b0'01'000
  CHECK(encode_operand(e2m1, 0xF) == 0x3C);  // -6.0 = e2m3 0b1'11'100
  CHECK(decode_operand(e2m1, 0x3C) == 0xF);
  for (const char* f6 : {"e2m3", "e3m2"}) {
    const OperandCoding c = operand_coding(s, f6);
    CHECK(c.shift == 0);
    CHECK(c.mask == 0x3F);
    CHECK(encode_operand(c, 0x3F) == 0x3F);
    CHECK(encode_operand(c, 0xFF) == 0x3F);  // bits 7..6 stay zero
  }
  for (const char* f8 : {"e4m3", "e5m2"}) {
    CHECK(operand_coding(s, f8).shift == 0);
    CHECK(operand_coding(s, f8).mask == 0xFF);
  }
  // m16n8k64 kind::mxf4*: packed e2m1, eight per register.
  CHECK(operand_coding(FragShape::kM16N8K64x4, "e2m1").shift == 0);
  CHECK(operand_coding(FragShape::kM16N8K64x4, "e2m1").mask == 0xF);
}

TEST_CASE("sub-byte mma.sync cases land in their containers and decode back") {
  for (const char* name : {"mma.m16n8k32.kind::f8f6f4.f32.e4m3.e2m1",
                           "mma.m16n8k32.kind::mxf8f6f4.1X.e2m3.e2m3"}) {
    INFO(name);
    const Family& f = fam(name);
    const auto op = mxc::vec::make_op(family_header(f, 1, 1));
    std::vector<std::vector<uint64_t>> cases;
    for (size_t i = 0; i < 8; ++i) cases.push_back(op->make_case(i));
    const MmaBatch b = mma_pack_cases(f, cases);
    REQUIRE(b.tiles == 1);
    const OperandCoding ca = operand_coding(f.shape, f.header.get("a-fmt"));
    const OperandCoding cb = operand_coding(f.shape, f.header.get("b-fmt"));
    // Lane 5 (groupID 1, t 1): a0 byte j = A[1][4 + j], b0 byte j = B[4 + j][1]
    // (PTX ISA m16n8k32 table), each code in its container.
    for (int j = 0; j < 4; ++j) {
      const uint8_t abyte = static_cast<uint8_t>(b.a[5 * 4 + 0] >> (8 * j));
      const uint8_t bbyte = static_cast<uint8_t>(b.b[5 * 2 + 0] >> (8 * j));
      CHECK(abyte ==
            encode_operand(ca, static_cast<uint8_t>(
                                   cases[1][static_cast<size_t>(4 + j)])));
      CHECK(bbyte ==
            encode_operand(cb, static_cast<uint8_t>(
                                   cases[1][static_cast<size_t>(32 + 4 + j)])));
      CHECK((abyte & ~(ca.mask << ca.shift) & 0xFF) == 0);
      CHECK((bbyte & ~(cb.mask << cb.shift) & 0xFF) == 0);
    }
    // The device-side view decodes back to exactly the case (row j, col j).
    for (int j = 0; j < 8; ++j) {
      const auto in = mma_output_case(f, b, 0, j, j);
      const auto& c = cases[static_cast<size_t>(j)];
      CHECK(std::vector<uint64_t>(in.begin(), in.end() - 1) ==
            std::vector<uint64_t>(c.begin(), c.end() - 1));
    }
  }
}

TEST_CASE("new sm_120a sub-byte families: architectures, feature bit, models") {
  int n = 0;
  for (const Family& f : families()) {
    if (f.engine != MmaEngine::kSync || f.kind != FamilyKind::kMma) continue;
    const std::string a = f.header.get("a-fmt"), b = f.header.get("b-fmt");
    const bool sub = a == "e2m1" || a == "e2m3" || a == "e3m2" || b == "e2m1" ||
                     b == "e2m3" || b == "e3m2";
    if (!sub || f.shape != FragShape::kM16N8K32x8) continue;
    ++n;
    INFO(f.name);
    CHECK(f.ccs == std::vector<int>{120, 121});
    CHECK(f.needs == kFeatMmaSm120);
    CHECK(f.header.get("model") ==
          (f.scale_vec ? "sm120_mma_mxf8f6f4" : "sm120_mma_f8f6f4_f32"));
    CHECK(f.instr >= kMmaF8f6f4E2m1E2m1);
    CHECK(f.instr <= kMmaMxf8E4m3E2m1);
    CHECK(f.note.find("container") != std::string::npos);
    const mxc::MmaModel* m = mxc::find_mma_model(f.header.get("model"));
    REQUIRE(m != nullptr);
    CHECK(m->k == 32);
  }
  CHECK(n == 8);
  for (const char* name : {"mma.m16n8k32.kind::f8f6f4.f32.e2m1.e2m1",
                           "mma.m16n8k32.kind::f8f6f4.f32.e2m3.e2m3",
                           "mma.m16n8k32.kind::f8f6f4.f32.e3m2.e3m2",
                           "mma.m16n8k32.kind::f8f6f4.f32.e4m3.e2m1",
                           "mma.m16n8k32.kind::mxf8f6f4.1X.e2m1.e2m1",
                           "mma.m16n8k32.kind::mxf8f6f4.1X.e4m3.e2m1",
                           "tcgen05.mma.kind::f8f6f4.f32.e3m2.e3m2",
                           "tcgen05.mma.kind::mxf8f6f4.1X.e2m1.e2m1",
                           "tcgen05.mma.kind::mxf4.2X.e2m1.e2m1",
                           "tcgen05.mma.kind::mxf4nvf4.2X.e2m1.e2m1",
                           "tcgen05.mma.kind::mxf4nvf4.4X.e2m1.e2m1",
                           "tcgen05.mma.kind::mxf4nvf4.4X.ue8m0.e2m1.e2m1",
                           "tcgen05.mma.kind::f8f6f4.f16.e4m3.e4m3"}) {
    INFO(name);
    CHECK(find_family(name) != nullptr);
  }
  // Family names are unique.
  std::set<std::string> names;
  for (const Family& f : families()) CHECK(names.insert(f.name).second);
}

TEST_CASE("one flipped bit in a new family is caught and classified") {
  for (const char* name : {"mma.m16n8k32.kind::f8f6f4.f32.e2m1.e2m1",
                           "mma.m16n8k32.kind::mxf8f6f4.1X.e3m2.e3m2",
                           "tcgen05.mma.kind::f8f6f4.f32.e4m3.e2m1",
                           "tcgen05.mma.kind::mxf4.2X.e2m1.e2m1",
                           "tcgen05.mma.kind::mxf4nvf4.4X.e2m1.e2m1",
                           "tcgen05.mma.kind::f8f6f4.f16.e5m2.e5m2"}) {
    INFO(name);
    const Family& f = fam(name);
    FakeBackend b;
    b.cc = f.ccs.front();
    b.features = ~0u;
    ReplayOptions o;
    o.level = 0;
    o.batch = size_t{1} << 16;  // one device call: fault_index is per call
    CHECK(replay_level(b, f, o).mismatches == 0);
    // The first level-0 case with a finite expected D (a NaN would be
    // classified nan-policy), and the top mantissa bit: a finite result
    // stays finite and no other model is that far off.
    const auto op = mxc::vec::make_op(family_header(f, 0, 1));
    size_t j = 0;
    const mxc::Fmt d_fmt = f.f16_acc ? mxc::Fmt::kF16 : mxc::Fmt::kF32;
    auto finite = [&](size_t c) {
      const mxc::Class k =
          mxc::unpack(d_fmt, op->expected(op->make_case(c))[0]).cls;
      return k != mxc::Class::kNaN && k != mxc::Class::kInf;
    };
    while (j < op->count() && !finite(j)) ++j;
    REQUIRE(j < op->count());
    b.fault = Fault::kBitFlip;
    b.fault_index = (j / 8) * 128 + (j % 8) * 9;  // D[j%8][j%8] of tile j/8
    b.flip_bit = f.f16_acc ? 9 : 22;
    const auto r = replay_level(b, f, o);
    CHECK(r.mismatches == 1);
    CHECK(r.by_class.count("bit-flip:" + std::to_string(b.flip_bit)) == 1);
    REQUIRE(r.first.size() == 1);
    CHECK(r.first[0].line == static_cast<long>(j));
  }
}

TEST_CASE(
    "swapped block scales of the 2X/4X tcgen05 kinds are classified in a "
    "sweep") {
  const Family& f = fam("tcgen05.mma.kind::mxf4nvf4.2X.e2m1.e2m1");
  FakeBackend b;
  b.cc = 100;
  b.features = ~0u;
  b.fault = Fault::kScaleSwap;
  ReplayOptions o;
  o.level = 0;
  o.batch = 1024;
  const auto r = replay_sweep(b, f, 256, o);
  CHECK(r.mismatches > 0);
  CHECK(r.by_class.count("scale-a-b-swap") == 1);
}

TEST_CASE(
    "runner: the new families are skipped with reasons off their "
    "architecture") {
  auto run_only = [](FakeBackend& b, const std::vector<std::string>& only,
                     const char* dir, std::string& text) {
    RunOptions o;
    o.report_dir = (std::filesystem::temp_directory_path() / dir).string();
    std::filesystem::remove_all(o.report_dir);
    o.only = only;
    o.support_matrix = false;
    std::ostringstream out, err;
    const int rc = run(b, o, out, err);
    text = out.str() + err.str();
    std::ifstream sj(o.report_dir + "/skipped.json");
    return std::pair{rc, nlohmann::json::parse(sj)};
  };
  const std::vector<std::string> only = {"tcgen05.mma.kind::mxf4",
                                         "tcgen05.mma.kind::mxf4nvf4",
                                         "mma.m16n8k32.kind::f8f6f4"};
  {
    FakeBackend b;  // 12.0 with the sm_120a feature bits
    std::string text;
    const auto [rc, s] = run_only(b, only, "mxc_gpu_test_sub120", text);
    INFO(text);
    CHECK(rc == 0);
    CHECK(s.size() == 4u);  // the four K = 64 tcgen05 families
    for (const auto& e : s)
      CHECK(std::string(e["reason"]).find("10.0, 10.3") != std::string::npos);
    CHECK(text.find("mma.m16n8k32.kind::f8f6f4.f32.e2m1.e2m1") !=
          std::string::npos);
  }
  {
    FakeBackend b;
    b.cc = 100;
    b.features = kFeatIntrinsics | kFeatFp8Cvt | kFeatMmaFp8 | kFeatF6F4Cvt |
                 kFeatCvtRs | kFeatTcgen05;
    std::string text;
    const auto [rc, s] = run_only(b, only, "mxc_gpu_test_sub100", text);
    INFO(text);
    CHECK(rc == 0);
    CHECK(s.size() == 8u);  // the eight sm_120a kind::f8f6f4 families
    for (const auto& e : s)
      CHECK(std::string(e["reason"]).find("12.0, 12.1") != std::string::npos);
  }
}
