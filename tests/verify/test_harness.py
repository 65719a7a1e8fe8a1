"""verify() end to end, with hand-written CUDA files standing in for the compiler."""

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import ppcg_py.verify.__main__ as cli
from ppcg_py.verify import harness
from ppcg_py.verify.harness import VerifyConfig, data_type_from_defines, run_ppcg, verify
from ppcg_py.verify.nvcc import nvcc_available

DATA = Path(__file__).parent / "data"
needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")
ALL_ORDERS = ("forward", "reverse", "shuffle")


def test_correct_vector_add_passes(tmp_path, fake_compiler, program_config):
    report = verify(
        program_config("vecadd", orders=ALL_ORDERS), tmp_path, compiler=fake_compiler("vecadd")
    )
    assert report.ok, report.summary()
    assert report.summary().startswith("PASS: vecadd.c: forward, reverse, shuffle match")
    assert set(report.timings) >= {"reference build", "ppcg", "emulated build", "run shuffle"}
    assert (tmp_path / "generated" / "vecadd_host.cu").exists()
    assert "begin dump: c" in (tmp_path / "reverse.stderr").read_text()


def test_wrong_index_is_a_mismatch(tmp_path, fake_compiler, program_config):
    report = verify(
        program_config("vecadd"), tmp_path, compiler=fake_compiler("vecadd", "wrong_index")
    )
    assert not report.ok and not report.failures
    assert report.mismatches["forward"][0] == "c[0]: expected 250.0, got 0.25"
    assert report.summary().startswith("FAIL: vecadd.c")


def test_unwritten_output_shows_the_poison(tmp_path, fake_compiler, program_config):
    report = verify(program_config("vecadd"), tmp_path, compiler=fake_compiler("vecadd", "uninit"))
    assert report.mismatches == {
        "forward": ("c[999]: expected 499.75, got nan",),
        "reverse": ("c[999]: expected 499.75, got nan",),
    }


def test_reduction_with_barriers_passes_in_every_order(tmp_path, fake_compiler, program_config):
    report = verify(
        program_config("reduce", orders=ALL_ORDERS), tmp_path, compiler=fake_compiler("reduce")
    )
    assert report.ok, report.summary()


def test_missing_barriers_change_the_result(tmp_path, fake_compiler, program_config):
    cfg = program_config("reduce", orders=ALL_ORDERS)
    report = verify(cfg, tmp_path, compiler=fake_compiler("reduce", "nosync"))
    assert not report.ok and not report.failures
    # Without barriers each fiber runs to its end at once: forward order reads
    # partial sums before they exist, reverse order happens to be right.
    assert report.mismatches["forward"]
    assert report.mismatches["shuffle"]


def test_compiler_failure_stops_the_check(tmp_path, program_config):
    def failing(cfg, out_dir):
        return subprocess.CompletedProcess(["ppcg"], 1, "", "error: unsupported loop")

    report = verify(program_config("vecadd"), tmp_path, compiler=failing)
    assert [f.stage for f in report.failures] == ["ppcg"]
    assert "unsupported loop" in report.failures[0].message
    assert "emulated build" not in report.timings


def test_compiler_without_output_is_a_failure(tmp_path, program_config):
    def silent(cfg, out_dir):
        return subprocess.CompletedProcess(["ppcg"], 0, "", "")

    report = verify(program_config("vecadd"), tmp_path, compiler=silent)
    assert report.failures[0].message == "exited 0 but wrote no vecadd_host.cu"


def test_reference_build_failure(tmp_path, fake_compiler, program_config):
    report = verify(
        program_config("vecadd", include_dirs=()), tmp_path, compiler=fake_compiler("vecadd")
    )
    assert [f.stage for f in report.failures] == ["reference build"]
    assert "pbdump.h" in report.failures[0].message


def test_emulated_build_failure(tmp_path, fake_compiler, program_config):
    broken = {"vecadd_kernel.cu": '#include "vecadd_kernel.hu"\n__global__ void kernel0(int) {}\n'}
    report = verify(
        program_config("vecadd"), tmp_path, compiler=fake_compiler("vecadd", files=broken)
    )
    assert [f.stage for f in report.failures] == ["emulated build"]
    assert "kernel0" in report.failures[0].message
    assert report.summary().startswith("FAIL: vecadd.c")


def test_crash_of_the_emulated_program(tmp_path, fake_compiler, program_config):
    diverging = {
        "vecadd_kernel.cu": '#include "vecadd_kernel.hu"\n'
        "__global__ void kernel0(double *a, double *b, double *c, int n)\n"
        "{ if (threadIdx.x % 2) __syncthreads(); else __syncthreads(); }\n"
    }
    cfg = program_config("vecadd", orders=("reverse",))
    report = verify(cfg, tmp_path, compiler=fake_compiler("vecadd", files=diverging))
    assert [f.stage for f in report.failures] == ["run reverse"]
    # Two barriers on one line are still told apart.
    assert "different barriers" in report.failures[0].message


