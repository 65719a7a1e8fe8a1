"""`--timing` and the kernels' work (schedule/gpu/work.py): the counts against hand
counts, the roofline report of -v, and the timing lines of programs run in the CUDA
emulation and on PoCL, whose results stay those of gcc's build."""
from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import islpy as isl
import pytest

from ppcg_py.cli import main
from ppcg_py.gpu_targets import GPUS
from ppcg_py.schedule.gpu.work import box, exact, floating_operations, value
from ppcg_py.verify.emulate import build_emulated, run_emulated
from ppcg_py.verify.harness import VerifyConfig, verify

# a kernel launched per time step (host loop), one launched once, and an integer kernel
PROGRAM = r"""
#include <stdio.h>
#define N 300
#define T 7
static double A[N], B[N], M[40][50];
static int C[N];
static void work(int n, int steps)
{
#pragma scop
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;
    for (int i = 1; i < n - 1; i++)
      A[i] = B[i];
  }
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 50; j++)
      M[i][j] = M[i][j] * 2.0 + A[j];
  for (int i = 0; i < n; i++)
    C[i] = 3 * C[i] + i;
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++)
    A[i] = (i % 17) / 17.0, C[i] = i % 5;
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 50; j++)
      M[i][j] = (i + j) % 7;
  work(N - 7, T);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int i = 0; i < N; i++)
    fprintf(stderr, "%0.17g\n", A[i]);
  fprintf(stderr, "end   dump: A\nbegin dump: M\n");
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 50; j++)
      fprintf(stderr, "%0.17g\n", M[i][j]);
  fprintf(stderr, "end   dump: M\nbegin dump: C\n");
  for (int i = 0; i < N; i++)
    fprintf(stderr, "%d\n", C[i]);
  fprintf(stderr, "end   dump: C\n==END   DUMP_ARRAYS==\n");
  return 0;
}
"""
_KERNEL = re.compile(r"ppcg-py timing: (\w+): (\d+) launches, ([\d.]+) ms total, ([\d.]+) ms mean"
                     r"(?:, ([\d.]+) GFLOP/s, ([\d.]+) GB/s)?")
_COPIES = re.compile(r"ppcg-py timing: copies to the (device|host): (\d+), (\d+) bytes, ([\d.]+) ms")


def _program(tmp_path: Path) -> Path:
    path = tmp_path / "work.c"
    path.write_text(PROGRAM)
    return path


def _kernels(stderr: str) -> dict[str, tuple[int, float]]:
    """kernel -> (launches, GFLOP/s) from the timing lines."""
    return {m.group(1): (int(m.group(2)), float(m.group(5) or 0)) for m in _KERNEL.finditer(stderr)}


def _copies(stderr: str) -> dict[str, tuple[int, int]]:
    return {m.group(1): (int(m.group(2)), int(m.group(3))) for m in _COPIES.finditer(stderr)}


# -- counts --------------------------------------------------------------------
def test_a_rectangle_counts_exactly_and_a_triangle_is_marked_as_not_a_box():
    fixed = isl.Set("[n, m] -> { : n = 100 and m = 50 }")
    universe = isl.Set("[n, m] -> { : }")
    rectangle = box(isl.Set("[n, m] -> { S[i, j] : 0 <= i < n and 0 <= j < m }"), universe, 3)
    assert value(rectangle, fixed) == 3 * 100 * 50 and exact(rectangle)
    triangle = box(isl.Set("[n, m] -> { S[i, j] : 0 <= i < n and 0 <= j <= i }"), universe)
    assert value(triangle, fixed) == 100 * 101 / 2 and not exact(triangle)   # counted point by point
    assert value(rectangle, universe) is None            # the parameters are not known
    assert value(box(isl.Set("[n, m] -> { S[i] : 0 <= i < n }"), universe), isl.Set("[n, m] -> { : n = -3 and m = 0 }")) == 0


@pytest.mark.parametrize("body, types, expected", [
    ("A[i] = B[i] * 2.0 + C[i];", {"A": "double"}, (2, "double")),
    ("A[i] += B[i + 1] * B[i - 1];", {"A": "float"}, (2, "float")),       # subscripts are addressing
    ("A[i] = sqrt(B[i]) - 1;", {"A": "double"}, (2, "double")),            # a call counts once
    ("C[i] = 3 * C[i] + i;", {"C": "int"}, (0, "")),                       # no floating-point result
])
def test_floating_operations_per_instance(body, types, expected):
    from pycparser import c_parser

    from ppcg_py.extract.model import Access, Statement
    node = c_parser.CParser().parse(f"void f() {{ {body} }}").ext[0].body.block_items[0]
    written = body.split("[")[0].strip()
    index = isl.Map("{ S[i] -> A[i] }")
    stmt = Statement("S", isl.Set("{ S[i] : 0 <= i < 4 }"), ("i",), (Access(written, index, False, True, "ref_0"),),
                     node)
    assert floating_operations(stmt, {**types, "B": "double"}) == expected


