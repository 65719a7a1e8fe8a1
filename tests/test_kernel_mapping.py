"""The schedule stage's description of each kernel: its subtree of the schedule tree
and the host values of its launches."""
from __future__ import annotations

import islpy as isl
import pytest

from ppcg_py.extract import extract_scops
from ppcg_py.isl_context import maps_of, new_context
from ppcg_py.memory.tree import kernel_mark
from ppcg_py.options import Options
from ppcg_py.schedule.gpu import schedule_scop

from polybench_cases import POLYBENCH, kernel_source


def _kernels(name: str):
    return _scheduled(name).kernels


def _scheduled(name: str):
    ctx = new_context()
    options = Options(include_dirs=(str(POLYBENCH / "utilities"),), defines=("MINI_DATASET",))
    scop = extract_scops(str(kernel_source(name)), ctx, include_dirs=options.include_dirs,
                         defines=options.defines)[0]
    return schedule_scop(scop, options)


def _range(schedule: isl.UnionMap) -> isl.Set:
    values = None
    for m in maps_of(schedule):
        values = m.range() if values is None else values.union(m.range())
    return values


@pytest.mark.parametrize("name", ["gemm", "lu", "jacobi-2d", "fdtd-2d"])
def test_a_kernel_keeps_its_tree_under_its_mark(name):
    """mark → context (ids) → block filter → tile band (atomic) → thread filter → point
    band: the kernel is generated in the SCoP's one AST, from this tree."""
    scheduled = _scheduled(name)
    kinds = isl.schedule_node_type
    for kernel in scheduled.kernels:
        if not kernel.thread_ids:
            continue
        node = kernel_mark(scheduled.final_schedule.get_root(), kernel.name)
        path = []
        for _ in range(5):
            node = node.child(0)
            path.append(node.get_type())
        assert path == [kinds.context, kinds.filter, kinds.band, kinds.filter, kinds.band], kernel.name
        tile = node.parent().parent()
        assert all(tile.band_member_get_ast_loop_type(k) == isl.ast_loop_type.atomic
                   for k in range(tile.band_n_member()))
        threads = node.parent().filter_get_filter()
        assert threads.is_equal(kernel.domain.intersect(kernel.thread_filter)), kernel.name


@pytest.mark.parametrize("name", ["lu", "jacobi-2d", "fdtd-2d", "trisolv"])
def test_host_schedule_gives_the_launches_of_every_block(name):
    kernels = [k for k in _kernels(name) if k.host_depth > 0]
    assert kernels
    for kernel in kernels:
        launches = _range(kernel.host_schedule)
        outer = _range(kernel.outer_schedule)
        hosts = outer.project_out(isl.dim_type.set, kernel.host_depth, outer.dim(isl.dim_type.set) - kernel.host_depth)
        for block_id in kernel.block_ids:        # every block together
            position = hosts.find_dim_by_name(isl.dim_type.param, block_id)
            hosts = hosts.project_out(isl.dim_type.param, position, 1)
        hosts = hosts.align_params(launches.get_space())
        assert launches.align_params(hosts.get_space()).is_equal(hosts), kernel.name


def test_schedule_values_of_no_instance_is_an_empty_set():
    """A kernel can have no instance for any parameter value (fuzz ci:32): its tiles
    are an empty set, where isl cannot make a set of the empty union."""
    from ppcg_py.isl_context import schedule_values
    none = isl.UnionMap("[n] -> { S[i] -> [i, 0] : 0 <= i < n and i < 0 }")
    values = schedule_values(none, 2)
    assert values.is_empty() and values.dim(isl.dim_type.set) == 2
    some = isl.UnionMap("[n] -> { S[i] -> [i, 0] : 0 <= i < n; T[i] -> [i, 1] : 0 <= i < n }")
    assert schedule_values(some, 2).is_equal(isl.Set("[n] -> { [i, j] : 0 <= i < n and 0 <= j <= 1 }"))


@pytest.mark.parametrize("asked, used", [((8, 32, 8), (4, 32, 8)), ((2048,), (1024,)), ((100, 4, 4), (64, 4, 4)),
                                         ((16, 32), (16, 32))])
def test_block_sizes_stay_within_cuda_limits(asked, used):
    """A launch past CUDA's limits fails ("invalid configuration argument", fuzz 14:232):
    --sizes asking for more is cut to what a block can have."""
    from ppcg_py.schedule.sizes import launchable
    assert launchable(asked) == used
