"""Tiles along time on the C target (`schedule/cpu/time_tiles.py`): where a SCoP's outermost
loop carries dependences (a stencil's time loop, a factorisation's `k`), isl's schedule
without an outer parallel loop tiled over every member, its tiles run as wavefronts; the
model keeps them where the arrays outgrow L2 and each statement's rows vectorise."""
from __future__ import annotations

import re
import subprocess
from collections import defaultdict
from pathlib import Path
import sys

import pytest

from ppcg_py.verify.harness import verify

from polybench_cases import POLYBENCH, kernel_config, kernel_source
from test_target_c import carried_dependences

ODD_SIZES = "3,5,7,6"       # no PolyBench extent is a multiple of them
# trisolv is scheduled whole (for time tiles) only where isl's usual schedule runs no loop
# in parallel: its inner loops (at most 40 instances at MINI) must stay serial
_SERIAL_SHORT: dict[str, dict[str, int]] = defaultdict(dict, {"trisolv": {"min_parallel_work": 41}})


def _schedules(kernel: str, dataset: str, defines: tuple[str, ...] = (), **options):
    from ppcg_py.extract import extract_program
    from ppcg_py.isl_context import new_context
    from ppcg_py.options import Options
    from ppcg_py.schedule.cpu import schedule_for_cpu

    source = kernel_source(kernel)
    program = extract_program(str(source), new_context(), include_dirs=(str(POLYBENCH / "utilities"),
                                                                        str(source.parent)),
                              defines=(f"{dataset}_DATASET", *defines))
    options = {"target": "c", "openmp": True, "tile": True, **options}
    return [schedule_for_cpu(scop, Options(**options)) for scop in program.scops]


@pytest.mark.parametrize("kernel, tiled", [("jacobi-2d", True), ("heat-3d", True), ("fdtd-2d", True),
                                           ("cholesky", True), ("lu", True),
                                           ("seidel-2d", False),   # its rows are a recurrence
                                           ("jacobi-1d", False),   # its arrays fit in L2
                                           ("adi", False),         # scalars set before the time loop
                                           ("gemm", False)])       # its outermost loop is parallel
def test_the_model_tiles_along_time_where_it_pays(kernel, tiled):
    from ppcg_py.schedule.cpu.cache_sizes import host_caches
    if host_caches().l2_bytes >= 8 * 1024 * 1024:
        pytest.skip("an L2 cache of 8 MiB or more holds LARGE's grids")
    assert [s.time_tiled for s in _schedules(kernel, "LARGE", cache_tiles=True)][:1] == [tiled]


def test_small_grids_are_not_tiled_along_time():
    assert not _schedules("jacobi-2d", "MINI", cache_tiles=True)[0].time_tiled
    assert _schedules("jacobi-2d", "MINI", cache_tiles=True, time_tiles="always")[0].time_tiled


@pytest.mark.parametrize("kernel", ["jacobi-2d", "heat-3d", "fdtd-2d", "seidel-2d", "jacobi-1d", "cholesky", "lu",
                                    "nussinov", "floyd-warshall", "trisolv"])
def test_wavefront_loops_carry_only_private_scalars(kernel):
    """The OpenMP loop of a wavefront runs tiles that depend on none of each other: every
    dependence between its iterations is one of a private scalar (none here)."""
    schedules = _schedules(kernel, "MINI", time_tiles="always", tile_sizes=(3, 5, 7, 6), **_SERIAL_SHORT[kernel])
    for scheduled in schedules:
        for loop in scheduled.parallel:
            carried = carried_dependences(scheduled, loop)
            assert carried.is_empty(), (loop.name, str(carried))
    if kernel != "floyd-warshall":      # no permutable band around its k
        assert schedules[0].time_tiled and schedules[0].parallel


