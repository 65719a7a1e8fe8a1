"""Tile sizes for the CPU's caches (`schedule/cpu/cache_sizes.py`): read from Linux's cache
description, grown along the innermost point loop while the data each loop reuses fits,
and used by the C target only when the user gives no size."""
from __future__ import annotations

import subprocess
from pathlib import Path
import sys
from dataclasses import replace

import pytest

from ppcg_py.schedule.cpu.cache_sizes import (Caches, blocked_tile_sizes, cache_tile_sizes, edge_free_columns,
                                              host_caches, host_splits_wide_vectors, host_vector_bytes,
                                              shared_tile_size, splits_wide_vectors, vector_bytes, worth_tiling)
from ppcg_py.schedule.cpu.point_order import access_steps, point_order

from polybench_cases import POLYBENCH, kernel_source


def _write_cache(root, name, level, kind, size):
    index = root / name
    index.mkdir()
    (index / "level").write_text(f"{level}\n")
    (index / "type").write_text(f"{kind}\n")
    (index / "size").write_text(f"{size}\n")


def test_caches_are_read_from_sysfs(tmp_path):
    _write_cache(tmp_path, "index0", 1, "Data", "48K")
    _write_cache(tmp_path, "index1", 1, "Instruction", "32K")
    _write_cache(tmp_path, "index2", 2, "Unified", "2048K")
    _write_cache(tmp_path, "index3", 3, "Unified", "32M")
    assert host_caches.__wrapped__(tmp_path) == Caches(48 * 1024, 2048 * 1024)


def test_caches_default_without_sysfs(tmp_path):
    assert host_caches.__wrapped__(tmp_path / "missing") == Caches(32 * 1024, 512 * 1024)


@pytest.mark.parametrize("flags, expected", [("fpu sse2 avx avx2 avx512f avx512dq", 64), ("fpu sse2 avx avx2", 32),
                                             ("fpu sse2", 16), ("fp asimd", None)])
def test_vector_width_is_read_from_the_cpu_flags(tmp_path, flags, expected):
    info = tmp_path / "cpuinfo"
    info.write_text(f"processor\t: 0\nmodel name\t: some CPU\nflags\t\t: {flags}\n\nprocessor\t: 1\n")
    assert host_vector_bytes.__wrapped__(info) == expected


def test_vector_width_without_cpuinfo_is_unknown(tmp_path):
    assert host_vector_bytes.__wrapped__(tmp_path / "missing") is None


def test_the_environment_names_the_vector_width_of_another_machine(monkeypatch):
    monkeypatch.setenv("PPCG_PY_VECTOR_BYTES", "32")
    assert vector_bytes() == 32
    monkeypatch.setenv("PPCG_PY_VECTOR_BYTES", "")
    assert vector_bytes() == host_vector_bytes()


@pytest.mark.parametrize("vendor, family, flags, expected", [
    ("AuthenticAMD", 25, "sse2 avx avx2 avx512f avx512dq", True),          # Zen 4
    ("AuthenticAMD", 26, "sse2 avx avx2 avx512f avx512_vp2intersect", False),  # Zen 5: a line at full rate
    ("AuthenticAMD", 25, "sse2 avx avx2", False),                          # Zen 3: no AVX-512
    ("GenuineIntel", 6, "sse2 avx avx2 avx512f", False)])
def test_vectors_run_as_halves_on_zen_4_only(tmp_path, vendor, family, flags, expected):
    info = tmp_path / "cpuinfo"
    info.write_text(f"processor\t: 0\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: 17\n"
                    f"flags\t\t: {flags}\n\nprocessor\t: 1\nvendor_id\t: {vendor}\n")
    assert host_splits_wide_vectors.__wrapped__(info) is expected


def test_split_vectors_without_cpuinfo_are_not_assumed(tmp_path):
    assert host_splits_wide_vectors.__wrapped__(tmp_path / "missing") is False


def test_the_environment_says_whether_another_machine_splits_its_vectors(monkeypatch):
    monkeypatch.setenv("PPCG_PY_SPLIT_VECTORS", "1")
    assert splits_wide_vectors() is True
    monkeypatch.setenv("PPCG_PY_SPLIT_VECTORS", "0")
    assert splits_wide_vectors() is False
    monkeypatch.setenv("PPCG_PY_SPLIT_VECTORS", "")
    assert splits_wide_vectors() is host_splits_wide_vectors()


