"""ppcg-py as a step of a C build: dependency rules (-M, -MD, -MF, -MT), outputs written
all or none, and the examples in examples/make and examples/cmake built from scratch with
the real make and cmake: the programs compute what gcc's build of the C sources computes
(the CUDA one through the CPU emulation of CUDA, or on a GPU where there is one), a
touched header reruns ppcg-py, and an up-to-date build reruns nothing."""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ppcg_py.cli import build_parser, main
from ppcg_py.driver import write_outputs
from ppcg_py.verify.emulate import build_emulated, run_emulated
from ppcg_py.verify.nvcc import nvcc_path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
PPCG_PY = f"{sys.executable} -m ppcg_py"    # this checkout, whatever ppcg-py is on the PATH

HEADER = "#define N 64\n#define MID(a, b, c) (((a) + (b) + (c)) / 3.0)\n"
SOURCE = """#include "params.h"
void smooth(double A[N], double B[N])
{
#pragma scop
  for (int i = 1; i < N - 1; i++)
    B[i] = MID(A[i - 1], A[i], A[i + 1]);
#pragma endscop
}
"""
OUTPUTS = ("small_host.cu", "small_kernel.cu", "small_kernel.hu")


def _project(tmp_path: Path) -> Path:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "params.h").write_text(HEADER)
    src = tmp_path / "small.c"
    src.write_text(SOURCE)
    (tmp_path / "out").mkdir()
    return src


def _rule(text: str) -> tuple[list[str], list[str], list[str]]:
    """Targets, prerequisites and phony targets of a one-rule dependency file."""
    rules = [line for line in text.replace("\\\n", " ").splitlines() if line.strip()]
    targets, prerequisites = rules[0].split(":", 1)
    phony = [line.rstrip(":").strip() for line in rules[1:]]
    assert all(line.endswith(":") for line in rules[1:]), text
    return targets.split(), prerequisites.split(), phony


def _check_rule(text: str, targets: list[str], tmp_path: Path) -> None:
    got_targets, prerequisites, phony = _rule(text)
    assert got_targets == targets
    assert prerequisites[0] == str(tmp_path / "small.c")
    header = str(tmp_path / "inc" / "params.h")
    assert header in prerequisites
    assert header in phony and str(tmp_path / "small.c") not in phony   # -MP: headers only


def test_M_prints_the_rule_and_writes_nothing(tmp_path, capsys):
    src = _project(tmp_path)
    out = tmp_path / "out"
    assert main(["-M", "-I", str(tmp_path / "inc"), "--output-dir", str(out), str(src)]) == 0
    _check_rule(capsys.readouterr().out, [str(out / name) for name in OUTPUTS], tmp_path)
    assert list(out.iterdir()) == []


def test_MD_writes_the_rule_beside_the_outputs(tmp_path, capsys):
    src = _project(tmp_path)
    out = tmp_path / "out"
    assert main(["-MD", f"-I{tmp_path / 'inc'}", "--output-dir", str(out), str(src)]) == 0
    assert capsys.readouterr().out == ""
    assert sorted(p.name for p in out.iterdir()) == sorted([*OUTPUTS, "small_host.cu.d"])
    _check_rule((out / "small_host.cu.d").read_text(), [str(out / name) for name in OUTPUTS], tmp_path)


def test_outputs_in_the_current_directory_are_named_as_make_names_them(tmp_path, monkeypatch, capsys):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["-M", "-Iinc", "small.c"]) == 0
    targets, prerequisites, phony = _rule(capsys.readouterr().out)
    assert targets == list(OUTPUTS)
    assert prerequisites[0] == "small.c" and "inc/params.h" in prerequisites and "inc/params.h" in phony


