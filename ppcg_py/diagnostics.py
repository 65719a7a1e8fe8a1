"""Located compiler errors: every rejection is one line `file:line:col: error: reason`."""
from __future__ import annotations


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
        where = [p for p in (self.file, self.line, self.col) if p is not None]
        prefix = ":".join(str(p) for p in where)
        return f"{prefix}: error: {self.message}" if prefix else f"error: {self.message}"

    @classmethod
    def at(cls, coord, message: str) -> "CompileError":
        """An error at a pycparser coordinate (file, line, column)."""
        if coord is None:
            return cls(message)
        return cls(message, coord.file, coord.line, coord.column or 1)
