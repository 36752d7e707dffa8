// op=mma: one output element of an instruction model (K a multiple of L,
// chained in increasing k). Fields as `mxc mma`: A[K] B[K] SA SB C -> D.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "conformance/hex_io.h"
#include "conformance/vectors/op.h"
#include "conformance/vectors/ops_internal.h"
#include "emu/mma/gemm.h"
#include "emu/mma/models.h"
#include "emu/unpack.h"

namespace mxc::vec {
namespace {

// The header's model with its zero rules (keys zero-exp, zero-sign; default:
// the model's, docs/models.md).
MmaModel model_with_zero_rules(const Header& h) {
  const MmaModel* m = find_mma_model(h.get("model"));
  if (!m)
    throw std::invalid_argument("header: unknown model '" + h.get("model") +
                                "'");
  const auto ze = parse_zero_exp(
      h.get("zero-exp", std::string(zero_exp_name(m->fdpa.zero_exp))));
  const auto zs = parse_zero_sign(
      h.get("zero-sign", std::string(zero_sign_name(m->fdpa.zero_sign))));
  if (!ze)
    throw std::invalid_argument(
        "header: zero-exp must be fixed or operand-min");
  if (!zs)
    throw std::invalid_argument("header: zero-sign must be ieee or positive");
  return with_zero_rules(*m, *ze, *zs);
}

Header zero_rule_keys(const MmaModel& m) {
  Header h;
  h.kv["zero-exp"] = std::string(zero_exp_name(m.fdpa.zero_exp));
  h.kv["zero-sign"] = std::string(zero_sign_name(m.fdpa.zero_sign));
  return h;
}

// K granularity: the instruction's k for models with an instruction
// structure (FdpaParams::k_block), else L.
int k_step(const MmaModel& m) {
  return m.fdpa.k_block > 0 ? m.fdpa.k_block : m.fdpa.L;
}

// "zero-rule:<variant>" when running `m` under another zero rule gives
// `got` (every variant but m's own), else "".
template <class Run>
std::string zero_rule_explains_all(const MmaModel& m,
                                   std::span<const uint64_t> got, Run run) {
  // One rule changed before both.
  const ZeroExp oe = m.fdpa.zero_exp == ZeroExp::kFixed ? ZeroExp::kOperandMin
                                                        : ZeroExp::kFixed;
  const ZeroSign os = m.fdpa.zero_sign == ZeroSign::kIeee ? ZeroSign::kPositive
                                                          : ZeroSign::kIeee;
  const std::pair<ZeroExp, ZeroSign> variants[] = {
      {oe, m.fdpa.zero_sign}, {m.fdpa.zero_exp, os}, {oe, os}};
  for (const auto& [e, z] : variants) {
    const auto r = run(with_zero_rules(m, e, z));
    if (!std::equal(r.begin(), r.end(), got.begin(), got.end())) continue;
    std::string v;
    if (e != m.fdpa.zero_exp) v = std::string(zero_exp_name(e));
    if (z != m.fdpa.zero_sign)
      v += (v.empty() ? "" : "+") + std::string(zero_sign_name(z));
    return "zero-rule:" + v;
  }
  return "";
}

template <class Run>
std::string zero_rule_explains(const MmaModel& m, uint64_t got, Run run) {
  const uint64_t g[1] = {got};
  return zero_rule_explains_all(
      m, g, [&](const MmaModel& v) { return std::vector<uint64_t>{run(v)}; });
}

class MmaOp : public Op {
 public:
  explicit MmaOp(const Header& h) : lv_(level_of(h)) {
    model_ = model_with_zero_rules(h);
    m_ = &model_;
    const auto a = parse_format(h.get("a-fmt")), b = parse_format(h.get("b-fmt"));
    auto ok = [&](std::optional<Fmt> f) {
      return f && std::find(m_->ab_formats.begin(), m_->ab_formats.end(), *f) !=
                      m_->ab_formats.end();
    };
    if (!ok(a) || !ok(b)) {
      throw std::invalid_argument("header: a-fmt/b-fmt not taken by model " +
                                  std::string(m_->name));
    }
    af_ = *a;
    bf_ = *b;
    k_ = header_int(h, "k", m_->k, 1, 8192);
    blk_ = scale_block(m_->scales);
    if (k_ <= 0 || k_ > 8192 || k_ % k_step(*m_) != 0 ||
        (blk_ > 0 && k_ % blk_ != 0)) {
      throw std::invalid_argument("header: k must be a multiple of " +
                                  std::to_string(k_step(*m_)) +
                                  " (L, or the instruction's k), <= 8192");
    }
  }
  Header resolved() const override {
    Header h = zero_rule_keys(*m_);
    h.kv["k"] = std::to_string(k_);
    return h;
  }
  size_t ns() const { return blk_ > 0 ? static_cast<size_t>(k_ / blk_) : 0; }
  int a_width() const { return operand_hex_digits(af_); }
  int b_width() const { return operand_hex_digits(bf_); }
  std::vector<Field> inputs() const override {
    std::vector<Field> f(static_cast<size_t>(k_), Field{"a", a_width()});
    f.resize(f.size() + static_cast<size_t>(k_), Field{"b", b_width()});
    f.resize(f.size() + ns(), Field{"scale_a", 2});
    f.resize(f.size() + ns(), Field{"scale_b", 2});
    f.push_back({"c", hex_digits(m_->c_fmt)});
    return f;
  }
  std::vector<Field> results() const override {
    return {{"d", hex_digits(m_->c_fmt)}};
  }
  size_t count() const override {
    return lv_.level == 0 ? 64 : lv_.level == 1 ? 1000 : 100000;
  }
  std::vector<uint64_t> make_case(size_t i) const override {
    uint64_t w = 0;
    auto rnd = [&] { return case_random(lv_.seed, i, w++); };
    std::vector<uint64_t> c;
    // TF32: f32 patterns with the low 13 bits zero (docs/vector-format.md).
    const uint64_t am =
        af_ == Fmt::kTF32 ? 0xFFFFE000u : desc(af_).storage_mask();
    const uint64_t bm =
        bf_ == Fmt::kTF32 ? 0xFFFFE000u : desc(bf_).storage_mask();
    const int shape = static_cast<int>(i % 4);  // 0 random, 1 cancel, 2 tiny, 3 big C
    for (int k = 0; k < k_; ++k) c.push_back(rnd() & am);
    for (int k = 0; k < k_; ++k) c.push_back(rnd() & bm);
    if (shape == 1) {
      for (int k = 1; k < k_; k += 2) {
        c[k] = c[k - 1];
        c[k_ + k] = c[k_ + k - 1] ^ (bf_ == Fmt::kTF32 ? 0x80000000u
                                                       : desc(bf_).sign_mask());
      }
    }
    const bool ue4m3 = scale_format(m_->scales) == Fmt::kUE4M3;
    for (size_t s = 0; s < 2 * ns(); ++s) {
      const uint64_t r = rnd();
      c.push_back(ue4m3 ? r % 0x7F : (shape == 2 ? 127 - 40 + r % 20 : 127 - 12 + r % 25));
    }
    uint64_t cv = rnd();
    if (m_->c_fmt == Fmt::kF32) {
      const uint64_t e = shape == 3 ? 140 + cv % 20 : 110 + cv % 30;
      cv = ((cv >> 8) & 0x807FFFFFu) | (e << 23);
    } else {
      cv &= 0xFFFF;
      if ((cv & 0x7C00) == 0x7C00) cv &= 0xBFFF;
    }
    c.push_back(i % 8 == 0 ? 0 : cv);
    return c;
  }
  std::vector<uint64_t> expected(std::span<const uint64_t> in) const override {
    return {run(*m_, in)};
  }
  uint64_t run(const MmaModel& m, std::span<const uint64_t> in) const {
    const size_t k = static_cast<size_t>(k_);
    return mma_dot(m, af_, bf_, in.subspan(0, k), in.subspan(k, k), in.back(),
                   in.subspan(2 * k, ns()), in.subspan(2 * k + ns(), ns()));
  }
  std::string classify(std::span<const uint64_t> in, std::span<const uint64_t> want,
                       std::span<const uint64_t> got) const override {
    const Fmt o = m_->c_fmt;
    const Unpacked w = unpack(o, want[0]), g = unpack(o, got[0]);
    if (w.cls == Class::kNaN && g.cls == Class::kNaN) return "nan-payload";
    // Another zero rule (zero-term exponent, sign of a zero result)?
    if (const std::string z = zero_rule_explains(
            *m_, got[0], [&](const MmaModel& v) { return run(v, in); });
        !z.empty())
      return z;
    if (w.cls == Class::kZero && g.cls == Class::kZero) return "sign-of-zero";
    if ((w.cls == Class::kNaN) != (g.cls == Class::kNaN)) return "nan-policy";
    // Accumulation width: does another model's datapath give this result?
    for (const MmaModel& other : mma_models()) {
      if (other.name == m_->name || other.c_fmt != o ||
          other.scales != m_->scales || k_ % k_step(other) != 0)
        continue;
      if (std::find(other.ab_formats.begin(), other.ab_formats.end(), af_) ==
              other.ab_formats.end() ||
          std::find(other.ab_formats.begin(), other.ab_formats.end(), bf_) ==
              other.ab_formats.end())
        continue;
      if (run(with_zero_rules(other, m_->fdpa.zero_exp, m_->fdpa.zero_sign),
              in) == got[0]) {
        return "accumulation-width:" + std::string(other.name);
      }
    }
    // Order of accumulation: chunks in reverse k order.
    if (k_ > m_->fdpa.L && m_->fdpa.k_block == 0) {
      std::vector<uint64_t> r(in.begin(), in.end());
      const size_t k = static_cast<size_t>(k_), L = static_cast<size_t>(m_->fdpa.L);
      for (size_t part : {size_t{0}, k}) {
        for (size_t c0 = 0; c0 < k / 2; c0 += L)
          for (size_t j = 0; j < L && c0 < k - L - c0; ++j)
            std::swap(r[part + c0 + j], r[part + k - L - c0 + j]);
      }
      if (blk_ == 0 && run(*m_, r) == got[0]) return "order-of-accumulation";
    }
    return "other";
  }
  std::string decode_results(std::span<const uint64_t> r) const override {
    return describe(m_->c_fmt, r[0]);
  }
  std::string accepted(std::span<const uint64_t> /*in*/,
                       std::span<const uint64_t> want,
                       std::span<const uint64_t> got,
                       const std::vector<std::string>& allow) const override {
    return accept_element(m_->c_fmt, want[0], got[0], allow);
  }

