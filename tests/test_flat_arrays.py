"""Arrays addressed as flat sequences (extract/flat_arrays.py): which subscripts split
into digits over which sizes, what the model makes of them, and that the outputs keep
addressing the program's pointers; arrays reached before their first element stay on
the host (Scop.host_only_statements). The programs' numbers are checked in
tests/front_end_corpus/flat_*.c."""
from __future__ import annotations

import random
import re
from math import prod

import islpy as isl
import pytest
from pycparser import c_generator, c_parser

from ppcg_py.cli import main
from ppcg_py.extract import extract_program
from ppcg_py.extract.flat_arrays import digits_of, shape
from ppcg_py.verify.harness import VerifyConfig, verify
from ppcg_py.verify.opencl import opencl_unavailable

PARSER, PRINT = c_parser.CParser(), c_generator.CGenerator()


def expression(text: str):
    return PARSER.parse(f"int x = {text};").ext[0].init


@pytest.mark.parametrize("subscripts, params, sizes, digits", [
    (["i * m + j", "m * l + j"], ("m",), ("m",), [["i", "j"], ["l", "j"]]),
    (["(i + 1) * m + j - 1", "j"], ("m",), ("m",), [["i + 1", "j - 1"], ["0", "j"]]),
    (["(i * n + j) * m + k", "i * n * m + j * m + k + 1"], ("n", "m"), ("n", "m"),
     [["i", "j", "k"], ["i", "j", "k + 1"]]),
    (["i * m * m + j"], ("m",), ("m", "m"), [["i", "0", "j"]]),
    (["(long) i * m + j"], ("m",), ("m",), [["i", "j"]]),
])
def test_subscripts_split_into_digits(subscripts, params, sizes, digits):
    nodes = [expression(s) for s in subscripts]
    assert shape(nodes, params) == sizes
    assert [[PRINT.visit(d) for d in digits_of(n, sizes)] for n in nodes] == digits


@pytest.mark.parametrize("subscripts, params", [
    (["i + 1", "j"], ("m",)),               # affine already: nothing to split
    (["i * j"], ("m",)),                    # no parameter multiplies a digit
    (["i * m + j", "i * k + j"], ("m", "k")),   # two row lengths
    (["i * m + j * j"], ("m",)),             # a digit that is no affine function
    (["(unsigned char) (i * m + j)"], ("m",)),   # wraps at 256: no place of a row
])
def test_subscripts_that_name_no_rows(subscripts, params):
    assert shape([expression(s) for s in subscripts], params) is None


MATMUL = """
void mm(int n, int m, int k, const double *a, const double *b, double *c) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      c[i * m + j] = 0.0;
      for (int l = 0; l < k; l++)
        c[i * m + j] += a[i * k + l] * b[l * m + j];
    }
#pragma endscop
}
"""


def test_the_model_holds_the_rows(tmp_path):
    source = tmp_path / "mm.c"
    source.write_text(MATMUL)
    scop = extract_program(str(source), isl.Context()).scops[0]
    arrays = {a.name: a for a in scop.arrays}
    assert all(arrays[n].flat and arrays[n].rank == 2 and arrays[n].extent_known == (False, True) for n in "abc")
    assert [str(e) for e in arrays["c"].extents] == ["[n, m, k] -> { [(n)] : n > 0 and m > 0 }",
                                                     "[n, m, k] -> { [(m)] }"]       # c[n][m]
    assert str(arrays["b"].extents[0]) == "[n, m, k] -> { [(k)] : n > 0 and m > 0 and k > 0 }"   # b[k][m]
    writes = [a for s in scop.statements for a in s.accesses if a.array == "c" and a.is_write]
    assert all(a.exact for a in writes)


@pytest.mark.parametrize("target", ["cuda", "c"])
def test_the_outputs_address_the_pointers_and_run_in_parallel(target, tmp_path, capsys):
    source = tmp_path / "mm.c"
    source.write_text(MATMUL)
    args = ["--target=c", "--openmp", "--tile"] if target == "c" else ["-v"]
    assert main([*args, "--output-dir", str(tmp_path), str(source)]) == 0
    if target == "c":
        out = (tmp_path / "mm.ppcg.c").read_text()
        assert "#pragma omp parallel for" in out and "c[(" in out
        assert not re.search(r"\b[abc]\[[^]]*\]\[", out)        # never c[i][j]: c is a pointer
    else:
        report = capsys.readouterr().err
        assert "blocks ['b0', 'b1']" in report          # both loops of c's rows parallel
        kernel = (tmp_path / "mm_kernel.cu").read_text()
        assert "* m + " in kernel


