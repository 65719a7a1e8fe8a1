"""benchmarks/cublas_way.py: each BLAS-shaped PolyBench kernel as cuBLAS calls, built for
the CPU emulation (cuda_emu/include/cublas_v2.h) and compared with gcc's build of the
original, so that the GPU benchmark's cuBLAS way computes what PolyBench does. New
device memory is NaN in the emulation: an element the calls leave unwritten shows."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from polybench.kernels import POLYBENCH_C, REPO_ROOT, UTILITIES_DIR, by_name
from ppcg_py.verify.common import DUMP_DEFINE, FULL_PRECISION_DEFINE
from ppcg_py.verify.dump import compare_dumps, parse_dump, tolerance_for
from ppcg_py.verify.emulate import build_emulated, run_emulated
from ppcg_py.verify.nvcc import nvcc_check, nvcc_path
from ppcg_py.verify.tools import BuildError, preprocessor_flags, run_program, run_tool


def _load_cublas_way():
    spec = importlib.util.spec_from_file_location("cublas_way", REPO_ROOT / "benchmarks" / "cublas_way.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["cublas_way"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


cublas_way = _load_cublas_way()
TIMED_LINE = re.compile(r"^ppcg-py timing: cublas: 1 launches, ", re.M)
ANY_TIMING_LINE = re.compile(r"^ppcg-py timing:", re.M)


def _include_dirs(name: str) -> list[Path]:
    return [REPO_ROOT / UTILITIES_DIR, REPO_ROOT / by_name(name).directory]


def _defines(dataset: str, *extra: str) -> list[str]:
    return [f"{dataset}_DATASET", DUMP_DEFINE, FULL_PRECISION_DEFINE, *extra]


def _reference(name: str, defines: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """gcc's build of the original PolyBench program, run."""
    exe = folder / "reference"
    run_tool(["gcc", "-O1", "-std=gnu99", *preprocessor_flags(_include_dirs(name), defines),
              REPO_ROOT / by_name(name).path, REPO_ROOT / POLYBENCH_C, "-o", exe, "-lm"])
    return run_program([exe])


