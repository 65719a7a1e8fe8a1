"""Neighbours passed between lanes by warp shuffles (CUDA, --warp-shuffles): which
references qualify (memory/shuffles.py), where the code has them (whole tiles only:
codegen/ast.py `whole_tiles`), and the programs run in the CPU emulation of CUDA, in
three orders of the threads, against gcc's build (the emulation stops a run whose lanes
meet at a shuffle unevenly)."""
from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from polybench_cases import POLYBENCH, cuda_outputs, kernel_config, kernel_source
from ppcg_py.verify.harness import VerifyConfig, verify

HERE = Path(__file__).parent / "warp_shuffles"
ORDERS = ("forward", "reverse", "shuffle")
ROW = re.compile(r"(kernel\d+) (S_\d+) reads '(\w+)' at offsets \[([-\d, ]+)\] along thread x .* \(width (\d+)\)")


def _rows(stderr: str) -> list[tuple[str, str, str, str, int]]:
    return [(k, s, a, offsets, int(width)) for k, s, a, offsets, width in ROW.findall(stderr)]


@pytest.mark.parametrize("kernel, rows", [
    ("jacobi-2d", [("kernel0", "S_0", "A", "-1, 1", 16), ("kernel1", "S_1", "B", "-1, 1", 16)]),
    ("heat-3d", [("kernel0", "S_0", "A", "-1, 1", 32), ("kernel1", "S_1", "B", "-1, 1", 32)]),
    ("fdtd-2d", [("kernel0", "S_2", "hz", "1", 16), ("kernel1", "S_3", "ex", "1", 16)]),
    ("jacobi-1d", [("kernel0", "S_0", "A", "-1, 1", 32), ("kernel1", "S_1", "B", "-1, 1", 32)]),
])
def test_stencils_pass_their_rows_by_shuffles(tmp_path, kernel, rows):
    """The reads along thread x: jacobi-2d's block of 16 x 32 threads has two rows of 16
    lanes per warp; fdtd-2d's `hz[i][j] - hz[i][j - 1]` loads `hz[i][j - 1]` and takes
    `hz[i][j]` from the next lane; a column's neighbours (`A[i - 1][j]`) stay loads."""
    proc, kernels, _ = cuda_outputs(tmp_path, kernel_source(kernel), "--warp-shuffles")
    assert proc.returncode == 0, proc.stderr
    assert _rows(proc.stderr) == rows
    assert "__shfl_down_sync(0xffffffffu" in kernels
    assert ("__shfl_up_sync" in kernels) == (kernel != "fdtd-2d")


def test_without_the_option_the_kernels_load_every_neighbour(tmp_path):
    proc, kernels, _ = cuda_outputs(tmp_path, kernel_source("jacobi-2d"))
    assert proc.returncode == 0 and not _rows(proc.stderr), proc.stderr
    assert "__shfl" not in kernels


def test_partial_tiles_load_their_neighbours(tmp_path):
    """Only whole tiles shuffle: at 2000 x 2000, jacobi-2d's kernels keep one statement
    with its five loads for the tiles at the edges, and one with shuffles."""
    proc, kernels, _ = cuda_outputs(tmp_path, kernel_source("jacobi-2d"), "--warp-shuffles")
    assert proc.returncode == 0, proc.stderr
    shuffled = kernels.count("__shfl_up_sync")
    statements = kernels.count("] = 0.2 * (")
    assert shuffled == 2 and statements > shuffled


