"""Statements that run once after a band's inner loop get a band of their own, where only
then the rest keeps a register block (epilogues.py): covariance's and correlation's
`cov[i][j] /= n - 1; cov[j][i] = cov[i][j]`."""
from __future__ import annotations

import pytest

from ppcg_py.verify.harness import verify

from polybench_cases import POLYBENCH, kernel_config, kernel_source


def _schedules(kernel: str, dataset: str = "LARGE", **options):
    from ppcg_py.extract import extract_program
    from ppcg_py.isl_context import new_context
    from ppcg_py.options import Options
    from ppcg_py.schedule.cpu import schedule_for_cpu

    source = kernel_source(kernel)
    program = extract_program(str(source), new_context(), include_dirs=(str(POLYBENCH / "utilities"),
                                                                        str(source.parent)),
                              defines=(f"{dataset}_DATASET",))
    options = {"target": "c", "openmp": True, "tile": True, "cache_tiles": True, **options}
    return [schedule_for_cpu(scop, Options(**options)) for scop in program.scops]


@pytest.mark.parametrize("kernel", ["covariance", "correlation"])
def test_the_product_keeps_a_register_block(kernel):
    scheduled = _schedules(kernel)[0]
    blocked = [sizes for sizes in scheduled.band_sizes if sizes.register not in ((), (1, 1))]
    assert blocked, scheduled.band_sizes
    # without the split, no block: the transposed copy reads the block across
    whole = _schedules(kernel, register_tiles=False)[0]
    assert len(whole.band_sizes) == len(scheduled.band_sizes) - 1


@pytest.mark.parametrize("kernel", ["gemm", "syrk", "2mm"])
def test_bands_that_block_already_stay_whole(kernel):
    """gemm's `C *= beta` at k = 0 fits the block: nothing is split."""
    with_blocks = _schedules(kernel)[0]
    without = _schedules(kernel, register_tiles=False)[0]
    assert len(with_blocks.band_sizes) == len(without.band_sizes)


def test_user_sizes_keep_the_band_whole():
    scheduled = _schedules("covariance", cache_tiles=False, tile_sizes=(32, 32, 32))[0]
    assert len(scheduled.band_sizes) == len(_schedules("covariance", register_tiles=False)[0].band_sizes)


@pytest.mark.parametrize("kernel", ["covariance", "correlation"])
def test_split_bands_verify_with_1_2_4_threads(kernel, tmp_path):
    report = verify(kernel_config(kernel, dataset="SMALL", ppcg_args=("--tile",), target="c"), tmp_path)
    assert report.ok, report.summary()
