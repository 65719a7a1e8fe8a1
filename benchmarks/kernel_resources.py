"""Shared memory and registers of the generated kernels (nvcc -Xptxas -v), per promotion mode.

Usage: python benchmarks/kernel_resources.py [--dataset SMALL] [--out FILE.md] [kernels...]
"""
from __future__ import annotations

import argparse
import datetime
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from polybench.kernels import KERNELS, compile_flags  # noqa: E402
from ppcg_py.verify.nvcc import nvcc_resources  # noqa: E402

MODES = {"promoted": [], "global only": ["--no-shared-memory", "--no-private-memory"]}


def resources(kernel, dataset: str, extra: list[str]) -> str:
    with tempfile.TemporaryDirectory() as out:
        flags = compile_flags(kernel, dataset)
        subprocess.run([sys.executable, "-m", "ppcg_py", *flags, *extra, "--output-dir", out,
                        str(ROOT / kernel.path)], check=True, capture_output=True, cwd=ROOT)
        includes = [f[2:] for f in flags if f.startswith("-I")]
        defines = [f[2:] for f in flags if f.startswith("-D")]
        found = nvcc_resources(Path(out) / f"{Path(kernel.path).stem}_kernel.cu",
                               include_dirs=includes, defines=defines)
        return ", ".join(f"{name}: {r.shared_bytes} B/{r.registers} reg" for name, r in sorted(found.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*")
    parser.add_argument("--dataset", default="SMALL")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    rows = ["| kernel | " + " | ".join(MODES) + " |", "| --- |" + " --- |" * len(MODES)]
    for kernel in KERNELS:
        if args.kernels and kernel.name not in args.kernels:
            continue
        cells = [resources(kernel, args.dataset, extra) for extra in MODES.values()]
        rows.append(f"| {kernel.name} | " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    text = "\n".join([f"# Kernel resources (sm_90, ptxas -v), dataset {args.dataset}", "",
                      f"- date: {datetime.date.today()}, machine: {platform.node()}",
                      f"- command: `python benchmarks/kernel_resources.py {' '.join(sys.argv[1:])}`",
                      "- each cell: kernel: static shared memory bytes / registers per thread", "", *rows]) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
