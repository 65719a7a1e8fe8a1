"""Compile time of ppcg-py on the project's PolyBench kernels, next to PPCG's.

PPCG's times (PPCG 0.09.x built from source) were measured with default options
and the default dataset macros (LARGE) on this kind of 2-core machine; the goal is
half of them.
Usage: python benchmarks/compile_times.py [--repeat 3] [--out docs/results/compile-times.md] [kernels...]
"""
from __future__ import annotations

import argparse
import datetime
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from polybench.kernels import KERNELS, compile_flags  # noqa: E402

PPCG_SECONDS = {
    "correlation": 1.47, "covariance": 0.90, "2mm": 1.10, "3mm": 1.84, "atax": 0.31, "bicg": 0.29,
    "doitgen": 0.42, "mvt": 0.21, "gemm": 0.55, "gemver": 0.44, "gesummv": 0.31, "symm": 0.70,
    "syr2k": 0.69, "syrk": 0.67, "trmm": 0.23, "cholesky": 0.41, "durbin": 0.19, "gramschmidt": 0.62,
    "lu": 0.64, "ludcmp": 0.38, "trisolv": 0.11, "deriche": 2.23, "floyd-warshall": 0.18,
    "nussinov": 0.67, "adi": 1.58, "fdtd-2d": 0.67, "heat-3d": 2.74, "jacobi-1d": 0.21,
    "jacobi-2d": 0.40, "seidel-2d": 0.40,
}


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
    rows, total_ours, total_ppcg = [], 0.0, 0.0
    for kernel in chosen:
        seconds, error = time_kernel(kernel, args.repeat, args.ppcg_arg)
        ppcg = PPCG_SECONDS.get(kernel.name)
        ratio = f"{seconds / ppcg:.2f}" if seconds and ppcg else "-"
        if seconds and ppcg:
            total_ours += seconds
            total_ppcg += ppcg
        rows.append(f"| {kernel.name} | {seconds:.2f} | {ppcg} | {ratio} |" if seconds else
                    f"| {kernel.name} | failed: {error} | {ppcg} | - |")
        print(rows[-1], flush=True)
    header = [f"# ppcg-py compile times on PolyBench/C 4.2.1 kernels (LARGE macros, min of {args.repeat})", "",
              f"- date: {datetime.date.today()}", f"- machine: {platform.node()}, {platform.machine()}, "
              f"{platform.processor() or 'cpu'}, Python {platform.python_version()}",
              f"- command: `python benchmarks/compile_times.py {' '.join(sys.argv[1:])}`",
              f"- total: ppcg-py {total_ours:.1f} s, PPCG {total_ppcg:.1f} s (ratio {total_ours / max(total_ppcg, 1e-9):.2f}; goal 0.5)",
              "", "| kernel | ppcg-py (s) | PPCG (s) | ratio |", "| --- | --- | --- | --- |"]
    text = "\n".join(header + rows) + "\n"
    print(text.splitlines()[5])
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
