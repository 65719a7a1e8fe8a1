"""Reductions (issue 22 item 1, first part): which statements are reductions, their
dependences relaxed only where their order may change, and the C target's OpenMP
`reduction` clauses, verified with gcc -fopenmp on 1, 2 and 4 threads."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import islpy as isl
import pytest

from ppcg_py.diagnostics import Diagnostics
from ppcg_py.extract import extract_program
from ppcg_py.isl_context import maps_of, new_context
from ppcg_py.options import Options
from ppcg_py.schedule.cpu import schedule_for_cpu
from ppcg_py.schedule.dependences import compute_dependences
from ppcg_py.schedule.cpu.reductions import enabled_groups, reduction_groups, relax
from ppcg_py.verify.harness import VerifyConfig, verify

from polybench_cases import EVERY_LOOP

# -- detection ----------------------------------------------------------------
DETECTION = """\
#include <math.h>
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
static int min(int a, int b) { return a < b ? a : b; }
void f(int n, double A[100][100], double x[100], double tmp[100], double out[4], int B[100], float F[100],
       unsigned int U[100], _Bool L[100])
{
  int i, j; double s; int p; float fl; unsigned int u; _Bool b;
#pragma scop
  for (i = 1; i < n; i++) {
%s
  }
  out[0] = s; out[1] = p; out[2] = fl; out[3] = u + b;
#pragma endscop
}
"""

# statement -> (operator, exact), or None: not a reduction
FORMS = {
    "s += x[i];": ("+", False),
    "s -= x[i];": ("+", False),
    "s *= x[i];": ("*", False),
    "s = s + x[i] * 2;": ("+", False),
    "s = x[i] + s;": ("+", False),
    "s = s - x[i];": ("+", False),
    "s = s + x[i] + A[i][i];": ("+", False),
    "s = s * x[i];": ("*", False),
    "p += B[i];": ("+", True),
    "p -= B[i] * i;": ("+", True),
    "p *= B[i];": ("*", True),
    "p &= B[i];": ("&", True),
    "p |= B[i];": ("|", True),
    "p ^= B[i];": ("^", True),
    "p = p & B[i];": ("&", True),
    "p = B[i] | p;": ("|", True),
    "p = p ^ B[i];": ("^", True),
    "u += U[i];": ("+", True),
    "tmp[i] += A[i][i];": ("+", False),
    "s = fmin(s, x[i]);": ("min", True),
    "s = fmax(x[i], s);": ("max", True),
    "fl = fminf(fl, F[i]);": ("min", True),
    "fl = fmaxf(F[i], fl);": ("max", True),
    "p = min(p, B[i]);": ("min", True),
    "s = s < x[i] ? s : x[i];": ("min", True),
    "s = x[i] < s ? x[i] : s;": ("min", True),
    "s = s <= x[i] ? s : x[i];": ("min", True),
    "s = s > x[i] ? s : x[i];": ("max", True),
    "s = x[i] > s ? x[i] : s;": ("max", True),
    "s = s < x[i] ? x[i] : s;": ("max", True),
    "s = x[i] >= s ? s : x[i];": ("min", True),
    "s = MIN(s, x[i] * 2);": ("min", True),
    "p = MAX(p, B[i] + 1);": ("max", True),
    "p = fmax(p, x[i]);": ("max", True),
    # not reductions
    "s = s * 2 + x[i];": None,          # not associative as written
    "s = x[i] - s;": None,
    "s += s * x[i];": None,
    "s += A[i][0] * s;": None,
    "tmp[i] += tmp[i - 1];": None,      # reads the location's array elsewhere
    "s = s / x[i];": None,
    "s = fmin(s, s + x[i]);": None,
    "s = s - x[i] - s;": None,
    "p += x[i];": None,                 # int += double truncates at each step
    "b += L[i];": None,                 # _Bool: not a ring
    "s = x[i] + 1;": None,
    "s = s < x[i] ? x[i] : x[i - 1];": None,
    "s = s < x[i] ? s : x[i - 1];": None,
    "tmp[i] = tmp[i - 1] + x[i];": None,  # another element of the location's array
    "s = -s + x[i];": None,
}


@pytest.fixture(scope="module")
def detected(tmp_path_factory) -> dict[str, tuple[str, bool] | None]:
    path = tmp_path_factory.mktemp("detect") / "forms.c"
    statements = list(FORMS)
    path.write_text(DETECTION % "\n".join(f"    {s}" for s in statements))
    scop = extract_program(str(path), new_context()).scops[0]
    first = DETECTION.split("\n").index("%s") + 1
    found = {r.statement: r for r in scop.reductions}
    result = {}
    for stmt in scop.statements:
        if first <= stmt.line < first + len(statements):
            r = found.get(stmt.name)
            result[statements[stmt.line - first]] = None if r is None else (r.op, r.exact)
    return result


@pytest.mark.parametrize("form", list(FORMS))
def test_detection(form, detected):
    assert detected[form] == FORMS[form]


# -- dependences ----------------------------------------------------------------
def _scop(tmp_path: Path, body: str, decls: str = "double s; int k;"):
    path = tmp_path / "p.c"
    path.write_text(f"void f(int n, double x[100], int v[100], double out[2], int iout[2])\n{{\n  int i; {decls}\n"
                    f"#pragma scop\n{body}\n#pragma endscop\n}}\n")
    return extract_program(str(path), new_context()).scops[0]


SUM = "  s = 0;\n  for (i = 0; i < n; i++)\n    s += x[i];\n  out[0] = s;"
INT_SUM = "  k = 0;\n  for (i = 0; i < n; i++)\n    k += v[i];\n  iout[0] = k;"


def _pairs(deps: isl.UnionMap, source: str, sink: str) -> isl.UnionMap:
    """The dependences of `deps` from statement `source` to statement `sink`."""
    result = isl.UnionMap.empty(deps.get_space())
    for m in maps_of(deps):
        if (m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)) == (source, sink):
            result = result.union(isl.UnionMap.from_map(m))
    return result


def test_only_enabled_reductions_are_relaxed(tmp_path):
    double = _scop(tmp_path, SUM)
    assert [g.exact for g in reduction_groups(double.reductions)] == [False]
    assert enabled_groups(double, reassociate=False) == ()
    assert len(enabled_groups(double, reassociate=True)) == 1
    integer = _scop(tmp_path, INT_SUM)
    assert len(enabled_groups(integer, reassociate=False)) == 1


def test_relaxed_dependences_drop_the_chain_and_join_the_others(tmp_path):
    scop = _scop(tmp_path, SUM)
    full = compute_dependences(scop, 10**7, Diagnostics())
    relaxation = relax(scop, full, enabled_groups(scop, reassociate=True))
    relaxed = relaxation.relaxed
    assert not _pairs(full.validity(()), "S_1", "S_1").is_empty()
    assert _pairs(relaxed.validity(()), "S_1", "S_1").is_empty()
    assert _pairs(relaxed.coincidence(()), "S_1", "S_1").is_empty()
    # s = 0 before every instance, out[0] = s after every one (value-based: the first and last only)
    into = isl.UnionMap.read_from_str(scop.ctx, "[n] -> { S_0[] -> S_1[i] : 0 <= i < n }")
    out_of = isl.UnionMap.read_from_str(scop.ctx, "[n] -> { S_1[i] -> S_2[] : 0 <= i < n }")
    order = full.tagged_order.domain_factor_domain().range_factor_domain()
    assert not into.is_subset(full.validity(()).union(order))
    assert into.is_subset(relaxed.validity(()))       # s = 0 is read by every instance: a live range
    assert out_of.is_subset(relaxed.validity(()))
    assert relaxation.chains[0].is_equal(
        isl.UnionMap.read_from_str(scop.ctx, "[n] -> { S_1[i] -> S_1[i + 1] : 0 <= i < n - 1 }"))


def _cpu(scop, **options):
    return schedule_for_cpu(scop, Options(target="c", openmp=True, **options))


def test_double_sum_is_parallel_only_with_reductions(tmp_path):
    scop = _scop(tmp_path, SUM)
    assert [loop.reductions for loop in _cpu(scop).parallel] == []
    assert [loop.reductions for loop in _cpu(scop, reductions=True).parallel] == [(("+", "s"),)]
    integer = _scop(tmp_path, INT_SUM)
    assert [loop.reductions for loop in _cpu(integer).parallel] == [(("+", "k"),)]


def test_a_relaxation_past_its_isl_budget_keeps_the_order(tmp_path, monkeypatch):
    """The joins' dataflow of a fuzzed SCoP took minutes (under -v, which relaxes every
    reduction to say what --reductions would do): past `LIMITS.dataflow` operations
    nothing is relaxed, and the integer sum, exact, stays serial."""
    from dataclasses import replace

    import ppcg_py.schedule.cpu.reductions as reductions
    scop = _scop(tmp_path, INT_SUM)
    full = compute_dependences(scop, 10**7, Diagnostics())
    assert relax(scop, full, enabled_groups(scop, reassociate=False)) is not None
    monkeypatch.setattr(reductions, "LIMITS", replace(reductions.LIMITS, dataflow=10))
    assert relax(scop, full, enabled_groups(scop, reassociate=False)) is None
    assert [loop.reductions for loop in _cpu(scop, verbose=True).parallel] == []


def test_prefix_sum_stays_serial(tmp_path):
    """Another statement reads the location inside the loop: its iterations are ordered."""
    scop = _scop(tmp_path, "  k = 0;\n  for (i = 0; i < n; i++) {\n    k += v[i];\n    iout[0] = k;\n  }")
    assert _cpu(scop).parallel == ()


def test_private_scalar_keeps_the_outer_loop_parallel(tmp_path):
    """A reduction's scalar restarted in each iteration of an outer loop stays private
    there: the joins with `k = 0` and `v[i] = k` are live ranges and order dependences
    of a scalar, as without the relaxation."""
    path = tmp_path / "q.c"
    path.write_text("void f(int n, int m, int B[50][50], int v[50])\n{\n  int i, j, k;\n#pragma scop\n"
                    "  for (i = 0; i < n; i++) {\n    k = 0;\n    for (j = 0; j < m; j++)\n      k += B[i][j];\n"
                    "    v[i] = k;\n  }\n#pragma endscop\n}\n")
    scop = extract_program(str(path), new_context()).scops[0]
    loops = _cpu(scop).parallel
    assert [(loop.depth, loop.reductions, loop.private) for loop in loops] == [(0, (), frozenset({"k"}))]


def test_large_array_reduction_stays_serial(tmp_path):
    path = tmp_path / "big.c"
    path.write_text("void f(int n, double A[40][10000], double y[40], double big[10000])\n{\n  int i, j;\n"
                    "#pragma scop\n  for (i = 0; i < 40; i++)\n    for (j = 0; j < 10000; j++)\n"
                    "      big[j] += A[i][j] * y[i];\n#pragma endscop\n}\n")
    scop = extract_program(str(path), new_context()).scops[0]
    scheduled = _cpu(scop, reductions=True, verbose=True)
    assert [loop.reductions for loop in scheduled.parallel] == [()]     # the loop over j, as without
    assert any("a copy of big per thread would take 80000 bytes" in line for line in scheduled.notes), \
        scheduled.notes


def _carried(scheduled, loop) -> isl.UnionMap:
    """The dependences a parallel loop carries, but those of its private scalars and the
    chains of the reductions in its clause."""
    deps = scheduled.dependences
    keep = [a.name for a in scheduled.scop.arrays if a.name not in loop.private]
    scalars = [a.name for a in scheduled.scop.arrays if a.is_scalar]
    relevant = (deps.of_arrays(deps.tagged_flow, keep).union(deps.of_arrays(deps.tagged_false, keep))
                .union(deps.of_arrays(deps.tagged_order, keep)).union(deps.array_false).union(deps.forced)
                .union(deps.flow.subtract(deps.of_arrays(deps.tagged_flow, scalars))))
    for group in reduction_groups(scheduled.scop.reductions):
        if (group.op, group.array) in loop.reductions:
            mine = isl.UnionSet.empty(relevant.get_space().params())
            for stmt in scheduled.scop.statements:
                if stmt.name in group.statements:
                    mine = mine.union(isl.UnionSet.from_set(stmt.domain))
            relevant = relevant.subtract(relevant.intersect_domain(mine).intersect_range(mine))
    key = loop.host_schedule.range_product(loop.point_schedule)
    same_execution = loop.host_schedule.apply_range(loop.host_schedule.reverse())
    inside = relevant.intersect_domain(loop.domain).intersect_range(loop.domain).intersect(same_execution)
    return inside.subtract(key.apply_range(key.reverse()))


@pytest.mark.parametrize("tile", [False, True], ids=["untiled", "tiled"])
@pytest.mark.parametrize("kernel", ["atax", "bicg", "durbin", "symm", "gramschmidt", "ludcmp"])
def test_polybench_parallel_loops_carry_only_their_reductions(kernel, tile):
    """With --reductions, every dependence between two iterations of an OpenMP loop is one
    of a private scalar or a chain of a reduction in the loop's clause."""
    from polybench_cases import POLYBENCH, kernel_source

    source = kernel_source(kernel)
    program = extract_program(str(source), new_context(), include_dirs=(str(POLYBENCH / "utilities"),
                                                                        str(source.parent)),
                              defines=("MINI_DATASET",))
    loops = 0
    for scop in program.scops:
        scheduled = _cpu(scop, tile=tile, reductions=True)
        for loop in scheduled.parallel:
            loops += loop.reductions != ()
            assert _carried(scheduled, loop).is_empty(), (loop.name, str(_carried(scheduled, loop)))
    assert loops > 0


