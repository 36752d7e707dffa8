#!/usr/bin/env python3
"""Deterministic dot-product cases for the AMD MFMA models (issue 24).

Prints N lines in the `mxc mma` input format (K A codes, K B codes, the f32
C code, upper-case hex): the inputs of the rows in tests/data/mmasim-amd/,
whose D column was produced by microsoft/MMA-Sim's AMD simulator on these
inputs (docs/models.md, "AMD CDNA"). Pure Python integers (SplitMix64), so
every Python 3 prints the same bytes. Only finite operands: NaN/Inf inputs
are left out (MMA-Sim marks its AMD special-value handling "TODO"); Inf and
NaN still arise from overflowing products and sums.

Usage: mmasim_amd_cases.py A_FMT B_FMT K SEED N
Formats: f16 bf16 tf32 e4m3fnuz e5m2fnuz.
"""
import sys

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def range(self, lo, hi):  # inclusive
        return lo + self.below(hi - lo + 1)


# name: (exponent bits, mantissa bits, bias, fnuz, left shift of the code)
FORMATS = {
    "f16": (5, 10, 15, False, 0),
    "bf16": (8, 7, 127, False, 0),
    "tf32": (8, 10, 127, False, 13),  # an f32 code with 13 low zero bits
    "e4m3fnuz": (4, 3, 8, True, 0),
    "e5m2fnuz": (5, 2, 16, True, 0),
    "f32": (8, 23, 127, False, 0),
}


class Fmt:
    def __init__(self, name):
        self.name = name
        self.e, self.m, self.bias, self.fnuz, self.shift = FORMATS[name]
        # Largest finite exponent field: FNUZ has no Inf, all fields finite.
        self.emax_field = (1 << self.e) - (1 if self.fnuz else 2)
        self.digits = (1 + self.e + self.m + self.shift + 3) // 4

    def code(self, sign, field, man):
        if self.fnuz and field == 0 and man == 0:
            sign = 0  # 0x80 is NaN in FNUZ: no -0
        c = (sign << (self.e + self.m)) | (field << self.m) | man
        return c << self.shift

    def at(self, g, t, sign=None):
        """A value with unbiased exponent t (subnormal or clamped at the ends)."""
        s = g.below(2) if sign is None else sign
        field = t + self.bias
        man = g.below(1 << self.m)
        if field < 1:
            return self.code(s, 0, man >> min(self.m, 1 - field) if g.below(2) else man)
        return self.code(s, min(field, self.emax_field), man)

    def any(self, g):
        return self.code(g.below(2), g.range(0, self.emax_field), g.below(1 << self.m))

    def sub(self, g):
        return self.code(g.below(2), 0, g.below(1 << self.m))

    def zero(self, g):
        return self.code(g.below(2), 0, 0)

    def tmin(self):
        return 1 - self.bias

    def tmax(self):
        return self.emax_field - self.bias

    def hex(self, c):
        return format(c, "0%dX" % self.digits)


def case(g, A, B, C, K, kind):
    a, b = [0] * K, [0] * K
    # Product exponents stay where both formats and f32 can show them.
    lo = max(A.tmin(), B.tmin())
    hi = min(A.tmax(), B.tmax())
    center = g.range(lo, hi)
    ta = lambda: g.range(max(A.tmin(), center - 2), min(A.tmax(), center + 2))
    tb = lambda: g.range(max(B.tmin(), -center - 2), min(B.tmax(), -center + 2))
    c_t = g.range(-30, 30)
    if kind == 0:  # any finite codes: large exponent spreads
        a = [A.any(g) for _ in range(K)]
        b = [B.any(g) for _ in range(K)]
        c_t = g.range(-140, 127)
    elif kind == 1:  # products near 2^0 of both signs, C near them
        a = [A.at(g, ta()) for _ in range(K)]
        b = [B.at(g, tb()) for _ in range(K)]
        c_t = g.range(-8, 8)
    elif kind == 2:  # subnormal operands
        for k in range(K):
            a[k] = A.sub(g) if g.below(2) else A.at(g, g.range(A.tmin(), A.tmin() + 3))
            b[k] = B.sub(g) if g.below(3) else B.at(g, g.range(B.tmin(), B.tmin() + 4))
        c_t = g.range(-160, -100) if g.below(2) else g.range(A.tmin() + B.tmin() - 10, A.tmin() + B.tmin() + 10)
    elif kind == 3:  # cancellation: pairs of products of opposite sign
        for k in range(0, K, 2):
            a[k] = A.at(g, ta())
            b[k] = B.at(g, tb())
            if k + 1 < K:
                sb = 1 << (B.e + B.m + B.shift)
                a[k + 1] = a[k]
                b[k + 1] = b[k] ^ sb if (b[k] & ~sb) else b[k]
                if g.below(4) == 0:  # perturb: near-cancellation
                    a[k + 1] = A.at(g, ta())
        c_t = g.range(-40, 4)
    elif kind == 4:  # one dominant product, the rest 10-40 binades below
        big = g.below(K)
        for k in range(K):
            d = 0 if k == big else g.range(10, 40)
            a[k] = A.at(g, max(A.tmin(), ta() - d // 2))
            b[k] = B.at(g, max(B.tmin(), tb() - (d - d // 2)))
        c_t = g.range(-45, 3)
    elif kind == 5:  # zero operands with large partners (zero exponent rule)
        for k in range(K):
            if g.below(2):
                a[k], b[k] = A.zero(g), B.at(g, g.range(B.tmax() - 6, B.tmax()))
            elif g.below(2):
                a[k], b[k] = A.at(g, g.range(A.tmax() - 6, A.tmax())), B.zero(g)
            else:
                a[k], b[k] = A.at(g, ta()), B.at(g, tb())
        c_t = g.range(-60, 20)
    elif kind == 6:  # C dominant: products 20-40 binades below C (floor, ties)
        for k in range(K):
            a[k] = A.at(g, ta())
            b[k] = B.at(g, tb())
        c_t = g.range(20, 40)
    else:  # C far below the products, often negative (C floor / drop)
        for k in range(K):
            a[k] = A.at(g, ta())
            b[k] = B.at(g, tb())
        c_t = g.range(-40, -20)
    Cf = FORMATS["f32"]
    if g.below(16) == 0:
        c = C.zero(g)
    else:
        c = C.at(g, max(-126 - 22, min(127, c_t)))
        if kind == 7 and g.below(4):
            c |= 1 << 31
    return a, b, c


def main():
    af, bf, K, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4], 0), int(sys.argv[5])
    A, B, C = Fmt(af), Fmt(bf), Fmt("f32")
    g = SplitMix64(seed)
    out = []
    for i in range(n):
        a, b, c = case(g, A, B, C, K, i % 8)
        out.append(" ".join([A.hex(x) for x in a] + [B.hex(x) for x in b] + [C.hex(c)]))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
