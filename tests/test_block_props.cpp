// Block quantization properties (RapidCheck) and the exact OCP Dot against
// the independent rational reference (fdpa_oracle::exact_dot).
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <bit>
#include <boost/multiprecision/cpp_int.hpp>
#include <catch2/catch.hpp>
#include <cmath>

#include "conformance/oracle/fdpa_oracle.h"
#include "conformance/splitmix64.h"
#include "emu/block/dot.h"
#include "emu/block/profile.h"
#include "emu/block/quantize.h"
#include "emu/convert.h"

using namespace mxc;

namespace {

constexpr Fmt kElems[] = {Fmt::kE4M3, Fmt::kE5M2, Fmt::kE3M2, Fmt::kE2M3,
                          Fmt::kE2M1};

// A finite block with a spread of magnitudes around a random binade.
rc::Gen<std::vector<uint32_t>> finite_block(int n) {
  return rc::gen::map(
      rc::gen::pair(rc::gen::inRange(-100, 100),
                    rc::gen::container<std::vector<uint32_t>>(
                        n, rc::gen::arbitrary<uint32_t>())),
      [](std::pair<int, std::vector<uint32_t>> p) {
        for (auto& v : p.second) {
          const int e = 127 + p.first + static_cast<int>(v % 24) - 12;
          v = (v & 0x807FFFFFu) | (static_cast<uint32_t>(e) << 23);
        }
        return p.second;
      });
}

double val(uint32_t b) { return std::bit_cast<float>(b); }

}  // namespace

TEST_CASE("block quantization properties", "[block][properties]") {
  rc::prop("RCEIL scales never make an element overflow", [](int ei) {
    const Fmt elem = kElems[static_cast<size_t>(ei) % 5];
    const auto x = *finite_block(32);
    const MxProfile& p = *find_mx_profile("torchao-rceil@main-5d73a0c1");
    const MxBlock b = mx_quantize_block(p, elem, x);
    RC_PRE(b.scale != 0xFF && b.scale != 0);
    // Re-encode every element without saturation: nothing overflows.
    MxProfile nosat = p;
    nosat.elem_overflow = Overflow::kFormat;
    for (uint32_t v : x) {
      const uint8_t c = mx_encode_element(nosat, elem, b.scale, v);
      const Class k = unpack(elem, c).cls;
      RC_ASSERT(k != Class::kNaN);
      RC_ASSERT(k != Class::kInf);
      RC_ASSERT(std::fabs(to_double(unpack(elem, c))) <=
                to_double(unpack(elem, max_finite_bits(elem, false))));
    }
  });

  rc::prop("dequantize(quantize(x)) is within half an element ulp",
           [](int ei) {
             const Fmt elem = kElems[static_cast<size_t>(ei) % 5];
             const auto x = *finite_block(32);
             const MxProfile& p = *find_mx_profile("torchao-rceil@main-5d73a0c1");
             const MxBlock b = mx_quantize_block(p, elem, x);
             RC_PRE(b.scale != 0xFF && b.scale != 0);
             const auto d = mx_dequantize_block(elem, b);
             const FormatDesc& fd = desc(elem);
             const int X = b.scale - 127;
             for (size_t i = 0; i < x.size(); ++i) {
               const double xv = val(x[i]), dv = val(d[i]);
               // Normal range: relative 2^-(m+1); below: half the
               // subnormal spacing 2^(X + emin - m - 1).
               const double bound =
                   std::max(std::fabs(xv) * std::ldexp(1.0, -fd.man_bits - 1),
                            std::ldexp(1.0, X + fd.emin() - fd.man_bits - 1));
               RC_ASSERT(std::fabs(dv - xv) <= bound);
             }
           });

  rc::prop("ocp-v1 and torchao-floor agree on finite blocks (same FLOOR, "
           "exact power-of-two scaling)",
           [](int ei) {
             const Fmt elem = kElems[static_cast<size_t>(ei) % 5];
             const auto x = *finite_block(32);
             const MxBlock a =
                 mx_quantize_block(*find_mx_profile("ocp-v1"), elem, x);
             const MxBlock b =
                 mx_quantize_block(*find_mx_profile("torchao-floor@main-5d73a0c1"), elem, x);
             RC_ASSERT(a.scale == b.scale);
             RC_ASSERT(a.codes == b.codes);
           });

  rc::prop("torchao-rceil and te-mxfp8 agree away from TE's byte-0 quirk",
           [](int ei) {
             const Fmt elem = kElems[static_cast<size_t>(ei) % 5];
             const auto x = *finite_block(32);
             const MxBlock a =
                 mx_quantize_block(*find_mx_profile("torchao-rceil@main-5d73a0c1"), elem, x);
             RC_PRE(a.scale != 0 && a.scale < 0xFE);
             const MxBlock b =
                 mx_quantize_block(*find_mx_profile("te-mxfp8@2.12"), elem, x);
             RC_ASSERT(a.scale == b.scale);
             RC_ASSERT(a.codes == b.codes);
           });

  rc::prop("FLOOR scale is RCEIL's or one below it", [](int ei) {
    const Fmt elem = kElems[static_cast<size_t>(ei) % 5];
    const auto x = *finite_block(32);
    const uint8_t fl =
        mx_quantize_block(*find_mx_profile("torchao-floor@main-5d73a0c1"), elem, x).scale;
    const uint8_t rc =
        mx_quantize_block(*find_mx_profile("torchao-rceil@main-5d73a0c1"), elem, x).scale;
    RC_PRE(fl > 0 && rc > 0 && rc < 0xFF);
    RC_ASSERT(rc - fl >= 0);
    RC_ASSERT(rc - fl <= 1);
  });
}

