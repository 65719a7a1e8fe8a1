"""PolyBench with -DPOLYBENCH_USE_C99_PROTO: variable-length array parameters.

C++ rejects them, so the host file stays C (NAME_host.c, built by gcc) and each
SCoP calls an extern "C" function of the kernel file.
"""
from __future__ import annotations

import dataclasses

import pytest

from ppcg_py.verify.harness import verify

from polybench_cases import kernel_config

KERNELS = ["gemm", "2mm", "atax", "bicg", "mvt", "jacobi-2d", "lu", "trisolv", "syrk",
           "covariance", "fdtd-2d", "doitgen"]


@pytest.mark.parametrize("kernel", KERNELS)
def test_c99_prototypes_verify(kernel, tmp_path):
    cfg = kernel_config(kernel)
    cfg = dataclasses.replace(cfg, defines=cfg.defines + ("POLYBENCH_USE_C99_PROTO",))
    report = verify(cfg, tmp_path)
    assert report.ok, report.summary()
    assert (tmp_path / "generated" / f"{kernel}_host.c").exists()
    assert not (tmp_path / "generated" / f"{kernel}_host.cu").exists()
