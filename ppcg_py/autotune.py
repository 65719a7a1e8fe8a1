"""`--autotune`: the tile sizes of the C target chosen by timing the program here.

PPCG leaves the choice of sizes to the user, and its paper reports 2x on average
(3.8x at most) from sizes picked by hand. The best sizes depend on the machine
(caches, vector width, cores) and on the problem size, so they are measured, not
modelled: the input must be a whole program (it has a `main`), and every variant
of the sizes is compiled, built with `gcc -O3 -march=native -fopenmp` and run.

- **What varies**: per tiled band (`kernel[i]` of `--sizes`, the i-th band `--tile`
  tiles), by coordinate descent from the sizes the compilation starts with (the
  defaults, or `--sizes`). First the few variants of each band's code: its full tiles
  apart or not (`isolate[1]`: constant bounds in the full tiles, more code;
  covariance 1.4x faster, atax 1.3x slower) and the order of its point loops
  (`order[...]`: every other order of up to three members, else each member moved
  innermost; the cache model puts a parallel, unit-stride loop innermost, which need
  not be the fastest), so that a budget of minutes reaches every band. Then each
  band's tile sizes: a band of one or two members tries every combination of the
  candidates (8 to 512); a band of three or more one member at a time, since the
  full product (343 variants a band) would not fit a budget of minutes, each member
  also at half and twice its current size (the model's whole register blocks: 48,
  96); then the shape of its register block where it has one (`register[R, C]`: half
  the rows and twice the columns, the reverse, none). Variants near the current best
  come first, so a budget that ends early has spent itself where gains are likely.
  The bands are swept again while a sweep improves the best.
- **The time**: the median of a few runs, each timed as a whole (the program's
  wall time); with `-DPOLYBENCH_TIME`, the seconds PolyBench prints, which leave
  out the set-up and the output. A variant that beats the best is timed again,
  each run beside a run of the best, and wins only if it is still faster: the
  load of a shared machine changes from one variant to the next. A variant whose
  first run is clearly slower than the best (1.5x) is not run again, and a run
  past 3x the first build's wall time is stopped: it cannot win, and the budget
  is better spent elsewhere.
- **The check**: every variant must print what the first build (the starting
  sizes) printed: the same array dump (PolyBench's convention, compared as
  `ppcg_py.verify` compares, within the data type's tolerance), or else the same
  text on stdout and stderr. A variant that differs is discarded. A PolyBench
  program timed by `-DPOLYBENCH_TIME` is also built with `-DPOLYBENCH_DUMP_ARRAYS`
  and that build run once for the check: the timed build stays the user's own.
- **The budget**: no variant starts after `budget` seconds (the first build is
  always measured); the last one may end a little later.

The best sizes go to a sizes file (`--sizes` syntax, `#` comments saying how they
were found); the caller then compiles with them, and a later build reads the file
with `--sizes-file` at no cost.

**CUDA** (where a GPU is present): the same search over each kernel's tile sizes
(`kernel[i] -> tile[...]`; blocks and grids follow from them as without `--sizes`),
each variant compiled with `--timing`, built with `nvcc -O3` and run with its device
code forced (`PPCG_PY_DEVICE=gpu`); its time is the sum of its kernels' times as the
timing lines print them (copies and launches between them left out), and its array
dump is checked against the first build's as above.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import permutations, product
from math import log2
from pathlib import Path

from .diagnostics import CompileError, Diagnostics
from .options import Options
from .schedule.sizes import KernelSizes, format_sizes, size_entries
from .verify.common import DUMP_DEFINE
from .verify.dump import Dump, DumpError, compare_dumps, parse_dump, tolerance_for
from .verify.harness import data_type_from_defines
from .verify.tools import BuildError, preprocessor_flags, run_program, run_tool

__all__ = ["CANDIDATES", "DEFAULT_BUDGET", "TuneResult", "TuneSettings", "refusal", "tune",
           "tuned_options", "write_sizes_file"]

CANDIDATES = (8, 16, 32, 64, 128, 256, 512)   # 512: what the cache model gives an innermost member
DEFAULT_BUDGET = 120.0
CC = ("gcc", "-O3", "-march=native", "-fopenmp")
NVCC_FLAGS = ("-O3", "-Xcompiler", "-fopenmp")
_TIMING_LINE = re.compile(r"^ppcg-py timing: [\w.-]+: \d+ launches, ([\d.]+) ms total", re.M)
NOISY = 0.05          # seconds: a run shorter than this is mostly start-up and noise
SLOWER = 1.5           # a first run this much slower than the best: the variant is not run again
_TIME_LINE = re.compile(r"^\s*(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*$")   # as polybench/pipeline.py reads it

# (band number, tile sizes, register block: rows, columns, or () where the band has none,
# point-loop order: the band's members, outermost first, or () for the compiler's choice,
# whether its full tiles are generated apart)
Tiles = tuple[tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...], bool], ...]


@dataclass(frozen=True)
class TuneSettings:
    """What `--autotune` and its options ask for."""

    budget: float = DEFAULT_BUDGET
    candidates: tuple[int, ...] = CANDIDATES
    cc_args: tuple[str, ...] = ()      # more sources and flags for gcc (polybench.c, -lm, ...)
    runs: int = 3                      # timed runs per variant (the median counts)
    run_timeout: float = 600.0         # seconds for one run of the first build
    # CUDA: builds a variant's .cu files (and cc_args) into an executable; None: nvcc
    # (tests give the CPU emulation's build)
    cuda_build: Callable[[Sequence[Path], Path, Sequence[str]], None] | None = None


@dataclass(frozen=True)
class Measurement:
    """One variant of the sizes and what came of it: `seconds` is None when it failed or
    computed something else (`note` says which)."""

    tiles: Tiles
    seconds: float | None
    note: str = ""


@dataclass
class TuneResult:
    """The outcome of a search: the starting point, the best, every variant tried."""

    start: Measurement
    best: Measurement
    tried: list[Measurement] = field(default_factory=list)
    elapsed: float = 0.0
    timer: str = "wall time"
    stopped_by_budget: bool = False
    beside: tuple[float, float] | None = None   # (start, best) timed side by side at the end
    cuda: bool = False

    def summary(self) -> str:
        """The outcome in one line: the gain, measured fairly, or that the start stays."""
        if self.best.tiles == self.start.tiles:
            return f"the starting sizes stay the best ({self.start.seconds:.4g} s)"
        if self.beside is None:
            return f"best {self.best.seconds:.4g} s, starting sizes {self.start.seconds:.4g} s"
        start, best = self.beside
        return f"{best:.4g} s against {start:.4g} s for the starting sizes, timed side by side ({start / best:.2f}x)"


def sizes_text(tiles: Tiles) -> str:
    """The tiles in `--sizes` syntax (as `--dump-sizes` prints them)."""
    return format_sizes([_band_sizes(band) for band in tiles])


def _band_sizes(band: tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...], bool]) -> tuple[int, KernelSizes]:
    n, tile, register, order, isolated = band
    return n, KernelSizes(tile, (), (), register, order, untiled=not tile, isolated=isolated)


def with_tiles(options: Options, tiles: Tiles) -> Options:
    """The options that tile with `tiles` (the cache model's sizes, or the GPU's, chosen
    when no size is given, would otherwise win over them)."""
    return replace(options, sizes=sizes_text(tiles), cache_tiles=False, device_sizes=False,
                   isolate_full_tiles=False)


def refusal(options: Options) -> str | None:
    """Why `--autotune` cannot run with these options (a usage error), or None."""
    if options.target == "cuda":
        if not gpu_present():
            return ("--autotune: the CUDA target is timed on a GPU, and this machine has none "
                    "(no nvidia-smi that lists one); tune the C target here (--target=c --openmp --tile)")
        return None
    if options.target != "c":
        return "--autotune: the C target and CUDA are tuned (--target=c --openmp --tile, or a GPU)"
    if not options.tile:
        return "--autotune: needs --tile (it chooses the tile sizes of the tiled bands)"
    return None


def gpu_present() -> bool:
    """Whether nvidia-smi lists a GPU (the only way CUDA code could be timed here)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        proc = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and "GPU" in proc.stdout


