"""The front-end corpus (issue 14): small C programs of forms real projects write.

Each file in tests/front_end_corpus/ says in its first lines what it covers and,
when it must be rejected, the one-line located message (as tests/bad_inputs/):

    // covers: an iterator read after its loop ...
    // expect: 11:7: non-affine array subscript: 'k'      (rejections only)
    // args: --tile-sizes 4                               (optional)

An accepted program has a `main` that runs its SCoP's function on several sizes
(some make loops run zero times) and dumps the arrays: it must compile, pass nvcc
(when installed) and verify in the CUDA emulation in both thread orders against
gcc's build of the original; its host file must keep the input's bytes outside the
SCoPs (a byte-order mark first, CRLF line ends, Latin-1 bytes). The programs about
file encodings and about calls (`call_*`: inlined, so every target prints them) also
verify with --target=c; those about dynamic control (`dd_*`), structs (`struct_*`), access
summaries (`pencil_*`), arrays declared in a SCoP (`local_array_*`), empty SCoPs
(`empty_scop_*`: left as written, with a warning), calls to functions without a body
(`ext_*`, linked with the file a `// link:` line names), loops without a start or bound
(`loop_*`), sizes (`size_*`), array arguments (`call_arg_*`) and iterators kept in memory
with --target=c and --target=opencl.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ppcg_py.cli import main
from ppcg_py.codegen.source import escape_bytes_in_literals
from ppcg_py.verify.harness import VerifyConfig, verify

from test_bad_inputs import Expectation, check_rejection

CORPUS = Path(__file__).parent / "front_end_corpus"
FILES = sorted(CORPUS.glob("*.c"))
BOM = b"\xef\xbb\xbf"
_EXPECT = re.compile(r"^//\s*expect:\s*(?P<line>\d+):(?P<col>\d+):\s*(?P<fragment>.+?)\s*$")
_ARGS = re.compile(r"^//\s*args:\s*(?P<args>.*?)\s*$")
_LINK = re.compile(r"^//\s*link:\s*(?P<files>.*?)\s*$")
_SCOP_START = re.compile(rb"#\s*pragma\s+scop\b|_Pragma\s*\(\s*\"scop\"\s*\)|^\s*SCOP\s*$")
_SCOP_END = re.compile(rb"#\s*pragma\s+endscop\b|_Pragma\s*\(\s*\"endscop\"\s*\)|^\s*ENDSCOP\s*$")
# the programs also checked with the C target and on OpenCL
ALL_TARGETS = ("dd_", "flat_", "struct_", "pencil_", "local_array_", "ext_", "empty_scop_", "loop_", "size_", "call_arg_",
               "exit_in_memory")
# the forms of a file (rather than of its C): also checked with the C target
FILE_FORMS = ("latin1", "bom", "crlf", "line_directive", "pragma_operator", "form_feed")


def header(path: Path) -> tuple[tuple[str, ...], Expectation | None]:
    """The options and, for a program that must be rejected, what is expected."""
    args: tuple[str, ...] = ()
    expected = None
    for text in path.read_bytes().removeprefix(BOM).decode("latin-1").splitlines():
        if not text.startswith("//"):
            break
        if m := _ARGS.match(text):
            args = tuple(shlex.split(m.group("args")))
        elif m := _EXPECT.match(text):
            expected = Expectation(args, int(m.group("line")), int(m.group("col")), m.group("fragment"))
    return args, expected


def linked(path: Path) -> tuple[str, ...]:
    """The C files (`// link: lib/x.c`, beside the program) that define the functions it
    only declares: linked with both the original and the output."""
    for text in path.read_bytes().removeprefix(BOM).decode("latin-1").splitlines():
        if not text.startswith("//"):
            break
        if m := _LINK.match(text):
            return tuple(str(path.parent / f) for f in m.group("files").split())
    return ()


ACCEPTED = [p for p in FILES if header(p)[1] is None]
REJECTED = [p for p in FILES if header(p)[1] is not None]


def test_corpus_covers_the_points():
    assert len(FILES) >= 40
    for prefix in ("label_", "exit_", "affine_", "reject_", "call_", "dd_", "struct_", "pencil_"):
        assert sum(p.stem.startswith(prefix) for p in FILES) >= 5, prefix
    for form in FILE_FORMS:
        assert any(form in p.stem for p in ACCEPTED), form


@pytest.mark.parametrize("path", ACCEPTED, ids=[p.stem for p in ACCEPTED])
def test_program_verifies(path, tmp_path):
    args, _ = header(path)
    extra = linked(path)
    report = verify(VerifyConfig(source=path, ppcg_args=args, extra_c_sources=extra), tmp_path / "cuda")
    assert report.ok, report.summary()
    if any(form in path.stem for form in FILE_FORMS) or path.stem.startswith(("call_",) + ALL_TARGETS):
        report = verify(VerifyConfig(source=path, ppcg_args=args, target="c", threads=(1, 2),
                                     extra_c_sources=extra), tmp_path / "c")
        assert report.ok, report.summary()
    if path.stem.startswith(ALL_TARGETS):   # source C in kernels, struct types, host calls: OpenCL too
        report = verify(VerifyConfig(source=path, ppcg_args=args, target="opencl", extra_c_sources=extra),
                        tmp_path / "opencl")
        assert report.ok, report.summary()


def _outside_scops(data: bytes) -> list[bytes]:
    """The input's bytes outside its SCoPs, in runs of whole lines (the BOM apart)."""
    runs, current, inside = [], b"", False
    for line in data.removeprefix(BOM).split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n"):
        if not inside and _SCOP_START.search(line) and not line.lstrip().startswith(b"#define"):
            runs.append(current)
            current, inside = b"", True
        elif inside:
            inside = not _SCOP_END.search(line)
        else:
            current += line + b"\n"
    return [*runs, current]


