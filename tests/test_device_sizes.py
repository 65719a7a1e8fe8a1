"""Sizes chosen for the target GPU when the user gives none (schedule/gpu/device_sizes.py)."""
from __future__ import annotations

import math
import subprocess
import sys

import pytest

from ppcg_py.extract import extract_scops
from ppcg_py.gpu_targets import GPUS, gpu_named
from ppcg_py.isl_context import new_context
from ppcg_py.options import Options
from ppcg_py.schedule.gpu import schedule_scop
from ppcg_py.schedule.gpu.device_sizes import choose_sizes
from ppcg_py.verify.harness import VerifyConfig, verify

from polybench_cases import POLYBENCH, kernel_source

H100 = GPUS["H100"]
ALL_KERNELS = ["2mm", "3mm", "adi", "atax", "bicg", "cholesky", "correlation", "covariance", "deriche",
               "doitgen", "durbin", "fdtd-2d", "floyd-warshall", "gemm", "gemver", "gesummv", "gramschmidt",
               "heat-3d", "jacobi-1d", "jacobi-2d", "lu", "ludcmp", "mvt", "nussinov", "seidel-2d", "symm",
               "syr2k", "syrk", "trisolv", "trmm"]
FAST_KERNELS = ["gemm", "heat-3d", "atax", "jacobi-2d", "fdtd-2d"]


def _scheduled(name: str, dataset: str = "LARGE", **options):
    ctx = new_context()
    opts = Options(include_dirs=(str(POLYBENCH / "utilities"),), defines=(f"{dataset}_DATASET",),
                   device_sizes=True, **options)
    scop = extract_scops(str(kernel_source(name)), ctx, include_dirs=opts.include_dirs, defines=opts.defines)[0]
    return schedule_scop(scop, opts)


def test_a_3d_stencil_fills_the_device_with_three_block_dimensions():
    """heat-3d at LARGE (120^3): PPCG's 32x32x32 tiles, 4x4 blocks of 32x4x4 threads run 3% of
    an H100; the chosen sizes map all three loops to blocks, thread x on the innermost."""
    for kernel in _scheduled("heat-3d").kernels:
        ks = kernel.sizes
        assert len(ks.grid) == 3 and len(ks.block) == 3, ks
        assert ks.block[-1] >= 32, ks
        blocks = math.prod(math.ceil(118 / t) for t in ks.tile)
        assert blocks * math.prod(ks.block) >= H100.resident_threads, ks
        assert "chosen for H100" in kernel.sizes_reason


def test_kernels_that_fill_the_device_keep_ppcgs_tiles():
    """gemm at LARGE launches 550,000 threads with PPCG's sizes: its 32x32 tiles (and their
    shared-memory reuse) stay."""
    (kernel,) = _scheduled("gemm").kernels
    assert kernel.sizes.tile == (32, 32, 32) and kernel.sizes.block == (32, 16)
    assert "PPCG's sizes fill" in kernel.sizes_reason


@pytest.mark.parametrize("extents, lead", [((118, 118, 118), 3), ((20, 30), 2), ((7,), 1), ((None, None), 2),
                                           ((4000, 3), 2), ((3, 5000, 9), 3), ((100, 100, 100), 1)])
def test_chosen_sizes_are_launchable(extents, lead):
    for gpu in GPUS.values():
        sizes = choose_sizes(gpu, extents, lead).sizes
        assert len(sizes.tile) == len(extents)
        assert math.prod(sizes.block) <= gpu.max_threads_per_block
        assert all(b <= t for b, t in zip(sizes.block, sizes.tile))
        assert len(sizes.block) == min(3, lead) and len(sizes.grid) <= len(sizes.block)
        limits = (64, 1024, 1024)[3 - len(sizes.block):]
        assert all(b <= limit for b, limit in zip(sizes.block, limits))
        assert all(0 < g <= 32768 and g & (g - 1) == 0 for g in sizes.grid)   # int, and a power of two


def test_short_loops_get_small_blocks_spread_over_the_sms():
    """A 2-D kernel of 20x30 points: one point per thread, every point a thread."""
    sizes = choose_sizes(H100, (20, 30), 2).sizes
    assert sizes.block == sizes.tile[:2] or math.prod(sizes.block) >= 20 * 30


