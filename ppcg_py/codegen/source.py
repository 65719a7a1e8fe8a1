"""The input file's text with its SCoPs replaced: what every target's output is made of."""
from __future__ import annotations

import re
from collections.abc import Sequence

ON_HOST_NOTE = "ppcg-py: this SCoP runs on the host, as its original C code"


def indent_of(line: str) -> str:
    return re.match(r"\s*", line).group(0)


def spliced(lines: list[str], replacements: list[tuple[int, int, list[str]]], on_host: Sequence[int],
            note: str = ON_HOST_NOTE) -> list[str]:
    """`lines` with lines start..end (1-based, inclusive) of each replacement replaced by
    its lines, and a comment `note` before the `#pragma scop` of each SCoP that starts on
    a line of `on_host` (it keeps its C code)."""
    lines = list(lines)
    marked = [(start, start, [f"{indent_of(lines[start - 1])}/* {note} */", lines[start - 1]]) for start in on_host]
    for start, end, code in sorted(replacements + marked, reverse=True):
        lines[start - 1:end] = code
    return lines
