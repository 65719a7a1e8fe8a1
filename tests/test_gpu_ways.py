"""benchmarks/gpu_ways.py: the bundle made here, and the report written there."""
from __future__ import annotations

import importlib.util
import json
import re
import subprocess
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


# -- kernel times: timed builds, other tools' outputs, the kernel tables ----------------
@pytest.fixture(scope="module")
def kernel_report():
    spec = importlib.util.spec_from_file_location("kernel_report", ROOT / "benchmarks" / "kernel_report.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["kernel_report"] = module
    spec.loader.exec_module(module)
    return module


def _reference_dump(tmp_path: Path, kernel) -> str:
    from polybench.kernels import POLYBENCH_C, compile_flags, source_path
    from ppcg_py.verify.common import DUMP_DEFINE, FULL_PRECISION_DEFINE
    exe = tmp_path / "reference"
    subprocess.run(["gcc", "-O2", *compile_flags(kernel, "MINI"), f"-D{DUMP_DEFINE}", f"-D{FULL_PRECISION_DEFINE}",
                    str(source_path(kernel)), str(ROOT / POLYBENCH_C), "-o", str(exe), "-lm"], check=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stderr


def test_a_prebuilt_way_is_copied_and_timed_as_ppcg_py_is(gpu_ways, tmp_path):
    """Another tool's outputs (here ppcg-py's with PPCG's sizes and no host path, PPCG's
    shape of host code) become a way; its timed copy, built for the CPU emulation, still
    computes gcc's arrays and prints one timing line per kernel."""
    from polybench.kernels import by_name, compile_flags, source_path
    from ppcg_py.verify.common import DUMP_DEFINE, FULL_PRECISION_DEFINE
    from ppcg_py.verify.dump import compare_dumps, parse_dump
    from ppcg_py.verify.emulate import build_emulated, run_emulated
    kernel = by_name("jacobi-1d")
    other = tmp_path / "other" / "jacobi-1d"
    other.mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "ppcg_py", "--sizes", "ppcg", "--no-host-path", "--no-device-loops",
                    *compile_flags(kernel, "MINI"), "--output-dir", str(other), str(source_path(kernel))], check=True)
    bundle = tmp_path / "bundle"
    assert gpu_ways.prepare(bundle, "MINI", {"ppcg-py": ()}, ["jacobi-1d"], 2, {"other": tmp_path / "other"}) == 0
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert manifest["ways"]["other"][0] == "prebuilt" and manifest["failures"] == {}
    assert "--timing" not in (bundle / "ppcg-py" / "jacobi-1d" / "jacobi-1d_host.cu").read_text()
    assert "ppcg_py_timing_kernel" in (bundle / "ppcg-py" / "jacobi-1d" / "timed" / "jacobi-1d_host.cu").read_text()
    timed = bundle / "other" / "jacobi-1d" / "timed"
    assert "ppcg_py_timing_kernel" not in (bundle / "other" / "jacobi-1d" / "jacobi-1d_host.cu").read_text()
    exe = tmp_path / "timed"
    build_emulated(sorted(timed.glob("*.cu")), exe, c_sources=[ROOT / "polybench/utilities/polybench.c"],
                   include_dirs=[ROOT / "polybench/utilities", ROOT / kernel.directory, bundle],
                   defines=["MINI_DATASET", DUMP_DEFINE, FULL_PRECISION_DEFINE])
    proc = run_emulated(exe)
    assert proc.returncode == 0, proc.stderr
    assert not compare_dumps(parse_dump(_reference_dump(tmp_path, kernel)), parse_dump(proc.stderr),
                             rtol=1e-9, atol=1e-12)
    launches = re.findall(r"ppcg-py timing: (kernel\d): (\d+) launches", proc.stderr)
    assert sorted(launches) == [("kernel0", "20"), ("kernel1", "20")], proc.stderr     # MINI: 20 steps


