#include "conformance/study/data.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numbers>
#include <stdexcept>

namespace mxc::study {

std::optional<Dist> parse_dist(std::string_view name) {
  for (Dist d : kAllDists)
    if (dist_name(d) == name) return d;
  return std::nullopt;
}

std::string_view dist_name(Dist d) {
  switch (d) {
    case Dist::kGaussian: return "gaussian";
    case Dist::kLaplace: return "laplace";
    case Dist::kStudentT: return "student-t";
    case Dist::kLognormal: return "lognormal";
  }
  return "?";
}

double Sampler::uniform() {
  return (static_cast<double>(g_.next() >> 11) + 0.5) * 0x1p-53;
}

double Sampler::gaussian() {
  if (have_spare_) {
    have_spare_ = false;
    return spare_;
  }
  const double u1 = uniform(), u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double t = 2.0 * std::numbers::pi * u2;
  spare_ = r * std::sin(t);
  have_spare_ = true;
  return r * std::cos(t);
}

double Sampler::draw(Dist d) {
  switch (d) {
    case Dist::kGaussian:
      return gaussian();
    case Dist::kLaplace: {
      const double u = uniform() - 0.5;
      const double m = -std::log(1.0 - 2.0 * std::fabs(u)) / std::numbers::sqrt2;
      return u < 0 ? -m : m;
    }
    case Dist::kStudentT: {
      const double z = gaussian();
      double v = 0;
      for (int i = 0; i < 3; ++i) {
        const double w = gaussian();
        v += w * w;
      }
      return z / std::sqrt(v / 3.0);
    }
    case Dist::kLognormal: {
      const double m = std::exp(gaussian());
      return (g_.next() >> 63) != 0 ? -m : m;
    }
  }
  return 0;
}

std::vector<float> sample(Dist d, size_t n, uint64_t seed) {
  Sampler s(seed);
  std::vector<float> x(n);
  for (auto& v : x) v = static_cast<float>(s.draw(d));
  return x;
}

namespace {

[[noreturn]] void npy_error(const std::string& path, size_t offset,
                            const std::string& what) {
  throw std::runtime_error(fmt::format("{}:{}: error: {}", path, offset, what));
}

// The value of 'key': in the header dict, starting after the colon.
size_t find_key(const std::string& h, std::string_view key) {
  for (const char* q : {"'", "\""}) {
    const std::string k = std::string(q) + std::string(key) + q;
    const size_t p = h.find(k);
    if (p != std::string::npos) {
      const size_t c = h.find(':', p + k.size());
      if (c != std::string::npos) return c + 1;
    }
  }
  return std::string::npos;
}

}  // namespace

void check_input_file(const std::string& path) {
  // A directory opens on Linux and then fails inside the stream buffer
  // ("basic_filebuf::underflow"): name the path and what it is instead.
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st))
    throw std::runtime_error(fmt::format("{}: error: no such file", path));
  if (std::filesystem::is_directory(st)) {
    throw std::runtime_error(
        fmt::format("{}: error: is a directory, not a .npy file", path));
  }
  if (!std::filesystem::is_regular_file(st)) {
    throw std::runtime_error(
        fmt::format("{}: error: not a regular file (a .npy file)", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error(
        fmt::format("{}: error: cannot open: {}", path, std::strerror(errno)));
  }
}

std::vector<float> read_npy_f32(const std::string& path,
                                std::vector<size_t>* shape_out) {
  check_input_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error(
        fmt::format("{}: error: cannot open: {}", path, std::strerror(errno)));
  }
  std::string bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(in),
                 std::istreambuf_iterator<char>());
  } catch (const std::exception& e) {
    throw std::runtime_error(
        fmt::format("{}: error: read error ({})", path, e.what()));
  }
  if (in.bad()) throw std::runtime_error(fmt::format("{}: error: read error", path));
  return parse_npy_f32(bytes, path, shape_out);
}