def test_MF_and_MT(tmp_path):
    src = _project(tmp_path)
    out = tmp_path / "out"
    depfile = out / "deps.d"
    assert main(["-MD", "-MF", str(depfile), "-MT", "gen", "-MT", "stamp", "-I", str(tmp_path / "inc"),
                 "--output-dir", str(out), str(src)]) == 0
    _check_rule(depfile.read_text(), ["gen", "stamp"], tmp_path)
    assert (out / OUTPUTS[0]).exists() and not (out / "small_host.cu.d").exists()
    # -M -MF: the rule in the file, still no output
    (tmp_path / "only").mkdir()
    assert main(["-M", "-MF", str(tmp_path / "only.d"), "-I", str(tmp_path / "inc"),
                 "--output-dir", str(tmp_path / "only"), str(src)]) == 0
    assert list((tmp_path / "only").iterdir()) == []
    assert _rule((tmp_path / "only.d").read_text())[0] == [str(tmp_path / "only" / n) for n in OUTPUTS]


def test_MF_alone_is_a_usage_error(tmp_path, capsys):
    src = _project(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["-MF", str(tmp_path / "x.d"), str(src)])
    assert exc.value.code == 2
    assert "-MF and -MT need -M or -MD" in capsys.readouterr().err


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}


def test_a_failed_compilation_leaves_the_previous_outputs(tmp_path, capsys):
    src = _project(tmp_path)
    out = tmp_path / "out"
    args = ["-MD", "-I", str(tmp_path / "inc"), "--output-dir", str(out), str(src)]
    assert main(args) == 0
    before = _snapshot(out)
    src.write_text(SOURCE.replace("B[i] = ", "B[i] = = "))          # a located error
    bad = src.read_bytes()
    assert main(args) == 1
    assert "error" in capsys.readouterr().err
    assert _snapshot(out) == before and src.read_bytes() == bad
    (tmp_path / "inc" / "params.h").unlink()                       # a missing header
    src.write_text(SOURCE)
    assert main(args) == 1
    assert _snapshot(out) == before


def test_a_failed_write_leaves_the_previous_outputs_and_no_temporary_file(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    first = write_outputs({"a_host.cu": "host 1", "a_kernel.cu": "kernel 1"}, str(out))
    assert first == [str(out / "a_host.cu"), str(out / "a_kernel.cu")]
    before = _snapshot(out)
    with pytest.raises(TypeError):   # an internal error while writing the second file
        write_outputs({"a_host.cu": "host 2", "a_kernel.cu": None}, str(out))
    assert _snapshot(out) == before
    with pytest.raises(Exception, match="cannot write output"):   # a dependency file nowhere
        write_outputs({"a_host.cu": "host 2"}, str(out), [(str(tmp_path / "missing" / "a.d"), "")])
    assert _snapshot(out) == before


def test_outputs_get_the_mode_of_a_plain_open(tmp_path):
    mask = os.umask(0o022)
    try:
        write_outputs({"a_host.cu": "x"}, str(tmp_path))
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "a_host.cu").stat().st_mode) == 0o644


def test_an_output_that_is_the_input_is_refused(tmp_path, capsys):
    src = _project(tmp_path)
    before = src.read_bytes()
    assert main(["-MD", "-MF", str(src), "-I", str(tmp_path / "inc"),
                 "--output-dir", str(tmp_path / "out"), str(src)]) == 1
    assert "it is the input" in capsys.readouterr().err
    assert src.read_bytes() == before and list((tmp_path / "out").iterdir()) == []


@pytest.mark.parametrize("target, output, written", [
    ("c", "fast.c", ["fast.c"]),
    ("opencl", "fast.c", ["fast.c", "fast_kernel.cl"]),
    ("cuda", "fast.cu", ["fast.cu", "small_kernel.cu", "small_kernel.hu"]),
])
def test_o_names_the_output_as_ppcg_does(tmp_path, capsys, target, output, written):
    """`-o` is the C target's file, and the host file of the others; OpenCL's kernel
    file takes its name from it, CUDA's keep the input's (PPCG's conventions), and the
    host file refers to them by those names. A Make rule `fast.c: small.c` then holds."""
    src = _project(tmp_path)
    args = ["--target", target, "-I", str(tmp_path / "inc"), "-o", str(tmp_path / "out" / output), str(src)]
    assert main(args + (["--openmp"] if target == "c" else [])) == 0, capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(written)
    host = (tmp_path / "out" / output).read_text()
    assert all(name in host for name in written[1:] if name.endswith((".cl", ".hu"))), host


