// Generation of a vector file from its header: the op enumerates its cases
// (case i is a pure function of the header and i), the emulator computes
// the expected results. Shard s of n takes the cases with i % n == s, so n
// shards together are exactly one unsharded run.
#pragma once

#include <ostream>
#include <string>

#include "conformance/vectors/vector_file.h"

namespace mxc::vec {

struct Shard {
  size_t index = 0, count = 1;
};

// Writes header + cases. Fills in the standard keys (format version,
// generator, spec, prng, cases, fields, shard). Throws std::invalid_argument
// for an inconsistent header or a case line over kMaxLineBytes. Stops at the
// first failed write (the caller's io::Output::close() reports it). Returns
// the number of cases written.
size_t generate(Header h, const Shard& shard, std::ostream& out);

// Writes NumPy .npy arrays (uint64, shape [cases, fields]) of the inputs and
// expected results: PREFIX.inputs.npy and PREFIX.expected.npy, plus
// PREFIX.fields.json naming the columns. Streams case by case; throws
// io::OutputError naming the file that could not be written.
void export_npy(const Header& h, const Shard& shard, const std::string& prefix);

}  // namespace mxc::vec