std::vector<float> parse_npy_f32(const std::string& bytes,
                                 const std::string& path,
                                 std::vector<size_t>* shape_out) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    npy_error(path, 0, "not a .npy file (magic \\x93NUMPY missing)");
  const auto u8 = [&](size_t i) { return static_cast<uint8_t>(bytes[i]); };
  const int major = u8(6);
  size_t header_len = 0, header_at = 0;
  if (major == 1) {
    header_len = u8(8) | (size_t{u8(9)} << 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) npy_error(path, 8, "truncated header length");
    header_len = u8(8) | (size_t{u8(9)} << 8) | (size_t{u8(10)} << 16) |
                 (size_t{u8(11)} << 24);
    header_at = 12;
  } else {
    npy_error(path, 6, fmt::format("unsupported .npy version {}.{}", major,
                                   static_cast<int>(u8(7))));
  }
  if (header_at + header_len > bytes.size())
    npy_error(path, header_at, "header runs past the end of the file");
  const std::string h = bytes.substr(header_at, header_len);

  const size_t d = find_key(h, "descr");
  if (d == std::string::npos) npy_error(path, header_at, "no 'descr' in header");
  const size_t q0 = h.find_first_of("'\"", d);
  const size_t q1 = q0 == std::string::npos ? q0 : h.find(h[q0], q0 + 1);
  if (q1 == std::string::npos) npy_error(path, header_at + d, "bad 'descr'");
  const std::string descr = h.substr(q0 + 1, q1 - q0 - 1);
  if (descr != "<f4")
    npy_error(path, header_at + q0,
              fmt::format("unsupported dtype '{}' (only little-endian float32 "
                          "'<f4' is read; convert with "
                          "a.astype('<f4'))",
                          descr));

  const size_t f = find_key(h, "fortran_order");
  if (f == std::string::npos)
    npy_error(path, header_at, "no 'fortran_order' in header");
  const size_t fv = h.find_first_not_of(' ', f);
  if (fv == std::string::npos)
    npy_error(path, header_at + f, "no value for 'fortran_order'");
  const bool fortran = h.compare(fv, 4, "True") == 0;

  const size_t s = find_key(h, "shape");
  const size_t p0 = s == std::string::npos ? s : h.find('(', s);
  const size_t p1 = p0 == std::string::npos ? p0 : h.find(')', p0);
  if (p1 == std::string::npos) npy_error(path, header_at, "no 'shape' tuple");
  std::vector<size_t> shape;
  {
    size_t i = p0 + 1;
    while (i < p1) {
      while (i < p1 && (h[i] == ' ' || h[i] == ',')) ++i;
      if (i >= p1) break;
      size_t v = 0;
      const size_t start = i;
      while (i < p1 && h[i] >= '0' && h[i] <= '9') {
        if (v > (SIZE_MAX - 9) / 10)
          npy_error(path, header_at + i, "'shape' dimension too large");
        v = v * 10 + static_cast<size_t>(h[i++] - '0');
      }
      if (i == start) npy_error(path, header_at + i, "bad number in 'shape'");
      shape.push_back(v);
    }
  }
  if (shape.empty() || shape.size() > 2)
    npy_error(path, header_at + p0,
              fmt::format("{}-D array: only 1-D and 2-D arrays are read",
                          shape.size()));
  if (fortran && shape.size() == 2 && shape[0] > 1 && shape[1] > 1)
    npy_error(path, header_at + f,
              "Fortran-order 2-D array: save a C-order copy "
              "(np.ascontiguousarray)");
  size_t n = 1;
  for (size_t v : shape) {
    if (v != 0 && n > SIZE_MAX / 4 / v)
      npy_error(path, header_at + p0, "'shape' has too many elements");
    n *= v;
  }
  const size_t data_at = header_at + header_len;
  if (bytes.size() - data_at < n * 4)
    npy_error(path, data_at,
              fmt::format("{} float32 values expected, {} bytes of data", n,
                          bytes.size() - data_at));
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t b = data_at + 4 * i;
    const uint32_t w = u8(b) | (uint32_t{u8(b + 1)} << 8) |
                       (uint32_t{u8(b + 2)} << 16) | (uint32_t{u8(b + 3)} << 24);
    std::memcpy(&x[i], &w, 4);
  }
  if (shape_out) *shape_out = shape;
  return x;
}

}  // namespace mxc::study
