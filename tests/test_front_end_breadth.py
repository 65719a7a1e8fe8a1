"""Front-end breadth: C forms the extractor accepts beyond PolyBench's own, each
checked in the model and, where it changes generated code, end to end through
the harness (gcc's build of the original is the reference)."""
from __future__ import annotations

import re
from pathlib import Path

import islpy as isl
import pytest

from ppcg_py.cli import main
from ppcg_py.extract import extract_scops
from ppcg_py.isl_context import new_context
from ppcg_py.memory import plan_transfers
from ppcg_py.options import Options
from ppcg_py.schedule.gpu import schedule_scop
from ppcg_py.verify.harness import VerifyConfig, verify

HEAD = """#include <stdio.h>
#include <math.h>
#define N 37
#define M 29
"""

DUMPS = """
static void dump_d(const char *name, const double *v, int count)
{
  fprintf(stderr, "begin dump: %s\\n", name);
  for (int k = 0; k < count; k++) fprintf(stderr, "%0.17g\\n", v[k]);
  fprintf(stderr, "end   dump: %s\\n", name);
}
static void dump_f(const char *name, const float *v, int count)
{
  fprintf(stderr, "begin dump: %s\\n", name);
  for (int k = 0; k < count; k++) fprintf(stderr, "%0.9g\\n", v[k]);
  fprintf(stderr, "end   dump: %s\\n", name);
}
static void dump_i(const char *name, const int *v, int count)
{
  fprintf(stderr, "begin dump: %s\\n", name);
  for (int k = 0; k < count; k++) fprintf(stderr, "%d\\n", v[k]);
  fprintf(stderr, "end   dump: %s\\n", name);
}
int main(void)
{
  static double A[N][M], B[N][M], x[N];
  static float F[N][M], y[N];
  static int K[N];
  for (int i = 0; i < N; i++) {
    x[i] = (i % 5) / 5.0; y[i] = (i % 7) / 7.0f; K[i] = i * 3 - 20;
    for (int j = 0; j < M; j++) {
      A[i][j] = ((i * 7 + j * 3) % 11) / 11.0;
      B[i][j] = ((i + 2 * j) % 13) / 13.0;
      F[i][j] = ((i * 5 + j) % 17) / 17.0f;
    }
  }
  compute(N - 3, M - 4, 1.5, A, B, x, F, y, K);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\n");
  dump_d("A", &A[0][0], N * M); dump_d("B", &B[0][0], N * M); dump_d("x", x, N);
  dump_f("F", &F[0][0], N * M); dump_f("y", y, N); dump_i("K", K, N);
  fprintf(stderr, "==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""

SIGNATURE = ("static void compute(int n, int m, double alpha, double A[N][M], double B[N][M], "
             "double x[N], float F[N][M], float y[N], int K[N])\n")

PROGRAMS = {
    # PolyBench's deriche writes `a1 = a5 = k;`; chains of any length, any operator.
    "chains": """{
  double k1, k2, k3;
#pragma scop
  k1 = k2 = alpha * 0.5;
  for (int i = 0; i < n; i++) {
    A[i][0] = B[i][0] = x[i] + k1;
    k3 = x[i] += k2 = 0.25 * i;
    for (int j = 1; j < m; j++)
      A[i][j] += B[i][j] = A[i][j - 1] * 0.5;
    y[i] = x[i] = k3;
  }
#pragma endscop
}""",
    # Casts, the ternary operator, % and / by constants (C's truncation, negative values too).
    "casts_ternary_division": """{
#pragma scop
  for (int i = 0; i < n; i++) {
    K[i] = (K[i] * 7 + i / 3 - (i - 17) / 4) % 5 + (K[i] - 11) % 3;
    x[i] = (double) (int) (x[i] * 10.0) / 10.0 + (float) (i % 4) * 0.5;
    for (int j = 0; j < m; j++)
      A[i][j] = (i % 3 == 0 ? B[i][j] : -B[i][j]) + (j > i ? 1.0 : (double) K[i]) + (i + j) / 2;
  }
#pragma endscop
}""",
    # floord/ceild (macros, as in PPCG-generated C) and min/max in bounds and subscripts.
    "floord_bounds": """{
#pragma scop
  for (int i = 0; i <= floord(n - 1, 2); i++)
    for (int j = ceild(i, 3); j < MIN(m, 2 * i + 5); j++)
      A[2 * i][j] = B[MAX(i - 1, 0)][floord(j, 2)] + 1.0;
#pragma endscop
}""",
    # Several SCoPs in one function, with host code between them.
    "two_scops": """{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = A[i][j] * alpha + B[i][j];
#pragma endscop
  alpha = alpha + 1.0;
#pragma scop
  for (int i = 1; i < n; i++)
    x[i] = x[i - 1] * 0.5 + A[i][1] * alpha;
#pragma endscop
}""",
}

MACROS = """#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define ceild(n, d) (((n) < 0) ? -((-(n)) / (d)) : ((n) + (d) - 1) / (d))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
"""

OPTIONS = {"default": (), "small-tiles": ("--tile-sizes", "3,5"),
           "serialize": ("--isl-schedule-serialize-sccs", "--sizes", "{ kernel[i] -> block[4,3] }")}


def _program(body: str, signature: str = SIGNATURE, prelude: str = "") -> str:
    return HEAD + MACROS + prelude + signature + body + DUMPS


def _verify(tmp_path: Path, text: str, args=(), data_type="double", name="prog", nvcc=False, target="cuda"):
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    report = verify(VerifyConfig(source=src, ppcg_args=tuple(args), data_type=data_type, target=target,
                                 use_nvcc=None if nvcc else False), tmp_path / "work")
    assert report.ok, report.summary()


@pytest.mark.parametrize("options", list(OPTIONS))
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_form_verifies(name, options, tmp_path):
    _verify(tmp_path, _program(PROGRAMS[name]), OPTIONS[options], nvcc=options == "default")


def _kernel_text(tmp_path: Path, name: str, text: str) -> str:
    """The CUDA kernel file ppcg-py writes for `text`, compiled as NAME.c."""
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    out = tmp_path / "out"
    out.mkdir()
    assert main(["--output-dir", str(out), str(src)]) == 0
    return (out / f"{name}_kernel.cu").read_text()


def _scops(tmp_path: Path, text: str, **kwargs):
    src = tmp_path / "m.c"
    src.write_text(text)
    return extract_scops(str(src), new_context(), **kwargs)


def test_chained_assignment_becomes_statements_in_c_order(tmp_path):
    scop, = _scops(tmp_path, "void f(double a, double b, double c[10])\n{\n#pragma scop\n"
                             "  a = b = c[0] = 2.0;\n#pragma endscop\n}\n")
    order = [(s.name, [(acc.array, acc.is_write) for acc in s.accesses]) for s in scop.statements]
    assert order == [("S_0", [("c", True)]),
                     ("S_1", [("b", True), ("c", False)]),
                     ("S_2", [("a", True), ("b", False)])]


# -- math functions on float data ------------------------------------------------

MATH = """{
#pragma scop
  for (int i = 0; i < n; i++) {
    y[i] = sqrt(y[i]) + exp(-fabs(y[i])) + pow(y[i], 2) + fabs(y[i] * 2);
    for (int j = 0; j < m; j++)
      F[i][j] = sqrt(F[i][j] * 0.5) + sin((float) x[i]) + floor(F[i][j] * 3.0f);
    x[i] = sqrt(x[i]) + pow(y[i], 2.0);
  }
#pragma endscop
}"""


def test_math_on_float_data_computes_in_double_as_c_does(tmp_path):
    """C computes `sqrt(y)` of a float y, and the arithmetic around it, in double. CUDA's
    C++ overloads would pick `float sqrt(float)`, so the conversions are written out; a
    float variant appears only where its value is C's (a correctly rounded call whose
    value is converted to float at once)."""
    kernel = _kernel_text(tmp_path, "math", _program(MATH))
    calls = set(re.findall(r"\b([a-z]+f?)\(", kernel))
    assert not {"sqrtf", "expf", "fabsf", "powf", "sinf", "floorf"} & calls, kernel
    for call in ("sqrt", "fabs", "pow", "floor"):
        assert re.search(rf"\b{call}\(\(double\) ", kernel), (call, kernel)
    assert re.search(r"\bsin\(\(double\) \(\(float\) ", kernel), kernel
    # a double literal (0.5, 2.0) or a double variable needs no conversion
    assert re.search(r"\bsqrt\([^;]*\* 0\.5\)", kernel), kernel
    assert re.search(r"\bsqrt\(x\[", kernel), kernel


NARROWED = """{
#pragma scop
  for (int i = 0; i < n; i++) {
    y[i] = sqrt(y[i]);
    for (int j = 0; j < m; j++)
      F[i][j] = (float) fabs(F[i][j] - y[i]) + exp(F[i][j]);
  }
#pragma endscop
}"""


def test_float_variant_where_c_rounds_to_float_at_once(tmp_path):
    """`y = sqrt(y)` and `(float) fabs(f)` round C's double result to float at once: the
    correctly rounded float call gives the same value; `exp`, not correctly rounded, stays."""
    kernel = _kernel_text(tmp_path, "narrowed", _program(NARROWED))
    assert re.search(r"= sqrtf\(y\[", kernel), kernel
    assert re.search(r"\(float\) fabsf\(", kernel), kernel
    assert re.search(r"\bexp\(\(double\) ", kernel), kernel
    _verify(tmp_path, _program(NARROWED), data_type="float")


INT_MATH = """{
#pragma scop
  for (int i = 0; i < n; i++)
    y[i] = sqrt(fabs(i - 3)) + pow(i, 2) + fabs(K[i]) + fmax(F[i][0], 0.3) + fmin(0.2, y[i]);
#pragma endscop
}"""


def test_int_and_mixed_arguments_of_math_calls_convert_to_double(tmp_path):
    """C converts `fabs(i)` to `fabs((double) i)` and `fmax(f, 0.3)` (f a float) to
    `fmax((double) f, 0.3)`; CUDA would pick a host-only overload (nvcc: calling a
    constexpr __host__ function from a __global__ function; found: fuzz seed 1:425)."""
    kernel = _kernel_text(tmp_path, "intmath", _program(INT_MATH))
    assert re.search(r"\bfabs\(\(double\) \(", kernel), kernel
    assert re.search(r"\bpow\(\(double\) ", kernel), kernel
    assert re.search(r"\bfmax\(\(double\) ", kernel) and re.search(r"\bfmin\(0\.2, \(double\) ", kernel), kernel
    _verify(tmp_path, _program(INT_MATH), data_type="float", nvcc=True)


# -- declarations inside the SCoP ------------------------------------------------

LOCALS = """{
  double t = 100.0;
#pragma scop
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < m; j++) {
      double t = A[i][j] * 2.0;
      s += t;
      B[i][j] = t + s;
    }
    x[i] = s;
  }
  for (int i = 0; i < n; i++) {
    double s = x[i] * 2;
    int k = i % 3;
    x[i] = s + k;
  }
  x[0] = t;
