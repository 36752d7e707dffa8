// op=convert: one conversion per case. Fields: the input (and its random
// bits for rs), then the result and TestFloat-style flags.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "conformance/cases.h"
#include "conformance/hex_io.h"
#include "conformance/vectors/op.h"
#include "conformance/vectors/ops_internal.h"
#include "emu/codes.h"
#include "emu/convert.h"

namespace mxc::vec {
namespace {

constexpr uint64_t kInexact = 0x01, kUnderflow = 0x02, kOverflow = 0x04,
                   kInvalid = 0x10;

double value(Fmt f, uint64_t b) { return to_double(unpack(f, b)); }

class ConvertOp : public Op {
 public:
  ConvertOp(const Header& h) : lv_(level_of(h)) {
    const auto from = parse_format(h.get("from"));
    const auto to = parse_format(h.get("to"));
    if (!from || !to) throw std::invalid_argument("convert: bad from/to");
    from_ = *from;
    to_ = *to;
    spec_ = parse_round_spec(h);
    sr_ = spec_.mode == Round::kSR;
    // Structured cases: every encoding of a source up to 16 bits; otherwise
    // inputs near every value and midpoint of the target plus specials.
    InputSet set;
    set.ulps = lv_.level >= 2 ? 8 : 1;
    set.walking = lv_.level >= 1;
    structured_ = conversion_inputs(from_, to_, set);
    random_ = lv_.level == 0 ? 256 : lv_.level == 1 ? 4096 : (1u << 20);
    if (desc(from_).bits <= 16) random_ = 0;  // exhaustive already
    // range=FIRST+COUNT (hex): exactly the COUNT consecutive encodings from
    // FIRST instead (a slice of an exhaustive sweep; docs/vector-format.md).
    if (h.has("range")) {
      const std::string r = h.get("range");
      const auto plus = r.find('+');
      uint64_t first = 0, count = 0;
      size_t used0 = 0, used1 = 0;
      try {
        first = std::stoull(r.substr(0, plus), &used0, 16);
        count = std::stoull(r.substr(plus + 1), &used1, 16);
      } catch (const std::exception&) {
        plus_fail(r);
      }
      // FIRST is a source code (TF32: an f32 bit pattern, emu/codes.h);
      // COUNT counts encodings from it.
      const uint64_t space = uint64_t{1} << desc(from_).bits;
      const auto first_enc = storage_from_code(from_, first);
      if (plus == std::string::npos || used0 != plus ||
          used1 != r.size() - plus - 1 || count == 0 || !first_enc ||
          count > space - *first_enc) {
        plus_fail(r);
      }
      range_first_ = *first_enc;
      range_count_ = count;
      has_range_ = true;
    }
  }
  [[noreturn]] void plus_fail(const std::string& r) const {
    throw std::invalid_argument(fmt::format(
        "convert: range '{}' must be FIRST+COUNT in hex, FIRST a {} code, "
        "within the {} source encodings",
        r, desc(from_).name, uint64_t{1} << desc(from_).bits));
  }
  Header resolved() const override {
    Header h;
    h.kv["round"] = rounding_name(spec_);
    h.kv["overflow"] =
        spec_.overflow == Overflow::kSatFinite ? "satfinite" : "format";
    h.kv["relu"] = spec_.relu ? "1" : "0";
    return h;
  }
  std::vector<Field> inputs() const override {
    std::vector<Field> f = {{"a", hex_digits(from_)}};
    if (sr_) f.push_back({"rbits", 8});
    return f;
  }
  std::vector<Field> results() const override {
    return {{"z", hex_digits(to_)}, {"flags", 2}};
  }
  size_t count() const override {
    return has_range_ ? static_cast<size_t>(range_count_) : structured_.size() + random_;
  }
  std::vector<uint64_t> make_case(size_t i) const override {
    if (has_range_) {
      std::vector<uint64_t> c = {code_from_storage(from_, range_first_ + i)};
      if (sr_) c.push_back(case_random(lv_.seed, i, 1) & 0xFFFFFFFFu);
      return c;
    }
    // Interleave: structured, random, structured, ... then the rest.
    const size_t s = structured_.size(), m = std::min(s, random_);
    uint64_t x;
    size_t ri;
    bool from_random;
    if (i < 2 * m) {
      from_random = i % 2 == 1;
      ri = i / 2;
    } else {
      from_random = s < random_;
      ri = i - m;
    }
    x = from_random ? case_random(lv_.seed, ri, 0) & desc(from_).storage_mask()
                    : structured_[ri];
    std::vector<uint64_t> c = {code_from_storage(from_, x)};
    if (sr_) c.push_back(case_random(lv_.seed, i, 1) & 0xFFFFFFFFu);
    return c;
  }
  // Cases and results hold user codes (emu/codes.h: TF32 as f32 bit
  // patterns); the emulator takes stored encodings.
  std::vector<uint64_t> expected(std::span<const uint64_t> in) const override {
    RoundSpec r = spec_;
    if (sr_) r.rbits = static_cast<uint32_t>(in[1]);
    const uint64_t a = input(in[0]);
    const uint64_t z = convert(from_, to_, a, r);
    return {code_from_storage(to_, z), flags(a, z)};
  }
  std::string classify(std::span<const uint64_t> in,
                       std::span<const uint64_t> want,
                       std::span<const uint64_t> got) const override {
    if (want[0] == got[0]) return "flags";
    const auto w = storage_from_code(to_, want[0]);
    const auto g = storage_from_code(to_, got[0]);
    if (!w || !g) return "other";  // the subject wrote no code of `to`
    RoundSpec r = spec_;
    if (sr_) r.rbits = static_cast<uint32_t>(in[1]);
    return classify_element(from_, to_, r, input(in[0]), *w, *g);
  }
  std::string decode_results(std::span<const uint64_t> r) const override {
    const auto z = storage_from_code(to_, r[0]);
    return fmt::format(
        "{} flags {:02X}",
        z ? describe(to_, *z)
          : fmt::format("not a {} code ({:X})", desc(to_).name, r[0]),
        r[1]);
  }
  std::string accepted(std::span<const uint64_t> /*in*/,
                       std::span<const uint64_t> want,
                       std::span<const uint64_t> got,
                       const std::vector<std::string>& allow) const override {
    // --allow flags: subjects that produce no exception flags.
    if (want[0] == got[0]) {
      for (const auto& a : allow)
        if (a == "flags") return a;
      return "";
    }
    const auto w = storage_from_code(to_, want[0]);
    const auto g = storage_from_code(to_, got[0]);
    if (!w || !g) return "";
    return accept_element(to_, *w, *g, allow);
  }

