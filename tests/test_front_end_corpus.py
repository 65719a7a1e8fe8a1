"""The front-end corpus: small C programs in tests/front_end_corpus/, each with a `main`
that dumps its arrays.

A program's first lines say what it covers and, for one that must be rejected, the
error, as in tests/bad_inputs/ (`// expect: LINE:COL: fragment of the message`;
`// args: ...` gives options). A program with no `expect` line must compile and
give gcc's results in the CPU emulation of CUDA in both thread orders, and on the
C target.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from ppcg_py.cli import main
from ppcg_py.verify.harness import VerifyConfig, verify

CORPUS = Path(__file__).parent / "front_end_corpus"
FILES = sorted(CORPUS.glob("*.c"))
_EXPECT = re.compile(r"^//\s*expect:\s*(?P<line>\d+):(?P<col>\d+):\s*(?P<fragment>.+?)\s*$")
_ARGS = re.compile(r"^//\s*args:\s*(?P<args>.*)$")


def _header(path: Path) -> tuple[tuple[str, ...], re.Match | None]:
    args: tuple[str, ...] = ()
    expect = None
    for text in path.read_text(encoding="latin-1").splitlines()[:3]:
        if m := _ARGS.match(text):
            args = tuple(shlex.split(m.group("args")))
        elif m := _EXPECT.match(text):
            expect = m
    return args, expect


@pytest.mark.parametrize("target", ["cuda", "c"])
@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_corpus_program(path, target, tmp_path, capsys):
    args, expect = _header(path)
    if expect is not None:
        if target != "cuda":
            pytest.skip("a rejection is checked once")
        out = tmp_path / "out"
        out.mkdir()
        code = main([*args, "--output-dir", str(out), str(path)])
        lines = capsys.readouterr().err.strip().splitlines()
        assert code != 0, f"{path.name} was accepted"
        assert len(lines) == 1, lines
        m = re.match(rf"^{re.escape(str(path))}:(\d+):(\d+): error: (.+)$", lines[0])
        assert m, lines[0]
        assert (m.group(1), m.group(2)) == (expect.group("line"), expect.group("col")), lines[0]
        assert expect.group("fragment") in m.group(3), lines[0]
        assert list(out.iterdir()) == []
        return
    report = verify(VerifyConfig(source=path, ppcg_args=args, use_nvcc=False, target=target, threads=(1, 2)),
                    tmp_path / "work")
    assert report.ok, report.summary()
