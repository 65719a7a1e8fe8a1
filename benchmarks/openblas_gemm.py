"""ppcg-py's gemm (C target) beside OpenBLAS's dgemm, the physical anchor of issue 23.

PolyBench's gemm.c is built twice: once through `ppcg-py --target=c --openmp --tile`,
once with its SCoP replaced by one call to `cblas_dgemm` (the same arrays, the same
`alpha`, `beta`, the same PolyBench timer around the call). The two executables run in
turn, one thread each (OMP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1), and the medians are
compared: ppcg-py's share of OpenBLAS's speed is OpenBLAS's time over ppcg-py's. Both are
first built at SMALL with `-DPOLYBENCH_DUMP_ARRAYS` (all digits printed) and their arrays
compared within 1e-9 (OpenBLAS sums in its own order and scales by `alpha` at the end),
so that a fast wrong answer cannot pass.

Needs `libopenblas-dev` (cblas.h, -lopenblas). Usage:
    python benchmarks/openblas_gemm.py [--dataset LARGE] [--repeat 5] [--ppcg-arg=--no-register-tiles]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from ppcg_py.verify.common import DUMP_DEFINE, FULL_PRECISION_DEFINE  # noqa: E402
from ppcg_py.verify.dump import compare_dumps, parse_dump  # noqa: E402

GEMM = ROOT / "polybench" / "linear-algebra" / "blas" / "gemm"
UTILITIES = ROOT / "polybench" / "utilities"
CBLAS_CALL = """cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, _PB_NI, _PB_NJ, _PB_NK, alpha,
              &A[0][0], NK, &B[0][0], NJ, beta, &C[0][0], NJ);"""


def cblas_source() -> str:
    """gemm.c with its SCoP one call to OpenBLAS (row-major, leading dimensions NK, NJ)."""
    text = (GEMM / "gemm.c").read_text()
    text = re.sub(r"#pragma scop.*?#pragma endscop", CBLAS_CALL, text, count=1, flags=re.S)
    return "#include <cblas.h>\n" + text


def _build(source: Path, exe: Path, dataset: str, extra: tuple[str, ...]) -> None:
    subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", f"-I{UTILITIES}", f"-I{GEMM}", f"-D{dataset}_DATASET",
                    *extra, str(source), str(UTILITIES / "polybench.c"), "-o", str(exe), "-lm", "-lopenblas"],
                   check=True, capture_output=True, text=True)


def _ppcg(dataset: str, out: Path, args: tuple[str, ...]) -> Path:
    out.mkdir()
    subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile", *args, f"-I{UTILITIES}",
                    f"-I{GEMM}", f"-D{dataset}_DATASET", "--output-dir", str(out), str(GEMM / "gemm.c")],
                   check=True, capture_output=True, text=True)
    return out / "gemm.ppcg.c"


def _run(exe: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True, env=env)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset", default="LARGE")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--ppcg-arg", action="append", default=[], help="extra ppcg-py option (repeatable)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="openblas-gemm-") as tmp:
        work = Path(tmp)
        blas_c = work / "gemm_cblas.c"
        blas_c.write_text(cblas_source())
        dumps = {}
        for name, dataset in (("check", "SMALL"), ("timed", args.dataset)):
            extra = (f"-D{DUMP_DEFINE}", f"-D{FULL_PRECISION_DEFINE}") if name == "check" else ("-DPOLYBENCH_TIME",)
            generated = _ppcg(dataset, work / f"{name}-ppcg", tuple(args.ppcg_arg))
            _build(generated, work / f"{name}-ppcg.exe", dataset, extra)
            _build(blas_c, work / f"{name}-blas.exe", dataset, extra)
            if name == "check":
                dumps = {k: parse_dump(_run(work / f"check-{k}.exe").stderr) for k in ("ppcg", "blas")}
        # OpenBLAS scales the sum by alpha at the end and sums in its own order
        problems = compare_dumps(dumps["blas"], dumps["ppcg"], rtol=1e-9, atol=1e-9)
        if problems:
            print(f"ppcg-py's gemm differs from OpenBLAS's at SMALL: {problems[0]}")
            return 1
        times: dict[str, list[float]] = {"ppcg": [], "blas": []}
        for _ in range(args.repeat):
            for k in times:
                times[k].append(float(_run(work / f"timed-{k}.exe").stdout.split()[-1]))
    ppcg, blas = statistics.median(times["ppcg"]), statistics.median(times["blas"])
    print(f"gemm {args.dataset}, 1 thread, median of {args.repeat}: ppcg-py {ppcg:.4g} s "
          f"({' '.join(args.ppcg_arg) or 'default options'}), OpenBLAS cblas_dgemm {blas:.4g} s: "
          f"ppcg-py runs at {100 * blas / ppcg:.0f}% of OpenBLAS's speed (results equal at SMALL)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
