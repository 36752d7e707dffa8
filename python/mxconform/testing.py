"""Assertions for pytest: bit-exact comparison with a classified message.

    from mxconform.testing import assert_bitexact
    assert_bitexact(my_fp8, mxconform.convert(x, "e4m3"), inputs=x)

On a mismatch the AssertionError's message is the mxc-verify style table
of mismatch classes (tie-flip, scale-off-by-one, nan-policy, ...) followed
by the first offending indices with both results decoded.
"""

from __future__ import annotations

from ._compare import compare


def assert_bitexact(actual, expected, op=None, *,
                    max_shown: int = 10, **context) -> None:
    """Raises AssertionError unless `actual` equals `expected` bit for bit.

    Arguments are those of mxconform.compare (op=None/'convert', 'quantize',
    'gemm', 'mma' and their context: inputs=, round=, profile=, model=,
    a=, b=, ...); max_shown bounds the listed mismatches.
    """
    report = compare(actual, expected, op, max_first=max_shown, **context)
    if not report.ok:
        raise AssertionError(
            f"not bit-exact: {report.mismatches} of {report.cases} cases "
            f"differ\n{report.summary()}")


__all__ = ["assert_bitexact"]
