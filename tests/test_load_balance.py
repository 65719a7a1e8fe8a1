"""OpenMP loops whose iterations do uneven work (triangular nests) are handed out one
iteration at a time; the others keep OpenMP's static split (load_balance.py)."""
from __future__ import annotations

import pytest

from ppcg_py.verify.harness import verify

from polybench_cases import POLYBENCH, kernel_config, kernel_source


def _schedules(path: str, include: tuple[str, ...] = (), **options):
    from ppcg_py.extract import extract_program
    from ppcg_py.isl_context import new_context
    from ppcg_py.options import Options
    from ppcg_py.schedule.cpu import schedule_for_cpu

    program = extract_program(path, new_context(), include_dirs=include, defines=("MINI_DATASET",))
    options = {"target": "c", "openmp": True, **options}
    return [schedule_for_cpu(scop, Options(**options)) for scop in program.scops]


def _uneven(tmp_path, body: str, **options) -> list[bool]:
    source = tmp_path / "nest.c"
    source.write_text("void f(int n, double A[100][100], double B[100][100]) {\n#pragma scop\n"
                      + body + "\n#pragma endscop\n}\n")
    return [loop.uneven for s in _schedules(str(source), **options) for loop in s.parallel]


@pytest.mark.parametrize("tile", [False, True])
def test_a_triangular_nest_is_uneven(tmp_path, tile):
    body = "for (int i = 0; i < n; i++) for (int j = i; j < n; j++) A[i][j] = B[i][j] + 1;"
    assert _uneven(tmp_path, body, tile=tile, tile_sizes=(7, 5)) == [True]


@pytest.mark.parametrize("tile", [False, True])
def test_a_rectangular_nest_with_partial_tiles_is_even(tmp_path, tile):
    """n is no multiple of 7: the last tile is short, one iteration's shortfall."""
    body = "for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) A[i][j] = B[i][j] + 1;"
    assert _uneven(tmp_path, body, tile=tile, tile_sizes=(7, 5)) == [False]


def test_a_parallel_loop_inside_a_serial_one_compares_its_own_iterations(tmp_path):
    """Under each `k`, `j`'s iterations do the same work (a row each), although how
    many there are changes with `k`."""
    body = ("for (int k = 0; k < n - 1; k++) for (int j = k + 1; j < n; j++)"
            "  A[k + 1][j] += A[k][j - 1] + A[k][j + 1];")
    assert _uneven(tmp_path, body) == [False]


def _polybench_loops(kernel: str) -> list[bool]:
    source = kernel_source(kernel)
    return [loop.uneven for s in _schedules(str(source), (str(POLYBENCH / "utilities"), str(source.parent)),
                                            tile=True) for loop in s.parallel]


@pytest.mark.parametrize("kernel, uneven", [("gemm", [False]), ("2mm", [False, False]), ("syrk", [True]),
                                            ("cholesky", [False, True]), ("trisolv", [False, False])])
def test_polybench_loops(kernel, uneven):
    assert _polybench_loops(kernel) == uneven


def test_the_c_output_hands_out_uneven_iterations_one_at_a_time(tmp_path):
    from ppcg_py.driver import compile_source
    from ppcg_py.options import Options

    source = kernel_source("syrk")
    files = compile_source(str(source), Options(target="c", openmp=True, tile=True,
                                                include_dirs=(str(POLYBENCH / "utilities"),)))
    text = "".join(text for _, text in files.items())
    assert "#pragma omp parallel for schedule(dynamic, 1)" in text


@pytest.mark.parametrize("kernel", ["syrk", "covariance", "cholesky"])
def test_uneven_loops_verify_with_1_2_4_threads(kernel, tmp_path):
    report = verify(kernel_config(kernel, dataset="MINI", ppcg_args=("--tile", "--tile-sizes=3,5,7"),
                                  target="c"), tmp_path)
    assert report.ok, report.summary()
