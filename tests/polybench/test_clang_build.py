"""The clang/LLVM NVPTX build of generated CUDA (ppcg_py/verify/clang.py, --build clang).

Skipped where clang++-22 is not installed (`make clang` installs it).
"""

from __future__ import annotations

import csv
import io
import subprocess
from pathlib import Path

import pytest
from pbscript_support import ROOT

from ppcg_py.verify.clang import clang_available, clang_check, clang_ptx, ptxas_path
from ppcg_py.verify.harness import VerifyConfig, run_ppcg
from ppcg_py.verify.tools import BuildError

needs_clang = pytest.mark.skipif(
    not clang_available() or ptxas_path() is None, reason="clang++-22 or ptxas not installed"
)

GEMM_DIR = ROOT / "polybench" / "linear-algebra" / "blas" / "gemm"
UTILITIES = ROOT / "polybench" / "utilities"
INCLUDES = (str(UTILITIES), str(GEMM_DIR))
DEFINES = ("MINI_DATASET", "POLYBENCH_DUMP_ARRAYS", "POLYBENCH_TIME")


@pytest.fixture(scope="module")
def gemm_cuda(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """ppcg-py's host and kernel files for gemm at MINI."""
    out = tmp_path_factory.mktemp("gemm-cuda")
    cfg = VerifyConfig(source=GEMM_DIR / "gemm.c", include_dirs=INCLUDES, defines=DEFINES)
    proc = run_ppcg(cfg, out)
    assert proc.returncode == 0, proc.stderr
    return out / "gemm_host.cu", out / "gemm_kernel.cu"


@needs_clang
def test_kernel_to_ptx_accepted_by_ptxas(gemm_cuda: tuple[Path, Path], tmp_path: Path) -> None:
    host, kernel = gemm_cuda
    ptx = clang_ptx(kernel, tmp_path / "k.ptx", include_dirs=INCLUDES, defines=DEFINES)
    text = ptx.read_text()
    assert ".target sm_90" in text and ".entry" in text
    resources = clang_check([host, kernel], kernel, include_dirs=INCLUDES, defines=DEFINES)
    assert "kernel0" in resources and resources["kernel0"].registers > 0


@needs_clang
def test_rejects_bad_device_code(tmp_path: Path) -> None:
    bad = tmp_path / "bad_kernel.cu"
    bad.write_text("__global__ void k(double *a) { a[threadIdx.x] = undeclared; }\n")
    with pytest.raises(BuildError, match="undeclared"):
        clang_ptx(bad, tmp_path / "bad.ptx")


@needs_clang
def test_script_builds_with_clang(tmp_path: Path) -> None:
    from polybench.run import main

    argv = ["--kernels", "jacobi-1d", "--build", "clang", "--repeat", "1", "--no-plot"]
    status = main([*argv, "--emulation", "--out", str(tmp_path)], stream=io.StringIO())
    with open(tmp_path / "results.csv", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert status == 0, row
    assert row["build"] == "clang" and row["status"] == "PASS"
    assert float(row["build_s"]) > 0
    exe = tmp_path / "work" / "jacobi-1d" / "generated-clang"
    symbols = subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout
    assert "cudaLaunchKernel" in symbols  # a real CUDA program, static runtime linked in


def test_missing_clang_is_a_build_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PPCG_CLANG", str(tmp_path / "no-such-clang"))
    assert clang_available()  # configured, even if broken: the build says why
    source = tmp_path / "k.cu"
    source.write_text("__global__ void k() {}\n")
    with pytest.raises(BuildError, match="not found"):
        clang_ptx(source, tmp_path / "k.ptx")
