"""Small parallel loops run in a neighbouring kernel's launch (schedule/gpu/absorb.py):
the kernels they join, and the numbers, in the CUDA emulation against gcc."""
from __future__ import annotations

from pathlib import Path

import pytest

from ppcg_py.extract import extract_scops
from ppcg_py.isl_context import new_context, sets_of
from ppcg_py.options import Options
from ppcg_py.schedule.gpu import schedule_scop
from ppcg_py.verify.harness import VerifyConfig, verify

PROGRAM = """
#include <math.h>
#include <stdio.h>
#define N 45
#define M 37
static void f(double data[N][M], double mean[M], double scale[M], double corr[M][M])
{
#pragma scop
@BODY@
#pragma endscop
}
int main(void)
{
  static double data[N][M], mean[M], scale[M], corr[M][M];
  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) data[i][j] = (double)((i * 3 + j * 7) % 11) / 11;
  f(data, mean, scale, corr);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: out\\n");
  for (int j = 0; j < M; j++) fprintf(stderr, "%0.17g %0.17g\\n", mean[j], scale[j]);
  for (int i = 0; i < M; i++) for (int j = 0; j < M; j++) fprintf(stderr, "%0.17g\\n", corr[i][j]);
  fprintf(stderr, "end   dump: out\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""

# correlation's mean: the division after the sum, a loop of its own
MEAN = """
  for (int j = 0; j < M; j++) {
    mean[j] = 0.0;
    for (int i = 0; i < N; i++)
      mean[j] += data[i][j];
  }
  for (int j = 0; j < M; j++)
    mean[j] /= N;
"""

# correlation's `stddev[j] = 0.0` beside the loops that set corr: independent of them
BESIDE = """
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++)
      corr[i][j] = data[i][j] * 2;
  for (int j = 0; j < M; j++)
    scale[j] = 0.5 * j;
"""

# correlation's diagonal `corr[i][i] = 1.0` in a loop of its own, independent of the
# sequence of nests that compute the rest of corr
DIAGONAL = """
  for (int i = 0; i < M; i++) {
    corr[i][i] = 1.0;
    for (int j = i + 1; j < M; j++) {
      corr[i][j] = 0.0;
      for (int k = 0; k < N; k++)
        corr[i][j] += data[k][i] * data[k][j];
      corr[j][i] = corr[i][j];
    }
  }
"""

# the reader takes the sum of the next column: isl shifts it by one column into the
# band of the sum (it reads the sum of its own column there)
SHIFTED = """
  for (int j = 0; j < M; j++) {
    mean[j] = 0.0;
    for (int i = 0; i < N; i++)
      mean[j] += data[i][j];
  }
  for (int j = 0; j < M - 1; j++)
    scale[j] = mean[j + 1] / N;
"""

# the reader takes the sum of column j / 2: no affine schedule makes it the same column
# (isl itself mirrors `mean[M - 1 - j]` into the band of the sum)
HALVED = """
  for (int j = 0; j < M; j++) {
    mean[j] = 0.0;
    for (int i = 0; i < N; i++)
      mean[j] += data[i][j];
  }
  for (int j = 0; j < M; j++)
    scale[j] = mean[j / 2] / N;
"""


def _source(tmp_path: Path, body: str) -> Path:
    source = tmp_path / "absorb.c"
    source.write_text(PROGRAM.replace("@BODY@", body))
    return source


def _kernels(source: Path, **options):
    scop = extract_scops(str(source), new_context())[0]
    return schedule_scop(scop, Options(**{"device_sizes": True, **options})).kernels


def _statements(kernel) -> set[str]:
    return {s.get_tuple_name() for s in sets_of(kernel.domain)}


def _verified(source: Path, *args: str, target: str = "cuda") -> None:
    report = verify(VerifyConfig(source=source, ppcg_args=args, orders=("forward", "reverse"), target=target,
                                 data_type="double"), source.parent / f"work-{target}")
    assert report.ok, report.summary()


@pytest.mark.parametrize("reductions", [False, True])
def test_a_division_after_a_sum_joins_the_sum_and_runs_after_its_combination(tmp_path, reductions):
    """`mean[j] /= N` reads only the sum of its own j: it joins the sum's band after the
    last i; with --reductions the threads combine the sum and then run it."""
    source = _source(tmp_path, MEAN)
    args = ("--reductions",) if reductions else ()
    (kernel,) = _kernels(source, reductions=reductions)
    assert _statements(kernel) == {"S_0", "S_1", "S_2"}
    if reductions:
        assert [r.statement for r in kernel.reductions] == ["S_1"]
        assert {s.get_tuple_name() for s in sets_of(kernel.epilogue)} == {"S_2"}
    _verified(source, *args)
    if reductions:
        _verified(source, *args, target="opencl")


def test_an_independent_loop_joins_the_innermost_parallel_loop_of_its_neighbour(tmp_path):
    source = _source(tmp_path, BESIDE)
    (kernel,) = _kernels(source)
    assert _statements(kernel) == {"S_0", "S_1"}
    _verified(source)


def test_an_independent_loop_of_a_set_joins_the_last_nest_of_its_sibling(tmp_path):
    """The diagonal and the loop-free statements around it go where the rest of corr is
    computed: no launch of their own."""
    source = _source(tmp_path, DIAGONAL)
    kernels = _kernels(source, reductions=True)
    assert any("S_0" in _statements(k) and len(_statements(k)) > 1 for k in kernels)
    _verified(source, "--reductions")


def test_a_reader_of_the_next_column_runs_after_that_column_is_combined(tmp_path):
    source = _source(tmp_path, SHIFTED)
    (kernel,) = _kernels(source, reductions=True)
    assert {s.get_tuple_name() for s in sets_of(kernel.epilogue)} == {"S_2"}
    _verified(source, "--reductions")


def test_a_reader_of_another_column_keeps_a_kernel_of_its_own(tmp_path):
    source = _source(tmp_path, HALVED)
    kernels = _kernels(source, reductions=True)
    assert [_statements(k) for k in kernels] == [{"S_0", "S_1"}, {"S_2"}]
    _verified(source, "--reductions")


EMPTY_SUM = """
#include <stdio.h>
static void f(int m, int n, double data[40][30], double mean[30])
{
#pragma scop
  for (int j = 0; j < m; j++)
    for (int i = 0; i < n; i++)
      mean[j] += data[i][j];
  for (int j = 0; j < m; j++)
    mean[j] /= 3.0;
#pragma endscop
}
int main(int argc, char **argv)
{
  static double data[40][30], mean[30];
  for (int i = 0; i < 40; i++) for (int j = 0; j < 30; j++) data[i][j] = (i * 3 + j) % 7;
  for (int j = 0; j < 30; j++) mean[j] = j;
  f(30, argc > 5 ? 40 : 0, data, mean);
  f(30, 37, data, mean);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: mean\\n");
  for (int j = 0; j < 30; j++) fprintf(stderr, "%0.17g\\n", mean[j]);
  fprintf(stderr, "end   dump: mean\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


def test_a_division_after_a_sum_that_may_be_empty_keeps_every_instance(tmp_path):
    """isl serializing the loops, the division joins the sum's band after its last i: for
    n <= 0 there is no last i, and the division runs at i = 0 (the first call), else at
    i = n (the second)."""
    source = tmp_path / "empty_sum.c"
    source.write_text(EMPTY_SUM)
    (kernel,) = _kernels(source, reductions=True, serialize_sccs=True)
    assert {s.get_tuple_name() for s in sets_of(kernel.epilogue)} == {"S_1"}
    _verified(source, "--reductions", "--isl-schedule-serialize-sccs")
