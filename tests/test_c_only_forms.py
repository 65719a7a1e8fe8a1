"""Valid C that C++ or the front end used to refuse: enum constants of any integer
constant expression (gcc's omp.h), K&R definitions, C99 array parameter declarators,
and the other C-only forms that keep a file's host code in C (`extract/c_only.py`).

Each program is checked end to end by the harness: accepted, its generated files
built (nvcc, where installed; the verify harness skips it otherwise), and the
emulated GPU run matches gcc's build of the original.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from pycparser import c_ast, c_parser

from ppcg_py.cli import main
from ppcg_py.extract.c_only import needs_c_host
from ppcg_py.extract.constant_expressions import NotConstant, evaluate
from ppcg_py.extract.preprocess import parse, preprocess
from ppcg_py.verify.harness import VerifyConfig, verify

COMPUTE = """
static void compute(int n, double A[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] * 2.0 + SHIFT;
#pragma endscop
}

static void dump(const char *name, const double *v, int count)
{
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\n");
  fprintf(stderr, "begin dump: %s\\n", name);
  for (int k = 0; k < count; k++) fprintf(stderr, "%0.17g\\n", v[k]);
  fprintf(stderr, "end   dump: %s\\n", name);
  fprintf(stderr, "==END   DUMP_ARRAYS==\\n");
}
"""

MAIN = """
int main(void)
{
  static double A[N];
  for (int i = 0; i < N; i++) A[i] = (i % 7) / 7.0;
  compute(N - 3, A);
  dump("A", A, N);
  return 0;
}
"""

HEAD = "#include <stdio.h>\n#include <stdlib.h>\n#define N 37\n"

# name -> (text before compute, `SHIFT`, main; whether the host file stays C)
PROGRAMS = {
    "omp_h": ("#include <omp.h>\nstatic omp_lock_t unused_lock;\n", "1", MAIN, False),
    "enum_constant_expressions": ("""
enum wide { WIDE = (unsigned long) -1, BYTE = (unsigned char) 300, TWICE = sizeof(int) * 2,
            LETTER = 'a' - 90, NEWLINE = '\\n', TESTS = !0 + (3 > 2) + (1 && 0) + (0 ? 5 : 6),
            NEGATIVE = -1 < 0U, HEX = 0x10 + 010 + 1u };
""", "(BYTE + TWICE + LETTER + NEWLINE + TESTS + NEGATIVE + HEX)", MAIN, False),
    "k_and_r_definitions": ("twice(x) int x; { return 2 * x; }\n", "1", """
main(argc, argv) int argc; char **argv;
{
  static double A[N];
  for (int i = 0; i < N; i++) A[i] = (i % 7) / 7.0;
  compute(N - twice(argc), A);
  dump("A", A, N);
  return 0;
}
""", True),
    "array_parameter_qualifiers": ("""
static int first(int a[static 1], int b[const 5], int c[restrict], int d[static restrict 3])
{
  return a[0] + b[1] + c[0] + d[2];
}
""", "1", MAIN.replace("compute(N - 3, A);", "int v[5] = {1, 2, 3, 4, 5};\n  compute(N - first(v, v, v, v) + 7, A);"),
        True),
    "restrict_pointer": ("""
