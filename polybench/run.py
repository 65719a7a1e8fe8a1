"""python -m polybench: ppcg-py on PolyBench/C, verified and timed, as a table and a plot.

For each kernel: compile with ppcg-py (timed), build with nvcc or clang, run on
the GPU when `nvidia-smi -L` finds one and otherwise in the CPU emulation of
CUDA (forward and reverse thread order), compare the dumped arrays with the
original built by gcc, and time both (median of --repeat runs).  A kernel that
fails is a row with its status and first error line; the others go on, and
the exit status is 1 when any failed.

With `--target opencl` ppcg-py writes OpenCL instead: gcc builds the host file
with -lOpenCL and the program runs once per repeat on the installed OpenCL runtime
(PoCL runs it on the CPU), compared with the original in the same way.

Writes results.csv, results.md and speedup.png to --out.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import TextIO

from ppcg_py.verify.clang import clang_available
from ppcg_py.verify.nvcc import nvcc_available
from ppcg_py.verify.opencl import opencl_unavailable

from .kernels import DATASETS, REPO_ROOT
from .machine import describe_machine, gpu_name
from .pipeline import KernelResult, Settings, run_benchmark
from .report import (
    BaselineError,
    PlotUnavailable,
    plot_speedups,
    read_baseline,
    summary_line,
    write_csv,
    write_markdown,
)
from .suite import Benchmark, SelectionError, chosen

__all__ = ["main", "parse_args"]

# The official suite prints two decimals whatever the data type: values that
# agree to the printed precision may still differ by one unit in the last place.
OFFICIAL_TOLERANCE = (0.01, 0.01)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m polybench",
        description="Compile PolyBench/C kernels with ppcg-py, build, run (GPU or CPU "
        "emulation), verify against gcc and time them; write a table and a plot.",
    )
    p.add_argument(
        "--kernels",
        default="all",
        help="comma list of kernel names and categories (stencils, blas, linear-algebra, "
        "...), or all; '-NAME' leaves one out (all,-gramschmidt-real) [all]",
    )
    p.add_argument("--dataset", default="MINI", type=str.upper, choices=DATASETS, help="[MINI]")
    p.add_argument(
        "--ppcg-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="option for ppcg-py (repeatable); write --ppcg-arg=--tile-size=16 for dashes",
    )
    p.add_argument(
        "-D",
        "--define",
        dest="defines",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="extra macro for every build and ppcg-py, e.g. POLYBENCH_USE_SCALAR_LB",
    )
    p.add_argument(
        "--build",
        choices=("nvcc", "clang", "none"),
        help="toolchain for the real program: nvcc, clang (LLVM NVPTX), or none (CPU "
        "emulation only) [nvcc when installed, else none]",
    )
    p.add_argument(
        "--target",
        choices=("cuda", "c", "opencl"),
        default="cuda",
        help="cuda; c: ppcg-py --target=c --openmp, NAME.ppcg.c built with gcc -O3 -fopenmp "
        "and run with each of --threads; opencl: build the OpenCL output with gcc -lOpenCL and run it "
        "on the installed OpenCL runtime (--build does not apply) [cuda]",
    )
    p.add_argument(
        "--threads",
        type=lambda text: tuple(_positive(n) for n in text.split(",")),
        default=(1, 2, 4),
        help="C target: OMP_NUM_THREADS of the runs, each verified; the first is timed [1,2,4]",
    )
    p.add_argument("--repeat", type=_positive, default=3, help="timed runs per program [3]")
    p.add_argument("--out", type=Path, help="output folder [out/polybench-DATE]")
    p.add_argument("--work", type=Path, help="folder for generated code and binaries [OUT/work]")
    p.add_argument(
        "--polybench-root",
        type=Path,
        metavar="DIR",
        help="an official PolyBench/C 4.2.1 checkout to run instead of polybench/",
    )
    p.add_argument(
        "--baseline",
        type=Path,
        metavar="CSV",
        help="another compiler's results (columns kernel,time_s or kernel,speedup)",
    )
    p.add_argument("--baseline-name", help="its label in the table and plot [the file's name]")
    p.add_argument("--jobs", type=_positive, default=1, help="kernels at a time [1]")
    p.add_argument("--no-verify", action="store_true", help="time only, compare nothing")
    p.add_argument(
        "--emulation", action="store_true", help="run in the CPU emulation even on a GPU machine"
    )
    p.add_argument(
        "--host-path",
        action="store_true",
        help="cuda: build the output with --build's toolchain for real and run it with no device "
        "(on a machine without a GPU as it is; with one, PPCG_PY_DEVICE=cpu); opencl: run it with no "
        "OpenCL platform (the ICD loader pointed at an empty folder): every SCoP takes its host path",
    )
    p.add_argument("--no-plot", action="store_true", help="do not write speedup.png")
    p.add_argument("--timeout", type=float, default=300, help="seconds per program run [300]")
    p.add_argument(
        "--compile-timeout", type=float, default=900, help="seconds per compile or build [900]"
    )
    return p


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    return _parser().parse_args(argv)


class _Progress:
    """One line per kernel.  With one job the steps appear as they finish; with
    several, each kernel's line is printed whole when it is done (no interleaving)."""

    def __init__(self, total: int, jobs: int, stream: TextIO) -> None:
        self.total, self.jobs, self.stream = total, jobs, stream
        self.done = 0
        self.lock = threading.Lock()

    def _prefix(self, number: int, name: str) -> str:
        width = len(str(self.total))
        return f"[{number:>{width}}/{self.total}] {name}:"

    def start(self, number: int, name: str) -> list[str]:
        if self.jobs == 1:
            self.stream.write(self._prefix(number, name))
            self.stream.flush()
        return []

    def note(self, notes: list[str], text: str) -> None:
        if self.jobs == 1:
            self.stream.write(("," if notes else "") + " " + text)
            self.stream.flush()
        notes.append(text)

    def finish(self, name: str, notes: list[str]) -> None:
        with self.lock:
            self.done += 1
            if self.jobs == 1:
                self.stream.write("\n")
            else:
                self.stream.write(f"{self._prefix(self.done, name)} {', '.join(notes)}\n")
            self.stream.flush()


