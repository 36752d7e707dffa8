#include "conformance/io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace mxc::io {
namespace {

std::string last_error() {
  const int e = errno;
  return e ? std::strerror(e) : "write error";
}

bool is_stdout(const std::string& path) { return path.empty() || path == "-"; }

}  // namespace

Output::Output(const std::string& path, Mode mode)
    : path_(path), name_(is_stdout(path) ? "<stdout>" : path) {
  if (is_stdout(path)) {
    os_ = &std::cout;
    return;
  }
  std::string target = path;
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (mode == kAtomic && (!exists || S_ISREG(st.st_mode))) {
    static std::atomic<unsigned> counter{0};
    tmp_ = path + ".tmp-" + std::to_string(::getpid()) + "-" +
           std::to_string(counter++);
    target = tmp_;
  }
  errno = 0;
  file_ = std::make_unique<std::ofstream>(target, std::ios::binary);
  if (!*file_) {
    const std::string why = last_error();
    tmp_.clear();
    throw OutputError(path, why);
  }
  os_ = file_.get();
}

Output::~Output() {
  if (closed_) return;
  if (file_) file_->close();
  if (!tmp_.empty()) std::remove(tmp_.c_str());
}

void Output::write(std::string_view s) {
  os_->write(s.data(), static_cast<std::streamsize>(s.size()));
  check();
}

void Output::check() {
  if (file_) {
    if (!*file_) throw OutputError(name_, last_error());
    return;
  }
  if (!std::cout || std::ferror(stdout)) {
    throw OutputError(name_, last_error());
  }
}

void Output::close() {
  if (closed_) return;
  closed_ = true;
  if (!file_) {
    finish_stdout();
    return;
  }
  errno = 0;
  file_->flush();
  if (!*file_) {
    const std::string why = last_error();
    file_->close();
    if (!tmp_.empty()) std::remove(tmp_.c_str());
    throw OutputError(name_, why);
  }
  file_->close();
  if (!*file_) {
    const std::string why = last_error();
    if (!tmp_.empty()) std::remove(tmp_.c_str());
    throw OutputError(name_, why);
  }
  if (!tmp_.empty() && std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const std::string why = last_error();
    std::remove(tmp_.c_str());
    throw OutputError(name_, why);
  }
}

void write_file_atomic(const std::string& path, std::string_view content) {
  Output o(path, Output::kAtomic);
  o.write(content);
  o.close();
}

void finish_stdout() {
  errno = 0;
  std::cout.flush();
  const bool bad = !std::cout;
  const int rc = std::fflush(stdout);
  if (bad || rc != 0 || std::ferror(stdout)) {
    throw OutputError("<stdout>", last_error());
  }
}

LineReader::LineReader(std::istream& in, std::string name, size_t max_bytes)
    : in_(in), name_(std::move(name)), max_(max_bytes) {}

bool LineReader::next(std::string& line) {
  line.clear();
  std::streambuf* sb = in_.rdbuf();
  bool any = false;
  errno = 0;
  try {
    for (;;) {
      const int c = sb ? sb->sbumpc() : EOF;
      if (c == std::char_traits<char>::eof()) break;
      any = true;
      if (c == '\n') break;
      if (line.size() >= max_) {
        ++line_;
        throw InputError(name_, line_,
                         "line longer than " + std::to_string(max_) +
                             " bytes (the limit of every mxc reader and "
                             "writer)");
      }
      line.push_back(static_cast<char>(c));
    }
  } catch (const InputError&) {
    throw;
  } catch (const std::exception&) {
    // std::filebuf reports read errors (EISDIR, EIO, ...) by throwing.
    throw InputError(name_, line_ + 1, "read error: " + last_error());
  }
  // std::cin reads through stdio: a read error is EOF with ferror(stdin).
  if (!any && &in_ == &std::cin && std::ferror(stdin)) {
    throw InputError(name_, line_ + 1, "read error: " + last_error());
  }
  if (!any && in_.bad()) {
    throw InputError(name_, line_ + 1, "read error");
  }
  if (!any) return false;
  ++line_;
  return true;
}

std::optional<uint64_t> parse_unsigned(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::string quote(std::string_view s, size_t max_chars) {
  std::string o = "'";
  const size_t n = std::min(s.size(), max_chars);
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c > 0x7E || c == '\'' || c == '\\') {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02X", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  o += '\'';
  if (s.size() > n) o += "...(" + std::to_string(s.size()) + " bytes)";
  return o;
}

}  // namespace mxc::io
