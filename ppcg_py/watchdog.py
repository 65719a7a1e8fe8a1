"""Bounds on how long a compilation may run (`--timeout`, `--isl-max-operations`).

isl has steps whose cost is hard to predict: its scheduler, and AST generation or
parametric minima over sets with many existentials, can run for minutes on a
ten-line loop nest. A user's build must never hang on that. The compilation runs
in a forked child (which inherits everything copy-on-write and sends back only
the generated text) and reports each step it enters; past the deadline the child
is killed and the caller learns which step of which SCoP was running.
The deadline counts the child's CPU time, so that the same input gives the same
output on a loaded machine (`make -j`) as on an idle one; a child that does not
use the CPU (blocked, stopped) is killed after four times the deadline in wall time.
`--isl-max-operations` bounds each step in isl's own operation count instead;
exceeding it is reported the same way.
"""
from __future__ import annotations

import io
import multiprocessing
import os
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
Progress = Callable[["Step"], None]


@dataclass(frozen=True)
class Step:
    """What a compilation is doing: a stage, and the SCoP's line when it has one."""

    name: str
    line: int | None = None


class StepTooLong(Exception):
    """A step ran past the deadline or past isl's operation limit."""

    def __init__(self, step: Step, what: str) -> None:
        super().__init__(f"{step.name}: {what}")
        self.step, self.what = step, what

    def __reduce__(self):
        return (StepTooLong, (self.step, self.what))


class StepGaveUp(StepTooLong):
    """A step that could not make correct code in this configuration (isl's AST
    generator lost instances): the same fallbacks as for a step that ran too long."""

    def __reduce__(self):
        return (StepGaveUp, (self.step, self.what))


class ChildDied(Exception):
    """The compiling process ended without an answer (a signal: SIGXCPU, SIGKILL, SIGSEGV)."""

    def __init__(self, step: Step, exitcode: int | None) -> None:
        how = f"killed by signal {-exitcode}" if exitcode is not None and exitcode < 0 else f"exit status {exitcode}"
        super().__init__(f"the compiling process died in {step.name} ({how})")
        self.step, self.exitcode, self.how = step, exitcode, how


WALL_FACTOR = 4          # wall-clock bound, in multiples of the CPU deadline
_POLL_S = 0.25           # how often the parent looks at the child's CPU time


def run_with_deadline(work: Callable[[Progress], T], seconds: float) -> T:
    """`work(progress)` in a forked child; its result, its exception, or StepTooLong
    once the child has used `seconds` of CPU time."""
    if seconds <= 0 or not hasattr(os, "fork"):
        return work(lambda _step: None)
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(work, sender))   # not daemonic: it may fork the scheduler
    child.start()
    sender.close()
    step, start = Step("extract"), time.monotonic()
    try:
        while True:
            wall = time.monotonic() - start
            used = _cpu_seconds(child.pid)
            used = wall if used is None else used
            if used >= seconds or wall >= WALL_FACTOR * seconds:
                raise StepTooLong(step, f"did not finish within {seconds:g} s")
            if not receiver.poll(min(_POLL_S, seconds - used)):
                continue
            try:
                kind, value = receiver.recv()
            except EOFError:
                child.join()
                raise ChildDied(step, child.exitcode) from None
            if kind == "step":
                step = value
            elif kind in ("stdout", "stderr"):
                getattr(sys, kind).write(value)
            elif kind == "raise":
                raise value
            else:
                return value
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiver.close()


def _cpu_seconds(pid: int | None) -> float | None:
    """CPU time of a process and of the children it has waited for (Linux /proc);
    None where that cannot be read (then the deadline is in wall time)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    utime, stime, cutime, cstime = (int(f) for f in fields[11:15])
    return (utime + stime + cutime + cstime) / os.sysconf("SC_CLK_TCK")


class _Forward(io.TextIOBase):
    """The child's sys.stdout/sys.stderr: text goes to the parent's (which may be a
    test's capture object that a forked child cannot write to)."""

    def __init__(self, sender, kind: str) -> None:
        self.sender, self.kind = sender, kind

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text:
            self.sender.send((self.kind, text))
        return len(text)


def _child(work: Callable[[Progress], T], sender) -> None:
    sys.stdout, sys.stderr = _Forward(sender, "stdout"), _Forward(sender, "stderr")
    try:
        sender.send(("done", work(lambda step: sender.send(("step", step)))))
    except BaseException as exc:  # noqa: BLE001 - handed to the parent
        if os.environ.get("PPCG_PY_DEBUG"):
            traceback.print_exc()
        try:
            sender.send(("raise", exc))
        except Exception:  # noqa: BLE001 - an exception that does not pickle
            sender.send(("raise", RuntimeError(f"{type(exc).__name__}: {exc}")))
    finally:
        sender.close()