#pragma endscop
}"""


def test_locals_are_scalars_killed_at_their_declaration(tmp_path):
    scop, = _scops(tmp_path, _program(LOCALS))
    local = {a.name: a for a in scop.arrays if a.local}
    # the inner `t` shadows the outer one, the second `s` is not the first: unique names
    assert set(local) == {"s", "t_1", "s_1", "k"}
    assert all(a.rank == 0 and not a.live_after for a in local.values())   # never expanded over loops
    assert ("t", "double") in scop.scalars_read_only   # the outer `t`, only read: by value
    writes = {s.accesses[0].array: s.accesses[0].index for s in scop.statements}
    assert writes["t_1"].is_equal(isl.Map.read_from_str(
        scop.ctx, "[n, m] -> { S_1[i, j] -> t_1[] : 0 <= i < n and 0 <= j < m }"))
    # one kill per declaration, at the declaration's loops
    kills = {k.array: k.index for k in scop.kills}
    assert set(kills) == set(local)
    assert kills["t_1"].is_equal(isl.Map.read_from_str(
        scop.ctx, "[n, m] -> { kill_1[i, j] -> t_1[] : 0 <= i < n and 0 <= j < m }"))


def test_locals_keep_loops_parallel(tmp_path):
    scop, = _scops(tmp_path, _program(LOCALS))
    scheduled = schedule_scop(scop, Options())
    assert any(k.block_ids for k in scheduled.kernels), "the loop over i should be mapped to blocks"


def test_locals_are_never_transferred(tmp_path):
    scop, = _scops(tmp_path, _program(LOCALS))
    scheduled = schedule_scop(scop, Options())
    plan = plan_transfers(scop, scheduled.dependences.live_in)
    for dev in plan.arrays:
        if dev.array.local:
            assert not dev.copy_in and not dev.copy_out, dev.array.name


@pytest.mark.parametrize("options", list(OPTIONS))
def test_locals_verify(options, tmp_path):
    _verify(tmp_path, _program(LOCALS), OPTIONS[options])


# -- contexts ------------------------------------------------------------------------

@pytest.mark.parametrize("ctx", ["[n, m] -> { : n >= 30 and m >= 20 }", "[m] -> { : m > 3 }",
                                 "[n, q] -> { : q >= n >= 4 }"])
def test_context_verifies(ctx, tmp_path):
    """--ctx facts that hold for the actual sizes (34, 25) change no result; a
    parameter the SCoP does not have (q) is projected out."""
    _verify(tmp_path, _program(PROGRAMS["two_scops"]), ("--ctx", ctx, "--tile-sizes", "4,8"))


def test_assume_non_negative_parameters_verifies(tmp_path):
    _verify(tmp_path, _program(PROGRAMS["floord_bounds"]), ("--assume-non-negative-parameters",))


def test_context_constrains_the_model(tmp_path):
    scop, = _scops(tmp_path, _program(PROGRAMS["two_scops"]).replace("#pragma scop\n  alpha", "alpha")
                   .split("alpha = alpha + 1.0;")[0] + "}\n" + DUMPS,
                   context="[n, q] -> { : q >= n >= 4 }", assume_nonneg=True)
    assert scop.context.is_equal(isl.Set.read_from_str(scop.ctx, "[n, m] -> { : n >= 4 and m >= 0 }"))


# -- odd but valid programs ------------------------------------------------------------

def test_loop_that_never_runs(tmp_path):
    body = """{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = i; j < i; j++)
      x[j] = 1.0;
  for (int i = 0; i < n; i++)
    x[i] = x[i] + 1.0;
