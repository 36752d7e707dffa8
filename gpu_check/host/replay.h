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
  // Shard i of n (mxc-gpu run --shard i/n): the level cases with index
  // i, i+n, i+2n, ... (as mxc gen --shard), the sweep's cases (convert) or
  // tiles (MMA) likewise; case indices in reports stay those of the whole
  // run, so n shards together are exactly one unsharded run.
  uint64_t shard_index = 0, shard_count = 1;
  // Called before each device call with the index of its first case (the
  // runner's watchdog and error messages use it).
  std::function<void(uint64_t)> progress;
  // mxc-gpu run --capture: every case replayed is written here as one
  // vector-file line whose results are the DEVICE's (all fields, in the
  // order the report counts them), so the file is a hardware capture that
  // `mxc verify --hand-picked --vectors FILE` checks on the CPU; at most
  // `max` lines (the first cases in replay order). Null: nothing written.
  struct CaptureSink {
    std::ostream* out = nullptr;
    uint64_t max = UINT64_MAX;
    uint64_t written = 0;
  };
  CaptureSink* capture = nullptr;
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

// cuBLASLt families (host/gemm_replay.cpp): random problems (several
// M/N/K per family, the layout and format its header names) run through the
// backend and compared element by element with the composed GEMM model of
// the device's architecture (emu/mma/gemm.h), bit-exactly or under the
// documented bound the family's `compare` key names. Returns false with a
// reason when the family has no model on this compute capability or the
// library refuses every problem ("not supported by this library/GPU: ...").
bool replay_gemm(Backend& b, const Family& f, int cc, const ReplayOptions& o,
                 vec::Report& r, std::string& why);

// The cuBLASLt formats gpu_check drives (names as GemmCase::format).
struct GemmFormat {
  std::string_view name;  // "mxfp8", "nvfp4", "fp8-tensor", ...
  Fmt elem;               // A and B element format
  Fmt scale;              // kE8M0 / kUE4M3 block scales; kF32 (other modes)
  int block;              // K elements per scale (0: one tensor scale)
  bool blk2d_a, blk2d_b;  // BLK128x128_32F (one scale per 128x128 tile)
};
const GemmFormat* gemm_format(std::string_view name);
// The model a cuBLASLt format is compared with on compute capability cc
// (nullptr: none). For the Hopper block-scaling modes: the FP8 instruction
// model that bounds the tensor-core partial sums.
const MmaModel* gemm_model(std::string_view format, int cc);
const MmaModel* gemm_model(const Family& f, int cc);

// The problem of size M x N x K a family runs (seeded; exposed for tests).
GemmCase make_gemm_case(const Family& f, int M, int N, int K, uint64_t seed);

// What the library is given: stored operands (FP4 packed two per byte, low
// nibble first, in storage order) and the scale tensors in the library's
// layout (1D block scales: the 128x4 tiles of emu/block/swizzle.h indexed by
// (row or column of op(A)/op(B), k-block) for every transpose; FP32 modes:
// [k-block][row] with rows contiguous; tensor scale: one f32).
struct GemmImages {
  std::vector<uint8_t> a, b, sa, sb;
};
GemmImages gemm_images(const GemmCase& c);

// How a library (or a fault) might read the images: the problem it then
// computes. The replay uses these to classify mismatches; the fake backend
// to inject faults.
enum class GemmReading : uint8_t {
  kAsIs,           // as documented (round trip of gemm_images)
  kTransposedA,    // A read with the other transpose
  kScalesSwapped,  // A's scale of row m taken from B's (row m % N) and back
  kScalesPlain,    // 128x4 tiles read as plain [row][k-block]
  kAlphaIgnored,   // alpha taken as 1
};
GemmCase gemm_reading(const GemmCase& c, GemmReading how);

// D of the composed model for a (1D-scaled or tensor-scaled) case, alpha
// applied as one f32 round-to-nearest-even multiply of the model's f32 D.
std::vector<uint64_t> gemm_model_d(const MmaModel& m, const GemmCase& c);
// Exact value of element (row, col) (long double; every term is exact and
// the sum's error is below 2^-60 of sum|terms|) and sum|terms|, alpha
// included.
struct ExactElement {
  long double value = 0, abs_sum = 0;
};
ExactElement gemm_exact(const GemmCase& c, int row, int col);
// The coefficient c of the documented bound |d - ref| <= c * sum|terms| +
// K * 2^-126 (docs/gpu-check.md, cuBLASLt): `any_algorithm` bounds a device
// D that may split K (vs the composed model); otherwise the Hopper block
// modes (tensor-core partial sums per 128 k, FP32 promotion, vs exact).
double gemm_bound(const MmaModel& m, int K, bool any_algorithm);
// Units in the last place between two f32 encodings (across zero too).
uint64_t f32_ulp_distance(uint32_t a, uint32_t b);

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
