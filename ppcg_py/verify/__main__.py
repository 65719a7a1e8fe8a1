"""python -m ppcg_py.verify: compile one C program and check the CUDA result on the CPU
(or, with --target opencl, the OpenCL result on the installed OpenCL runtime).

Exit status 0 when every fiber order reproduces the reference dump, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .common import FULL_PRECISION_DEFINE, VerifyConfig
from .emulate import ORDERS
from .harness import data_type_from_defines, verify


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ppcg_py.verify",
        description="Compile INPUT with ppcg-py, run the CUDA output on the CPU emulation "
        "and compare its PolyBench array dump (or, with --stdout, its standard output) with the original "
        "program's.",
    )
    p.add_argument("input", type=Path, help="C file with #pragma scop regions")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument(
        "--extra-source",
        action="append",
        default=[],
        metavar="FILE",
        help="another C file to link (e.g. polybench.c)",
    )
    p.add_argument(
        "--ppcg-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="option for the compiler; write --ppcg-arg=--sizes=... for dashes (without "
        "--min-parallel-work given, every parallel loop runs with threads: --min-parallel-work=0)",
    )
    p.add_argument(
        "--order",
        dest="orders",
        action="append",
        choices=ORDERS,
        help="fiber order to run (repeatable; default forward and reverse)",
    )
    p.add_argument("--seed", type=int, default=1, help="seed of the shuffle order")
    p.add_argument(
        "--data-type",
        choices=("double", "float", "int"),
        help="sets the tolerance (default: from -DDATA_TYPE_IS_..., else double)",
    )
    p.add_argument(
        "--program-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="argument for both programs",
    )
    nvcc = p.add_mutually_exclusive_group()
    nvcc.add_argument(
        "--nvcc", dest="use_nvcc", action="store_const", const=True, help="require the nvcc check"
    )
    nvcc.add_argument(
        "--no-nvcc",
        dest="use_nvcc",
        action="store_const",
        const=False,
        help="skip the nvcc check (default: run it when nvcc is installed)",
    )
    p.add_argument(
        "--two-decimals",
        action="store_true",
        help=f"do not add -D{FULL_PRECISION_DEFINE} (PolyBench's default format)",
    )
    p.add_argument(
        "--cxx-reference",
        action="store_true",
        help="when results differ from C's, compare them with the original built as C++ "
        "(CUDA's float overloads of sin, sqrt, ...); equal there counts as a pass",
    )
    p.add_argument("--target", choices=("cuda", "c", "opencl"), default="cuda",
                   help="cuda: the CPU emulation of CUDA (and nvcc); c: compile with --target=c --openmp, build "
                   "NAME.ppcg.c with gcc -fopenmp and run it with OMP_NUM_THREADS=1, 2, 4 (--threads); opencl: "
                   "build with gcc -lOpenCL and run on the installed OpenCL runtime (e.g. PoCL) [cuda]")
    p.add_argument("--threads", type=lambda t: tuple(int(n) for n in t.split(",")), default=(1, 2, 4),
                   help="C target: the thread counts to run, e.g. 1,2,4 [1,2,4]")
    p.add_argument("--stdout", dest="output", action="store_const", const="stdout", default="dump",
                   help="compare the programs' standard output instead of a PolyBench dump: its numbers "
                   "with the data type's tolerance, the words around them exactly")
    p.add_argument("--timeout", type=float, default=300, help="seconds per program run")
    p.add_argument("--keep", type=Path, metavar="DIR", help="work in DIR and keep everything")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    cfg = VerifyConfig(
        source=args.input,
        include_dirs=tuple(args.include_dirs),
        defines=tuple(args.defines),
        extra_c_sources=tuple(args.extra_source),
        ppcg_args=tuple(args.ppcg_arg),
        orders=tuple(args.orders or ("forward", "reverse")),
        use_nvcc=args.use_nvcc,
        data_type=args.data_type or data_type_from_defines(args.defines),
        program_args=tuple(args.program_arg),
        seed=args.seed,
        run_timeout=args.timeout,
        full_precision=not args.two_decimals,
        cxx_reference=args.cxx_reference,
        target=args.target,
        threads=args.threads,
        output=args.output,
    )

    def progress(line: str) -> None:
        print(f"[verify] {line}", file=sys.stderr, flush=True)

    if args.keep:
        report = verify(cfg, args.keep, progress=progress)
    else:
        with tempfile.TemporaryDirectory(prefix="ppcg-verify-") as tmp:
            report = verify(cfg, Path(tmp), progress=progress)
    print(report.summary())
    return 0 if report.ok or report.matches_cxx_only else 1


if __name__ == "__main__":
    sys.exit(main())
