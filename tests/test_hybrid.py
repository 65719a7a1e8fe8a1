"""Split tiles along a stencil's time loop (CUDA, --hybrid; schedule/gpu/hybrid.py): where
they apply and why not elsewhere, the launches they make, the check that the tiles'
order respects every dependence, and the stencils run in the CPU emulation of CUDA in
three orders of the threads, at sizes that are no multiples of the tiles, against gcc."""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from polybench_cases import POLYBENCH, cuda_outputs, kernel_config, kernel_source
from ppcg_py.verify.harness import VerifyConfig
from ppcg_py.diagnostics import Diagnostics
from ppcg_py.extract import extract_scops
from ppcg_py.isl_context import new_context
from ppcg_py.options import Options
from ppcg_py.schedule.gpu.hybrid import HybridPlan, _violated, hybrid_schedule
from ppcg_py.schedule.loop_extents import in_bounds_instances
from ppcg_py.schedule.scheduler import scheduling_start
from ppcg_py.verify.harness import verify

HERE = Path(__file__).parent / "hybrid"

ORDERS = ("forward", "reverse", "shuffle")
NOTE = re.compile(r"--hybrid: split tiles of ([\d x]+) along .*\(cut into phases along ([\d, ]+)\), "
                  r"(\d+) time steps? per launch, (\d+) launches")


@pytest.mark.parametrize("kernel, tiles, cut, steps, launches, buffers", [
    ("jacobi-1d", "128", "0", 16, 2, {"A", "B"}),
    ("jacobi-2d", "32 x 32", "0, 1", 8, 4, {"A", "B"}),
    ("heat-3d", "16 x 16 x 128", "0, 1", 4, 4, set()),
    ("fdtd-2d", "32 x 32", "0, 1", 4, 4, {"ex", "ey", "hz"}),
])
def test_stencils_get_split_tiles(tmp_path, kernel, tiles, cut, steps, launches, buffers):
    """Each launch runs several time steps of its tiles, a barrier after each step; the
    host loops over the bands of steps and launches each phase. The tiles' arrays stay
    in shared memory for the launch (declared once, before the steps), where a tile's
    box fits: not heat-3d's 16 x 16 x 128."""
    proc, kernels, host = cuda_outputs(tmp_path, kernel_source(kernel), "--hybrid")
    assert proc.returncode == 0, proc.stderr
    assert NOTE.search(proc.stderr).groups() == (tiles, cut, str(steps), str(launches)), proc.stderr
    functions = re.findall(r"__global__ void __launch_bounds__\(\d+\) (hybrid_launch\d+)", kernels)
    assert len(functions) == launches
    assert kernels.count("__syncthreads();") >= launches
    assert len(re.findall(r"hybrid_launch\d+ <<<", host)) == launches
    for body in re.split(r"__global__ void ", kernels)[1:]:
        before_steps = body[:body.index("for (")]
        assert set(re.findall(r"__shared__ double shared_(\w+)\[", before_steps)) >= buffers, body[:400]
        assert body.count("__shared__") == len(re.findall(r"__shared__ double shared_(\w+)\[", before_steps))
    assert ("reuse across the launch's steps" in proc.stderr) == bool(buffers)
    if not buffers:
        assert "its tile alone (262144 bytes) does not fit in shared memory" in proc.stderr


LOAD = re.compile(r"\bshared_\w+(?:\[[^]]*\])+ = (?!shared_|private_)[A-Za-z_]\w*\[[^;]*\];")
STORE = re.compile(r"(?<![\w.])(?!shared_|private_)[A-Za-z_]\w*\[[^;=]*\] = shared_\w+(?:\[[^]]*\])+;")


@pytest.mark.parametrize("kernel", ["jacobi-1d", "jacobi-2d", "fdtd-2d"])
def test_a_launch_copies_its_buffers_around_its_steps(tmp_path, kernel):
    """A launch loads its buffers before its first barrier (the one right after the
    loads) and stores them after its last (the last step's), once per launch, not inside
    the steps' loop, where they would run at the first and last steps, whose values are
    piecewise (memory/tree.py `launch_copies`)."""
    proc, kernels, _ = cuda_outputs(tmp_path, kernel_source(kernel), "--hybrid")
    assert proc.returncode == 0, proc.stderr
    for body in re.split(r"__global__ void ", kernels)[1:]:
        first, last = body.index("__syncthreads();"), body.rindex("__syncthreads();")
        loads, stores = list(LOAD.finditer(body)), list(STORE.finditer(body))
        assert loads and stores, body[:600]
        assert all(m.start() < first for m in loads), body
        assert all(m.start() > last for m in stores), body
        assert body.index("for (", first) < last       # the steps' loop between them