# -- building and running one variant ------------------------------------------------


@dataclass(frozen=True)
class _Run:
    """One run of a built variant."""

    proc: subprocess.CompletedProcess[str]
    seconds: float | None       # None: it failed, or printed no PolyBench time
    wall: float                 # the whole run's (set-up and output included, whatever the timer)


@dataclass(frozen=True)
class _Built:
    """A variant's executables: the one timed, built with the user's flags alone (a dump
    define changes what gcc makes of the kernel: gemm's tuned sizes won 0.22 s to 0.30 s
    with it and lost 0.35 s to 0.28 s without), and, for a PolyBench program that does
    not dump, the same text with -DPOLYBENCH_DUMP_ARRAYS, run once to check the arrays."""

    exe: Path
    check_exe: Path | None = None


class _Workbench:
    """Compiles, builds and runs the variants of one program, in a folder of its own."""

    def __init__(self, source: Path, options: Options, settings: TuneSettings, workdir: Path) -> None:
        # the variants print nothing of their own: the user's dumps are for the final compilation
        self.source, self.settings, self.workdir = source, settings, workdir
        self.cuda = options.target == "cuda"
        self.options = replace(options, dumps=frozenset(), dump_after=(), verbose=False, timing=self.cuda)
        names = {d.split("=")[0] for d in options.defines}
        # CUDA: the kernels' times, whatever the program prints
        self.polybench_timer = "POLYBENCH_TIME" in names and not self.cuda
        self.check_defines = (DUMP_DEFINE,) if self.polybench_timer and DUMP_DEFINE not in names else ()
        self._count = 0

    def compile(self, tiles: Tiles | None) -> tuple[dict[str, str], Tiles]:
        """The generated files (name -> text) and the tiles they used (None: the options'
        own sizes)."""
        from .driver import compile_bounded

        options = self.options if tiles is None else with_tiles(self.options, tiles)
        # the variants' warnings (a register block that does not fit its tile) are the
        # search's business; the final compilation warns as any other
        files = compile_bounded(str(self.source), options, Diagnostics(echo=False))
        return dict(files.items()), tuple((n, ks.tile, ks.register, ks.order, ks.isolated) for n, ks in files.sizes)

    def build(self, files: dict[str, str]) -> _Built:
        """The executables of one variant's files; BuildError says why there are none."""
        self._count += 1
        folder = self.workdir / f"variant{self._count}"
        folder.mkdir()
        for name, text in files.items():
            (folder / name).write_text(text)
        if self.cuda:
            exe = folder / self.source.stem
            self._cuda_build(sorted(folder.glob("*.cu")), exe)
            return _Built(exe)
        (name, _), = files.items()
        c_file = folder / name
        exe = self._gcc(c_file, folder / self.source.stem, ())
        check = self._gcc(c_file, folder / "check", self.check_defines) if self.check_defines else None
        return _Built(exe, check)

    def _cuda_build(self, cu_files: list[Path], exe: Path) -> None:
        flags = preprocessor_flags((*self.options.include_dirs, self.source.parent), self.options.defines)
        if self.settings.cuda_build is not None:
            self.settings.cuda_build(cu_files, exe, flags)
            return
        from .verify.nvcc import DEFAULT_ARCH, nvcc_path
        run_tool([nvcc_path() or "nvcc", *NVCC_FLAGS, f"-arch={DEFAULT_ARCH}", *flags, *cu_files,
                  *self.settings.cc_args, "-o", exe, "-lm"], timeout=600)

    def _gcc(self, c_file: Path, exe: Path, more_defines: tuple[str, ...]) -> Path:
        # the input's folder: the generated file includes what the input includes with "..."
        flags = preprocessor_flags((*self.options.include_dirs, self.source.parent),
                                   (*self.options.defines, *more_defines))
        run_tool([*CC, *flags, c_file, *self.settings.cc_args, "-o", exe, "-lm"], timeout=600)
        return exe

    def run(self, exe: Path, timeout: float, keep_stderr: bool = True) -> _Run:
        """One run; only a checked run keeps stderr (where a PolyBench dump goes), and
        every CUDA run (where the kernels' times go)."""
        start = time.perf_counter()
        env = {**os.environ, "PPCG_PY_DEVICE": "gpu"} if self.cuda else dict(os.environ)
        proc = run_program([exe], timeout=timeout, env=env, keep_stderr=keep_stderr or self.cuda)
        proc.stderr = proc.stderr or ""
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            return _Run(proc, None, wall)
        if self.cuda:
            return _Run(proc, kernel_seconds(proc.stderr), wall)
        return _Run(proc, polybench_time(proc.stdout) if self.polybench_timer else wall, wall)