def _emulated(name: str, defines: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """The cuBLAS program built for the CPU emulation, run."""
    program = cublas_way.write_program(name, folder)
    exe = folder / "emulated"
    build_emulated([program], exe, c_sources=[REPO_ROOT / POLYBENCH_C], include_dirs=_include_dirs(name),
                   defines=defines, source_dir=folder / "emulated-src")
    return run_emulated(exe)


def _check_against_gcc(name: str, defines: list[str], folder: Path, data_type: str = "double") -> str:
    """The emulated program's stderr, after asserting its dump matches gcc's."""
    expected = _reference(name, defines, folder)
    assert expected.returncode == 0, expected.stderr[-2000:]
    actual = _emulated(name, defines, folder)
    assert actual.returncode == 0, actual.stderr[-2000:]
    rtol, atol = tolerance_for(data_type)
    problems = compare_dumps(parse_dump(expected.stderr), parse_dump(actual.stderr), rtol=rtol, atol=atol)
    assert not problems, "\n".join(problems)
    return actual.stderr


def test_the_kernels_are_the_blas_shaped_ones():
    assert set(cublas_way.KERNELS) == {"gemm", "2mm", "3mm", "syrk", "syr2k", "symm", "trmm",
                                       "atax", "bicg", "mvt", "gesummv", "gemver"}


@pytest.mark.parametrize("dataset", ["MINI", "SMALL"])
@pytest.mark.parametrize("name", cublas_way.KERNELS)
def test_the_timed_program_matches_gcc(name, dataset, tmp_path):
    stderr = _check_against_gcc(name, _defines(dataset, "PPCG_PY_TIMING"), tmp_path)
    assert TIMED_LINE.search(stderr), stderr[-2000:]
    assert "ppcg-py timing: copies to the host:" in stderr


def test_a_plain_build_prints_no_timing_line(tmp_path):
    stderr = _check_against_gcc("gesummv", _defines("MINI"), tmp_path)
    assert not ANY_TIMING_LINE.search(stderr), stderr[-2000:]


@pytest.mark.parametrize("name", ["gemm", "syr2k", "gemver"])
def test_float_uses_the_single_precision_routines(name, tmp_path):
    _check_against_gcc(name, _defines("MINI", "DATA_TYPE_IS_FLOAT"), tmp_path, "float")


def test_int_is_refused_at_compile_time(tmp_path):
    with pytest.raises(BuildError, match="no int routines"):
        _emulated("gemm", _defines("MINI", "DATA_TYPE_IS_INT"), tmp_path)


def _kernel_parameters(name: str) -> set[str]:
    """The array parameters of PolyBench's kernel_NAME: host arrays, never cuBLAS arguments."""
    text = (REPO_ROOT / by_name(name).path).read_text()
    signature = re.search(r"static void kernel_\w+\((.*?)\)\s*\{", text, re.S).group(1)
    return set(re.findall(r"POLYBENCH_[12]D\((\w+)", signature))


@pytest.mark.parametrize("name", cublas_way.KERNELS)
def test_the_calls_take_device_arrays_only(name):
    """The emulation cannot tell host from device memory; a GPU can."""
    host = _kernel_parameters(name)
    source = cublas_way.program_source(name)
    calls = re.findall(r"PPCG_CUBLAS\(\w+\)\((.*?)\)\);", source, re.S)
    assert len(calls) == len(cublas_way.MAPPINGS[name].calls)
    for call in calls:
        arguments = [a.strip() for a in re.sub(r"PPCG_LD\(\w+\)", "LD", call).split(",")]
        assert not host & set(arguments), call
    assert source.count("#pragma scop") == 0 and source.count("kernel_" + name.replace("-", "_")) >= 2


def test_the_program_keeps_the_source_around_the_scop():
    source = cublas_way.program_source("gemm")
    original = (REPO_ROOT / by_name("gemm").path).read_text()
    assert source.startswith("/* PolyBench's gemm")
    assert '#include <cublas_v2.h>\n#include "ppcg_py_timing.h"' in source
    assert original.split("#pragma scop")[0].split('#include "gemm.h"\n')[1] in source
    assert original.split("#pragma endscop")[1] in source
    with pytest.raises(KeyError):
        cublas_way.program_source("jacobi-1d")


def _cuda_include_dirs() -> list[Path]:
    """Where nvcc finds CUDA's headers: /usr/local/cuda/include and what nvcc itself says."""
    dirs = [Path("/usr/local/cuda/include")]
    nvcc = nvcc_path()
    if nvcc:
        try:
            dry = subprocess.run([nvcc, "--dryrun", "-c", "x.cu", "-o", "x.o"], capture_output=True, text=True,
                                 timeout=60, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return dirs
        output = dry.stdout + dry.stderr
        dirs += [Path(d) for d in re.findall(r'-I"?([^"\s]+)', output)]
        dirs += [Path(top) / "include" for top in re.findall(r"^#\$ TOP=(\S+)", output, re.M)]
    return dirs


def test_nvcc_compiles_the_programs(tmp_path):
    if nvcc_path() is None:
        pytest.skip("nvcc is not installed")
    if not any((d / "cublas_v2.h").exists() for d in _cuda_include_dirs()):
        pytest.skip("cuBLAS headers are not installed here")
    programs = [cublas_way.write_program(name, tmp_path / name) for name in cublas_way.KERNELS]
    kernel_dirs = [d for name in cublas_way.KERNELS for d in _include_dirs(name)[1:]]
    for extra in ((), ("PPCG_PY_TIMING",)):  # each call compiles the programs side by side
        nvcc_check(programs, include_dirs=[REPO_ROOT / UTILITIES_DIR, *kernel_dirs],
                   defines=_defines("MINI", *extra))
