// XML/SVG text escaping shared by the JUnit reports and the study plots.
// The result is always well-formed XML 1.0 character data: markup characters
// become entities, and every character XML 1.0 forbids (C0 controls other
// than tab/LF/CR, U+FFFE/U+FFFF, surrogates) and every byte that is not
// valid UTF-8 becomes U+FFFD (the replacement character), since XML 1.0
// cannot represent them even as character references.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mxc {

inline std::string xml_escape(std::string_view s) {
  static constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD
  std::string o;
  o.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        default:
          if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            o += kReplacement;
          } else {
            o += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // Multi-byte UTF-8: accept only well-formed, shortest-form sequences.
    const size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    uint32_t cp = len == 4 ? c & 0x07u : len == 3 ? c & 0x0Fu : c & 0x1Fu;
    bool ok = len != 0 && c <= 0xF4 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      ok = (d & 0xC0) == 0x80;
      cp = (cp << 6) | (d & 0x3Fu);
    }
    if (ok) {
      const uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
      ok = cp >= min && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF) &&
           cp != 0xFFFE && cp != 0xFFFF;
    }
    if (ok) {
      o.append(s.substr(i, len));
      i += len;
    } else {
      o += kReplacement;
      ++i;
    }
  }
  return o;
}

}  // namespace mxc
