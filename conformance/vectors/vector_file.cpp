#include "conformance/vectors/vector_file.h"

#include <fmt/format.h>

#include <stdexcept>

namespace mxc::vec {

std::string Header::get(const std::string& key, const std::string& dflt) const {
  const auto it = kv.find(key);
  return it == kv.end() ? dflt : it->second;
}

int header_int(const Header& h, const std::string& key, int dflt, int lo,
               int hi) {
  if (!h.has(key)) return dflt;
  const std::string v = h.get(key);
  auto bad = [&] {
    return HeaderValueError(
        key, fmt::format("header: {}={} must be an integer in {}..{}", key,
                         io::quote(v), lo, hi));
  };
  size_t i = v.size() > 1 && v[0] == '-' ? 1 : 0;
  if (i == v.size() || v.size() - i > 10) throw bad();
  long long x = 0;
  for (; i < v.size(); ++i) {
    if (v[i] < '0' || v[i] > '9') throw bad();
    x = x * 10 + (v[i] - '0');
  }
  if (v[0] == '-') x = -x;
  if (x < lo || x > hi) throw bad();
  return static_cast<int>(x);
}

const std::vector<std::string>& standard_keys() {
  static const std::vector<std::string> k = {
      "mxconform-vectors", "op",   "spec",  "generator", "seed",
      "prng",              "level", "shard", "cases",     "fields"};
  return k;
}

namespace {

// The generator refuses what the reader would refuse (one set of limits).
void check_header_text(const std::string& k, const std::string& v) {
  const std::string line = "# " + k + "=" + v;
  if (line.size() > kMaxLineBytes) {
    throw std::invalid_argument(fmt::format(
        "header key {}: line longer than {} bytes", io::quote(k), kMaxLineBytes));
  }
  for (unsigned char c : line) {
    if (c < 0x20 || c > 0x7E) {
      throw std::invalid_argument(fmt::format(
          "header {}={}: byte 0x{:02X} is not printable ASCII (a vector file "
          "is plain text, one key per line)",
          io::quote(k), io::quote(v), c));
    }
  }
  if (k.empty() || k.find('=') != std::string::npos) {
    throw std::invalid_argument(
        fmt::format("header key {} is empty or contains '='", io::quote(k)));
  }
}

}  // namespace

std::string write_header(const Header& h) {
  if (h.kv.size() > kMaxHeaderKeys) {
    throw std::invalid_argument(
        fmt::format("more than {} header keys", kMaxHeaderKeys));
  }
  for (const auto& [k, v] : h.kv) check_header_text(k, v);
  std::string out;
  for (const auto& k : standard_keys()) {
    if (h.has(k)) out += fmt::format("# {}={}\n", k, h.get(k));
  }
  for (const auto& [k, v] : h.kv) {
    bool standard = false;
    for (const auto& s : standard_keys()) standard |= s == k;
    if (!standard) out += fmt::format("# {}={}\n", k, v);
  }
  return out;
}

Reader::Reader(std::istream& in, std::string name)
    : lines_(in, name), name_(std::move(name)) {}

void Reader::fail(const std::string& what) const {
  throw InputError(name_, lines_.line(), what);
}

bool Reader::read_line() {
  if (!lines_.next(line_buf_)) return false;
  if (!line_buf_.empty() && line_buf_.back() == '\r') line_buf_.pop_back();
  for (unsigned char ch : line_buf_) {
    if (ch == '\t') continue;
    if (ch < 0x20 || ch > 0x7E) {
      fail(fmt::format("byte 0x{:02X} is not text (binary data?)", ch));
    }
  }
  return true;
}

const Header& Reader::header() {
  if (header_done_) return header_;
  header_done_ = true;
  while (read_line()) {
    if (line_buf_.empty()) continue;
    if (line_buf_[0] != '#') {
      pending_ = true;
      break;
    }
    std::string_view s(line_buf_);
    s.remove_prefix(1);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    if (s.empty()) continue;
    const auto eq = s.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      fail(fmt::format("header line is not key=value: {}",
                       io::quote(line_buf_)));
    }
    const std::string key(s.substr(0, eq));
    if (header_.has(key)) {
      fail(fmt::format("header key {} repeated", io::quote(key)));
    }
    if (key_ok_ && !key_ok_(key)) {
      fail(fmt::format("header key {} is not understood by this mxc",
                       io::quote(key)));
    }
    if (header_.kv.size() >= kMaxHeaderKeys) {
      fail(fmt::format("more than {} header keys", kMaxHeaderKeys));
    }
    header_.kv[key] = std::string(s.substr(eq + 1));
    header_.lines[key] = lines_.line();
  }
  if (header_.has("mxconform-vectors")) {
    const std::string v = header_.get("mxconform-vectors");
    if (v != std::to_string(kFormatVersion)) {
      fail(fmt::format("format version {} is not understood (this mxc reads "
                       "version {})",
                       io::quote(v), kFormatVersion));
    }
  }
  return header_;
}

bool Reader::next(std::vector<std::string_view>& fields) {
  header();
  for (;;) {
    if (pending_) {
      pending_ = false;
    } else if (!read_line()) {
      return false;
    }
    if (line_buf_.empty()) continue;
    if (line_buf_[0] == '#') fail("header line after the first case");
    fields.clear();
    std::string_view s(line_buf_);
    size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
      if (i >= s.size()) break;
      size_t j = i;
      while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
      fields.push_back(s.substr(i, j - i));
      i = j;
    }
    if (!fields.empty()) return true;
  }
}

uint64_t parse_field(const Reader& r, std::string_view f, int width,
                     const char* what) {
  if (static_cast<int>(f.size()) != width) {
    r.fail(fmt::format("{} {} has {} hex digits, expected {}", what,
                       io::quote(f), f.size(), width));
  }
  uint64_t v = 0;
  for (char c : f) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;  // accepted on input; always written upper-case
    } else {
      r.fail(fmt::format("{} {}: {} is not a hex digit", what, io::quote(f),
                         io::quote(std::string_view(&c, 1))));
    }
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

std::string hex_field(uint64_t v, int width) {
  return fmt::format("{:0{}X}", v, width);
}

}  // namespace mxc::vec