static void add(double *restrict p, const double *restrict q, int n)
{
  for (int i = 0; i < n; i++) p[i] += q[i];
}
""", "1", MAIN.replace("compute(N - 3, A);", "add(A, A, N);\n  compute(N - 3, A);"), True),
    "cxx_keyword_names": ("static int new = 3, class = 2;\n", "1",
                          MAIN.replace("compute(N - 3, A);", "compute(N - new - class, A);"), True),
    "malloc_without_cast": ("", "1", MAIN.replace("compute(N - 3, A);", """double *B = malloc(N * sizeof(double));
  for (int i = 0; i < N; i++) B[i] = A[i];
  compute(N - 3, B);
  for (int i = 0; i < N; i++) A[i] = B[i];
  free(B);"""), True),
    # forms only a C++ compiler finds (extract/c_only.py rejected_as_cxx)
    "bool_parameter": ("static int truth(_Bool b) { return b; }\n", "truth(1)", MAIN, True),
    "designators_out_of_order": ("typedef struct { int x, y; } point;\nstatic point corner = { .y = 1, .x = 2 };\n",
                                 "corner.x", MAIN, True),
    "string_filling_its_array": ('static char tag[3] = "abc";\n', "(tag[2] == 'c')", MAIN, True),
    "void_pointer_of_the_program": ("static double pool[N];\nstatic void *take(void) { return pool; }\n", "1",
                                    MAIN.replace("compute(N - 3, A);", "double *B = take();\n  B[0] = 1;\n"
                                                 "  compute(N - 3, A);"), True),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_c_only_form_verifies(name, tmp_path):
    before, shift, main_text, stays_c = PROGRAMS[name]
    source = tmp_path / f"{name}.c"
    source.write_text(HEAD + before + f"#define SHIFT {shift}\n" + COMPUTE + main_text)
    report = verify(VerifyConfig(source), tmp_path / "work")
    assert report.ok, report.summary()
    generated = tmp_path / "work" / "generated"
    assert (generated / f"{name}_host.c").exists() == stays_c
    assert (generated / f"{name}_host.cu").exists() == (not stays_c)


# -- integer constant expressions, as gcc computes them (LP64) ------------------------
EXPRESSIONS = [
    ("(unsigned long) -1", 2**64 - 1), ("(long unsigned int) -1", 2**64 - 1), ("(unsigned char) 300", 44),
    ("(signed char) 200", -56), ("(short) 70000", 4464), ("(unsigned) -1", 2**32 - 1), ("-1 < 0U", 0),
    ("-1L < 0U", 1), ("-1 < 0UL", 0), ("0xffffffff + 1", 0), ("4294967295 + 1", 2**32), ("'a'", 97),
    ("'\\n'", 10), ("'\\xff'", -1), ("'\\377'", -1), ("'ab'", 24930), ("L'a'", 97), ("sizeof(int)", 4),
    ("sizeof(long)", 8), ("sizeof(short)", 2), ("sizeof(void *)", 8), ("sizeof(int[4])", 16), ("sizeof 1L", 8),
    ("sizeof('a')", 4), ("!5", 0), ("1 && 2", 1), ("0 || 0", 0), ("0 ? 2 : -1", -1), ("1 ? -1 : 0u", 2**32 - 1),
    ("010", 8), ("0x1F", 31), ("10ul", 10), ("1 << 31", -2**31), ("-7 / 2", -3), ("-7 % 2", -1), ("7 % -2", 1),
    ("-1 >> 1", -1), ("1u << 31 >> 31", 1), ("~0u", 2**32 - 1), ("(_Bool) 5", 1), ("(int) 2.7", 2),
    ("0x80000000 >> 31", 1), ("2147483647 + 1", -2**31), ("(int)(unsigned char)-1", 255),
]


@pytest.mark.parametrize("text,value", EXPRESSIONS, ids=[e for e, _ in EXPRESSIONS])
def test_integer_constant_expression(text, value):
    init = c_parser.CParser().parse(f"int x = {text};").ext[0].init
    assert evaluate(init, {}) == value


@pytest.mark.parametrize("text", ["1 / 0", "1 << 40", "sizeof(struct s)", "x + 1", "(float) 1"])
def test_not_an_integer_constant_expression(text):
    init = c_parser.CParser().parse(f"struct s {{ int a; }}; int x = {text};").ext[1].init
    with pytest.raises(NotConstant):
        evaluate(init, {})


# -- an enum constant whose value is unknown is an error only where a SCoP uses it ------
LAZY = """struct big { int a; double b; };
enum { UNKNOWN = sizeof(struct big), AFTER };
void f(int n, float A[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] + USE;
#pragma endscop
}
"""


def _compile(tmp_path: Path, source: Path, capsys, *flags: str) -> tuple[int, str]:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    code = main([str(source), "--output-dir", str(out), *flags])
    return code, capsys.readouterr().err


def test_unused_unknown_enum_constant_is_no_error(tmp_path, capsys):
    source = tmp_path / "unused.c"
    source.write_text(LAZY.replace("USE", "1"))
    code, err = _compile(tmp_path, source, capsys)
    assert code == 0, err


@pytest.mark.parametrize("name", ["UNKNOWN", "AFTER"])
def test_unknown_enum_constant_used_in_scop(tmp_path, capsys, name):
    source = tmp_path / "used.c"
    source.write_text(LAZY.replace("USE", name))
    code, err = _compile(tmp_path, source, capsys)
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert re.match(rf"^{re.escape(str(source))}:7:\d+: error: enum constant '{name}' .*"
                    rf"the size of a struct .*defined at {re.escape(str(source))}:2\)$", lines[0]), lines[0]


# -- locations inside system headers -------------------------------------------------
SYSTEM_HEADER = """#pragma GCC system_header
/* a system header: only its typedefs reach the parser */
extern int library_call(int x);

typedef int first_t;   typedef struct { int a;
                                         double b; } pair_t;
extern double other_call(double);

