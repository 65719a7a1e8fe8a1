"""Wavefronts of time tiles without barriers (schedule/cpu/pipeline.py, codegen/omp_pipeline.py):
each tile waits for the tiles it depends on, at a few fixed distances back."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ppcg_py.verify.harness import verify

from polybench_cases import POLYBENCH, POLYBENCH_C, kernel_config, kernel_source
from test_time_tiles import ODD_SIZES, _schedules
from ppcg_py.schedule.cpu.pipeline import Waits

ONE_WAVEFRONT_BACK = ((1, 0), (1, 1), (2, 1))  # (T0 + T1, T1): tiles (T0 - 1, T1), (T0, T1 - 1), (T0 - 1, T1 - 1)


@pytest.mark.parametrize("kernel, sizes", [("jacobi-2d", ()), ("heat-3d", ()), ("fdtd-2d", ()),
                                           ("jacobi-2d", (3, 5, 7, 6)), ("heat-3d", (3, 5, 7, 6)),
                                           ("fdtd-2d", (3, 5, 7, 6))])
def test_a_stencil_s_tiles_wait_for_their_neighbours_one_wavefront_back(kernel, sizes):
    """fdtd-2d's forced dependences (each write of `ey[0][j]` to the last) span any number
    of tiles, and need no wait: the output dependences to the next write chain them."""
    options = {"tile_sizes": sizes} if sizes else {"cache_tiles": True}
    plan = _schedules(kernel, "MINI", time_tiles="always", min_parallel_work=0, **options)[0]
    assert plan.time_tiled
    assert [loop.waits for loop in plan.parallel] == [Waits(ONE_WAVEFRONT_BACK)]


@pytest.mark.parametrize("kernel, family", [("lu", (1, 1, -1, 0)), ("cholesky", (1, 1, 0, 0))])
@pytest.mark.parametrize("sizes", [(), (3, 5, 7, 6)])
def test_a_factorisation_s_tiles_wait_for_every_tile_before_them_in_their_row(kernel, family, sizes):
    """A tile of lu's depends on every tile before it in its row of tiles (the pivot rows):
    `(back, back - 1)` and `(back, back)` in `(wavefronts, tiles)`, for any `back`."""
    options = {"tile_sizes": sizes} if sizes else {"cache_tiles": True}
    plan = _schedules(kernel, "MINI", time_tiles="always", min_parallel_work=0, **options)[0]
    assert plan.time_tiled and plan.parallel
    assert [loop.waits for loop in plan.parallel] == [Waits(((1, 0),), (family,))]


@pytest.mark.parametrize("distances", [
    "{ [i, j] : 0 <= i and j = i + 1 }",        # (0, 1): a dependence inside a wavefront
    "{ [i, j] : 0 <= i and 0 <= j <= i }",      # no upper bound with the lower one's slope
    "{ [i, j] : 1 <= i <= 3 and 0 <= j <= 3 }",  # too many vectors
    "{ [i, j] : -1 <= i <= 1 and j = 0 }",      # one wavefront ahead
    "{ [i, j] : -1 <= i and j = i }",           # the same, in a family
])
def test_distances_that_no_wait_covers_keep_the_barriers(distances):
    from ppcg_py.schedule.cpu.pipeline import _waits
    import islpy as isl
    assert not _waits([isl.Set(distances)])


def test_a_family_covers_an_unbounded_piece_from_one_wavefront_back():
    from ppcg_py.schedule.cpu.pipeline import _waits
    import islpy as isl
    assert _waits([isl.Set("{ [i, j] : 1 <= i and 2i - 1 <= j <= 2i + 1; [0, 0]; [1, 5] }")]) \
        == Waits(((1, 5),), ((1, 2, -1, 1),))


def test_loops_that_are_no_wavefront_never_wait():
    for kernel in ("gemm", "jacobi-2d"):
        for plan in _schedules(kernel, "MINI", time_tiles="never", min_parallel_work=0):
            assert all(not loop.waits for loop in plan.parallel)


def test_lu_waits_for_the_rows_of_tiles_before(tmp_path):
    text = _c_output(tmp_path, "lu", "--openmp", f"--tile-sizes={ODD_SIZES}", "--min-parallel-work=0").read_text()
    assert [line.strip() for line in text.splitlines() if "ppcg_wave_wait" in line and "&ppcg_wave," in line] \
        == ["ppcg_wave_wait(&ppcg_wave, c0 - 1, c1);", "ppcg_wave_wait_rows(&ppcg_wave, c0, c1, 1, 1, -1, 0);"]


def _c_output(tmp_path: Path, kernel: str, *args: str) -> Path:
    source = kernel_source(kernel)
    out = tmp_path / f"{kernel}.ppcg.c"
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--tile", "--time-tiles=always",
                           "-I", str(POLYBENCH / "utilities"), "-DMINI_DATASET", *args, "-o", str(out), str(source)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return out


def test_the_region_flags_its_tiles_and_waits_without_barriers(tmp_path):
    text = _c_output(tmp_path, "jacobi-2d", "--openmp", f"--tile-sizes={ODD_SIZES}").read_text()
    assert text.count("struct ppcg_wavefront {") == 1    # the helpers, once
    region = text[text.index("struct ppcg_wavefront ppcg_wave"):]
    # the tiles' range, their flags, then the region: no barrier but where the flags are missing
    assert region.index("ppcg_wave_extend(") < region.index("ppcg_wave_allocate(") \
        < region.index("ppcg_wave_pending(") < region.index("#pragma omp parallel\n")
    assert "#pragma omp for nowait\n" in region or "#pragma omp for schedule(dynamic, 1) nowait\n" in region
    assert [line.strip() for line in region.splitlines() if "ppcg_wave_wait(" in line] == [
        "ppcg_wave_wait(&ppcg_wave, c0 - 1, c1);", "ppcg_wave_wait(&ppcg_wave, c0 - 1, c1 - 1);",
        "ppcg_wave_wait(&ppcg_wave, c0 - 2, c1 - 1);"]
    assert region.count("#pragma omp barrier") == 1 and "if (!ppcg_wave.pending)" in region
    assert "free(ppcg_wave.pending);" in region


def test_without_openmp_the_file_has_no_flags(tmp_path):
    text = _c_output(tmp_path, "jacobi-2d", f"--tile-sizes={ODD_SIZES}").read_text()
    assert "ppcg_wave" not in text


@pytest.mark.parametrize("kernel", ["jacobi-2d", "heat-3d", "lu"])
def test_more_threads_than_cores_finish_and_verify(kernel, tmp_path):
    """Eight threads spinning on two cores: a tile whose predecessor's thread is not
    running still gets it, in time, from the scheduler."""
    args = ("--tile", "--time-tiles=always", f"--tile-sizes={ODD_SIZES}", "--min-parallel-work=0")
    report = verify(kernel_config(kernel, dataset="MINI", ppcg_args=args, target="c", threads=(3, 8)), tmp_path)
    assert report.ok, report.summary()


def test_without_memory_for_the_flags_the_barriers_keep_the_order(tmp_path):
    """Where calloc fails, each wavefront ends with a barrier: the same numbers as the
    flags give and as the original program (each point's sum is the original's), with
    1, 2 and 4 threads."""
    kernel = "heat-3d"
    out = _c_output(tmp_path, kernel, "--openmp", f"--tile-sizes={ODD_SIZES}", "--min-parallel-work=0")
    no_memory = tmp_path / "no_memory.h"
    no_memory.write_text("#include <stdlib.h>\n#define calloc(count, size) ((void *) 0)\n")
    source = kernel_source(kernel)
    dumps = {}
    for name, extra, program in (("original", [], source), ("flags", [], out),
                                 ("barriers", ["-include", str(no_memory)], out)):
        binary = tmp_path / name
        subprocess.run(["gcc", "-O1", "-fopenmp", "-DMINI_DATASET", "-DPOLYBENCH_DUMP_ARRAYS",
                        "-I", str(POLYBENCH / "utilities"), "-I", str(source.parent), *extra, str(program),
                        str(POLYBENCH_C), "-o", str(binary), "-lm"], check=True)
        for threads in (1, 2, 4):
            proc = subprocess.run([str(binary)], capture_output=True, text=True, check=True, timeout=60,
                                  env={**os.environ, "OMP_NUM_THREADS": str(threads)})
            dumps[name, threads] = proc.stderr
    assert "==BEGIN DUMP_ARRAYS==" in dumps["flags", 1]
    assert len(set(dumps.values())) == 1


HELPERS_CHECK = r"""
#include <stdio.h>
#include <stdlib.h>
%s
int main(void)
{
  /* 100,000 wavefronts of 4 tiles each, on a diagonal: w - 3 <= c <= w (a box would
     hold 10^10 flags) */
  struct ppcg_wavefront w = {0, -1, 0, 0};
  long i, j, flags = 0, waited = 0;
  for (i = 5; i < 100005; i++)
    ppcg_wave_row(&w, i);
  if (!ppcg_wave_rows(&w))
    return 1;
  for (i = 5; i < 100005; i++)
    for (j = i - 3; j <= i; j++)
      ppcg_wave_extend(&w, i, j);
  if (!ppcg_wave_allocate(&w))
    return 2;
  for (i = 5; i < 100005; i++)
    for (j = i - 3; j <= i; j++)
      ppcg_wave_pending(&w, i, j);
  for (i = 0; i < 100010; i++)
    for (j = i - 5; j <= i + 1; j++)
      if (ppcg_wave_flag(&w, i, j))
        flags++;
  ppcg_wave_done(&w, 7, 5);
  ppcg_wave_wait(&w, 7, 5);       /* done: no wait */
  ppcg_wave_wait(&w, 3, 2);       /* before every wavefront: none */
  ppcg_wave_wait(&w, 9, 3);       /* outside its wavefront's tiles: none */
  waited = *ppcg_wave_flag(&w, 7, 5) == 0 && *ppcg_wave_flag(&w, 7, 6) == 1;
  printf("%%ld %%ld %%ld\n", flags, w.row[3 * (w.last - w.first) + 2] + 4, waited);
  free(w.pending);
  free(w.row);
  return 0;
}
"""


def test_the_flags_of_each_wavefront_span_its_own_tiles(tmp_path):
    """A flag per tile, not per point of a box around every wavefront."""
    from ppcg_py.codegen.omp_pipeline import PIPELINE_HELPERS

    source = tmp_path / "helpers.c"
    source.write_text(HELPERS_CHECK % PIPELINE_HELPERS)
    subprocess.run(["gcc", "-std=c99", "-O1", "-Wall", "-Werror", str(source), "-o", str(tmp_path / "helpers")],
                   check=True)
    proc = subprocess.run([str(tmp_path / "helpers")], capture_output=True, text=True, check=True, timeout=60)
    assert proc.stdout.split() == ["400000", "400000", "1"]


def _region_of(code: str, waits: Waits) -> str:
    """The C of `code` (a function body: loops under `omp parallel for` pragmas) after
    with_parallel_regions, every parallel loop pipelined with `waits`."""
    from pycparser import c_ast, c_generator, c_parser

    from ppcg_py.codegen.omp_region import with_parallel_regions

    body = c_parser.CParser().parse("void f(int n, double *A) {\n" + code + "\n}").ext[0].body.block_items
    pragmas: list[c_ast.Pragma] = []

    def collect(node: c_ast.Node) -> None:
        if isinstance(node, c_ast.Pragma) and node.string.startswith("omp parallel for"):
            pragmas.append(node)
        for _, child in node.children():
            collect(child)
    for item in body:
        collect(item)
    result = with_parallel_regions(body, pragmas, set(), {id(p): waits for p in pragmas})
    return c_generator.CGenerator().visit(c_ast.Compound(result))


def test_only_a_wavefront_loop_that_holds_nothing_else_runs_without_barriers():
    """A statement beside the tile loop (run by `single`) may need every tile of its
    wavefront: that region keeps its barriers."""
    alone = _region_of("for (int w = 0; w < n; w++) {\n#pragma omp parallel for\n"
                       "for (int c = 0; c <= w; c++) A[c] += 1; }", Waits(((1, 0),)))
    assert "ppcg_wave_wait(&ppcg_wave, w - 1, c);" in alone and "nowait" in alone
    beside = _region_of("for (int w = 0; w < n; w++) {\n#pragma omp parallel for\n"
                        "for (int c = 0; c <= w; c++) A[c] += 1;\nA[w] = 0; }", Waits(((1, 0),)))
    assert "ppcg_wave" not in beside and "omp single" in beside and "nowait" not in beside
