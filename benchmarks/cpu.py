"""ppcg-py's C target beside gcc and other CPU compilers on PolyBench, in one invocation.

Every column of the table is a *variant*: a compiler (a command template) and, for a
compiler that builds OpenMP code, a thread count. The columns are:

- `gcc`: `gcc -O3 -march=native` on the original program, the baseline of every speedup;
- `ppcg-py Nt`: `ppcg-py --target=c --openmp --tile [--ppcg-arg ...]`, its `NAME.ppcg.c`
  built with `gcc -O3 -march=native -fopenmp`, run with OMP_NUM_THREADS=N per --threads;
- one column (per thread count) for each --tool, e.g. Polly through Debian's clang-14;
- one column per thread count for each --prebuilt NAME=FOLDER: another tool's outputs
  made beforehand, FOLDER/KERNEL/ holding one `.c` file per kernel (Pluto's
  `KERNEL.pluto.c`, for instance), built as ppcg-py's are.

Times are PolyBench's own (`-DPOLYBENCH_TIME`: the seconds around the kernel's call), the
median of --repeat runs; the variants of a kernel run round robin, one run of each per
repetition, so that a burst of load on a shared machine hits all of them alike rather
than one column. Before timing, every variant is built once more at a small dataset with
`-DPOLYBENCH_DUMP_ARRAYS` and its arrays are compared with the baseline's (the project's
comparison, ppcg_py.verify.dump): a variant whose results differ is marked in the table,
since the speed of a wrong answer means nothing.

Writes table.md, results.json and (with matplotlib) speedup.png to --out, and prints the table.
Usage: python benchmarks/cpu.py [--kernels gemm,2mm] [--dataset LARGE] [--tool polly] ...
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from polybench.kernels import DATASETS, dataset_macro  # noqa: E402
from polybench.machine import Machine, describe_machine  # noqa: E402
from polybench.pipeline import first_error_line, parse_time  # noqa: E402
from polybench.suite import Benchmark, SelectionError, chosen  # noqa: E402
from ppcg_py.options import DEFAULT_MIN_PARALLEL_WORK  # noqa: E402
from ppcg_py.verify.c_target import generated_c_file  # noqa: E402
from ppcg_py.verify.common import DUMP_DEFINE, FULL_PRECISION_DEFINE, VerifyConfig  # noqa: E402
from ppcg_py.verify.dump import Dump, DumpError, compare_dumps, parse_dump, tolerance_for  # noqa: E402
from ppcg_py.verify.harness import run_ppcg  # noqa: E402
from ppcg_py.verify.tools import BuildError, preprocessor_flags, run_program, run_tool  # noqa: E402

__all__ = ["BUILTIN_TOOLS", "Compiler", "Variant", "expand_template", "main", "parse_prebuilt", "parse_tool"]

# The placeholders of a command template; each stands for a list of arguments.
PLACEHOLDERS = {
    "src": "the C files: the original program (ppcg-py's NAME.ppcg.c for its own column) and polybench.c",
    "cflags": "-I of PolyBench's utilities and the kernel's folder; -D of the dataset, of\n"
    "        POLYBENCH_TIME (timing build) or POLYBENCH_DUMP_ARRAYS (check build), and of each -D given",
    "exe": "the executable to write",
    "libs": "the libraries to link: -lm",
}
_PLACEHOLDER = re.compile(r"\{(\w+)\}")

BASELINE_TEMPLATE = "gcc -O3 -march=native {cflags} {src} -o {exe} {libs}"
PPCG_TEMPLATE = "gcc -O3 -march=native -fopenmp {cflags} {src} -o {exe} {libs}"
# run_ppcg adds --target=c --openmp for target "c", and --min-parallel-work=0 (a check's
# setting) unless told: the timed code is the command line's default
PPCG_ARGS = ("--tile", f"--min-parallel-work={DEFAULT_MIN_PARALLEL_WORK}")
# Polly's matmul pattern keeps its packing buffers where OpenMP threads share them: off,
# or gemm's result is wrong with more than one thread (shared/TOOLCHAIN.md).
POLLY_TEMPLATE = (
    "clang-14 -O3 -march=native -mllvm -polly -mllvm -polly-parallel -mllvm -polly-vectorizer=stripmine "
    "-mllvm -polly-pattern-matching-based-opts=false -fopenmp=libgomp {cflags} {src} -o {exe} {libs}"
)
BUILTIN_TOOLS = {"polly": POLLY_TEMPLATE}

# Statuses of one variant on one kernel.
OK = "ok"  # its arrays matched the baseline's at the check dataset
UNCHECKED = "unchecked"  # --no-check, or the baseline's check run failed
DIFFERS = "differs"  # timed, but its results differ from the baseline's
FAILED = "failed"  # ppcg-py, the build or a run failed: no time
# The official suite prints two decimals whatever the type (polybench/run.py does the same).
OFFICIAL_TOLERANCE = (0.01, 0.01)


class TemplateError(ValueError):
    """A --tool is malformed: no '=', an unknown built-in name or placeholder."""


class StepFailed(Exception):
    """ppcg-py or a build failed for one compiler on one kernel: its columns get no time."""


# -- compilers and variants -------------------------------------------------------------


@dataclass(frozen=True)
class Compiler:
    """How one compiler's programs are built: a command template on the original or ppcg-py's output."""

    name: str
    template: str
    from_ppcg: bool = False  # builds ppcg-py's NAME.ppcg.c rather than the original
    prebuilt: Path | None = None  # builds FOLDER/KERNEL/*.c, another tool's output made beforehand

    def program(self, kernel: str) -> Path:
        """A prebuilt tool's output for `kernel`: the one .c file of its folder."""
        assert self.prebuilt is not None
        found = sorted((self.prebuilt / kernel).glob("*.c"))
        if len(found) != 1:
            raise StepFailed(f"no single .c file in {self.prebuilt / kernel}")
        return found[0]

    @property
    def executable(self) -> str:
        return shlex.split(self.template)[0]

    @property
    def parallel(self) -> bool:
        """Runs once per thread count: its programs use OpenMP. Without it OMP_NUM_THREADS
        changes nothing, so a second run would only measure noise."""
        return "openmp" in self.template.lower()