 private:
  // The stored encoding of the case input `code` (a vector file's `a`).
  uint64_t input(uint64_t code) const {
    const auto s = storage_from_code(from_, code);
    if (!s) {
      throw std::invalid_argument(fmt::format(
          "convert: input {:X} is not a {} code", code, desc(from_).name));
    }
    return *s;
  }

  uint64_t flags(uint64_t a, uint64_t z) const {
    const Unpacked u = unpack(from_, a), v = unpack(to_, z);
    if (u.cls == Class::kNaN) return kInvalid;
    uint64_t f = 0;
    const double x = value(from_, a), y = value(to_, z);
    if (v.cls == Class::kNaN || x != y) f |= kInexact;
    const double mx = value(to_, max_finite_bits(to_, false));
    if (u.cls != Class::kInf && std::isfinite(x) &&
        (v.cls == Class::kInf || v.cls == Class::kNaN ||
         (std::fabs(x) > mx && std::fabs(y) == mx))) {
      f |= kOverflow;
    }
    const FormatDesc& d = desc(to_);
    const double min_normal = std::ldexp(1.0, d.emin());
    if ((f & kInexact) && x != 0 && std::fabs(x) < min_normal &&
        d.specials != Specials::kInt) {
      f |= kUnderflow;
    }
    return f;
  }