@pytest.mark.parametrize("kernel", ["jacobi-2d", "heat-3d", "fdtd-2d", "seidel-2d", "lu", "trisolv"])
def test_time_tiles_verify_with_1_2_4_threads(kernel, tmp_path, monkeypatch):
    """Sizes that divide no extent: partial tiles at every edge, wavefronts of a few tiles;
    code for 64-byte vectors run as halves, so that the stencils' rows are `omp simd`
    loops of 4."""
    monkeypatch.setenv("PPCG_PY_VECTOR_BYTES", "64")
    monkeypatch.setenv("PPCG_PY_SPLIT_VECTORS", "1")
    args = ("--tile", "--time-tiles=always", f"--tile-sizes={ODD_SIZES}",
            *(f"--min-parallel-work={work}" for work in _SERIAL_SHORT[kernel].values()))
    report = verify(kernel_config(kernel, dataset="MINI", ppcg_args=args, target="c"), tmp_path)
    assert report.ok, report.summary()


@pytest.mark.parametrize("vector_bytes, split, data_type, lanes", [("64", "1", "double", 4), ("64", "1", "float", 8),
                                                                   ("64", "0", "double", 0), ("32", "1", "double", 0),
                                                                   ("", "", "double", None)])
@pytest.mark.parametrize("kernel, rows", [("jacobi-2d", 2), ("heat-3d", 2), ("fdtd-2d", 2), ("lu", 0)])
def test_rows_reading_neighbours_run_vectors_of_half_a_cache_line(kernel, rows, vector_bytes, split, data_type, lanes,
                                                                monkeypatch):
    """Where the CPU's vectors are a cache line wide and run as two halves (Zen 4), each
    statement's row of a time tile that reads its neighbours (`A[k - 1]`, `A[k + 1]`) is
    an `omp simd` loop of half a line (4 doubles, 8 floats); with vectors a line wide at
    full rate, or 32 bytes wide, the compiler chooses. fdtd-2d's `ey` reads its
    neighbours along `i`, not along its row; lu's rows read none. Each such loop carries
    no dependence."""
    from ppcg_py.schedule.cpu.cache_sizes import host_splits_wide_vectors, host_vector_bytes

    monkeypatch.setenv("PPCG_PY_VECTOR_BYTES", vector_bytes)
    monkeypatch.setenv("PPCG_PY_SPLIT_VECTORS", split)
    if lanes is None:       # this machine's vectors
        lanes = 4 if (host_vector_bytes() or 0) >= 64 and host_splits_wide_vectors() else 0
    defines = ("DATA_TYPE_IS_FLOAT",) if data_type == "float" else ()
    plan = _schedules(kernel, "MINI", defines, time_tiles="always", cache_tiles=True)[0]
    assert plan.time_tiled
    assert [loop.lanes for loop in plan.vector_loops] == ([lanes] * rows if lanes else [])
    deps = plan.dependences
    every = (deps.tagged_flow.union(deps.tagged_false).union(deps.tagged_order).domain_factor_domain()
             .range_factor_domain().union(deps.array_false).union(deps.forced))
    for loop in plan.vector_loops:
        same = loop.host_schedule.apply_range(loop.host_schedule.reverse())
        inside = every.intersect_domain(loop.domain).intersect_range(loop.domain).intersect(same)
        own = loop.point_schedule.apply_range(loop.point_schedule.reverse())
        assert inside.is_subset(own), (kernel, loop.name, str(inside.subtract(own)))


def test_heat_3d_says_how_wide_its_rows_vectors_are(tmp_path, monkeypatch):
    monkeypatch.setenv("PPCG_PY_VECTOR_BYTES", "64")
    monkeypatch.setenv("PPCG_PY_SPLIT_VECTORS", "1")
    proc = _ppcg(tmp_path, "heat-3d", "--time-tiles=always", "--no-row-pairs")
    assert proc.returncode == 0, proc.stderr
    assert "(no barrier between wavefronts); rows reading their neighbours in vectors of 4 elements" in proc.stderr
    text = (tmp_path / "heat-3d.ppcg.c").read_text()
    assert text.count("#pragma omp simd simdlen(4)") == 6, text    # each statement's rows, separated


def _ppcg(tmp_path, kernel: str, *args: str) -> subprocess.CompletedProcess:
    source = kernel_source(kernel)
    return subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile", "-v",
                           "--dump-sizes", "-I", str(POLYBENCH / "utilities"), "-DLARGE_DATASET", *args,
                           "--output-dir", str(tmp_path), str(source)], capture_output=True, text=True, check=False)


