"""Row loops of many rows in functions of their own (codegen/row_functions.py): the C
target moves a row loop that addresses more than FEW_ROWS rows (jacobi-2d's rows and
heat-3d's planes in pairs) into a static function before the SCoP's function, which takes that
function's parameters as written and the parts of the subscripts the caller computes."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import islpy as isl
import pytest

from ppcg_py.codegen.row_functions import function_header
from ppcg_py.codegen.source import Source
from ppcg_py.extract import extract_scops
from ppcg_py.verify.harness import VerifyConfig, verify

from polybench_cases import POLYBENCH, kernel_source
from test_row_pairs import compile_c

ODD_SIZES = "3,5,7,6"
# heat-3d's two sweeps over two arrays, as PolyBench writes them: rows in pairs address
# ten rows (the planes i - 1 .. i + 2 and four neighbouring rows, two rows stored)
HEAT = r"""
#define N 23
static void
heat(int steps, int n, double A[N][N][N], double B[N][N][N])
{
#pragma scop
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                     + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                     + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1]) + A[i][j][k];
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                     + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                     + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1]) + B[i][j][k];
  }
#pragma endscop
}
"""
# Pluto's form: one grid of two time planes, global, the SCoP in main, its scalars local
PLUTO = r"""
#include <stdio.h>
#define N 21
double A[2][N][N][N];
int main(void)
{
  double alpha = 0.25, beta = 0.125;
  int t, i, j, k;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        A[0][i][j][k] = A[1][i][j][k] = (i * 7 + j * 3 + k) % 11 / 11.0;
#pragma scop
  for (t = 0; t < 9; t++)
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < N - 1; j++)
        for (k = 1; k < N - 1; k++)
          A[(t + 1) % 2][i][j][k] = alpha * A[t % 2][i][j][k]
              + beta * (A[t % 2][i - 1][j][k] + A[t % 2][i][j - 1][k] + A[t % 2][i][j][k - 1]
                        + A[t % 2][i + 1][j][k] + A[t % 2][i][j + 1][k] + A[t % 2][i][j][k + 1]);
#pragma endscop
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int x = 0; x < N; x++)
    for (int y = 0; y < N; y++)
      for (int z = 0; z < N; z++)
        fprintf(stderr, "%0.17g\n", A[1][x][y][z]);
  fprintf(stderr, "end   dump: A\n==END   DUMP_ARRAYS==\n");
  return 0;
}
"""
HEAT_MAIN = r"""
#include <stdio.h>
static double A[N][N][N], B[N][N][N];
int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        A[i][j][k] = B[i][j][k] = (i * 7 + j * 3 + k) % 11 / 11.0;
  heat(7, 22, A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        fprintf(stderr, "%0.17g\n", A[i][j][k]);
  fprintf(stderr, "end   dump: A\n==END   DUMP_ARRAYS==\n");
  return 0;
}
"""


def _functions(code: str) -> list[str]:
    """The row functions' parameter lists."""
    return re.findall(r"\nstatic PPCG_NOINLINE void ppcg_rows_\d+_\d+\(([^\n]*)\)\n\{", code)


def test_heat_3d_rows_in_pairs_go_into_functions(tmp_path):
    code = compile_c(tmp_path, HEAT)
    functions = _functions(code)
    assert functions, code
    # the function's parameters as written, then the parts the caller computes; no iterator
    for parameters in functions:
        assert parameters.startswith("double A[N][N][N], double B[N][N][N], long ppcg_first, long ppcg_end, "), \
            parameters
        assert not re.search(r"\bc\d+\b", parameters), parameters
    # before the function, its specifiers' line included; called where the loop was
    assert code.index("static PPCG_NOINLINE") < code.index("static void\nheat(") and "#define PPCG_NOINLINE" in code, \
        code
    assert len(re.findall(r"\n\s*ppcg_rows_\d+_\d+\(A, B, ", code)) == len(functions), code
    body = code[code.index("static void\nheat("):]
    assert " reg_1 = " not in body and "#pragma omp simd" not in body, body
    assert _functions(compile_c(tmp_path, HEAT, "--no-row-functions")) == []
    assert _functions(compile_c(tmp_path, HEAT, "--no-row-pairs"))    # a row alone: six rows


