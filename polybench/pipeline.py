"""One benchmark through the whole experiment: compile, build, run, verify, time.

Each step either produces what the next needs or stops the benchmark with a
status and the first line of the tool's complaint, so a table of 30 rows says
at a glance where each kernel broke.  Full logs stay in the kernel's work dir.

Both programs are built once with `POLYBENCH_DUMP_ARRAYS` (arrays to stderr,
after the timed region) and `POLYBENCH_TIME` (seconds to stdout), so the runs
that are timed are the runs that are checked.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from ppcg_py.verify.dump import Dump, DumpError, compare_dumps, parse_dump, tolerance_for
from ppcg_py.verify.c_target import generated_c_file, thread_label
from ppcg_py.verify.emulate import build_emulated, run_emulated
from ppcg_py.verify.harness import VerifyConfig, generated_files, run_ppcg
from ppcg_py.verify.nvcc import DEFAULT_ARCH
from ppcg_py.verify.opencl import build_opencl, run_opencl
from ppcg_py.verify.tools import BuildError, preprocessor_flags, run_tool

from .builds import build_program
from .kernels import dataset_macro
from .machine import gpu_name
from .suite import Benchmark

__all__ = [
    "FAILED",
    "KernelResult",
    "Settings",
    "first_error_line",
    "parse_time",
    "run_benchmark",
]

# Statuses, in the order a benchmark meets the steps that give them.
PASS = "PASS"
UNVERIFIED = "UNVERIFIED"  # ran, but --no-verify: nothing compared
COMPILE_ERROR = "COMPILE_ERROR"  # ppcg-py rejected the program or crashed
REFERENCE_ERROR = "REFERENCE_ERROR"  # the original program did not build or run
BUILD_ERROR = "BUILD_ERROR"  # nvcc, clang or the emulation's g++ rejected the output
RUN_ERROR = "RUN_ERROR"  # the generated program crashed or printed no time/dump
MISMATCH = "MISMATCH"  # it ran, but its arrays differ from the original's
TIMEOUT = "TIMEOUT"
FAILED = frozenset({COMPILE_ERROR, REFERENCE_ERROR, BUILD_ERROR, RUN_ERROR, MISMATCH, TIMEOUT})

CC = "gcc"
REFERENCE_CFLAGS = ("-O3", "-std=gnu99")
TIME_DEFINE = "POLYBENCH_TIME"
# nvcc contracts a*b+c into fused multiply-adds and the GPU's math library rounds
# differently from glibc's, so results on a GPU differ from gcc's in the last bits.
GPU_TOLERANCES = {"double": (1e-6, 1e-9), "float": (1e-3, 1e-5), "int": (0.0, 0.0)}
_TIME_LINE = re.compile(r"^\s*(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*$")
_ERROR_WORD = re.compile(r"\berror\b", re.I)
_MAX_MESSAGE = 300


@dataclass(frozen=True)
class Settings:
    """How every benchmark of one experiment is compiled, built, run and compared."""

    dataset: str = "MINI"
    build: str = "nvcc"  # "nvcc", "clang" or "none" (emulation only)
    on_gpu: bool = False  # run the real binary; else the CPU emulation
    host_path: bool = False  # run the real binary with no device: each SCoP takes its host path
    repeat: int = 3
    verify: bool = True
    ppcg_args: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()  # extra -D for every build and for ppcg-py
    full_precision: bool = True  # False for the official suite: it prints 2 decimals
    tolerance: tuple[float, float] | None = None  # (rtol, atol); None: by data type
    orders: tuple[str, ...] = ("forward", "reverse")  # fiber orders in emulation
    run_timeout: float = 300
    compile_timeout: float = 900
    arch: str = DEFAULT_ARCH
    target: str = "cuda"  # "c": NAME.ppcg.c (--target=c --openmp) built with gcc -O3 -fopenmp;
    # "opencl": gcc -lOpenCL, run on the OpenCL runtime (e.g. PoCL)
    threads: tuple[int, ...] = (1, 2, 4)  # C target: OMP_NUM_THREADS of each run; the first is timed

    @property
    def mode(self) -> str:
        if self.target == "c":
            return "openmp"
        if self.host_path:
            return "host-path"
        return "opencl" if self.target == "opencl" else "gpu" if self.on_gpu else "emulation"

    @property
    def runs_real(self) -> bool:
        """Whether the built program runs (on a GPU or an OpenCL device), not the emulation."""
        return self.on_gpu or self.host_path or self.target == "opencl"


@dataclass
class KernelResult:
    """One row of the results table."""

    kernel: str
    category: str
    dataset: str
    mode: str
    build: str
    status: str = PASS
    compile_s: float | None = None
    build_s: float | None = None  # nvcc or clang, compile and link
    emu_build_s: float | None = None  # g++ build for the CPU emulation
    ref_time_s: float | None = None  # median of the original's timed runs
    gen_time_s: float | None = None  # median of the generated program's timed runs
    kernels: int | None = None  # __global__ functions ppcg-py wrote (C target: OpenMP loops)
    error: str = ""
    ref_times: list[float] = field(default_factory=list)
    gen_times: list[float] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.status in FAILED

    @property
    def speedup(self) -> float | None:
        """Original time over generated time; None when either is missing or zero, and
        for a failed kernel: the speed of a wrong result means nothing."""
        if self.failed or not self.ref_time_s or not self.gen_time_s:
            return None
        return self.ref_time_s / self.gen_time_s


@dataclass(frozen=True)
class Generated:
    """What ppcg-py wrote: CUDA files, and the host file when it stays C (inputs with
    variable-length array parameters, which C++ rejects), to be compiled as C."""

    cu_files: tuple[Path, ...]
    c_files: tuple[Path, ...]


class _Stop(Exception):
    """Ends a benchmark early with a failed status."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def first_error_line(text: str, fallback: str = "") -> str:
    """The line of a tool's output that says what went wrong, for the table.

    Compilers print context ("In function ...") before the error itself, so the
    first line that contains the word "error" wins; else the first non-empty one.
    A Python traceback ends with the exception, so there the last line wins.
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if any(line.startswith("Traceback (most recent call last)") for line in lines):
        lines = lines[-1:]  # a Python crash: the exception is the last line
    chosen = next((line for line in lines if _ERROR_WORD.search(line)), None)
    chosen = chosen or (lines[0] if lines else fallback)
    return chosen if len(chosen) <= _MAX_MESSAGE else chosen[: _MAX_MESSAGE - 3] + "..."


def parse_time(stdout: str) -> float | None:
    """The seconds `polybench_print_instruments` printed: the last number alone on a line."""
    for line in reversed(stdout.splitlines()):
        if match := _TIME_LINE.match(line):
            return float(match.group(1))
    return None


def _run(
    argv: Sequence[str | Path],
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    keep_stderr: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run a program; a timeout is exit status 124, like timeout(1).  Never raises.

    Timed runs after the first do not need the array dump, which at large
    datasets is tens of megabytes: `keep_stderr=False` discards it.
    """
    args = [str(a) for a in argv]
    stderr = subprocess.PIPE if keep_stderr else subprocess.DEVNULL
    try:
        return subprocess.run(
            args,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, 124, "", f"timed out after {timeout:g} s")
    except OSError as exc:
        return subprocess.CompletedProcess(args, 127, "", f"{args[0]}: {exc}")