namespace {

// exact "num/den" (den a power of two) compared with an f32: -1, 0, +1.
int cmp(const std::string& q, uint32_t f32bits) {
  using boost::multiprecision::cpp_int;
  using boost::multiprecision::cpp_rational;
  const auto s = q.find('/');
  const cpp_rational x(cpp_int(q.substr(0, s)), cpp_int(q.substr(s + 1)));
  const Unpacked u = unpack(Fmt::kF32, f32bits);
  cpp_rational y = 0;
  if (u.cls == Class::kNormal || u.cls == Class::kSubnormal) {
    y = u.exp >= 0 ? cpp_rational(cpp_int(u.sig) << u.exp)
                   : cpp_rational(cpp_int(u.sig), cpp_int(1) << -u.exp);
    if (u.sign) y = -y;
  }
  return x < y ? -1 : (x > y ? 1 : 0);
}

}  // namespace

TEST_CASE("exact MX DotGeneral brackets the exact rational sum",
          "[block][dot]") {
  // RD(dot) <= exact <= RU(dot), and RZ/RNE results sit on the right side;
  // exact from fdpa_oracle::exact_dot (Boost rationals, independent).
  SplitMix64 g(0xD07);
  for (int i = 0; i < 300; ++i) {
    const Fmt ea = kElems[g.next() % 5], eb = kElems[g.next() % 5];
    std::vector<uint64_t> a(64), b(64), sa(2), sb(2);
    for (int k = 0; k < 64; ++k) {
      a[k] = g.next() & desc(ea).storage_mask();
      b[k] = g.next() & desc(eb).storage_mask();
      if (ea == Fmt::kE4M3 && (a[k] & 0x7F) == 0x7F) a[k] = 0;  // no NaN
      if (eb == Fmt::kE4M3 && (b[k] & 0x7F) == 0x7F) b[k] = 0;
      if (ea == Fmt::kE5M2 && (a[k] & 0x7C) == 0x7C) a[k] = 1;  // no Inf/NaN
      if (eb == Fmt::kE5M2 && (b[k] & 0x7C) == 0x7C) b[k] = 1;
    }
    for (int j = 0; j < 2; ++j) {
      sa[j] = 127 - 30 + g.next() % 60;
      sb[j] = 127 - 30 + g.next() % 60;
    }
    MxVector va{ea, 32, a, sa}, vb{eb, 32, b, sb};
    fdpa_oracle::Operands o;
    o.a_fmt = std::string(desc(ea).name);
    o.b_fmt = std::string(desc(eb).name);
    o.c_fmt = "f32";
    o.scale_fmt = "e8m0";
    o.scale_block = 32;
    o.a = a;
    o.b = b;
    o.sa = sa;
    o.sb = sb;
    const std::string exact = fdpa_oracle::exact_dot(o);
    RoundSpec rd, ru, rz, rn;
    rd.mode = Round::kRD;
    ru.mode = Round::kRU;
    rz.mode = Round::kRZ;
    const auto d_rd = static_cast<uint32_t>(mx_dot_general(va, vb, Fmt::kF32, rd));
    const auto d_ru = static_cast<uint32_t>(mx_dot_general(va, vb, Fmt::kF32, ru));
    const auto d_rn = static_cast<uint32_t>(mx_dot_general(va, vb, Fmt::kF32, rn));
    INFO(exact);
    CHECK(cmp(exact, d_rd) >= 0);
    CHECK(cmp(exact, d_ru) <= 0);
    // Exact results are hit exactly; otherwise RU is the next f32 after RD.
    if (cmp(exact, d_rd) == 0) {
      CHECK(cmp(exact, d_ru) == 0);
      CHECK(cmp(exact, d_rn) == 0);
    } else {
      const double lo = std::bit_cast<float>(d_rd), hi = std::bit_cast<float>(d_ru);
      CHECK(std::nextafter(static_cast<float>(lo), INFINITY) == static_cast<float>(hi));
      CHECK((d_rn == d_rd || d_rn == d_ru));
    }
    (void)rz;
  }
}
