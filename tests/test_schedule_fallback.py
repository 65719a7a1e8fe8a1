"""The original loop order as a schedule: --no-reschedule, and the fallback when
isl's scheduler runs past --schedule-timeout (heat-3d with constant bounds takes
minutes in isl's scheduler, milliseconds without its constant upper bounds: asked
after a timeout, schedule/relaxed.py)."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from ppcg_py.cli import main
from ppcg_py.verify.harness import verify

from polybench_cases import kernel_config


@pytest.mark.parametrize("kernel", ["gemm", "jacobi-2d", "lu", "atax", "seidel-2d", "covariance"])
def test_original_order_verifies(kernel, tmp_path):
    report = verify(kernel_config(kernel, ppcg_args=("--no-reschedule",), use_nvcc=False), tmp_path)
    assert report.ok, report.summary()


def test_scheduler_timeout_falls_back_and_verifies(tmp_path):
    """Past the bound on the program's constraints and on them without their constant
    upper bounds (4 ms of wall time: no scheduling problem is solved that fast), the
    original loop order."""
    cfg = kernel_config("heat-3d", dataset="MINI", ppcg_args=("--schedule-timeout", "0.001"), use_nvcc=False)
    cfg = dataclasses.replace(cfg, defines=cfg.defines + ("POLYBENCH_USE_SCALAR_LB",))
    report = verify(cfg, tmp_path)
    assert report.ok, report.summary()
    assert "warning: isl's scheduler did not finish within 0.001 s" in (tmp_path / "ppcg.stderr").read_text()


def test_constant_bounds_are_scheduled_without_them_after_a_timeout(tmp_path):
    """heat-3d with constant loop bounds runs isl's scheduler past 2 s; the same problem
    without its constant upper bounds (schedule/relaxed.py) is solved at once, and its
    schedule respects the program's dependences."""
    cfg = kernel_config("heat-3d", dataset="MINI", ppcg_args=("--schedule-timeout", "2", "-v"), use_nvcc=False)
    cfg = dataclasses.replace(cfg, defines=cfg.defines + ("POLYBENCH_USE_SCALAR_LB",))
    report = verify(cfg, tmp_path)
    assert report.ok, report.summary()
    err = (tmp_path / "ppcg.stderr").read_text()
    assert "did not finish" not in err and "original loop order" not in err, err


def test_scheduler_failure_falls_back_with_a_warning(tmp_path, capsys):
    """isl's scheduler gives up ("unable to carry dependences") on this valid SCoP;
    the original order is always valid: a warning, exit 0, and the right numbers
    (tests/regressions/ replays the same file through the harness)."""
    source = Path(__file__).parent / "regressions" / "schedule_unable_to_carry.c"
    # a generous dataflow budget, so that isl's scheduler is the step that gives up
    assert main(["--dataflow-max-operations", "100000000", "--output-dir", str(tmp_path), str(source)]) == 0
    err = capsys.readouterr().err
    assert "warning: isl's scheduler failed on the SCoP of 'compute' (unable to carry dependences)" in err
    assert (tmp_path / "schedule_unable_to_carry_kernel.cu").exists()


@pytest.mark.parametrize("kernel", ["gemm", "lu", "jacobi-2d", "covariance"])
def test_memory_based_dependences_verify(kernel, tmp_path):
    """When isl's dataflow analysis is too costly: memory-based dependences, the original
    order, every read copied in; still the right numbers."""
    cfg = kernel_config(kernel, ppcg_args=("--dataflow-max-operations", "1"), use_nvcc=False)
    report = verify(cfg, tmp_path)
    assert report.ok, report.summary()
    assert "using memory-based dependences" in (tmp_path / "ppcg.stderr").read_text()


@pytest.mark.parametrize("kernel, parallel", [("gemm", ["t0"]), ("jacobi-2d", ["t0", "t0"]),
                                              ("seidel-2d", [])])
def test_memory_based_dependences_keep_parallel_loops(kernel, parallel, tmp_path, capsys, monkeypatch):
    """Unordered conflicts still let the original order's parallel loops run on threads
    (gemm's i, both of jacobi-2d's sweeps), and keep seidel-2d's carried loops sequential
    (with no parallel loop left, its SCoP runs on the host: no kernel at all)."""
    monkeypatch.chdir(tmp_path)
    cfg = kernel_config(kernel)
    includes = [arg for d in cfg.include_dirs for arg in ("-I", d)]
    assert main(["-v", "--dataflow-max-operations", "1", *includes, str(cfg.source)]) == 0
    report = [line for line in capsys.readouterr().err.splitlines() if re.match(r"ppcg-py: kernel\d+ \(", line)]
    assert [("single thread" if "single thread" in line else re.search(r"threads \['(t0)", line).group(1))
            for line in report] == parallel
