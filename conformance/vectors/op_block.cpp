// op=mx-quantize, op=nvfp4-quantize, op=mx-dot.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "conformance/block_cases.h"
#include "conformance/hex_io.h"
#include "conformance/vectors/op.h"
#include "conformance/vectors/ops_internal.h"
#include "emu/block/dot.h"
#include "emu/block/pack.h"
#include "emu/block/philox.h"
#include "emu/block/quantize.h"
#include "emu/convert.h"

namespace mxc::vec {
namespace {

// Packed bytes of element codes: FP8/INT8 one per byte, FP6 4-in-3 little
// endian bit stream, FP4 element 2i in the low nibble.
std::vector<uint8_t> pack_codes(Fmt elem, const std::vector<uint8_t>& c) {
  if (elem == Fmt::kE2M1) return pack_fp4(c);
  if (elem == Fmt::kE2M3 || elem == Fmt::kE3M2) return pack_fp6(c);
  return c;
}
std::vector<uint8_t> unpack_codes(Fmt elem, std::span<const uint8_t> b,
                                  size_t n) {
  if (elem == Fmt::kE2M1) return unpack_fp4(b, n);
  if (elem == Fmt::kE2M3 || elem == Fmt::kE3M2) return unpack_fp6(b, n);
  return {b.begin(), b.end()};
}
const char* packing_name(Fmt elem) {
  if (elem == Fmt::kE2M1) return "fp4-element-2i-low-nibble";
  if (elem == Fmt::kE2M3 || elem == Fmt::kE3M2) return "fp6-4-in-3-le-bitstream";
  return "one-byte-per-element";
}

// A header's packing= (if any) must be the one this op writes.
void check_packing(const Header& h, Fmt elem) {
  if (h.has("packing") && h.get("packing") != packing_name(elem)) {
    throw std::invalid_argument("header: packing=" + h.get("packing") +
                                " but this op packs " + packing_name(elem));
  }
}

size_t packed_size(Fmt elem, size_t n) {
  if (elem == Fmt::kE2M1) return (n + 1) / 2;
  if (elem == Fmt::kE2M3 || elem == Fmt::kE3M2) return (n + 3) / 4 * 3;
  return n;
}

Fmt elem_of(const Header& h, const char* key, const char* dflt) {
  const auto e = parse_format(h.get(key, dflt));
  if (!e || !(*e == Fmt::kE4M3 || *e == Fmt::kE5M2 || *e == Fmt::kE3M2 ||
              *e == Fmt::kE2M3 || *e == Fmt::kE2M1 || *e == Fmt::kInt8)) {
    throw std::invalid_argument(std::string("header: ") + key +
                                " must be an MX element format");
  }
  return *e;
}

int int_key(const Header& h, const char* key, int dflt, int lo, int hi) {
  return header_int(h, key, dflt, lo, hi);
}

// Blocks: the named cases, then classes of random blocks round-robin.
std::vector<uint32_t> block_input(const Level& lv, size_t i, int n, Fmt elem) {
  if (i < named_block_count()) return named_block(i, n);
  const size_t j = i - named_block_count();
  SplitMix64 g(case_random(lv.seed, i, 7));
  return block_class_case(j % block_class_count(), g, n, elem);
}
size_t block_cases(const Level& lv) {
  return named_block_count() +
         block_class_count() * (lv.level == 0 ? 4 : lv.level == 1 ? 40 : 4000);
}

// A scale code that is NaN: E8M0 0xFF; UE4M3 0x7F, also with the unused
// sign bit set (0xFF: torchao stores the scale as a signed float8_e4m3fn).
bool scale_is_nan(Fmt scale_fmt, uint64_t s) {
  return scale_fmt == Fmt::kE8M0 ? s == 0xFF : (s & 0x7F) == 0x7F;
}

std::string classify_block(Fmt elem, uint64_t want_scale, uint64_t got_scale,
                           const std::vector<uint8_t>& wc,
                           const std::vector<uint8_t>& gc,
                           std::span<const uint64_t> x,
                           Fmt scale_fmt = Fmt::kE8M0) {
  if (want_scale != got_scale) {
    // Both NaN: every element of both blocks decodes to NaN.
    if (scale_is_nan(scale_fmt, want_scale) &&
        scale_is_nan(scale_fmt, got_scale)) {
      return "scale:nan-payload";
    }
    const int64_t d = static_cast<int64_t>(got_scale) -
                      static_cast<int64_t>(want_scale);
    return d == 1 || d == -1 ? "scale-off-by-one" : "scale";
  }
  for (size_t i = 0; i < wc.size(); ++i) {
    if (wc[i] == gc[i]) continue;
    // Classify the first differing element as a conversion of the exact
    // x / scale (exact in f64 for every f32 x and E8M0 scale).
    if (want_scale == 0xFF) {
      return "element:" + classify_element(Fmt::kF32, elem, RoundSpec{},
                                           x[i], wc[i], gc[i]);
    }
    Unpacked u = unpack(Fmt::kF32, x[i]);
    if (u.cls == Class::kNormal || u.cls == Class::kSubnormal)
      u.exp -= static_cast<int>(want_scale) - 127;
    RoundSpec sat;
    sat.overflow = Overflow::kSatFinite;
    const uint64_t scaled = encode(Fmt::kF64, u, RoundSpec{});
    return "element:" +
           classify_element(Fmt::kF64, elem, sat, scaled, wc[i], gc[i]);
  }
  return "other";
}

// The differing elements of a block, for reports: "; element 13:
// expected 3 (e4m3 44), got 3.25 (e4m3 45), one ulp apart" (at most 8).
std::string explain_block(Fmt elem, const std::vector<uint8_t>& wc,
                          const std::vector<uint8_t>& gc) {
  std::string s;
  int shown = 0, more = 0;
  const FormatDesc& d = desc(elem);
  const uint64_t sign = d.sign_mask(), mag = d.storage_mask() & ~sign;
  for (size_t i = 0; i < wc.size() && i < gc.size(); ++i) {
    if (wc[i] == gc[i]) continue;
    if (shown == 8) {
      ++more;
      continue;
    }
    ++shown;
    s += fmt::format("; element {}: expected {}, got {}", i,
                     describe(elem, wc[i]), describe(elem, gc[i]));
    const Unpacked w = unpack(elem, wc[i]), g = unpack(elem, gc[i]);
    const bool finite = w.cls != Class::kNaN && w.cls != Class::kInf &&
                        g.cls != Class::kNaN && g.cls != Class::kInf;
    const uint64_t a = wc[i] & mag, b = gc[i] & mag;
    if (elem != Fmt::kInt8 && finite && (wc[i] & sign) == (gc[i] & sign) &&
        (a > b ? a - b : b - a) == 1) {
      s += ", one ulp apart";
    }
  }
  if (more) s += fmt::format("; {} more", more);
  return s;
}

// --allow for a quantized block: a NaN scale on both sides (nan-payload:
// the whole block decodes to NaN either way), or equal scales and every
// differing element accepted by the element rule (nan-payload,
// sign-of-zero, ulp=N); "nan-payload" also accepts elements whose exact
// value is NaN (`nan_element(i)`: 0 x Inf when the NVFP4 tensor scale
// overflows), which FP4 cannot encode.
template <class NanElement>
std::string accept_block(Fmt elem, Fmt scale_fmt, uint64_t want_scale,
                         uint64_t got_scale, const std::vector<uint8_t>& wc,
                         const std::vector<uint8_t>& gc,
                         const std::vector<std::string>& allow,
                         NanElement nan_element) {
  const bool nan_ok =
      std::find(allow.begin(), allow.end(), "nan-payload") != allow.end();
  if (want_scale != got_scale) {
    return nan_ok && scale_is_nan(scale_fmt, want_scale) &&
                   scale_is_nan(scale_fmt, got_scale)
               ? "nan-payload"
               : "";
  }
  std::string name;
  for (size_t i = 0; i < wc.size(); ++i) {
    if (wc[i] == gc[i]) continue;
    std::string a = accept_element(elem, wc[i], gc[i], allow);
    if (a.empty() && nan_ok && nan_element(i)) a = "nan-payload";
    if (a.empty()) return "";
    if (name.empty()) name = a;
  }
  return name;
}

class MxQuantizeOp : public Op {
 public:
  explicit MxQuantizeOp(const Header& h) : lv_(level_of(h)) {
    const MxProfile* p = find_mx_profile(h.get("profile"));
    if (!p) throw std::invalid_argument("header: unknown profile '" +
                                        h.get("profile") + "'");
    p_ = *p;
    elem_ = elem_of(h, "elem", std::string(desc(p->default_elem).name).c_str());
    p_.block = int_key(h, "block", p->block, 1, 4096);
    check_packing(h, elem_);
  }
  Header resolved() const override {
    Header h;
    h.kv["elem"] = std::string(desc(elem_).name);
    h.kv["block"] = std::to_string(p_.block);
    h.kv["packing"] = packing_name(elem_);
    return h;
  }
  std::vector<Field> inputs() const override {
    return std::vector<Field>(static_cast<size_t>(p_.block), Field{"x", 8});
  }
  std::vector<Field> results() const override {
    std::vector<Field> f = {{"scale", 2}};
    f.resize(1 + packed_size(elem_, static_cast<size_t>(p_.block)),
             Field{"byte", 2});
    return f;
  }
  size_t count() const override { return block_cases(lv_); }
  std::vector<uint64_t> make_case(size_t i) const override {
    const auto b = block_input(lv_, i, p_.block, elem_);
    return {b.begin(), b.end()};
  }
  std::vector<uint64_t> expected(std::span<const uint64_t> in) const override {
    std::vector<uint32_t> x(in.begin(), in.end());
    const MxBlock b = mx_quantize_block(p_, elem_, x);
    std::vector<uint64_t> r = {b.scale};
    for (uint8_t v : pack_codes(elem_, b.codes)) r.push_back(v);
    return r;
  }
  std::string classify(std::span<const uint64_t> in,
                       std::span<const uint64_t> want,
                       std::span<const uint64_t> got) const override {
    const size_t n = static_cast<size_t>(p_.block);
    std::vector<uint8_t> wb(want.begin() + 1, want.end()),
        gb(got.begin() + 1, got.end());
    return classify_block(elem_, want[0], got[0], unpack_codes(elem_, wb, n),
                          unpack_codes(elem_, gb, n), in);
  }
  std::string explain(std::span<const uint64_t>, std::span<const uint64_t> want,
                      std::span<const uint64_t> got) const override {
    const size_t n = static_cast<size_t>(p_.block);
    std::vector<uint8_t> wb(want.begin() + 1, want.end()),
        gb(got.begin() + 1, got.end());
    return explain_block(elem_, unpack_codes(elem_, wb, n),
                         unpack_codes(elem_, gb, n));
  }
  std::string accepted(std::span<const uint64_t> /*in*/,
                       std::span<const uint64_t> want,
                       std::span<const uint64_t> got,
                       const std::vector<std::string>& allow) const override {
    const size_t n = static_cast<size_t>(p_.block);
    std::vector<uint8_t> wb(want.begin() + 1, want.end()),
        gb(got.begin() + 1, got.end());
    return accept_block(elem_, Fmt::kE8M0, want[0], got[0],
                        unpack_codes(elem_, wb, n), unpack_codes(elem_, gb, n),
                        allow, [](size_t) { return false; });
  }
  std::string decode_results(std::span<const uint64_t> r) const override {
    std::vector<uint8_t> b(r.begin() + 1, r.end());
    const auto codes = unpack_codes(elem_, b, static_cast<size_t>(p_.block));
    std::string s = fmt::format("scale 2^{}", static_cast<int>(r[0]) - 127);
    for (size_t i = 0; i < codes.size() && i < 4; ++i) {
      s += " " + describe(elem_, codes[i]);
    }
    return s + (codes.size() > 4 ? " ..." : "");
  }

