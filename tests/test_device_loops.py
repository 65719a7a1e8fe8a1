"""Serial loops of small kernels run whole by one block (schedule/gpu/device_loops.py,
codegen/device_loop.py): which loops qualify, and the inlined kernels checked against
gcc in the CUDA emulation in three thread orders and with nvcc."""
from __future__ import annotations

from pathlib import Path

import pytest

from types import SimpleNamespace

import islpy as isl

from ppcg_py.codegen.device_loop import block_threads, kernel_marks, loop_iterators
from ppcg_py.extract import extract_scops
from ppcg_py.isl_context import new_context
from ppcg_py.options import Options
from ppcg_py.schedule.gpu import schedule_scop
from ppcg_py.verify.harness import VerifyConfig, verify

ORDERS = ("forward", "reverse", "shuffle")

# a time loop around two 1-D kernels (jacobi-1d's shape) and a triangular solve whose
# inner sum is a reduction (trisolv's): N is no multiple of a block or of a warp
PROGRAM = """
#include <stdio.h>
#define N @N@
#define T 7
static void f(double A[N], double B[N], double L[N][N], double x[N], double b[N])
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < N - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
  for (int i = 0; i < N; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
#pragma endscop
}
int main(void)
{
  static double A[N], B[N], L[N][N], x[N], b[N];
  for (int i = 0; i < N; i++) {
    A[i] = (i % 13) * 0.5; B[i] = 0; x[i] = -999; b[i] = i % 7;
    for (int j = 0; j < N; j++) L[i][j] = (i == j) ? 4.0 + i % 3 : 0.001 * ((i + 2 * j) % 5);
  }
  f(A, B, L, x, b);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: A\\n");
  for (int i = 0; i < N; i++) fprintf(stderr, "%0.17g\\n", A[i]);
  fprintf(stderr, "end   dump: A\\nbegin dump: x\\n");
  for (int i = 0; i < N; i++) fprintf(stderr, "%0.17g\\n", x[i]);
  fprintf(stderr, "end   dump: x\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


def _program(tmp_path: Path, n: int) -> Path:
    source = tmp_path / f"loops{n}.c"
    source.write_text(PROGRAM.replace("@N@", str(n)))
    return source


def _kernels(source: Path, **options):
    opts = Options(**{"device_sizes": True, **options})
    return schedule_scop(extract_scops(str(source), new_context())[0], opts).kernels


def test_the_time_loop_and_the_solve_each_run_in_one_block(tmp_path):
    kernels = _kernels(_program(tmp_path, 1500), reductions=True)
    looped = [k for k in kernels if k.launched_in is not None]
    assert len({k.launched_in for k in looped}) == 2 and len(looped) >= 3
    for k in looped:
        assert all(g == 1 for g in k.sizes.grid)
        assert not k.thread_ids or k.sizes.block[-1] == 1024     # 1,500 points: the most threads a block has


def test_at_small_sizes_every_kernel_runs_in_a_block_that_fits_its_work(tmp_path):
    """At N = 45: the time loop in one launch (43 points per step: 64 threads), the
    solve's first kernel and its loop in another (up to 45 x 44 sums per run: 1,024)."""
    kernels = _kernels(_program(tmp_path, 45))
    blocks = {k.launched_in.rstrip("0123456789"): k.sizes.block[-1] for k in kernels if k.thread_ids}
    assert blocks == {"device_loop": 64, "fused_kernels": 1024}
    assert all(k.launched_in for k in kernels)


@pytest.mark.parametrize("options", [{"device_loops": False}, {"device_sizes": False}, {"target": "opencl"}],
                         ids=["no-device-loops", "user-sizes", "opencl"])
def test_the_host_launches_each_step_where_it_decides_or_the_target_is_not_cuda(tmp_path, options):
    assert all(k.launched_in is None for k in _kernels(_program(tmp_path, 100), **options))