@pytest.mark.parametrize("target", ["cuda", "c", "opencl"])
@pytest.mark.parametrize("path", ACCEPTED, ids=[p.stem for p in ACCEPTED])
def test_output_keeps_the_input_bytes(path, target, tmp_path, capsys):
    data = path.read_bytes()
    if target == "cuda":   # nvcc: octal escapes in literals, same strings
        data = escape_bytes_in_literals(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    assert main([*header(path)[0], f"--target={target}", "--output-dir", str(tmp_path), str(path)]) == 0
    host = {"cuda": f"{path.stem}_host.c*", "c": f"{path.stem}.ppcg.c", "opencl": f"{path.stem}_host.c"}[target]
    out = next(tmp_path.glob(host)).read_bytes()    # CUDA: NAME_host.c with VLA parameters
    assert out.startswith(BOM) == data.startswith(BOM)
    assert out.count(BOM) == data.count(BOM)
    at = 0
    for run in _outside_scops(data):
        found = out.find(run, at)
        assert found >= 0, f"not in the output: {run[:200]!r}"
        at = found + len(run)
    # every SCoP was found and replaced (a file whose SCoP is missed is copied, and verifies),
    # but an empty one, which stays as written, with a warning
    empty = capsys.readouterr().err.count(": warning: empty SCoP")
    assert len(re.findall(rb"/\* SCoP of \w+(?:, lines|:)", out)) + empty == len(_outside_scops(data)) - 1 >= 1
    if b"\r\n" in data:   # every line ppcg-py writes ends as the input's
        assert out.count(b"\n") == out.count(b"\r\n")


@pytest.mark.parametrize("path", REJECTED, ids=[p.stem for p in REJECTED])
def test_program_is_rejected(path, tmp_path, capsys):
    _, expected = header(path)
    before = path.read_bytes()
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code = main([*expected.args, "--output-dir", str(out_dir), str(path)])
    check_rejection(path, expected, code, capsys.readouterr().err, out_dir, before)


def test_labels_name_their_statements(capsys, tmp_path):
    assert main(["--dump-scop", "--output-dir", str(tmp_path), str(CORPUS / "label_in_loop_body.c")]) == 0
    dump = capsys.readouterr().out
    assert re.search(r"S_0 \(line \d+, label S1\)", dump), dump
    assert re.search(r"S_1 \(line \d+, label S2\)", dump), dump


def test_stacked_labels_and_unnamed_ones(capsys, tmp_path):
    assert main(["--dump-scop", "--output-dir", str(tmp_path), str(CORPUS / "label_stacked.c")]) == 0
    dump = capsys.readouterr().out
    assert "label L1, B)" in dump and "label then)" in dump and "label other)" in dump, dump
    assert main(["--dump-scop", "--output-dir", str(tmp_path), str(CORPUS / "label_on_loop_and_block.c")]) == 0
    assert "label" not in capsys.readouterr().out   # labels of a loop, a block, an if name nothing


def test_dump_of_a_latin1_file(tmp_path):
    """--dump-after=print quotes the input: its Latin-1 bytes come out as they are, even
    where stdout is strict UTF-8."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(CORPUS.parents[1])}
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--dump-after=print", "--output-dir", str(tmp_path),
                           str(CORPUS / "latin1_comment.c")], capture_output=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "caf\xe9 cr\xe8me".encode("latin-1") in proc.stdout
