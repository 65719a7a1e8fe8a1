"""`--isolate-full-tiles` (schedule/cpu/full_tiles.py): the C target's full tiles generated
apart, their point loops with constant bounds, the partial tiles after them."""
from __future__ import annotations

import re

import islpy as isl
import pytest

from ppcg_py.isl_context import band_tiled
from ppcg_py.schedule.cpu.full_tiles import full_tiles
from ppcg_py.verify.harness import run_ppcg, verify

from polybench_cases import kernel_config

RECTANGLE = ('{ domain: "[n, m] -> { S[i, j] : 0 <= i < n and 0 <= j < m }", '
             'child: { schedule: "[n, m] -> [{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]", permutable: 1 } }')
TRIANGLE = RECTANGLE.replace("0 <= j < m", "0 <= j <= i")


def _full(tree: str, sizes: tuple[int, int]) -> isl.Set:
    band = isl.Schedule.read_from_str(isl.Context(), tree).get_root().child(0)
    untiled = band.band_get_partial_schedule()
    return full_tiles(band_tiled(band, sizes), untiled, sizes)


def test_full_tiles_of_a_rectangle():
    full = _full(RECTANGLE, (32, 16))
    expected = isl.Set("[n, m] -> { [[] -> [t0, t1]] : t0 >= 0 and t1 >= 0 and 32 * t0 + 32 <= n "
                       "and 16 * t1 + 16 <= m }", context=full.get_ctx())
    assert full.is_equal(expected.align_params(full.get_space()))


def test_a_diagonal_tile_of_a_triangle_is_partial():
    full = _full(TRIANGLE, (8, 8))
    expected = isl.Set("[n, m] -> { [[] -> [t0, t1]] : 0 <= t1 < t0 and 8 * t0 + 8 <= n }", context=full.get_ctx())
    assert full.is_equal(expected.align_params(full.get_space()))


def _generated(kernel: str, tmp_path, *args: str) -> str:
    cfg = kernel_config(kernel, dataset="LARGE", ppcg_args=("--openmp", "--tile", *args), target="c")
    tmp_path.mkdir()
    proc = run_ppcg(cfg, tmp_path)
    assert proc.returncode == 0, proc.stderr
    return (tmp_path / f"{kernel}.ppcg.c").read_text()


def test_full_tiles_have_constant_point_bounds(tmp_path):
    """atax's first nest, tiled 32 x 32: the point loops of the full tiles run to 31."""
    text = _generated("atax", tmp_path / "isolated", "--isolate-full-tiles", "-S", "32")
    assert re.search(r"for \(int c2 = 0; c2 <= 31; c2\+\+\)", text), text
    plain = _generated("atax", tmp_path / "plain", "-S", "32")
    assert not re.search(r"for \(int c2 = 0; c2 <= 31; c2\+\+\)", plain), plain


@pytest.mark.parametrize("kernel", ["gemm", "syrk", "lu", "atax", "doitgen", "covariance"])
def test_isolated_tiles_verify(kernel, tmp_path):
    """SMALL's sizes are no multiples of the tiles: full and partial tiles both run."""
    cfg = kernel_config(kernel, dataset="SMALL", ppcg_args=("--tile", "--isolate-full-tiles", "-S", "16"),
                        target="c")
    report = verify(cfg, tmp_path)
    assert report.ok, report.summary()


def test_isolation_is_a_size_of_each_band(tmp_path):
    """`isolate[1]` in `--sizes` isolates one band's full tiles (what --autotune tries),
    `isolate[0]` keeps one band whole under --isolate-full-tiles; --dump-sizes says which."""
    sizes = "{ kernel[0] -> tile[32, 32]; kernel[0] -> isolate[1]; kernel[1] -> tile[32, 32] }"
    cfg = kernel_config("atax", dataset="LARGE", ppcg_args=("--openmp", "--tile", "--sizes", sizes, "--dump-sizes"),
                        target="c")
    proc = run_ppcg(cfg, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "kernel[0] -> isolate[1]" in proc.stdout and "kernel[1] -> isolate" not in proc.stdout, proc.stdout
    off = sizes.replace("isolate[1]", "isolate[0]")
    cfg = kernel_config("atax", dataset="LARGE", target="c",
                        ppcg_args=("--openmp", "--tile", "--isolate-full-tiles", "--sizes", off, "--dump-sizes"))
    proc = run_ppcg(cfg, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "kernel[0] -> isolate" not in proc.stdout and "kernel[1] -> isolate[1]" in proc.stdout, proc.stdout