@pytest.mark.parametrize("kernel, args, moved", [
    ("jacobi-2d", (), True),                     # pairs: the rows i - 1 .. i + 2 of A, i and i + 1 of B
    ("jacobi-2d", ("--no-row-pairs",), False),   # a row alone: four rows
    ("gemm", (), False),                         # C[i], B[k]: linear algebra's loops stay
    ("syr2k", (), False),
])
def test_loops_of_few_rows_stay_where_they_are(kernel, args, moved, tmp_path):
    source = kernel_source(kernel)
    out = tmp_path / "out.c"
    subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile", *args,
                    "-I", str(POLYBENCH / "utilities"), "-DLARGE_DATASET", str(source), "-o", str(out)],
                   check=True, capture_output=True)
    assert bool(_functions(out.read_text())) == moved


@pytest.mark.parametrize("text", [HEAT + HEAT_MAIN, PLUTO], ids=["heat", "pluto"])
def test_row_functions_verify_with_1_2_4_threads(text, tmp_path):
    """Tiles of odd sizes (pairs cut short at their edges), grids that no tile divides;
    Pluto's form passes its local scalars by value and its global grid not at all."""
    source = tmp_path / "stencil.c"
    source.write_text(text)
    code = compile_c(tmp_path, text, f"--tile-sizes={ODD_SIZES}")
    assert _functions(code), code
    if text == PLUTO:
        assert all(p.startswith("double alpha, double beta, long ppcg_first, ") for p in _functions(code)), code
    config = VerifyConfig(source=source, target="c",
                          ppcg_args=("--tile", "--time-tiles=always", f"--tile-sizes={ODD_SIZES}"))
    report = verify(config, tmp_path / "verify")
    assert report.ok, report.summary()


def test_polybench_heat_3d_built_at_another_size_than_compiled(tmp_path):
    """The functions take PolyBench's arrays as its macros write them: the output of a
    LARGE compile, built at MINI, computes what the original computes there."""
    out = tmp_path / "heat-3d.ppcg.c"
    utilities = POLYBENCH / "utilities"
    subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile", "-I", str(utilities),
                    "-DLARGE_DATASET", str(kernel_source("heat-3d")), "-o", str(out)], check=True, capture_output=True)
    assert "DATA_TYPE POLYBENCH_3D(A, N, N, N, n, n, n)" in "".join(_functions(out.read_text())), out.read_text()
    dumps = []
    for name, program, flags in (("original", kernel_source("heat-3d"), []),
                                 ("ppcg", out, ["-fopenmp", "-Wall", "-Wextra"])):
        exe = tmp_path / name
        built = subprocess.run(["gcc", "-O2", *flags, "-DMINI_DATASET", "-DPOLYBENCH_DUMP_ARRAYS", "-I", str(utilities),
                                "-I", str(kernel_source("heat-3d").parent), str(program),
                                str(utilities / "polybench.c"), "-o", str(exe), "-lm"],
                               capture_output=True, text=True, check=True)
        # `n`, which the macros drop at this size, is marked used
        assert not re.search(r"unused parameter .n.", built.stderr), built.stderr
        dumps.append(subprocess.run([str(exe)], capture_output=True, text=True, check=True,
                                    env={"OMP_NUM_THREADS": "2"}).stderr)
    assert dumps[0] == dumps[1] and "begin dump: A" in dumps[0]


def _header(tmp_path: Path, text: str):
    path = tmp_path / "f.c"
    path.write_text(text)
    scop = extract_scops(str(path), isl.Context())[0]
    return function_header(Source(text), scop)


_BODY = "{\n#pragma scop\n  for (int i = 0; i < n; i++)\n    A[i][0] = 1.0;\n#pragma endscop\n}\n"


@pytest.mark.parametrize("definition, first_line, parameters", [
    ("void f(int n, double A[n][4])\n", 1, (("n", "int n"), ("A", "double A[n][4]"))),
    ("#define N 4\nstatic inline\nvoid\nf(int n,\n  double A[N][N]) /* last */\n", 2,
     (("n", "int n"), ("A", "double A[N][N]"))),
    ("void f(int n, double A[][4] /* a, (b) */)\n", 1, (("n", "int n"), ("A", "double A[][4] /* a, (b) */"))),
])
def test_the_header_is_the_definition_as_written(definition, first_line, parameters, tmp_path):
    header = _header(tmp_path, definition + _BODY)
    assert header is not None and header.first_line == first_line and header.parameters == parameters


@pytest.mark.parametrize("definition", [
    "__attribute__((noinline))\nvoid f(int n, double A[n][4])\n",      # would move to the row function
    "void f(n, A) int n; double A[][4];\n",                              # K&R
    "#define NAME f\nvoid NAME(int n, double A[n][4])\n",                # a macro writes the name
], ids=["attribute", "k&r", "macro"])
def test_a_header_not_plainly_written_moves_no_loop(definition, tmp_path):
    assert _header(tmp_path, definition + _BODY) is None
