"""Running the external compilers the harness needs, with failures made exceptions."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

__all__ = ["BuildError", "preprocessor_flags", "run_program", "run_tool"]


class BuildError(RuntimeError):
    """A compiler rejected its input; `stderr` holds what it said."""

    def __init__(self, command: Sequence[str], stderr: str) -> None:
        self.command = list(command)
        self.stderr = stderr
        super().__init__(f"{Path(command[0]).name} failed:\n{stderr.strip()}")


def preprocessor_flags(include_dirs: Iterable[str | Path], defines: Iterable[str]) -> list[str]:
    """-I and -D flags in the order given (defines are NAME or NAME=VALUE)."""
    return [f"-I{d}" for d in include_dirs] + [f"-D{d}" for d in defines]


def run_tool(
    command: Sequence[str | Path], *, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run a compiler; raise BuildError with its stderr when it fails or hangs."""
    argv = [str(c) for c in command]
    try:
        # a compiler quotes the source, which may hold bytes that are not UTF-8
        proc = subprocess.run(argv, capture_output=True, encoding="utf-8", errors="replace", timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired as exc:
        raise BuildError(argv, f"timed out after {timeout:g} s") from exc
    except FileNotFoundError as exc:
        raise BuildError(argv, f"{argv[0]}: not found") from exc
    if proc.returncode != 0:
        raise BuildError(argv, proc.stderr or proc.stdout)
    return proc


def run_program(
    argv: Sequence[str | Path], *, timeout: float = 300, env: Mapping[str, str] | None = None,
    keep_stderr: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run a built program and capture its output; never raises on a bad exit.

    A timeout is reported as exit status 124 with a note on stderr, like timeout(1).
    `keep_stderr=False` sends stderr to /dev/null: a timed run need not carry a large
    array dump through a pipe (tens of MB at PolyBench's large sizes).
    """
    args = [str(a) for a in argv]
    try:
        return subprocess.run(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE if keep_stderr else subprocess.DEVNULL,
            encoding="utf-8", errors="replace", timeout=timeout, env=env, check=False
        )
    except subprocess.TimeoutExpired as exc:
        note = f"\ntimed out after {timeout:g} s\n"
        return subprocess.CompletedProcess(args, 124, _text(exc.stdout), _text(exc.stderr) + note)


def _text(data: str | bytes | None) -> str:
    """TimeoutExpired may carry bytes even from a text-mode run."""
    if isinstance(data, bytes):
        return data.decode(errors="replace")
    return data or ""
