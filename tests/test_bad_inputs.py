"""The bad-input corpus: every file in tests/bad_inputs/ must be rejected cleanly.

Each file says what it expects in its first lines:

    // args: --tile-sizes 0                (optional: options, shell syntax)
    // expect: 7:5: non-affine array subscript      (line:col: fragment of the message)
    // expect: option: --tile-sizes: ...            (an option error: no location)

A clean rejection is exactly one stderr line `FILE:LINE:COL: error: MESSAGE`
(for an option: `ppcg-py: error: ...` or `error: --option: ...`), a non-zero
exit, no "Traceback", the input unchanged byte for byte, and nothing left in
the output directory.

Aliasing: two pointer (or array) parameters are assumed not to overlap, as in
PPCG, pet and PolyBench, and as for OpenACC/OpenMP data clauses: rejecting
every unqualified pointer parameter would reject every PolyBench kernel
(`double A[N][M]` in a parameter list is a pointer too), and `restrict` adds
nothing the compiler could check. `test_pointer_parameters_are_assumed_distinct`
pins this decision down.
"""
from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ppcg_py.cli import main
from ppcg_py.verify.harness import VerifyConfig, verify

CORPUS = Path(__file__).parent / "bad_inputs"
ROOT = Path(__file__).resolve().parents[1]
_EXPECT = re.compile(r"^//\s*expect:\s*(?:(?P<line>\d+):(?P<col>\d+)|(?P<option>option)):\s*(?P<fragment>.+?)\s*$")
_ARGS = re.compile(r"^//\s*args:\s*(?P<args>.*)$")


@dataclass(frozen=True)
class Expectation:
    args: tuple[str, ...]
    line: int | None            # None: an option error
    col: int | None
    fragment: str


def expectation(path: Path) -> Expectation:
    args: tuple[str, ...] = ()
    for text in path.read_text().splitlines()[:3]:
        if m := _ARGS.match(text):
            args = tuple(shlex.split(m.group("args")))
        elif m := _EXPECT.match(text):
            if m.group("option"):
                return Expectation(args, None, None, m.group("fragment"))
            return Expectation(args, int(m.group("line")), int(m.group("col")), m.group("fragment"))
    raise AssertionError(f"{path.name}: no '// expect:' line")


FILES = sorted(CORPUS.glob("*.c"))


def test_corpus_is_large_enough():
    assert len(FILES) >= 50


def check_rejection(path: Path, exp: Expectation, code: int, err: str, out_dir: Path, before: bytes) -> None:
    assert code != 0, f"{path.name} was accepted"
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"expected one line, got:\n{err}"
    if exp.line is None:
        assert re.match(r"^(?:ppcg-py: )?error: ", lines[0]), lines[0]
        assert exp.fragment in lines[0], lines[0]
    else:
        m = re.match(rf"^{re.escape(str(path))}:(\d+):(\d+): error: (.+)$", lines[0])
        assert m, lines[0]
        assert (int(m.group(1)), int(m.group(2))) == (exp.line, exp.col), lines[0]
        assert exp.fragment in m.group(3), lines[0]
    assert "internal compiler error" not in lines[0]
    assert path.read_bytes() == before, "the input was modified"
    assert list(out_dir.iterdir()) == [], "an output file was left behind"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_bad_input_is_rejected_cleanly(path, tmp_path, capsys):
    exp = expectation(path)
    before = path.read_bytes()
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    try:
        code = main([*exp.args, "--output-dir", str(out_dir), str(path)])
    except SystemExit as exc:   # argparse errors exit from inside main()
        code = exc.code if isinstance(exc.code, int) else 1
    check_rejection(path, exp, code, capsys.readouterr().err, out_dir, before)


def _run_cli(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "ppcg_py", *args], capture_output=True, text=True,
                          env=env, cwd=cwd)


@pytest.mark.parametrize("name", ["zero_step", "option_tile_sizes_zero", "syntax_unbalanced_brace"])
def test_bad_input_in_a_subprocess(name, tmp_path):
    """The real command line: exit status, stderr and files as a user sees them."""
    path = CORPUS / f"{name}.c"
    exp = expectation(path)
    before = path.read_bytes()
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    proc = _run_cli([*exp.args, "--output-dir", str(out_dir), str(path)])
    check_rejection(path, exp, proc.returncode, proc.stderr, out_dir, before)


GOOD = """void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
"""


def _one_error_line(proc: subprocess.CompletedProcess[str], fragment: str) -> str:
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert fragment in lines[0], lines[0]
    return lines[0]


def test_missing_file(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    line = _one_error_line(_run_cli(["--output-dir", str(out), str(tmp_path / "nope.c")]), "no such file")
    assert line.startswith(f"{tmp_path / 'nope.c'}: error:")
    assert list(out.iterdir()) == []


def test_directory_as_input(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    _one_error_line(_run_cli(["--output-dir", str(out), str(tmp_path)]), "not a regular file")
    assert list(out.iterdir()) == []


def test_unreadable_file(tmp_path):
    src = tmp_path / "secret.c"
    src.write_text(GOOD)
    src.chmod(0)
    try:
        if os.access(src, os.R_OK):
            pytest.skip("running as a user who can read a mode-000 file (root)")
        out = tmp_path / "out"
        out.mkdir()
        _one_error_line(_run_cli(["--output-dir", str(out), str(src)]), "permission denied")
        assert list(out.iterdir()) == []
    finally:
        src.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_missing_output_directory(tmp_path):
    src = tmp_path / "good.c"
    src.write_text(GOOD)
    _one_error_line(_run_cli(["--output-dir", str(tmp_path / "missing"), str(src)]), "does not exist")
    assert not (tmp_path / "missing").exists()


def test_output_directory_is_a_file(tmp_path):
    src = tmp_path / "good.c"
    src.write_text(GOOD)
    target = tmp_path / "plain"
    target.write_text("x")
    _one_error_line(_run_cli(["--output-dir", str(target), str(src)]), "does not exist")
    assert target.read_text() == "x"


def test_unwritable_output_directory(tmp_path):
    src = tmp_path / "good.c"
    src.write_text(GOOD)
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        if os.access(out, os.W_OK):
            pytest.skip("running as a user who can write a read-only directory (root)")
        _one_error_line(_run_cli(["--output-dir", str(out), str(src)]), "cannot write output")
        assert list(out.iterdir()) == []
    finally:
        out.chmod(stat.S_IRWXU)


ALIASING = """#include <stdio.h>
#define N 50
static void shift(int n, double *A, double *B)
{
#pragma scop
  for (int i = 1; i < n; i++)
    B[i] = A[i - 1] + A[i];
  for (int i = 1; i < n; i++)
    A[i] = B[i] * 0.5;
#pragma endscop
}
int main(void)
{
  static double A[N], B[N];
  for (int i = 0; i < N; i++) { A[i] = i % 7; B[i] = 0; }
  shift(N - 3, A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: A\\n");
  for (int i = 0; i < N; i++) fprintf(stderr, "%0.17g\\n", A[i]);
  fprintf(stderr, "end   dump: A\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


def test_pointer_parameters_are_assumed_distinct(tmp_path):
    """Accepted, like PPCG: `A` and `B` are taken to be different arrays (see the module
    docstring). Called with distinct arrays, the result is right."""
    src = tmp_path / "alias.c"
    src.write_text(ALIASING)
    report = verify(VerifyConfig(source=src, use_nvcc=False), tmp_path / "work")
    assert report.ok, report.summary()
