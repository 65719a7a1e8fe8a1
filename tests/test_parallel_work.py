"""A parallel loop with too little work per execution stays serial (parallel_work.py)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from polybench_cases import POLYBENCH, kernel_source


def _schedules(path: str, dataset: str = "MINI", include: tuple[str, ...] = (), **options):
    from ppcg_py.extract import extract_program
    from ppcg_py.isl_context import new_context
    from ppcg_py.options import Options
    from ppcg_py.schedule.cpu import schedule_for_cpu

    program = extract_program(path, new_context(), include_dirs=include, defines=(f"{dataset}_DATASET",))
    return [schedule_for_cpu(scop, Options(target="c", openmp=True, **options)) for scop in program.scops]


def _nest(tmp_path, body: str, declarations: str = "double A[100][100], double x[100]") -> str:
    source = tmp_path / "nest.c"
    source.write_text(f"void f(int n, int m, {declarations}) {{\n#pragma scop\n{body}\n#pragma endscop\n}}\n")
    return str(source)


def _loops(path: str, least: int, **options) -> int:
    return sum(len(s.parallel) for s in _schedules(path, min_parallel_work=least, **options))


def test_the_arrays_bound_the_work(tmp_path):
    """`i` and `j` index a 100 x 100 array: at most 10,000 instances per execution."""
    path = _nest(tmp_path, "for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) A[i][j] = 1;")
    assert _loops(path, 10_000) == 1
    assert _loops(path, 10_001) == 0


def test_each_statement_counts_and_an_unbounded_loop_stays_parallel(tmp_path):
    """The first nest runs two statements in a band of 100 x 100 values at most (a box:
    20,000); `y` has no declared size, so nothing bounds the second loop."""
    path = _nest(tmp_path, "for (int i = 0; i < n; i++) { x[i] = 0; for (int j = 0; j < m; j++) x[i] += A[i][j]; }"
                           "for (int i = 0; i < n; i++) y[i] = i;",
                 "double A[100][100], double x[100], double y[]")
    assert _loops(path, 20_000) == 2
    assert _loops(path, 20_001) == 1
    assert _loops(path, 1 << 30) == 1


def test_a_reversed_loop_is_bounded_by_its_arrays(tmp_path):
    """deriche's backward sweep: `x[j] = 0` runs at the sweep's value 0 and the updates
    at `n - i`, which moves with `n` that no array bounds, but takes at most 100 values
    at any `n` (`i` indexes `A`): a band of 100 x 100 values, three statements, 30,000
    instances per execution at most, not the 300 that the initialisation's one value
    gave."""
    path = _nest(tmp_path, "for (int j = 0; j < m; j++) { x[j] = 0;"
                           " for (int i = n - 1; i >= 0; i--) { A[i][j] = x[j]; x[j] = A[i][j] + 1; } }")
    assert _loops(path, 30_000) == 1
    assert _loops(path, 30_001) == 0


def test_zero_keeps_every_parallel_loop(tmp_path):
    path = _nest(tmp_path, "for (int i = 0; i < n; i++) x[i] = 0;")
    assert _loops(path, 0) == 1
    assert _loops(path, 101) == 0


def _polybench(kernel: str, dataset: str, least: int):
    """trisolv without tiles along time: where its loops would stay serial it gets them
    (test_time_tiles.py), and its wavefronts run in parallel."""
    source = kernel_source(kernel)
    return _schedules(str(source), dataset, (str(POLYBENCH / "utilities"), str(source.parent)),
                      tile=True, min_parallel_work=least, verbose=True,
                      time_tiles="never" if kernel == "trisolv" else "auto")


@pytest.mark.parametrize("kernel, serial", [("durbin", True), ("trisolv", True), ("gemm", False),
                                            ("lu", False), ("atax", False)])
def test_polybench_at_large(kernel, serial):
    """durbin's and trisolv's loops run at most 2,000 instances per execution: serial."""
    from ppcg_py.options import DEFAULT_MIN_PARALLEL_WORK
    modelled = _polybench(kernel, "LARGE", DEFAULT_MIN_PARALLEL_WORK)
    assert (sum(len(s.parallel) for s in modelled) == 0) is serial
    assert any("stays serial" in n for s in modelled for n in s.notes) is serial
    assert sum(len(s.parallel) for s in _polybench(kernel, "LARGE", 0)) > 0


def test_the_command_line_models_it_by_default(tmp_path):
    source = kernel_source("durbin")
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "-v", "-I",
                           str(POLYBENCH / "utilities"), "-DLARGE_DATASET", "--output-dir", str(tmp_path),
                           str(source)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "#pragma omp" not in (tmp_path / "durbin.ppcg.c").read_text()
    assert "stays serial: at most 2000 statement instances per execution" in proc.stderr, proc.stderr


def test_a_negative_bound_is_refused_in_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--min-parallel-work=-1", str(kernel_source("durbin"))],
                          capture_output=True, text=True, check=False)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines()[-1].endswith("expected a non-negative integer, got '-1'"), proc.stderr
    assert "Traceback" not in proc.stderr