@pytest.mark.parametrize("name", FAST_KERNELS)
def test_sizes_within_the_device_limits(name):
    _check_limits(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(ALL_KERNELS) - set(FAST_KERNELS)))
def test_sizes_within_the_device_limits_every_polybench_kernel(name):
    _check_limits(name)


def _check_limits(name: str) -> None:
    for kernel in _scheduled(name).kernels:
        ks = kernel.sizes
        assert math.prod(ks.block) <= H100.max_threads_per_block, (kernel.name, ks)
        assert all(b <= limit for b, limit in zip(ks.block, (64, 1024, 1024)[3 - len(ks.block):])), ks
        assert all(g <= 65535 for g in ks.grid), ks


def test_sizes_ppcg_keeps_ppcgs_defaults(tmp_path):
    """`--sizes ppcg`: PPCG's sizes, for comparison; `--dump-sizes` prints what was used."""
    source = kernel_source("heat-3d")
    flags = ["-I", str(POLYBENCH / "utilities"), "-DLARGE_DATASET", "--dump-sizes", "--output-dir", str(tmp_path)]
    ppcg = subprocess.run([sys.executable, "-m", "ppcg_py", *flags, "--sizes", "ppcg", str(source)],
                          capture_output=True, text=True, check=True).stdout
    chosen = subprocess.run([sys.executable, "-m", "ppcg_py", *flags, "--gpu", "A100", str(source)],
                            capture_output=True, text=True, check=True).stdout
    assert "kernel[0] -> tile[32, 32, 32]" in ppcg and "block[32, 4, 4]" in ppcg
    assert "kernel[0] -> tile[32, 32, 32]" not in chosen
    pinned = chosen.strip().splitlines()[-1]
    again = subprocess.run([sys.executable, "-m", "ppcg_py", *flags, "--sizes", pinned, str(source)],
                           capture_output=True, text=True, check=True).stdout
    assert again.strip().splitlines()[-1] == pinned


def test_an_unknown_gpu_is_a_usage_error(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--gpu", "V99", str(kernel_source("gemm"))],
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "unknown GPU 'V99'" in proc.stderr and "Traceback" not in proc.stderr


def test_gpu_names_as_nvidia_smi_prints_them():
    assert gpu_named("NVIDIA H100 80GB HBM3").name == "H100"
    assert gpu_named("NVIDIA H200").name == "H200"
    assert gpu_named("NVIDIA A100-SXM4-80GB") is None or gpu_named("NVIDIA A100-SXM4-80GB").name == "A100"
    assert gpu_named("Tesla V100") is None


@pytest.mark.parametrize("n", [21, 37])
def test_a_3d_stencil_with_chosen_sizes_computes_the_same(tmp_path, n):
    """Three block dimensions and two points per thread, at sizes that are no multiple of
    the tiles, in the emulation (both thread orders) against gcc."""
    source = tmp_path / "stencil3d.c"
    source.write_text(STENCIL_3D.replace("@N@", str(n)))
    result = verify(VerifyConfig(source=source), tmp_path / "work")
    assert result.ok, result.summary()


STENCIL_3D = """
#include <stdio.h>
#define N @N@
static void stencil(double A[N][N][N], double B[N][N][N])
{
#pragma scop
  for (int t = 0; t < 3; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          B[i][j][k] = 0.125 * (A[i+1][j][k] + A[i-1][j][k]) + 0.25 * (A[i][j+1][k] + A[i][j-1][k])
                     + 0.0625 * (A[i][j][k+1] + A[i][j][k-1]) + A[i][j][k];
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          A[i][j][k] = B[i][j][k];
  }
#pragma endscop
}
int main(void)
{
  static double A[N][N][N], B[N][N][N];
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) for (int k = 0; k < N; k++)
    A[i][j][k] = (i * 7 + j * 3 + k) % 11, B[i][j][k] = 0;
  stencil(A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\nbegin dump: A\\n");
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) for (int k = 0; k < N; k++)
    fprintf(stderr, "%0.17g\\n", A[i][j][k]);
  fprintf(stderr, "end   dump: A\\n==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""