def test_a_launch_in_another_form_is_refused(tmp_path):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from prebuilt import NotInstrumented, instrument_host
    text = "int main() {\n  kernel0<<<1, 32>>>(a);\n  return 0;\n}\n"
    with pytest.raises(NotInstrumented, match="1 launches, 0 of them"):
        instrument_host(text)
    timed = instrument_host("  {\n    k <<<g, b>>> (x, y);\n    cudaCheckKernel();\n  }\n"
                            "  cudaCheckReturn(cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost));\n")
    assert 'ppcg_py_timing_start();\n    k <<<g, b>>> (x, y);\n    cudaCheckKernel();\n    ' \
           'ppcg_py_timing_kernel("k");' in timed
    assert "ppcg_py_timed_memcpy(h, d, 8, cudaMemcpyDeviceToHost)" in timed


def test_timing_lines_are_summed(kernel_report):
    stderr = ("ppcg-py timing: kernel0: 10 launches, 2.000000 ms total, 0.200000 ms mean, 5.000 GFLOP/s, 20.000 GB/s\n"
              "ppcg-py timing: kernel1: 1 launches, 1.000000 ms total, 1.000000 ms mean\n"
              "ppcg-py timing: copies to the device: 3, 1000 bytes, 0.500000 ms, 2.000 GB/s\n"
              "ppcg-py timing: copies to the host: 1, 100 bytes, 0.250000 ms, 0.400 GB/s\n")
    t = kernel_report.parse_timing(stderr)
    assert (t.kernels, t.kernel_s) == (2, pytest.approx(3e-3))
    assert t.flops == pytest.approx(1e7) and t.dram_bytes == pytest.approx(4e7)      # 5 GFLOP/s for 2 ms
    assert t.copy_s == pytest.approx(0.75e-3)
    assert kernel_report.parse_timing("no lines\n") is None


def test_spearman(kernel_report):
    assert kernel_report.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert kernel_report.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert kernel_report.spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.9486833)
    assert kernel_report.spearman([1, 2], [1, 2]) is None


def test_the_kernel_table_compares_with_ppcg_and_cublas(gpu_ways, kernel_report, tmp_path):
    from ppcg_py.gpu_targets import GPUS
    Row = kernel_report.Row
    rows = [Row("gemm", "ppcg-py", 0.010, 0.05, "PASS", flops=2.64e9 * 3 / 2, dram_bytes=3.8e7,
                predicted_s=0.02, device_s=0.012),
            Row("gemm", "ppcg-0.09.2", 0.030, 0.07, "PASS"),
            Row("gemm", "cublas", 0.004, 0.03, "PASS"),
            Row("atax", "ppcg-py", 0.002, 0.01, "PASS", flops=4e6, dram_bytes=1.7e7, predicted_s=0.001,
                device_s=0.004),
            Row("atax", "ppcg-0.09.2", 0.0015, 0.012, "PASS"),
            Row("atax", "cublas", 0.001, 0.008, "PASS"),
            Row("lu", "ppcg-py", 0.5, 0.6, "PASS", flops=1e10, dram_bytes=1e9, predicted_s=0.3, device_s=0.55),
            Row("lu", "ppcg-0.09.2", None, None, "BUILD_ERROR"),
            Row("lu", "cublas", None, None, "N/A")]
    lines = kernel_report.table(rows, ["ppcg-py", "ppcg-0.09.2", "cublas"], GPUS["H100"],
                                {"gemm": "double", "atax": "double", "lu": "double"}, "ppcg-py", "ppcg-0.09.2",
                                "cublas")
    text = "\n".join(lines)
    gemm = next(line for line in lines if line.startswith("| gemm"))
    bound = max(2.64e9 * 1.5 / 34e12, 3.8e7 / 3.35e12)
    assert f"| gemm | {bound:.3g} | 0.01 | 0.03 | 0.004 | {bound / 0.01:.0%} |" in gemm, gemm
    assert "| 3.00 | 1.40 | 40% |" in gemm, gemm                  # 3x PPCG's kernel, 40% of cuBLAS's speed
    assert "**BUILD_ERROR**" in text
    assert "more than 10% slower: atax" in text                  # 0.0015 / 0.002
    assert "gemm 40%" in text and "(level 2: atax 50%)" in text
    assert "Spearman's rho 1.000 over 3 kernels" in text
    kernel_report.write_csv(tmp_path / "kernels.csv", rows)
    csv_lines = (tmp_path / "kernels.csv").read_text().splitlines()
    assert csv_lines[0] == "kernel,way,kernel_s,program_s,status" and "lu,cublas,,,N/A" in csv_lines