 private:
  Level lv_;
  MmaModel model_;
  const MmaModel* m_;
  Fmt af_, bf_;
  int k_, blk_;
};

// op=gemm: a small GEMM composed from a model (emu/mma/gemm.h): A and B as
// stored for the layout, plain block scales, C and D column-major.
class GemmOp : public Op {
 public:
  explicit GemmOp(const Header& h) : lv_(level_of(h)) {
    model_ = model_with_zero_rules(h);
    m_ = &model_;
    const auto a = parse_format(h.get("a-fmt")), b = parse_format(h.get("b-fmt"));
    auto ok = [&](std::optional<Fmt> f) {
      return f && f != Fmt::kTF32 &&
             std::find(m_->ab_formats.begin(), m_->ab_formats.end(), *f) !=
                 m_->ab_formats.end();
    };
    if (!ok(a) || !ok(b)) {
      throw std::invalid_argument("header: a-fmt/b-fmt not taken by model " +
                                  std::string(m_->name));
    }
    p_.a_fmt = *a;
    p_.b_fmt = *b;
    if (!parse_layout(h.get("layout", "TN"), &p_.layout)) {
      throw std::invalid_argument("header: layout must be TN, NN, NT or TT");
    }
    p_.M = header_int(h, "m", 2, 1, 64);
    p_.N = header_int(h, "n", 2, 1, 64);
    p_.K = header_int(h, "k", m_->k, 1, 8192);
    p_.split_k = header_int(h, "split-k", 1, 1, 8192);
    blk_ = scale_block(m_->scales);
    if (p_.M < 1 || p_.N < 1 || p_.M > 64 || p_.N > 64 || p_.K < 1 ||
        p_.K > 8192 || p_.split_k < 1 ||
        p_.K % (k_step(*m_) * p_.split_k) != 0) {
      throw std::invalid_argument(
          "header: m, n in 1..64 and k a multiple of split-k * " +
          std::to_string(k_step(*m_)) + " (L, or the instruction's k)");
    }
  }
  Header resolved() const override {
    Header h = zero_rule_keys(*m_);
    h.kv["layout"] = std::string(layout_name(p_.layout));
    h.kv["m"] = std::to_string(p_.M);
    h.kv["n"] = std::to_string(p_.N);
    h.kv["k"] = std::to_string(p_.K);
    h.kv["split-k"] = std::to_string(p_.split_k);
    return h;
  }
  size_t na() const { return static_cast<size_t>(p_.M) * p_.K; }
  size_t nb() const { return static_cast<size_t>(p_.K) * p_.N; }
  size_t nsa() const { return blk_ ? static_cast<size_t>(p_.M) * (p_.K / blk_) : 0; }
  size_t nsb() const { return blk_ ? static_cast<size_t>(p_.N) * (p_.K / blk_) : 0; }
  size_t nd() const { return static_cast<size_t>(p_.M) * p_.N; }
  std::vector<Field> inputs() const override {
    std::vector<Field> f(na(), Field{"a", hex_digits(p_.a_fmt)});
    f.resize(f.size() + nb(), Field{"b", hex_digits(p_.b_fmt)});
    f.resize(f.size() + nsa(), Field{"scale_a", 2});
    f.resize(f.size() + nsb(), Field{"scale_b", 2});
    f.resize(f.size() + nd(), Field{"c", hex_digits(m_->c_fmt)});
    return f;
  }
  std::vector<Field> results() const override {
    return std::vector<Field>(nd(), Field{"d", hex_digits(m_->c_fmt)});
  }
  size_t count() const override {
    return lv_.level == 0 ? 8 : lv_.level == 1 ? 64 : 4096;
  }
  std::vector<uint64_t> make_case(size_t i) const override {
    uint64_t w = 0;
    auto rnd = [&] { return case_random(lv_.seed, i, w++); };
    std::vector<uint64_t> c;
    for (size_t j = 0; j < na(); ++j) c.push_back(rnd() & desc(p_.a_fmt).storage_mask());
    for (size_t j = 0; j < nb(); ++j) c.push_back(rnd() & desc(p_.b_fmt).storage_mask());
    const bool ue4m3 = scale_format(m_->scales) == Fmt::kUE4M3;
    for (size_t j = 0; j < nsa() + nsb(); ++j)
      c.push_back(ue4m3 ? rnd() % 0x7F : 127 - 10 + rnd() % 21);
    for (size_t j = 0; j < nd(); ++j) {
      uint64_t v = rnd();
      if (m_->c_fmt == Fmt::kF32) {
        v = ((v >> 8) & 0x807FFFFFu) | ((115 + v % 25) << 23);
      } else {
        v &= 0xFFFF;
        if ((v & 0x7C00) == 0x7C00) v &= 0xBFFF;
      }
      c.push_back(i % 4 == 0 ? 0 : v);
    }
    return c;
  }
  std::vector<uint64_t> expected(std::span<const uint64_t> in) const override {
    return run(*m_, in);
  }
  std::vector<uint64_t> run(const MmaModel& m,
                            std::span<const uint64_t> in) const {
    GemmProblem p = p_;
    size_t o = 0;
    auto take = [&](size_t n) {
      std::vector<uint64_t> v(in.begin() + static_cast<long>(o),
                              in.begin() + static_cast<long>(o + n));
      o += n;
      return v;
    };
    p.A = take(na());
    p.B = take(nb());
    p.SA = take(nsa());
    p.SB = take(nsb());
    p.C = take(nd());
    return gemm(m, p);
  }
  std::string classify(std::span<const uint64_t> in,
                       std::span<const uint64_t> want,
                       std::span<const uint64_t> got) const override {
    size_t bad = 0, first = 0;
    for (size_t j = 0; j < want.size(); ++j) {
      if (want[j] != got[j] && bad++ == 0) first = j;
    }
    // A transposed read shows as most of D wrong; one element as a local
    // difference.
    if (bad > want.size() / 2) return "many-elements (layout?)";
    const Unpacked w = unpack(m_->c_fmt, want[first]), g = unpack(m_->c_fmt, got[first]);
    if (w.cls == Class::kNaN && g.cls == Class::kNaN) return "nan-payload";
    if (const std::string z = zero_rule_explains_all(
            *m_, got, [&](const MmaModel& v) { return run(v, in); });
        !z.empty())
      return z;
    if (w.cls == Class::kZero && g.cls == Class::kZero) return "sign-of-zero";
    return "element";
  }
  std::string decode_results(std::span<const uint64_t> r) const override {
    std::string s;
    for (size_t j = 0; j < r.size() && j < 3; ++j) {
      s += (j ? " " : "") + describe(m_->c_fmt, r[j]);
    }
    return s + (r.size() > 3 ? " ..." : "");
  }