@dataclass(frozen=True)
class Variant:
    """One column: a compiler and the OMP_NUM_THREADS of its runs (None: not an OpenMP program)."""

    compiler: Compiler
    threads: int | None

    @property
    def label(self) -> str:
        return self.compiler.name if self.threads is None else f"{self.compiler.name} {self.threads}t"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        if self.threads is not None:
            env["OMP_NUM_THREADS"] = str(self.threads)
        return env


def check_template(template: str) -> None:
    """A template must name the sources and the executable, and only known placeholders:
    a typo would otherwise reach the compiler as a literal `{srcs}`."""
    names = set(_PLACEHOLDER.findall(template))
    unknown = names - set(PLACEHOLDERS)
    if unknown:
        raise TemplateError(f"unknown placeholder(s) {', '.join(sorted(unknown))} in {template!r} "
                            f"(known: {', '.join('{' + p + '}' for p in PLACEHOLDERS)})")
    missing = {"src", "exe"} - names
    if missing:
        raise TemplateError(f"{template!r} lacks {', '.join('{' + m + '}' for m in sorted(missing))}")
    if not shlex.split(template) or template.lstrip().startswith("{"):
        raise TemplateError(f"{template!r} does not start with a compiler")


def parse_prebuilt(spec: str) -> Compiler:
    """`NAME=FOLDER`: another tool's outputs, built with gcc -fopenmp as ppcg-py's."""
    name, sep, folder = spec.partition("=")
    name = name.strip()
    if not sep or not name or name in {"gcc", "ppcg-py"}:
        raise TemplateError(f"--prebuilt {spec!r}: write NAME=FOLDER (a name other than gcc and ppcg-py)")
    if not Path(folder).is_dir():
        raise TemplateError(f"--prebuilt {spec!r}: {folder} is not a folder")
    return Compiler(name, PPCG_TEMPLATE, prebuilt=Path(folder).resolve())


def parse_tool(spec: str) -> Compiler:
    """`NAME=TEMPLATE`, or a built-in NAME alone (`polly`)."""
    name, sep, template = spec.partition("=")
    name = name.strip()
    if not sep:
        if name not in BUILTIN_TOOLS:
            raise TemplateError(f"--tool {spec!r}: no built-in tool of that name "
                                f"(built in: {', '.join(BUILTIN_TOOLS)}); write NAME=TEMPLATE")
        template = BUILTIN_TOOLS[name]
    if not name or name in {"gcc", "ppcg-py"}:
        raise TemplateError(f"--tool {spec!r}: needs a name other than gcc and ppcg-py")
    check_template(template)
    return Compiler(name, template.strip())