def _report(tmp_path: Path, capsys, *args: str) -> list[str]:
    (tmp_path / "out").mkdir()
    assert main(["-v", "--no-device-loops", *args, "--output-dir", str(tmp_path / "out"), str(_program(tmp_path))]) == 0
    return [line for line in capsys.readouterr().err.splitlines() if " work: " in line]


def test_minus_v_reports_work_intensity_and_roofline(tmp_path, capsys):
    lines = _report(tmp_path, capsys, "--ctx", "[n, steps] -> { : n = 293 and steps = 7 }")
    assert len(lines) == 3, lines
    stencil = next(line for line in lines if "kernel0 " in line)
    # 7 launches of 291 points, 3 operations each (two additions, a division)
    assert " 6111 FP64 flops" in stencil, stencil
    # per launch: A[0..292] read (293 elements), B[1..291] written (291): 8 bytes each, 7 launches
    assert f" {7 * 8 * (293 + 291):.4g} DRAM bytes" in stencil, stencil
    assert "roofline on H100" in stencil and "memory-bound" in stencil
    copy = next(line for line in lines if "kernel1 " in line)
    assert "no floating-point operations" in copy and "FP64" in copy, copy


def test_without_fixed_parameters_the_work_is_left_to_run_time(tmp_path, capsys):
    lines = _report(tmp_path, capsys)
    assert lines and all("depends on the parameters" in line for line in lines), lines


def test_counts_past_their_isl_bound_are_not_counted(tmp_path, capsys, monkeypatch):
    """isl's work on a kernel's counts is bounded (a fuzzed kernel's parametric extents
    took over ten minutes of `-v`): past it, the report says so and the compilation goes on."""
    from ppcg_py.schedule.gpu import work
    monkeypatch.setattr(work, "LIMITS", replace(work.LIMITS, kernel_work=50))
    lines = _report(tmp_path, capsys, "--ctx", "[n, steps] -> { : n = 293 and steps = 7 }")
    assert len(lines) == 3 and all("work: not counted" in line for line in lines), lines


def test_the_card_of_the_roofline_is_gpu(tmp_path, capsys):
    lines = _report(tmp_path, capsys, "--gpu", "A100", "--ctx", "[n, steps] -> { : n = 293 and steps = 7 }")
    peak = GPUS["A100"].fp64_flops / 1e12
    assert all(f"roofline on A100 ({peak:.3g} TFLOP/s FP64" in line for line in lines), lines


