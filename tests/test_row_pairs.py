"""A time tile's rows two at a time (schedule/cpu/row_pairs.py, codegen/row_pairs.py):
the loop of the point band's first space member run two values per iteration, each row
loop computing both rows' values before storing either, under `omp simd`."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import islpy as isl
import pytest
from pycparser import c_ast, c_parser

from ppcg_py.codegen.printer import c_lines
from ppcg_py.codegen.row_pairs import paired_loops
from ppcg_py.verify.harness import VerifyConfig, verify

from polybench_cases import POLYBENCH, kernel_source

ODD_SIZES = "3,5,7,6"       # odd tiles: pairs cut short at every tile's edge
# row B[i] from A, then A[i] from B: the pair (i, i + 1) reads A's rows i - 1 .. i + 2
JACOBI = r"""
#define N 150
double A[N][N], B[N][N];
void run(int steps, int n)
{
#pragma scop
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = B[i][j];
  }
#pragma endscop
}
"""
# row i of B reads row i - 1 of B, just written: a pair's second row needs its first's
# stores, which the pairs make after both values
CHAINED = JACOBI.replace("B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);",
                         "B[i][j] = 0.5 * (A[i][j] + B[i - 1][j]);")


def compile_c(tmp_path: Path, text: str, *args: str) -> str:
    """The C target's output for `text`, tiled along time."""
    source = tmp_path / "stencil.c"
    source.write_text(text)
    out = tmp_path / "out.c"
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile",
                           "--time-tiles=always", *args, str(source), "-o", str(out)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return out.read_text()


def _pairs(code: str) -> list[str]:
    """The arrays each paired row loop stores, in order."""
    return re.findall(r"\n\s*(\w+)\[[^\n]* = reg_0;", code)


def test_a_jacobi_sweep_runs_its_rows_in_pairs(tmp_path):
    code = compile_c(tmp_path, JACOBI)
    assert _pairs(code) == ["B", "A"], code
    # values first: both computed, then both stored, under omp simd; the odd row alone
    assert re.search(r"#pragma omp simd\n\s*for \(int c\d+ = [^\n]*\n\s*double reg_0 = [^\n]*\n\s*double reg_1 = "
                     r"[^\n]*\n\s*B\[[^\n]*= reg_0;\n\s*B\[[^\n]*= reg_1;", code), code
    assert re.search(r"c\d+ \+= 2\)", code) and re.search(r"if \(c\d+ <= ", code), code
    assert _pairs(compile_c(tmp_path, JACOBI, "--no-row-pairs")) == []


def test_minus_v_says_the_rows_run_two_at_a_time(tmp_path):
    source = tmp_path / "stencil.c"
    source.write_text(JACOBI)
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile", "--time-tiles=always",
                           "-v", str(source), "-o", str(tmp_path / "out.c")], capture_output=True, text=True,
                          check=True)
    assert "; rows two at a time (two neighbouring rows in each row loop)" in proc.stderr, proc.stderr


def test_rows_that_read_the_row_just_written_stay_alone(tmp_path):
    assert _pairs(compile_c(tmp_path, CHAINED)) == []


@pytest.mark.parametrize("text", [JACOBI, CHAINED], ids=["jacobi", "chained"])
def test_pairs_verify_with_1_2_4_threads(text, tmp_path):
    """Tiles of odd sizes (pairs cut short at their edges), a grid that no tile divides."""
    source = tmp_path / "stencil.c"
    source.write_text(text + r"""
#include <stdio.h>
int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (i * 7 + j * 3) % 11 / 11.0;
  run(9, 143);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      fprintf(stderr, "%0.17g\n", A[i][j]);
  fprintf(stderr, "end   dump: A\n==END   DUMP_ARRAYS==\n");
  return 0;
}
""")
    config = VerifyConfig(source=source, target="c",
                          ppcg_args=("--tile", "--time-tiles=always", f"--tile-sizes={ODD_SIZES}"))
    report = verify(config, tmp_path / "verify")
    assert report.ok, report.summary()


