"""The C target's sizes from the cache model against those `--autotune` finds, side by side.

For each PolyBench kernel: `ppcg-py --target=c --openmp --tile --autotune` with a budget
writes a sizes file (tile sizes and register blocks); the model's build (no size option)
and the tuned build (`--sizes-file`) are then run in turn, `--repeat` times each, with
OMP_NUM_THREADS=1, and their PolyBench times' medians compared. Prints a Markdown table;
the tuned build's speedup is the model's median over the tuned one's, and 1 where the
tuned sizes give the model's code byte for byte (two timings of one program differ by
the machine's noise alone: up to 10% on the 2-core VM).

Usage: python benchmarks/tuned_vs_model.py --kernels gemm,2mm,syr2k [--budget 45] [--repeat 5]
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from polybench.suite import chosen  # noqa: E402
from ppcg_py.schedule.sizes import sizes_file_text  # noqa: E402

UTILITIES = ROOT / "polybench" / "utilities"
C_TILED = ("--target=c", "--openmp", "--tile")


def _flags(kernel_dir: Path, dataset: str) -> list[str]:
    return [f"-I{UTILITIES}", f"-I{kernel_dir}", f"-D{dataset}_DATASET", "-DPOLYBENCH_TIME"]


def _generate(source: Path, out: Path, dataset: str, *args: str) -> tuple[Path, str]:
    """The generated file and the sizes it used (`--dump-sizes`)."""
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", *C_TILED, *args, *_flags(source.parent, dataset),
                           "--dump-sizes", "--output-dir", str(out), str(source)],
                          check=True, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    return out / f"{source.stem}.ppcg.c", proc.stdout.strip().splitlines()[-1]


def _build(generated: Path, source: Path, dataset: str) -> Path:
    exe = generated.with_suffix(".exe")
    subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", *_flags(source.parent, dataset), str(generated),
                    str(UTILITIES / "polybench.c"), "-o", str(exe), "-lm"], check=True, capture_output=True)
    return exe


def _time(exe: Path) -> float:
    proc = subprocess.run([str(exe)], check=True, capture_output=True, text=True,
                          env=dict(os.environ, OMP_NUM_THREADS="1"))
    return float(proc.stdout.split()[-1])


def compare(kernel, dataset: str, budget: float, repeat: int, work: Path) -> list[str]:
    """One table row: the model's sizes, the tuned ones, both medians, the speedup."""
    source = kernel.source
    model_c, model_sizes = _generate(source, work / "model", dataset)
    sizes_file = work / f"{kernel.name}.sizes"
    _generate(source, work / "tuning", dataset, "--autotune", "--autotune-budget", str(budget),
              "--autotune-out", str(sizes_file), "--autotune-cc-args", str(UTILITIES / "polybench.c"))
    tuned_c, tuned_sizes = _generate(source, work / "tuned", dataset, "--sizes-file", str(sizes_file))
    same = sizes_file_text(model_sizes) == sizes_file_text(tuned_sizes)
    if model_c.read_text() == tuned_c.read_text():
        # one program: its two timings would differ by this machine's noise alone
        m = statistics.median(_time(_build(model_c, source, dataset)) for _ in range(repeat))
        return [kernel.name, f"`{model_sizes}`", "(the same)" if same else f"`{tuned_sizes}`", f"{m:.4g}",
                "(the same code)", "1.00"]
    model, tuned = _build(model_c, source, dataset), _build(tuned_c, source, dataset)
    times: dict[Path, list[float]] = {model: [], tuned: []}
    for _ in range(repeat):
        for exe in times:
            times[exe].append(_time(exe))
    m, t = statistics.median(times[model]), statistics.median(times[tuned])
    return [kernel.name, f"`{model_sizes}`", "(the same)" if same else f"`{tuned_sizes}`", f"{m:.4g}", f"{t:.4g}",
            f"{m / t:.2f}"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kernels", default="gemm,2mm,syrk,syr2k,doitgen,jacobi-2d")
    p.add_argument("--dataset", default="LARGE")
    p.add_argument("--budget", type=float, default=45.0, help="seconds of --autotune per kernel")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="tuned-vs-model-") as tmp:
        for kernel in chosen(None, args.kernels):
            rows.append(compare(kernel, args.dataset, args.budget, args.repeat, Path(tmp) / kernel.name))
            print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    speedups = [float(r[-1]) for r in rows]
    print("| kernel | model's sizes | tuned sizes | model (s) | tuned (s) | tuned's speedup |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    geomean = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
    print(f"\ngeometric mean of the tuned builds' speedups: {geomean:.3f}; the model's share of the tuned "
          f"speed: {100 / geomean:.0f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
