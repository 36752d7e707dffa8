// The 16-point random Hadamard transform (RHT) applied before NVFP4 wgrad
// quantization ("Pretraining Large Language Models with NVFP4", NVIDIA,
// arXiv:2509.25149, section on Random Hadamard transforms: a 16x16 RHT on
// the Wgrad GEMM inputs, with a fixed random sign vector).
//
// Definition used here, for a block x of 16 values and a sign mask `signs`
// (bit i set = s_i = -1, else s_i = +1):
//
//   y = (1/4) * H16 * D * x,     D = diag(s_0..s_15),
//   H1 = [1],  H2n = [[Hn, Hn], [Hn, -Hn]]   (Sylvester; H16[j][k] =
//   (-1)^popcount(j & k), symmetric, H16 * H16 = 16 I)
//
// so y_j = (1/4) * sum_k (-1)^popcount(j&k) * s_k * x_k. The transform is
// orthonormal; its inverse is (1/4) * D * H16 * y (NOT the same transform
// again unless signs == 0).
//
// TransformerEngine (NVIDIA/TransformerEngine, transformer_engine/pytorch/
// tensor/nvfp4_tensor.py, read at commit 01634950): get_wgrad_sign_vector()
// = [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1], turned into
// a mask by get_sign_from_vector (bit i set where v[i] == -1), i.e. 0xD7E8
// = kTeWgradSignMask. Its reference matrix is rht = diag(signs) @ H16 / 4
// (H16 spelled out in the same Sylvester order), applied as
// x.reshape(-1, 16) @ rht, i.e. y_j = sum_k x_k s_k H[k][j] / 4 — the same
// y as above, since H16 is symmetric. TE applies it to the columnwise
// (transposed) copy of the tensor, i.e. along the M dimension of wgrad's
// operands; rht16_rows_* below work along a row, so callers transpose.
// TE's CUDA kernels (common/hadamard_transform/*.cu) compute it as a bf16
// tensor-core MMA with the ±1/4 matrix (exact in bf16) and f32
// accumulation, whose internal summation order is NOT the butterfly order
// of rht16_f32; rht16_f32 is a documented reference order, not a model of
// TE's kernels (unconfirmed which order/precision hardware MMA uses).
#pragma once

#include <array>
#include <boost/multiprecision/cpp_int.hpp>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>

namespace mxc {

// TE's fixed wgrad sign vector as a mask (bit i = element i negated).
inline constexpr uint16_t kTeWgradSignMask = 0xD7E8;

// H16[j][k] in {+1, -1}.
constexpr int hadamard16(int j, int k) {
  int p = j & k, parity = 0;
  while (p != 0) {
    parity ^= p & 1;
    p >>= 1;
  }
  return parity != 0 ? -1 : 1;
}

// An exact dyadic rational m * 2^e. Every f32 is one, sums of them are, and
// multiplying by 1/4 only moves e, so the RHT of f32 inputs is exact in this
// type. A double is not enough: x = {2^100, 2^-100, 0...} gives outputs
// needing ~200 significant bits.
struct Dyadic {
  boost::multiprecision::cpp_int m = 0;
  int e = 0;

  // Exact value of a finite float; throws std::invalid_argument for Inf/NaN.
  static Dyadic from_float(float x);
  bool is_zero() const { return m == 0; }
  int sign() const { return m.sign(); }

  friend Dyadic operator+(const Dyadic& a, const Dyadic& b);
  friend Dyadic operator-(const Dyadic& a, const Dyadic& b);
  friend Dyadic operator-(const Dyadic& a);
  friend Dyadic operator*(const Dyadic& a, const Dyadic& b);
  // Value comparison (different (m, e) pairs may denote the same value).
  friend std::strong_ordering operator<=>(const Dyadic& a, const Dyadic& b);
  friend bool operator==(const Dyadic& a, const Dyadic& b) {
    return (a <=> b) == std::strong_ordering::equal;
  }
};

// Multiply by 2^k exactly.
Dyadic ldexp(const Dyadic& x, int k);
Dyadic abs(const Dyadic& x);

// Round to the nearest f32, ties to even (IEEE 754-2019 roundTiesToEven),
// with gradual underflow to subnormals and overflow to +-Inf. An exact zero
// rounds to +0.0f (the sign of an exact zero sum is not tracked).
float round_to_f32_rne(const Dyadic& x);

using Block16 = std::array<float, 16>;
using ExactBlock16 = std::array<Dyadic, 16>;

ExactBlock16 to_exact(const Block16& x);

// y = H16 * D * x / 4 in exact arithmetic. Inputs must be finite (else
// std::invalid_argument).
ExactBlock16 rht16_exact(const Block16& x, uint16_t signs);
ExactBlock16 rht16_exact(const ExactBlock16& x, uint16_t signs);
// x = D * H16 * y / 4: the inverse of rht16_exact with the same signs.
ExactBlock16 rht16_inverse_exact(const ExactBlock16& y, uint16_t signs);
// Each element of rht16_exact rounded once to f32 (RNE): the correctly
// rounded transform.
Block16 rht16_exact_rne(const Block16& x, uint16_t signs);

// y in f32 arithmetic, every operation an IEEE f32 op rounded to nearest
// even, in this fixed order:
//   1. v[k] = s_k * x[k]                (sign flip; exact)
//   2. for h = 1, 2, 4, 8 (in that order):
//        for each j with (j & h) == 0, ascending:
//          (v[j], v[j + h]) = (v[j] + v[j + h], v[j] - v[j + h])
//      (the radix-2 fast Walsh-Hadamard butterfly; it produces H16 * v in
//      the Sylvester (natural) order)
//   3. y[j] = v[j] * 0.25f              (exact unless y[j] is subnormal)
// Error bound (Higham, "Accuracy and Stability of Numerical Algorithms",
// 2nd ed., section 4.2: each output is a sum of 16 terms computed in a
// depth-4 binary tree): absent overflow and underflow,
//   |y_f32[j] - y_exact[j]| <= gamma_4 * (sum_k |x_k|) / 4,
//   gamma_4 = 4u / (1 - 4u), u = 2^-24,
// plus at most 2^-150 (half a subnormal ulp) from step 3 when y[j] is
// subnormal. f32 additions of subnormals are exact, so underflow adds
// nothing in step 2. Inf/NaN inputs propagate as IEEE arithmetic says.
Block16 rht16_f32(const Block16& x, uint16_t signs);

// Apply the RHT to each consecutive 16-element chunk of each row of a
// row-major rows x cols matrix (cols must be a multiple of 16 and both spans
// rows * cols long, else std::invalid_argument). `in` and `out` may be the
// same span.
void rht16_rows_f32(std::span<const float> in, std::span<float> out,
                    size_t rows, size_t cols, uint16_t signs);
// The same with each output correctly rounded (rht16_exact_rne per chunk).
void rht16_rows_exact_rne(std::span<const float> in, std::span<float> out,
                          size_t rows, size_t cols, uint16_t signs);

}  // namespace mxc
