"""Kernel times of benchmarks/gpu_ways.py: what `--timing` (or the same events put
around other tools' launches and cuBLAS's calls) printed, and the tables made of it.

kernels.csv has one row per PolyBench kernel and way: `kernel,way,kernel_s,program_s,status`
(kernel_s: the sum of the program's kernel times, median over its timed runs;
program_s: PolyBench's timer in the untimed build, median). kernels.md adds, per
kernel, its roofline bound on the card (ppcg-py's counted floating-point operations
at the card's peak, or its compulsory DRAM bytes at the card's bandwidth, whichever
takes longer), each way's share of that bound, ppcg-py's ratios to PPCG and to cuBLAS,
and how well the model's predicted device times rank the measured ones (Spearman).
"""
from __future__ import annotations

import csv
import math
import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gpu_vs_model  # noqa: E402

_KERNEL = re.compile(r"^ppcg-py timing: (?P<name>[\w.-]+): (?P<launches>\d+) launches, (?P<total>[\d.]+) ms total, "
                     r"[\d.]+ ms mean(?:, (?P<gflops>[\d.]+) GFLOP/s, (?P<gbs>[\d.]+) GB/s)?$", re.M)
_COPIES = re.compile(r"^ppcg-py timing: copies to the (?:device|host): \d+, \d+ bytes, (?P<ms>[\d.]+) ms", re.M)

#: PolyBench kernels with a cuBLAS counterpart at level 3 (the issue's 25% bar)
LEVEL3 = ("gemm", "2mm", "3mm", "syrk", "syr2k", "symm")


@dataclass(frozen=True)
class Timing:
    """What one timed run printed: its kernels' seconds, their counted work (where
    ppcg-py counted it), and its copies' seconds."""

    kernel_s: float
    flops: float
    dram_bytes: float
    copy_s: float
    kernels: int


def parse_timing(stderr: str) -> Timing | None:
    """The `ppcg-py timing:` lines of a run, summed; None where there are none."""
    kernels = list(_KERNEL.finditer(stderr))
    copies = [float(m.group("ms")) for m in _COPIES.finditer(stderr)]
    if not kernels and not copies:
        return None
    total = sum(float(m.group("total")) for m in kernels)
    flops = sum(float(m.group("gflops") or 0) * float(m.group("total")) * 1e6 for m in kernels)
    moved = sum(float(m.group("gbs") or 0) * float(m.group("total")) * 1e6 for m in kernels)
    return Timing(total * 1e-3, flops, moved, sum(copies) * 1e-3, len(kernels))


def roofline_seconds(flops: float, dram_bytes: float, peak_flops: float | None, bandwidth: float) -> float:
    """The least time the card needs: its peak for the operations, its bandwidth for the bytes."""
    compute = flops / peak_flops if peak_flops else 0.0
    return max(compute, dram_bytes / bandwidth)


def spearman(xs: list[float], ys: list[float]) -> float | None:
    """Spearman's rank correlation (benchmarks/gpu_vs_model.py's); None under three
    pairs or where the ranks do not vary."""
    if len(xs) < 3:
        return None
    rho = gpu_vs_model.spearman(xs, ys)
    return None if math.isnan(rho) else rho


@dataclass(frozen=True)
class Row:
    """One kernel and way, as measured."""

    kernel: str
    way: str
    kernel_s: float | None
    program_s: float | None
    status: str
    flops: float = 0.0            # ppcg-py's counted work, where this way is ppcg-py's
    dram_bytes: float = 0.0
    predicted_s: float | None = None   # the model's device seconds (copies, launches, kernels)
    device_s: float | None = None      # measured kernels and copies