def test_o_that_names_a_kernel_file_is_refused(tmp_path, capsys):
    src = _project(tmp_path)
    assert main(["-I", str(tmp_path / "inc"), "-o", str(tmp_path / "out" / "small_kernel.cu"), str(src)]) == 1
    assert "two outputs have that name" in capsys.readouterr().err
    assert list((tmp_path / "out").iterdir()) == []


# --- the examples, built with the real tools -----------------------------------------------

def _has_c_target() -> bool:
    target = next(a for a in build_parser()._actions if a.dest == "target")   # noqa: SLF001
    return "c" in (target.choices or ())


def _gpu() -> bool:
    smi = shutil.which("nvidia-smi")
    return smi is not None and subprocess.run([smi], capture_output=True).returncode == 0


def _checksum(text: str) -> float:
    match = re.search(r"checksum (\S+)", text)
    assert match, text
    return float(match.group(1))


def _reference(example: Path, tmp_path: Path) -> float:
    """What the sources compute when gcc builds them as they are."""
    exe = tmp_path / "reference"
    subprocess.run(["gcc", "-O1", f"-I{example / 'include'}", example / "main.c", example / "jacobi.c",
                    "-o", exe], check=True)
    return _checksum(subprocess.run([exe], capture_output=True, text=True, check=True).stdout)


def _emulated(host: Path, kernel: Path, example: Path, tmp_path: Path) -> float:
    """The generated CUDA files with main.c, run on the CPU (forward and reverse thread order)."""
    exe = tmp_path / "emulated"
    build_emulated([host, kernel], exe, c_sources=[example / "main.c"], include_dirs=[example / "include"])
    sums = [_checksum(run_emulated(exe, order).stdout) for order in ("forward", "reverse")]
    assert sums[0] == sums[1]
    return sums[0]


def _make(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", f"PPCG_PY={PPCG_PY}", *args], cwd=folder,
                          env=ENV, capture_output=True, text=True)


def _newer(path: Path, than: Path) -> None:
    """Touch `path` now, once now is later than every file under `than` (the build)."""
    latest = max(p.stat().st_mtime for p in than.rglob("*"))
    time.sleep(max(0.0, latest - time.time() + 0.01))
    os.utime(path)


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_example(tmp_path):
    work = tmp_path / "make"
    shutil.copytree(EXAMPLES / "make", work)
    generated = [work / name for name in ("jacobi_host.cu", "jacobi_kernel.cu", "jacobi_kernel.hu")]
    # with nvcc the whole program; without it the generated sources (make's own rule still)
    goals = [] if nvcc_path() else ["jacobi_host.cu"]
    built = _make(work, *goals)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "-MD jacobi.c" in built.stdout
    assert "include/jacobi.h" in (work / "jacobi_host.cu.d").read_text()
    expected = _reference(work, tmp_path)
    assert _emulated(generated[0], generated[1], work, tmp_path) == pytest.approx(expected, rel=1e-12)
    if _gpu():
        assert _checksum(subprocess.run([work / "jacobi"], capture_output=True, text=True,
                                        check=True).stdout) == pytest.approx(expected, rel=1e-9)

    assert _make(work, "-q", *goals).returncode == 0, "an up-to-date build would do something"
    stamps = [p.stat().st_mtime_ns for p in generated]
    _newer(work / "include" / "jacobi.h", work)
    assert _make(work, "-q", *goals).returncode == 1
    rebuilt = _make(work, *goals)
    assert rebuilt.returncode == 0 and "-MD jacobi.c" in rebuilt.stdout, rebuilt.stdout + rebuilt.stderr
    assert all(p.stat().st_mtime_ns > t for p, t in zip(generated, stamps))
    assert _make(work, "-q", *goals).returncode == 0


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_example_c_target(tmp_path):
    if not _has_c_target():
        pytest.skip("ppcg-py has no --target=c yet (the rule `%.ppcg.c: %.c` in examples/make is untested)")
    work = tmp_path / "make"
    shutil.copytree(EXAMPLES / "make", work)
    built = _make(work, "jacobi-omp")
    assert built.returncode == 0, built.stdout + built.stderr
    run = subprocess.run([work / "jacobi-omp"], capture_output=True, text=True, check=True,
                         env={**ENV, "OMP_NUM_THREADS": "2"})
    assert _checksum(run.stdout) == pytest.approx(_reference(work, tmp_path), rel=1e-12)
    assert _make(work, "-q", "jacobi-omp").returncode == 0
    _newer(work / "include" / "jacobi.h", work)
    rebuilt = _make(work, "jacobi-omp")
    assert "--target=c" in rebuilt.stdout, rebuilt.stdout + rebuilt.stderr


