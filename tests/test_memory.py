"""Memory hierarchy: shared-memory tiles, register tiles, barriers and minimal transfers."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import islpy as isl
import pytest

from ppcg_py.cli import main
from ppcg_py.isl_context import new_context
from ppcg_py.memory.box import fixed_box
from ppcg_py.verify.harness import VerifyConfig, run_ppcg, verify
from ppcg_py.verify.nvcc import nvcc_available, nvcc_resources

from polybench_cases import POLYBENCH, kernel_config, kernel_source

KERNELS = ["gemm", "2mm", "atax", "bicg", "mvt", "jacobi-2d", "lu", "trisolv",
           "syrk", "syr2k", "doitgen", "covariance", "fdtd-2d", "jacobi-1d"]
MODES = {
    "promote": (),
    "no-shared": ("--no-shared-memory",),
    "no-private": ("--no-private-memory",),
    "global-only": ("--no-shared-memory", "--no-private-memory"),
}
SIZES = {
    # tiles smaller than blocks in one dimension (block clamped), larger in the other
    "tile-vs-block": ("--sizes", "{ kernel[i] -> tile[8,64,5]; kernel[i] -> block[16,32]; kernel[i] -> grid[3,2] }"),
    # odd tiles that divide none of the array sizes, more shared memory allowed
    "odd-tiles": ("--tile-sizes", "7,13,3", "--max-shared-memory", "16384"),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("kernel", KERNELS)
def test_promotion_modes_verify(kernel, mode, tmp_path):
    report = verify(kernel_config(kernel, ppcg_args=MODES[mode]), tmp_path)
    assert report.ok, report.summary()


@pytest.mark.parametrize("sizes", list(SIZES))
@pytest.mark.parametrize("kernel", KERNELS)
def test_promotion_with_sizes_verify(kernel, sizes, tmp_path):
    report = verify(kernel_config(kernel, ppcg_args=SIZES[sizes], use_nvcc=False), tmp_path)
    assert report.ok, report.summary()


def _compile(tmp_path, kernel: str, *args: str) -> tuple[str, str]:
    src = kernel_source(kernel)
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--report", "-I", str(POLYBENCH / "utilities"),
                           "-I", str(src.parent), "-DSMALL_DATASET", *args, "--output-dir", str(tmp_path),
                           str(src)], capture_output=True, text=True, check=True)
    return proc.stderr, (tmp_path / f"{kernel}_kernel.cu").read_text()


def test_gemm_kernel_body_appears_once(tmp_path):
    """The tile loops are atomic: the k-tile loop also covers the tile of `C *= beta`
    alone, where isl would otherwise repeat the whole loop body under `if (nk <= 0)`."""
    _, code = _compile(tmp_path, "gemm")
    assert "nk <= 0" not in code
    assert code.count("*= beta;") == 2, code      # private_C[0][0] and private_C[0][1], once each
    assert len(re.findall(r"shared_A\[[^;]*\] = A\[", code)) == 1, code


def test_gemm_keeps_a_tile_in_shared_memory_and_c_in_registers(tmp_path):
    report, code = _compile(tmp_path, "gemm")
    assert re.search(r"group [AB]: shared shared_[AB]\[32\]\[32\]", report), report
    assert re.search(r"group C: private private_C\[1\]\[2\]", report), report
    assert re.search(r"__shared__ double shared_[AB]\[32\]\[32\];", code)
    assert "double private_C[1][2];" in code
    if nvcc_available():
        resources = nvcc_resources(tmp_path / "gemm_kernel.cu",
                                   include_dirs=[POLYBENCH / "utilities", kernel_source("gemm").parent])
        assert resources["kernel0"].shared_bytes <= 8192
        assert resources["kernel0"].shared_bytes > 0


def test_max_shared_memory_is_respected(tmp_path):
    report, code = _compile(tmp_path, "gemm", "--max-shared-memory", "4096")
    assert "shared_A" not in code and "shared_B" not in code, report
    report, code = _compile(tmp_path, "gemm", "--max-shared-memory", "16384")
    assert "shared_A" in code and "shared_B" in code, report


def test_harness_sees_a_missing_barrier(tmp_path):
    """Drop the barrier after gemm's copy into shared memory: some thread order must fail."""
    def without_barrier(cfg, out_dir):
        proc = run_ppcg(cfg, out_dir)
        kernel = out_dir / "gemm_kernel.cu"
        text = kernel.read_text()
        lines = text.split("\n")
        barriers = [k for k, line in enumerate(lines) if "__syncthreads();" in line]
        assert len(barriers) >= 2
        del lines[barriers[1]]   # the one between the copy-in and the computation
        kernel.write_text("\n".join(lines))
        return proc

    intact = verify(kernel_config("gemm", use_nvcc=False), tmp_path / "intact")
    assert intact.ok, intact.summary()
    broken = verify(kernel_config("gemm", use_nvcc=False), tmp_path / "broken", compiler=without_barrier)
    assert not broken.ok
    assert broken.mismatches, broken.summary()


