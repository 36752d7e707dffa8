// The replay families: each instruction (or library call) gpu_check runs,
// with the vector header that says what it should compute, the device
// features and compute capabilities it needs, and how cases map onto the
// instruction's operands and results. Plain data: no CUDA here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conformance/vectors/vector_file.h"
#include "gpu_check/host/fragments.h"

namespace mxc::gpu {

enum class FamilyKind : uint8_t { kConvert, kMma, kGemm };

// Which instruction class runs a kMma family's 16x8 replay tiles.
enum class MmaEngine : uint8_t {
  kSync,     // mma.sync: one warp per tile (host/fragments.h)
  kWgmma,    // wgmma.mma_async m64n8k32: one warpgroup per tile (host/wgmma.h)
  kTcgen05,  // tcgen05.mma cta_group::1 M=128 (host/tcgen05.h)
};

// How convert cases map onto one instruction (operands a, b, rbits; result d).
enum class Slots : uint8_t {
  kPairAB,      // two f32 cases: a = case 2j+1, b = case 2j; d = hi:lo
  kPairXY,      // intrinsic float2: .x = case 2j, .y = case 2j+1; d = hi:lo
  kPairPacked,  // one packed source: a = case 2j | case 2j+1 << src_shift
  kSingle,      // one case: a = case; d = result
  kRsX4,        // one case in all four slots, its 8 random bits in every byte
  kRsX2,        // one case in both slots, its low 16 random bits in each half
};

struct Family {
  std::string name;  // --only matches this or a prefix ending at a '.'
  std::string ptx;   // the instruction or intrinsic
  FamilyKind kind;
  int instr;
  vec::Header header;    // op keys only; level and seed come from the run
  unsigned needs;        // Feature bits (host/instr.h)
  std::vector<int> ccs;  // 89, 90, 100, ...: where it runs (empty: any)
  // kConvert
  Slots slots = Slots::kSingle;
  int src_shift = 0;      // kPairPacked: bit position of the second case
  int dst_shift = 0;      // bit position of the second result
  uint32_t dst_mask = 0;  // width of one result
  // kMma
  FragShape shape = FragShape::kM16N8K32x8;
  int scale_vec = 0;  // 0: no block scales; else 1, 2, 4
  MmaEngine engine = MmaEngine::kSync;
  bool f16_acc = false;  // C/D are f16 codes (wgmma .f16 accumulator)
  std::string note;      // what is assumed / unverified
};

const std::vector<Family>& families();
// Appends the cuBLASLt families (host/families_gemm.cpp).
void add_gemm_families(std::vector<Family>& v);
const Family* find_family(const std::string& name);
// --only FILTER: exact name, or the name starts with FILTER followed by '.'
// or '@', or FILTER is a kind ("convert", "mma", "gemm", "cublaslt").
bool family_matches(const Family& f, const std::string& filter);
std::string kind_name(FamilyKind k);

}  // namespace mxc::gpu