def kernel_seconds(stderr: str) -> float | None:
    """The kernels' time `--timing` printed: the sum of their totals (None: no line)."""
    totals = [float(m.group(1)) for m in _TIMING_LINE.finditer(stderr)]
    return sum(totals) * 1e-3 if totals else None


def polybench_time(stdout: str) -> float | None:
    """The seconds `polybench_print_instruments` printed: the last number alone on a line."""
    for line in reversed(stdout.splitlines()):
        if match := _TIME_LINE.match(line):
            return float(match.group(1))
    return None


# -- checking a variant against the first build --------------------------------------


@dataclass(frozen=True)
class _Reference:
    """What the first build printed: its array dump, or else its text (None when the text
    changes from run to run, e.g. a program that prints its own timings: nothing to check)."""

    dump: Dump | None
    text: str | None
    tolerance: tuple[float, float]

    def differences(self, proc: subprocess.CompletedProcess[str], polybench_timer: bool) -> str | None:
        """The first difference between a variant's run and the reference, or None."""
        if self.dump is not None:
            try:
                problems = compare_dumps(self.dump, parse_dump(proc.stderr),
                                         rtol=self.tolerance[0], atol=self.tolerance[1])
            except DumpError as exc:
                return f"no dump ({exc})"
            return problems[0] if problems else None
        if self.text is not None and _output_text(proc, polybench_timer) != self.text:
            return "its output differs"
        return None


