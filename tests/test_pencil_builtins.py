"""PENCIL's built-ins (extract/pencil.py) in files that neither declare nor define
them, as held-out PENCIL programs call them: nothing of them is printed, so every
compiler of the output finds all it calls. The programs that verify the numbers on
three targets are the corpus's pencil_builtin_*.c; these tests look at the model and
the code."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import islpy as isl
import pytest

from ppcg_py.cli import main
from ppcg_py.extract import extract_scops

ASSUME = """void f(int n, int m, float A[100][100]) {
#pragma scop
  __pencil_assume(m > n);
  for (int i = 0; i < n; i++) {
    __pencil_assume(i < 50);
    for (int j = 0; j < m; j++)
      A[i][j] = A[i][j] + 1;
  }
#pragma endscop
}
"""
KILL = """void f(int n, float a[100], float b[100]) {
#pragma scop
  for (int i = 0; i < n; i++)
    b[i] = a[i] * 2;
  for (int i = 0; i < n; i++)
    a[i] = b[i] + 1;
  __pencil_kill(b);
#pragma endscop
}
"""
MIN_MAX = """void f(int n, int m, float A[100][100]) {
#pragma scop
  for (int i = 0; i < imin(n, 100); i++)
    for (int j = imax(0, i - 3); j < umin(m, 100); j++)
      A[i][j] = A[i][j] + imax(i, j) - umax(imin(i, 2), 1);
#pragma endscop
}
"""
OWN_MIN = """static int imin(int a, int b) { return a < b ? a - 0 * b : b; }
void f(int n, float A[100]) {
#pragma scop
  for (int i = 0; i < imin(n, 100); i++)
    A[i] = A[i] + imin(i, 7);
#pragma endscop
}
"""
BUILTINS = ("imin", "imax", "umin", "umax", "__pencil_assume", "__pencil_kill")


def _source(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "input.c"
    path.write_text(text)
    return path


def _outputs(path: Path, out: Path, target: str) -> dict[str, str]:
    out.mkdir()
    assert main([f"--target={target}", "--output-dir", str(out), str(path)]) == 0
    return {p.name: p.read_text() for p in out.iterdir()}


@pytest.mark.parametrize("target", ["cuda", "c", "opencl"])
@pytest.mark.parametrize("text", [ASSUME, KILL, MIN_MAX], ids=["assume", "kill", "min_max"])
def test_no_builtin_is_printed(text, target, tmp_path, capsys):
    files = _outputs(_source(tmp_path, text), tmp_path / "out", target)
    for name, content in files.items():
        scop = content[content.find("SCoP"):] if "SCoP" in content else content
        for builtin in BUILTINS:
            assert builtin + "(" not in scop, (name, content)
    assert "has no body in this file" not in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("text", [ASSUME, KILL, MIN_MAX], ids=["assume", "kill", "min_max"])
def test_nvcc_builds_the_output(text, tmp_path):
    files = _outputs(_source(tmp_path, text), tmp_path / "out", "cuda")
    for name in files:
        if name.endswith(".cu"):
            done = subprocess.run(["nvcc", "-c", str(tmp_path / "out" / name), "-o", str(tmp_path / f"{name}.o")],
                                  capture_output=True, text=True)
            assert done.returncode == 0, done.stderr


def test_assumptions_narrow_the_context(tmp_path):
    ctx = isl.Context()
    (scop,) = extract_scops(str(_source(tmp_path, ASSUME)), ctx)
    promised = isl.Set.read_from_str(ctx, "[n, m] -> { : m > n and n <= 50 }")
    assert scop.context.is_subset(promised.align_params(scop.context.get_space())), scop.context
    assert not scop.context.is_empty()
    assert all(s.name.startswith("S") for s in scop.statements)   # the assumptions are no statements


def test_a_killed_array_is_not_copied_back(tmp_path):
    ctx = isl.Context()
    (scop,) = extract_scops(str(_source(tmp_path, KILL)), ctx)
    live = {a.name: a.live_after for a in scop.arrays}
    assert live == {"a": True, "b": False}, live
    assert [k.array for k in scop.kills] == ["b"]
    host = _outputs(_source(tmp_path, KILL), tmp_path / "out", "cuda")["input_host.cu"]
    assert "cudaMemcpy((float *) a, dev_a" in host, host
    assert "cudaMemcpy((float *) b, dev_b" not in host, host


def test_an_array_written_after_its_kill_stays_live(tmp_path):
    text = KILL.replace("  __pencil_kill(b);\n", "  __pencil_kill(b);\n  for (int i = 0; i < n; i++)\n"
                        "    b[i] = 3;\n")
    ctx = isl.Context()
    (scop,) = extract_scops(str(_source(tmp_path, text)), ctx)
    assert {a.name: a.live_after for a in scop.arrays} == {"a": True, "b": True}


def test_a_file_that_defines_imin_keeps_its_own(tmp_path):
    """Not a built-in there: the file's function is inlined (its `a - 0 * b` shows)."""
    files = _outputs(_source(tmp_path, OWN_MIN), tmp_path / "out", "c")
    code = files["input.ppcg.c"]
    scop = code[code.index("SCoP"):]
    assert "0 * " in scop, scop


EMPTIED = """void f(int n, int p, double A[100]) {
#pragma scop
  __pencil_assume(p >= 13);
  for (int i = 0; i < n; i++)
    if (p < 5)
      A[i] = 1;
  for (int i = 0; i < n; i++)
    A[i] = A[i] + 2;
#pragma endscop
}
"""
KILL_BESIDE_CALL = """int ext_draw(void);
void __pencil_kill();
void f(int n, int A[18], int B[18]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = B[i] + ext_draw();
  for (int i = 0; i < n; i++)
    B[i] = A[i] * 2;
  __pencil_kill(A);
#pragma endscop
}
"""


def test_a_statement_the_assumption_empties(tmp_path):
    """Its instances leave with the parameters the promise excludes (the dependences of
    an instance set the schedule no longer had were an internal error: fuzz forms1:43)."""
    ctx = isl.Context()
    (scop,) = extract_scops(str(_source(tmp_path, EMPTIED)), ctx)
    assert [s.domain.is_empty() for s in scop.statements] == [True, False]
    files = _outputs(_source(tmp_path, EMPTIED), tmp_path / "out", "cuda")
    assert "= 1;" not in files["input_kernel.cu"]


def test_a_kill_beside_a_call_keeps_the_host_file_cxx(tmp_path):
    """`void __pencil_kill();` called with an argument is no C++, but the call is in the
    SCoP, which the output replaces: only what stays is asked of g++ (fuzz forms1:6)."""
    files = _outputs(_source(tmp_path, KILL_BESIDE_CALL), tmp_path / "out", "cuda")
    assert "input_host.cu" in files and "input_host.c" not in files