@pytest.mark.parametrize("kernel", ["jacobi-2d", "heat-3d", "fdtd-2d"])
def test_polybench_stencils_pair_their_rows(kernel, tmp_path, monkeypatch):
    """Code for 64-byte vectors run as halves: the rows' own `omp simd simdlen(4)` kept
    on the pairs' loops. (test_time_tiles.py's `test_time_tiles_verify_with_1_2_4_threads`
    runs these kernels, rows paired, against gcc.)"""
    monkeypatch.setenv("PPCG_PY_VECTOR_BYTES", "64")
    monkeypatch.setenv("PPCG_PY_SPLIT_VECTORS", "1")
    source = kernel_source(kernel)
    out = tmp_path / "out.c"
    subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile", "--time-tiles=always",
                    "-I", str(POLYBENCH / "utilities"), "-DLARGE_DATASET", str(source), "-o", str(out)],
                   check=True, capture_output=True)
    code = out.read_text()
    assert _pairs(code), code
    # every paired row under a vector pragma, those that read neighbours along the row with their width
    pragmas = re.findall(r"#pragma omp simd([^\n]*)\n\s*for \([^\n]*\n\s*\w+ reg_0 = ", code)
    assert len(pragmas) == code.count(" reg_0 = ") and " simdlen(4)" in pragmas, code


def _loops(text: str) -> list[c_ast.Node]:
    function = c_parser.CParser().parse(f"void f(void) {{ {text} }}").ext[0]
    return function.body.block_items


def _paired(text: str) -> str:
    types = {"A": "double", "B": "float"}
    return "\n".join(c_lines(paired_loops(_loops(text), "c1", ("v0", "v1"), types.get, "omp simd")))


def test_the_printer_pairs_a_loop_whose_rows_do_not_depend_on_it():
    code = _paired("for (int c1 = 0; c1 <= 6; c1++) { for (int c2 = 0; c2 < 9; c2++) { B[c1][c2] = A[c1][c2]; } }")
    assert "for (; c1 + 1 <= 6; c1 += 2)" in code and "if (c1 <= 6)" in code, code
    assert "float v0 = A[c1][c2];" in code and "float v1 = A[c1 + 1][c2];" in code, code
    assert code.index("B[c1][c2] = v0;") < code.index("B[c1 + 1][c2] = v1;"), code


@pytest.mark.parametrize("text", [
    "for (int c1 = 0; c1 <= 6; c1++) { for (int c2 = c1; c2 < 9; c2++) { B[c1][c2] = A[c1][c2]; } }",
    "for (int c1 = 0; c1 <= 6; c1++) { if (c1 > 2) { B[c1][0] = A[c1][0]; } }",
    "for (int c1 = 0; c1 <= 6; c1++) { for (int c2 = 0; c2 < 9; c2++) { B[c1][c2] += A[c1][c2]; } }",
    "for (int c1 = 0; c1 <= 6; c1++) { for (int c2 = 0; c2 < 9; c2++) { s = A[c1][c2]; } }",
    "for (int c1 = 0; c1 <= 6; c1 += 2) { for (int c2 = 0; c2 < 9; c2++) { B[c1][c2] = A[c1][c2]; } }",
], ids=["bound", "guard", "compound", "scalar", "step"])
def test_the_printer_leaves_other_loops_alone(text):
    assert "v0" not in _paired(text)


@pytest.mark.parametrize("dependences, legal", [
    ("{ S[t, i, j] -> S[t + 1, i', j'] : -1 <= i' - i <= 1 and -1 <= j' - j <= 1 }", True),    # across steps
    ("{ S[t, i, j] -> S[t, i, j + 1] }", False),           # along a row: no vectors
    ("{ S[t, i, j] -> S[t, i + 1, j] }", False),           # a pair's second row reads its first, unstored
    ("{ S[t, i, j] -> S[t, i + 1, j - 1] }", False),       # the first row's later value, not yet computed
    ("{ S[t, i, j] -> S[t, i + 2, j - 1] }", True),        # the next pair's
], ids=["steps", "row", "down", "down-back", "next-pair"])
def test_pairs_are_legal_where_no_dependence_joins_a_pair_out_of_order(dependences, legal):
    """The point band `[t, i]` over rows along `j`, pairs of `i`."""
    from ppcg_py.schedule.cpu.row_pairs import pairable
    ctx = isl.Context()
    domain = isl.UnionSet.read_from_str(ctx, "[n] -> { S[t, i, j] : 0 <= t < 4 and 0 <= i < n and 0 <= j < n }")
    root = isl.Schedule.from_domain(domain).get_root().child(0)
    points = root.insert_partial_schedule(isl.MultiUnionPwAff.read_from_str(
        ctx, "[n] -> [{ S[t, i, j] -> [(t)] }, { S[t, i, j] -> [(i)] }]"))
    points = points.child(0).insert_partial_schedule(isl.MultiUnionPwAff.read_from_str(
        ctx, "[n] -> [{ S[t, i, j] -> [(j)] }]")).parent()
    deps = isl.UnionMap.read_from_str(ctx, "[n] -> " + dependences).intersect_domain(domain).intersect_range(domain)
    assert pairable(points, deps) == legal