def write_csv(path: Path, rows: list[Row]) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["kernel", "way", "kernel_s", "program_s", "status"])
        for r in rows:
            writer.writerow([r.kernel, r.way, _num(r.kernel_s), _num(r.program_s), r.status])


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def table(rows: list[Row], ways: list[str], card, data_types: dict[str, str], ours: str,
          ppcg: str | None, cublas: str | None) -> list[str]:
    """kernels.md's table and summary lines (markdown)."""
    by = {(r.kernel, r.way): r for r in rows}
    kernels = list(dict.fromkeys(r.kernel for r in rows))
    head = ["kernel", "roofline bound (s)", *[f"{w} kernels (s)" for w in ways], *[f"{w} share" for w in ways],
            *[f"{w} program (s)" for w in ways]]
    if ppcg:
        head += [f"{ours} vs {ppcg}: kernels", "programs"]
    if cublas:
        head += [f"{ours} / {cublas} speed"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    kernel_ratios, program_ratios, slower, of_cublas = [], [], [], {}
    for k in kernels:
        mine = by.get((k, ours))
        bound = None
        if mine is not None and mine.kernel_s and (mine.flops or mine.dram_bytes):
            peak = {"double": card.fp64_flops, "float": card.fp32_flops}.get(data_types.get(k, "double"))
            bound = roofline_seconds(mine.flops, mine.dram_bytes, peak, card.dram_bandwidth)
        cells = [k, _fmt(bound)]
        cells += [_fmt(by[(k, w)].kernel_s) if (k, w) in by and by[(k, w)].kernel_s else
                  (f"**{by[(k, w)].status}**" if (k, w) in by else "") for w in ways]
        cells += [f"{bound / by[(k, w)].kernel_s:.0%}" if bound and (k, w) in by and by[(k, w)].kernel_s else ""
                  for w in ways]
        cells += [_fmt(by[(k, w)].program_s) if (k, w) in by and by[(k, w)].program_s else "" for w in ways]
        if ppcg:
            theirs = by.get((k, ppcg))
            kr = _ratio(theirs and theirs.kernel_s, mine and mine.kernel_s)
            pr = _ratio(theirs and theirs.program_s, mine and mine.program_s)
            if kr:
                kernel_ratios.append(kr)
                if kr < 1 / 1.1:
                    slower.append(k)
            if pr:
                program_ratios.append(pr)
            cells += [f"{kr:.2f}" if kr else "", f"{pr:.2f}" if pr else ""]
        if cublas:
            cr = _ratio((by.get((k, cublas)) or Row(k, cublas, None, None, "")).kernel_s, mine and mine.kernel_s)
            if cr:
                of_cublas[k] = cr
            cells.append(f"{cr:.0%}" if cr else "")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if kernel_ratios:
        lines.append(f"- {ours} over {ppcg}, kernel time (>1: {ours} faster): geometric mean "
                     f"{statistics.geometric_mean(kernel_ratios):.3f} over {len(kernel_ratios)} kernels; more than "
                     f"10% slower: {', '.join(slower) or 'none'}")
    if program_ratios:
        lines.append(f"- {ours} over {ppcg}, whole programs: geometric mean "
                     f"{statistics.geometric_mean(program_ratios):.3f} over {len(program_ratios)} kernels")
    if of_cublas:
        lines.append(f"- {ours}'s speed as a share of {cublas}'s: " + ", ".join(
            f"{k} {of_cublas[k]:.0%}" for k in LEVEL3 if k in of_cublas)
            + (" (level 2: " + ", ".join(f"{k} {v:.0%}" for k, v in of_cublas.items() if k not in LEVEL3) + ")"
               if any(k not in LEVEL3 for k in of_cublas) else ""))
    ranked = [(r.predicted_s, r.device_s) for r in rows if r.way == ours and r.predicted_s and r.device_s]
    rho = spearman([p for p, _ in ranked], [m for _, m in ranked])
    if rho is not None:
        lines.append(f"- the model's predicted device times (copies, launches, kernels) against the measured "
                     f"kernels and copies of {ours}: Spearman's rho {rho:.3f} over {len(ranked)} kernels")
    return lines


def _ratio(theirs: float | None, mine: float | None) -> float | None:
    return theirs / mine if theirs and mine else None


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3g}"
