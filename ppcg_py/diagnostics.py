"""Located diagnostics: every rejection is one line `file:line:col: error: reason`,
every warning one line `file:line:col: warning: what was done instead`."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field


def _located(kind: str, message: str, file: str | None, line: int | None, col: int | None) -> str:
    where = [p for p in (file, line, col) if p is not None]
    prefix = ":".join(str(p) for p in where)
    return f"{prefix}: {kind}: {message}" if prefix else f"{kind}: {message}"


class CompileError(Exception):
    """A user-facing error with a source location (or an option name instead)."""

    def __init__(self, message: str, file: str | None = None,
                 line: int | None = None, col: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.col = col

    def __reduce__(self):   # crosses from the compiling process (watchdog.py) with its location
        return (type(self), (self.message, self.file, self.line, self.col))

    def render(self) -> str:
        return _located("error", self.message, self.file, self.line, self.col)

    @classmethod
    def at(cls, coord, message: str) -> "CompileError":
        """An error at a pycparser coordinate (file, line, column)."""
        if coord is None:
            return cls(message)
        return cls(message, coord.file, coord.line, coord.column or 1)


@dataclass(frozen=True)
class Diagnostics:
    """The warnings of a compilation, in the order they were reported.

    Each is written to stderr as it is reported, not at the end: a compilation
    runs in a child process that a timeout kills (watchdog.py), and the warnings
    it reported before must still reach the user, in order. stderr is looked up
    at each warning, since that child redirects it to its parent.
    """

    echo: bool = True
    warnings: list[str] = field(default_factory=list)

    def warn(self, message: str, file: str | None = None, line: int | None = None,
             col: int | None = None) -> None:
        self._report(_located("warning", message, file, line, col))

    def replay(self, other: "Diagnostics") -> None:
        """Report the warnings of `other` (a trial compilation's, kept) as this one's."""
        for text in other.warnings:
            self._report(text)

    def _report(self, text: str) -> None:
        self.warnings.append(text)
        if self.echo:
            print(text, file=sys.stderr)
