// A small "kernel library" used by the gate test (docs/gate.md): it reads
// mxconform vectors on stdin (the TestFloat pipe) and writes each line back
// with its own results in place of the expected ones. It is written
// independently of the emulator, the way a library would, and implements
// one convention wrongly on purpose:
//   --bug ties-away   f32 -> E4M3 rounds ties away from zero (not RNE)
//   --bug none        the same code with ties to even (must pass the gate)
// Only op=convert from=f32 to=e4m3 overflow=satfinite is supported.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

namespace {

// E4M3 (OCP): bias 7, max 448, subnormal step 2^-9, saturating.
uint8_t to_e4m3(float x, bool ties_away) {
  if (std::isnan(x)) return 0x7F;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  double a = std::fabs(static_cast<double>(x));
  if (a >= 464.0 && !ties_away) return sign | 0x7E;  // saturate
  if (a >= 448.0) return sign | 0x7E;
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1;
  if (exp < -6) exp = -6;                     // subnormal range
  const double q = std::ldexp(1.0, exp - 3);  // step at this binade
  const double n = a / q;                     // exact in double
  double r = std::floor(n);
  const double frac = n - r;
  if (frac > 0.5 || (frac == 0.5 && (ties_away || std::fmod(r, 2.0) == 1.0)))
    r += 1;
  const double v = r * q;
  if (v == 0) return sign;
  if (v > 448.0) return sign | 0x7E;
  int ve;
  std::frexp(v, &ve);
  int vexp = ve - 1;
  if (vexp < -6) {  // subnormal: v = k * 2^-9
    return sign | static_cast<uint8_t>(std::lround(v * 512.0));
  }
  const int mant = static_cast<int>(std::lround(std::ldexp(v, -vexp) * 8.0)) - 8;
  return sign | static_cast<uint8_t>(((vexp + 7) << 3) | mant);
}

}  // namespace

int main(int argc, char** argv) {
  bool ties_away = true;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--bug") == 0) {
      ties_away = std::strcmp(argv[i + 1], "none") != 0;
    }
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty() || line[0] == '#') {
      std::cout << line << '\n';
      continue;
    }
    // Fields: A (8 hex) Z (2 hex) FLAGS (2 hex): keep A, write our Z and
    // no flags (00); the gate runs with --allow flags.
    uint32_t a = static_cast<uint32_t>(std::stoul(line.substr(0, 8), nullptr, 16));
    float x;
    std::memcpy(&x, &a, 4);
    char out[32];
    std::snprintf(out, sizeof out, "%08X %02X 00", a, to_e4m3(x, ties_away));
    std::cout << out << '\n';
  }
  return 0;
}