def expand_template(template: str, values: dict[str, Sequence[str]]) -> list[str]:
    """The argv of a template: a word that is a placeholder alone becomes its arguments;
    a placeholder inside a word (`-o{exe}`) becomes them joined by spaces."""
    argv: list[str] = []
    for word in shlex.split(template):
        whole = _PLACEHOLDER.fullmatch(word)
        if whole:
            argv += values[whole.group(1)]
        else:
            argv.append(_PLACEHOLDER.sub(lambda m: " ".join(values[m.group(1)]), word))
    return argv


def make_variants(compilers: Sequence[Compiler], threads: Sequence[int]) -> list[Variant]:
    """The table's columns, the baseline first."""
    return [
        variant
        for compiler in compilers
        for variant in (
            [Variant(compiler, n) for n in threads] if compiler.parallel else [Variant(compiler, None)]
        )
    ]


# -- results ----------------------------------------------------------------------------


@dataclass
class Cell:
    """One variant's outcome on one kernel."""

    status: str = UNCHECKED
    error: str = ""
    times: list[float] = field(default_factory=list)

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times and self.status != FAILED else None

    def fail(self, message: str) -> None:
        self.status, self.error = FAILED, message


@dataclass
class KernelOutcome:
    """One row: every variant's cell, by label."""

    name: str
    category: str
    cells: dict[str, Cell]
    ppcg_seconds: float | None = None  # ppcg-py's compile time at the timed dataset

    def speedup(self, label: str, baseline: str) -> float | None:
        base, own = self.cells[baseline].median, self.cells[label].median
        return base / own if base and own else None


@dataclass(frozen=True)
class Plan:
    """What every kernel goes through: the columns and how to build, check and time them."""

    variants: tuple[Variant, ...]
    dataset: str
    check_dataset: str | None  # None: --no-check
    repeat: int
    ppcg_args: tuple[str, ...]
    defines: tuple[str, ...]
    official: bool  # the official suite: its dumps have two decimals
    run_timeout: float
    compile_timeout: float

    @property
    def compilers(self) -> list[Compiler]:
        return list(dict.fromkeys(v.compiler for v in self.variants))

    @property
    def baseline(self) -> Variant:
        return self.variants[0]


# -- one kernel -------------------------------------------------------------------------