def test_jacobi_2d_runs_wavefronts_of_tiles_with_rows_apart(tmp_path):
    proc = _ppcg(tmp_path, "jacobi-2d", "--time-tiles=always", "--no-row-pairs")   # pairs: test_row_pairs.py
    assert proc.returncode == 0, proc.stderr
    assert "kernel[0] -> tile[16, 32, 256]" in proc.stdout
    assert "time tiles: the SCoP of 'kernel_jacobi_2d': kernel[0] tiles of 16 x 32 x 256 in wavefronts" \
        in proc.stderr
    text = (tmp_path / "jacobi-2d.ppcg.c").read_text()
    # one parallel region around the serial wavefront loop, the tiles of each shared
    assert text.count("#pragma omp parallel\n") == 1 and text.count("#pragma omp for") == 1
    # the full rows: B's loop, then A's, each alone (no guard between them)
    rows = re.findall(r"for \(int c5 = [^\n]*\n\s*(\w)\[", text)
    assert "B" in rows and "A" in rows, rows
    assert rows.index("B") < len(rows) - 1 - rows[::-1].index("A")


def test_a_line_runs_tiles_of_128_steps_of_256(tmp_path):
    """jacobi-1d over two arrays of 1.6 MB (larger than L2): tiles of 128 steps of 256
    elements, whose wavefront isl bounds in seconds (at 16 x 256 it took minutes)."""
    proc = _ppcg(tmp_path, "jacobi-1d", "-DTSTEPS=100", "-DN=200000", "-I", str(kernel_source("jacobi-1d").parent))
    assert proc.returncode == 0, proc.stderr
    assert "kernel[0] -> tile[128, 256]" in proc.stdout
    assert "time tiles: the SCoP of 'kernel_jacobi_1d': kernel[0] tiles of 128 x 256 in wavefronts" in proc.stderr


def test_never_keeps_one_time_step_at_a_time(tmp_path):
    for option in ("--time-tiles=never", "--no-time-tiles"):
        proc = _ppcg(tmp_path, "jacobi-2d", option)
        assert proc.returncode == 0, proc.stderr
        assert "time tiles" not in proc.stderr
        assert "kernel[1]" in proc.stdout     # two sweeps, two bands


def test_seidel_2d_says_why_it_keeps_isl_schedule(tmp_path):
    proc = _ppcg(tmp_path, "seidel-2d")
    assert proc.returncode == 0, proc.stderr
    assert "time tiles: none for the SCoP of 'kernel_seidel_2d': a statement depends on itself along the " \
           "innermost loop" in proc.stderr


def test_trisolv_scheduled_whole_runs_wavefronts_of_column_tiles(tmp_path):
    """isl's usual schedule of trisolv runs nothing in parallel and tiles nothing; scheduled
    as one component, its three statements share the band `(j, i)`, tiled along both and
    run as wavefronts, 128 columns per tile (the model's size along a line; at least 64,
    so that each row of `L` gives 512 bytes in a row)."""
    proc = _ppcg(tmp_path, "trisolv")
    assert proc.returncode == 0, proc.stderr
    assert "kernel[0] -> tile[128, 256]" in proc.stdout
    assert "time tiles: the SCoP of 'kernel_trisolv': kernel[0] tiles of 128 x 256 in wavefronts" in proc.stderr
    text = (tmp_path / "trisolv.ppcg.c").read_text()
    assert text.count("#pragma omp parallel\n") == 1 and text.count("#pragma omp for") == 1


def test_trisolv_takes_the_sizes_it_is_given(tmp_path):
    proc = _ppcg(tmp_path, "trisolv", "--sizes={kernel[0]->tile[16,128]}")
    assert proc.returncode == 0, proc.stderr
    assert "kernel[0] tiles of 16 x 128 in wavefronts" in proc.stderr