@needs_nvcc
def test_nvcc_accepts_correct_code(tmp_path, fake_compiler, program_config):
    cfg = program_config("vecadd", use_nvcc=True, orders=("forward",))
    report = verify(cfg, tmp_path, compiler=fake_compiler("vecadd"))
    assert report.ok, report.summary()
    assert "nvcc" in report.timings


@needs_nvcc
def test_nvcc_rejects_what_the_emulation_accepts(tmp_path, fake_compiler, program_config):
    cfg = program_config("vecadd", use_nvcc=True, orders=("forward",))
    report = verify(cfg, tmp_path, compiler=fake_compiler("vecadd", "host_call"))
    assert [f.stage for f in report.failures] == ["nvcc"]
    assert "__host__" in report.failures[0].message
    assert report.mismatches == {"forward": ()}


def test_dump_defines_are_added_once():
    cfg = VerifyConfig(source=Path("x.c"), defines=("N=4", "POLYBENCH_DUMP_ARRAYS"))
    assert cfg.all_defines == ("N=4", "POLYBENCH_DUMP_ARRAYS", "POLYBENCH_DUMP_FULL_PRECISION")
    short = VerifyConfig(source=Path("x.c"), full_precision=False)
    assert short.all_defines == ("POLYBENCH_DUMP_ARRAYS",)


def test_data_type_from_defines():
    assert data_type_from_defines(["MINI_DATASET", "DATA_TYPE_IS_FLOAT"]) == "float"
    assert data_type_from_defines(["DATA_TYPE_IS_INT=1"]) == "int"
    assert data_type_from_defines([]) == "double"


def test_default_compiler_command(tmp_path, monkeypatch):
    seen = {}

    def fake_run(command, **kwargs):
        seen["command"] = command
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(harness.subprocess, "run", fake_run)
    cfg = VerifyConfig(
        source=Path("k.c"), include_dirs=("inc",), defines=("N=3",), ppcg_args=("--tile-size=16",)
    )
    run_ppcg(cfg, tmp_path)
    assert seen["command"] == [
        sys.executable, "-m", "ppcg_py", "--min-parallel-work=0", "--tile-size=16", "-Iinc", "-DN=3",
        "-DPOLYBENCH_DUMP_ARRAYS", "-DPOLYBENCH_DUMP_FULL_PRECISION",
        "--output-dir", str(tmp_path), "k.c",
    ]  # fmt: skip
    # the caller's own --min-parallel-work is kept, and no other added
    run_ppcg(replace(cfg, ppcg_args=("--min-parallel-work=500",)), tmp_path)
    assert [a for a in seen["command"] if a.startswith("--min-parallel-work")] == ["--min-parallel-work=500"]


@pytest.mark.parametrize(
    ("variant", "status", "verdict"), [(None, 0, "PASS: "), ("wrong_index", 1, "FAIL: ")]
)
def test_command_line(monkeypatch, capsys, tmp_path, fake_compiler, variant, status, verdict):
    def verify_with_fake(cfg, workdir, **kwargs):
        assert cfg.include_dirs == (str(DATA / "common"),) and cfg.use_nvcc is False
        return verify(cfg, workdir, compiler=fake_compiler("vecadd", variant), **kwargs)

    monkeypatch.setattr(cli, "verify", verify_with_fake)
    argv = [
        "-I",
        str(DATA / "common"),
        "--no-nvcc",
        "--keep",
        str(tmp_path),
        str(DATA / "vecadd" / "vecadd.c"),
    ]
    assert cli.main(argv) == status
    out, err = capsys.readouterr()
    assert out.startswith(verdict)
    assert "[verify] emulated build ..." in err


# C's abs() of a float converts it to int (gcc warns); C++'s <cmath> overload, which the
# CUDA build sees, keeps the float: the device matches the original built as C++ only.
# (ppcg-py writes C's conversions out for the math functions of <math.h>, so those
# no longer differ between the two builds.)
FLOAT_MATH = r"""
#include <math.h>
#include <stdlib.h>
#include "pbdump.h"
#define N 64

static void kernel_rounding(int n, float x[N], double r[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    r[i] = abs(x[i] * 3.0f) + 0.5;
#pragma endscop
}

int main(void)
{
  static float x[N];
  static double r[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.37f + i * 0.011f;
  kernel_rounding(N, x, r);
  pbdump_begin();
  pbdump_doubles("r", r, N);
  pbdump_end();
  return 0;
}
"""


@pytest.mark.parametrize("cxx_reference", [False, True])
def test_device_abs_of_float_matches_the_original_built_as_cxx(tmp_path, cxx_reference):
    source = tmp_path / "rounding.c"
    source.write_text(FLOAT_MATH)
    cfg = VerifyConfig(source=source, include_dirs=(str(DATA / "common"),), use_nvcc=False,
                       orders=("forward",), cxx_reference=cxx_reference)
    report = verify(cfg, tmp_path / "work")
    assert not report.failures and report.mismatches["forward"], report.summary()
    assert report.matches_cxx_only == cxx_reference
    assert (report.cxx_mismatches is not None) == cxx_reference