def _output_text(proc: subprocess.CompletedProcess[str], polybench_timer: bool) -> str:
    """stdout and stderr, without the times PolyBench and --timing print (they change
    every run)."""
    stdout = proc.stdout
    if polybench_timer:
        lines = stdout.splitlines()
        for k in range(len(lines) - 1, -1, -1):
            if _TIME_LINE.match(lines[k]):
                del lines[k]
                break
        stdout = "\n".join(lines)
    stderr = "".join(line for line in proc.stderr.splitlines(keepends=True) if not line.startswith("ppcg-py timing:"))
    return stdout + "\0" + stderr


def _reference(runs: Sequence[_Run], defines: Sequence[str], polybench_timer: bool) -> _Reference:
    tolerance = tolerance_for(data_type_from_defines(list(defines)))
    try:
        return _Reference(parse_dump(runs[0].proc.stderr), None, tolerance)
    except DumpError:
        pass
    texts = {_output_text(r.proc, polybench_timer) for r in runs[:2]}
    return _Reference(None, texts.pop() if len(texts) == 1 else None, tolerance)


# -- the search ----------------------------------------------------------------------


class _BudgetSpent(Exception):
    pass


class _Search:
    """The state of a search: the best so far, what was tried, the deadline."""

    def __init__(self, bench: _Workbench, settings: TuneSettings, say: Callable[[str], None]) -> None:
        self.bench, self.settings, self.say = bench, settings, say
        self.started = time.monotonic()
        self.deadline = self.started + settings.budget
        self.tried: dict[Tiles, Measurement] = {}     # by the sizes asked and the sizes used
        self.measured = 0
        self.reference: _Reference | None = None
        self.patience = settings.run_timeout   # seconds a variant's run may take: 3x the first build's
        self.best: Measurement | None = None
        self.best_exe: Path | None = None      # kept to time it again beside a challenger
        self.start_exe: Path | None = None

    def first(self) -> Measurement:
        """The starting sizes, measured without regard to the budget: the reference."""
        try:
            files, tiles = self.bench.compile(None)
            built = self.bench.build(files)
        except BuildError as exc:
            raise CompileError(f"--autotune: the first build failed: {_first_line(exc.stderr)}",
                               str(self.bench.source)) from None
        checked = [] if built.check_exe is None else [self._first_run(built.check_exe, True)]
        # without a check build, two timed runs keep their output: is it the same every time?
        runs = [self._first_run(built.exe, not checked and k < 2) for k in range(self.settings.runs)]
        self.reference = _reference(checked or runs[:2], self.bench.options.defines, self.bench.polybench_timer)
        if self.reference.dump is None and self.reference.text is None:
            self.say("warning: the program prints something else on every run (and no PolyBench dump): "
                     "the variants' results are not checked")
        # the timeout is in wall time: PolyBench's time leaves out the set-up and the dump
        self.patience = min(self.settings.run_timeout, 3 * max(r.wall for r in checked + runs) + 2)
        measured = Measurement(tiles, statistics.median(r.seconds for r in runs if r.seconds is not None))
        self._record(measured, built.exe)
        self.start_exe = built.exe
        return measured

    def _first_run(self, exe: Path, keep_stderr: bool) -> _Run:
        run = self.bench.run(exe, self.settings.run_timeout, keep_stderr=keep_stderr)
        if run.seconds is None:
            raise CompileError("--autotune: the first build's run " + _failure(run, self.bench.polybench_timer),
                               str(self.bench.source))
        return run

    def attempt(self, tiles: Tiles) -> None:
        """Measure one variant (unless tried already) and keep it if it is the best."""
        if tiles in self.tried:
            return
        if time.monotonic() >= self.deadline:
            raise _BudgetSpent
        try:
            files, used = self.bench.compile(tiles)
        except CompileError as exc:
            self._record(Measurement(tiles, None, f"ppcg-py failed: {exc.message}"), None)
            return
        if used != tiles and used in self.tried:    # the sizes of a variant tried already, once fitted
            self.tried[tiles] = self.tried[used]
            return
        measured, exe = self._measure(used, files)
        assert self.best is not None and self.best.seconds is not None
        if exe is not None and measured.seconds is not None and not measured.note and \
                measured.seconds < self.best.seconds:
            measured = self._confirmed(measured, exe)
        self._record(measured, exe)

    def side_by_side(self) -> tuple[float, float] | None:
        """The starting sizes and the best timed in turn (medians): the gain to report, free
        of the drift between the first build's runs and the best's."""
        assert self.start_exe is not None and self.best_exe is not None
        pairs = [(self.bench.run(self.start_exe, self.patience, keep_stderr=False).seconds,
                  self.bench.run(self.best_exe, self.patience, keep_stderr=False).seconds)
                 for _ in range(self.settings.runs)]
        if any(a is None or b is None for a, b in pairs):
            return None
        return statistics.median(a for a, _ in pairs), statistics.median(b for _, b in pairs)  # type: ignore[misc]

    def _confirmed(self, challenger: Measurement, exe: Path) -> Measurement:
        """The challenger timed again, each run beside a run of the best: on a shared
        machine the load changes between variants, and a variant timed in a quiet moment
        would otherwise win on luck. The best's time is refreshed by the way."""
        assert self.best is not None and self.best_exe is not None
        theirs: list[float] = []
        mine: list[float] = []
        for _ in range(self.settings.runs):
            best_run = self.bench.run(self.best_exe, self.patience, keep_stderr=False)
            run = self.bench.run(exe, self.patience, keep_stderr=False)
            if best_run.seconds is None or run.seconds is None:
                return replace(challenger, note="failed when timed again")
            theirs.append(best_run.seconds)
            mine.append(run.seconds)
        self.best = replace(self.best, seconds=statistics.median(theirs))
        seconds = statistics.median(mine)
        if seconds < self.best.seconds:
            return replace(challenger, seconds=seconds)
        return Measurement(challenger.tiles, seconds, f"not faster timed beside the best: {self.best.seconds:.4g} s")

    def _measure(self, tiles: Tiles, files: dict[str, str]) -> tuple[Measurement, Path | None]:
        """The variant compiled to `files` with `tiles` (the sizes the compiler used)."""
        assert self.best is not None and self.best.seconds is not None and self.reference is not None
        try:
            built = self.bench.build(files)
        except BuildError as exc:
            return Measurement(tiles, None, f"build failed: {_first_line(exc.stderr)}"), None
        if built.check_exe is not None and (why := self._wrong(self.bench.run(built.check_exe, self.patience))):
            return Measurement(tiles, None, why), None
        best = self.best.seconds
        times: list[float] = []
        for k in range(self.settings.runs):
            checked_here = built.check_exe is None and k == 0
            run = self.bench.run(built.exe, self.patience, keep_stderr=checked_here)
            if why := self._wrong(run, checked_here):
                return Measurement(tiles, None, why), None
            assert run.seconds is not None
            times.append(run.seconds)
            if k == 0 and run.seconds > SLOWER * best:   # only the first: later runs are medianed, noise and all
                return Measurement(tiles, run.seconds, "slower, 1 run"), None
        return Measurement(tiles, statistics.median(times)), built.exe

    def _wrong(self, run: _Run, check: bool = True) -> str | None:
        """Why a run disqualifies its variant (too slow, failed, differs), or None."""
        assert self.reference is not None
        if run.proc.returncode == 124:
            return f"slower: stopped after {self.patience:.3g} s"
        if run.seconds is None:
            return _failure(run, self.bench.polybench_timer)
        if check and (why := self.reference.differences(run.proc, self.bench.polybench_timer)):
            return f"discarded, differs from the first build: {why}"
        return None

    def _record(self, measured: Measurement, exe: Path | None) -> None:
        self.tried[measured.tiles] = measured
        self.measured += 1
        if measured.seconds is not None and not measured.note and \
                (self.best is None or self.best.seconds is None or measured.seconds < self.best.seconds):
            self.best, self.best_exe = measured, exe
        self.say(_progress_line(self.measured, measured, self.best))


