// Verification results and their three renderings: a terminal table (fmt),
// JSON, and JUnit XML (one testsuite per file, one testcase per mismatch
// class) for CI systems.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mxc::vec {

struct MismatchLine {
  long line;
  std::string cls;
  std::string text;  // "inputs => observed  expected: expected"
};

struct Report {
  std::string file;
  std::string op;
  std::string description;  // header summary
  uint64_t cases = 0;
  uint64_t mismatches = 0;
  uint64_t accepted = 0;
  std::map<std::string, uint64_t> by_class;     // real mismatches
  std::map<std::string, uint64_t> accepted_by;  // allowed variations
  std::vector<MismatchLine> first;
  // Where the report came from, so `mxc report merge` can refuse mixing
  // runs and check shard coverage (docs/scale-out.md): suite, seed,
  // version, shard ("i/n"), and for mxc-gpu device, device_uuid,
  // device_pci. Empty: not recorded (rendered only when present).
  std::map<std::string, std::string> run;
};

std::string render_terminal(const Report& r);
std::string render_json(const std::vector<Report>& reports);
std::string render_junit(const std::vector<Report>& reports);

}  // namespace mxc::vec
