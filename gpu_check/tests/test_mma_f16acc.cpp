// mma.sync m16n8k32 FP8 with an f16 accumulator (C/D two .f16x2 registers
// per lane): the register layout against CUTLASS's atom, the families
// (architectures, feature bit, models), and replays through the fake
// backend, which sends C and takes D through those registers.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "conformance/vectors/op.h"
#include "emu/mma/models.h"
#include "emu/unpack.h"
#include "gpu_check/host/fragments.h"
#include "gpu_check/host/instr.h"
#include "gpu_check/host/replay.h"
#include "gpu_check/host/runner.h"
#include "gpu_check/tests/fake_backend.h"
#include "gpu_check/tests/family_lookup.h"

using namespace mxc::gpu;
using mxc::gpu::test::FakeBackend;
using mxc::gpu::test::fam;
using mxc::gpu::test::Fault;

namespace {

// CUTLASS v4.7.0-6 (7107b05), written out here from its source, not from
// host/fragments.cpp:
//  - cute/atom/mma_traits_sm89.hpp:96-104: MMA_Traits of
//    SM89_16x8x32_F16E4M3E4M3F16_TN inherit the f32 atom's CLayout,
//    SM80_16x8_Row (mma_traits_sm89.hpp:65), which is
//    Layout<Shape<Shape<_4,_8>,Shape<_2,_2>>, Stride<Stride<_32,_1>,
//    Stride<_16,_8>>> (mma_traits_sm80.hpp:52-54): (thread, value) -> the
//    column-major index m + 16 n of the 16 x 8 tile.
//  - cute/arch/mma_sm89.hpp:180-186: CRegisters = DRegisters = uint32_t[2];
//    mma_unpack (cute/atom/mma_traits.hpp:133-134) recasts the four half_t
//    values to those two registers, so value v is half v % 2 (little
//    endian: v even = low half) of register v / 2.
struct CuteC {
  int m, n, reg, shift;
};
CuteC cute_c(int thread, int value) {
  const int t0 = thread % 4, t1 = thread / 4;
  const int v0 = value % 2, v1 = value / 2;
  const int idx = 32 * t0 + 1 * t1 + 16 * v0 + 8 * v1;
  return {idx % 16, idx / 16, value / 2, 16 * (value % 2)};
}

std::vector<uint32_t> random_f16_tile(uint64_t seed) {
  std::vector<uint32_t> t(128);
  for (size_t i = 0; i < t.size(); ++i)
    t[i] = static_cast<uint32_t>(mxc::vec::case_random(seed, i, 0) & 0xFFFF);
  return t;
}

const char* const kF8[] = {"e4m3", "e5m2"};

}  // namespace

TEST_CASE(
    "f16x2 C/D registers of mma.sync m16n8k32 follow CUTLASS's SM89 f16 atom") {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const std::vector<uint32_t> tile = random_f16_tile(seed);
    const std::vector<uint32_t> regs = pack_c_f16x2(tile);
    REQUIRE(regs.size() == 64u);
    for (int th = 0; th < 32; ++th)
      for (int v = 0; v < 4; ++v) {
        const CuteC c = cute_c(th, v);
        INFO("thread " << th << " value " << v);
        CHECK(((regs[static_cast<size_t>(th * 2 + c.reg)] >> c.shift) &
               0xFFFFu) == tile[static_cast<size_t>(c.m * 8 + c.n)]);
      }
    CHECK(unpack_c_f16x2(regs) == tile);
  }
  // The PTX ISA's own entries (9.7.14.5, m16n8k32 C/D): lane 5 (groupID 1,
  // threadID_in_group 1) holds c0, c1 = D[1][2], D[1][3] in its first
  // .f16x2 register and c2, c3 = D[9][2], D[9][3] in its second.
  std::vector<uint32_t> tile(128, 0);
  tile[1 * 8 + 2] = 0x1111;
  tile[1 * 8 + 3] = 0x2222;
  tile[9 * 8 + 2] = 0x3333;
  tile[9 * 8 + 3] = 0x4444;
  const auto regs = pack_c_f16x2(tile);
  CHECK(regs[5 * 2 + 0] == 0x22221111u);
  CHECK(regs[5 * 2 + 1] == 0x44443333u);
  // Upper bits of a replay C word are not an f16 code: ignored.
  tile.assign(128, 0xABCD0000u);
  for (uint32_t r : pack_c_f16x2(tile)) CHECK(r == 0u);
}

TEST_CASE("f16x2 batch conversion round-trips the replay's C/D words") {
  std::vector<uint32_t> c;
  for (uint64_t t = 0; t < 3; ++t) {
    const auto p = pack_c(random_f16_tile(10 + t));
    c.insert(c.end(), p.begin(), p.end());
  }
  const auto regs = mma_c_to_f16x2(c, 3);
  CHECK(regs.size() == 3u * 64u);
  CHECK(mma_d_from_f16x2(regs, 3) == c);
  // Tile 1's registers are lane-major after tile 0's: CUTLASS value 3 of
  // thread 31 (D[15][7]) is the high half of word 64 + 31 * 2 + 1.
  const auto t1 = unpack_c(std::span(c).subspan(128, 128));
  CHECK((regs[64 + 31 * 2 + 1] >> 16) == t1[15 * 8 + 7]);
  CHECK_THROWS_AS(mma_c_to_f16x2(c, 2), std::invalid_argument);
  CHECK_THROWS_AS(mma_d_from_f16x2(regs, 2), std::invalid_argument);
}