class KernelRun:
    """Build, check and time one kernel for every variant; failures stay in its cells."""

    def __init__(self, bench: Benchmark, plan: Plan, workdir: Path, say: Callable[[str], None]) -> None:
        self.bench, self.plan, self.workdir, self.say = bench, plan, workdir, say
        self.outcome = KernelOutcome(bench.name, bench.category, {v.label: Cell() for v in plan.variants})
        self._ppcg_outputs: dict[str, Path | StepFailed] = {}

    def _cells_of(self, compiler: Compiler) -> list[Cell]:
        return [self.outcome.cells[v.label] for v in self.plan.variants if v.compiler == compiler]

    def ppcg_output(self, dataset: str) -> Path:
        """ppcg-py's NAME.ppcg.c for a dataset (compiled once per dataset: the dataset's
        macros reach ppcg-py, which may use the array sizes they give)."""
        if dataset not in self._ppcg_outputs:
            self._ppcg_outputs[dataset] = self._compile_ppcg(dataset)
        found = self._ppcg_outputs[dataset]
        if isinstance(found, StepFailed):
            raise found
        return found

    def _compile_ppcg(self, dataset: str) -> Path | StepFailed:
        out_dir = self.workdir / f"ppcg-{dataset}"
        shutil.rmtree(out_dir, ignore_errors=True)
        out_dir.mkdir(parents=True)
        cfg = VerifyConfig(
            source=self.bench.source,
            include_dirs=self.bench.include_dirs,
            defines=(dataset_macro(dataset), "POLYBENCH_TIME", *self.plan.defines),
            ppcg_args=(*PPCG_ARGS, *self.plan.ppcg_args),
            full_precision=not self.plan.official,
            compile_timeout=self.plan.compile_timeout,
            target="c",
        )
        start = time.perf_counter()
        proc = run_ppcg(cfg, out_dir)
        if dataset == self.plan.dataset:
            self.outcome.ppcg_seconds = time.perf_counter() - start
        (out_dir / "ppcg.log").write_text(proc.stdout + proc.stderr)
        output = generated_c_file(self.bench.source, out_dir)
        if proc.returncode != 0:
            return StepFailed(f"ppcg-py: {first_error_line(proc.stderr, f'exit status {proc.returncode}')}")
        if not output.exists():
            return StepFailed(f"ppcg-py exited 0 but wrote no {output.name}")
        return output

    def _defines(self, dataset: str, purpose: str) -> list[str]:
        """A timing build prints the time only (a LARGE dump is tens of MB); a check build dumps."""
        if purpose == "time":
            wanted = [dataset_macro(dataset), "POLYBENCH_TIME"]
        else:
            wanted = [dataset_macro(dataset), DUMP_DEFINE, *([] if self.plan.official else [FULL_PRECISION_DEFINE])]
        return [*wanted, *self.plan.defines]

    def build(self, compiler: Compiler, dataset: str, purpose: str) -> Path:
        """The compiler's executable for this kernel; StepFailed says why there is none."""
        program = self.ppcg_output(dataset) if compiler.from_ppcg else \
            compiler.program(self.bench.name) if compiler.prebuilt is not None else self.bench.source
        exe = self.workdir / f"{compiler.name}-{purpose}"
        argv = expand_template(compiler.template, {
            "src": [str(program), str(self.bench.polybench_c)],
            "cflags": preprocessor_flags(self.bench.include_dirs, self._defines(dataset, purpose)),
            "exe": [str(exe)],
            "libs": ["-lm"],
        })
        (self.workdir / f"{compiler.name}-{purpose}.cmd").write_text(shlex.join(argv) + "\n")
        try:
            run_tool(argv, timeout=self.plan.compile_timeout)
        except BuildError as exc:
            (self.workdir / f"{compiler.name}-{purpose}.log").write_text(exc.stderr)
            raise StepFailed(f"{compiler.executable}: {first_error_line(exc.stderr, 'failed')}") from None
        return exe

    def build_all(self, dataset: str, purpose: str) -> dict[Compiler, Path]:
        """Every compiler's executable; a compiler that fails marks its cells failed."""
        built: dict[Compiler, Path] = {}
        for compiler in self.plan.compilers:
            if any(c.status == FAILED for c in self._cells_of(compiler)):
                continue
            try:
                built[compiler] = self.build(compiler, dataset, purpose)
            except StepFailed as exc:
                for cell in self._cells_of(compiler):
                    cell.fail(f"{purpose} build: {exc}")
        return built

    def _run(self, variant: Variant, exe: Path) -> subprocess.CompletedProcess[str]:
        """One run with the variant's OMP_NUM_THREADS; a timeout is exit status 124."""
        return run_program([exe], timeout=self.plan.run_timeout, env=variant.env())

    def _dump(self, variant: Variant, exe: Path) -> Dump | None:
        """The arrays of one check run; None (and the cell failed) when it crashed or dumped nothing."""
        proc = self._run(variant, exe)
        cell = self.outcome.cells[variant.label]
        if proc.returncode != 0:
            cell.fail(f"check run: exit status {proc.returncode}: {first_error_line(proc.stderr, 'no output')}")
            return None
        try:
            return parse_dump(proc.stderr)
        except DumpError as exc:
            cell.fail(f"check run: {exc}")
            return None

    def check(self) -> None:
        """Compare every variant's arrays with the baseline's at the check dataset."""
        dataset = self.plan.check_dataset
        if dataset is None:
            return
        exes = self.build_all(dataset, "check")
        baseline = self.plan.baseline
        if baseline.compiler not in exes or (expected := self._dump(baseline, exes[baseline.compiler])) is None:
            return  # nothing to compare with: the others stay unchecked
        self.outcome.cells[baseline.label].status = OK
        rtol, atol = OFFICIAL_TOLERANCE if self.plan.official else tolerance_for(self.bench.data_type)
        for variant in self.plan.variants[1:]:
            if variant.compiler not in exes or (actual := self._dump(variant, exes[variant.compiler])) is None:
                continue
            problems = compare_dumps(expected, actual, rtol=rtol, atol=atol)
            cell = self.outcome.cells[variant.label]
            if problems:
                (self.workdir / f"differs-{variant.label.replace(' ', '-')}.txt").write_text("\n".join(problems))
                cell.status, cell.error = DIFFERS, f"at {dataset}: {problems[0]}"
            else:
                cell.status = OK

    def time(self) -> None:
        """--repeat rounds, each running every variant once, in column order."""
        exes = self.build_all(self.plan.dataset, "time")
        for _ in range(self.plan.repeat):
            for variant in self.plan.variants:
                cell = self.outcome.cells[variant.label]
                if cell.status == FAILED or variant.compiler not in exes:
                    continue
                proc = self._run(variant, exes[variant.compiler])
                seconds = parse_time(proc.stdout) if proc.returncode == 0 else None
                if seconds is None:
                    why = f"exit status {proc.returncode}" if proc.returncode else "printed no time"
                    cell.fail(f"timed run: {why}: {first_error_line(proc.stderr, 'no output')}")
                else:
                    cell.times.append(seconds)

    def run(self) -> KernelOutcome:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.check()
        self.time()
        self.say(_progress_line(self.outcome, self.plan))
        return self.outcome


