// Replaying a family on a backend and comparing with the emulator: the
// same cases `mxc gen` writes for the family's header (or a vector file's
// cases), the same per-op classification and the same vec::Report that
// `mxc verify` produces, so render_json / render_junit apply unchanged.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <span>
#include <string>
#include <vector>

#include "conformance/vectors/op.h"
#include "conformance/vectors/report.h"
#include "gpu_check/host/backend.h"

namespace mxc::gpu {

struct ReplayOptions {
  int level = 1;
  uint64_t seed = 1;
  std::vector<std::string> allow;  // as mxc verify --allow
  size_t max_errors = 20;
  size_t batch = size_t{1} << 20;  // cases per device call
  unsigned threads = 0;            // emulator threads (0: hardware)
  // Called before each device call with the index of its first case (the
  // runner's watchdog and error messages use it).
  std::function<void(uint64_t)> progress;
};

// The family's vector header at a level and seed (what `mxc gen` takes).
vec::Header family_header(const Family& f, int level, uint64_t seed);

// The level's cases (generated in memory, identical to the vector file).
vec::Report replay_level(Backend& b, const Family& f, const ReplayOptions& o);
// `count` seeded random cases (a different stream from the level's).
vec::Report replay_sweep(Backend& b, const Family& f, uint64_t count,
                         const ReplayOptions& o);
// The cases of a vector file (its header must describe this family);
// expected results come from the file. Throws vec::InputError.
vec::Report replay_file(Backend& b, const Family& f, std::istream& in,
                        const std::string& name, const ReplayOptions& o);

// cuBLASLt families: random problems (TN, several M/N/K) run through the
// backend and compared element by element with the composed GEMM model of
// the device's architecture (emu/mma/gemm.h). Returns false with a reason
// when the family has no model on this compute capability or the library
// refuses the problem.
bool replay_gemm(Backend& b, const Family& f, int cc, const ReplayOptions& o,
                 vec::Report& r, std::string& why);
// The model a cuBLASLt family is compared with on compute capability cc
// (nullptr: none).
const MmaModel* gemm_model(const Family& f, int cc);

// --- the pieces, exposed for the CPU tests --------------------------------

// Operands of the convert instruction for cases (each {x} or {x, rbits}).
struct ConvertOperands {
  std::vector<uint32_t> in0, in1, rbits;
};
ConvertOperands convert_operands(const Family& f,
                                 std::span<const std::vector<uint64_t>> cases);
// Results of n cases from the instruction's output words. Slots that
// disagree (kRsX4 / kRsX2) give the first slot that differs from slot 0.
std::vector<uint64_t> convert_results(const Family& f,
                                      std::span<const uint32_t> out, size_t n);

// MMA vector cases (A[K] B[K] SA[V] SB[V] C) placed 8 per tile: case j of
// a tile is row j and row j + 8 of A, column j of B, C[j][j] = C[j+8][j].
MmaBatch mma_pack_cases(const Family& f,
                        std::span<const std::vector<uint64_t>> cases);
// D of each case: D[j][j] (or D[j+8][j] where the two differ and D[j][j]
// is the expected value, so a half-tile fault is never hidden).
std::vector<uint64_t> mma_case_results(std::span<const uint32_t> d, size_t n,
                                       std::span<const uint64_t> want);
// Whole tiles: the unpacked operands of tile t and the op case of D[m][n].
std::vector<uint64_t> mma_output_case(const Family& f, const MmaBatch& b,
                                      size_t t, int m, int n);

// Compares one case and adds it to the report (op's classify, plus the
// harness classes: lane-order, scale-a-b-swap, bit-flip:N).
void tally(vec::Report& r, const vec::Op& op, const Family& f,
           std::span<const uint64_t> in, std::span<const uint64_t> want,
           std::span<const uint64_t> got, uint64_t index,
           const ReplayOptions& o, const std::string& harness_class = "");

}  // namespace mxc::gpu
