"""Empty SCoPs (issue 24): a `#pragma scop` region with nothing to run stays as written,
with one warning `file:line: warning: empty SCoP` (the line of its `#pragma scop`), and
the compilation succeeds; the file's other SCoPs are compiled as usual."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ppcg_py.cli import main

HOST = {"cuda": "{}_host.cu", "c": "{}.ppcg.c", "opencl": "{}_host.c"}

EMPTY_BODIES = {
    "nothing": "",
    "declaration": "  double t;\n",
    "empty_statements": "  ;\n  {}\n  ;\n",
    "block_with_declaration": "  {\n    int unused;\n  }\n",
    "loop_that_never_runs": "  for (int k = n; k < n; k++)\n    A[k] = 0.0;\n",
}


def _compile(tmp_path: Path, source: str, target: str, capsys) -> tuple[int, str, bytes]:
    src = tmp_path / "input.c"
    src.write_text(source)
    out = tmp_path / target
    out.mkdir()
    code = main([f"--target={target}", "--output-dir", str(out), str(src)])
    err = capsys.readouterr().err
    host = out / HOST[target].format("input")
    return code, err, host.read_bytes() if host.exists() else b""


@pytest.mark.parametrize("target", ["cuda", "c", "opencl"])
@pytest.mark.parametrize("body", sorted(EMPTY_BODIES))
def test_only_scop_is_empty(tmp_path, capsys, target, body):
    source = ("#include <stdio.h>\nvoid f(int n, double A[100])\n{\n#pragma scop\n"
              f"{EMPTY_BODIES[body]}#pragma endscop\n  A[0] = n;\n}}\n")
    code, err, out = _compile(tmp_path, source, target, capsys)
    assert code == 0, err
    assert err == f"{tmp_path / 'input.c'}:4: warning: empty SCoP\n"
    assert source.encode() in out   # the whole input, the region too, byte for byte
    assert b"SCoP of" not in out


@pytest.mark.parametrize("target", ["cuda", "c", "opencl"])
def test_empty_scops_beside_others(tmp_path, capsys, target):
    empty_1 = "#pragma scop\n  double t;\n#pragma endscop\n"
    empty_2 = "#pragma scop\n#pragma endscop\n"
    before = "#include <stdio.h>\nvoid f(int n, double A[100], double B[100])\n{\n"
    full = "#pragma scop\n  for (int i = 0; i < n; i++)\n    A[i] = 2.0 * B[i];\n#pragma endscop\n"
    between = "  B[0] = 1.0;\n"
    source = before + empty_1 + between + full + empty_2 + "}\n"
    code, err, out = _compile(tmp_path, source, target, capsys)
    assert code == 0, err
    path = tmp_path / "input.c"
    assert err.splitlines() == [f"{path}:4: warning: empty SCoP", f"{path}:12: warning: empty SCoP"]
    assert "Traceback" not in err
    text = out.decode()
    assert (before + empty_1 + between) in text
    assert text.count("SCoP of f") == 1 and re.search(r"SCoP of f, lines 8-11", text)
    assert text.index("SCoP of f") < text.index(empty_2 + "}\n")


def test_empty_scop_is_no_error_for_dumps(tmp_path, capsys):
    src = tmp_path / "input.c"
    src.write_text("void f(int n)\n{\n#pragma scop\n#pragma endscop\n}\n")
    assert main(["--dump-after=extract", "--output-dir", str(tmp_path), str(src)]) == 0
    captured = capsys.readouterr()
    assert captured.err == f"{src}:3: warning: empty SCoP\n"
    assert "# no SCoP" in captured.out