class _Benchmark:
    """The state of one benchmark while its steps run; see run_benchmark()."""

    def __init__(
        self,
        bench: Benchmark,
        settings: Settings,
        workdir: Path,
        timing_lock: threading.Lock | None,
    ) -> None:
        self.bench = bench
        self.settings = settings
        self.workdir = workdir
        self.timing_lock = timing_lock
        self.cfg = VerifyConfig(
            source=bench.source,
            include_dirs=bench.include_dirs,
            defines=(dataset_macro(settings.dataset), TIME_DEFINE, *settings.defines),
            extra_c_sources=(str(bench.polybench_c),),
            ppcg_args=settings.ppcg_args,
            data_type=bench.data_type,
            run_timeout=settings.run_timeout,
            compile_timeout=settings.compile_timeout,
            full_precision=settings.full_precision,
            target=settings.target,
        )
        self.result = KernelResult(
            bench.name, bench.category, settings.dataset, settings.mode, settings.build
        )

    # -- helpers ---------------------------------------------------------------------

    def _log(self, name: str, text: str) -> None:
        (self.workdir / name).write_text(text)

    def _timed(self) -> threading.Lock | nullcontext[None]:
        """Timed runs of different benchmarks must not overlap (with --jobs > 1)."""
        return self.timing_lock if self.timing_lock is not None else nullcontext()

    def _build(self, what: str, log: str, action: Callable[[], object]) -> float:
        start = time.perf_counter()
        try:
            action()
        except BuildError as exc:
            self._log(log, exc.stderr)
            status = TIMEOUT if "timed out after" in exc.stderr else BUILD_ERROR
            raise _Stop(status, f"{what}: {first_error_line(exc.stderr, 'failed')}") from None
        return time.perf_counter() - start

    # -- steps -----------------------------------------------------------------------

    def compile(self) -> Generated:
        """ppcg-py on the original; the files it wrote."""
        out_dir = self.workdir / "generated"
        shutil.rmtree(out_dir, ignore_errors=True)
        out_dir.mkdir(parents=True)
        start = time.perf_counter()
        proc = run_ppcg(self.cfg, out_dir)
        self.result.compile_s = time.perf_counter() - start
        self._log("ppcg.log", proc.stdout + proc.stderr)
        if proc.returncode == 124:
            raise _Stop(TIMEOUT, f"ppcg-py: {first_error_line(proc.stderr)}")
        if proc.returncode != 0:
            why = first_error_line(proc.stderr, f"exit status {proc.returncode}")
            raise _Stop(COMPILE_ERROR, why)
        if self.settings.target == "c":
            source = generated_c_file(self.bench.source, out_dir)
            if not source.exists():
                raise _Stop(COMPILE_ERROR, f"ppcg-py exited 0 but wrote no {source.name}")
            # OpenMP loops: `parallel for`, or `for` inside a parallel region
            self.result.kernels = len(re.findall(r"#pragma omp (?:parallel )?for\b", source.read_text()))
            return Generated((), (source,))
        if self.settings.target == "opencl":
            host, kernel = out_dir / f"{self.bench.source.stem}_host.c", out_dir / f"{self.bench.source.stem}_kernel.cl"
        else:
            host, kernel = generated_files(self.bench.source, out_dir)
        if not host.exists():
            raise _Stop(COMPILE_ERROR, f"ppcg-py exited 0 but wrote no {host.name}")
        if not kernel.exists():
            self.result.kernels = 0
            return Generated((host,), ())
        self.result.kernels = len(re.findall(r"__kernel\b" if kernel.suffix == ".cl" else r"__global__",
                                             kernel.read_text()))
        if host.suffix == ".c":
            return Generated((kernel,), (host,))
        return Generated((host, kernel), ())

    def build_reference(self) -> Path:
        exe = self.workdir / "reference"
        flags = preprocessor_flags(self.cfg.include_dirs, self.cfg.all_defines)
        command: list[str | Path] = [CC, *REFERENCE_CFLAGS, *flags, self.bench.source]
        command += [self.bench.polybench_c, "-o", exe, "-lm"]
        try:
            run_tool(command, timeout=self.settings.compile_timeout)
        except BuildError as exc:
            self._log("reference-build.log", exc.stderr)
            raise _Stop(REFERENCE_ERROR, f"gcc: {first_error_line(exc.stderr)}") from None
        return exe

    def build_real(self, generated: Generated) -> Path | None:
        """The program for a GPU, with nvcc or clang; None for --build none."""
        toolchain = self.settings.build
        if self.settings.target == "c":
            return self._build_c(generated)
        if self.settings.target == "opencl":   # beside its kernel file, which it reads when it runs
            exe = generated.c_files[0].parent / "generated-opencl"

            def build() -> None:
                build_opencl(generated.c_files[0], exe, c_sources=[self.bench.polybench_c],
                             include_dirs=self.cfg.include_dirs, defines=self.cfg.all_defines,
                             cflags=REFERENCE_CFLAGS, timeout=self.settings.compile_timeout)

            self.result.build_s = self._build("gcc -lOpenCL", "opencl-build.log", build)
            return exe
        if toolchain == "none":
            return None
        exe = self.workdir / f"generated-{toolchain}"

        def action() -> None:
            build_program(
                toolchain,
                generated.cu_files,
                exe,
                c_sources=[*generated.c_files, self.bench.polybench_c],
                include_dirs=self.cfg.include_dirs,
                defines=self.cfg.all_defines,
                arch=self.settings.arch,
                timeout=self.settings.compile_timeout,
            )

        self.result.build_s = self._build(toolchain, f"{toolchain}.log", action)
        return exe

    def _build_c(self, generated: Generated) -> Path:
        """The C target's file with gcc -O3 -fopenmp (the reference's flags and OpenMP)."""
        exe = self.workdir / "generated-c"
        # the generated file is in generated/: the kernel's directory for its "..." includes
        flags = preprocessor_flags((*self.cfg.include_dirs, self.bench.source.parent), self.cfg.all_defines)
        command: list[str | Path] = [CC, *REFERENCE_CFLAGS, "-fopenmp", *flags, *generated.c_files]
        command += [self.bench.polybench_c, "-o", exe, "-lm"]
        self.result.build_s = self._build("gcc", "gcc.log", lambda: run_tool(
            command, timeout=self.settings.compile_timeout))
        return exe

    def build_emulation(self, generated: Generated) -> Path:
        exe = self.workdir / "emulated"

        def action() -> None:
            build_emulated(
                generated.cu_files,
                exe,
                c_sources=[self.bench.polybench_c],
                plain_c_sources=generated.c_files,
                include_dirs=self.cfg.include_dirs,
                defines=self.cfg.all_defines,
                source_dir=self.workdir / "emulated-src",
                timeout=self.settings.compile_timeout,
            )

        self.result.emu_build_s = self._build("emulated build", "emulated-build.log", action)
        return exe

    def _checked_run(
        self,
        what: str,
        status: str,
        run: Callable[[bool], subprocess.CompletedProcess[str]],
        times: list[float],
        *,
        keep_stderr: bool,
    ) -> subprocess.CompletedProcess[str]:
        """One run that must succeed and print its time; the time joins `times`."""
        proc = run(keep_stderr)
        if keep_stderr:
            self._log(f"{what.replace(' ', '-')}.stderr", proc.stderr)
        if proc.returncode == 124:
            raise _Stop(TIMEOUT, f"{what}: {first_error_line(proc.stderr)}")
        if proc.returncode != 0:
            raise _Stop(
                status,
                f"{what}: {_exit_reason(proc.returncode)}: "
                + first_error_line(proc.stderr or proc.stdout, "no output"),
            )
        seconds = parse_time(proc.stdout)
        if seconds is None:
            raise _Stop(status, f"{what}: printed no time (is {TIME_DEFINE} honoured?)")
        times.append(seconds)
        return proc

    def _dump(self, what: str, status: str, proc: subprocess.CompletedProcess[str]) -> Dump:
        try:
            return parse_dump(proc.stderr)
        except DumpError as exc:
            raise _Stop(status, f"{what}: {exc}") from None

    def run_reference(self, exe: Path) -> Dump | None:
        """The original's timed runs; its array dump (from the first) when verifying."""
        times = self.result.ref_times
        timeout, verify = self.settings.run_timeout, self.settings.verify

        def run(keep: bool) -> subprocess.CompletedProcess[str]:
            return _run([exe], timeout=timeout, keep_stderr=keep)

        what, status = "reference run", REFERENCE_ERROR
        with self._timed():
            first = self._checked_run(what, status, run, times, keep_stderr=True)
            for _ in range(self.settings.repeat - 1):
                self._checked_run(what, status, run, times, keep_stderr=False)
        self.result.ref_time_s = statistics.median(times)
        return self._dump("reference run", REFERENCE_ERROR, first) if verify else None

    def run_generated(self, exe: Path) -> dict[str, Dump]:
        """The generated program's timed runs; its dump per thread order (or "gpu").

        On a GPU the real binary runs.  In the emulation the first timed run uses
        the forward order and each other order runs once more for its dump: a
        different order gives different numbers only where a barrier is missing.
        """
        settings, times = self.settings, self.result.gen_times
        if settings.target == "c":
            orders: tuple[str, ...] = tuple(thread_label(n) for n in settings.threads)
            if not settings.verify:
                orders = orders[:1]
        elif settings.host_path:
            orders = ("host",)
        elif settings.runs_real:
            orders = ("opencl",) if settings.target == "opencl" else ("gpu",)
        else:
            orders = settings.orders if settings.verify else settings.orders[:1]

        threads = {thread_label(n): n for n in settings.threads}

        def runner(order: str) -> Callable[[bool], subprocess.CompletedProcess[str]]:
            if order in threads and settings.target == "c":
                env = {**os.environ, "OMP_NUM_THREADS": str(threads[order])}
                return lambda keep: _run([exe], timeout=settings.run_timeout, env=env, keep_stderr=keep)
            if order == "gpu":
                return lambda keep: _run([exe], timeout=settings.run_timeout, keep_stderr=keep)
            if order == "host" and settings.target == "opencl":   # no OpenCL platform found
                return lambda keep: run_opencl(exe, timeout=settings.run_timeout, keep_stderr=keep, device=False)
            if order == "host":    # a machine with a GPU takes the host paths when told so
                env = {**os.environ, "PPCG_PY_DEVICE": "cpu" if gpu_name() else "auto"}
                return lambda keep: _run([exe], timeout=settings.run_timeout, env=env, keep_stderr=keep)
            if order == "opencl":
                return lambda keep: run_opencl(exe, timeout=settings.run_timeout, keep_stderr=keep)
            # the emulation has a device: the device code is what it checks
            return lambda keep: run_emulated(exe, order, timeout=settings.run_timeout, env={"PPCG_PY_DEVICE": "gpu"})

        dumps: dict[str, Dump] = {}
        with self._timed():
            for index, order in enumerate(orders):
                what = "run" if order in ("gpu", "opencl", "host") else f"run {order}"
                samples = times if index == 0 else []
                proc = self._checked_run(what, RUN_ERROR, runner(order), samples, keep_stderr=True)
                if settings.verify:
                    dumps[order] = self._dump(what, RUN_ERROR, proc)
            first = runner(orders[0])
            what = "run" if orders[0] in ("gpu", "opencl", "host") else f"run {orders[0]}"
            for _ in range(settings.repeat - 1):
                self._checked_run(what, RUN_ERROR, first, times, keep_stderr=False)
        self.result.gen_time_s = statistics.median(times)
        return dumps

    def tolerance(self) -> tuple[float, float]:
        """(rtol, atol): as asked, else looser on a GPU than in the emulation."""
        if self.settings.tolerance is not None:
            return self.settings.tolerance
        if self.settings.on_gpu and self.settings.target != "c":
            return GPU_TOLERANCES[self.bench.data_type]
        return tolerance_for(self.bench.data_type)

    def compare(self, expected: Dump, dumps: dict[str, Dump]) -> None:
        rtol, atol = self.tolerance()
        for order, actual in dumps.items():
            problems = compare_dumps(expected, actual, rtol=rtol, atol=atol)
            if problems:
                self._log(f"mismatch-{order}.txt", "\n".join(problems) + "\n")
                raise _Stop(MISMATCH, f"{order}: {problems[0]}")