@pytest.mark.parametrize("kernel", ["gramschmidt", "trmm"])
def test_a_schedule_with_parallel_loops_is_not_scheduled_whole(kernel):
    """gramschmidt, scheduled whole and tiled along its `k`, ran 6x slower than isl's usual
    schedule, whose inner loops run in parallel: that schedule is kept."""
    plan = _schedules(kernel, "LARGE", cache_tiles=True)[0]
    assert plan.parallel and not plan.time_tiled


def test_row_segments_widen_the_members_a_column_walk_reads_along():
    from ppcg_py.schedule.cpu.point_order import FAR, STILL, UNIT, AccessSteps
    from ppcg_py.schedule.cpu.time_tiles import with_row_segments

    scop = _scop_of("trisolv")
    walks = AccessSteps(("L", "x"), ((UNIT, FAR), (STILL, UNIT)))
    assert with_row_segments((16, 256), walks, scop) == (64, 256)
    rows = AccessSteps(("L", "x"), ((FAR, UNIT), (UNIT, STILL)))
    assert with_row_segments((16, 256), rows, scop) == (16, 256)
    assert with_row_segments((128, 256), walks, scop) == (128, 256)


def _scop_of(kernel: str):
    from ppcg_py.extract import extract_program
    from ppcg_py.isl_context import new_context

    source = kernel_source(kernel)
    return extract_program(str(source), new_context(), include_dirs=(str(POLYBENCH / "utilities"),
                                                                     str(source.parent))).scops[0]


def test_heat_3d_runs_each_row_whole_where_it_fits_a_tile(tmp_path):
    """heat-3d's rows (119 values of `2t + k` per step at LARGE: 118 per statement, the
    second shifted by one) fit in the model's 128:
    the innermost member is left untiled, so that the skew along time splits no row."""
    proc = _ppcg(tmp_path, "heat-3d")
    assert proc.returncode == 0, proc.stderr
    assert "kernel[0] -> whole[3]" in proc.stdout
    assert "kernel[0] tiles of 16 x 16 x 32 x whole in wavefronts" in proc.stderr
    text = (tmp_path / "heat-3d.ppcg.c").read_text()
    assert "c7 <= ppcg_min(127" not in text       # no row cut at a tile's edge


LONG_ROWS = r"""
#define NI 40
#define NK 300
double A[NI][NI][NK], B[NI][NI][NK];
void sweep(int steps)
{
#pragma scop
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < NI - 1; i++)
      for (int j = 1; j < NI - 1; j++)
        for (int k = 1; k < NK - 1; k++)
          B[i][j][k] = 0.4 * A[i][j][k] + 0.1 * (A[i - 1][j][k] + A[i + 1][j][k] + A[i][j - 1][k]
                                                 + A[i][j + 1][k] + A[i][j][k - 1] + A[i][j][k + 1]);
    for (int i = 1; i < NI - 1; i++)
      for (int j = 1; j < NI - 1; j++)
        for (int k = 1; k < NK - 1; k++)
          A[i][j][k] = B[i][j][k];
  }
#pragma endscop
}
"""


def test_a_volume_runs_each_row_whole_however_long(tmp_path):
    """Rows of 298 over a volume, longer than the model's 128, stay whole (over a plane,
    jacobi-2d's rows of 1,299 keep their tiles of 256: test_jacobi_2d_runs_wavefronts_..)."""
    source = tmp_path / "long_rows.c"
    source.write_text(LONG_ROWS)
    proc = _ppcg_file(tmp_path, source, "--time-tiles=always", "--dump-sizes")
    assert proc.returncode == 0, proc.stderr
    assert "kernel[0] -> whole[3]" in proc.stdout, proc.stdout
    assert "kernel[0] tiles of 16 x 16 x 32 x whole in wavefronts" in proc.stderr, proc.stderr


@pytest.mark.parametrize("kernel, n, length", [("heat-3d", 4, 119), ("jacobi-2d", 3, 1299), ("lu", 3, 2000)])
def test_a_row_is_the_innermost_member_at_one_value_of_the_others(kernel, n, length):
    from ppcg_py.schedule.cpu.time_tiles import row_length, time_band
    from ppcg_py.schedule.loop_extents import in_bounds_instances

    plan = _schedules(kernel, "LARGE", time_tiles="always", cache_tiles=True)[0]
    band = time_band(plan.schedule)
    assert band is not None and band.band_n_member() == n
    assert row_length(band, in_bounds_instances(plan.scop)) == length


