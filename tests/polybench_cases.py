"""Shared helpers: the project's PolyBench-style kernels and the verification harness."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLYBENCH = ROOT / "polybench"
POLYBENCH_C = POLYBENCH / "utilities" / "polybench.c"


def kernel_source(name: str) -> Path:
    """The .c file of one of the project's PolyBench kernels."""
    found = [p for p in POLYBENCH.rglob(f"{name}.c") if p.parent.name == name]
    assert len(found) == 1, f"kernel {name}: {found}"
    return found[0]


# every loop that may run in parallel runs with threads, however short: the tests'
# programs are small, and the parallel-work model would keep their loops serial
EVERY_LOOP = ("--min-parallel-work=0",)


def kernel_config(name: str, *, dataset: str = "SMALL", ppcg_args: tuple[str, ...] = (), **extra):
    from ppcg_py.verify.harness import VerifyConfig
    src = kernel_source(name)
    return VerifyConfig(source=src, include_dirs=(str(POLYBENCH / "utilities"), str(src.parent)),
                        defines=(f"{dataset}_DATASET",), extra_c_sources=(str(POLYBENCH_C),),
                        ppcg_args=ppcg_args, **extra)


def cuda_outputs(tmp_path: Path, source: Path, *args: str) -> tuple[subprocess.CompletedProcess, str, str]:
    """ppcg-py -v on `source` (CUDA unless `args` say otherwise, PolyBench's headers on the
    path): the process, the text of its kernel files and of its host files."""
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    includes = ["-I", str(POLYBENCH / "utilities"), "-I", str(source.parent)]
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "-v", *args, *includes, "-d", str(out), str(source)],
                          capture_output=True, text=True, check=False)
    kernels = "".join(p.read_text() for p in sorted(out.glob("*_kernel.cu")))
    host = "".join(p.read_text() for p in sorted(out.glob("*.cu")) if not p.name.endswith("_kernel.cu"))
    return proc, kernels, host
