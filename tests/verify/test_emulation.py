"""The CPU emulation of CUDA (cuda_emu.h) and its build and run helpers."""

from pathlib import Path

import pytest

from ppcg_py.verify.emulate import ORDERS, build_emulated, run_emulated
from ppcg_py.verify.tools import BuildError, run_program

EMU = Path(__file__).parent / "data" / "emu"


@pytest.fixture(scope="module")
def features(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("emu") / "features"
    build_emulated([EMU / "features.cu"], exe)
    return exe


@pytest.fixture(scope="module")
def barriers(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("emu") / "barriers"
    build_emulated([EMU / "barriers.cu"], exe)
    return exe


@pytest.mark.parametrize("order", ORDERS)
def test_runtime_api_builtins_and_shared_memory(features, order):
    proc = run_emulated(features, order)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "0 failures"


def test_ucontext_fibers_behave_the_same(tmp_path):
    # The swapcontext switch is the one used under sanitizers.
    exe = tmp_path / "features"
    build_emulated([EMU / "features.cu"], exe, cflags=["-DPPCG_EMU_UCONTEXT"])
    proc = run_emulated(exe, "shuffle", seed=7)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_threads_at_different_barriers_abort_with_their_positions(barriers):
    proc = run_emulated(barriers, "forward", ["branches"])
    assert proc.returncode != 0
    assert "threads wait at different barriers in block (0,0,0)" in proc.stderr
    assert "barriers.cu:13" in proc.stderr and "barriers.cu:16" in proc.stderr


def test_returned_threads_do_not_block_a_barrier_unless_strict(barriers):
    assert run_emulated(barriers, "reverse", ["early-exit"]).returncode == 0
    strict = run_emulated(
        barriers, "forward", ["early-exit"], env={"PPCG_EMU_STRICT_BARRIERS": "1"}
    )
    assert strict.returncode != 0
    assert "barrier not reached by all threads" in strict.stderr
    assert "has returned" in strict.stderr


def test_fiber_stack_overflow_is_explained(barriers):
    proc = run_emulated(barriers, "forward", ["stack"], env={"PPCG_EMU_STACK_KB": "64"})
    assert proc.returncode != 0
    assert "fiber stack overflow" in proc.stderr


def test_a_full_block_passes_many_barriers(tmp_path):
    exe = tmp_path / "switch_bench"
    build_emulated([EMU / "switch_bench.cu"], exe)
    proc = run_emulated(exe, "shuffle", ["50", "1024"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[0] == "50"


def test_bad_order_is_refused(features):
    with pytest.raises(ValueError):
        run_emulated(features, "sideways")
    proc = run_program([features], env={"PPCG_EMU_ORDER": "sideways"})
    assert proc.returncode != 0 and "PPCG_EMU_ORDER" in proc.stderr


def test_compile_errors_point_at_the_cu_file(tmp_path):
    cu = tmp_path / "broken_kernel.cu"
    cu.write_text(
        "#include <cuda_runtime.h>\n\n__global__ void k(int *a)\n{\n  a[0] = undefined_name;\n}\n"
    )
    with pytest.raises(BuildError) as info:
        build_emulated([cu], tmp_path / "broken")
    assert "broken_kernel.cu:5" in info.value.stderr


def test_unparsable_launch_is_a_build_error(tmp_path):
    cu = tmp_path / "bad_host.cu"
    cu.write_text("int main() { k<<<1>>>(); }\n")
    with pytest.raises(BuildError, match="bad_host.cu"):
        build_emulated([cu], tmp_path / "bad")


def test_hanging_program_times_out():
    proc = run_program(["sleep", "5"], timeout=0.2)
    assert proc.returncode == 124
    assert "timed out" in proc.stderr


def test_header_is_precompiled_once_into_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PPCG_EMU_CACHE_DIR", str(tmp_path / "cache"))
    cu = tmp_path / "tiny.cu"
    cu.write_text("#include <cuda.h>\n__global__ void k() {}\nint main() { k<<<1, 1>>>(); }\n")
    build_emulated([cu], tmp_path / "tiny", source_dir=tmp_path / "src")
    (pch,) = (tmp_path / "cache").glob("*/cuda_emu.h.gch")
    first_line = (tmp_path / "src" / "tiny.emu.cpp").read_text().splitlines()[0]
    assert first_line == f'#include "{pch.with_suffix("")}"'
    assert run_emulated(tmp_path / "tiny").returncode == 0


@pytest.fixture(scope="module")
def warps(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("emu") / "warps"
    build_emulated([EMU / "warps.cu"], exe)
    return exe


@pytest.mark.parametrize("order", ORDERS)
def test_a_block_reduction_with_shuffles_and_a_last_block(warps, order):
    """Shuffle trees, shared memory across warps, __threadfence and atomicInc's ticket:
    1,000 values in blocks of 128, the last block adding the partials in order."""
    proc = run_emulated(warps, order, ["sum"])
    assert proc.returncode == 0, proc.stderr
    total, expected, count = proc.stdout.split()
    assert abs(float(total) - float(expected)) <= 1e-9 * float(expected)
    assert count == "0"        # atomicInc wrapped back to 0 after the last of 8 blocks


@pytest.mark.parametrize("order", ORDERS)
def test_warp_shuffles_give_what_the_hardware_gives(warps, order):
    proc = run_emulated(warps, order, ["lanes"])
    assert proc.returncode == 0, proc.stderr
    rows = [list(map(int, line.split())) for line in proc.stdout.splitlines()]
    for t, (all_lanes, scan, five, eight) in enumerate(rows):
        lane = t % 32
        assert all_lanes == sum(range(32))
        assert scan == lane * (lane + 1) // 2
        assert five == (t - lane + 5) * 10                   # lane 5 of the caller's warp
        assert eight == (lane + 3 if lane % 8 + 3 < 8 else lane)   # within segments of 8 lanes


def test_a_shuffle_that_half_the_warp_skips_is_reported(warps):
    proc = run_emulated(warps, "forward", ["diverged"])
    assert proc.returncode != 0
    assert "warp-level operation" in proc.stderr and "warps.cu" in proc.stderr


REVERSED_COPY = r"""
#include <stdio.h>
#include <cuda_runtime.h>
__global__ void copy_back(float *A, int n)
{
  for (int c0 = -n + 1; c0 <= 0; c0 += 2)
    A[-2 * c0] = A[-c0];
}
int main(void)
{
  float host[4] = {0, 1, 2, 3}, *dev;
  cudaMalloc((void **) &dev, sizeof host);
  cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice);
  copy_back<<<1, 1>>>(dev, 2);
  cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
  printf("%g %g %g %g\n", host[0], host[1], host[2], host[3]);
  return 0;
}
"""


def test_a_loop_gcc_12_drops_runs_in_the_emulation(tmp_path):
    """Fuzz 2813:263: GCC 12's ivopts (g++ -O1) drops this loop, the shape isl prints for
    a reversed loop; the emulation builds with -fno-ivopts so that it checks ppcg-py."""
    source = tmp_path / "copy.cu"
    source.write_text(REVERSED_COPY)
    build_emulated([source], tmp_path / "copy")
    assert run_emulated(tmp_path / "copy").stdout.split() == ["0", "1", "1", "3"]