TEST_CASE(
    "mma.sync FP8 f16-accumulator families: names, architectures, gate, "
    "models") {
  struct Want {
    const char* tag;
    const char* model;
    std::vector<int> ccs;
  };
  const Want wants[] = {{"@sm89", "sm89_mma_fp8_f16", {89}},
                        {"@sm90", "sm90_mma_fp8_f16", {90}},
                        {"@sm100", "sm100_mma_fp8_f16", {100, 103}}};
  int n = 0;
  for (int i = 0; i < 4; ++i) {
    const std::string ab = std::string(kF8[i >> 1]) + "." + kF8[i & 1];
    for (const Want& w : wants) {
      const std::string name = "mma.m16n8k32.f16." + ab + w.tag;
      INFO(name);
      const Family& f = fam(name);
      ++n;
      CHECK(f.kind == FamilyKind::kMma);
      CHECK(f.engine == MmaEngine::kSync);
      CHECK(f.f16_acc);
      CHECK(f.scale_vec == 0);
      CHECK(f.shape == FragShape::kM16N8K32x8);
      CHECK(f.ccs == w.ccs);
      // PTX ISA 8.7+ (ptxas 13.0 refuses .version 8.6), sm_89+: its own bit.
      CHECK(f.needs == kFeatMmaFp8F16);
      CHECK(f.instr == kMmaFp8F16E4E4 + i);
      CHECK(f.ptx == "mma.sync.aligned.m16n8k32.row.col.f16." + ab + ".f16");
      CHECK(f.header.get("model") == w.model);
      CHECK(f.header.get("a-fmt") == kF8[i >> 1]);
      CHECK(f.header.get("b-fmt") == kF8[i & 1]);
      // Run on hardware: sm90 (the H200 device check, 2026-12-04); the
      // others still say they are not.
      CHECK(f.note.find(w.model == std::string("sm90_mma_fp8_f16")
                            ? "H200 device check: pass"
                            : "unverified on hardware") != std::string::npos);
      const mxc::MmaModel* m = mxc::find_mma_model(w.model);
      REQUIRE(m != nullptr);
      CHECK(m->k == 32);
      // The vector header's C/D are f16 codes (16-bit fields).
      const auto op = mxc::vec::make_op(family_header(f, 0, 1));
      const auto c = op->make_case(0);
      const auto d = op->expected(c);
      CHECK(d[0] <= 0xFFFFu);
    }
  }
  CHECK(n == 12);
  std::set<std::string> names;
  for (const Family& f : families()) CHECK(names.insert(f.name).second);
  // --only mma.m16n8k32.f16 selects exactly these twelve.
  int sel = 0;
  for (const Family& f : families())
    sel += family_matches(f, "mma.m16n8k32.f16");
  CHECK(sel == 12);
}

TEST_CASE(
    "f16-accumulator mma.sync replays clean and a flipped bit is caught") {
  for (const char* name :
       {"mma.m16n8k32.f16.e4m3.e4m3@sm89", "mma.m16n8k32.f16.e5m2.e4m3@sm90",
        "mma.m16n8k32.f16.e4m3.e5m2@sm100"}) {
    INFO(name);
    const Family& f = fam(name);
    FakeBackend b;
    b.cc = f.ccs.front();
    b.features = ~0u;
    ReplayOptions o;
    o.level = 0;
    o.batch = size_t{1} << 16;  // one device call: fault_index is per call
    const auto clean = replay_level(b, f, o);
    CHECK(clean.mismatches == 0);
    CHECK(clean.cases > 0);
    CHECK(replay_sweep(b, f, 512, o).mismatches == 0);
    const auto op = mxc::vec::make_op(family_header(f, 0, 1));
    auto finite = [&](size_t c) {
      const mxc::Class k =
          mxc::unpack(mxc::Fmt::kF16, op->expected(op->make_case(c))[0]).cls;
      return k != mxc::Class::kNaN && k != mxc::Class::kInf;
    };
    size_t j = 0;
    while (j < op->count() && !finite(j)) ++j;
    REQUIRE(j < op->count());
    b.fault = Fault::kBitFlip;
    b.fault_index = (j / 8) * 128 + (j % 8) * 9;  // D[j%8][j%8] of tile j/8
    b.flip_bit = 9;                               // the top f16 mantissa bit
    const auto r = replay_level(b, f, o);
    CHECK(r.mismatches == 1);
    CHECK(r.by_class.count("bit-flip:9") == 1);
    REQUIRE(r.first.size() == 1);
    CHECK(r.first[0].line == static_cast<long>(j));
  }
}

TEST_CASE(
    "runner: f16-accumulator mma.sync skipped without its feature bit, with "
    "the reason") {
  FakeBackend b;
  b.cc = 90;
  b.features =
      kFeatIntrinsics | kFeatFp8Cvt | kFeatMmaFp8 | kFeatWgmma;  // nvcc < 12.8
  RunOptions o;
  o.report_dir =
      (std::filesystem::temp_directory_path() / "mxc_gpu_test_f16acc").string();
  std::filesystem::remove_all(o.report_dir);
  o.only = {"mma.m16n8k32.f16"};
  o.support_matrix = false;
  std::ostringstream out, err;
  CHECK(run(b, o, out, err) == 0);
  INFO(out.str() + err.str());
  std::ifstream sj(o.report_dir + "/skipped.json");
  const auto s = nlohmann::json::parse(sj);
  CHECK(s.size() == 12u);
  int feature = 0;
  for (const auto& e : s)
    feature += std::string(e["reason"]).find("feature bits 0x100") !=
               std::string::npos;
  CHECK(feature == 4);  // the @sm90 ones; the others are off their architecture
  // With the bit, the four @sm90 families run and pass.
  b.features |= kFeatMmaFp8F16;
  std::filesystem::remove_all(o.report_dir);
  std::ostringstream out2, err2;
  CHECK(run(b, o, out2, err2) == 0);
  std::ifstream sj2(o.report_dir + "/skipped.json");
  CHECK(nlohmann::json::parse(sj2).size() == 8u);
}