# -- the C target ---------------------------------------------------------------
PROGRAM = """\
#include <stdio.h>
#include <math.h>
#define N 37
#define M 29

static void compute(int n, int m, double A[N][M], double x[N], double y[M], double tmp[N], int I[N][M],
                    int iv[N], double out[4], int iout[8])
{{
  int i, j, k, mn;
  long p;
  double s, t;
{body}
}}

static void dump(const char *name, const double *v, int count)
{{
  fprintf(stderr, "begin dump: %s\\n", name);
  for (int c = 0; c < count; c++)
    fprintf(stderr, "%.17g\\n", v[c]);
  fprintf(stderr, "end   dump: %s\\n", name);
}}

int main(void)
{{
  static double A[N][M], x[N], y[M], tmp[N], out[4], ints[N + 8];
  static int I[N][M], iv[N], iout[8];
  for (int a = 0; a < N; a++)
    for (int b = 0; b < M; b++) {{
      A[a][b] = (double) ((7 * a + 3 * b) % 13) / 13.0;
      I[a][b] = (5 * a + 11 * b) % 17 - 8;
    }}
  for (int a = 0; a < N; a++) {{ x[a] = (a % 5) * 0.25; iv[a] = (a * 37) % 23 + 1; tmp[a] = a * 0.5; }}
  for (int b = 0; b < M; b++) y[b] = (b % 3) * 0.5 + 0.125;
  compute(N, M, A, x, y, tmp, I, iv, out, iout);
  for (int a = 0; a < N; a++) ints[a] = iv[a];
  for (int a = 0; a < 8; a++) ints[N + a] = iout[a];
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\n");
  dump("x", x, N);
  dump("y", y, M);
  dump("tmp", tmp, N);
  dump("out", out, 4);
  dump("ints", ints, N + 8);
  fprintf(stderr, "==END   DUMP_ARRAYS==\\n");
  return 0;
}}
"""