# -- the generated code ------------------------------------------------------------
def test_no_timing_code_without_the_option(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    assert main(["--output-dir", str(out), str(_program(tmp_path))]) == 0
    assert "ppcg_py_timing" not in "".join(p.read_text() for p in out.iterdir())
    assert main(["--timing", "--output-dir", str(out), str(_program(tmp_path))]) == 0
    assert "ppcg_py_timing_kernel" in (out / "work_host.cu").read_text()


@pytest.fixture(scope="module")
def timed(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("timed")
    out = tmp / "out"
    out.mkdir()
    assert main(["--timing", "--no-device-loops", "--output-dir", str(out), str(_program(tmp))]) == 0
    exe = tmp / "work"
    build_emulated([out / "work_host.cu", out / "work_kernel.cu"], exe)
    return exe


def test_timing_lines_in_the_emulation(timed):
    proc = run_emulated(timed, env={"PPCG_PY_DEVICE": "gpu"})
    assert proc.returncode == 0, proc.stderr
    kernels = _kernels(proc.stderr)
    # the two sweeps launched once per step, M's and C's kernel once
    assert sorted(n for n, _ in kernels.values()) == [1, 7, 7], proc.stderr
    assert kernels["kernel0"][1] > 0, proc.stderr
    copies = _copies(proc.stderr)
    # in: A[0..292], M whole, C[0..292]; out: what the SCoP writes, A[1..291], B[1..291]
    # (a global: live after the SCoP), M and C[0..292]
    assert copies["device"] == (3, 293 * 8 + 40 * 50 * 8 + 293 * 4), copies
    assert copies["host"] == (4, 2 * 291 * 8 + 40 * 50 * 8 + 293 * 4), copies


def test_the_host_path_times_nothing(timed):
    proc = run_emulated(timed, env={"PPCG_PY_DEVICE": "cpu"})
    assert proc.returncode == 0, proc.stderr
    assert "ppcg-py timing" not in proc.stderr


@pytest.mark.parametrize("target", ["cuda", "opencl"])
def test_timed_programs_compute_what_gcc_computes(target, tmp_path):
    if target == "opencl" and shutil.which("clinfo") is None and not Path("/etc/OpenCL/vendors").exists():
        pytest.skip("no OpenCL runtime installed (make opencl installs PoCL)")
    report = verify(VerifyConfig(source=_program(tmp_path), data_type="double", target=target,
                                 ppcg_args=("--timing", "--no-device-loops")), tmp_path / "v")
    assert report.ok, report.summary()
    stderr = (tmp_path / "v" / ("opencl.stderr" if target == "opencl" else "forward.stderr")).read_text()
    assert sorted(n for n, _ in _kernels(stderr).values()) == [1, 7, 7], stderr


def test_a_one_block_launch_is_timed_as_one(tmp_path):
    """Small kernels that one launch of one block runs (fused kernels, a device loop):
    one record, under the launch's name, with all their work."""
    report = verify(VerifyConfig(source=_program(tmp_path), data_type="double", ppcg_args=("--timing",),
                                 orders=("forward",)), tmp_path / "v")
    assert report.ok, report.summary()
    kernels = _kernels((tmp_path / "v" / "forward.stderr").read_text())
    # the time loop and its two sweeps: one launch
    assert kernels["device_loop0"][0] == 1 and not {"kernel0", "kernel1"} & set(kernels), kernels


def test_a_host_file_that_stays_c_times_its_scops(tmp_path):
    """C that C++ rejects outside the SCoP (`a[static 4]`): the SCoP's device code is a
    function of the kernel file, which carries the timing helpers."""
    source = tmp_path / "work.c"
    source.write_text(PROGRAM.replace("int main(void)\n{", "static int first(int a[static 4]) { return a[0]; }\n"
                                      "int main(void)\n{\n  int four[4] = {0};\n  (void) first(four);"))
    report = verify(VerifyConfig(source=source, data_type="double", ppcg_args=("--timing", "--no-device-loops"),
                                 orders=("forward",)), tmp_path / "v")
    assert report.ok, report.summary()
    assert (tmp_path / "v" / "generated" / "work_host.c").exists()
    kernels = _kernels((tmp_path / "v" / "forward.stderr").read_text())
    assert sorted(n for n, _ in kernels.values()) == [1, 7, 7], kernels


def test_a_triangle_is_counted_point_by_point_where_the_parameters_are_known():
    """At fixed parameters -v's operations are exact for any set (ppcg_py/points.py): the
    triangle of syrk's update has n(n+1)/2 points per k, not its box's n^2."""
    universe = isl.Set("[n, m] -> { : }")
    triangle = box(isl.Set("[n, m] -> { S[k, i, j] : 0 <= k < m and 0 <= i < n and 0 <= j <= i }"), universe, 3)
    assert value(triangle, isl.Set("[n, m] -> { : n = 120 and m = 10 }")) == 3 * 10 * 120 * 121 // 2
    from ppcg_py.schedule.gpu.work import known_exactly
    assert known_exactly(triangle) and not exact(triangle)


def test_an_extent_isl_cannot_evaluate_leaves_the_count_unknown():
    """Fuzz 2813:214: a rational extent (`n/2`) made isl's extremes fail inside -v's report
    (an internal error of every compilation with -v); the count is now unknown instead."""
    from ppcg_py.schedule.gpu.work import Box
    rational = Box(1.0, isl.Set("[n] -> { : }"), (isl.PwAff("[n] -> { [(n/2)] }"),), True)
    assert value((rational,), isl.Set("[n] -> { : n = 5 }")) is None


def test_a_device_loop_takes_the_writers_declaration_of_a_shared_array(tmp_path):
    """The two sweeps one device loop runs each read an array the other writes: neither
    may be const in the launch's parameters (one kernel's const would not build or lie)."""
    out = tmp_path / "out"
    out.mkdir()
    assert main(["--output-dir", str(out), str(_program(tmp_path))]) == 0
    head = next(line for line in (out / "work_kernel.cu").read_text().splitlines()
                if line.startswith("__global__") and "device_loop0" in line)
    assert "double * __restrict__ A" in head and "double * __restrict__ B" in head, head
    assert "const double * __restrict__ A" not in head and "const double * __restrict__ B" not in head, head
