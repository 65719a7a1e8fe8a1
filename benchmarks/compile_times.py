"""Compile time of ppcg-py on the project's PolyBench kernels, next to PPCG's.

PPCG's times (PPCG 0.09.x built from source) were measured with default options
and the default dataset macros (LARGE) on this kind of 2-core machine; the goal is
half of them.
Usage: python benchmarks/compile_times.py [--repeat 3] [--out docs/results/compile-times.md] [kernels...]
"""
from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from polybench.kernels import KERNELS, compile_flags  # noqa: E402

# PPCG 0.09.x, default options, LARGE, on this kind of 2-core machine (2026-11-23).
# heat-3d: PPCG does not finish within 100 s (isl's scheduler), so it has no ratio.
PPCG_SECONDS = {
    "correlation": 1.64, "covariance": 1.25, "2mm": 1.42, "3mm": 2.21, "atax": 0.66, "bicg": 0.54,
    "doitgen": 0.61, "mvt": 0.32, "gemm": 0.63, "gemver": 0.52, "gesummv": 0.70, "symm": 0.80,
    "syr2k": 0.66, "syrk": 0.64, "trmm": 0.29, "cholesky": 0.53, "durbin": 0.27, "gramschmidt": 0.79,
    "lu": 0.53, "ludcmp": 0.56, "trisolv": 0.16, "deriche": 3.04, "floyd-warshall": 0.29,
    "nussinov": 0.85, "adi": 3.76, "fdtd-2d": 0.83, "jacobi-1d": 0.20, "jacobi-2d": 0.63,
    "seidel-2d": 1.12,
}
PPCG_UNFINISHED = {"heat-3d": "> 100"}
GOAL_RATIO, MOST_SECONDS = 0.5, 2.0


def time_kernel(kernel, repeat: int, extra: list[str]) -> tuple[float | None, str]:
    best = None
    with tempfile.TemporaryDirectory() as out:
        for _ in range(repeat):
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "ppcg_py", *compile_flags(kernel, "LARGE"), *extra,
                                   "--output-dir", out, str(ROOT / kernel.path)],
                                  capture_output=True, text=True, cwd=ROOT)
            elapsed = time.perf_counter() - start
            if proc.returncode != 0:
                return None, proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"
            best = elapsed if best is None else min(best, elapsed)
    return best, ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=None, help="write a Markdown table here")
    parser.add_argument("--ppcg-arg", action="append", default=[])
    args = parser.parse_args()
    chosen = [k for k in KERNELS if not args.kernels or k.name in args.kernels]
    rows, ratios, slow = [], [], []
    for kernel in chosen:
        seconds, error = time_kernel(kernel, args.repeat, args.ppcg_arg)
        ppcg = PPCG_SECONDS.get(kernel.name)
        ppcg_text = f"{ppcg:.2f}" if ppcg else PPCG_UNFINISHED.get(kernel.name, "-")
        if seconds is None:
            rows.append(f"| {kernel.name} | failed: {error} | {ppcg_text} | - |")
        else:
            if ppcg:
                ratios.append(seconds / ppcg)
            if seconds > MOST_SECONDS:
                slow.append(kernel.name)
            ratio = f"{seconds / ppcg:.2f}" if ppcg else "-"
            rows.append(f"| {kernel.name} | {seconds:.2f} | {ppcg_text} | {ratio} |")
        print(rows[-1], flush=True)
    mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else float("nan")
    header = [f"# ppcg-py compile times on PolyBench/C 4.2.1 kernels (LARGE macros, min of {args.repeat})", "",
              f"- date: {datetime.date.today()}", f"- machine: {platform.node()}, {platform.machine()}, "
              f"{os.cpu_count()} cores, Python {platform.python_version()}",
              f"- command: `python benchmarks/compile_times.py {' '.join(sys.argv[1:])}`",
              f"- geometric mean of ppcg-py's time over PPCG's: {mean:.2f} over {len(ratios)} kernels "
              f"(goal {GOAL_RATIO}); over {MOST_SECONDS:g} s: {', '.join(slow) or 'none'}",
              "", "| kernel | ppcg-py (s) | PPCG (s) | ratio |", "| --- | --- | --- | --- |"]
    text = "\n".join(header + rows) + "\n"
    print(text.splitlines()[5])
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