def _progress_line(outcome: KernelOutcome, plan: Plan) -> str:
    parts = []
    for variant in plan.variants:
        cell = outcome.cells[variant.label]
        if cell.status == FAILED:
            parts.append(f"{variant.label} FAILED ({cell.error})")
        else:
            differs = " (differs)" if cell.status == DIFFERS else ""
            parts.append(f"{variant.label} {cell.median:.4g} s{differs}" if cell.median else f"{variant.label} -")
    return f"{outcome.name}: " + ", ".join(parts)


# -- report -----------------------------------------------------------------------------


def geomean(values: Sequence[float]) -> float | None:
    """The mean of ratios that treats 2x and 0.5x as opposites."""
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def _seconds_cell(cell: Cell) -> str:
    if cell.status == FAILED:
        return "failed"
    median = cell.median
    text = "" if median is None else f"{median:.3g}"
    return f"{text} ✗" if cell.status == DIFFERS else text


def _speedup_cell(value: float | None, cell: Cell) -> str:
    if cell.status == FAILED:
        return "failed"
    text = "" if value is None else f"{value:.3g}"
    return f"{text} ✗" if cell.status == DIFFERS else text


def _geomean_cell(values: list[float], total: int, spec: str) -> str:
    mean = geomean(values)
    if mean is None:
        return ""
    return format(mean, spec) + ("" if len(values) == total else f" ({len(values)}/{total})")


def column_values(outcomes: Sequence[KernelOutcome], label: str, baseline: str) -> tuple[list[float], list[float]]:
    """A column's medians and speedups, leaving out failed kernels and results that differ."""
    times, speedups = [], []
    for outcome in outcomes:
        cell = outcome.cells[label]
        if cell.status == DIFFERS or cell.median is None:
            continue
        times.append(cell.median)
        if (speedup := outcome.speedup(label, baseline)) is not None:
            speedups.append(speedup)
    return times, speedups


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head), *("| " + " | ".join(r) + " |" for r in rows)]


def markdown_tables(outcomes: Sequence[KernelOutcome], plan: Plan) -> list[str]:
    """Median seconds, then speedup over the baseline; a geometric-mean row under each."""
    labels = [v.label for v in plan.variants]
    base = plan.baseline.label
    columns = {label: column_values(outcomes, label, base) for label in labels}
    total = len(outcomes)
    seconds_rows = [[o.name, *(_seconds_cell(o.cells[lab]) for lab in labels)] for o in outcomes]
    seconds_rows.append(["geomean", *(_geomean_cell(columns[lab][0], total, ".3g") for lab in labels)])
    speedup_rows = [[o.name, *(_speedup_cell(o.speedup(lab, base), o.cells[lab]) for lab in labels[1:])]
                    for o in outcomes]
    speedup_rows.append(["geomean", *(_geomean_cell(columns[lab][1], total, ".3g") for lab in labels[1:])])
    return [
        "### Median seconds",
        "",
        *_table(["kernel", *labels], seconds_rows),
        "",
        f"### Speedup over {base} (its median time over the column's)",
        "",
        *_table(["kernel", *labels[1:]], speedup_rows),
    ]


