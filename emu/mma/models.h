// The instruction table: each NVIDIA tensor-core and AMD matrix-core (MFMA)
// instruction (and output type) as a named FDPA model with its parameters,
// their sources and the evidence for them (docs/models.md keeps the
// per-parameter sources; its evidence table is checked against this one by
// tests/models_doc_test.sh).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "emu/mma/fdpa.h"

namespace mxc {

enum class ScaleKind : uint8_t {
  kNone,
  kUe8m0Block32,   // ST-FDPA, one E8M0 per 32 k (scale_vec::1X)
  kUe8m0Block32x2, // GST, E8M0 per 32 k shared by two 16-groups (2X)
  kUe8m0Block16,   // GST, E8M0 per 16 k (mxf4nvf4 scale_vec::4X, ue8m0)
  kUe4m3Block16,   // GST, UE4M3 per 16 k (NVFP4, scale_vec::4X)
};

// How far a model is confirmed, strongest first (docs/models.md).
enum class EvidenceLevel : uint8_t {
  kCaptures,       // GPU results of this instruction, replayed bit for bit
  kProxyCaptures,  // GPU results of a related instruction (wmma/HMMA) on
                   // the same architecture, replayed bit for bit
  kTwoModels,      // unverified on hardware; MMA-Sim and KM agree
  kOneModel,       // unverified on hardware; one model or our reading
};

struct Evidence {
  EvidenceLevel level;
  int capture_rows;           // GPU rows replayed bit for bit (0: none)
  std::string_view gpus;      // where they were captured ("H100, H200")
  std::string_view captures;  // km-hardware/<model>.* (../shared/oracles),
                              // or the upstream files not in ../shared
};

// "hardware captures", "hardware captures (proxy)", "two models agree",
// "one model".
std::string_view evidence_name(EvidenceLevel e);

struct MmaModel {
  std::string_view name;    // e.g. "sm100_tcgen05_mxf8f6f4"
  std::string_view arch;    // sm89 / sm90 / sm100 / sm120 (NVIDIA),
                            // cdna1 / cdna2 / cdna3 (AMD)
  std::string_view ptx;     // the instruction (PTX, or AMD ISA mnemonics)
  int k;                    // K of one instruction
  std::span<const Fmt> ab_formats;  // element formats A and B may use
  Fmt c_fmt;                // accumulator / D format
  ScaleKind scales;
  FdpaParams fdpa;
  // Operands are first converted exactly to this format (kF64 = no):
  // SM90 mma.sync FP8 runs on the FP16 datapath (cutlass#1986).
  Fmt emulate_as = Fmt::kF64;
  std::string_view source;  // where L, F, rho, e_zero come from
  Evidence evidence;
};

// One line for `mxc models` and mxconform.models(): "hardware captures:
// 10000 rows (Ada)", or "unverified on hardware (two models agree)".
std::string model_status(const MmaModel& m);

std::span<const MmaModel> mma_models();
const MmaModel* find_mma_model(std::string_view name);

// The zero-rule variants by name ("fixed" / "operand-min", "ieee" /
// "positive"), as `mxc mma`, `mxc gen` and vector headers spell them.
std::string_view zero_exp_name(ZeroExp z);
std::string_view zero_sign_name(ZeroSign z);
std::optional<ZeroExp> parse_zero_exp(std::string_view s);
std::optional<ZeroSign> parse_zero_sign(std::string_view s);

// `m` with its zero rules replaced (the name and sources stay).
MmaModel with_zero_rules(const MmaModel& m, ZeroExp e, ZeroSign s);

// Whether `bits` is an A/B operand code of `f` as models take it: the user
// code of emu/codes.h (TF32: an f32 bit pattern whose low 13 bits are zero;
// docs/vector-format.md), which is also what mma_dot takes.
bool operand_code_ok(Fmt f, uint64_t bits);
// Hex digits of one A/B operand of `f` in vector files and `mxc mma` lines.
int operand_hex_digits(Fmt f);

int scale_block(ScaleKind s);
Fmt scale_format(ScaleKind s);

// D = A.B + C for one output element over K = a.size() (a multiple of the
// model's L), as the model's chain of FDPAs in increasing k. Scales hold
// K / scale_block(model.scales) encodings. Returns D in model.c_fmt.
uint64_t mma_dot(const MmaModel& m, Fmt a_fmt, Fmt b_fmt,
                 std::span<const uint64_t> a, std::span<const uint64_t> b,
                 uint64_t c, std::span<const uint64_t> sa = {},
                 std::span<const uint64_t> sb = {});

}  // namespace mxc