TRANSFER_PROGRAM = """#include <stdio.h>
#define N 100
static void f(int n, double A[N], double B[N], double C[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = 2.0 * i;
  for (int i = 0; i < n; i++)
    C[i] = B[i] + 1.0;
#pragma endscop
}
int main(void)
{
  static double A[N], B[N], C[N];
  for (int i = 0; i < N; i++) { A[i] = -1.0; B[i] = i * 0.5; C[i] = -2.0; }
  f(77, A, B, C);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\n");
  const char *names[3] = {"A", "B", "C"};
  double *arrays[3] = {A, B, C};
  for (int a = 0; a < 3; a++) {
    fprintf(stderr, "begin dump: %s\\n", names[a]);
    for (int i = 0; i < N; i++) fprintf(stderr, "%0.17g ", arrays[a][i]);
    fprintf(stderr, "\\nend   dump: %s\\n", names[a]);
  }
  fprintf(stderr, "==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""


def test_transfers_are_minimal(tmp_path):
    src = tmp_path / "transfers.c"
    src.write_text(TRANSFER_PROGRAM)
    subprocess.run([sys.executable, "-m", "ppcg_py", "--output-dir", str(tmp_path), str(src)], check=True)
    host = (tmp_path / "transfers_host.cu").read_text()
    copies_in = [line for line in host.splitlines() if "cudaMemcpyHostToDevice" in line]
    copies_out = [line for line in host.splitlines() if "cudaMemcpyDeviceToHost" in line]
    assert not any("dev_A" in c for c in copies_in), "A is only written: nothing to copy in"
    assert any("dev_A" in c for c in copies_out)
    assert any("dev_B" in c for c in copies_in)
    assert not any("dev_B" in c for c in copies_out), "B is only read: nothing to copy back"
    assert not any("dev_C" in c for c in copies_in)
    # elements 77..99 are not written: they must keep their host values
    report = verify(VerifyConfig(source=src), tmp_path / "work")
    assert report.ok, report.summary()


def test_untouched_array_is_not_transferred(tmp_path):
    src = tmp_path / "untouched.c"
    src.write_text(TRANSFER_PROGRAM.replace("C[i] = B[i] + 1.0;", "A[i] += B[i];"))
    subprocess.run([sys.executable, "-m", "ppcg_py", "--output-dir", str(tmp_path), str(src)], check=True)
    host = (tmp_path / "untouched_host.cu").read_text()
    assert "dev_C" not in host


def _strided_box_covers(column, dim) -> bool:
    """Whether every element of the 1-d `column` is offset + stride * (lower + k), 0 <= k < extent."""
    ls = isl.LocalSpace.from_space(column.get_space())
    var = isl.PwAff.var_on_domain(ls, isl.dim_type.set, 0)

    def on(pa):
        return pa.align_params(column.get_space()).add_dims(isl.dim_type.in_, 1)
    position, inside = var, isl.Set.universe(column.get_space())
    if dim.stride > 1:
        stride = isl.Val(dim.stride, column.get_ctx())
        shifted = var.sub(on(dim.offset))
        inside = shifted.mod_val(stride).eq_set(isl.PwAff.zero_on_domain(ls))
        position = shifted.scale_down_val(stride).floor()
    low = on(dim.lower)
    high = low.add_constant_val(isl.Val(dim.extent, column.get_ctx()))
    return column.is_subset(inside.intersect(position.ge_set(low)).intersect(position.lt_set(high)))


@pytest.mark.parametrize("column, stride", [
    # isl's stride 16 is right, its offset (from a pair of opposite inequalities) is not
    # where p is not a multiple of 3: elements 0, 16 for p = 0, 1, 2 and 5, 21 for p = 3, 4, 5
    ("[p] -> { [e] : exists f : 0 <= p + 9e + 48f <= 2 and 0 <= e < 32 and 0 <= p < 6 }", 1),
    # an offset isl gets right is kept
    ("[p] -> { [e] : exists f : e = p + 16f and 0 <= e < 32 and 0 <= p < 16 }", 16),
])
def test_strided_box_covers_its_elements(column, stride):
    """A private box's stride is used only with an offset that every element is on
    (tests/regressions/private_copy_out_skewed_stride: 32 elements never stored back)."""
    column = isl.Set.read_from_str(new_context(), column)
    (dim,) = fixed_box(column, strides=True)
    assert _strided_box_covers(column, dim)
    assert dim.stride == stride


def test_writes_across_launches_are_no_reuse(tmp_path):
    """jacobi-1d writes each B[i] once per time step, and each time step is a launch: B
    must not get a register buffer (before, the writes of all time steps together
    looked like reuse; heat-3d's 64-element buffers cost 2.5 s of unrolling)."""
    report, code = _compile(tmp_path, "jacobi-1d")
    assert "private_" not in code, report
    assert re.search(r"group B: global \(no reuse and coalesced\)", report), report


def test_block_ownership_is_checked_only_where_the_loops_do_not_show_it(tmp_path):
    """gemm's tile loops start at the block id and step by the grid: no check. A fused
    kernel under a wrapping grid of 3 (fuzz 10:23) gets `(tile - b) % 3 == 0` checks."""
    _, code = _compile(tmp_path, "gemm")
    assert not re.search(r"% 256L? == 0", code), code
    wrapped = Path(__file__).parent / "regressions" / "wrapped_grid_tile_of_every_block.c"
    out = tmp_path / "wrapped"
    out.mkdir()
    assert main(["--sizes", "{ kernel[i] -> tile[8]; kernel[i] -> grid[3] }", "--output-dir", str(out),
                 str(wrapped)]) == 0
    kernel = (out / "wrapped_grid_tile_of_every_block_kernel.cu").read_text()
    assert re.search(r"\(c0 - b_0\) % 3 == 0", kernel), kernel
