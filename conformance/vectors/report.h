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
};

std::string render_terminal(const Report& r);
std::string render_json(const std::vector<Report>& reports);
std::string render_junit(const std::vector<Report>& reports);

}  // namespace mxc::vec
