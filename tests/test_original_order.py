"""The program's own loop order where isl's schedule buys nothing (schedule/cpu/original_order.py)."""
from __future__ import annotations

import pytest

from polybench_cases import POLYBENCH, kernel_config, kernel_source
from ppcg_py.schedule.cpu.cache_sizes import Caches
from ppcg_py.schedule.cpu.original_order import gains_nothing, jumps
from ppcg_py.verify.harness import run_ppcg, verify

OWN_ORDER = "keeps its own loop order"


def _scop(kernel: str, dataset: str):
    from ppcg_py.extract import extract_program
    from ppcg_py.isl_context import new_context

    source = kernel_source(kernel)
    return extract_program(str(source), new_context(), include_dirs=(str(POLYBENCH / "utilities"), str(source.parent)),
                           defines=(f"{dataset}_DATASET",)).scops[0]


def _plan(kernel: str, dataset: str = "LARGE", **options):
    from ppcg_py.options import Options
    from ppcg_py.schedule.cpu import schedule_for_cpu

    chosen = {"openmp": True, "tile": True, "cache_tiles": True, "verbose": True, "min_parallel_work": 32768,
              **options}
    return schedule_for_cpu(_scop(kernel, dataset), Options(target="c", **chosen))


@pytest.mark.parametrize("kernel, options", [("trisolv", {"time_tiles": "never"}), ("floyd-warshall", {})])
def test_a_serial_untiled_reordering_that_walks_columns_gives_way(kernel, options):
    """isl turns trisolv's rows (and floyd-warshall's) into a walk down the columns to
    find a parallel loop that is too short to run in parallel: the program's own order,
    row by row, is kept (trisolv 6.5 ms against 3.5 ms; floyd-warshall over 100 s
    against 12 s at LARGE). trisolv, scheduled whole, gets tiles along its `i`
    instead (test_time_tiles.py); without them, its own order."""
    plan = _plan(kernel, **options)
    assert any(OWN_ORDER in note for note in plan.notes), plan.notes
    assert not plan.parallel and jumps(plan.schedule, plan.scop) == 0


@pytest.mark.parametrize("kernel", ["gemm", "atax", "jacobi-2d"])
def test_a_schedule_that_runs_loops_in_parallel_is_kept(kernel):
    plan = _plan(kernel)
    assert plan.parallel and not any(OWN_ORDER in note for note in plan.notes)


def test_with_sizes_given_or_no_openmp_the_model_is_not_asked():
    assert not any(OWN_ORDER in note for note in _plan("trisolv", cache_tiles=False).notes)
    assert not any(OWN_ORDER in note for note in _plan("trisolv", openmp=False).notes)


def test_only_arrays_larger_than_l2_count():
    """trisolv at MEDIUM: `L` is 400 x 400 doubles (1.25 MiB). isl's column walk jumps
    through it once per innermost loop; with an L2 cache that holds it, not at all."""
    plan = _plan("trisolv", dataset="MEDIUM", openmp=False)
    assert jumps(plan.schedule, plan.scop, Caches(32 * 1024, 512 * 1024)) == 1
    assert jumps(plan.schedule, plan.scop, Caches(32 * 1024, 4 * 1024 * 1024)) == 0


@pytest.mark.parametrize("loops, tiles, nothing", [
    (0, (), True), (0, ((), (32,)), True), (1, (), False), (0, ((32, 32),), False)])
def test_a_plan_gains_something_with_a_parallel_loop_or_a_tiled_band(loops, tiles, nothing):
    assert gains_nothing(loops, tiles) == nothing


def test_trisolv_in_its_own_order_computes_what_gcc_does(tmp_path):
    """At LARGE with the command line's `--min-parallel-work`, where the own order is
    chosen, against gcc's build, with 1, 2 and 4 threads."""
    args = ("--tile", "--min-parallel-work=32768", "--time-tiles=never", "-v")
    report = verify(kernel_config("trisolv", dataset="LARGE", ppcg_args=args, target="c"), tmp_path)
    assert report.ok, report.summary()
    notes = tmp_path / "notes"
    notes.mkdir()
    proc = run_ppcg(kernel_config("trisolv", dataset="LARGE", ppcg_args=args, target="c"), notes)
    assert proc.returncode == 0 and OWN_ORDER in proc.stderr, proc.stderr
