"""benchmarks/mapping.py: its numbers for gemm and durbin at MINI, and its C evaluator
(which must compute generated size expressions as C does and execute nothing else)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "mapping.py"
_SPEC = importlib.util.spec_from_file_location("mapping_benchmark", _PATH)
mapping = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = mapping     # dataclasses look their module up by name
_SPEC.loader.exec_module(mapping)   # which puts the repository root on sys.path

from polybench.kernels import KERNELS, by_name  # noqa: E402


def test_gemm_is_one_tiled_kernel_with_its_three_arrays_on_the_device():
    sizes = by_name("gemm").sizes_of("MINI")
    m = mapping.map_kernel(by_name("gemm"), "MINI", ("--sizes", "ppcg"))     # PPCG's 32x32 tiles
    assert m.parameters == {"ni": sizes["NI"], "nj": sizes["NJ"], "nk": sizes["NK"]}
    assert len(m.launches) == 1 and m.single_thread == 0 and m.shared_arrays == 1
    assert m.device_bytes == (sizes["NI"] * sizes["NJ"] + sizes["NI"] * sizes["NK"] + sizes["NK"] * sizes["NJ"]) * 8
    (launch,) = m.launches
    assert launch.runs == 1 and all(b > 1 for b in launch.block)
    # one block per 32x32 tile of C (nj along x), as few as MINI's sizes need
    assert launch.grid == (((sizes["NJ"] + 31) // 32,) * 2, ((sizes["NI"] + 31) // 32,) * 2)
    assert m.notes == ()
    assert "| gemm | 1 | 1 | 0 | 0 | 0 |" in mapping.table_row(m)


def test_durbin_launches_inside_its_host_loop_run_once_per_iteration():
    n = by_name("durbin").sizes_of("MINI")["N"]
    m = mapping.map_kernel(by_name("durbin"), "MINI", ["--no-device-loops"])
    assert m.parameters == {"n": n} and m.notes == ()
    assert {launch.runs for launch in m.launches} <= {1, n - 1}
    assert any(launch.runs == n - 1 for launch in m.launches)
    assert m.device_bytes >= 3 * n * 8     # r, y and z at least


def test_durbin_device_loop_is_one_launch_of_one_block():
    m = mapping.map_kernel(by_name("durbin"), "MINI")
    (launch,) = m.launches
    assert launch.kernel.startswith("device_loop") and launch.runs == 1 and m.notes == ()
    assert launch.grid == ((1, 1),) and launch.block[0] >= 32


def test_ppcg_numbers_cover_every_kernel_but_heat_3d():
    assert set(mapping.PPCG_MAPPING) == {k.name for k in KERNELS} - {"heat-3d"}


@pytest.mark.parametrize("expr, value", [
    ("-7 / 2", -3), ("-7 % 2", -1), ("ppcg_floord(-7, 2)", -4), ("2000 * 2000 * sizeof(double)", 32_000_000),
    ("ppcg_max(1, ppcg_min(32768L, (n + 31) / 32))", 63), ("(n >= 2 && n <= 3) ? (1) : (n - 1)", 1999),
    ("sizeof(float)", 4),
])
def test_c_values_follow_c(expr, value):
    assert mapping.c_value(expr, {"n": 2000}) == value


@pytest.mark.parametrize("expr", ["__import__('os').system('true')", "printf(\"x\")", "n", "1.5 * 2", "*p"])
def test_anything_but_integer_arithmetic_over_known_names_is_refused(expr):
    with pytest.raises(mapping.NotConstant):
        mapping.c_value(expr, {})


def test_launches_know_their_loops_and_guards():
    host = """
    for (int c0 = 1; c0 < n; c0++) {
      if (c0 >= 10) {
        dim3 k0_dimBlock(32);
        dim3 k0_dimGrid(ppcg_max(1, (c0 + 31) / 32));
        kernel0 <<<k0_dimGrid, k0_dimBlock>>> (dev_x, n, c0);
      } else {
        kernel1 <<<1, 1>>> (dev_x, n, c0);
      }
    }
    """
    first, second = mapping.launch_sites(host)
    env = {"n": 100}
    assert [mapping.evaluate_launch(s, env).runs for s in (first, second)] == [90, 9]
    launch = mapping.evaluate_launch(first, env)
    assert launch.block == (32,) and launch.grid == ((1, 4),) and not launch.single_thread
    assert mapping.evaluate_launch(second, env).single_thread


def test_kernel_bodies_count_shared_and_private_arrays_and_loops():
    kernel_file = """
__global__ void __launch_bounds__(512) kernel0(double *A, int n)
{
  __shared__ double shared_A[32][32];
  double private_C[1][2];
  for (int c0 = 0; c0 < n; c0++) {
  }
}

__global__ void kernel1(float *x)
{
  x[0] = 1.0f;
}
"""
    bodies = mapping.kernel_bodies(kernel_file)
    assert bodies["kernel0"] == mapping.KernelBody(shared_arrays=1, shared_bytes=8192, private_bytes=16, loops=1)
    assert bodies["kernel1"] == mapping.KernelBody()
