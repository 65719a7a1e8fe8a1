"""benchmarks/gpu_ways.py: the bundle made here, and the report written there."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def gpu_ways():
    spec = importlib.util.spec_from_file_location("gpu_ways", ROOT / "benchmarks" / "gpu_ways.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["gpu_ways"] = module        # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_bundle_holds_each_way_and_a_manifest(gpu_ways, tmp_path):
    out = tmp_path / "bundle"
    assert gpu_ways.prepare(out, "MINI", {"ppcg": ("--sizes", "ppcg"), "device": ()}, ["jacobi-1d"], 2) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kernels"] == ["jacobi-1d"] and manifest["failures"] == {}
    for way in ("ppcg", "device"):
        assert (out / way / "jacobi-1d" / "jacobi-1d_host.cu").exists()
        assert (out / way / "jacobi-1d" / "jacobi-1d_kernel.cu").exists()


def test_the_report_compares_the_ways_and_lists_what_failed(gpu_ways, tmp_path):
    Program = gpu_ways.Program
    kernels = [k for k in gpu_ways.KERNELS if k.name in ("gemm", "atax")]
    programs = {
        ("gemm", "reference"): Program("gemm", "reference", "double", times=[1.0]),
        ("gemm", "ppcg"): Program("gemm", "ppcg", "double", times=[0.02, 0.03, 0.01]),
        ("gemm", "device"): Program("gemm", "device", "double", times=[0.01]),
        ("atax", "reference"): Program("atax", "reference", "double", times=[0.5]),
        ("atax", "ppcg"): Program("atax", "ppcg", "double", times=[0.1]),
        ("atax", "device"): Program("atax", "device", "double", status="MISMATCH", error="y[3]: expected 1, got 2",
                                    times=[0.05]),
    }
    manifest = {"dataset": "LARGE", "ways": {"ppcg": ["--sizes", "ppcg"], "device": []}, "commit": "abc",
                "date": "2026-11-26", "command": "prepare"}
    gpu_ways._write(tmp_path, programs, kernels, ["ppcg", "device"], manifest, 3, 1.0)
    text = (tmp_path / "results.md").read_text()
    assert "| gemm | 1 | 0.02 | 50 | 0.01 | 100 | 2.00 |" in text
    assert "**MISMATCH**" in text and "atax device: MISMATCH: y[3]" in text
    assert "Geometric mean of device over ppcg (time ratio, >1: faster): 2.000 over 1 kernels" in text


def test_the_choices_printed_at_run_time_are_read(gpu_ways):
    stderr = ("ppcg-py: kernel_gemm, lines 80-95: on the device (the model; predicted: device 0.0021 s, host 0.094 s)\n"
              "==BEGIN DUMP_ARRAYS==\n==END   DUMP_ARRAYS==\n"
              "ppcg-py: kernel_gemm, lines 80-95: on the device (the model; predicted: device 0.0021 s, host 0.094 s)\n"
              "ppcg-py: kernel_x, lines 3-9: on the host (no usable device; predicted: device 1e-05 s, host 2e-06 s)\n")
    assert gpu_ways.choices_in(stderr) == [("kernel_gemm, lines 80-95", "device", 0.0021, 0.094),
                                           ("kernel_x, lines 3-9", "host", 1e-05, 2e-06)]


def test_the_paths_table_flags_a_program_slower_than_gcc_or_on_the_slower_path(gpu_ways, tmp_path):
    Program = gpu_ways.Program
    kernels = [k for k in gpu_ways.KERNELS if k.name in ("gemm", "durbin")]
    choice = [("kernel_gemm, lines 80-95", "host", 0.5, 0.1)]
    programs = {
        ("gemm", "reference"): Program("gemm", "reference", "double", times=[1.0]),
        ("gemm", "device"): Program("gemm", "device", "double", times=[0.01]),
        ("gemm", "device@auto"): Program("gemm", "device@auto", "double", times=[0.3], choices=choice),
        ("gemm", "device@host"): Program("gemm", "device@host", "double", times=[0.3]),
        ("durbin", "reference"): Program("durbin", "reference", "double", times=[0.002]),
        ("durbin", "device"): Program("durbin", "device", "double", times=[0.05]),
        ("durbin", "device@auto"): Program("durbin", "device@auto", "double", times=[0.003],
                                           choices=[("kernel_durbin, lines 1-9", "host", 0.04, 0.001)]),
        ("durbin", "device@host"): Program("durbin", "device@host", "double", times=[0.003]),
    }
    manifest = {"dataset": "LARGE", "ways": {"device": []}, "commit": "abc", "date": "2026-11-28",
                "command": "prepare"}
    gpu_ways._write_paths(tmp_path, programs, kernels, "device", manifest)
    text = (tmp_path / "paths.md").read_text()
    assert "| gemm | host | 0.3 | 0.01 | 0.3 | 1 | 0.5 / 0.1 | DEVICE_FASTER |" in text, text
    assert "| durbin | host | 0.003 | 0.05 | 0.003 | 0.002 | 0.04 / 0.001 | SLOWER_THAN_GCC |" in text, text
    assert "Slower than gcc -O3: durbin; the faster path not taken: gemm" in text


@pytest.mark.skipif(__import__("shutil").which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.skipif(__import__("shutil").which("nvidia-smi") is not None, reason="a GPU is present")
def test_a_run_here_takes_the_host_paths(gpu_ways, tmp_path):
    """On this machine (no GPU) the device code fails and the program, as it chooses, runs
    its host paths with gcc's results."""
    bundle = tmp_path / "bundle"
    assert gpu_ways.prepare(bundle, "MINI", {"device": ()}, ["jacobi-1d"], 1) == 0
    assert gpu_ways.run(bundle, tmp_path / "out", 1, 300, 60, 2, paths="device") == 0
    text = (tmp_path / "out" / "paths.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| jacobi-1d"))
    assert "| jacobi-1d | host |" in row, text
    assert "MISMATCH" not in text and "ERROR" not in row, text     # both host runs give gcc's arrays
    assert "jacobi-1d device: RUN_ERROR" in (tmp_path / "out" / "results.md").read_text()   # no device here
