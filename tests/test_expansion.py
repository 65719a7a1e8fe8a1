"""Temporary arrays expanded along the loops that reuse them (schedule/expansion.py):
which arrays qualify, that the loops around them become parallel, and that the
results (the copied-back last values included) match gcc's in the CUDA emulation in
three thread orders and on the OpenCL runtime."""
from __future__ import annotations

from pathlib import Path

import pytest

from ppcg_py.extract import extract_scops
from ppcg_py.isl_context import new_context
from ppcg_py.options import Options
from ppcg_py.schedule.gpu import schedule_scop
from ppcg_py.verify.harness import VerifyConfig, verify

ORDERS = ("forward", "reverse", "shuffle")

# doitgen's shape, at sizes that are no multiple of any tile or block
PROGRAM = """
#include <stdio.h>
#define R 7
#define Q 11
#define P 13
static void f(int nr, int nq, int np, double A[R][Q][P], double C4[P][P], double sum[P])
{
#pragma scop
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      @BODY@
    }
#pragma endscop
}
int main(void)
{
  static double A[R][Q][P], C4[P][P], sum[P];
  for (int r = 0; r < R; r++) for (int q = 0; q < Q; q++) for (int p = 0; p < P; p++)
    A[r][q][p] = (double)((r * 7 + q * 3 + p) % 13) / 13;
  for (int s = 0; s < P; s++) for (int p = 0; p < P; p++) C4[s][p] = (double)((s * p) % 7) / 7;
  for (int p = 0; p < P; p++) sum[p] = -1;
  f(R, Q, P, A, C4, sum);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: A\\n");
  for (int r = 0; r < R; r++) for (int q = 0; q < Q; q++) for (int p = 0; p < P; p++)
    fprintf(stderr, "%0.17g\\n", A[r][q][p]);
  fprintf(stderr, "end   dump: A\\nbegin dump: sum\\n");
  for (int p = 0; p < P; p++) fprintf(stderr, "%0.17g\\n", sum[p]);
  fprintf(stderr, "end   dump: sum\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""

DOITGEN = """for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (int p = 0; p < np; p++)
        A[r][q][p] = sum[p];"""


def _program(tmp_path: Path, body: str, name: str = "prog") -> Path:
    source = tmp_path / f"{name}.c"
    source.write_text(PROGRAM.replace("@BODY@", body))
    return source


def _scheduled(source: Path, **options):
    scop = extract_scops(str(source), new_context())[0]
    return schedule_scop(scop, Options(**{"device_sizes": True, **options}))


def _expanded_arrays(scheduled) -> set[str]:
    return {a.name for a in scheduled.scop.arrays if a.local}


def _verified(source: Path, *args: str, target: str = "cuda") -> None:
    report = verify(VerifyConfig(source=source, ppcg_args=args, orders=ORDERS, target=target,
                                 data_type="double"), source.parent / f"work-{target}")
    assert report.ok, report.summary()


def test_doitgen_sum_gets_a_copy_per_iteration_and_r_q_run_in_parallel(tmp_path):
    scheduled = _scheduled(_program(tmp_path, DOITGEN))
    assert _expanded_arrays(scheduled) == {"sum_1"}
    assert scheduled.scop.array("sum_1").rank == 3
    first = scheduled.kernels[0]
    assert len(first.block_ids) >= 2       # r and q on blocks: one launch, not one per (r, q)
    assert not _host_loops_around_launches(scheduled)


def test_without_expansion_r_and_q_stay_serial(tmp_path):
    scheduled = _scheduled(_program(tmp_path, DOITGEN), expand_arrays=False)
    assert not _expanded_arrays(scheduled)
    assert _host_loops_around_launches(scheduled)


def _host_loops_around_launches(scheduled) -> bool:
    """Whether some kernel mark lies below a band of the host's schedule."""
    found = []

    def visit(node):
        if node.get_type() == node.get_type().mark and node.mark_get_id().get_name().startswith("kernel"):
            found.append(node.get_schedule_depth())
        return node
    scheduled.final_schedule.get_root().map_descendant_bottom_up(visit)
    return any(depth > 0 for depth in found)


@pytest.mark.parametrize("target", ["cuda", "opencl"])
def test_doitgen_computes_the_same_last_sum_included(tmp_path, target):
    _verified(_program(tmp_path, DOITGEN), target=target)


