"""benchmarks/gpu_vs_model.py: measured GPU times beside the model's, and the ranking."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def gpu_vs_model():
    spec = importlib.util.spec_from_file_location("gpu_vs_model", ROOT / "benchmarks" / "gpu_vs_model.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["gpu_vs_model"] = module
    spec.loader.exec_module(module)
    return module


def test_ranks_share_ties_and_spearman_sees_order_not_scale(gpu_vs_model):
    assert gpu_vs_model.ranks([3.0, 1.0, 3.0, 2.0]) == [3.5, 1.0, 3.5, 2.0]
    assert gpu_vs_model.spearman([1, 2, 3, 4], [10, 20, 300, 4000]) == pytest.approx(1.0)
    assert gpu_vs_model.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_later_run_fills_what_an_earlier_one_missed_and_the_model_sits_beside(gpu_vs_model, tmp_path):
    first = _write(tmp_path / "r1.csv", "kernel,reference_s,ppcg_s,fast_s\n"
                                         "gemm,1.0,0.02,0.01\natax,0.5,0.1,\n")
    second = _write(tmp_path / "r2.csv", "kernel,reference_s,ppcg_s,fast_s\n"
                                          "atax,0.6,0.3,0.05\nadi,2,0.4,0.2\n")
    model = _write(tmp_path / "m.csv", "kernel,predicted_s,compare_predicted_s\n"
                                       "gemm,0.005,0.01\natax,0.02,0.04\nadi,0.1,0.1\n")
    times, ways, reference = gpu_vs_model.measured_times([first, second])
    assert ways == ["ppcg", "fast"]
    assert times["atax"] == {"ppcg": 0.1, "fast": 0.05} and reference["atax"] == 0.5
    models = gpu_vs_model.predicted_times([f"fast={model}", f"ppcg={model}:compare"])
    lines = gpu_vs_model.report(times, ways, reference, models)
    assert "| gemm | 1 | 0.02 | 0.01 | 0.01 | 0.005 | 2.00 | 2.00 |" in lines
    assert any(line.startswith("- speedup of fast over ppcg: geometric mean measured") for line in lines)
    assert "Over the 3 kernels measured in every way:" in lines