  Level lv_;
  bool has_range_ = false;
  uint64_t range_first_ = 0, range_count_ = 0;
  Fmt from_, to_;
  RoundSpec spec_;
  bool sr_;
  std::vector<uint64_t> structured_;
  size_t random_;
};

}  // namespace

std::unique_ptr<Op> make_convert_op(const Header& h) {
  return std::make_unique<ConvertOp>(h);
}

RoundSpec parse_round_spec(const Header& h) {
  const std::string mode = h.get("round", "rne");
  const auto rounding = parse_rounding(mode);
  if (!rounding) {
    throw std::invalid_argument("header: unknown round '" + mode + "'");
  }
  RoundSpec r = *rounding;
  const std::string ov = h.get("overflow", "format");
  if (ov == "satfinite") {
    r.overflow = Overflow::kSatFinite;
  } else if (ov != "format") {
    throw std::invalid_argument("header: overflow must be format|satfinite");
  }
  const std::string relu = h.get("relu", "0");
  if (relu != "0" && relu != "1") {
    throw std::invalid_argument("header: relu must be 0 or 1");
  }
  r.relu = relu == "1";
  return r;
}

std::string describe(Fmt f, uint64_t bits) {
  const Unpacked u = unpack(f, bits);
  std::string v;
  switch (u.cls) {
    case Class::kNaN: v = "NaN"; break;
    case Class::kInf: v = u.sign ? "-Inf" : "+Inf"; break;
    case Class::kZero: v = u.sign ? "-0" : "0"; break;
    default: v = fmt::format("{:.9g}", to_double(u));
  }
  return fmt::format("{} ({} {})", v, desc(f).name, format_hex(f, bits));
}

std::string classify_element(Fmt from, Fmt to, const RoundSpec& spec,
                             uint64_t in, uint64_t want, uint64_t got) {
  const Unpacked w = unpack(to, want), g = unpack(to, got);
  const Unpacked x = unpack(from, in);
  const bool wn = w.cls == Class::kNaN, gn = g.cls == Class::kNaN;
  if (wn && gn) return "nan-payload";
  if (w.cls == Class::kZero && g.cls == Class::kZero) return "sign-of-zero";
  const uint64_t mag_mask = ~desc(to).sign_mask() & desc(to).storage_mask();
  const bool w_max = (want & mag_mask) == max_finite_bits(to, false);
  const bool g_max = (got & mag_mask) == max_finite_bits(to, false);
  const bool w_special = wn || w.cls == Class::kInf;
  const bool g_special = gn || g.cls == Class::kInf;
  if ((w_special && g_max) || (w_max && g_special)) {
    return "saturation-vs-inf-nan";
  }
  if (wn != gn) return "nan-policy";
  if (g.cls == Class::kZero &&
      (w.cls == Class::kSubnormal || x.cls == Class::kSubnormal)) {
    return "subnormal-flush";
  }
  // A tie the subject broke the other way: the input is exactly halfway.
  if (x.cls == Class::kNormal || x.cls == Class::kSubnormal) {
    const double xv = to_double(x), a = to_double(w), b = to_double(g);
    if (std::isfinite(a) && std::isfinite(b) && (a + b) / 2 == xv &&
        std::fabs(a - xv) == std::fabs(b - xv)) {
      return "tie-flip";
    }
  }
  // The result of the other overflow policy, or of another rounding mode?
  RoundSpec r = spec;
  r.overflow = spec.overflow == Overflow::kSatFinite ? Overflow::kFormat
                                                     : Overflow::kSatFinite;
  if (convert(from, to, in, r) == got) return "saturation-vs-inf-nan";
  for (Round m : {Round::kRNE, Round::kRZ, Round::kRU, Round::kRD,
                  Round::kRNA}) {
    if (m == spec.mode) continue;
    r = spec;
    r.mode = m;
    if (convert(from, to, in, r) == got) {
      return "rounding-mode:" + std::string(round_name(m));
    }
  }
  return "other";
}

std::string accept_element(Fmt to, uint64_t want, uint64_t got,
                           const std::vector<std::string>& allow) {
  const Unpacked w = unpack(to, want), g = unpack(to, got);
  for (const std::string& a : allow) {
    if (a == "nan-payload" && w.cls == Class::kNaN && g.cls == Class::kNaN)
      return a;
    if (a == "sign-of-zero" && w.cls == Class::kZero && g.cls == Class::kZero)
      return a;
    if (a.rfind("ulp=", 0) == 0 && w.cls != Class::kNaN &&
        g.cls != Class::kNaN && w.cls != Class::kInf && g.cls != Class::kInf &&
        w.sign == g.sign) {
      // Distance in units in the last place: adjacent encodings of the same
      // sign are one ulp apart (monotone in the magnitude bits).
      const uint64_t mask = desc(to).storage_mask() & ~desc(to).sign_mask();
      const uint64_t a1 = want & mask, b1 = got & mask;
      const uint64_t d = a1 > b1 ? a1 - b1 : b1 - a1;
      if (d <= std::stoull(a.substr(4))) return a;
    }
  }
  return "";
}

}  // namespace mxc::vec
