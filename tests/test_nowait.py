"""Parallel loops without a barrier after each execution (schedule/cpu/nowait.py) and
rows shared among the threads (`_rows_to_threads`): the legality test, the printer's
check of isl's AST, and runs with 1, 2 and 4 threads against gcc."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pycparser import c_ast, c_parser

from ppcg_py.codegen.omp_region import same_iterations
from ppcg_py.verify.harness import VerifyConfig, verify

from polybench_cases import POLYBENCH, kernel_config, kernel_source

HERE = Path(__file__).parent / "nowait"
NOWAIT = "#pragma omp for schedule(static) nowait"


def _ppcg(tmp_path: Path, source: Path, *args: str, dataset: str = "LARGE") -> str:
    out = tmp_path / "out.c"
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", *args,
                           "-I", str(POLYBENCH / "utilities"), f"-D{dataset}_DATASET", "-o", str(out), str(source)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return out.read_text()


def test_atax_shares_each_row_of_its_second_product_among_the_threads(tmp_path):
    """`y[j] += A[i][j] * tmp[i]`: untiled, `j` shared out at each row without a barrier."""
    text = _ppcg(tmp_path, kernel_source("atax"), "--tile", "--dump-sizes")
    assert text.count(NOWAIT) == 1
    region = text[text.index("#pragma omp parallel\n"):]
    assert "for (int c0 = 0; c0 < m; c0++)" in region and "y[c1] = y[c1] + A[c0][c1] * tmp[c0];" in region


@pytest.mark.parametrize("kernel", ["trmm", "gramschmidt", "gemm"])
def test_bands_with_register_blocks_or_inside_loops_keep_their_tiles(kernel, tmp_path):
    """trmm's blocks of B, gramschmidt's products inside its k loop, gemm: as before."""
    text = _ppcg(tmp_path, kernel_source(kernel), "--tile")
    assert "nowait" not in text
    if kernel in ("trmm", "gemm"):
        assert "reg_" in text


@pytest.mark.parametrize("kernel", ["atax", "bicg", "mvt", "gemver", "covariance", "correlation"])
def test_rows_to_threads_verify_with_1_2_4_threads(kernel, tmp_path):
    args = ("--tile", "--min-parallel-work=0")
    assert NOWAIT in _ppcg(tmp_path, kernel_source(kernel), *args, dataset="MINI")
    report = verify(kernel_config(kernel, dataset="MINI", ppcg_args=args, target="c"), tmp_path / "run")
    assert report.ok, report.summary()


def _own(name: str, *args: str) -> VerifyConfig:
    return VerifyConfig(source=HERE / f"{name}.c", ppcg_args=("--no-reschedule", "--min-parallel-work=0", *args),
                        target="c")


def test_a_barrier_follows_the_rows_before_a_loop_that_reads_across_them(tmp_path):
    text = _ppcg(tmp_path, HERE / "rows_then_reversed.c", "--no-reschedule", "--min-parallel-work=0")
    rows = text.index(NOWAIT)
    assert text.index("#pragma omp barrier", rows) < text.index("x[c1] = y[-c1 + 36] * 0.5;", rows)
    report = verify(_own("rows_then_reversed"), tmp_path / "run")
    assert report.ok, report.summary()


def test_a_dependence_across_columns_between_rows_keeps_the_barriers(tmp_path):
    text = _ppcg(tmp_path, HERE / "rows_carry_across.c", "--no-reschedule", "--min-parallel-work=0")
    assert "#pragma omp for\n" in text and "nowait" not in text and "#pragma omp barrier" not in text
    report = verify(_own("rows_carry_across"), tmp_path / "run")
    assert report.ok, report.summary()


def test_the_rows_count_as_one_execution_for_the_work_threshold(tmp_path):
    """37 columns per row are too little work for a parallel loop with barriers; 37 rows
    of them without barriers between, five times, are not (--min-parallel-work=1000)."""
    text = _ppcg(tmp_path, HERE / "rows_then_reversed.c", "--no-reschedule", "--min-parallel-work=1000")
    assert NOWAIT in text
    text = _ppcg(tmp_path, HERE / "rows_carry_across.c", "--no-reschedule", "--min-parallel-work=1000")
    assert "omp" not in text.split("SCoP of")[1]


def _statements(code: str) -> tuple[list[c_ast.Node], set[int]]:
    """The body of `void f(void) { code }` and the ids of its `omp parallel for` pragmas."""
    unit = c_parser.CParser().parse(f"void f(int n, int m, double *y) {{ {code} }}")
    body = unit.ext[0].body.block_items
    pragmas: set[int] = set()

    def collect(node: c_ast.Node) -> None:
        if isinstance(node, c_ast.Pragma) and node.string.startswith("omp parallel for"):
            pragmas.add(id(node))
        for _, child in node.children():
            collect(child)
    for statement in body:
        collect(statement)
    return body, pragmas


@pytest.mark.parametrize("code, same", [
    ("for (int i = 0; i < n; i++) {\n#pragma omp parallel for\nfor (int j = 0; j < m; j++) y[j] += i; }", True),
    # the bounds move with the serial loop: another split among the threads at each row
    ("for (int i = 0; i < n; i++) {\n#pragma omp parallel for\nfor (int j = i; j < m; j++) y[j] += i; }", False),
    # two pieces of the member with different bounds
    ("for (int i = 0; i < n; i++) {\n#pragma omp parallel for\nfor (int j = 0; j < 5; j++) y[j] += i;\n"
     "#pragma omp parallel for\nfor (int j = 5; j < m; j++) y[j] -= i; }", False),
    # a statement outside the parallel loops would run on every thread
    ("for (int i = 0; i < n; i++) { y[0] = i;\n#pragma omp parallel for\nfor (int j = 0; j < m; j++) y[j] += i; }",
     False),
    # a degenerate loop's constant that the bounds use
    ("for (int i = 0; i < n; i++) { const int k = i + 1;\n#pragma omp parallel for\n"
     "for (int j = 0; j < k; j++) y[j] += i; }", False),
    ("if (n > 2) { for (int i = 0; i < n; i++) {\n#pragma omp parallel for\nfor (int j = 0; j < m; j++) y[j] += i; }"
     " } else {\n#pragma omp parallel for\nfor (int j = 0; j < m; j++) y[j] = 0; }", True),
])
def test_same_iterations_at_every_execution(code, same):
    statements, pragmas = _statements(code)
    assert same_iterations(statements, pragmas) == same


def test_a_loop_with_a_private_scalar_keeps_its_barriers(tmp_path):
    """Its copies of `s` are written back at the end of each execution (lastprivate)."""
    text = _ppcg(tmp_path, HERE / "rows_private_scalar.c", "--no-reschedule", "--min-parallel-work=0")
    assert "lastprivate(s)" in text and "nowait" not in text and "#pragma omp barrier" not in text
    report = verify(_own("rows_private_scalar"), tmp_path / "run")
    assert report.ok, report.summary()