 private:
  Level lv_;
  MxProfile p_;
  Fmt elem_;
};

class Nvfp4QuantizeOp : public Op {
 public:
  explicit Nvfp4QuantizeOp(const Header& h) : lv_(level_of(h)) {
    p_ = find_nvfp4_profile(h.get("profile"));
    if (!p_) throw std::invalid_argument("header: unknown NVFP4 profile '" +
                                         h.get("profile") + "'");
    sr_ = int_key(h, "sr", 0, 0, 1) == 1;
    check_packing(h, Fmt::kE2M1);
  }
  Header resolved() const override {
    Header h;
    h.kv["sr"] = sr_ ? "1" : "0";
    h.kv["packing"] = packing_name(Fmt::kE2M1);
    return h;
  }
  std::vector<Field> inputs() const override {
    std::vector<Field> f = {{"tensor_amax", 8}};
    f.resize(17, Field{"x", 8});
    if (sr_) f.resize(33, Field{"rbits", 8});
    return f;
  }
  std::vector<Field> results() const override {
    std::vector<Field> f = {{"scale", 2}};
    f.resize(9, Field{"byte", 2});
    return f;
  }
  size_t count() const override { return block_cases(lv_); }
  std::vector<uint64_t> make_case(size_t i) const override {
    const auto b = block_input(lv_, i, 16, Fmt::kE2M1);
    // Tensor amax: the block's own magnitude times 2^k, k in [0, 8).
    uint32_t amax = 0;
    for (uint32_t v : b) amax = std::max(amax, v & 0x7FFFFFFFu);
    if (amax >= 0x7F800000u) amax = 0x7F7FFFFFu;
    const uint64_t k = case_random(lv_.seed, i, 3) % 8;
    const uint32_t t = amax == 0 ? 0x3F800000u
                                 : static_cast<uint32_t>(std::min<uint64_t>(
                                       amax + (k << 23), 0x7F7FFFFFu));
    std::vector<uint64_t> c = {t};
    c.insert(c.end(), b.begin(), b.end());
    for (size_t j = 0; sr_ && j < 16; ++j) {
      c.push_back(sr_rbits(lv_.seed, i * 16 + j));
    }
    return c;
  }
  std::vector<uint64_t> expected(std::span<const uint64_t> in) const override {
    const uint32_t s_enc = nvfp4_tensor_scale(*p_, static_cast<uint32_t>(in[0]));
    std::vector<uint32_t> x(in.begin() + 1, in.begin() + 17), rb;
    if (sr_) rb.assign(in.begin() + 17, in.end());
    const Nvfp4Block b = nvfp4_quantize_block(*p_, s_enc, x, rb);
    std::vector<uint64_t> r = {b.scale};
    for (uint8_t v : pack_fp4(b.codes)) r.push_back(v);
    return r;
  }
  std::string classify(std::span<const uint64_t> in,
                       std::span<const uint64_t> want,
                       std::span<const uint64_t> got) const override {
    std::vector<uint8_t> wb(want.begin() + 1, want.end()),
        gb(got.begin() + 1, got.end());
    const auto wc = unpack_fp4(wb, 16), gc = unpack_fp4(gb, 16);
    if (want[0] == got[0]) {
      for (size_t i = 0; i < 16; ++i) {
        if (wc[i] != gc[i] && nan_element(in, i)) return "element:nan-input";
      }
    }
    return classify_block(Fmt::kE2M1, want[0], got[0], wc, gc,
                          in.subspan(1, 16), Fmt::kUE4M3);
  }
  std::string explain(std::span<const uint64_t>, std::span<const uint64_t> want,
                      std::span<const uint64_t> got) const override {
    std::vector<uint8_t> wb(want.begin() + 1, want.end()),
        gb(got.begin() + 1, got.end());
    return explain_block(Fmt::kE2M1, unpack_fp4(wb, 16), unpack_fp4(gb, 16));
  }
  std::string accepted(std::span<const uint64_t> in,
                       std::span<const uint64_t> want,
                       std::span<const uint64_t> got,
                       const std::vector<std::string>& allow) const override {
    std::vector<uint8_t> wb(want.begin() + 1, want.end()),
        gb(got.begin() + 1, got.end());
    return accept_block(Fmt::kE2M1, Fmt::kUE4M3, want[0], got[0],
                        unpack_fp4(wb, 16), unpack_fp4(gb, 16), allow,
                        [&](size_t i) { return nan_element(in, i); });
  }
  std::string decode_results(std::span<const uint64_t> r) const override {
    std::vector<uint8_t> b(r.begin() + 1, r.end());
    const auto codes = unpack_fp4(b, 16);
    std::string s = "scale " + describe(Fmt::kUE4M3, r[0]);
    for (size_t i = 0; i < 4; ++i) s += " " + describe(Fmt::kE2M1, codes[i]);
    return s + " ...";
  }

