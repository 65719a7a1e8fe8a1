"""PPCG's dependence model: live-range reordering, private scalars, locals, host statements.

Each program is checked twice: what the compiler decided (parallel kernels, where
each scalar lives, what is allocated on the device), and, through the CPU
emulation, that the generated code computes what gcc's build of the original does.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ppcg_py.extract import extract_scops
from ppcg_py.isl_context import new_context
from ppcg_py.memory import plan_memory
from ppcg_py.options import Options
from ppcg_py.schedule.gpu import schedule_scop
from ppcg_py.verify.harness import VerifyConfig, verify
from polybench.kernels import compile_flags, source_path

SKELETON = """#include <stdio.h>
#define N 37
#define M 29

static void compute(int n, int m, double A[N][M], double B[N][M], double x[N])
{BODY}

static void dump(const char *name, const double *v, int count)
{
  fprintf(stderr, "begin dump: %s\\n", name);
  for (int k = 0; k < count; k++) fprintf(stderr, "%0.17g\\n", v[k]);
  fprintf(stderr, "end   dump: %s\\n", name);
}

int main(void)
{
  static double A[N][M], B[N][M], x[N];
  for (int i = 0; i < N; i++) {
    x[i] = (i % 5) / 5.0;
    for (int j = 0; j < M; j++) {
      A[i][j] = ((i * 7 + j * 3) % 11) / 11.0;
      B[i][j] = ((i + 2 * j) % 13) / 13.0;
    }
  }
  compute(N - 3, M - 4, A, B, x);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\n");
  dump("A", &A[0][0], N * M); dump("B", &B[0][0], N * M); dump("x", x, N);
  fprintf(stderr, "==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""

PROGRAMS = {
    # symm's temp2: a function scalar used in the SCoP only, one live range per (i, j)
    "temporary": """
{
  double s;
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      s = 0.0;
      for (int k = 0; k < i; k++)
        s += A[k][j] * 0.5;
      B[i][j] = s + A[i][j];
    }
#pragma endscop
}""",
    # locals of the loop body: never expanded over the loops, never in device memory
    "locals": """
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      double acc = 0.0;
      for (int k = 0; k < m; k++) {
        double t = A[i][k] * A[j][k];
        acc += t;
      }
      B[i][j] = acc;
    }
#pragma endscop
}""",
    # the last value leaves the SCoP: no copy per thread, and still right
    "live_after": """
{
  double t = 0.0;
#pragma scop
  for (int r = 0; r < 2; r++) {
    for (int i = 0; i < n; i++)
      B[i][1] = B[i][1] + A[i][1];
    for (int i = 0; i < n; i++) {
      t = A[i][0] * 2.0 + B[i][1];
      B[i][0] = t + 1.0;
    }
  }
#pragma endscop
  x[0] = t;
}""",
    # a value carried from one iteration to the next
    "carried": """
{
  double t = 1.0;
#pragma scop
  for (int i = 0; i < n; i++) {
    B[i][1] = t;
    t = A[i][1];
  }
#pragma endscop
  x[1] = t;
}""",
    # scalars computed from the parameters: on the host, passed to the kernels
    "host_scalars": """
{
  double a, b, c;
#pragma scop
  a = 1.0 / n;
  b = a * 2.0 + m;
  c = b - a;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      B[i][j] = A[i][j] * b + c;
#pragma endscop
  x[2] = c;
}""",
    # a loop-free statement beside a parallel loop (correlation's corr[m-1][m-1] = 1.0):
    # no dependence joins them, so it runs in the loop's launch (schedule/gpu/absorb.py)
    "loop_free_after": """
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i][0] = A[i][0] + 1.0;
  B[n][1] = 2.0;
#pragma endscop
}""",
    "loop_free_before": """
{
#pragma scop
  x[3] = A[n][2] * 3.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      B[i][j] = A[i][j] * 2.0;
#pragma endscop
}""",
    # ... and one that reads what two iterations of the loop write keeps a launch of its own
    # between two parallel loops
    "loop_free_dependent": """
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i][0] = A[i][0] + 1.0;
  x[0] = B[0][0] + B[n - 1][0];
  for (int i = 0; i < n; i++)
    B[i][2] = A[i][2] * x[0];
#pragma endscop
}""",
    # a serial head (a scalar and a prefix sum) and a serial tail (reading the device's B,
    # a function scalar live after the SCoP, a local) around a parallel nest: head and
    # tail run on the host, before the copies in and after the copies back (schedule/gpu/host.py)
    "host_ends": """
{
  double s = 0.0, u;
#pragma scop
  u = A[0][0] * 2.0;
  for (int i = 0; i < n; i++)
    x[i + 1] = x[i] + A[i][0] * u;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      B[i][j] = A[i][j] * x[n] + u;
  for (int i = 1; i < n; i++) {
    double t = B[n - 1][m - 1] + B[i][0] + s;
    s = t * 0.5;
    B[i][1] = B[i - 1][1] + s;
  }
#pragma endscop
  x[0] = s + u;
}""",
    # two independent nests, one serial: it runs on the host after the other
    "host_independent": """
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      B[i][j] = A[i][j] * 2.0;
  for (int i = 0; i < n; i++)
    x[i + 1] = x[i] * 0.5 + A[i][1];
#pragma endscop
}""",
    # a serial SCoP: on the host altogether, its local too
    "host_only": """
{
#pragma scop
  for (int i = 1; i < n; i++) {
    double t = x[i - 1] * 0.5;
    x[i] = t + A[i][0];
  }
#pragma endscop
}""",
    # ... or, at the end of the SCoP, runs on the host after the copy back (schedule/gpu/host.py)
    "loop_free_tail": """
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i][0] = A[i][0] + 1.0;
  x[0] = B[0][0] + B[n - 1][0];
#pragma endscop
}""",
}


def _source(tmp_path: Path, name: str) -> Path:
    src = tmp_path / f"{name}.c"
    src.write_text(SKELETON.replace("{BODY}", PROGRAMS[name]))
    return src


def _planned(src: Path, options: Options = Options()):
    scop, = extract_scops(str(src), new_context())
    scheduled = schedule_scop(scop, options)
    return scheduled, plan_memory(scheduled, options)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("options", [(), ("--no-live-range-reordering",), ("--tile-sizes", "3,5")])
def test_verifies(name, options, tmp_path):
    report = verify(VerifyConfig(source=_source(tmp_path, name), ppcg_args=options, use_nvcc=False),
                    tmp_path / "work")
    assert report.ok, report.summary()


def test_temporary_is_private_and_its_loops_parallel(tmp_path):
    scheduled, plan = _planned(_source(tmp_path, "temporary"))
    assert all(k.thread_ids for k in scheduled.kernels)
    assert any("s" in k.private for k in scheduled.kernels)
    assert "s" not in {d.array.name for d in plan.arrays}       # no device memory, no transfer


def test_without_reordering_the_temporary_serialises(tmp_path):
    """Every loop carries s: no parallelism is left, and the whole SCoP runs on the host
    (schedule/gpu/host.py), with nothing on the device."""
    scheduled, plan = _planned(_source(tmp_path, "temporary"), Options(live_range_reordering=False))
    assert not scheduled.kernels and not plan.arrays
    assert scheduled.host_statements == {s.name for s in scheduled.scop.statements}


def test_locals_take_no_device_memory(tmp_path):
    src = _source(tmp_path, "locals")
    scheduled, plan = _planned(src)
    assert {d.array.name for d in plan.arrays} == {"A", "B"}
    assert any(k.thread_ids and {"acc", "t"} <= k.private for k in scheduled.kernels)
    out = tmp_path / "out"
    out.mkdir()
    from ppcg_py.cli import main
    assert main([str(src), "--output-dir", str(out)]) == 0
    host = (out / "locals_host.cu").read_text()
    allocated = re.findall(r"cudaMalloc\(\(void \*\*\) &(\w+),", host)
    assert sorted(allocated) == ["dev_A", "dev_B"]    # nothing for acc or t, at any size
    assert "double t;" in (out / "locals_kernel.cu").read_text().replace("private_", "")


def test_a_scalar_live_after_the_scop_reaches_the_host(tmp_path):
    scheduled, plan = _planned(_source(tmp_path, "live_after"))
    t = plan.device_array("t")
    assert t.copy_out
    assert not any("t" in k.private for k in scheduled.kernels)


def test_host_scalars_run_on_the_host(tmp_path):
    scheduled, plan = _planned(_source(tmp_path, "host_scalars"))
    assert scheduled.host_scalars == {"a", "b", "c"}
    assert all(k.thread_ids for k in scheduled.kernels)
    assert not {"a", "b", "c"} & {d.array.name for d in plan.arrays}
    groups = [g for m in plan.kernels for g in m.groups if g.array in ("b", "c")]
    assert groups and all(g.placement == "argument" for g in groups)


@pytest.mark.parametrize("kernel", ["adi", "deriche", "symm"])
def test_polybench_scalars_leave_no_single_thread_kernel(kernel):
    flags = compile_flags(kernel, "MINI")
    include_dirs = tuple(f[2:] for f in flags if f.startswith("-I"))
    scop, = extract_scops(str(source_path(kernel)), new_context(), include_dirs=include_dirs,
                          defines=("MINI_DATASET",))
    scheduled = schedule_scop(scop, Options())
    assert scheduled.kernels and all(k.thread_ids for k in scheduled.kernels)


def _polybench_kernels(kernel: str):
    flags = compile_flags(kernel, "MINI")
    include_dirs = tuple(f[2:] for f in flags if f.startswith("-I"))
    scop, = extract_scops(str(source_path(kernel)), new_context(), include_dirs=include_dirs,
                          defines=("MINI_DATASET",))
    return schedule_scop(scop, Options()).kernels


@pytest.mark.parametrize("kernel, ppcg_single_thread", [("durbin", 3), ("gramschmidt", 3), ("cholesky", 1)])
def test_serial_statements_share_one_launch(kernel, ppcg_single_thread):
    """Consecutive statements with no parallelism are one single-thread kernel, not one
    each: no more single-thread launch sites than PPCG's."""
    single = [k for k in _polybench_kernels(kernel) if not k.thread_ids]
    assert len(single) <= ppcg_single_thread


@pytest.mark.parametrize("name", ["loop_free_after", "loop_free_before"])
def test_a_loop_free_statement_joins_the_parallel_launch(name, tmp_path):
    scheduled, _ = _planned(_source(tmp_path, name))
    assert len(scheduled.kernels) == 1 and scheduled.kernels[0].thread_ids


def test_a_dependent_loop_free_statement_keeps_its_launch(tmp_path):
    scheduled, _ = _planned(_source(tmp_path, "loop_free_dependent"))
    assert [bool(k.thread_ids) for k in scheduled.kernels] == [True, False, True]


def test_serial_head_and_tail_run_on_the_host(tmp_path):
    scheduled, plan = _planned(_source(tmp_path, "host_ends"))
    assert [bool(k.thread_ids) for k in scheduled.kernels] == [True]
    assert len(scheduled.ends.head) == 2 and len(scheduled.ends.tail) == 3
    assert "u" in scheduled.host_scalars          # the head's scalar: the kernel's argument
    assert {d.array.name for d in plan.arrays} == {"A", "B", "x"}    # not s, u or the tail's local t
    x, b = plan.device_array("x"), plan.device_array("B")
    assert x.copy_in and not x.written           # what the head wrote, read on the device
    assert b.copy_out                             # read by the tail (and live after anyway)


def test_a_serial_scop_runs_on_the_host(tmp_path):
    scheduled, plan = _planned(_source(tmp_path, "host_only"))
    assert not scheduled.kernels and not plan.arrays


def test_a_dependent_loop_free_statement_at_the_end_runs_on_the_host(tmp_path):
    scheduled, plan = _planned(_source(tmp_path, "loop_free_tail"))
    assert [bool(k.thread_ids) for k in scheduled.kernels] == [True]
    assert len(scheduled.ends.tail) == 1 and not scheduled.ends.head
    assert plan.device_array("B").copy_out and "x" not in {d.array.name for d in plan.arrays}


@pytest.mark.parametrize("kernel, ppcg_single_thread", [
    ("correlation", 0),
    ("ludcmp", 1),
])
def test_no_more_single_thread_kernels_than_ppcg(kernel, ppcg_single_thread):
    single = [k for k in _polybench_kernels(kernel) if not k.thread_ids]
    assert len(single) <= ppcg_single_thread