def test_a_step_too_large_for_one_block_stays_on_the_host(tmp_path):
    source = tmp_path / "wide.c"
    source.write_text("""
#define N 300
void f(double A[N][N], double B[N][N])
{
#pragma scop
  for (int t = 0; t < 5; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = A[i][j] + A[i - 1][j] + B[i][j - 1] * 0.5;
#pragma endscop
}
""")
    kernels = _kernels(source)
    assert kernels and all(k.launched_in is None for k in kernels)


@pytest.mark.parametrize("n, args", [(1500, ()), (77, ("--reductions",))], ids=["1500", "77-reductions"])
def test_device_loops_compute_what_gcc_computes(tmp_path, n, args):
    source = _program(tmp_path, n)
    report = verify(VerifyConfig(source=source, ppcg_args=args, orders=ORDERS, data_type="double"),
                    tmp_path / "work")
    assert report.ok, report.summary()
    host = next((tmp_path / "work").rglob("*_host.cu")).read_text()
    # the two loops, and `x[i] = b[i]`, which isl distributes out of the solve's loop
    assert host.count("<<<") == 3 and host.count("device_loop") >= 2


GRAM_SCHMIDT = """
#include <math.h>
#include <stdio.h>
#define M 40
#define N 150
static void f(double A[N][M], double R[M][M], double Q[N][M])
{
  double nrm;
#pragma scop
  for (int k = 0; k < M; k++) {
    nrm = 0.0;
    for (int i = 0; i < N; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (int i = 0; i < N; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (int j = k + 1; j < M; j++) {
      R[k][j] = 0.0;
      for (int i = 0; i < N; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (int i = 0; i < N; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
#pragma endscop
}
int main(void)
{
  static double A[N][M], R[M][M], Q[N][M];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      A[i][j] = ((i * j) % 17 + 1) * 0.1 + (i == j);
      Q[i][j] = -1;
    }
  f(A, R, Q);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: Q\\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) fprintf(stderr, "%0.17g\\n", Q[i][j]);
  fprintf(stderr, "end   dump: Q\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


def test_small_kernels_between_large_ones_share_one_launch(tmp_path):
    """Gram-Schmidt (40 columns of 150): in each step the norm (a reduction over 150
    rows), its square root and the scaling of a column are small; the update of the
    trailing columns is not. The three small ones run in one launch of one block."""
    source = tmp_path / "gram.c"
    source.write_text(GRAM_SCHMIDT)
    kernels = _kernels(source, reductions=True)
    fused = [k for k in kernels if k.launched_in is not None]
    assert len(fused) >= 2 and all(k.launched_in.startswith("fused_kernels") for k in fused)
    assert any(not k.thread_ids for k in fused) and any(k.reductions for k in fused)
    report = verify(VerifyConfig(source=source, ppcg_args=("--reductions",), orders=ORDERS, data_type="double"),
                    tmp_path / "work")
    assert report.ok, report.summary()
    host = next((tmp_path / "work").rglob("*_host.cu")).read_text()
    assert "fused_kernels" in host


def _launch(block, thread_ids):
    return SimpleNamespace(kernel=SimpleNamespace(sizes=SimpleNamespace(block=block), thread_ids=thread_ids))


def test_the_printer_inlines_only_kernels_of_one_block_shape():
    assert block_threads([_launch((256,), ("t0",)), _launch((), ()), _launch((1, 256), ("t0", "t1"))]) == 256
    assert block_threads([_launch((), ())]) == 1                       # single-thread kernels only
    assert block_threads([_launch((256,), ("t0",)), _launch((128,), ("t0",))]) is None
    assert block_threads([_launch((2, 128), ("t0", "t1"))]) is None    # two threads along a member


def test_anything_but_loops_conditions_and_kernel_marks_keeps_the_loop_on_the_host():
    """A statement (a copy between host and device, in the host AST) below the mark:
    the kernels are launched one by one (kernel_marks says None)."""
    ctx = isl.Context()
    build = isl.AstBuild.from_context(isl.Set("{ : }", context=ctx))
    loop = build.node_from_schedule_map(isl.UnionMap("{ S[i] -> [i] : 0 <= i < 4 }", context=ctx))
    assert kernel_marks(loop) is None
    assert loop_iterators(loop) == {"c0"}