def _band_facts(kernel: str):
    """The first tilable band of the kernel's first SCoP, with its access steps and order."""
    import islpy as isl

    from ppcg_py.extract import extract_program
    from ppcg_py.isl_context import new_context
    from ppcg_py.options import Options
    from ppcg_py.schedule.scheduler import compute_schedule, scheduling_start

    source = kernel_source(kernel)
    scop = extract_program(str(source), new_context(), include_dirs=(str(POLYBENCH / "utilities"),
                                                                     str(source.parent)),
                           defines=("LARGE_DATASET",)).scops[0]
    options = Options(target="c", openmp=True, tile=True)
    deps, _, _, fixed, _ = scheduling_start(scop, options, None)

    def first_band(node):
        if node.get_type() == isl.schedule_node_type.band and node.band_n_member() > 1 \
                and node.band_get_permutable():
            return node
        return next((b for k in range(node.n_children()) if (b := first_band(node.child(k))) is not None), None)

    band = first_band(compute_schedule(scop, deps, options, None, fixed).get_root())
    steps = access_steps(band, scop)
    return scop, steps, point_order(band, scop, steps).order


def test_a_stencil_gets_a_long_innermost_tile():
    """No array of jacobi-2d stays put along a member: nothing is reused across tiles, so
    the innermost tile grows to the cap (gcc's untiled rows were faster than 32-pieces)."""
    scop, steps, order = _band_facts("jacobi-2d")
    sizes = cache_tile_sizes(steps, order, scop, Caches(32 * 1024, 512 * 1024))
    assert sizes[order[-1]] == 512 and all(sizes[m] == 32 for m in order[:-1]), sizes


@pytest.mark.parametrize("kernel, worth", [("jacobi-2d", False), ("heat-3d", False), ("gemm", True),
                                           ("doitgen", True)])
def test_a_band_is_tiled_only_where_a_tile_keeps_data_for_reuse(kernel, worth):
    """A stencil's accesses all move along every member: a tile would keep nothing (and
    ran 1.3x to 2x slower than the whole loops); gemm reuses B along i, A along j."""
    _, steps, order = _band_facts(kernel)
    assert worth_tiling(steps, order) == worth


def test_an_untiled_band_round_trips_as_empty_tile_sizes(tmp_path):
    """`tile[]` is what --dump-sizes prints for a band the model leaves whole, and what
    keeps it whole when given back (a sizes file of --autotune)."""
    dumped = _dumped_sizes(tmp_path)
    assert _dumped_sizes(tmp_path, "--sizes", dumped) == dumped
    assert "kernel[1] -> tile[32, 32]" in _dumped_sizes(tmp_path, "--sizes", "{ kernel[0] -> tile[] }")


def test_reuse_bounds_the_innermost_tile_by_the_caches():
    """gemm's B is reused along i: the k x j tile of it that the loops inside touch must
    stay in half of L1 (32 x 64 doubles in 32 KiB); a larger L1 allows a longer tile, and
    the whole tile must fit in half of L2."""
    scop, steps, order = _band_facts("gemm")
    j = order[-1]
    assert cache_tile_sizes(steps, order, scop, Caches(32 * 1024, 512 * 1024))[j] == 64
    assert cache_tile_sizes(steps, order, scop, Caches(128 * 1024, 512 * 1024))[j] == 256
    assert cache_tile_sizes(steps, order, scop, Caches(128 * 1024, 128 * 1024))[j] == 64
    assert cache_tile_sizes(steps, order, scop, Caches(4 * 1024, 512 * 1024))[j] == 32


def _dumped_sizes(tmp_path, *args):
    source = kernel_source("jacobi-2d")
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile", "--dump-sizes",
                           "-I", str(POLYBENCH / "utilities"), "-I", str(source.parent), "-DMINI_DATASET",
                           "--output-dir", str(tmp_path), *args, str(source)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("args, expected", [
    ((), "kernel[0] -> tile[]"),            # the model leaves a stencil's sweep whole
    (("-S", "32"), "kernel[0] -> tile[32, 32]"),
    (("--tile-sizes", "16,8"), "kernel[0] -> tile[16, 8]"),
    (("--sizes", "{ kernel[i] -> tile[4,4] }"), "kernel[0] -> tile[4, 4]"),
])
def test_the_user_sizes_win_and_dump_sizes_shows_the_choice(tmp_path, args, expected):
    assert expected in _dumped_sizes(tmp_path, *args)


