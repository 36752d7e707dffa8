#include "conformance/vectors/generate.h"

#include <fmt/format.h>

#include <span>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "conformance/io.h"
#include "conformance/vectors/op.h"

namespace mxc::vec {

namespace {

std::string field_names(const std::vector<Field>& f) {
  // Runs of equal names collapse: "x[32] scale byte[32]".
  std::string s;
  for (size_t i = 0; i < f.size();) {
    size_t j = i;
    while (j < f.size() && f[j].name == f[i].name) ++j;
    if (!s.empty()) s += ' ';
    s += f[i].name;
    if (j - i > 1) s += fmt::format("[{}]", j - i);
    i = j;
  }
  return s;
}

size_t shard_count(size_t total, const Shard& s) {
  // (no overflow for any count up to 2^64-1)
  return total > s.index ? (total - s.index - 1) / s.count + 1 : 0;
}

}  // namespace

size_t generate(Header h, const Shard& shard, std::ostream& out) {
  if (shard.count == 0 || shard.index >= shard.count) {
    throw std::invalid_argument("shard must be i/n with 0 <= i < n");
  }
  const auto op = make_op(h);
  for (const auto& [k, v] : op->resolved().kv) h.kv[k] = v;
  const auto in = op->inputs(), res = op->results();
  const size_t total = op->count();
  h.kv["mxconform-vectors"] = std::to_string(kFormatVersion);
  h.kv["generator"] = "mxc " MXC_VERSION;
  h.kv["spec"] = "OCP-MX-1.0";
  h.kv["prng"] = "splitmix64";
  h.kv["shard"] = fmt::format("{}/{}", shard.index, shard.count);
  h.kv["cases"] = std::to_string(shard_count(total, shard));  // == cases
  h.kv["fields"] = field_names(in) + " | " + field_names(res);
  // Every case line has the same length; refuse what verify would refuse.
  size_t line_bytes = in.size() + res.size() - 1;
  for (const auto& f : in) line_bytes += static_cast<size_t>(f.width);
  for (const auto& f : res) line_bytes += static_cast<size_t>(f.width);
  if (line_bytes > kMaxLineBytes) {
    throw std::invalid_argument(fmt::format(
        "a case line would be {} bytes, over the {}-byte line limit every "
        "mxc reader enforces (use a smaller k/m/n)",
        line_bytes, kMaxLineBytes));
  }
  out << write_header(h);
  std::string line;
  size_t n = 0;
  const size_t cases = shard_count(total, shard);
  // Case j of the shard is case index + j*count (no wrap-around for any
  // count up to 2^64-1).
  for (size_t j = 0; j < cases; ++j) {
    const size_t i = shard.index + j * shard.count;
    const auto c = op->make_case(i);
    const auto z = op->expected(c);
    line.clear();
    for (size_t k = 0; k < c.size(); ++k) {
      if (k) line += ' ';
      line += hex_field(c[k], in[k].width);
    }
    for (size_t k = 0; k < z.size(); ++k) {
      line += ' ';
      line += hex_field(z[k], res[k].width);
    }
    line += '\n';
    out << line;
    if (!out) break;  // the caller's io::Output::close() names the path
    ++n;
  }
  return n;
}

namespace {

// NPY 1.0 header of a (rows, cols) little-endian uint64 array: magic,
// version, little-endian header length, header padded with spaces and a
// newline so the data starts at a multiple of 64.
std::string npy_header(size_t rows, size_t cols) {
  std::string hdr = fmt::format(
      "{{'descr': '<u8', 'fortran_order': False, 'shape': ({}, {}), }}", rows,
      cols);
  const size_t pre = 10;
  const size_t total = pre + hdr.size() + 1;
  hdr.append((64 - total % 64) % 64, ' ');
  hdr += '\n';
  const auto len = static_cast<uint16_t>(hdr.size());
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(len & 0xFF);
  out += static_cast<char>(len >> 8);
  return out + hdr;
}

void append_u64(std::string& buf, std::span<const uint64_t> v) {
  for (uint64_t x : v) {
    for (int i = 0; i < 8; ++i) buf += static_cast<char>((x >> (8 * i)) & 0xFF);
  }
}

}  // namespace

// Streams: one case at a time into both arrays (memory stays flat); the
// row count is known up front from the shard.
void export_npy(const Header& h, const Shard& shard, const std::string& prefix) {
  if (shard.count == 0 || shard.index >= shard.count) {
    throw std::invalid_argument("shard must be i/n with 0 <= i < n");
  }
  const auto op = make_op(h);
  const auto in = op->inputs(), res = op->results();
  const size_t rows = shard_count(op->count(), shard);
  io::Output xi(prefix + ".inputs.npy"), xo(prefix + ".expected.npy");
  xi.write(npy_header(rows, in.size()));
  xo.write(npy_header(rows, res.size()));
  std::string bi, bo;
  size_t written = 0;
  for (size_t k = 0; k < rows; ++k) {
    const auto c = op->make_case(shard.index + k * shard.count);
    const auto z = op->expected(c);
    append_u64(bi, c);
    append_u64(bo, z);
    ++written;
    if (bi.size() + bo.size() > (1u << 20)) {
      xi.write(bi);
      xo.write(bo);
      bi.clear();
      bo.clear();
    }
  }
  xi.write(bi);
  xo.write(bo);
  if (written != rows) throw std::logic_error("npy row count");
  xi.close();
  xo.close();
  nlohmann::ordered_json j;
  j["header"] = h.kv;
  std::vector<std::string> a, b;
  for (const auto& f : in) a.push_back(f.name);
  for (const auto& f : res) b.push_back(f.name);
  j["inputs"] = a;
  j["expected"] = b;
  io::write_file_atomic(prefix + ".fields.json", j.dump(2) + "\n");
}

}  // namespace mxc::vec