def _notes(outcomes: Sequence[KernelOutcome], plan: Plan) -> list[str]:
    notes = [f"- {o.name}, {label}: {cell.status}: `{cell.error.replace('`', chr(39))}`"
             for o in outcomes for label, cell in o.cells.items() if cell.status in (FAILED, DIFFERS)]
    unchecked = sorted({label for o in outcomes for label, c in o.cells.items() if c.status == UNCHECKED})
    if plan.check_dataset and unchecked:
        notes.append(f"- not checked (the baseline's check run failed): {', '.join(unchecked)}")
    return notes


@dataclass(frozen=True)
class RunInfo:
    """What the report's header states, so that a number can be traced to where it came from."""

    command: str
    date: str
    machine: Machine
    compilers: dict[str, str]  # name -> first line of `--version`
    skipped: dict[str, str]  # tool name -> why it did not run
    plot: str | None  # file name, or why there is none
    load: tuple[float, float]  # 1-minute load average at the start and at the end: others' work skews times


def markdown_report(outcomes: Sequence[KernelOutcome], plan: Plan, info: RunInfo) -> str:
    threads = sorted({v.threads for v in plan.variants if v.threads is not None})
    lines = [
        f"# PolyBench on the CPU: ppcg-py's C target beside gcc and other compilers ({plan.dataset})",
        "",
        f"- date: {info.date}",
        f"- command: `{info.command}`",
        f"- machine: {info.machine.cpu}, {info.machine.cores} cores; `{info.machine.uname}`; "
        f"1-minute load average {info.load[0]:.2f} at the start, {info.load[1]:.2f} at the end",
        f"- ppcg-py: {info.machine.ppcg}; options `--target=c --openmp {' '.join((*PPCG_ARGS, *plan.ppcg_args))}`",
        f"- timings: PolyBench's `POLYBENCH_TIME` seconds, median of {plan.repeat} run(s), variants "
        "interleaved round robin; `Nt`: OMP_NUM_THREADS=N"
        + (f" ({', '.join(map(str, threads))})" if threads else ""),
        "- check: " + (f"arrays dumped at {plan.check_dataset} and compared with {plan.baseline.label}'s; "
                       "✗ marks a variant whose results differ (left out of the geometric means)"
                       if plan.check_dataset else "none (--no-check)"),
        "- compilers:",
        *(f"  - {c.name}: `{c.template}`" + (f" ({info.compilers[c.name]})" if c.name in info.compilers else "")
          for c in plan.compilers),
        *(f"- skipped: {name}: {why}" for name, why in info.skipped.items()),
        "",
        *markdown_tables(outcomes, plan),
    ]
    notes = _notes(outcomes, plan)
    if notes:
        lines += ["", "Failures and differences:", "", *notes]
    if info.plot and info.plot.endswith(".png"):
        lines += ["", f"![speedup per kernel]({info.plot})"]
    elif info.plot:
        lines += ["", f"Plot: {info.plot}"]
    return "\n".join(lines) + "\n"


def json_report(outcomes: Sequence[KernelOutcome], plan: Plan, info: RunInfo) -> dict[str, object]:
    base = plan.baseline.label
    columns = {v.label: column_values(outcomes, v.label, base) for v in plan.variants}
    return {
        "command": info.command,
        "date": info.date,
        "machine": asdict(info.machine),
        "load_average": {"start": info.load[0], "end": info.load[1]},
        "dataset": plan.dataset,
        "check_dataset": plan.check_dataset,
        "repeat": plan.repeat,
        "baseline": base,
        "variants": [{"label": v.label, "compiler": v.compiler.name, "template": v.compiler.template,
                      "threads": v.threads, "from_ppcg": v.compiler.from_ppcg} for v in plan.variants],
        "compiler_versions": info.compilers,
        "skipped": info.skipped,
        "kernels": [{
            "name": o.name,
            "category": o.category,
            "ppcg_compile_s": o.ppcg_seconds,
            "results": {label: {"status": c.status, "error": c.error, "times_s": c.times, "median_s": c.median,
                                "speedup": o.speedup(label, base)} for label, c in o.cells.items()},
        } for o in outcomes],
        "geomean": {label: {"median_s": geomean(t), "speedup": geomean(s) if label != base else None}
                    for label, (t, s) in columns.items()},
        "plot": info.plot,
    }