def test_the_parallel_member_keeps_enough_tiles_for_the_threads():
    """doitgen's only parallel member is innermost: grown to 512 over np = 160, its tile
    loop would have one iteration, and one thread all the work; it stops at 128."""
    scop, steps, order = _band_facts("doitgen")
    parallel = order[-1]
    caches = Caches(32 * 1024, 512 * 1024)
    assert cache_tile_sizes(steps, order, scop, caches, parallel=parallel) == (128, 32)
    assert cache_tile_sizes(steps, order, scop, caches)[parallel] == 512
    # an access that jumps along it (bicg's A[i][j] in a loop over i): 128 rows, 128 pages
    jumping = replace(steps, arrays=steps.arrays + ("A",), steps=steps.steps + (("far", "unit"),))
    assert cache_tile_sizes(jumping, order, scop, caches, parallel=parallel) == (32, 32)
    # two arrays that jump (gesummv's A and B): 16 rows of each; eight arrays: a vector of rows
    both = replace(jumping, arrays=jumping.arrays + ("B",), steps=jumping.steps + (("far", "unit"),))
    assert cache_tile_sizes(both, order, scop, caches, parallel=parallel) == (16, 32)
    many = replace(jumping, arrays=jumping.arrays + tuple("CDEFGHI"), steps=jumping.steps + (("far", "unit"),) * 7)
    assert cache_tile_sizes(many, order, scop, caches, parallel=parallel) == (8, 32)


@pytest.mark.parametrize("caches, element, expected", [
    # gemm's band (i, j, k), 2 x 24 blocks: k's tile of B (k x 48) in 5/8 of L1, the
    # rows' tile of A (rows x k) in 1/8 of L2
    (Caches(32 * 1024, 1024 * 1024), 8, (256, 48, 48)),
    (Caches(32 * 1024, 512 * 1024), 8, (128, 48, 48)),
    (Caches(48 * 1024, 2048 * 1024), 8, (256, 48, 80)),
    (Caches(32 * 1024, 128 * 1024), 8, (64, 48, 48)),     # never fewer rows than 64
    (Caches(4 * 1024, 1024 * 1024), 8, (256, 48, 16)),    # never fewer than 16 steps of k
    (Caches(32 * 1024, 1024 * 1024), 4, (256, 48, 96)),
])
def test_wide_blocks_size_the_tile_for_the_operands_in_l1_and_l2(caches, element, expected):
    assert blocked_tile_sizes((32, 64, 32), (0, 2), (1, 24), True, element, caches) == expected


@pytest.mark.parametrize("caches, expected", [
    # syr2k's band (i, j, k), 4 x 8 blocks gathering A[j][k]: k's tile of those rows
    # (32 x k) in 1/8 of L2, up to 512; the rows' as for wide blocks
    (Caches(32 * 1024, 1024 * 1024), (64, 24, 512)),
    (Caches(32 * 1024, 512 * 1024), (64, 24, 256)),
    (Caches(32 * 1024, 4096 * 1024), (128, 24, 512)),
])
def test_gathering_blocks_get_a_long_tile_along_k(caches, expected):
    assert blocked_tile_sizes((32, 30, 32), (0, 4), (1, 8), False, 8, caches) == expected


@pytest.mark.parametrize("size, extent, multiple, threads, expected", [
    (256, 140, 2, 2, 70),       # doitgen's rows: one tile of 256 left a thread idle
    (256, 140, 4, 2, 72),       # whole blocks of 4 rows: 72 and 68
    (256, 1000, 2, 2, 256),     # gemm's 4 tiles of 256 already give each of 2 threads two
    (256, 1000, 2, 4, 250),     # 4 threads: a tile each
    (256, None, 2, 2, 256),     # unknown extent
    (256, 140, 2, 1, 256),      # one thread
    (64, 140, 2, 3, 48),        # no larger than the model's: 3 tiles of 48 and 44
])
def test_the_threads_shared_tile_cuts_the_extent_evenly(size, extent, multiple, threads, expected):
    assert shared_tile_size(size, extent, multiple, threads) == expected


@pytest.mark.parametrize("tile, extent, expected", [
    (48, 160, 40),      # doitgen: 16 columns left, a tenth: tiles of 40
    (48, 1100, None),   # gemm: 44 of 1100 left, 4 %
    (48, 144, None),    # no edge
    (48, 140, None),    # no multiple of 8 divides 140
    (48, 24, 24),       # one tile of 24 (2mm's D at MINI)
    (48, None, None),
])
def test_narrow_blocks_replace_a_wide_edge(tile, extent, expected):
    assert edge_free_columns(tile, extent, 8) == expected


def test_the_environment_names_another_machines_caches(monkeypatch):
    """PPCG_PY_CACHES (`L1,L2` in bytes): the caches the code is for, not this machine's."""
    monkeypatch.setenv("PPCG_PY_CACHES", f"{48 * 1024},{2048 * 1024}")
    assert host_caches.__wrapped__() == Caches(48 * 1024, 2048 * 1024)
    monkeypatch.setenv("PPCG_PY_CACHES", "not sizes")
    assert host_caches.__wrapped__(Path("/nonexistent")) == Caches(32 * 1024, 512 * 1024)
