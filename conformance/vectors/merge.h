// `mxc report merge`: the JSON reports of the shards (and devices) of one
// run combined into one report (docs/scale-out.md).
//
// Every entry must carry its provenance (Report::run: suite, seed, version,
// shard "i/n"; mxc verify and mxc-gpu write it). The merge refuses entries
// of different suites, seeds or versions, or of one case set with different
// shard counts; it detects a shard
// given twice (same shard index, same entry, same device) and shards that
// are missing, so a merge of 7 of 8 shards is never a pass. Entries with
// the same id (the case set: a vector header, or an mxc-gpu family) are
// summed: cases, mismatches, classes, and the first mismatch lines, each
// prefixed with the shard (and device) it came from.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "conformance/vectors/report.h"

namespace mxc::vec {

// A report.json as render_json writes it. Throws InputError (file:entry)
// on anything else.
std::vector<Report> parse_json_report(std::istream& in,
                                      const std::string& name);

struct MergeInput {
  std::string path;
  std::vector<Report> reports;
};

struct MergeResult {
  std::vector<Report> merged;        // one per id, in first-seen order
  std::vector<std::string> errors;   // refusals: nothing should be written
  std::vector<std::string> missing;  // coverage gaps ("shard 3/8", ...)
  size_t shard_count = 0;            // the largest n of the inputs' i/n
  size_t inputs = 0;
  std::vector<std::string> devices;  // distinct devices seen (mxc-gpu)
};

// max_errors: mismatch lines kept per merged entry.
MergeResult merge_reports(const std::vector<MergeInput>& in,
                          size_t max_errors = 20);

// A terminal summary of a merge (totals, shards, devices, gaps).
std::string render_merge_summary(const MergeResult& m);

}  // namespace mxc::vec