 private:
  Level lv_;
  MmaModel model_;
  const MmaModel* m_;
  GemmProblem p_;
  int blk_;
};

}  // namespace

std::unique_ptr<Op> make_gemm_op(const Header& h) {
  return std::make_unique<GemmOp>(h);
}

std::unique_ptr<Op> make_mma_op(const Header& h) {
  return std::make_unique<MmaOp>(h);
}

std::unique_ptr<Op> make_op(const Header& h) {
  const std::string op = h.get("op");
  if (op == "convert") return make_convert_op(h);
  if (op == "mx-quantize") return make_mx_quantize_op(h);
  if (op == "nvfp4-quantize") return make_nvfp4_quantize_op(h);
  if (op == "mx-dot") return make_mx_dot_op(h);
  if (op == "mma") return make_mma_op(h);
  if (op == "gemm") return make_gemm_op(h);
  if (op == "mx-dequantize") return make_mx_dequantize_op(h);
  throw std::invalid_argument(op.empty() ? "header: no op= line"
                                         : "header: unknown op '" + op + "'");
}

std::string op_help() {
  return "ops and their header keys:\n"
         "  convert         from to round [overflow=format|satfinite] [relu=0|1]\n"
         "                  [range=FIRST+COUNT (hex: a slice of all encodings)]\n"
         "  mx-quantize     profile [elem] [block]\n"
         "  nvfp4-quantize  profile [sr=0|1]\n"
         "  mx-dot          elem-a elem-b [blocks] [out=f32|f16|bf16] [round]\n"
         "  mma             model a-fmt b-fmt [k] "
         "[zero-exp=fixed|operand-min]\n"
         "                  [zero-sign=ieee|positive]\n"
         "  gemm            model a-fmt b-fmt [layout=TN|NN|NT|TT] [m] [n] "
         "[k]\n"
         "                  [split-k] [zero-exp] [zero-sign]\n"
         "  mx-dequantize   elem [block]\n";
}

}  // namespace mxc::vec
