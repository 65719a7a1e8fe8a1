"""C in, CUDA out, verified: nvcc accepts the output and the CPU emulation of CUDA
computes the same numbers as gcc's build of the original, in two thread orders.

SMALL sizes (e.g. gemm 60x70x80) are not multiples of the tile sizes used here, so
partial tiles, grid wrap-around and blocks smaller than tiles are all exercised.
"""
from __future__ import annotations

import re

import pytest

from ppcg_py.verify.harness import run_ppcg, verify

from polybench_cases import kernel_config

KERNELS = ["gemm", "2mm", "atax", "bicg", "mvt", "jacobi-2d", "lu", "trisolv"]
OPTION_SETS = {
    "default": (),
    "tile-sizes": ("--tile-sizes", "16,8,4"),
    "sizes": ("--sizes", "{ kernel[i] -> tile[20,12,7]; kernel[i] -> block[5,6]; kernel[i] -> grid[3,2] }"),
}


@pytest.mark.parametrize("options", list(OPTION_SETS), ids=list(OPTION_SETS))
@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_verifies(kernel, options, tmp_path):
    report = verify(kernel_config(kernel, ppcg_args=OPTION_SETS[options]), tmp_path)
    assert report.ok, report.summary()


def test_example_verifies(tmp_path):
    from pathlib import Path

    from ppcg_py.verify.harness import VerifyConfig
    example = Path(__file__).resolve().parent.parent / "examples" / "matmul.c"
    report = verify(VerifyConfig(source=example), tmp_path)
    assert report.ok, report.summary()


def test_harness_rejects_a_wrong_kernel(tmp_path):
    """Negative control: shift one subscript of the generated gemm kernel by one element."""
    def wrong_compiler(cfg, out_dir):
        proc = run_ppcg(cfg, out_dir)
        kernel = out_dir / "gemm_kernel.cu"
        text = kernel.read_text()
        changed, count = re.subn(r"\bB\[", "B[1 + ", text, count=1)
        assert count == 1
        kernel.write_text(changed)
        return proc

    report = verify(kernel_config("gemm"), tmp_path, compiler=wrong_compiler)
    assert not report.ok
    assert report.mismatches, report.summary()
