// Operations a vector file can hold. Each op knows, from the header alone,
// its field layout, how to enumerate its cases (structured then seeded
// random, interleaved; case i is a pure function of (header, i), so shards
// generate independently), the expected results (the emulator), and how to
// classify a mismatch. docs/vector-format.md lists the ops and fields.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "conformance/vectors/vector_file.h"

namespace mxc::vec {

struct Field {
  std::string name;
  int width;  // hex digits
};

class Op {
 public:
  virtual ~Op() = default;
  virtual std::vector<Field> inputs() const = 0;
  virtual std::vector<Field> results() const = 0;
  virtual size_t count() const = 0;  // cases at the header's level
  virtual std::vector<uint64_t> make_case(size_t i) const = 0;
  virtual std::vector<uint64_t> expected(std::span<const uint64_t> in) const = 0;
  // The mismatch class ("tie-flip", "scale-off-by-one", ...).
  virtual std::string classify(std::span<const uint64_t> in,
                               std::span<const uint64_t> want,
                               std::span<const uint64_t> got) const = 0;
  // Decoded values of a result tuple, for reports ("448 (E4M3 7E)").
  virtual std::string decode_results(std::span<const uint64_t> r) const = 0;
  // Header keys the op resolved from defaults (written by gen so that the
  // header records every choice: round, overflow, packing, ...).
  virtual Header resolved() const = 0;
  // For reports: what differs inside a case whose result is a tuple (a
  // quantized block: each differing element with its index, both codes
  // decoded, "one ulp" where adjacent), or "" (the decoded results say it).
  virtual std::string explain(std::span<const uint64_t> in,
                              std::span<const uint64_t> want,
                              std::span<const uint64_t> got) const;
  // Whether two results of the case `in` differ only in a way `allow`
  // accepts; returns the accepted variation's name or "".
  virtual std::string accepted(std::span<const uint64_t> in,
                               std::span<const uint64_t> want,
                               std::span<const uint64_t> got,
                               const std::vector<std::string>& allow) const;
};

// Builds the op a header describes (for gen: the header gen will write).
// Throws std::invalid_argument naming the bad or missing key.
std::unique_ptr<Op> make_op(const Header& h);

// The op names and their header keys, for --help and docs.
std::string op_help();

// Seeded random word k of case i: SplitMix64 over (seed, i, k).
uint64_t case_random(uint64_t seed, uint64_t i, uint64_t k);

// Level-dependent sizes shared by the ops.
struct Level {
  int level;
  uint64_t seed;
};
Level level_of(const Header& h);

}  // namespace mxc::vec