 private:
  // Element i's exact scaled value is NaN: a zero x divided by a zero
  // decode scale (torchao/ModelOpt: the tensor value amax / 2688
  // underflows to 0, so x / (scale * 0) is 0 / 0), or times an infinite
  // encode scale S_enc (0 x Inf). FP4 cannot encode NaN; libraries differ.
  bool nan_element(std::span<const uint64_t> in, size_t i) const {
    if ((in[1 + i] & 0x7FFFFFFFu) != 0) return false;
    const uint32_t t =
        nvfp4_tensor_scale(*p_, static_cast<uint32_t>(in[0])) & 0x7FFFFFFFu;
    if (p_->rule == Nvfp4Rule::kTorchao || p_->rule == Nvfp4Rule::kModelopt)
      return t == 0;
    return t >= 0x7F800000u;
  }

  Level lv_;
  const Nvfp4Profile* p_;
  bool sr_;
};

class MxDotOp : public Op {
 public:
  explicit MxDotOp(const Header& h) : lv_(level_of(h)) {
    ea_ = elem_of(h, "elem-a", "e4m3");
    eb_ = elem_of(h, "elem-b", "e4m3");
    nb_ = int_key(h, "blocks", 2, 1, 64);
    const auto out = parse_format(h.get("out", "f32"));
    if (!out || !(*out == Fmt::kF32 || *out == Fmt::kF16 || *out == Fmt::kBF16))
      throw std::invalid_argument("header: out must be f32, f16 or bf16");
    out_ = *out;
    spec_ = parse_round_spec(h);
  }
  Header resolved() const override {
    Header h;
    h.kv["blocks"] = std::to_string(nb_);
    h.kv["out"] = std::string(desc(out_).name);
    h.kv["round"] = rounding_name(spec_);
    return h;
  }
  size_t k() const { return static_cast<size_t>(nb_) * 32; }
  std::vector<Field> inputs() const override {
    std::vector<Field> f;
    f.resize(static_cast<size_t>(nb_), Field{"scale_a", 2});
    f.resize(f.size() + k(), Field{"a", hex_digits(ea_)});
    f.resize(f.size() + static_cast<size_t>(nb_), Field{"scale_b", 2});
    f.resize(f.size() + k(), Field{"b", hex_digits(eb_)});
    f.push_back({"c", hex_digits(out_)});
    return f;
  }
  std::vector<Field> results() const override {
    return {{"z", hex_digits(out_)}};
  }
  size_t count() const override {
    return lv_.level == 0 ? 64 : lv_.level == 1 ? 1024 : 100000;
  }
  std::vector<uint64_t> make_case(size_t i) const override {
    std::vector<uint64_t> c;
    uint64_t w = 0;
    auto rnd = [&] { return case_random(lv_.seed, i, w++); };
    const int spread = static_cast<int>(rnd() % 60);
    for (int s = 0; s < nb_; ++s) c.push_back(127 - spread / 2 + rnd() % (spread + 1));
    for (size_t j = 0; j < k(); ++j) c.push_back(rnd() & desc(ea_).storage_mask());
    for (int s = 0; s < nb_; ++s) c.push_back(127 - spread / 2 + rnd() % (spread + 1));
    for (size_t j = 0; j < k(); ++j) c.push_back(rnd() & desc(eb_).storage_mask());
    c.push_back(i % 4 == 0 ? rnd() & desc(out_).storage_mask() : 0);
    if (i % 16 == 5) c[0] = 0xFF;  // a NaN scale now and then
    return c;
  }
  std::vector<uint64_t> expected(std::span<const uint64_t> in) const override {
    const size_t nb = static_cast<size_t>(nb_);
    MxVector a{ea_, 32, in.subspan(nb, k()), in.subspan(0, nb)};
    MxVector b{eb_, 32, in.subspan(2 * nb + k(), k()), in.subspan(nb + k(), nb)};
    return {mx_dot_general(a, b, out_, spec_, in.back())};
  }
  std::string classify(std::span<const uint64_t>, std::span<const uint64_t> want,
                       std::span<const uint64_t> got) const override {
    const Unpacked w = unpack(out_, want[0]), g = unpack(out_, got[0]);
    if (w.cls == Class::kNaN && g.cls == Class::kNaN) return "nan-payload";
    if (w.cls == Class::kZero && g.cls == Class::kZero) return "sign-of-zero";
    if ((w.cls == Class::kNaN) != (g.cls == Class::kNaN)) return "nan-policy";
    const uint64_t m = desc(out_).storage_mask() & ~desc(out_).sign_mask();
    const uint64_t a = want[0] & m, b = got[0] & m;
    if (w.sign == g.sign && (a > b ? a - b : b - a) == 1) return "one-ulp";
    return "other";
  }
  std::string decode_results(std::span<const uint64_t> r) const override {
    return describe(out_, r[0]);
  }
  std::string accepted(std::span<const uint64_t> /*in*/,
                       std::span<const uint64_t> want,
                       std::span<const uint64_t> got,
                       const std::vector<std::string>& allow) const override {
    return accept_element(out_, want[0], got[0], allow);
  }

