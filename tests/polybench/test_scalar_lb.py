"""Kernels written with constant loop bounds (-DPOLYBENCH_USE_SCALAR_LB) verify too.

With that macro `_PB_N` expands to the constant `N` instead of the parameter
`n`, so the SCoP has no parameters and the scheduler sees different
constraints.  heat-3d is left out: with constant bounds isl's scheduler takes
minutes on it (PPCG: 175 s).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from polybench.pipeline import Settings, run_benchmark
from polybench.suite import project_suite

KERNELS = (
    "gemm", "gemver", "gesummv", "atax", "bicg", "mvt", "trisolv", "durbin", "cholesky", "lu",
    "jacobi-1d", "jacobi-2d",
)  # fmt: skip
SETTINGS = Settings(dataset="MINI", build="none", repeat=1, defines=("POLYBENCH_USE_SCALAR_LB",))


@pytest.mark.slow
@pytest.mark.parametrize("name", KERNELS)
def test_scalar_loop_bounds_verify(name: str, tmp_path: Path) -> None:
    (bench,) = [b for b in project_suite() if b.name == name]
    result = run_benchmark(bench, SETTINGS, tmp_path)
    assert result.status == "PASS", f"{result.status}: {result.error}"
