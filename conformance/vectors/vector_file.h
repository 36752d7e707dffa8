// The golden-vector text format (docs/vector-format.md is normative): a
// '#' header of key=value lines, then one case per line of upper-case,
// fixed-width hex fields separated by single spaces. Readers stream line by
// line (memory stays flat) and report every problem as file:line.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conformance/io.h"

namespace mxc::vec {

inline constexpr int kFormatVersion = 1;
inline constexpr size_t kMaxLineBytes = io::kMaxLineBytes;  // shared limit
inline constexpr size_t kMaxHeaderKeys = 256;

// A problem with an input file: where (file:line), and what.
using io::InputError;

// Header keys in the order they are written.
struct Header {
  std::map<std::string, std::string> kv;
  // The file line of each key (filled by Reader; empty for headers built in
  // code), so a bad value can be reported as file:line.
  std::map<std::string, long> lines;
  std::string get(const std::string& key, const std::string& dflt = "") const;
  bool has(const std::string& key) const { return kv.count(key) != 0; }
};

// A header value that is not what its key needs. `key` names it so a reader
// of a file can point at that key's line (Header::lines).
class HeaderValueError : public std::invalid_argument {
 public:
  HeaderValueError(std::string key, const std::string& what)
      : std::invalid_argument(what), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

// An integer header key, parsed strictly: the whole value is an optional
// '-' and decimal digits (no spaces, '+', trailing text such as "32x", or
// hex), and lo <= value <= hi; absent: dflt. Throws HeaderValueError
// "header: key=VALUE must be an integer in lo..hi".
int header_int(const Header& h, const std::string& key, int dflt, int lo,
               int hi);

// The keys every file carries, in writing order; op-specific keys follow.
const std::vector<std::string>& standard_keys();
std::string write_header(const Header& h);

// Reads a vector (or results) file: the header, then cases one at a time.
class Reader {
 public:
  Reader(std::istream& in, std::string name);
  // Parses the header; throws InputError on a malformed or missing one.
  // A file with no '#' lines (a bare results file) gives an empty header.
  // Keys are checked as they are read (key_ok, then at most kMaxHeaderKeys),
  // so the error names the offending line and memory stays bounded.
  const Header& header();
  void set_key_check(bool (*key_ok)(const std::string&)) { key_ok_ = key_ok; }
  // Next case as fields (without parsing hex); false at end of file.
  // Throws InputError for binary garbage, over-long lines, bad characters.
  bool next(std::vector<std::string_view>& fields);
  long line() const { return lines_.line(); }
  const std::string& name() const { return name_; }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  bool read_line();
  io::LineReader lines_;
  std::string name_;
  Header header_;
  bool header_done_ = false;
  bool pending_ = false;  // line_buf_ holds the first case line
  std::string line_buf_;
  bool (*key_ok_)(const std::string&) = nullptr;
};

// Parse one fixed-width upper-case hex field; throws via reader.fail().
uint64_t parse_field(const Reader& r, std::string_view f, int width,
                     const char* what);
std::string hex_field(uint64_t v, int width);

}  // namespace mxc::vec