BODIES = {
    "scalar_sum": """\
#pragma scop
  s = 0.0;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      s += A[i][j] * x[i];
  out[0] = s;
#pragma endscop""",
    # atax's first product with the loop over j outside: the copy per thread is tmp's section
    "atax_j_outer": """\
#pragma scop
  for (i = 0; i < n; i++)
    tmp[i] = 0.0;
  for (j = 0; j < m; j++)
    for (i = 0; i < n; i++)
      tmp[i] += A[i][j] * y[j];
#pragma endscop""",
    "int_sum": """\
#pragma scop
  k = 0;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      k += I[i][j] * (i + 1);
  iout[0] = k;
#pragma endscop""",
    "bitwise_and_product": """\
#pragma scop
  k = 0;
  for (i = 0; i < n; i++)
    k ^= iv[i] * 3;
  mn = -1;
  for (i = 0; i < n; i++)
    mn &= iv[i] | 64;
  p = 1;
  for (i = 0; i < n; i++)
    p *= iv[i] % 3 + 1;
  j = 0;
  for (i = 0; i < n; i++)
    j = j | iv[i];
  iout[1] = k;
  iout[2] = mn;
  iout[3] = j;
#pragma endscop
  iout[4] = (int) (p % 1000003);""",
    "min_max": """\
#pragma scop
  t = A[0][0];
  mn = I[0][0];
  s = 10.0;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      t = fmax(t, A[i][j] * x[i]);
      mn = mn < I[i][j] ? mn : I[i][j];
    }
  for (j = 0; j < m; j++)
    s = y[j] + 1 < s ? y[j] + 1 : s;
  for (j = 0; j < m; j++)
    for (i = 0; i < n; i++)
      tmp[i] = fmin(tmp[i], A[i][j]);
  out[1] = t;
  out[2] = s;
  iout[5] = mn;
#pragma endscop""",
    # another statement reads the location in the loop (a prefix sum): no parallel loop
    "read_inside_the_loop": """\
#pragma scop
  s = 0.0;
  for (i = 0; i < n; i++) {
    s += x[i] * 2.0;
    tmp[i] = s;
  }
  out[3] = s;
#pragma endscop""",
    # the reduction's array is written elsewhere in the loop (other elements)
    "other_access_same_array": """\
#pragma scop
  for (j = 0; j < 29; j++) {
    for (i = 0; i < 8; i++)
      tmp[i] += A[i][j] * y[j];
    tmp[8 + j] = y[j] * 2.0;
  }
#pragma endscop""",
}
# the same without isl's scheduler: the loop over j is not distributed, and the copy per
# thread of tmp would hide the other statement's writes: the loop stays serial
BODIES["other_access_original_order"] = BODIES["other_access_same_array"]

