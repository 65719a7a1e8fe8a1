"""The input file's text with its SCoPs replaced: what every target's output is made of.

The output keeps the input's bytes outside the SCoPs: the input is read as UTF-8
with `surrogateescape` (a Latin-1 byte in a comment comes back as the same byte
when the output is written the same way, `driver.write_outputs`), lines are split
at "\\n" only (a form feed or a Latin-1 0x85 is no line end for C), a line that
ends in "\\r\\n" keeps its "\\r", and the lines ppcg-py writes end as the input's
first line does. A UTF-8 byte-order mark stays the first thing of the output,
before any line ppcg-py puts on top (gcc and nvcc skip it there, and only there).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

ON_HOST_NOTE = "ppcg-py: this SCoP runs on the host, as its original C code"
BOM = "\ufeff"


def indent_of(line: str) -> str:
    return re.match(r"[ \t]*", line).group(0)


def read_source(path: str) -> str:
    """The input's text, every byte kept (see the module docstring)."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
        return handle.read()


class Source:
    """The input's lines, its byte-order mark and its line end."""

    def __init__(self, text: str) -> None:
        self.bom = BOM if text.startswith(BOM) else ""
        self.lines = text[len(self.bom):].split("\n")
        if self.lines[-1] == "":      # the text ends with a line end (or is empty)
            self.lines.pop()
        self.cr = "\r" if self.lines and self.lines[0].endswith("\r") else ""

    def line(self, number: int) -> str:
        """Line `number` (1-based), without its line end."""
        return self.lines[number - 1].rstrip("\r")

    def indent(self, number: int) -> str:
        return indent_of(self.line(number))

    def spliced(self, replacements: list[tuple[int, int, list[str]]], on_host: Sequence[int],
                note: str = ON_HOST_NOTE, checks: dict[int, str] | None = None) -> list[str]:
        """The lines with lines start..end (1-based, inclusive) of each replacement replaced by
        its lines, and a comment `note` before the `#pragma scop` of each SCoP that starts on
        a line of `on_host` (it keeps its C code). A replacement whose start has a condition
        in `checks` (`Scop.checked`, as C) runs where it holds, the original lines between
        the pragmas elsewhere. New lines end as the input's do."""
        lines = list(self.lines)
        checks = checks or {}
        new = [(start, end, [part + self.cr for line in self._checked(start, end, code, checks.get(start))
                             for part in line.split("\n")])
               for start, end, code in replacements]
        new += [(start, start, [f"{self.indent(start)}/* {note} */{self.cr}", lines[start - 1]])
                for start in on_host]
        for start, end, code in sorted(new, reverse=True):
            lines[start - 1:end] = code
        return lines

    def _checked(self, start: int, end: int, code: list[str], condition: str | None) -> list[str]:
        """`code`, or where `condition` is given, `code` where it holds and the original
        lines between the pragmas (start and end) where it does not."""
        if condition is None:
            return code
        pad = self.indent(start)
        original = [line.rstrip("\r") for line in self.lines[start:end - 1]]
        return [f"{pad}if ({condition}) {{  /* ppcg-py: what the scheduled code assumes, checked here */",
                *code, f"{pad}}} else {{  /* ppcg-py: the original code */", *original, f"{pad}}}"]

    def text(self, head: str, lines: list[str]) -> str:
        """The output file: the byte-order mark, `head` (lines ppcg-py puts on top), `lines`."""
        top = "".join(line + self.cr + "\n" for line in head.removesuffix("\n").split("\n")) if head else ""
        return self.bom + top + "".join(line + "\n" for line in lines)



_NOT_UTF8 = re.compile("[\udc80-\udcff]")


def escape_bytes_in_literals(text: str) -> str:
    """`text` with each byte that is not UTF-8 inside a string or character literal
    written as an octal escape (0xFC -> \\374, three digits, so a digit after it stays
    a character): the same string, which nvcc accepts (its front end rejects such a
    byte in a literal, where gcc passes it through). Comments keep their bytes."""
    if not _NOT_UTF8.search(text):
        return text
    out: list[str] = []
    k, n = 0, len(text)
    quote = ""          # the open literal's quote, if any
    while k < n:
        ch = text[k]
        if quote:
            if ch == "\\" and k + 1 < n:
                out.append(text[k:k + 2])
                k += 2
                continue
            if ch == quote or ch == "\n":
                quote = ""
            out.append(f"\\{ord(ch) - 0xDC00:03o}" if "\udc80" <= ch <= "\udcff" else ch)
            k += 1
            continue
        if text.startswith("/*", k):
            end = text.find("*/", k + 2)
            end = n if end < 0 else end + 2
        elif text.startswith("//", k):
            end = text.find("\n", k)
            end = n if end < 0 else end
        else:
            if ch in "\"'":
                quote = ch
            out.append(ch)
            k += 1
            continue
        out.append(text[k:end])
        k = end
    return "".join(out)
