"""A SCoP's time loops and where isl's schedule runs them apart (schedule/time_loops.py),
shared by the C target's time tiles and CUDA's `--hybrid`."""
from __future__ import annotations

from pathlib import Path

from ppcg_py.diagnostics import Diagnostics
from ppcg_py.extract import extract_scops
from ppcg_py.isl_context import new_context
from ppcg_py.options import Options
from ppcg_py.schedule.scheduler import compute_schedule, scheduling_start
from ppcg_py.schedule.time_loops import is_time_loop, place_apart, scalar_writer, time_loops, top_level, where

LOOPS = Path(__file__).parent / "time_loops"


def _scop(name: str):
    options = Options(target="c", openmp=True, tile=True)
    scop = extract_scops(str(LOOPS / name), new_context())[0]
    deps = scheduling_start(scop, options, Diagnostics())[0]
    return scop, deps, compute_schedule(scop, deps, options, Diagnostics())


def test_the_time_loops_are_those_that_pass_values_along_themselves():
    """two_stencils.c: the fills and the sum carry nothing along their outer loop (the
    sum's `sums[j]` is carried by its inner one); each stencil's `t` passes values on."""
    scop, deps, _ = _scop("two_stencils.c")
    assert [where(scop, inst) for _, inst in time_loops(scop, deps.flow)] == ["line 18", "line 25"]


def test_the_top_level_is_each_child_of_the_outer_sequence():
    scop, deps, _ = _scop("two_stencils.c")
    children = top_level(scop)
    assert [where(scop, inst) for _, inst in children] == ["line 15", "line 18", "line 21", "line 25", "line 31"]
    assert [is_time_loop(node, deps.flow) for node, _ in children] == [False, True, False, True, False]


def test_isl_runs_each_time_loop_apart():
    """Each stencil's statements sit under a filter of their own in isl's usual schedule
    (where --hybrid puts its split tiles); no one filter selects both loops."""
    scop, deps, schedule = _scop("two_stencils.c")
    first, second = (inst for _, inst in time_loops(scop, deps.flow))
    for instances in (first, second):
        place = place_apart(schedule, instances)
        assert place is not None and place.get_domain().is_equal(instances)
    assert place_apart(schedule, first.union(second)) is None


def test_a_sum_into_a_scalar_names_its_statement(tmp_path):
    source = tmp_path / "sum.c"
    source.write_text("double A[9][9], s;\nvoid f(void) {\n#pragma scop\n  s = 0;\n  for (int i = 0; i < 9; i++)\n"
                      "    for (int j = 0; j < 9; j++)\n      s += A[i][j];\n#pragma endscop\n}\n")
    scop = extract_scops(str(source), new_context())[0]
    assert scalar_writer(scop, frozenset(s.name for s in scop.statements if s.line == 7)) == "S_1 (line 7)"
    assert scalar_writer(_scop("two_stencils.c")[0], frozenset(s.name for s in _scop("two_stencils.c")[0].statements)) \
        is None