@pytest.mark.parametrize("kernel, whole", [("heat-3d", "3"), ("jacobi-2d", "2"), ("fdtd-2d", "1,2"), ("lu", "2")])
def test_members_left_whole_verify_with_1_2_4_threads(kernel, whole, tmp_path):
    """`whole[...]` untiles members of the time band (their tile loop constant, their
    point loop the band's own), at odd sizes elsewhere."""
    sizes = f"--sizes={{kernel[0]->tile[{ODD_SIZES}];kernel[0]->whole[{whole}]}}"
    args = ("--tile", "--time-tiles=always", sizes)
    report = verify(kernel_config(kernel, dataset="MINI", ppcg_args=args, target="c"), tmp_path)
    assert report.ok, report.summary()


def test_a_whole_member_beyond_the_band_is_refused(tmp_path):
    proc = _ppcg(tmp_path, "jacobi-2d", "--time-tiles=always", "--sizes={kernel[0]->whole[3]}")
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.strip().splitlines() if "error" in line]
    assert len(lines) == 1 and "error: --sizes: whole members of kernel 0 must be below 3" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_ast_that_loses_instances_falls_back_with_a_warning(tmp_path):
    """isl's AST generator drops instances from the tiled tree of this program
    (tests/regressions/ast_lost_instances_tiles_of_2.c): the C target says so and
    prints the untiled schedule, which the regression suite runs against gcc."""
    source = Path(__file__).parent / "regressions" / "ast_lost_instances_tiles_of_2.c"
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--tile", "--tile-sizes=2",
                           "--output-dir", str(tmp_path), str(source)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "isl's AST generator left statement instances out of the tiled code of the SCoP of 'compute'" \
        in proc.stderr
    assert "Traceback" not in proc.stderr


# -- time loops among the SCoP's other loops (schedule/time_loops.py) -------------------

LOOPS = Path(__file__).parent / "time_loops"
LOOP_NOTE = re.compile(r"time tiles: the time loop around line (\d+) of the SCoP of 'run': kernel\[(\d+)\] tiles "
                       r"of ([\w x]+) in wavefronts")


def _ppcg_file(tmp_path: Path, source: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile", "-v", *args,
                           str(source), "-o", str(tmp_path / "out.c")], capture_output=True, text=True, check=False)


def test_time_loops_among_other_loops_are_tiled_along_time(tmp_path):
    """A 1-D stencil in parity buffers and a 2-D Jacobi stencil, with a fill before, between
    and a sum after them: each time loop gets its own time band (its `kernel[i]` number in
    tree order), the loops around them isl's usual schedule."""
    proc = _ppcg_file(tmp_path, LOOPS / "two_stencils.c", "--time-tiles=always")
    assert proc.returncode == 0, proc.stderr
    assert LOOP_NOTE.findall(proc.stderr) == [("18", "0", "128 x whole"), ("25", "2", "16 x 32 x whole")], proc.stderr
    # smaller tiles than the steps: each time loop runs wavefronts of several tiles
    proc = _ppcg_file(tmp_path, LOOPS / "two_stencils.c", "--time-tiles=always", "--min-parallel-work=0",
                      f"--tile-sizes={ODD_SIZES}")
    assert LOOP_NOTE.findall(proc.stderr) == [("18", "0", "3 x 5"), ("25", "2", "3 x 5 x 7")], proc.stderr
    # the tiles of a wavefront wait for those they depend on, not for a barrier
    assert re.findall(r"#pragma omp (parallel|for)(?: nowait)?\n", (tmp_path / "out.c").read_text()) \
        == ["parallel", "for"] * 2


