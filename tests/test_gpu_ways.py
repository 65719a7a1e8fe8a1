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
