// Verification of a subject's results against golden vectors (or, in the
// TestFloat pipe, against the emulator recomputing the expected results
// from the header). Streams; memory stays flat.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <string>
#include <vector>

#include "conformance/vectors/report.h"
#include "conformance/vectors/vector_file.h"

namespace mxc::vec {

struct VerifyOptions {
  std::vector<std::string> allow;     // nan-payload, sign-of-zero, ulp=N
  std::vector<std::string> require;   // KEY=VALUE the header must have
  size_t max_errors = 20;             // mismatch lines kept for the report
  std::function<void(uint64_t)> progress;  // called every 2^20 cases
  // The stream is a gen run of its header: cases= must be what the header's
  // op, level and shard define and (with no results stream) case n must be
  // case shard.i + n*shard.n. The CLI always checks; only tests of
  // hand-picked cases turn it off (cases= is enforced either way).
  bool check_sequence = true;
};

// Largest N of --allow ulp=N (encodings are at most 32 bits wide).
inline constexpr uint64_t kMaxAllowUlp = 1ull << 32;

// "" if `allow` is a valid --allow value, else the error message.
std::string allow_error(const std::string& allow);

// Header keys this build understands (standard + every op's).
bool known_header_key(const std::string& key);

// vectors + results: the results stream has one line per case, either the
// result fields alone or whole lines (inputs checked against the vectors).
// results == nullptr: the vectors' lines carry observed results (the pipe,
// or a self-check of a vector file) and the emulator computes the expected.
// Enforces the header's cases= count and (o.check_sequence) the case
// sequence, see VerifyOptions.
// Throws std::invalid_argument for an invalid o.allow value (before reading)
// and InputError (file:line) for malformed or incomplete input.
Report verify(std::istream& vectors, const std::string& vectors_name,
              std::istream* results, const std::string& results_name,
              const VerifyOptions& o);

}  // namespace mxc::vec
