"""Measured GPU times (benchmarks/gpu_ways.py run) beside the model's predictions
(benchmarks/model.py), per kernel and mapping, and how well the model ranks them.

    python benchmarks/gpu_vs_model.py --measured run1/results.csv --measured run2/results.csv \\
        --model reductions=out/model-red.csv --model ppcg=out/model-red.csv:compare \\
        --model device=out/model-dev.csv --out report.md

A later --measured file fills in the kernels an earlier one did not time (a run cut by
its deadline, a transient failure). `WAY=CSV:compare` takes the model's second mapping
(its --compare column). The report gives, per way, Spearman's rank correlation of
predicted with measured times over the kernels, the geometric mean of measured over
predicted, and, for the last way against the first, the predicted and measured speedups.
"""
from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
from pathlib import Path


def measured_times(files: list[Path]) -> tuple[dict[str, dict[str, float]], list[str], dict[str, float]]:
    """kernel -> way -> median seconds, the ways in order, and gcc's seconds per kernel."""
    times: dict[str, dict[str, float]] = {}
    reference: dict[str, float] = {}
    ways: list[str] = []
    for path in files:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                for column, value in row.items():
                    way = column[:-2] if column.endswith("_s") and column != "reference_s" else None
                    if way is None:
                        continue
                    if way not in ways:
                        ways.append(way)
                    if value:
                        times.setdefault(row["kernel"], {}).setdefault(way, float(value))
                if row.get("reference_s"):
                    reference.setdefault(row["kernel"], float(row["reference_s"]))
    return times, ways, reference


def predicted_times(specs: list[str]) -> dict[str, dict[str, float]]:
    """way -> kernel -> predicted seconds, from `WAY=CSV` or `WAY=CSV:compare`."""
    models: dict[str, dict[str, float]] = {}
    for spec in specs:
        way, _, rest = spec.partition("=")
        path, _, which = rest.partition(":")
        column = "compare_predicted_s" if which == "compare" else "predicted_s"
        with open(path, newline="") as f:
            models[way] = {row["kernel"]: float(row[column]) for row in csv.DictReader(f) if row.get(column)}
    return models


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties given their mean rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    result = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            result[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return result


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rank correlation: Pearson's on the ranks."""
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    norm = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return cov / norm if norm else float("nan")


def report(times, ways, reference, models) -> list[str]:
    ways = [w for w in ways if w in models]
    kernels = [k for k in times if all(w in times[k] and k in models[w] for w in ways)]
    head = "| kernel | gcc -O3 (s) | " + " | ".join(f"{w} measured (s) | {w} predicted (s)" for w in ways)
    first, last = ways[0], ways[-1]
    if len(ways) > 1:
        head += f" | {last} / {first} measured | {last} / {first} predicted"
    lines = [head + " |", "|" + " --- |" * (head.count("|"))]
    for k in kernels:
        cells = [k, _fmt(reference.get(k))]
        for w in ways:
            cells += [_fmt(times[k][w]), _fmt(models[w][k])]
        if len(ways) > 1:
            cells += [f"{times[k][first] / times[k][last]:.2f}", f"{models[first][k] / models[last][k]:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"Over the {len(kernels)} kernels measured in every way:"]
    for w in ways:
        measured, predicted = [times[k][w] for k in kernels], [models[w][k] for k in kernels]
        ratio = statistics.geometric_mean([m / p for m, p in zip(measured, predicted)])
        lines.append(f"- {w}: Spearman's rank correlation of predicted with measured times "
                     f"{spearman(predicted, measured):.2f}; measured / predicted: geometric mean {ratio:.2f}, "
                     f"range {min(m / p for m, p in zip(measured, predicted)):.2g} to "
                     f"{max(m / p for m, p in zip(measured, predicted)):.2g}")
    if len(ways) > 1:
        measured = [times[k][first] / times[k][last] for k in kernels]
        predicted = [models[first][k] / models[last][k] for k in kernels]
        lines.append(f"- speedup of {last} over {first}: geometric mean measured "
                     f"{statistics.geometric_mean(measured):.2f}, predicted {statistics.geometric_mean(predicted):.2f}; "
                     f"rank correlation of the speedups {spearman(predicted, measured):.2f}")
    return lines


def _fmt(value: float | None) -> str:
    return "-" if value is None else (f"{value:.3g}" if value < 100 else f"{value:.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measured", type=Path, action="append", required=True,
                        help="a results.csv of gpu_ways.py run (repeatable; earlier files win)")
    parser.add_argument("--model", action="append", required=True, metavar="WAY=CSV[:compare]",
                        help="the model's CSV for a way (repeatable)")
    parser.add_argument("--out", type=Path, help="write the Markdown here (default: stdout)")
    args = parser.parse_args()
    times, ways, reference = measured_times(args.measured)
    models = predicted_times(args.model)
    missing = [w for w in models if w not in ways]
    if missing:
        print(f"error: no measured times for way {', '.join(missing)}", file=sys.stderr)
        return 2
    text = "\n".join(report(times, ways, reference, models)) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