@pytest.mark.parametrize("option, reason", [
    ("--no-shared-memory", None),
    ("--warp-shuffles", "its neighbours come by warp shuffles"),
])
def test_launch_buffers_give_way(tmp_path, option, reason):
    """No shared memory asked for, or the neighbours passed by warp shuffles from
    global memory: the tiles' data stays in global memory."""
    proc, kernels, _ = cuda_outputs(tmp_path, kernel_source("jacobi-1d"), "--hybrid", option)
    assert proc.returncode == 0, proc.stderr
    assert "__shared__" not in kernels
    if reason:
        assert reason in proc.stderr


@pytest.mark.parametrize("kernel, reason", [
    ("seidel-2d", "a dependence stays within one step"),
    ("adi", "a dependence stays within one step"),
    ("gemm", "no loop around sweeps at its top level"),
])
def test_where_it_does_not_apply_verbose_says_why(tmp_path, kernel, reason):
    proc, kernels, _ = cuda_outputs(tmp_path, kernel_source(kernel), "--hybrid")
    assert proc.returncode == 0, proc.stderr
    assert f"--hybrid does not apply to the SCoP of 'kernel_{kernel.replace('-', '_')}': " in proc.stderr
    assert reason in proc.stderr
    assert "hybrid_launch" not in kernels


@pytest.mark.parametrize("args, reason", [
    (("--target=opencl",), "it applies to the CUDA target"),
    (("--tile-sizes", "16,16"), "sizes are given"),
])
def test_options_it_does_not_combine_with(tmp_path, args, reason):
    proc, _, _ = cuda_outputs(tmp_path, kernel_source("jacobi-2d"), "--hybrid", *args)
    assert proc.returncode == 0, proc.stderr
    assert reason in proc.stderr


def _stencil(source: Path):
    scop = extract_scops(str(source), new_context(), include_dirs=(str(POLYBENCH / "utilities"),
                                                                   str(source.parent)))[0]
    options = Options(hybrid=True)
    deps = scheduling_start(scop, options, Diagnostics())[0]
    return scop, deps.all


def test_the_order_check_rejects_tiles_that_break_a_dependence():
    """jacobi-2d's split tiles respect every dependence; the same tiles with no phases
    along the first dimension (as if nothing moved along it) put a dependence between
    two tiles of one launch, and the check says so."""
    scop, deps = _stencil(kernel_source("jacobi-2d"))
    plan = hybrid_schedule(scop, deps, in_bounds_instances(scop), scop.schedule)
    assert isinstance(plan, HybridPlan), plan
    tiles, = plan.tiles
    assert _violated(tiles, deps) is None
    assert "cross between tiles of one launch" in _violated(replace(tiles, split=(False, True)), deps)


@pytest.mark.parametrize("kernel, defines, buffers", [
    ("jacobi-1d", ("TSTEPS=21", "N=301"), True),
    ("jacobi-2d", ("TSTEPS=11", "N=45"), True),
    ("heat-3d", ("TSTEPS=7", "N=21"), False),   # 21 x 21 x 21 doubles: over 48 KiB
    ("heat-3d", ("TSTEPS=5", "N=11"), True),    # the tile whole along k: the array's extent bounds it
    ("fdtd-2d", ("TMAX=9", "NX=37", "NY=45"), True),
])
def test_stencils_with_split_tiles_verify(tmp_path, kernel, defines, buffers):
    """Sizes that are no multiples of the tiles (nor the steps of the bands), threads in
    three orders: a missing barrier between two steps fails (tried by removing it), as
    does one missing after the loads of the buffers that last a launch or before their
    stores (tried: jacobi-1d, jacobi-2d and fdtd-2d fail)."""
    config = replace(kernel_config(kernel, ppcg_args=("--hybrid",), orders=ORDERS), defines=defines)
    report = verify(config, tmp_path)
    assert report.ok, report.summary()
    proc, kernels, _ = cuda_outputs(tmp_path, kernel_source(kernel), "--hybrid", *(f"-D{d}" for d in defines))
    assert proc.returncode == 0, proc.stderr
    assert ("__shared__" in kernels) == buffers


