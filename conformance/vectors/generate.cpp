#include "conformance/vectors/generate.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

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
  return total > s.index ? (total - s.index + s.count - 1) / s.count : 0;
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
  h.kv["generator"] = "mxc 0.1.0";
  h.kv["spec"] = "OCP-MX-1.0";
  h.kv["prng"] = "splitmix64";
  h.kv["shard"] = fmt::format("{}/{}", shard.index, shard.count);
  h.kv["cases"] = std::to_string(shard_count(total, shard));
  h.kv["fields"] = field_names(in) + " | " + field_names(res);
  out << write_header(h);
  std::string line;
  size_t n = 0;
  for (size_t i = shard.index; i < total; i += shard.count) {
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
    ++n;
  }
  return n;
}

namespace {

void write_npy(const std::string& path, const std::vector<uint64_t>& data,
               size_t rows, size_t cols) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write " + path);
  std::string hdr = fmt::format(
      "{{'descr': '<u8', 'fortran_order': False, 'shape': ({}, {}), }}", rows,
      cols);
  // NPY 1.0: magic, version, little-endian header length, header padded
  // with spaces and a newline so the data starts at a multiple of 64.
  const size_t pre = 10;
  size_t total = pre + hdr.size() + 1;
  hdr.append((64 - total % 64) % 64, ' ');
  hdr += '\n';
  const auto len = static_cast<uint16_t>(hdr.size());
  f.write("\x93NUMPY\x01\x00", 8);
  const char l[2] = {static_cast<char>(len & 0xFF), static_cast<char>(len >> 8)};
  f.write(l, 2);
  f.write(hdr.data(), static_cast<std::streamsize>(hdr.size()));
  for (uint64_t v : data) {
    char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
    f.write(b, 8);
  }
}

}  // namespace

void export_npy(const Header& h, const Shard& shard, const std::string& prefix) {
  const auto op = make_op(h);
  const auto in = op->inputs(), res = op->results();
  std::vector<uint64_t> xi, xo;
  size_t rows = 0;
  for (size_t i = shard.index; i < op->count(); i += shard.count) {
    const auto c = op->make_case(i);
    const auto z = op->expected(c);
    xi.insert(xi.end(), c.begin(), c.end());
    xo.insert(xo.end(), z.begin(), z.end());
    ++rows;
  }
  write_npy(prefix + ".inputs.npy", xi, rows, in.size());
  write_npy(prefix + ".expected.npy", xo, rows, res.size());
  nlohmann::ordered_json j;
  j["header"] = h.kv;
  std::vector<std::string> a, b;
  for (const auto& f : in) a.push_back(f.name);
  for (const auto& f : res) b.push_back(f.name);
  j["inputs"] = a;
  j["expected"] = b;
  std::ofstream(prefix + ".fields.json") << j.dump(2) << "\n";
}

}  // namespace mxc::vec