#pragma endscop
}"""
    _verify(tmp_path, _program(body))


def test_system_headers_in_any_order(tmp_path):
    for order in (["math.h", "stdio.h"], ["stdarg.h", "stdlib.h", "stdio.h", "math.h"]):
        text = "".join(f"#include <{h}>\n" for h in order) + "void f(int n, double B[10]) {\n#pragma scop\n" \
            "  for (int i = 0; i < n; i++)\n    B[i] = 0;\n#pragma endscop\n}\n"
        scop, = _scops(tmp_path, text)
        assert scop.statements[0].line == len(order) + 4


TYPEDEF_CAST = """#include <stdio.h>
typedef float real;
static void f(int n, real A[40], double B[40])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = (real) B[i] * (real) 2 + (double) (real) i;
#pragma endscop
}
int main(void)
{
  static real A[40];
  static double B[40];
  for (int i = 0; i < 40; i++) B[i] = i * 0.3;
  f(37, A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: A\\n");
  for (int i = 0; i < 40; i++) fprintf(stderr, "%0.9g\\n", A[i]);
  fprintf(stderr, "end   dump: A\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


def test_typedef_in_a_cast_reaches_the_kernel_resolved(tmp_path):
    """Kernels do not see the user's typedefs: `(real) x` is printed `(float) x`."""
    kernel = _kernel_text(tmp_path, "td", TYPEDEF_CAST)
    assert "real" not in kernel and "(float) B[" in kernel, kernel
    _verify(tmp_path, TYPEDEF_CAST, data_type="float", name="td", nvcc=True)


TWO_FUNCTIONS = """#include <stdio.h>
#define N 41
static void scale(int n, double A[N], double alpha)
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] * alpha;
#pragma endscop
}
static void shift(int n, double A[N], double B[N])
{
#pragma scop
  for (int i = 1; i < n; i++)
    B[i] = A[i - 1] + B[i];
#pragma endscop
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = B[n - 1 - i];
#pragma endscop
}
int main(void)
{
  static double A[N], B[N];
  for (int i = 0; i < N; i++) { A[i] = i % 7; B[i] = i % 3; }
  scale(N - 2, A, 0.5);
  shift(N - 4, A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: A\\n");
  for (int i = 0; i < N; i++) fprintf(stderr, "%0.17g\\n", A[i]);
  fprintf(stderr, "end   dump: A\\nbegin dump: B\\n");
  for (int i = 0; i < N; i++) fprintf(stderr, "%0.17g\\n", B[i]);
  fprintf(stderr, "end   dump: B\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


def test_scops_in_several_functions(tmp_path):
    scops = _scops(tmp_path, TWO_FUNCTIONS)
    assert [s.function for s in scops] == ["scale", "shift", "shift"]
    _verify(tmp_path, TWO_FUNCTIONS, ("--tile-sizes", "4"), name="twofn", nvcc=True)


# -- arrays of unknown outer size ------------------------------------------------

OPEN_ARRAY_UNTOUCHED = """{
#pragma scop
  for (int i = 0; i < n; i++) {
    for (int j = i; j < i; j++)
      x[j] = x[j + 1] * 2.0;
    y[i] = y[i] + 1.0f;
  }
#pragma endscop
}"""


def test_open_array_that_no_instance_touches_is_not_an_error(tmp_path):
    """`double x[]` accessed only under an empty loop has no size to infer and needs
    none (found: fuzz seed 2:32, was "cannot determine the size of array")."""
    signature = ("static void compute(int n, int m, double alpha, double A[N][M], double B[N][M], "
                 "double x[], float F[N][M], float y[N], int K[N])\n")
    _verify(tmp_path, _program(OPEN_ARRAY_UNTOUCHED, signature), data_type="float")