BEFORE_FIRST = """
void shift(int n, double *d, double *e) {
#pragma scop
  for (int i = 0; i < n; i++)
    e[i - 1] = d[i] * 2.0 + 1.0;
#pragma endscop
}
"""


def test_an_array_reached_before_its_first_element_stays_on_the_host(tmp_path, capsys):
    source = tmp_path / "shift.c"
    source.write_text(BEFORE_FIRST)
    scop = extract_program(str(source), isl.Context()).scops[0]
    assert [a.name for a in scop.arrays if a.before_first] == ["e"]
    assert scop.host_only_statements == frozenset(s.name for s in scop.statements)
    assert main(["--output-dir", str(tmp_path), str(source)]) == 0
    assert "warning: 'e' is accessed before its first element" in capsys.readouterr().err
    assert not any("<<<" in p.read_text() for p in tmp_path.glob("shift_*"))     # no launch


# -- random flat programs, verified against gcc -------------------------------------
def random_flat_program(seed: int) -> str:
    """A random loop nest over grids behind pointers (2-D or 3-D, a time loop or a
    sum or neither, neighbours within the row, rows before and after the loops'):
    its flat subscripts in varied groupings, its sizes parameters, its rows padded
    in main so that every row it names exists."""
    rng = random.Random(seed)
    three = rng.random() < 0.4
    names = ("n", "m", "p") if three else ("n", "m")
    inner = names[1:]
    reach = rng.randint(0, 2)                               # neighbours within this distance

    def place(array: str, shifts: list[int]) -> str:
        index = [f"{v} + {s}" if s >= 0 else f"{v} - {-s}" for v, s in zip("ijk", shifts)]
        if not three:
            form = rng.choice(("({0}) * m + {1}", "m * ({0}) + {1}", "{1} + ({0}) * m"))
            return f"{array}[{form.format(*index)}]"
        form = rng.choice(("(({0}) * m + {1}) * p + {2}", "({0}) * m * p + ({1}) * p + {2}",
                           "{2} + p * ({1} + m * ({0}))"))
        return f"{array}[{form.format(*index)}]"

    def shifts() -> list[int]:
        return [rng.randint(-2, 2)] + [rng.randint(-reach, reach) for _ in inner]

    loops = ["for (int i = 1; i < n - 1; i++)", f"for (int j = {reach}; j < m - {reach}; j++)"]
    if three:
        loops.append(f"for (int k = {reach}; k < p - {reach}; k++)")
    terms = " + ".join(f"{rng.choice((0.25, 0.5, 1.5))} * {place('a', shifts())}" for _ in range(rng.randint(1, 4)))
    body = [f"{place('b', [0] * len(names))} = {terms};"]
    if rng.random() < 0.5:
        body.append(f"{place('a', [0] * len(names))} = {place('b', [0] * len(names))} - 0.125 * "
                    f"{place('a', [0] * len(names))};")
    nest = "\n".join("  " * d + loop for d, loop in enumerate(loops))
    indent = "  " * len(loops)
    statements = "\n".join(f"{indent}{s}" for s in body)
    kernel = f"{nest} {{\n{statements}\n{'  ' * (len(loops) - 1)}}}"
    if rng.random() < 0.5:
        kernel = f"for (int t = 0; t < steps; t++) {{\n{kernel}\n}}"
    sizes = [rng.randint(5, 13) for _ in names]
    params = ", ".join(f"int {v}" for v in names)
    count = (sizes[0] + 4) * prod(sizes[1:])
    row = prod(sizes[1:])
    return f"""#include <stdio.h>
#include <stdlib.h>
static void compute({params}, int steps, double *a, double *b)
{{
#pragma scop
{kernel}
#pragma endscop
}}

int main(void)
{{
  double *a = malloc(sizeof(double) * {count}), *b = malloc(sizeof(double) * {count});
  for (int t = 0; t < {count}; t++) {{ a[t] = (t * 7) % 23 - 11; b[t] = (t * 5) % 17; }}
  compute({', '.join(map(str, sizes))}, 3, a + 2 * {row}, b + 2 * {row});
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\n");
  for (int x = 0; x < 2; x++) {{
    const double *v = x ? b : a;
    fprintf(stderr, "begin dump: %s\\n", x ? "b" : "a");
    for (int t = 0; t < {count}; t++) fprintf(stderr, "%0.17g\\n", v[t]);
    fprintf(stderr, "end   dump: %s\\n", x ? "b" : "a");
  }}
  fprintf(stderr, "==END   DUMP_ARRAYS==\\n");
  free(a); free(b);
  return 0;
}}
"""


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_random_flat_programs_verify(seed, tmp_path):
    source = tmp_path / f"flat{seed}.c"
    source.write_text(random_flat_program(seed))
    target = ("cuda", "c", "opencl")[seed % 3]
    if target == "opencl" and opencl_unavailable() is not None:
        target = "cuda"
    args = ("--tile",) if target == "c" else ()
    report = verify(VerifyConfig(source, target=target, ppcg_args=args, use_nvcc=False), tmp_path / "work")
    assert report.ok, report.summary() + "\n" + source.read_text()