def test_time_loops_among_other_loops_follow_the_model(tmp_path):
    """Small grids stay in L2: the model keeps isl's schedule and says so per loop;
    `--time-tiles=never` asks nothing."""
    proc = _ppcg_file(tmp_path, LOOPS / "two_stencils.c")
    assert re.findall(r"time tiles: none for the time loop around line (\d+) of the SCoP of 'run': its arrays "
                      r"\(\d+ bytes\) fit in the L2 cache", proc.stderr) == ["18", "25"], proc.stderr
    assert "time tiles" not in _ppcg_file(tmp_path, LOOPS / "two_stencils.c", "--time-tiles=never").stderr


@pytest.mark.parametrize("source, data_type", [(LOOPS / "two_stencils.c", "double"),
                                               (Path(__file__).parent / "hybrid" / "init_then_stencil.c", "float"),
                                               (LOOPS / "heat_3d_constants.c", "double"),
                                               (LOOPS / "reversal.c", "double")])
def test_time_loops_among_other_loops_verify_with_1_2_4_threads(source, data_type, tmp_path, monkeypatch):
    """Tile sizes that divide no extent, code for 64-byte vectors, the loops around the
    time loops reading what they wrote and writing what they read."""
    from ppcg_py.verify.harness import VerifyConfig
    monkeypatch.setenv("PPCG_PY_VECTOR_BYTES", "64")
    monkeypatch.setenv("PPCG_PY_SPLIT_VECTORS", "1")
    config = VerifyConfig(source=source, target="c", data_type=data_type,
                          ppcg_args=("--tile", "--time-tiles=always", f"--tile-sizes={ODD_SIZES}"))
    report = verify(config, tmp_path)
    assert report.ok, report.summary()


def test_a_loop_that_writes_a_scalar_is_not_asked_of_isl(tmp_path):
    """A scalar written in every iteration orders them along every loop: no band of more
    than one member can be permutable around it (ludcmp's `w`, a sum into a scalar)."""
    source = tmp_path / "scalar_sum.c"
    source.write_text("""
double A[40][40], s;
void run(void)
{
#pragma scop
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 40; j++)
      A[i][j] = i + j;
  s = 0;
  for (int i = 1; i < 40; i++)
    for (int j = 0; j < 40; j++)
      s += A[i][j] * A[i - 1][j];
#pragma endscop
}
""")
    proc = _ppcg_file(tmp_path, source, "--time-tiles=always")
    assert re.search(r"time tiles: none for the time loop around line 12 of the SCoP of 'run': S_\d+ \(line 12\) "
                     r"writes a scalar", proc.stderr), proc.stderr


def _part_band(source: Path, line: int):
    """The time band isl finds for the time loop around `line` of `source`'s SCoP, and
    the SCoP's flow dependences."""
    from ppcg_py.diagnostics import Diagnostics
    from ppcg_py.extract import extract_scops
    from ppcg_py.isl_context import new_context
    from ppcg_py.options import Options
    from ppcg_py.schedule.cpu.time_tiles import time_band
    from ppcg_py.schedule.scheduler import schedule_of_part, scheduling_start
    from ppcg_py.schedule.time_loops import time_loops, where

    options = Options(target="c", openmp=True, tile=True)
    scop = extract_scops(str(source), new_context())[0]
    deps = scheduling_start(scop, options, Diagnostics())[0]
    [instances] = [inst for _, inst in time_loops(scop, deps.flow) if where(scop, inst) == f"line {line}"]
    across = schedule_of_part(scop, deps.all, instances, options, accept=lambda s: time_band(s) is not None)
    return time_band(across), deps.flow


def test_a_factorisation_among_other_loops_is_no_stencil():
    """The values lu passes on travel the whole matrix (distances the parameters
    stretch); a stencil's a few elements per step: only the stencil's tiles pay."""
    from ppcg_py.schedule.cpu.time_tiles import unbounded_distances
    band, flow = _part_band(LOOPS / "fill_then_factorise.c", 16)
    assert band is not None and band.band_n_member() == 3
    assert "not a stencil" in unbounded_distances(band, flow)
    for line in (18, 25):
        band, flow = _part_band(LOOPS / "two_stencils.c", line)
        assert unbounded_distances(band, flow) is None
