"""CPU time of two checkouts of ppcg-py compiling the same PolyBench kernels at LARGE,
interleaved (base, head, base, head, ...) so that a busy machine slows both alike; the
least of `repeat` runs each, and the geometric mean of head over base. Each checkout
needs its own .venv (`make install`); the sources are this checkout's.

    python benchmarks/compile_side_by_side.py [--args="--target=c --openmp --tile"] BASE_CHECKOUT REPEAT KERNEL...

`--args`: ppcg-py options for both (the CUDA target by default).
"""
from __future__ import annotations

import argparse
import math
import resource
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from polybench.kernels import KERNELS, compile_flags  # noqa: E402


def cpu_seconds(checkout: str, kernel, args: list[str]) -> float:
    """User and system time of one compilation by `checkout`'s ppcg-py."""
    with tempfile.TemporaryDirectory() as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([f"{checkout}/.venv/bin/python", "-m", "ppcg_py", *args, *compile_flags(kernel, "LARGE"),
                        "-d", out, str(ROOT / kernel.path)], cwd=checkout, capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/compile_side_by_side.py",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--args", default="", help="ppcg-py options for both, one string (the CUDA target by default)")
    parser.add_argument("base", help="the other checkout, with its own .venv")
    parser.add_argument("repeat", type=int, help="compilations of each kernel by each checkout")
    parser.add_argument("kernels", nargs="+", metavar="KERNEL", help="PolyBench kernels (gemm, jacobi-2d, ...)")
    given = parser.parse_args(argv)
    args, base, repeat, names = shlex.split(given.args), given.base, given.repeat, given.kernels
    kernels = {k.name: k for k in KERNELS}
    if unknown := [n for n in names if n not in kernels]:
        parser.error(f"unknown kernel(s): {', '.join(unknown)}")
    checkouts = {"base": base, "head": str(ROOT)}
    ratios = []
    for name in names:
        best = {role: math.inf for role in checkouts}
        for _ in range(repeat):
            for role, checkout in checkouts.items():
                best[role] = min(best[role], cpu_seconds(checkout, kernels[name], args))
        ratios.append(best["head"] / best["base"])
        print(f"{name}: base {best['base']:.2f} s, head {best['head']:.2f} s, ratio {ratios[-1]:.2f}", flush=True)
    print(f"geometric mean head/base: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