 private:
  Level lv_;
  Fmt ea_, eb_, out_;
  int nb_;
  RoundSpec spec_;
};

// op=mx-dequantize: scale + packed elements -> f32 (exact, rounded once).
class MxDequantizeOp : public Op {
 public:
  explicit MxDequantizeOp(const Header& h) : lv_(level_of(h)) {
    elem_ = elem_of(h, "elem", "e4m3");
    block_ = int_key(h, "block", 32, 1, 4096);
    check_packing(h, elem_);
  }
  Header resolved() const override {
    Header h;
    h.kv["elem"] = std::string(desc(elem_).name);
    h.kv["block"] = std::to_string(block_);
    h.kv["packing"] = packing_name(elem_);
    return h;
  }
  size_t nbytes() const { return packed_size(elem_, static_cast<size_t>(block_)); }
  std::vector<Field> inputs() const override {
    std::vector<Field> f = {{"scale", 2}};
    f.resize(1 + nbytes(), Field{"byte", 2});
    return f;
  }
  std::vector<Field> results() const override {
    return std::vector<Field>(static_cast<size_t>(block_), Field{"x", 8});
  }
  size_t count() const override {
    return lv_.level == 0 ? 64 : lv_.level == 1 ? 512 : 65536;
  }
  std::vector<uint64_t> make_case(size_t i) const override {
    // Every scale byte in turn (incl. 0x00, 0xFE, 0xFF), random codes.
    std::vector<uint64_t> c = {i % 256};
    std::vector<uint8_t> codes(static_cast<size_t>(block_));
    for (size_t j = 0; j < codes.size(); ++j)
      codes[j] = static_cast<uint8_t>(case_random(lv_.seed, i, j) &
                                      desc(elem_).storage_mask());
    for (uint8_t b : pack_codes(elem_, codes)) c.push_back(b);
    return c;
  }
  std::vector<uint64_t> expected(std::span<const uint64_t> in) const override {
    std::vector<uint8_t> b(in.begin() + 1, in.end());
    MxBlock blk{static_cast<uint8_t>(in[0]),
                unpack_codes(elem_, b, static_cast<size_t>(block_))};
    const auto x = mx_dequantize_block(elem_, blk);
    return {x.begin(), x.end()};
  }
  std::string classify(std::span<const uint64_t> in, std::span<const uint64_t> want,
                       std::span<const uint64_t> got) const override {
    for (size_t j = 0; j < want.size(); ++j) {
      if (want[j] == got[j]) continue;
      const Unpacked w = unpack(Fmt::kF32, want[j]), g = unpack(Fmt::kF32, got[j]);
      if (w.cls == Class::kNaN && g.cls == Class::kNaN) return "nan-payload";
      if (w.cls == Class::kZero && g.cls == Class::kZero) return "sign-of-zero";
      if (in[0] == 0 || in[0] == 0xFE) return "scale-extreme (" + hex_field(in[0], 2) + ")";
      if (g.cls == Class::kZero) return "subnormal-flush";
      return "element";
    }
    return "other";
  }
  std::string decode_results(std::span<const uint64_t> r) const override {
    std::string s;
    for (size_t j = 0; j < r.size() && j < 3; ++j)
      s += (j ? " " : "") + describe(Fmt::kF32, r[j]);
    return s + " ...";
  }
  std::string accepted(std::span<const uint64_t> /*in*/,
                       std::span<const uint64_t> want,
                       std::span<const uint64_t> got,
                       const std::vector<std::string>& allow) const override {
    std::string name;
    for (size_t j = 0; j < want.size(); ++j) {
      if (want[j] == got[j]) continue;
      name = accept_element(Fmt::kF32, want[j], got[j], allow);
      if (name.empty()) return "";
    }
    return name;
  }

 private:
  Level lv_;
  Fmt elem_;
  int block_;
};

}  // namespace

std::unique_ptr<Op> make_mx_dequantize_op(const Header& h) {
  return std::make_unique<MxDequantizeOp>(h);
}

std::unique_ptr<Op> make_mx_quantize_op(const Header& h) {
  return std::make_unique<MxQuantizeOp>(h);
}
std::unique_ptr<Op> make_nvfp4_quantize_op(const Header& h) {
  return std::make_unique<Nvfp4QuantizeOp>(h);
}
std::unique_ptr<Op> make_mx_dot_op(const Header& h) {
  return std::make_unique<MxDotOp>(h);
}

}  // namespace mxc::vec
