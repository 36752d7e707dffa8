// XML/SVG text escaping shared by the JUnit reports and the study plots.
#pragma once

#include <string>
#include <string_view>

namespace mxc {

inline std::string xml_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

}  // namespace mxc
