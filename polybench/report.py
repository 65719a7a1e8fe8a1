"""The experiment's outputs: results.csv, results.md and speedup.png.

The CSV is for other tools (and as a --baseline for a later run), the
Markdown for people: a header that says what ran where (a timing without its
machine, or taken in the CPU emulation rather than on a GPU, misleads), then
one row per kernel with the failing step's first error line.
"""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .machine import Machine
from .pipeline import KernelResult

__all__ = [
    "Baseline",
    "BaselineError",
    "PlotUnavailable",
    "baseline_speedup",
    "plot_speedups",
    "read_baseline",
    "summary_line",
    "write_csv",
    "write_markdown",
]

CSV_COLUMNS = (
    "kernel",
    "category",
    "dataset",
    "mode",
    "build",
    "status",
    "compile_s",
    "build_s",
    "emu_build_s",
    "ref_time_s",
    "gen_time_s",
    "speedup",
    "kernels",
)
BASELINE_COLUMNS = ("baseline_time_s", "baseline_speedup")


@dataclass(frozen=True)
class Baseline:
    """Another compiler's result for one kernel: its time, its speedup, or both."""

    time_s: float | None = None
    speedup: float | None = None


class BaselineError(ValueError):
    """The baseline CSV lacks the columns it needs or holds a bad number."""


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


def _number(text: str | None, where: str) -> float | None:
    if text is None or not text.strip() or text.strip().lower() in {"n/a", "nan", "none"}:
        return None
    try:
        return float(text)
    except ValueError:
        raise BaselineError(f"{where}: not a number: {text!r}") from None


def read_baseline(path: str | Path) -> dict[str, Baseline]:
    """kernel -> Baseline from a CSV with columns kernel and time_s and/or speedup.

    A results.csv of this script works too (gen_time_s and speedup).
    """
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        columns = set(reader.fieldnames or ())
        time_column = next((c for c in ("time_s", "gen_time_s") if c in columns), None)
        if "kernel" not in columns or (time_column is None and "speedup" not in columns):
            raise BaselineError(
                f"{path}: needs a 'kernel' column and 'time_s' or 'speedup' "
                f"(has {', '.join(sorted(columns)) or 'no header'})"
            )
        baseline = {}
        for line, row in enumerate(reader, start=2):
            where = f"{path}:{line}"
            name = (row.get("kernel") or "").strip()
            if not name:
                continue
            baseline[name] = Baseline(
                _number(row.get(time_column) if time_column else None, where),
                _number(row.get("speedup"), where),
            )
    return baseline


def baseline_speedup(result: KernelResult, baseline: Baseline | None) -> float | None:
    """The baseline's speedup: as given, else our original's time over its time."""
    if baseline is None:
        return None
    if baseline.speedup is not None:
        return baseline.speedup
    if baseline.time_s and result.ref_time_s:
        return result.ref_time_s / baseline.time_s
    return None


def _cell(value: float | int | None, digits: int = 6) -> str:
    """A CSV number: significant digits, since MINI times are a few microseconds."""
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}g}"


def write_csv(
    results: Sequence[KernelResult],
    path: str | Path,
    baseline: Mapping[str, Baseline] | None = None,
) -> None:
    columns = [*CSV_COLUMNS, *(BASELINE_COLUMNS if baseline is not None else ()), "error"]
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for r in results:
            row = [
                r.kernel,
                r.category,
                r.dataset,
                r.mode,
                r.build,
                r.status,
                _cell(r.compile_s, 3),
                _cell(r.build_s, 3),
                _cell(r.emu_build_s, 3),
                _cell(r.ref_time_s),
                _cell(r.gen_time_s),
                _cell(r.speedup, 4),
                _cell(r.kernels),
            ]
            if baseline is not None:
                base = baseline.get(r.kernel)
                row += [_cell(base.time_s if base else None), _cell(baseline_speedup(r, base), 4)]
            writer.writerow([*row, r.error])


def summary_line(results: Iterable[KernelResult]) -> str:
    """`N passed, M failed` (the line CI reads), plus how many ran unverified."""
    results = list(results)
    failed = sum(r.failed for r in results)
    unverified = sum(r.status == "UNVERIFIED" for r in results)
    line = f"{len(results) - failed - unverified} passed, {failed} failed"
    return line + (f", {unverified} unverified" if unverified else "")


_SUMMARY = re.compile(r"(\d+) passed, (\d+) failed(?:, (\d+) unverified)?")


def sum_summaries(texts: Iterable[str]) -> str:
    """The last `N passed, M failed` line of each text, added up in the same format
    (`make polybench-check` runs the CUDA and the OpenCL check, one line for both)."""
    totals = [0, 0, 0]
    for text in texts:
        found = [m for line in text.splitlines() if (m := _SUMMARY.fullmatch(line.strip()))]
        if not found:
            raise ValueError("no 'N passed, M failed' line")
        for k in range(3):
            totals[k] += int(found[-1][k + 1] or 0)
    line = f"{totals[0]} passed, {totals[1]} failed"
    return line + (f", {totals[2]} unverified" if totals[2] else "")


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _fmt(value: float | None, spec: str) -> str:
    return "" if value is None else format(value, spec)