def _progress_line(count: int, measured: Measurement, best: Measurement | None) -> str:
    seconds = "-" if measured.seconds is None else f"{measured.seconds:.4g} s"
    note = f" ({measured.note})" if measured.note else ""
    best_text = f"{best.seconds:.4g} s" if best is not None and best.seconds is not None else "-"
    return f"autotune: [{count}] {sizes_text(measured.tiles)}: {seconds}{note}; best {best_text}"


def _failure(run: _Run, polybench_timer: bool) -> str:
    if run.proc.returncode != 0:
        return f"failed: exit status {run.proc.returncode}: {_first_line(run.proc.stderr)}"
    return "printed no PolyBench time (-DPOLYBENCH_TIME)" if polybench_timer else "failed"


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "no output")


def _distance(a: Sequence[int], b: Sequence[int]) -> float:
    """How far two tile shapes are apart, in doublings (8 -> 16 as far as 128 -> 256)."""
    return sum(abs(log2(x) - log2(y)) for x, y in zip(a, b))


def band_variants(current: tuple[int, ...], candidates: Sequence[int],
                  member: int | None = None) -> list[tuple[int, ...]]:
    """A band's tile shapes to try, nearest the current one first: with `member` None,
    every combination of the candidates; else that member's candidates and half and
    twice its current size (the cache model's sizes are whole register blocks, 48 or
    96, which no power of two is), the others as they are."""
    if member is None:
        return sorted(product(candidates, repeat=len(current)), key=lambda shape: _distance(shape, current))
    size = current[member]
    values = set(candidates) | {size * 2} | ({size // 2} if size % 2 == 0 and size >= 8 else set())
    return [current[:member] + (v,) + current[member + 1:]
            for v in sorted(values, key=lambda v: (_distance((v,), (size,)), v))]


def register_variants(current: tuple[int, ...]) -> list[tuple[int, ...]]:
    """A band's register blocks to try from its current one (rows, columns): half the
    rows and twice the columns, the reverse, and none (1, 1); nothing where it has none."""
    if len(current) != 2 or current == (1, 1):
        return []
    rows, columns = current
    shapes = [(rows // 2, columns * 2), (rows * 2, columns // 2), (1, 1)]
    return [shape for shape in shapes if min(shape) >= 1 and (shape == (1, 1) or shape[0] * shape[1] > 1)]


def _with_band(tiles: Tiles, band: int, shape: tuple[int, ...], register: tuple[int, ...] | None = None,
               order: tuple[int, ...] | None = None, isolated: bool | None = None) -> Tiles:
    """`tiles` with band `band`'s sizes `shape`, its register block `register`, its
    point-loop order `order` and its full tiles apart or not (`isolated`); by default
    the order and the isolation it had, and the block the compiler chooses for those
    sizes and that order (a block must divide the tile, and sit on the innermost
    loop), or none if the band had none."""
    def block(tile: tuple[int, ...], reg: tuple[int, ...], was: tuple[int, ...]) -> tuple[int, ...]:
        if register is not None:
            return register
        return reg if (shape == tile and order in (None, was)) or reg in ((), (1, 1)) else ()
    return tuple((n, shape, block(tile, reg, was), was if order is None else order,
                  apart if isolated is None else isolated) if n == band else (n, tile, reg, was, apart)
                 for n, tile, reg, was, apart in tiles)


def order_variants(current: tuple[int, ...]) -> list[tuple[int, ...]]:
    """A band's point-loop orders to try from its current one: every other order of up
    to three members; for more, each other member moved innermost."""
    if len(current) <= 3:
        return [order for order in permutations(sorted(current)) if order != current]
    return [tuple(m for m in current if m != last) + (last,) for last in current[:-1]]


def _sweep(search: _Search) -> None:
    """One pass of coordinate descent over the bands: first the few variants of each
    band's code (its full tiles apart or not, its point-loop orders), so that a budget
    of minutes reaches every band; then its sizes. A band of one or two members tries
    every combination; a band of more moves one member at a time, each from the best so
    far (so that the members' choices compound), then its register block's shapes."""
    assert search.best is not None
    for band, *_ in ([] if search.bench.cuda else search.best.tiles):    # the C target's code variants
        current, _, order, isolated = _band(search.best.tiles, band)
        if current:     # a tiled band: its full tiles apart, or back together
            search.attempt(_with_band(search.best.tiles, band, current, isolated=not isolated))
        for other in order_variants(order):
            search.attempt(_with_band(search.best.tiles, band, current, order=other))
    for band, tile, *_ in search.best.tiles:
        for member in [None] if len(tile) <= 2 else range(len(tile)):
            current = _band(search.best.tiles, band)[0]
            for shape in band_variants(current, search.settings.candidates, member):
                search.attempt(_with_band(search.best.tiles, band, shape))
        current, register, _, _ = _band(search.best.tiles, band)
        for block in [] if search.bench.cuda else register_variants(register):
            search.attempt(_with_band(search.best.tiles, band, current, block))


def _band(tiles: Tiles, band: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], bool]:
    return next((tile, register, order, isolated) for n, tile, register, order, isolated in tiles if n == band)


def tune(source: Path, options: Options, settings: TuneSettings,
         say: Callable[[str], None]) -> TuneResult:
    """Search the tile sizes of `source` compiled with `options` (see the module's text);
    progress goes to `say`, one line per variant."""
    with tempfile.TemporaryDirectory(prefix="ppcg-py-autotune-") as workdir:
        bench = _Workbench(source, options, settings, Path(workdir))
        search = _Search(bench, settings, say)
        timer = "the kernels' --timing times" if bench.cuda else \
            "PolyBench's printed time" if bench.polybench_timer else "wall time"
        say(f"autotune: {source.name}: timing {settings.runs} runs per variant ({timer}), "
            f"budget {settings.budget:g} s, tile sizes from {', '.join(map(str, settings.candidates))}")
        start = search.first()
        if not start.tiles:
            say("warning: no kernel was tiled: nothing to tune" if bench.cuda else "warning: no band was tiled: nothing to tune")
        elif start.seconds is not None and start.seconds < NOISY:
            say(f"warning: the program runs for {start.seconds * 1e3:.3g} ms: noise may decide between "
                "variants (a larger problem size times better)")
        stopped = False
        try:
            while True:
                before = search.best
                _sweep(search)
                if search.best is before:
                    break
        except _BudgetSpent:
            stopped = True
        assert search.best is not None
        elapsed = time.monotonic() - search.started
        best, beside = search.best, None
        if best.tiles != start.tiles:
            beside = search.side_by_side()
            if beside is None or beside[1] >= beside[0]:   # its win was noise: a sizes file must not lose
                say(f"autotune: {sizes_text(best.tiles)} is not faster than the starting sizes timed side by "
                    f"side{'' if beside is None else f' ({beside[1]:.4g} s against {beside[0]:.4g} s)'}: "
                    "keeping the starting sizes")
                best, beside = start, None
        return TuneResult(start, best, list(search.tried.values()), elapsed, timer, stopped, beside, bench.cuda)


# -- the sizes file and the caller's options -----------------------------------------


def sizes_file_contents(source: Path, result: TuneResult, settings: TuneSettings) -> str:
    """The sizes file: how the sizes were found, as comments, then the sizes, one band a line."""
    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    compiler = shlex.join([*(("nvcc", *NVCC_FLAGS) if result.cuda else CC), *settings.cc_args])
    lines = [
        f"# ppcg-py --autotune for {source.name}, {datetime.now():%Y-%m-%d %H:%M}: "
        f"{len(result.tried)} variants in {result.elapsed:.0f} s (budget {settings.budget:g} s"
        f"{', spent' if result.stopped_by_budget else ''})",
        f"# {result.timer}, median of {settings.runs} runs; OMP_NUM_THREADS={threads}; built with {compiler}",
        f"# starting sizes {sizes_text(result.start.tiles)}: {result.start.seconds:.4g} s",
        f"# {result.summary()}",
    ]
    body = ";\n  ".join("; ".join(size_entries(*_band_sizes(band))) for band in result.best.tiles)
    return "\n".join(lines) + "\n" + ("{ " + body + " }" if body else "{ }") + "\n"


def write_sizes_file(path: Path, source: Path, result: TuneResult, settings: TuneSettings) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(sizes_file_contents(source, result, settings))


def tuned_options(source: str, options: Options, settings: TuneSettings, sizes_file: Path,
                  say: Callable[[str], None]) -> Options:
    """Tune, write the sizes file, and return the options that compile with the best sizes."""
    result = tune(Path(source), options, settings, say)
    write_sizes_file(sizes_file, Path(source), result, settings)
    best = result.best
    say(f"autotune: best {sizes_text(best.tiles)}: {result.summary()}; written to {sizes_file}")
    return with_tiles(options, best.tiles) if best.tiles else options
