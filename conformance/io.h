// The one I/O layer every mxc command reads and writes through, so that no
// data is lost without an error (docs/gate.md):
//  - Output: stdout or a named file; every write is checked, close() flushes
//    and throws OutputError naming the path; reports are written atomically
//    (temp file + rename) so a failed run never leaves a truncated report.
//  - LineReader: one text line at a time, capped at kMaxLineBytes (the same
//    limit the generator refuses to exceed), read errors are errors, not
//    end of input.
//  - quote(): a short, escaped prefix of an offending token for messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mxc::io {

// Longest text line any mxc reader accepts and any mxc writer produces
// (vector files, results, convert/quantize/mma input).
inline constexpr size_t kMaxLineBytes = 1 << 20;

// A problem with an input: where (file:line), and what.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, long line, const std::string& what)
      : std::runtime_error(file + ":" + std::to_string(line) + ": " + what),
        file_(file),
        line_(line) {}
  const std::string& file() const { return file_; }
  long line() const { return line_; }

 private:
  std::string file_;
  long line_;
};

// Output that could not be stored (disk full, unwritable path, ...).
class OutputError : public std::runtime_error {
 public:
  OutputError(const std::string& path, const std::string& what)
      : std::runtime_error("cannot write " + path + ": " + what), path_(path) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// "-" or "" is stdout. kAtomic writes PATH.tmp-XXXXXX beside PATH and
// renames it over PATH on close() (only for regular files or new paths;
// devices and pipes are written in place).
class Output {
 public:
  enum Mode { kDirect, kAtomic };
  explicit Output(const std::string& path, Mode mode = kDirect);
  ~Output();  // without close(): removes the temp file, reports nothing
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  std::ostream& stream() { return *os_; }
  void write(std::string_view s);
  // Throws OutputError if any write so far failed.
  void check();
  // Flush, close, rename (kAtomic); throws OutputError on any failure.
  void close();
  const std::string& name() const { return name_; }

 private:
  std::string path_, name_, tmp_;
  std::unique_ptr<std::ofstream> file_;
  std::ostream* os_;
  bool closed_ = false;
};

// Writes a whole report file atomically; throws OutputError.
void write_file_atomic(const std::string& path, std::string_view content);

// Flushes std::cout and stdout and throws OutputError("<stdout>") if any
// write to them failed. main() calls it before returning.
void finish_stdout();

// Reads text lines of at most max_bytes (without the '\n'; a trailing '\r'
// is kept). Throws InputError for an over-long line or a read error.
class LineReader {
 public:
  LineReader(std::istream& in, std::string name,
             size_t max_bytes = kMaxLineBytes);
  bool next(std::string& line);
  long line() const { return line_; }
  const std::string& name() const { return name_; }

 private:
  std::istream& in_;
  std::string name_;
  size_t max_;
  long line_ = 0;
};

// Strict unsigned decimal: digits only (no sign, spaces or trailing text),
// at most UINT64_MAX; nullopt otherwise.
std::optional<uint64_t> parse_unsigned(std::string_view s);

// At most max_chars of s in single quotes, control and non-ASCII bytes as
// \xNN, "...(N bytes)" when cut: safe to print in any error message.
std::string quote(std::string_view s, size_t max_chars = 40);

}  // namespace mxc::io