def plot_speedups(outcomes: Sequence[KernelOutcome], plan: Plan, path: Path, title: str) -> str:
    """speedup.png: a group of bars per kernel (and the geometric means), one bar per variant.
    Returns the file name, or why there is no plot when matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        return "skipped: matplotlib is not installed (`pip install matplotlib`)"
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    base = plan.baseline.label
    labels = [v.label for v in plan.variants[1:]]
    groups = [o.name for o in outcomes] + ["geomean"]
    width = 0.8 / max(1, len(labels))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(groups) * max(1, len(labels)) / 2 + 2), 4.5))
    for index, label in enumerate(labels):
        values = [o.speedup(label, base) if o.cells[label].status != DIFFERS else None for o in outcomes]
        values.append(geomean(column_values(outcomes, label, base)[1]))
        xs = [g + (index - (len(labels) - 1) / 2) * width for g, v in enumerate(values) if v]
        ax.bar(xs, [v for v in values if v], width=width, label=label)
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel(f"speedup over {base} (log scale)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name


# -- command line -----------------------------------------------------------------------


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return value


def _thread_list(text: str) -> tuple[int, ...]:
    return tuple(dict.fromkeys(_positive(n) for n in text.split(",") if n.strip()))


EPILOG = f"""\
tools (--tool, repeatable):
  --tool NAME=TEMPLATE  builds the original program with a command template; its placeholders:
{chr(10).join(f"      {{{name}}}: {what}" for name, what in PLACEHOLDERS.items())}
    A placeholder alone as a word becomes several arguments; inside a word (-o{{exe}}) they are
    joined by spaces. A template that mentions openmp (-fopenmp...) runs once per --threads
    count, with OMP_NUM_THREADS; any other runs once. A tool whose compiler (the template's
    first word) is not installed is skipped, with a note in the report.
  --tool polly  the built-in Polly template (Debian's clang-14 has Polly built in; install it with
    `apt-get update && apt-get install -y clang-14`):
      {POLLY_TEMPLATE}

example:
  python benchmarks/cpu.py --kernels gemm,2mm,syrk,atax --tool polly --out out/cpu
  python benchmarks/cpu.py --kernels gemm --dataset MEDIUM --tool 'o2=gcc -O2 {{cflags}} {{src}} -o {{exe}} {{libs}}'
