"""What the harness (harness.py) and the checks of each target's output (c_target.py,
opencl.py) share: the configuration of one check, the steps it records, and the
array dump of a run."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .dump import Dump, DumpError, parse_dump, parse_output

__all__ = ["CC", "DUMP_DEFINE", "FULL_PRECISION_DEFINE", "StageFailure", "Steps", "VerifyConfig", "dump_of"]

CC = "gcc"
DUMP_DEFINE = "POLYBENCH_DUMP_ARRAYS"
# ppcg-py's PolyBench prints all digits with this (the real suite ignores it):
# two decimals, PolyBench's default, would hide errors below 0.005.
FULL_PRECISION_DEFINE = "POLYBENCH_DUMP_FULL_PRECISION"


@dataclass(frozen=True)
class VerifyConfig:
    """One program to check and how to build, compile and run it."""

    source: Path
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    extra_c_sources: tuple[str, ...] = ()
    ppcg_args: tuple[str, ...] = ()
    orders: tuple[str, ...] = ("forward", "reverse")
    use_nvcc: bool | None = None  # None: when nvcc is installed
    data_type: str = "double"
    program_args: tuple[str, ...] = ()
    seed: int = 1  # of the "shuffle" order
    run_timeout: float = 300
    compile_timeout: float = 900
    full_precision: bool = True  # add -DPOLYBENCH_DUMP_FULL_PRECISION
    cxx_reference: bool = False  # on a mismatch, also compare with the original built as C++
    target: str = "cuda"  # "c": NAME.ppcg.c built with gcc -fopenmp, run with each of `threads`;
    # "opencl": built with -lOpenCL and run on the OpenCL runtime
    threads: tuple[int, ...] = (1, 2, 4)
    output: str = "dump"  # "stdout": compare the programs' standard output (dump.parse_output)

    @property
    def all_defines(self) -> tuple[str, ...]:
        """The defines plus those that make PolyBench programs dump their arrays."""
        wanted = [DUMP_DEFINE, *([FULL_PRECISION_DEFINE] if self.full_precision else [])]
        given = {d.split("=")[0] for d in self.defines}
        return (*self.defines, *(w for w in wanted if w not in given))


@dataclass(frozen=True)
class StageFailure:
    """A step of a check that failed, and why."""

    stage: str
    message: str


class Steps:
    """Collects timings and failures while verify() runs."""

    def __init__(self, progress: Callable[[str], None] | None) -> None:
        self.failures: list[StageFailure] = []
        self.timings: dict[str, float] = {}
        self.progress = progress

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        if self.progress:
            self.progress(f"{name} ...")
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = time.perf_counter() - start

    def fail(self, stage: str, message: str) -> None:
        self.failures.append(StageFailure(stage, message))
        if self.progress:
            self.progress(f"{stage} failed")


def dump_of(steps: Steps, stage: str, proc: subprocess.CompletedProcess[str], output: str = "dump") -> Dump | None:
    """The program's array dump (`output` "stdout": its standard output read as one),
    or None after recording why there is none."""
    if proc.returncode != 0:
        text = (proc.stdout + proc.stderr).strip()
        steps.fail(stage, f"exit status {proc.returncode}\n{text[-3000:]}")
        return None
    try:
        return parsed_output(proc, output)
    except DumpError as exc:
        steps.fail(stage, f"{exc} (is {DUMP_DEFINE} honoured? --stdout compares standard output instead)")
        return None


def parsed_output(proc: subprocess.CompletedProcess[str], output: str) -> Dump:
    """What a run printed, as a dump: PolyBench's on stderr, or its standard output."""
    return parse_output(proc.stdout) if output == "stdout" else parse_dump(proc.stderr)