CASES = {
    # name: (options, the reduction clauses printed, in any order; None: not checked)
    "scalar_sum": (("--reductions",), ["reduction(+:s)"]),
    "atax_j_outer": (("--reductions",), ["reduction(+:tmp[0:37])"]),
    "int_sum": ((), ["reduction(+:k)"]),
    "bitwise_and_product": ((), ["reduction(&:mn)", "reduction(*:p)", "reduction(^:k)", "reduction(|:j)"]),
    "min_max": ((), ["reduction(max:t)", "reduction(min:mn)", "reduction(min:s)", "reduction(min:tmp[0:37])"]),
    "read_inside_the_loop": (("--reductions",), []),
    "other_access_same_array": (("--reductions",), None),
    "other_access_original_order": (("--reductions", "--no-reschedule"), []),
}


def _program(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.c"
    path.write_text(PROGRAM.format(body=BODIES[name]))
    return path


def _compiled(source: Path, out_dir: Path, *args: str) -> tuple[str, str]:
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", *EVERY_LOOP, *args,
                           "--output-dir", str(out_dir), str(source)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return (out_dir / f"{source.stem}.ppcg.c").read_text(), proc.stderr


def _clauses(text: str) -> list[str]:
    """Every `reduction(...)` clause of the OpenMP loops, sorted."""
    pragmas = re.findall(r"#pragma omp (?:parallel )?for\b.*", text)
    return sorted(clause for pragma in pragmas for clause in re.findall(r"reduction\([^)]*\)", pragma))


@pytest.mark.parametrize("tile", [(), ("--tile", "--tile-sizes", "8,5")], ids=["untiled", "tiled"])
@pytest.mark.parametrize("name", list(CASES))
def test_verifies_with_1_2_4_threads(name, tile, tmp_path):
    options, clauses = CASES[name]
    source = _program(tmp_path, name)
    text, _ = _compiled(source, tmp_path, *options, *tile)
    if clauses is not None:
        assert _clauses(text) == clauses, text
    report = verify(VerifyConfig(source=source, ppcg_args=(*options, *tile), target="c"), tmp_path / "work")
    assert report.ok, report.summary()
    assert set(report.mismatches) == {"1 thread", "2 threads", "4 threads"}


def test_double_sum_stays_serial_without_reductions(tmp_path):
    text, err = _compiled(_program(tmp_path, "scalar_sum"), tmp_path, "-v")
    assert "#pragma omp" not in text, text
    assert "S_1 (line 16): reduction '+=' on s along loop i: parallel with --reductions" in err, err


def test_section_of_a_parameter_sized_array(tmp_path):
    """`tmp[n]` bounded by --ctx: the clause names its section with the parameter, and gcc
    builds it; unbounded, the loop stays serial and -v says why."""
    path = tmp_path / "vla.c"
    path.write_text("void f(int n, int m, double A[n][m], double x[m], double tmp[n])\n{\n"
                    "  int i, j;\n#pragma scop\n  for (j = 0; j < m; j++)\n    for (i = 0; i < n; i++)\n"
                    "      tmp[i] += A[i][j] * x[j];\n#pragma endscop\n}\n")
    text, _ = _compiled(path, tmp_path, "--reductions", "--ctx", "[n, m] -> { : n <= 100 and m <= 100 }")
    assert _clauses(text) == ["reduction(+:tmp[0:n])"], text
    subprocess.run(["gcc", "-fopenmp", "-c", "-o", str(tmp_path / "vla.o"), str(tmp_path / "vla.ppcg.c")],
                   check=True)
    unbounded, err = _compiled(path, tmp_path, "--reductions", "-v")
    assert _clauses(unbounded) == [] and "a copy of tmp per thread would take an unbounded size" in err, err


def test_gpu_targets_note_a_reduction_they_leave_serial(tmp_path):
    """CUDA: a sum over the whole SCoP, with nothing else parallel, stays serial (an integer
    one is enabled with or without --reductions, so the files are the same); -v says so.
    tests/test_gpu_reductions.py covers the reductions that kernels' threads combine."""
    source = _program(tmp_path, "int_sum")
    outputs = []
    for args in ((), ("--reductions", "-v")):
        out = tmp_path / f"cuda{len(outputs)}"
        out.mkdir()
        proc = subprocess.run([sys.executable, "-m", "ppcg_py", *args, "--output-dir", str(out), str(source)],
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        outputs.append({p.name: p.read_text() for p in out.iterdir()})
    assert outputs[0] == outputs[1]
    assert re.search(r"S_\d+ \(line 16\): reduction '\+=' on k: serial on the GPU", proc.stderr), proc.stderr


def test_copy_would_hide_another_statement(tmp_path):
    _, err = _compiled(_program(tmp_path, "other_access_original_order"), tmp_path, "--reductions",
                       "--no-reschedule", "-v")
    assert "S_0 (line 15): reduction '+=' on tmp along loop j: serial: S_1 (line 16) also accesses tmp in the " \
           "loop" in err, err
