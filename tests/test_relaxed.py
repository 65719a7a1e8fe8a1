"""Schedule constraints without the loops' constant upper bounds (schedule/relaxed.py):
isl's scheduler, which ran for minutes on heat-3d written with constants, finishes at
once on them; the schedule respects the program's dependences, a subset."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import islpy as isl
import pytest

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


def _problems_of(domain: str, dependences: str):
    """The two problems the scheduler asks for a one-statement program: the exact one
    and the one without constant upper bounds."""
    from ppcg_py.schedule import scheduler

    class _Scop:
        context = isl.Set("{ : }")
    deps = isl.UnionMap(dependences)
    return scheduler._problems(_Scop(), isl.UnionSet(domain), deps, deps, deps, None)


def test_a_loop_kept_serial_only_by_instances_past_a_bound_is_parallel_again(monkeypatch):
    """`A[i] = A[9 - i]` for i <= 4: the program has no dependence, but without the bound
    the instances past 4 read what those below write; the relaxed problem's loop is
    marked parallel again with the program's own dependences."""
    from ppcg_py.schedule import scheduler
    problems = _problems_of("{ S[i] : 0 <= i <= 4 }", "{ S[i] -> S[i'] : false }")
    assert problems.relaxed is not None
    relaxed_deps = isl.UnionMap("{ S[i] -> S[9 - i] : 0 <= i <= 4 }")
    problems = scheduler._Problems(problems.exact, problems.relaxed.set_validity(relaxed_deps)
                                   .set_coincidence(relaxed_deps).set_proximity(relaxed_deps),
                                   problems.coincidence)
    monkeypatch.setattr(scheduler, "compute_with_timeout",
                        lambda problem, timeout: None if problem is problems.exact else problem.compute_schedule())
    schedule, failure = scheduler._solved(problems, 30.0, prefer_exact=True)
    assert failure is None
    band = schedule.get_root().child(0)
    assert band.get_type() == isl.schedule_node_type.band
    assert band.band_member_get_coincident(0)
    assert not problems.relaxed.compute_schedule().get_root().child(0).band_member_get_coincident(0)


@pytest.mark.parametrize("relaxed_seconds, exact_bound", [(0.03, 2.0), (0.5, 5.0), (3.0, 10.0)])
def test_the_exact_problem_waits_only_so_long_once_the_relaxed_one_is_solved(monkeypatch, relaxed_seconds,
                                                                              exact_bound):
    """isl's usual schedule prefers the program's own constraints; with the relaxed
    problem's solution in hand it gives them ten times the relaxed problem's CPU time,
    between 2 and EXACT_AFTER_RELAXED seconds, not the whole --schedule-timeout
    (deriche and heat-3d with constant sizes: 32 s -> 12 s -> 3 s)."""
    from ppcg_py.schedule import scheduler
    problems = _problems_of("{ S[t, i] : 0 <= t <= 9 and 0 <= i <= 99 }",
                            "{ S[t, i] -> S[t + 1, i] : 0 <= t <= 8 and 0 <= i <= 99 }")
    asked = []
    clock = [100.0]

    def solve(problem, timeout):
        asked.append(("exact" if problem is problems.exact else "relaxed", timeout))
        if problem is problems.exact:
            return None
        clock[0] += relaxed_seconds
        return problem.compute_schedule()
    monkeypatch.setattr(scheduler, "compute_with_timeout", solve)
    monkeypatch.setattr(scheduler, "_cpu_seconds", lambda: clock[0])
    schedule, _ = scheduler._solved(problems, 30.0, prefer_exact=True)
    assert asked == [("relaxed", scheduler.EXACT_AFTER_RELAXED), ("exact", pytest.approx(exact_bound))]
    assert schedule is not None
    asked.clear()
    monkeypatch.setattr(scheduler, "compute_with_timeout",
                        lambda problem, timeout: asked.append(timeout) or problem.compute_schedule())
    schedule, _ = scheduler._solved(problems, 30.0, prefer_exact=True)
    assert schedule.get_domain().is_equal(isl.UnionSet("{ S[t, i] : 0 <= t <= 9 and 0 <= i <= 99 }"))
    asked.clear()
    scheduler._solved(problems, 0.0, prefer_exact=True)     # --schedule-timeout 0: no bound, as asked
    assert asked == [0.0, 0.0]


def test_the_time_tiles_take_the_relaxed_solution_without_asking_the_exact_problem(monkeypatch):
    from ppcg_py.schedule import scheduler
    problems = _problems_of("{ S[t, i] : 0 <= t <= 9 and 0 <= i <= 99 }",
                            "{ S[t, i] -> S[t + 1, i] : 0 <= t <= 8 and 0 <= i <= 99 }")
    asked = []
    monkeypatch.setattr(scheduler, "compute_with_timeout",
                        lambda problem, timeout: asked.append(problem is problems.exact) or problem.compute_schedule())
    scheduler._solved(problems, 30.0, accept=lambda schedule: True)
    assert asked == [False]
    asked.clear()
    scheduler._solved(problems, 30.0, accept=lambda schedule: False)
    assert asked == [False, True]


def test_the_time_tiles_give_up_where_the_relaxed_problem_runs_out_of_time(monkeypatch):
    """Pluto's game of life: isl ran past 30 s on both of the time tiles' problems
    before its usual schedule took 1.7 s; the exact problem, larger, is not asked once
    the relaxed one ran out of time. isl's usual schedule still asks it."""
    from ppcg_py.schedule import scheduler
    problems = _problems_of("{ S[t, i] : 0 <= t <= 9 and 0 <= i <= 99 }",
                            "{ S[t, i] -> S[t + 1, i] : 0 <= t <= 8 and 0 <= i <= 99 }")
    asked = []

    def solve(problem, timeout):
        asked.append("exact" if problem is problems.exact else "relaxed")
        return None if problem is problems.relaxed else problem.compute_schedule()
    monkeypatch.setattr(scheduler, "compute_with_timeout", solve)
    assert scheduler._solved(problems, 30.0, accept=lambda schedule: True) == (None, None)
    assert asked == ["relaxed"]
    asked.clear()
    schedule, _ = scheduler._solved(problems, 30.0, prefer_exact=True)
    assert schedule is not None and asked == ["relaxed", "exact"]


def test_a_time_tile_attempt_that_runs_out_of_time_warns_nothing(monkeypatch, tmp_path, capsys):
    """Where isl runs out of time on the time tiles' problems, isl's usual schedule
    follows; the attempt said that the SCoP kept its original loop order, which it did
    not (Pluto's game of life)."""
    from test_liveness import PROGRAM

    from ppcg_py.cli import main
    from ppcg_py.schedule import scheduler
    solved = scheduler._solved

    def time_tiles_run_out(problems, timeout, accept=None, prefer_exact=False):
        return (None, None) if not prefer_exact else solved(problems, timeout, accept, prefer_exact)
    monkeypatch.setattr(scheduler, "_solved", time_tiles_run_out)
    source = tmp_path / "heat_1d.c"
    source.write_text(PROGRAM.replace("BEFORE", "").replace("AFTER", ""))
    assert main(["--target=c", "--openmp", "--tile", "--time-tiles=always", "--timeout", "0", "-v",
                 str(source), "-o", str(tmp_path / "out.c")]) == 0
    err = capsys.readouterr().err
    assert "time tiles: none for the SCoP of 'main'" in err, err
    assert "did not finish" not in err and "original loop order" not in err, err