def _default_out() -> Path:
    return REPO_ROOT / "out" / f"polybench-{datetime.now():%Y%m%d-%H%M%S}"


def _run_all(
    benchmarks: list[Benchmark],
    settings: Settings,
    work: Path,
    jobs: int,
    stream: TextIO,
) -> list[KernelResult]:
    progress = _Progress(len(benchmarks), jobs, stream)
    timing_lock = threading.Lock() if jobs > 1 else None

    def one(number: int, bench: Benchmark) -> KernelResult:
        notes = progress.start(number, bench.name)
        result = run_benchmark(
            bench,
            settings,
            work / bench.name,
            note=lambda text: progress.note(notes, text),
            timing_lock=timing_lock,
        )
        progress.finish(bench.name, notes)
        return result

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(one, n, b) for n, b in enumerate(benchmarks, start=1)]
        return [f.result() for f in futures]


def main(argv: Sequence[str] | None = None, *, stream: TextIO | None = None) -> int:
    """Run the experiment; 0 when every kernel passed, 1 when any failed, 2 on bad usage."""
    out_stream = stream or sys.stdout
    args = parse_args(argv)
    command = "python -m polybench " + shlex.join(sys.argv[1:] if argv is None else argv)

    def usage_error(message: str) -> int:
        print(f"python -m polybench: error: {message}", file=sys.stderr)
        return 2

    try:
        benchmarks = chosen(args.polybench_root, args.kernels)
    except (FileNotFoundError, SelectionError) as exc:
        return usage_error(str(exc))
    if not benchmarks:
        return usage_error("no kernels to run")
    baseline = None
    if args.baseline:
        try:
            baseline = read_baseline(args.baseline)
        except (OSError, BaselineError) as exc:
            return usage_error(f"--baseline: {exc}")
    baseline_name = args.baseline_name or (args.baseline.stem if args.baseline else "baseline")

    if args.target == "opencl":
        if args.build not in (None, "none"):
            return usage_error(f"--build {args.build} is for CUDA; --target opencl builds with gcc -lOpenCL")
        if (why := opencl_unavailable()) is not None:
            return usage_error(f"--target opencl: {why}")
    build = "gcc -lOpenCL" if args.target == "opencl" else args.build or ("nvcc" if nvcc_available() else "none")
    if build == "nvcc" and not nvcc_available():
        return usage_error("nvcc not found (--build none runs the CPU emulation only)")
    if build == "clang" and not clang_available():
        return usage_error("clang++-22 not found (`make clang` installs it)")
    if args.host_path and (args.target == "c" or build == "none"):
        return usage_error("--host-path runs the CUDA output built by nvcc or clang (not with --build none), or "
                           "the OpenCL output with no OpenCL platform")
    gpu = None if args.emulation or args.host_path or args.target in ("c", "opencl") else gpu_name()
    on_gpu = gpu is not None and build not in ("none", "gcc -lOpenCL")
    if args.target == "c":
        build = "gcc -O3 -fopenmp"
    settings = Settings(
        dataset=args.dataset,
        build=build,
        on_gpu=on_gpu,
        host_path=args.host_path,
        repeat=args.repeat,
        verify=not args.no_verify,
        ppcg_args=tuple(args.ppcg_arg),
        defines=tuple(args.defines),
        full_precision=args.polybench_root is None,
        tolerance=OFFICIAL_TOLERANCE if args.polybench_root else None,
        run_timeout=args.timeout,
        compile_timeout=args.compile_timeout,
        target=args.target,
        threads=args.threads,
    )
    out = (args.out or _default_out()).resolve()
    work = (args.work or out / "work").resolve()
    out.mkdir(parents=True, exist_ok=True)
    where = (
        "on this machine's CPU with no OpenCL platform, each SCoP on its host path"
        if args.target == "opencl" and args.host_path
        else "on the OpenCL runtime installed"
        if args.target == "opencl"
        else f"on the GPU ({gpu})"
        if on_gpu
        else "on this machine's CPU, each SCoP on its host path (no device)"
        if args.host_path
        else "in the CPU emulation (no GPU used: timings are emulation timings, not GPU timings)"
    )
    if args.target == "c":
        threads = ", ".join(map(str, args.threads))
        where = f"on the CPU with OpenMP (OMP_NUM_THREADS {threads}; timed with {args.threads[0]})"
    print(
        f"ppcg-py on {len(benchmarks)} kernel(s) at {args.dataset}, build {build}, "
        f"generated code runs {where}; output in {out}",
        file=out_stream,
        flush=True,
    )
    started = datetime.now().astimezone()
    results = _run_all(benchmarks, settings, work, args.jobs, out_stream)

    write_csv(results, out / "results.csv", baseline)
    plot = None if args.no_plot else "speedup.png"
    plot_failed = False
    if plot:
        where_run = gpu if on_gpu and gpu else "CPU emulation: not GPU timings"
        if args.target == "c":
            where_run = f"C target, OpenMP, {args.threads[0]} thread(s)"
        title = f"ppcg-py speedup over gcc -O3, PolyBench {args.dataset}\n{where_run}"
        try:
            plot_speedups(
                results, out / plot, title=title, baseline=baseline, baseline_name=baseline_name
            )
        except PlotUnavailable as exc:
            print(f"python -m polybench: error: {exc}", file=sys.stderr)
            plot, plot_failed = None, True
    write_markdown(
        results,
        out / "results.md",
        machine=describe_machine(gpu if on_gpu else None),
        date=started.isoformat(timespec="seconds"),
        command=command,
        dataset=args.dataset,
        build=build,
        repeat=args.repeat,
        baseline=baseline,
        baseline_name=baseline_name,
        plot=plot,
    )
    print(f"wrote {out / 'results.md'}, results.csv{', ' + plot if plot else ''}", file=out_stream)
    print(summary_line(results), file=out_stream, flush=True)
    return 1 if plot_failed or any(r.failed for r in results) else 0
