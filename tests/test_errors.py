"""Rejected inputs: one located line on stderr, non-zero exit, no outputs, input untouched."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ppcg_py.cli import main

HEADER = "#include <stdio.h>\n#include <math.h>\n"

# (name, function body or whole file, expected line, expected message fragment)
CASES = [
    ("may_access_without_size", """void f(int n, int P[100], double *A) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[P[i]] = 1.0;
#pragma endscop
}""", 6, "has no declared size"),
    ("return_in_while", """void f(int n, double A[100]) {
#pragma scop
  for (int i = 0; i < n; i++)
    while (A[i] > 0)
      return;
#pragma endscop
}""", 7, "unsupported statement in SCoP (return)"),
    ("zero_step", """void f(int n, double A[100]) {
#pragma scop
  for (int i = 0; i < n; i -= 0)
    A[i] = 0.0;
#pragma endscop
}""", 5, "step by a non-zero constant"),
    ("syntax_error", """void f(int n, double A[100]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = ;
#pragma endscop
}""", 6, "error"),
    ("call_through_pointer", """void f(int n, double A[100], double (*g)(double)) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = g(A[i]);
#pragma endscop
}""", 6, "call through the function pointer 'g'"),
    ("iterator_written", """void f(int n, double A[100]) {
#pragma scop
  for (int i = 0; i < n; i++)
    i = 3;
#pragma endscop
}""", 6, "loop iterator 'i' is written"),
    ("unterminated_scop", """void f(int n, double A[100]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = 0.0;
}""", 4, "without a matching #pragma endscop"),
    ("pointer_arithmetic", """void f(int n, double *A) {
#pragma scop
  for (int i = 0; i < n; i++)
    *(A + i) = 0.0;
#pragma endscop
}""", 6, "pointer operation"),
]


def _run(tmp_path: Path, argv: list[str], capsys) -> tuple[int, str]:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    code = main([*argv, "--output-dir", str(out)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("name,body,line,fragment", CASES, ids=[c[0] for c in CASES])
def test_rejected_input(tmp_path, capsys, name, body, line, fragment):
    src = tmp_path / f"{name}.c"
    src.write_text(HEADER + body + "\n")
    before = src.read_bytes()
    code, err = _run(tmp_path, [str(src)], capsys)
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    m = re.match(rf"^{re.escape(str(src))}:(\d+):(\d+): error: (.+)$", lines[0])
    assert m, lines[0]
    assert int(m.group(1)) == line, lines[0]
    assert fragment in m.group(3), lines[0]
    assert "Traceback" not in err
    assert src.read_bytes() == before
    assert list((tmp_path / "out").iterdir()) == []


def test_missing_file(tmp_path, capsys):
    code, err = _run(tmp_path, [str(tmp_path / "nope.c")], capsys)
    assert code != 0
    assert err.strip() == f"{tmp_path / 'nope.c'}: error: cannot read input: no such file"
    assert list((tmp_path / "out").iterdir()) == []


def test_bad_sizes_option(tmp_path, capsys):
    src = tmp_path / "ok.c"
    src.write_text("void f(int n, double A[100]) {\n#pragma scop\n  for (int i = 0; i < n; i++)\n"
                   "    A[i] = 0.0;\n#pragma endscop\n}\n")
    code, err = _run(tmp_path, [str(src), "--sizes", "{ kernel[0] -> tile[32,"], capsys)
    assert code != 0
    assert err.strip().splitlines()[0].startswith("error: --sizes: cannot parse")
    assert list((tmp_path / "out").iterdir()) == []


def test_unknown_option_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--no-such-option", "x.c"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "ppcg-py: error: unrecognized arguments: --no-such-option"


def test_missing_output_dir(tmp_path, capsys):
    src = tmp_path / "ok.c"
    src.write_text("void f(int n, double A[100]) {\n#pragma scop\n  for (int i = 0; i < n; i++)\n"
                   "    A[i] = 0.0;\n#pragma endscop\n}\n")
    code = main([str(src), "--output-dir", str(tmp_path / "missing")])
    err = capsys.readouterr().err
    assert code != 0 and "output directory" in err and len(err.strip().splitlines()) == 1


def test_warnings_are_one_located_line_each_in_the_order_reported(capsys):
    from ppcg_py.diagnostics import Diagnostics
    diagnostics = Diagnostics()
    diagnostics.warn("first", "a.c", 3, 1)
    diagnostics.warn("second", "a.c")
    diagnostics.warn("third")
    expected = ["a.c:3:1: warning: first", "a.c: warning: second", "warning: third"]
    assert diagnostics.warnings == expected
    assert capsys.readouterr().err.splitlines() == expected