"""


def _parser() -> argparse.ArgumentParser:
    cores = os.cpu_count() or 1
    p = argparse.ArgumentParser(
        prog="python benchmarks/cpu.py",
        description="Time PolyBench kernels built by gcc -O3 -march=native (the baseline), by ppcg-py's "
        "C target (--target=c --openmp --tile, gcc -O3 -march=native -fopenmp) at each thread count, "
        "and by other compilers given as command templates; check every variant's arrays against "
        "the baseline's; write table.md, results.json and speedup.png.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--kernels", default="all", help="comma list of kernels and categories (blas, stencils, ...) [all]")
    p.add_argument("--dataset", default="LARGE", type=str.upper, choices=DATASETS, help="timed dataset [LARGE]")
    p.add_argument("--check-dataset", type=str.upper, choices=DATASETS,
                   help="dataset of the result check [SMALL, or --dataset if smaller]")
    p.add_argument("--no-check", action="store_true", help="time only; compare no results")
    p.add_argument("--repeat", type=_positive, default=3, help="timed runs per variant [3]")
    p.add_argument("--threads", type=_thread_list, default=_thread_list(f"1,{cores}"),
                   help=f"OMP_NUM_THREADS of the OpenMP variants, comma list [1,{cores}: 1 and the cores]")
    p.add_argument("--ppcg-arg", action="append", default=[], metavar="ARG",
                   help="extra ppcg-py option (repeatable); write --ppcg-arg=--tile-size=64 for dashes")
    p.add_argument("--tool", action="append", default=[], metavar="NAME[=TEMPLATE]",
                   help="another compiler (repeatable; see below)")
    p.add_argument("--prebuilt", action="append", default=[], metavar="NAME=FOLDER",
                   help="another tool's outputs made beforehand: FOLDER/KERNEL/ holds one .c file per kernel "
                        "(e.g. Pluto's KERNEL.pluto.c), built with gcc -O3 -march=native -fopenmp and timed and "
                        "checked like the others (repeatable)")
    p.add_argument("-D", "--define", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                   help="extra macro for every build and for ppcg-py")
    p.add_argument("--polybench-root", type=Path, metavar="DIR",
                   help="an official PolyBench/C 4.2.1 checkout instead of polybench/")
    p.add_argument("--out", type=Path, help="output folder [out/cpu-DATE]")
    p.add_argument("--timeout", type=float, default=600, help="seconds per program run [600]")
    p.add_argument("--compile-timeout", type=float, default=600, help="seconds per ppcg-py run or build [600]")
    p.add_argument("--no-plot", action="store_true", help="write no speedup.png")
    return p


def _version(executable: str) -> str | None:
    try:
        proc = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = proc.stdout.strip().splitlines()
    return lines[0].strip() if proc.returncode == 0 and lines else None


def available_compilers(compilers: Sequence[Compiler]) -> tuple[list[Compiler], dict[str, str], dict[str, str]]:
    """The compilers whose executable is installed, their versions, and why the others are skipped."""
    kept, versions, skipped = [], {}, {}
    for compiler in compilers:
        if shutil.which(compiler.executable) is None:
            skipped[compiler.name] = f"{compiler.executable} not found"
            continue
        kept.append(compiler)
        if (version := _version(compiler.executable)) is not None:
            versions[compiler.name] = version
    return kept, versions, skipped


def _check_dataset(args: argparse.Namespace) -> str | None:
    if args.no_check:
        return None
    if args.check_dataset:
        return args.check_dataset
    return min("SMALL", args.dataset, key=DATASETS.index)


def main(argv: Sequence[str] | None = None, *, stream: TextIO | None = None) -> int:
    """Run the comparison; 0 when every variant ran and agreed, 1 otherwise, 2 on bad usage."""
    out_stream = stream or sys.stdout
    args = _parser().parse_args(argv)
    command = "python benchmarks/cpu.py " + shlex.join(sys.argv[1:] if argv is None else argv)

    def usage_error(message: str) -> int:
        print(f"benchmarks/cpu.py: error: {message}", file=sys.stderr)
        return 2

    try:
        benchmarks = chosen(args.polybench_root, args.kernels)
        tools = [parse_tool(spec) for spec in args.tool] + [parse_prebuilt(spec) for spec in args.prebuilt]
    except (FileNotFoundError, SelectionError, TemplateError) as exc:
        return usage_error(str(exc))
    if len({t.name for t in tools}) != len(tools):
        return usage_error("two --tool or --prebuilt entries have the same name")
    wanted = [Compiler("gcc", BASELINE_TEMPLATE), Compiler("ppcg-py", PPCG_TEMPLATE, from_ppcg=True), *tools]
    compilers, versions, skipped = available_compilers(wanted)
    if compilers[:1] != wanted[:1]:
        return usage_error("gcc, the baseline, is not installed")
    plan = Plan(
        variants=tuple(make_variants(compilers, args.threads)),
        dataset=args.dataset,
        check_dataset=_check_dataset(args),
        repeat=args.repeat,
        ppcg_args=tuple(args.ppcg_arg),
        defines=tuple(args.defines),
        official=args.polybench_root is not None,
        run_timeout=args.timeout,
        compile_timeout=args.compile_timeout,
    )
    out = (args.out or ROOT / "out" / f"cpu-{datetime.now():%Y%m%d-%H%M%S}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    date = datetime.now().astimezone().isoformat(timespec="seconds")
    load_at_start = os.getloadavg()[0]
    for name, why in skipped.items():
        print(f"skipping {name}: {why}", file=sys.stderr)
    print(f"{len(benchmarks)} kernel(s) at {plan.dataset}, columns: {', '.join(v.label for v in plan.variants)}; "
          f"output in {out}", file=sys.stderr, flush=True)

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    outcomes = [KernelRun(bench, plan, out / "work" / bench.name, say).run() for bench in benchmarks]
    title = f"speedup over {plan.baseline.label}, PolyBench {plan.dataset}"
    plot = None if args.no_plot else plot_speedups(outcomes, plan, out / "speedup.png", title)
    load = (load_at_start, os.getloadavg()[0])
    info = RunInfo(command, date, describe_machine(None), versions, skipped, plot, load)
    report = markdown_report(outcomes, plan, info)
    (out / "table.md").write_text(report)
    (out / "results.json").write_text(json.dumps(json_report(outcomes, plan, info), indent=2) + "\n")
    print(report, file=out_stream, flush=True)
    print(f"wrote {out / 'table.md'}, results.json" + (", speedup.png" if plot == "speedup.png" else ""),
          file=sys.stderr)
    bad = any(c.status in (FAILED, DIFFERS) for o in outcomes for c in o.cells.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
