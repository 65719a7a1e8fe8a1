"""Read PolyBench array dumps (POLYBENCH_DUMP_ARRAYS) and compare two of them.

A dump is the text a PolyBench program writes to stderr between
`==BEGIN DUMP_ARRAYS==` and `==END   DUMP_ARRAYS==`; each array sits between
`begin dump: NAME` and `end   dump: NAME` as whitespace-separated values.
A program that prints its results its own way is read as a dump of two arrays
(`parse_output`): the numbers of its standard output, compared with a tolerance,
and the words around them, compared exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

__all__ = ["DumpError", "compare_dumps", "parse_dump", "parse_output", "tolerance_for"]

Dump = dict[str, list[float] | list[str]]

_REGION = re.compile(r"==BEGIN DUMP_ARRAYS==(.*?)==END\s+DUMP_ARRAYS==", re.S)
_ARRAY = re.compile(r"begin dump:\s*(\S+)(.*?)end\s+dump:\s*(\S+)", re.S)
_MAX_REPORTED = 10
# a number as printf writes one: decimal, fixed or exponent, inf and nan
_NUMBER = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf(?:inity)?|nan)(?![\w.])", re.I)

# (rtol, atol) per PolyBench DATA_TYPE.
_TOLERANCES = {"double": (1e-9, 1e-9), "float": (1e-4, 1e-5), "int": (0.0, 0.0)}


class DumpError(ValueError):
    """The text holds no well-formed dump."""


def tolerance_for(data_type: str) -> tuple[float, float]:
    """(rtol, atol) for comparing results of the given PolyBench data type."""
    try:
        return _TOLERANCES[data_type]
    except KeyError:
        raise ValueError(
            f"unknown data type {data_type!r}; expected one of {sorted(_TOLERANCES)}"
        ) from None


def parse_dump(text: str) -> Dump:
    """The arrays of the first dump in `text`, by name, in the order printed."""
    region = _REGION.search(text)
    if region is None:
        raise DumpError("no ==BEGIN DUMP_ARRAYS== ... ==END   DUMP_ARRAYS== region")
    arrays: Dump = {}
    for match in _ARRAY.finditer(region.group(1)):
        name, body, end_name = match.groups()
        if name != end_name:
            raise DumpError(f"'begin dump: {name}' closed by 'end dump: {end_name}'")
        if name in arrays:
            raise DumpError(f"array {name} dumped twice")
        try:
            arrays[name] = [float(token) for token in body.split()]
        except ValueError as exc:
            raise DumpError(f"array {name}: {exc}") from None
    return arrays


def parse_output(text: str) -> Dump:
    """A program's own output as a dump: `numbers`, every number in it in order, and
    `words`, the text between them (each number a `#`), split at white space: `sum=3.5`
    is the word `sum=#` and the number 3.5."""
    numbers = [float(m.group()) for m in _NUMBER.finditer(text)]
    return {"numbers": numbers, "words": _NUMBER.sub("#", text).split()}


def _close(expected: float | str, actual: float | str, rtol: float, atol: float) -> bool:
    if isinstance(expected, str) or isinstance(actual, str):
        return expected == actual
    if math.isnan(expected):
        return math.isnan(actual)
    if math.isinf(expected) or not math.isfinite(actual):
        return expected == actual
    return abs(actual - expected) <= atol + rtol * abs(expected)


def compare_dumps(
    expected: Mapping[str, list[float] | list[str]],
    actual: Mapping[str, list[float] | list[str]],
    *,
    rtol: float,
    atol: float,
) -> list[str]:
    """Human-readable differences between two dumps; empty when they agree.

    Values agree when |actual - expected| <= atol + rtol * |expected|; a NaN or
    infinity agrees only with the same special value.  At most ten value
    mismatches are spelled out, followed by a count of the rest.
    """
    problems = [f"array {name}: missing" for name in expected if name not in actual]
    problems += [f"array {name}: not in the reference" for name in actual if name not in expected]
    shown = hidden = 0
    for name, want in expected.items():
        got = actual.get(name)
        if got is None:
            continue
        if len(got) != len(want):
            problems.append(f"array {name}: {len(got)} values, reference has {len(want)}")
            continue
        for index, (e, a) in enumerate(zip(want, got, strict=True)):
            if _close(e, a, rtol, atol):
                continue
            if shown < _MAX_REPORTED:
                problems.append(f"{name}[{index}]: expected {e!r}, got {a!r}")
                shown += 1
            else:
                hidden += 1
    if hidden:
        problems.append(f"... and {hidden} more mismatching values")
    return problems