@pytest.mark.parametrize("target", ["opencl", "c"])
def test_other_targets_are_unchanged(tmp_path, target):
    """The option shapes CUDA's kernels only."""
    source = kernel_source("jacobi-2d")
    outputs = []
    for args in ((), ("--warp-shuffles",)):
        out = tmp_path / str(len(outputs))
        out.mkdir()
        target_args = ["-o", str(out / "out.c")] if target == "c" else ["-d", str(out)]
        proc = subprocess.run([sys.executable, "-m", "ppcg_py", f"--target={target}", *args, "-I",
                               str(POLYBENCH / "utilities"), *target_args, str(source)],
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        outputs.append({p.name: p.read_text() for p in out.iterdir()})
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("sizes", [
    "{kernel[i]->tile[32,36];kernel[i]->block[8,12]}",     # thread x's block: 12 lanes, no power of two
    "{kernel[i]->tile[32,40];kernel[i]->block[8,16]}",     # a tile of 40 for 16 threads: uneven points
    "{kernel[i]->tile[4,4];kernel[i]->block[2,4]}",        # 8 threads: no whole warp
])
def test_shapes_without_even_lanes_get_no_shuffles(tmp_path, sizes):
    proc, kernels, _ = cuda_outputs(tmp_path, kernel_source("jacobi-2d"), "--warp-shuffles", f"--sizes={sizes}")
    assert proc.returncode == 0, proc.stderr
    assert not _rows(proc.stderr) and "__shfl" not in kernels


@pytest.mark.parametrize("body", [
    "B[i][j] = A[i][m - 1 - j] + A[i][m - 2 - j];",         # the row read backwards
    "B[i][j] = A[i][2 * j] + A[i][2 * j + 1];",              # every other element
    "B[i][j] = A[j][i] + A[j + 1][i];",                      # along a column
    "B[i][j] = A[i][j] + A[i + 1][j];",                      # one element per row
    "B[i][j] = A[i][j] + A[i][j + 40];",                     # further than a segment
])
def test_reads_that_are_no_row_of_neighbours(tmp_path, body):
    source = tmp_path / "reads.c"
    source.write_text("void f(int n, int m, double A[n + 41][m + 41], double B[n][m]) {\n#pragma scop\n"
                      "  for (int i = 0; i < n; i++)\n    for (int j = 0; j < m; j++)\n"
                      f"      {body}\n#pragma endscop\n}}\n")
    proc, kernels, _ = cuda_outputs(tmp_path, source, "--warp-shuffles")
    assert proc.returncode == 0, proc.stderr
    assert not _rows(proc.stderr) and "__shfl" not in kernels


@pytest.mark.parametrize("kernel, defines, sizes", [
    ("jacobi-2d", ("SMALL_DATASET",), None),                 # n = 90: tiles of 32, one whole per row
    ("jacobi-2d", ("N=100", "TSTEPS=3"), "{kernel[i]->tile[8,16];kernel[i]->block[8,8]}"),   # segments of 8
    ("heat-3d", ("N=70", "TSTEPS=3"), None),
    ("fdtd-2d", ("MEDIUM_DATASET",), None),
    ("fdtd-2d", ("NX=70", "NY=100", "TMAX=3"), "{kernel[i]->tile[16,64];kernel[i]->block[4,64]}"),  # 2 warps a row
    ("jacobi-1d", ("N=1500", "TSTEPS=5"), None),
])
def test_polybench_stencils_with_shuffles_verify(tmp_path, kernel, defines, sizes):
    args = ("--warp-shuffles",) + ((f"--sizes={sizes}",) if sizes else ())
    config = replace(kernel_config(kernel, ppcg_args=args, orders=ORDERS), defines=defines)
    report = verify(config, tmp_path)
    assert report.ok, report.summary()
    assert "__shfl_" in "".join(p.read_text() for p in (tmp_path / "generated").glob("*_kernel.cu"))


@pytest.mark.parametrize("program, data_type", [("radius2_float.c", "float"), ("sides_int.c", "int"),
                                                 ("parity_halves.c", "double")])
def test_own_rows_verify(tmp_path, program, data_type):
    """Offsets -2..2 over floats; rows read at their sides only (no element of its own:
    each lane loads the left one), over ints; Pluto's `A[(t + 1) % 2]` from `A[t % 2]`,
    whose kernel writes the array (the other half); at sizes known at run time."""
    report = verify(VerifyConfig(source=HERE / program, ppcg_args=("--warp-shuffles",), orders=ORDERS,
                                 data_type=data_type), tmp_path)
    assert report.ok, report.summary()
    assert "__shfl_" in "".join(p.read_text() for p in (tmp_path / "generated").glob("*_kernel.cu"))


@pytest.mark.parametrize("kernel", ["jacobi-2d", "fdtd-2d"])
def test_shuffles_build_with_clang(tmp_path, kernel):
    """clang/LLVM's NVPTX back end takes the shuffles too (ptxas checks its PTX)."""
    from ppcg_py.verify.clang import clang_available, clang_check, ptxas_path

    if not clang_available() or ptxas_path() is None:
        pytest.skip("clang++-22 or ptxas not installed (make clang)")
    source = kernel_source(kernel)
    proc, kernels, _ = cuda_outputs(tmp_path, source, "--warp-shuffles")
    assert proc.returncode == 0 and "__shfl_" in kernels, proc.stderr
    files = sorted((tmp_path / "out").glob("*.cu"))
    resources = clang_check(files, tmp_path / "out" / f"{kernel}_kernel.cu",
                            include_dirs=(str(POLYBENCH / "utilities"), str(source.parent)))
    assert {"kernel0", "kernel1"} <= set(resources)