def test_doitgen_with_reductions_and_ppcg_sizes(tmp_path):
    _verified(_program(tmp_path, DOITGEN), "--reductions", "--sizes", "ppcg")


@pytest.mark.parametrize("body", [
    # a value read before the SCoP writes it (sum's own initial value)
    """for (int p = 0; p < np; p++)
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];""",
    # a value that crosses from one iteration of r to the next
    """for (int p = 0; p < np; p++) {
        if (r == 0 && q == 0)
          sum[p] = 1.0;
        else if (q == 0)
          sum[p] = sum[p] * 0.5 + A[r][q][p];
        A[r][q][p] += sum[p];
      }""",
    # each element written in one iteration only: nothing to gain
    """for (int p = 0; p < np; p++)
        if (q == 0 && r == 0)
          sum[p] = A[r][q][p];""",
    # r and q stay serial anyway (A carries a value through every (r, q)), so copies
    # would only cost memory (durbin's z, adi's p, q and v in their time loops)
    """for (int p = 0; p < np; p++)
        sum[p] = A[r][q][p] * 0.5;
      for (int p = 0; p < np; p++)
        if (q + 1 < nq)
          A[r][q + 1][p] += sum[p];
        else if (r + 1 < nr)
          A[r + 1][0][p] += sum[p];""",
    # a write under data-dependent control: its live ranges are not known exactly
    """for (int p = 0; p < np; p++) {
        sum[p] = 0;
        if (A[r][q][p] > 0.5)
          sum[p] = A[r][q][p];
        A[r][q][p] = sum[p];
      }""",
])
def test_arrays_whose_values_outlive_an_iteration_are_not_expanded(tmp_path, body):
    source = _program(tmp_path, body)
    assert not _expanded_arrays(_scheduled(source))
    _verified(source)


def test_values_that_live_across_q_but_within_r_get_a_copy_per_r(tmp_path):
    source = _program(tmp_path, """for (int p = 0; p < np; p++) {
        if (q == 0)
          sum[p] = A[r][q][p] * 2;
        A[r][q][p] += sum[p];
      }""")
    scheduled = _scheduled(source)
    assert _expanded_arrays(scheduled) == {"sum_1"} and scheduled.scop.array("sum_1").rank == 2
    _verified(source)


def test_the_copy_back_takes_the_last_write_in_the_original_order(tmp_path):
    """r stays serial (A carries values from r to r + 1), so `sum` gets a copy per q
    only; with `q < nq - r` the last write of each element is at (nr - 1, nq - nr), not
    at the greatest q (which only r = 0 reaches)."""
    source = _program(tmp_path, """if (q < nq - r) {
        for (int p = 0; p < np; p++)
          sum[p] = A[r][q][p] * 0.5 + q;
        for (int p = 0; p < np; p++)
          if (r + 1 < nr)
            A[r + 1][q][p] += sum[p];
      }""")
    scheduled = _scheduled(source)
    assert _expanded_arrays(scheduled) == {"sum_1"} and scheduled.scop.array("sum_1").rank == 2
    _verified(source)


def test_an_array_written_but_never_read_back_is_expanded_and_its_last_values_kept(tmp_path):
    """Its last values are what code after the SCoP sees; the copy back restores them."""
    source = _program(tmp_path, """for (int p = 0; p < np; p++)
        sum[p] = A[r][q][p] + r - q;""")
    assert _expanded_arrays(_scheduled(source)) == {"sum_1"}
    _verified(source)


def test_verbose_names_the_expansion(tmp_path):
    source = _program(tmp_path, DOITGEN)
    scheduled = _scheduled(source, verbose=True)
    assert any("'sum'" in note and "sum_1" in note and "copies the last values back" in note
               for note in scheduled.notes)


def test_the_c_target_keeps_the_program_s_arrays(tmp_path):
    """Without tiles (no register blocks to gain); with them: tests/test_sinking.py."""
    from ppcg_py.schedule.cpu import schedule_for_cpu
    scop = extract_scops(str(_program(tmp_path, DOITGEN)), new_context())[0]
    scheduled = schedule_for_cpu(scop, Options(target="c", openmp=True))
    assert not _expanded_arrays(scheduled)