def _cmake() -> str | None:
    cmake = shutil.which("cmake")
    if cmake is None:
        return None
    version = re.search(r"(\d+)\.(\d+)", subprocess.run([cmake, "--version"], capture_output=True,
                                                        text=True).stdout)
    return cmake if version and (int(version[1]), int(version[2])) >= (3, 20) else None


GENERATORS = [pytest.param("Unix Makefiles", id="make"),
              pytest.param("Ninja", id="ninja", marks=pytest.mark.slow)]


@pytest.mark.parametrize("generator", GENERATORS)
def test_cmake_example(generator, tmp_path):
    cmake = _cmake()
    if cmake is None:
        pytest.skip("no cmake >= 3.20 (.ci/run installs Debian's)")
    if generator == "Ninja" and shutil.which("ninja") is None:
        pytest.skip("no ninja")
    with_cuda = nvcc_path() is not None
    with_omp = _has_c_target()
    if not (with_cuda or with_omp):
        pytest.skip("neither nvcc nor ppcg-py --target=c: nothing the example can build")
    source = tmp_path / "examples"
    shutil.copytree(EXAMPLES, source, ignore=shutil.ignore_patterns("*.o", "*.d", "jacobi*_*.c*", "*.hu"))
    build = tmp_path / "build"
    configure = subprocess.run(
        [cmake, "-G", generator, "-S", source / "cmake", "-B", build,
         f"-DPPCG_PY_COMMAND={sys.executable};-m;ppcg_py",
         f"-DWITH_CUDA={'ON' if with_cuda else 'OFF'}", f"-DWITH_OMP={'ON' if with_omp else 'OFF'}"],
        env=ENV, capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout + configure.stderr

    def cmake_build() -> str:
        proc = subprocess.run([cmake, "--build", build], env=ENV, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout

    first = cmake_build()
    expected = _reference(source / "make", tmp_path)
    if with_cuda:
        assert "ppcg-py jacobi.c (cuda)" in first
        out = build / "jacobi_cuda.ppcg"
        got = _emulated(out / "jacobi_host.cu", out / "jacobi_kernel.cu", source / "make", tmp_path)
        assert got == pytest.approx(expected, rel=1e-12)
        if _gpu():
            run = subprocess.run([build / "jacobi_cuda"], capture_output=True, text=True, check=True)
            assert _checksum(run.stdout) == pytest.approx(expected, rel=1e-9)
    if with_omp:
        assert "ppcg-py jacobi.c (c)" in first
        run = subprocess.run([build / "jacobi_omp"], capture_output=True, text=True, check=True)
        assert _checksum(run.stdout) == pytest.approx(expected, rel=1e-12)

    assert "ppcg-py" not in cmake_build(), "an up-to-date build reran ppcg-py"
    _newer(source / "make" / "include" / "jacobi.h", build)
    again = cmake_build()
    assert ("ppcg-py jacobi.c (cuda)" in again) == with_cuda
    assert ("ppcg-py jacobi.c (c)" in again) == with_omp
    assert "ppcg-py" not in cmake_build()