def write_markdown(
    results: Sequence[KernelResult],
    path: str | Path,
    *,
    machine: Machine,
    date: str,
    command: str,
    dataset: str,
    build: str,
    repeat: int,
    baseline: Mapping[str, Baseline] | None = None,
    baseline_name: str = "baseline",
    plot: str | None = None,
) -> None:
    openmp = any(r.mode == "openmp" for r in results)
    opencl = any(r.mode == "opencl" for r in results)
    host_paths = any(r.mode == "host-path" for r in results)
    emulated = not (openmp or opencl or host_paths) and (machine.gpu is None
                                                         or any(r.mode == "emulation" for r in results))
    where = machine.gpu or "none"
    kind = "C target with OpenMP" if openmp else "OpenCL" if opencl else "host paths" if host_paths \
        else "CPU emulation" if emulated else "GPU"
    lines = [
        f"# PolyBench/C with ppcg-py: {dataset}, {kind}",
        "",
        f"- date: {date}",
        f"- command: `{command}`",
        f"- ppcg-py: {machine.ppcg}",
        f"- machine: `{machine.uname}`",
        f"- CPU: {machine.cpu} ({machine.cores} cores)",
        f"- GPU: {where}",
        f"- build: {build}; reference: the original program built with `gcc -O3`",
        f"- timings: median of {repeat} run(s) of the seconds between PolyBench's start and "
        "stop instruments; the generated program's times include device allocation and transfers "
        "(the CUDA context is created before main())",
    ]
    if opencl:
        lines += [
            "",
            "**The generated OpenCL ran on the OpenCL runtime installed** (PoCL runs it on the CPU): "
            "its times include building the kernels when the program starts.",
        ]
    if host_paths:
        lines += [
            "",
            "**The generated program ran with no device** (`--host-path`): every SCoP took its host "
            "path, the C target's code of it, on this machine's CPU.",
        ]
    if emulated:
        lines += [
            "",
            "**The generated CUDA ran in the CPU emulation** (blocks one after another, the "
            "threads of a block as fibers), checked in forward and reverse thread order: its "
            "times are emulation times, not GPU times, and the speedups say nothing about a GPU.",
        ]
    has_base = baseline is not None
    head = [
        "kernel",
        "category",
        "status",
        "compile (s)",
        "build (s)",
        "reference (s)",
        "generated (s)",
        "speedup",
        *([f"{baseline_name} speedup"] if has_base else []),
        "kernels",
        "error",
    ]
    lines += ["", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in results:
        build_s = r.build_s if r.build_s is not None else r.emu_build_s
        cells = [
            r.kernel,
            r.category,
            f"**{r.status}**" if r.failed else r.status,
            _fmt(r.compile_s, ".2f"),
            _fmt(build_s, ".2f"),
            _fmt(r.ref_time_s, ".3g"),
            _fmt(r.gen_time_s, ".3g"),
            _fmt(r.speedup, ".3g"),
        ]
        if baseline is not None:
            cells.append(_fmt(baseline_speedup(r, baseline.get(r.kernel)), ".3g"))
        cells += [
            "" if r.kernels is None else str(r.kernels),
            f"`{_md_escape(r.error)}`" if r.error else "",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    compiles = [r.compile_s for r in results if r.compile_s is not None]
    summary = f"**{summary_line(results)}**"
    if compiles:
        summary += f"; ppcg-py compile time {sum(compiles):.1f} s in all"
    lines += [
        "",
        summary,
        "",
        "build (s): nvcc or clang (compile and link) when used, else the emulation's g++ build.",
    ]
    if plot:
        lines += ["", f"![speedup per kernel]({plot})"]
    Path(path).write_text("\n".join(lines) + "\n")


def plot_speedups(
    results: Sequence[KernelResult],
    path: str | Path,
    *,
    title: str,
    baseline: Mapping[str, Baseline] | None = None,
    baseline_name: str = "baseline",
) -> None:
    """Bar chart of the speedup per kernel, log scale, with the baseline's bars beside.

    Kernels without a speedup (failed, or too fast to time) get a label instead
    of a bar.  Raises PlotUnavailable when matplotlib is missing.
    """
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable(
            "matplotlib is not installed, so no speedup plot was written: "
            "`pip install matplotlib` (or pass --no-plot)"
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r.kernel for r in results]
    ours = [r.speedup for r in results]
    theirs = [baseline_speedup(r, baseline.get(r.kernel)) for r in results] if baseline else None
    shown = [v for v in [*ours, *(theirs or [])] if v]
    low = min([*shown, 1.0]) / 2
    high = max([*shown, 1.0]) * 2
    width = 0.4 if theirs else 0.7
    fig, ax = plt.subplots(figsize=(max(6.0, 0.38 * len(names) + 2), 4.8))
    xs = list(range(len(names)))

    def bars(values: list[float | None], offset: float, label: str, color: str) -> None:
        ax.bar(
            [x + offset for x, v in zip(xs, values) if v],
            [v for v in values if v],
            width=width,
            label=label,
            color=color,
        )

    bars(ours, -width / 2 if theirs else 0.0, "ppcg-py", "tab:blue")
    if theirs:
        bars(theirs, width / 2, baseline_name, "tab:orange")
    for x, r in zip(xs, results):
        if r.speedup is None:
            mark = "FAIL" if r.failed else "n/a"
            ax.text(
                x,
                low * 1.1,
                mark,
                rotation=90,
                ha="center",
                va="bottom",
                fontsize=7,
                color="tab:red" if r.failed else "gray",
            )
    ax.set_yscale("log")
    ax.set_ylim(low, high)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(xs)
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("speedup over gcc -O3 (log scale)")
    ax.set_title(title, fontsize=10)
    if theirs:
        ax.legend(fontsize=8)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":   # python -m polybench.report --sum LOG...: one summary line for several runs
    if sys.argv[1:2] != ["--sum"] or len(sys.argv) < 3:
        sys.exit("usage: python -m polybench.report --sum LOG...")
    try:
        print(sum_summaries(Path(log).read_text() for log in sys.argv[2:]))
    except (OSError, ValueError) as exc:
        sys.exit(f"python -m polybench.report: {exc}")
