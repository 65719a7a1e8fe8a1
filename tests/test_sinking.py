"""A band's loops moved into the statement groups below it (schedule/cpu/sinking.py), and
the C target's copies of temporary arrays that make it possible (schedule/expansion.py
with `innermost`): when the dependences allow it, that the joined bands are permutable and
their flags right, and that doitgen's shape then keeps register blocks and computes what
gcc computes, at sizes no tile divides."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

from ppcg_py.extract import extract_scops
from ppcg_py.isl_context import new_context
from ppcg_py.options import Options
from ppcg_py.schedule.cpu import schedule_for_cpu
from ppcg_py.schedule.cpu.sinking import members_sunk
from ppcg_py.verify.harness import VerifyConfig, verify

from test_expansion import DOITGEN, _program

NT = isl.schedule_node_type
DOMAIN = "[n] -> { S0[i, j] : 0 <= i, j < n; S1[i, j] : 0 <= i, j < n }"
# a band over i around a sequence of S0's and S1's loops over j
TREE = ('{ domain: "' + DOMAIN + '", child: { schedule: "[n] -> [{ S0[i, j] -> [(i)]; S1[i, j] -> [(i)] }]", '
        'permutable: 1, coincident: [ 1 ], child: { sequence: [ '
        '{ filter: "[n] -> { S0[i, j] }", child: { schedule: "[n] -> [{ S0[i, j] -> [(j)] }]", permutable: 1, '
        'coincident: [ 1 ] } }, '
        '{ filter: "[n] -> { S1[i, j] }", child: { schedule: "[n] -> [{ S1[i, j] -> [(j)] }]", permutable: 1, '
        'coincident: [ 1 ] } } ] } } }')


def _band(ctx: isl.Context) -> isl.ScheduleNode:
    return isl.Schedule.read_from_str(ctx, TREE).get_root().child(0)


def _members(band: isl.ScheduleNode) -> list[str]:
    partial = band.band_get_partial_schedule()
    return [str(partial.get_at(m)) for m in range(band.band_n_member())]


def test_a_loop_whose_dependences_point_forward_moves_into_each_group():
    ctx = new_context()
    dependences = isl.UnionMap("[n] -> { S0[i, j] -> S1[i, j] }", context=ctx)
    sequence = members_sunk(_band(ctx), dependences)
    assert sequence is not None and sequence.get_type() == NT.sequence
    for k, name in enumerate(("S0", "S1")):
        joined = sequence.child(k).child(0)
        assert joined.get_type() == NT.band and joined.band_n_member() == 2 and joined.band_get_permutable()
        assert all(name in m for m in _members(joined))
        assert [joined.band_member_get_coincident(m) for m in range(2)] == [True, True]
        assert joined.child(0).get_type() == NT.leaf


def test_a_dependence_back_to_an_earlier_group_keeps_the_loop_above():
    """S1 at i feeds S0 at i + 1: run all of S0 first and S0 reads before S1 writes."""
    ctx = new_context()
    dependences = isl.UnionMap("[n] -> { S1[i, j] -> S0[i + 1, j] }", context=ctx)
    assert members_sunk(_band(ctx), dependences) is None


def test_a_joined_band_must_stay_permutable():
    """S1[i, j] -> S1[i + 1, j - 1]: legal under the loop over i, but with i and j in one
    band a tile would run (i + 1, j - 1) before (i, j)."""
    ctx = new_context()
    dependences = isl.UnionMap("[n] -> { S1[i, j] -> S1[i + 1, j - 1] : j > 0 }", context=ctx)
    assert members_sunk(_band(ctx), dependences) is None


def test_flags_are_those_of_the_joined_band():
    """S0[i, j] -> S0[i + 1, j]: the loop over i carries it; j stays parallel."""
    ctx = new_context()
    dependences = isl.UnionMap("[n] -> { S0[i, j] -> S0[i + 1, j] }", context=ctx)
    band = _band(ctx).band_member_set_coincident(0, False)
    sequence = members_sunk(band, dependences)
    first = sequence.child(0).child(0)
    assert [first.band_member_get_coincident(m) for m in range(2)] == [False, True]
    second = sequence.child(1).child(0)
    assert [second.band_member_get_coincident(m) for m in range(2)] == [True, True]


def test_of_two_loops_only_the_one_that_may_moves():
    """A band over (i, j) around groups over k: S1 at (i, j) feeds S0 at (i + 1, j), so
    i stays above and j moves."""
    ctx = new_context()
    domain = "[n] -> { S0[i, j, k] : 0 <= i, j, k < n; S1[i, j, k] : 0 <= i, j, k < n }"
    tree = ('{ domain: "' + domain + '", child: { schedule: "[n] -> [{ S0[i, j, k] -> [(i)]; S1[i, j, k] -> [(i)] }, '
            '{ S0[i, j, k] -> [(j)]; S1[i, j, k] -> [(j)] }]", permutable: 1, coincident: [ 0, 1 ], child: { '
            'sequence: [ { filter: "[n] -> { S0[i, j, k] }", child: { schedule: "[n] -> [{ S0[i, j, k] -> [(k)] }]", '
            'permutable: 1, coincident: [ 1 ] } }, { filter: "[n] -> { S1[i, j, k] }", child: { schedule: '
            '"[n] -> [{ S1[i, j, k] -> [(k)] }]", permutable: 1, coincident: [ 1 ] } } ] } } }')
    band = isl.Schedule.read_from_str(ctx, tree).get_root().child(0)
    dependences = isl.UnionMap("[n] -> { S1[i, j, k] -> S0[i + 1, j, k] : i < n - 1 }", context=ctx)
    kept = members_sunk(band, dependences)
    assert kept is not None and kept.get_type() == NT.band and kept.band_n_member() == 1
    assert "(i)" in _members(kept)[0]
    joined = kept.child(0).child(0).child(0)
    assert joined.band_n_member() == 2 and "(j)" in _members(joined)[0] and "(k)" in _members(joined)[1]


def _c_schedule(source: Path, **options):
    scop = extract_scops(str(source), new_context())[0]
    return schedule_for_cpu(scop, Options(**{"target": "c", "openmp": True, "tile": True, **options}))


def test_doitgen_copies_sum_per_q_and_its_product_keeps_register_blocks(tmp_path):
    scheduled = _c_schedule(_program(tmp_path, DOITGEN), verbose=True)
    copies = [a for a in scheduled.scop.arrays if a.local]
    assert [(a.name, a.rank) for a in copies] == [("sum_1", 2)]        # sum_1[q][p]: r stays serial
    assert [t.array for t in scheduled.register_tiles] == ["sum_1"]
    assert any("'sum_1'" in note and "S_3 copies the last values back" in note for note in scheduled.notes)
    assert any("move into each statement group below it" in note for note in scheduled.notes)


@pytest.mark.parametrize("options", [
    Options(target="c", openmp=True, tile=False),               # no tiles: nothing to gain
    Options(target="c", openmp=True, tile=True, register_tiles=False),
    Options(target="c", openmp=True, tile=True, expand_arrays=False),
])
def test_without_register_blocks_to_gain_the_program_keeps_its_arrays(tmp_path, options):
    scop = extract_scops(str(_program(tmp_path, DOITGEN)), new_context())[0]
    scheduled = schedule_for_cpu(scop, options)
    assert not [a for a in scheduled.scop.arrays if a.local]


def test_a_copy_that_lets_no_band_keep_blocks_is_not_made(tmp_path):
    """`sum` qualifies (its values live within one r), but no product runs over it."""
    source = _program(tmp_path, """for (int p = 0; p < np; p++) {
        if (q == 0)
          sum[p] = A[r][q][p] * 2;
        A[r][q][p] += sum[p];
      }""")
    assert not [a for a in _c_schedule(source).scop.arrays if a.local]


@pytest.mark.parametrize("sizes", [None, "{ kernel[0] -> tile[4, 8, 5] }", "{ kernel[0] -> tile[6, 16, 4]; "
                                   "kernel[0] -> register[2, 16] }"])
def test_doitgen_computes_what_gcc_computes(tmp_path, sizes):
    """R = 7, Q = 11, P = 13: no tile or block divides them; the last `sum` copied back."""
    source = _program(tmp_path, DOITGEN)
    args = ("--tile",) + (("--sizes", sizes) if sizes else ())
    report = verify(VerifyConfig(source=source, ppcg_args=args, target="c", data_type="double"),
                    tmp_path / "work")
    assert report.ok, report.summary()
    if sizes:       # tiles small enough for whole blocks: the check covers them
        output, = (tmp_path / "work").rglob("*.ppcg.c")
        assert "double reg_sum_1[2][" in output.read_text()
