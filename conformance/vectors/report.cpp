#include "conformance/vectors/report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "conformance/xml_escape.h"

namespace mxc::vec {
std::string render_terminal(const Report& r) {
  std::string o;
  if (!r.first.empty()) {
    o += fmt::format("Errors found in {} ({}):\n", r.file, r.description);
    for (const auto& m : r.first) {
      o += fmt::format("  line {}: [{}] {}\n", m.line, m.cls, m.text);
    }
  }
  o += fmt::format("\n{}: {} ({})\n", r.file, r.op, r.description);
  o += fmt::format("  {:<44} {:>12}\n", "class", "cases");
  o += fmt::format("  {:<44} {:>12}\n", "match (bit-exact)",
                   r.cases - r.mismatches - r.accepted);
  for (const auto& [k, v] : r.accepted_by) {
    o += fmt::format("  {:<44} {:>12}\n", "accepted variation: " + k, v);
  }
  for (const auto& [k, v] : r.by_class) {
    o += fmt::format("  {:<44} {:>12}\n", "MISMATCH " + k, v);
  }
  o += fmt::format("  {} cases, {} mismatches, {} accepted variations: {}\n",
                   r.cases, r.mismatches, r.accepted,
                   r.mismatches ? "FAIL" : "PASS");
  return o;
}

std::string render_json(const std::vector<Report>& reports) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const Report& r : reports) {
    nlohmann::ordered_json e;
    e["file"] = r.file;
    e["op"] = r.op;
    e["description"] = r.description;
    e["cases"] = r.cases;
    e["mismatches"] = r.mismatches;
    e["accepted"] = r.accepted;
    e["by_class"] = r.by_class;
    e["accepted_by"] = r.accepted_by;
    nlohmann::ordered_json f = nlohmann::ordered_json::array();
    for (const auto& m : r.first) {
      f.push_back({{"line", m.line}, {"class", m.cls}, {"text", m.text}});
    }
    e["first_mismatches"] = f;
    e["status"] = r.mismatches ? "fail" : "pass";
    if (!r.run.empty()) e["run"] = r.run;
    j.push_back(e);
  }
  // File names and texts may hold bytes that are not UTF-8: replace them
  // (U+FFFD) rather than throw and leave no report.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_junit(const std::vector<Report>& reports) {
  uint64_t tests = 0, failures = 0;
  std::string body;
  for (const Report& r : reports) {
    const uint64_t t = 1 + r.by_class.size();
    tests += t;
    failures += r.by_class.size();
    body += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">\n",
        xml_escape(r.file), t, r.by_class.size());
    if (!r.run.empty()) {
      body += "    <properties>\n";
      for (const auto& [k, v] : r.run) {
        body += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n",
                            xml_escape(k), xml_escape(v));
      }
      body += "    </properties>\n";
    }
    body += fmt::format(
        "    <testcase classname=\"{}\" name=\"bit-exact ({} cases, {} "
        "accepted variations)\"/>\n",
        xml_escape(r.op), r.cases, r.accepted);
    for (const auto& [k, v] : r.by_class) {
      std::string detail;
      for (const auto& m : r.first) {
        if (m.cls == k) detail += fmt::format("line {}: {}\n", m.line, m.text);
      }
      body += fmt::format(
          "    <testcase classname=\"{}\" name=\"{}\">\n      <failure "
          "message=\"{} mismatches of class {}\">{}</failure>\n    "
          "</testcase>\n",
          xml_escape(r.op), xml_escape(k), v, xml_escape(k),
          xml_escape(detail));
    }
    body += "  </testsuite>\n";
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "
      "name=\"mxconform\" tests=\"{}\" failures=\"{}\">\n{}</testsuites>\n",
      tests, failures, body);
}

}  // namespace mxc::vec