LEADING = """
void axpy(int n, int m, int ldb, double *b, const double *a) {
#pragma scop
DECLARATION
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      b[i * ldb + j] += 2.0 * a[i * m + j];
#pragma endscop
}
"""


def test_rows_only_the_parameters_keep_whole_are_checked_at_run_time(tmp_path, capsys):
    source = tmp_path / "axpy.c"
    source.write_text(LEADING.replace("DECLARATION", ""))
    scop = extract_program(str(source), isl.Context()).scops[0]
    assert str(scop.checked) == "[n, m, ldb] -> {  : ldb >= m }"
    assert scop.context.is_equal(isl.Set("[n, m, ldb] -> { : }"))     # not narrowed by it
    assert main(["--target=c", "--output-dir", str(tmp_path), str(source)]) == 0
    out = (tmp_path / "axpy.ppcg.c").read_text()
    checked, original = out.split("} else {  /* ppcg-py: the original code */")
    assert "if (ldb >= m) {" in checked and "b[c0 * ldb + c1]" in checked
    assert "b[i * ldb + j] += 2.0 * a[i * m + j];" in original and "#pragma" not in original


def test_a_declaration_the_scop_keeps_to_itself_is_checked_too(tmp_path):
    source = tmp_path / "axpy.c"
    source.write_text(LEADING.replace("DECLARATION", "  int unused = 0;"))
    assert extract_program(str(source), isl.Context()).scops[0].checked is not None


def test_a_scop_that_declares_what_follows_it_cannot_check(tmp_path, capsys):
    source = tmp_path / "axpy.c"
    source.write_text(LEADING.replace("DECLARATION", "  double seen = 1.0;").replace(
        "#pragma endscop\n", "#pragma endscop\n  b[0] = seen;\n"))
    assert main(["--target=c", "--output-dir", str(tmp_path), str(source)]) == 1
    error = capsys.readouterr().err
    assert "needs 0 <= j < ldb" in error and "--ctx states what it needs: '[n, m, ldb] -> {  : ldb >= m }'" in error


def test_a_flat_element_in_a_value_argument_is_a_value(tmp_path):
    """fuzz 2986:105: `ext(&A[i], c[i * m + j] - x)` read `c[...] - x` as pointer arithmetic
    on a row of the three-dimensional model (a call that may touch all of `c`)."""
    source = tmp_path / "ext.c"
    source.write_text("""
void ext(double *p, double v);
void f(int n, int m, double *c, double A[100]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      ext(&A[i], c[i * m + j] - 1.0);
#pragma endscop
}
""")
    scop = extract_program(str(source), isl.Context()).scops[0]
    reads = [a for s in scop.statements for a in s.accesses if a.array == "c"]
    assert len(reads) == 1 and reads[0].exact and not reads[0].is_write
