"""Each SCoP of a GPU target also compiled for the host, and the choice made at run time
(codegen/path_choice.py): the host path where no device is usable or the model predicts
the host faster, PPCG_PY_DEVICE overriding. The verify harness runs every program's
host path as well (run "host path"); these tests look at the choice itself, and run
nvcc's real build on this machine, which has no GPU."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ppcg_py.cli import main
from ppcg_py.verify.emulate import build_emulated, run_emulated
from ppcg_py.verify.harness import VerifyConfig, verify
from ppcg_py.verify.nvcc import nvcc_path

from polybench_cases import EVERY_LOOP

EXAMPLES = Path(__file__).parent.parent / "examples"
# a time loop around a parallel sweep (a kernel launched per step), and a sum
PROGRAM = r"""
#include <stdio.h>
#define N 300
static double A[N], B[N], total;
static void sweep(int n, int steps)
{
#pragma scop
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;
    for (int i = 1; i < n - 1; i++)
      A[i] = B[i];
  }
  for (int i = 0; i < n; i++)
    total += A[i];
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++)
    A[i] = (i % 17) / 17.0;
  sweep(N - 7, 5);
  sweep(3, 2);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int i = 0; i < N; i++)
    fprintf(stderr, "%0.17g\n", A[i]);
  fprintf(stderr, "end   dump: A\nbegin dump: total\n%0.17g\nend   dump: total\n==END   DUMP_ARRAYS==\n", total);
  return 0;
}
"""
SERIAL = """void f(int n, double A[100]) {
#pragma scop
  for (int i = 1; i < n; i++)
    A[i] = A[i - 1] * 0.5 + 1;
#pragma endscop
}
"""
_CHOICE = re.compile(r"ppcg-py: (.*?): on the (device|host) \((.*?);")


def _program(tmp_path: Path, text: str = PROGRAM, name: str = "sweep.c") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _compile(path: Path, out: Path, *args: str) -> Path:
    out.mkdir(exist_ok=True)
    assert main([*EVERY_LOOP, *args, "--output-dir", str(out), str(path)]) == 0
    return out


def _choices(stderr: str) -> list[tuple[str, str]]:
    """(where, why) of each SCoP run, as PPCG_PY_VERBOSE prints them."""
    return [(m.group(2), m.group(3)) for m in _CHOICE.finditer(stderr)]


def test_both_paths_are_printed_and_no_host_path_keeps_the_device_code_alone(tmp_path):
    source = _program(tmp_path)
    host = (_compile(source, tmp_path / "both") / "sweep_host.cu").read_text()
    assert "ppcg_py_on_device(" in host and "#pragma omp" in host, host
    assert "<<<" in host
    alone = (_compile(source, tmp_path / "alone", "--no-host-path") / "sweep_host.cu").read_text()
    assert "ppcg_py_on_device" not in alone and "#pragma omp" not in alone
    assert "ppcg_py_on_device" not in (tmp_path / "alone" / "sweep_kernel.hu").read_text()


def test_a_scop_without_kernels_has_one_path(tmp_path, capsys):
    host = (_compile(_program(tmp_path, SERIAL, "serial.c"), tmp_path / "out", "-v") / "serial_host.cu").read_text()
    assert "ppcg_py_on_device" not in host
    assert "runs on the host where no device" not in capsys.readouterr().err


def test_minus_v_states_each_rule(tmp_path, capsys):
    _compile(_program(tmp_path), tmp_path / "out", "-v")
    err = capsys.readouterr().err
    assert "SCoP of sweep (lines 7-16) runs on the host where no device is usable" in err, err
    assert "ppcg_py_kernel_seconds(" in err and "PPCG_PY_HOST_RATE" in err


def test_constant_sizes_are_counted_as_numbers(tmp_path, capsys):
    """With `#define`d sizes every count is a number: the choice's line (and -v's) sums
    them at compile time instead of spelling `(double) (300) * ...` per statement."""
    constant = PROGRAM.replace("sweep(int n, int steps)", "sweep(void)").replace("n - 1", "N - 1") \
        .replace("i < n;", "i < N;").replace("t < steps", "t < 5").replace("sweep(N - 7, 5);\n  sweep(3, 2);",
                                                                         "sweep();")
    host = (_compile(_program(tmp_path, constant), tmp_path / "out", "-v") / "sweep_host.cu").read_text()
    err = capsys.readouterr().err
    choice = next(line for line in host.splitlines() if "ppcg_py_on_device(" in line)
    assert "(double) (" not in choice and "(double) (" not in err, choice
    # each sweep: 5 steps of 298 points, in one launch (a device loop)
    assert choice.count("ppcg_py_kernel_seconds(1.0, 1490.0, ") == 2, choice
    assert "ppcg_py_copy_seconds(" in choice and "300.0 * sizeof(double)" in choice, choice


def test_counts_past_their_bound_leave_the_choice_to_the_device(tmp_path, monkeypatch):
    """Where isl needs more than LIMITS.path_costs operations for the counts (108M, 18 s,
    on a fuzzed SCoP of split tiles), the device runs the SCoP wherever one is usable."""
    from dataclasses import replace

    from ppcg_py.codegen import path_choice
    monkeypatch.setattr(path_choice, "LIMITS", replace(path_choice.LIMITS, path_costs=1))
    host = (_compile(_program(tmp_path), tmp_path / "out") / "sweep_host.cu").read_text()
    choice = next(line for line in host.splitlines() if "ppcg_py_on_device(" in line)
    assert 'ppcg_py_on_device("sweep, lines 7-16", 0.0, 1e300, ' in choice, choice


@pytest.mark.parametrize("target", ["cuda", "opencl"])
def test_both_paths_verify(target, tmp_path):
    """The harness runs the device code (in two thread orders in the emulation) and the
    host path (no device: the emulation's, or no OpenCL platform)."""
    report = verify(VerifyConfig(source=_program(tmp_path), data_type="double", target=target), tmp_path / "v")
    assert report.ok, report.summary()
    assert "host path" in report.summary(), report.summary()


@pytest.fixture(scope="module")
def emulated(tmp_path_factory) -> Path:
    """The example program's CUDA, built for the emulation (which has one device)."""
    tmp = tmp_path_factory.mktemp("emulated")
    out = _compile(_program(tmp), tmp / "out")
    exe = tmp / "sweep"
    build_emulated([out / "sweep_host.cu", out / "sweep_kernel.cu"], exe)
    return exe


@pytest.mark.parametrize("env, expected", [
    ({"PPCG_PY_HOST_RATE": "1e3"}, ("device", "the model")),        # a slow host: the device
    ({"PPCG_PY_HOST_RATE": "1e15"}, ("host", "the model")),         # a fast host: the host
    ({"PPCG_PY_DEVICE": "cpu", "PPCG_PY_HOST_RATE": "1e3"}, ("host", "PPCG_PY_DEVICE=cpu")),
    ({"PPCG_PY_DEVICE": "gpu", "PPCG_PY_HOST_RATE": "1e15"}, ("device", "PPCG_PY_DEVICE=gpu")),
    ({"PPCG_EMU_NO_DEVICE": "1", "PPCG_PY_HOST_RATE": "1e3"}, ("host", "no usable device")),
], ids=["slow-host", "fast-host", "forced-cpu", "forced-gpu", "no-device"])
def test_the_choice_at_run_time(emulated, env, expected):
    proc = run_emulated(emulated, env={**env, "PPCG_PY_VERBOSE": "1"})
    assert proc.returncode == 0, proc.stderr
    assert _choices(proc.stderr) == [expected, expected], proc.stderr   # the SCoP runs twice


def _real_build(tmp_path: Path, source: Path) -> Path:
    out = _compile(source, tmp_path / "out")
    exe = tmp_path / "program"
    cu = sorted(str(p) for p in out.glob("*.cu"))
    done = subprocess.run([nvcc_path(), "-O2", "-Xcompiler", "-fopenmp", *cu, "-o", str(exe)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return exe


NO_GPU = "a GPU is present: the program would take its device code"


@pytest.mark.skipif(nvcc_path() is None, reason="nvcc is not installed")
@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason=NO_GPU)
def test_nvcc_build_runs_here_on_the_host_path(tmp_path):
    """nvcc's program on a machine without a GPU: the runtime finds no device, every SCoP
    takes its host path, and the numbers are gcc's."""
    source = _program(tmp_path)
    exe = _real_build(tmp_path, source)
    run = subprocess.run([str(exe)], capture_output=True, text=True, env={"PPCG_PY_VERBOSE": "1", "PATH": "/usr/bin"})
    assert run.returncode == 0, run.stderr
    assert _choices(run.stderr) == [("host", "no usable device")] * 2, run.stderr
    reference = tmp_path / "reference"
    subprocess.run(["gcc", "-O2", str(source), "-o", str(reference)], check=True)
    expected = subprocess.run([str(reference)], capture_output=True, text=True).stderr
    assert re.sub(r"ppcg-py: .*\n", "", run.stderr) == expected


@pytest.mark.skipif(nvcc_path() is None, reason="nvcc is not installed")
@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason=NO_GPU)
def test_forcing_the_device_without_one_is_an_error(tmp_path):
    """PPCG_PY_DEVICE=gpu keeps the behaviour of a program without host paths."""
    exe = _real_build(tmp_path, _program(tmp_path))
    run = subprocess.run([str(exe)], capture_output=True, text=True, env={"PPCG_PY_DEVICE": "gpu"})
    assert run.returncode != 0
    assert "CUDA error" in run.stderr, run.stderr


VLA = r"""
#include <stdio.h>
static void sweep(int n, double A[n], double B[n])
{
#pragma scop
  for (int i = 1; i < n - 1; i++)
    B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;
#pragma endscop
}
int main(void)
{
  static double A[300], B[300];
  for (int i = 0; i < 300; i++)
    A[i] = (i % 17) / 17.0;
  sweep(293, A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: B\n");
  for (int i = 0; i < 300; i++)
    fprintf(stderr, "%0.17g\n", B[i]);
  fprintf(stderr, "end   dump: B\n==END   DUMP_ARRAYS==\n");
  return 0;
}
"""
C_ONLY_WITH_CALL = r"""
#include <stdio.h>
int ext_next(void);
static int first(int a[static 1]) { return a[0]; }
static int C[40][40];
static void step(int n, int A[40], int B[40])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = B[i] + ext_next();
  for (int i = 0; i < n; i++)
    B[i] = A[i] * 2;
  for (int i = 0; i < n; i++)          /* tiled on the host: ppcg_min, ppcg_floord */
    for (int j = 0; j < n - i; j++)
      C[i][j] = B[i] + B[j] + i;
#pragma endscop
}
int main(void)
{
  static int A[40], B[40];
  for (int i = 0; i < 40; i++)
    B[i] = i;
  step(37 - first(B), A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: B\n");
  for (int i = 0; i < 40; i++)
    fprintf(stderr, "%d\n", B[i] + C[i][i / 2]);
  fprintf(stderr, "end   dump: B\n==END   DUMP_ARRAYS==\n");
  return 0;
}
"""


def test_a_host_file_that_stays_c_chooses_in_c(tmp_path):
    """Variable-length array parameters: the C host file asks the kernel file whether a
    device is usable, then calls the SCoP's device function or runs its host path."""
    source = _program(tmp_path, VLA, "vla.c")
    report = verify(VerifyConfig(source=source, data_type="double"), tmp_path / "v")
    assert report.ok, report.summary()
    assert "host path" in report.summary()
    host = (tmp_path / "v" / "generated" / "vla_host.c").read_text()
    assert "ppcg_py_on_device(" in host and "ppcg_vla_scop0(" in host and "#pragma omp" in host, host
    assert 'extern "C" int ppcg_vla_device_usable(void)' in (tmp_path / "v" / "generated" / "vla_kernel.cu").read_text()


def test_calls_only_the_host_runs_in_a_c_host_file(tmp_path, capsys):
    """The device function of such a file gets flat pointers, where the call's arguments
    would mean other memory: the SCoP runs its host path alone (it was an error)."""
    source = _program(tmp_path, C_ONLY_WITH_CALL, "conly.c")
    (tmp_path / "lib.c").write_text("int ext_next(void) { static int s = 3; return s = (s * 7) % 11; }\n")
    report = verify(VerifyConfig(source=source, data_type="int", extra_c_sources=(str(tmp_path / "lib.c"),)),
                    tmp_path / "v")
    assert report.ok, report.summary()
    assert main(["-v", "--output-dir", str(_compile_dir(tmp_path)), str(source)]) == 0
    assert "runs on the host: it calls 'ext_next', which only the host runs" in capsys.readouterr().err
    assert main(["--no-host-path", "--output-dir", str(_compile_dir(tmp_path, "alone")), str(source)]) == 1
    assert "which only the host runs, in a file whose CUDA host code stays C" in capsys.readouterr().err


def _compile_dir(tmp_path: Path, name: str = "out") -> Path:
    (tmp_path / name).mkdir(exist_ok=True)
    return tmp_path / name