def test_a_time_loop_among_other_statements_verifies(tmp_path):
    """The grid filled before the time loop and a row summed after it: isl's schedule
    keeps the loop under a filter of its own, whose subtree the split tiles replace."""
    proc, kernels, _ = cuda_outputs(tmp_path, HERE / "init_then_stencil.c", "--hybrid")
    assert proc.returncode == 0, proc.stderr
    assert NOTE.search(proc.stderr).groups() == ("32 x 32", "0, 1", "8", "4"), proc.stderr
    report = verify(VerifyConfig(source=HERE / "init_then_stencil.c", ppcg_args=("--hybrid",), orders=ORDERS,
                                 data_type="float"), tmp_path / "verify")
    assert report.ok, report.summary()


@pytest.mark.parametrize("kernel", ["jacobi-2d", "heat-3d"])
def test_split_tiles_build_with_clang(tmp_path, kernel):
    """clang/LLVM's NVPTX back end builds the launches of split tiles (ptxas checks its PTX)."""
    from ppcg_py.verify.clang import clang_available, clang_check, ptxas_path

    if not clang_available() or ptxas_path() is None:
        pytest.skip("clang++-22 or ptxas not installed (make clang)")
    source = kernel_source(kernel)
    proc, kernels, _ = cuda_outputs(tmp_path, source, "--hybrid")
    assert proc.returncode == 0 and "hybrid_launch0" in kernels, proc.stderr
    files = sorted((tmp_path / "out").glob("*.cu"))
    resources = clang_check(files, tmp_path / "out" / f"{kernel}_kernel.cu",
                            include_dirs=(str(POLYBENCH / "utilities"), str(source.parent)))
    assert {f"hybrid_launch{k}" for k in range(4)} <= set(resources)


def test_buffers_chosen_by_the_step_verify(tmp_path):
    """Pluto's `A[(t + 1) % 2][i][j]` from `A[t % 2]`: the buffer subscript follows from the
    step, so the positions are (i, j), split along both."""
    proc, _, _ = cuda_outputs(tmp_path, HERE / "parity_buffers.c", "--hybrid")
    assert proc.returncode == 0, proc.stderr
    assert NOTE.search(proc.stderr).groups() == ("16 x 32", "0, 1", "8", "4"), proc.stderr
    report = verify(VerifyConfig(source=HERE / "parity_buffers.c", ppcg_args=("--hybrid",), orders=ORDERS),
                    tmp_path / "verify")
    assert report.ok, report.summary()


def test_a_block_that_may_run_several_tiles_keeps_them_in_global_memory(tmp_path):
    """Arrays sized by a parameter: nothing bounds the tiles, so the grid (64 blocks) may
    wrap around them, and one block's buffer would serve two tiles: the tiles' data stays
    in global memory, and -v says why."""
    proc, kernels, _ = cuda_outputs(tmp_path, HERE / "vla_stencil.c", "--hybrid")
    assert proc.returncode == 0, proc.stderr
    assert "hybrid_launch" in kernels and "__shared__" not in kernels
    assert "a block may run several tiles" in proc.stderr


def test_constant_sizes_keep_their_buffers(tmp_path):
    """A stencil whose sizes are constants: the launches' buffers are planned (isl's
    coalescing crashed the compiling process on their element sets, and the retry kept
    every array in global memory with a warning), and the code verifies."""
    source = HERE / "constant_jacobi_2d.c"
    proc, kernels, _ = cuda_outputs(tmp_path, source, "--hybrid")
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr, proc.stderr
    assert NOTE.search(proc.stderr) and "reuse across the launch's steps" in proc.stderr, proc.stderr
    assert "__shared__ double shared_A[" in kernels and "__shared__ double shared_B[" in kernels
    report = verify(VerifyConfig(source=source, ppcg_args=("--hybrid",), orders=ORDERS), tmp_path / "verify")
    assert report.ok, report.summary()