struct big { double x[4]; };
typedef enum { HX = sizeof(struct big) } hx_t;
"""


def test_header_typedefs_keep_their_lines(tmp_path, capsys):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "sys.h").write_text(SYSTEM_HEADER)
    source = tmp_path / "uses_header.c"
    source.write_text('#include "sys.h"\n#include <omp.h>\n' + LAZY.replace("USE", "HX"))
    ast = parse(preprocess(str(source), (str(tmp_path / "inc"),)), str(source))
    where = {ext.name: ext.coord for ext in ast.ext if isinstance(ext, c_ast.Typedef)}
    assert (where["first_t"].line, where["first_t"].column) == (5, 13)
    assert (where["pair_t"].line, where["pair_t"].column) == (6, 54)
    assert where["omp_lock_t"].file.endswith("omp.h")
    omp_h = Path(where["omp_lock_t"].file).read_text().splitlines()
    for name in ("omp_lock_t", "omp_sched_t", "omp_memspace_handle_t"):
        assert name in omp_h[where[name].line - 1], name
    code, err = _compile(tmp_path, source, capsys, "-I", str(tmp_path / "inc"))
    assert code != 0
    assert re.search(r"enum constant 'HX' .*defined at .*sys\.h:10\)$", err.strip()), err


# -- which files keep their host code in C ---------------------------------------------
HOST_LANGUAGE = [
    ("void f(int n, int a[n]);", True),
    ("void f(int a[static 1]);", True),
    ("void f(int a[const 5]);", True),
    ("void f(int a[restrict]);", True),
    ("int f(a, b) int a; int b; { return a + b; }", True),
    ("f(a) int a; { return a; }", True),
    ("f() { return 1; }", True),
    ("void f(float *restrict p);", True),
    ("int new, class;", True),
    ("struct s { int this; };", True),
    ("void f(void) { int *p = malloc(4); }", True),
    ("void f(void) { int *p; p = calloc(1, 4); }", True),
    ("int *f(void) { return malloc(4); }", True),
    ("int f(int a[5], int n) { return a[n]; }", False),
    ("void f(void) { void *p = malloc(4); int *q = (int *) malloc(4); }", False),
    ("void *f(void) { return malloc(4); }", False),
    ("typedef int wchar_t; int f(int x) { return x; }", False),
    ("int main(void) { return 0; }", False),
]


@pytest.mark.parametrize("text,stays_c", HOST_LANGUAGE, ids=[t for t, _ in HOST_LANGUAGE])
def test_needs_c_host(text, stays_c):
    assert needs_c_host(parse(text, "x.c")) == stays_c


def test_k_and_r_definition_parses():
    definition = parse("main(argc, argv) int argc; char **argv; { return argc; }", "x.c").ext[0]
    assert isinstance(definition, c_ast.FuncDef)
    assert [d.name for d in definition.param_decls] == ["argc", "argv"]


K_AND_R_SCOP = """#include <stdio.h>
void scale(n, A) int n; double A[100];
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] * 2 + 1;
#pragma endscop
}
int main(void)
{
  static double A[100];
  for (int i = 0; i < 100; i++) A[i] = i % 7;
  scale(97, A);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: A\\n");
  for (int i = 0; i < 100; i++) fprintf(stderr, "%0.17g\\n", A[i]);
  fprintf(stderr, "end   dump: A\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


@pytest.mark.parametrize("target", ["cuda", "c", "opencl"])
def test_scop_in_a_k_and_r_definition(target, tmp_path):
    """The parameters' types come from the definition's declaration list."""
    source = tmp_path / "kr.c"
    source.write_text(K_AND_R_SCOP)
    report = verify(VerifyConfig(source, target=target), tmp_path / "work")
    assert report.ok, report.summary()


KEPT_KILL = """\
#include <stdio.h>
void __pencil_kill();
static void f(int n, double A[10])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] * 2 + 1;
  __pencil_kill(A);
#pragma endscop
}
int main(void)
{
  double A[10] = {0};
  f(10, A);
  printf("%g\\n", A[9]);
  return 0;
}
"""


def test_a_scop_kept_on_the_host_is_part_of_the_cxx_question(tmp_path):
    """Fuzz 2813:351: a SCoP left on the host as written (the compilation's last resort)
    keeps `__pencil_kill(A)` of a function declared `void __pencil_kill();`, which C++
    takes for no arguments: its lines count when asking whether the host file must stay C.
    Compiled normally, the SCoP's code is ppcg-py's (no call), and the host file is C++."""
    from ppcg_py.driver import compile_source
    from ppcg_py.options import Options
    from ppcg_py.stages import OnHost
    source = tmp_path / "k.c"
    source.write_text(KEPT_KILL)
    kept = compile_source(str(source), Options(output_dir=str(tmp_path)), on_host=OnHost(every=True))
    assert kept.host_name == "k_host.c"
    assert "__pencil_kill(A);" in dict(kept.items())["k_host.c"]
    compiled = compile_source(str(source), Options(output_dir=str(tmp_path)))
    assert compiled.host_name == "k_host.cu"
