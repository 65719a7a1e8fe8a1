"""Schedule constraints without the loops' constant upper bounds (schedule/relaxed.py):
isl's scheduler, which ran for minutes on heat-3d written with constants, finishes at
once on them; the schedule respects the program's dependences, a subset."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import islpy as isl

from ppcg_py.schedule.relaxed import without_upper_bounds

LOOPS = Path(__file__).parent / "time_loops"


def test_only_constant_upper_bounds_of_one_variable_go():
    domain = isl.UnionSet("[n] -> { S[t, i] : 0 < t <= 5 and 0 < i <= n and i <= 10 + t; "
                          "T[k] : exists (e : k = 2e and 0 <= k <= 8) }")
    relaxed, dropped = without_upper_bounds(domain)
    assert dropped
    assert relaxed.is_equal(isl.UnionSet("[n] -> { S[t, i] : t > 0 and 0 < i <= n and i <= 10 + t; "
                                         "T[k] : exists (e : k = 2e and k >= 0) }"))
    assert domain.is_subset(relaxed)


def test_dependences_grow_into_a_superset():
    deps = isl.UnionMap("{ S[t, i] -> S[t + 1, i + 1] : 0 <= t <= 4 and 1 <= i <= 9 }")
    relaxed, dropped = without_upper_bounds(deps)
    assert dropped and deps.is_subset(relaxed)
    assert relaxed.is_equal(isl.UnionMap("{ S[t, i] -> S[t + 1, i + 1] : t >= 0 and i >= 1 }"))


def test_parametric_bounds_are_kept_as_they_are():
    deps = isl.UnionMap("[n] -> { S[i] -> S[i + 1] : 0 <= i < n }")
    relaxed, dropped = without_upper_bounds(deps)
    assert not dropped and relaxed.is_equal(deps)


def test_heat_3d_with_constant_sizes_is_scheduled_and_tiled_along_time(tmp_path):
    """Before, isl's scheduler ran past its 30 s bound twice (the time tiles' schedule,
    then the usual one) and the SCoP kept its original loop order."""
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile", "-v",
                           "--time-tiles=always", str(LOOPS / "heat_3d_constants.c"), "-o", str(tmp_path / "out.c")],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "did not finish" not in proc.stderr and "original loop order" not in proc.stderr, proc.stderr
    assert "time tiles: the time loop around line 19 of the SCoP of 'run': kernel[1] tiles of 16 x 16 x 32" \
        in proc.stderr, proc.stderr