def run_benchmark(
    bench: Benchmark,
    settings: Settings,
    workdir: str | Path,
    *,
    note: Callable[[str], None] = lambda _text: None,
    timing_lock: threading.Lock | None = None,
) -> KernelResult:
    """Compile, build, run, verify and time one benchmark; never raises for its failures.

    `note` hears one short phrase per finished step ("compile 0.52 s"), for
    progress lines.  Everything is written under `workdir`.
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    state = _Benchmark(bench, settings, workdir, timing_lock)
    result = state.result
    try:
        generated = state.compile()
        note(f"compile {result.compile_s:.2f} s")
        reference = state.build_reference()
        real = state.build_real(generated)
        if result.build_s is not None:
            note(f"build {result.build_s:.1f} s")
        if settings.target == "c":
            exe = real
        else:
            exe = real if settings.runs_real and real is not None else state.build_emulation(generated)
        if result.emu_build_s is not None:
            note(f"emu build {result.emu_build_s:.1f} s")
        expected = state.run_reference(reference)
        dumps = state.run_generated(exe)
        if expected is not None:
            state.compare(expected, dumps)
            note(f"verify {PASS} ({', '.join(dumps)})")
        else:
            result.status = UNVERIFIED
        note(f"time {_seconds(result.gen_time_s)} vs {_seconds(result.ref_time_s)}")
    except _Stop as stop:
        result.status, result.error = stop.status, stop.message
        note(f"{stop.status}: {stop.message}")
    return result


def _exit_reason(returncode: int) -> str:
    """ "exit status 1", or "killed by SIGSEGV" for a negative status."""
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


def _seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.6f} s"
