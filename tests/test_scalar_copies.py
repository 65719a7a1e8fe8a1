"""Scalars given a copy per iteration of a loop so that the loop may move inside (C target):
the webs of a scalar (schedule/expansion.py), the model that picks them
(schedule/cpu/scalar_copies.py), and runs against gcc's build."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from polybench_cases import POLYBENCH, kernel_config, kernel_source
from ppcg_py.verify.harness import VerifyConfig, verify

HERE = Path(__file__).parent / "scalar_copies"
COPY = "a copy per iteration"


def _scop(kernel: str, dataset: str = "LARGE"):
    from ppcg_py.extract import extract_program
    from ppcg_py.isl_context import new_context

    source = kernel_source(kernel)
    return extract_program(str(source), new_context(), include_dirs=(str(POLYBENCH / "utilities"), str(source.parent)),
                           defines=(f"{dataset}_DATASET",)).scops[0]


def _dependences(scop):
    from ppcg_py.diagnostics import Diagnostics
    from ppcg_py.options import Options
    from ppcg_py.schedule.scheduler import scheduling_start

    return scheduling_start(scop, Options(target="c"), Diagnostics(echo=False))[0]


def _lines(scop, statements) -> list[int]:
    return sorted(s.line for s in scop.statements if s.name in statements)


def test_ludcmp_w_holds_four_unrelated_sums():
    """The lower and upper parts of the factorisation and the two substitutions each
    have their own `w`: four webs, each its nest's three statements."""
    from ppcg_py.schedule.expansion import scalar_webs

    scop = _scop("ludcmp", "MINI")
    webs = scalar_webs(scop, _dependences(scop))
    assert [w.scalar for w in webs] == ["w"] * 4
    assert sorted(len(w.statements) for w in webs) == [3, 3, 3, 3]
    assert len(frozenset().union(*(w.statements for w in webs))) == 12


def test_a_scalar_read_after_the_scop_has_no_webs(tmp_path):
    """Its last value leaves the SCoP: no copy may stand in for it."""
    from ppcg_py.extract import extract_program
    from ppcg_py.isl_context import new_context
    from ppcg_py.schedule.expansion import scalar_webs

    source = tmp_path / "out.c"
    source.write_text("double f(int n, double A[n][n]) {\n  double w;\n#pragma scop\n"
                      "  for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++) {\n"
                      "      w = A[i][j];\n      for (int k = 0; k < i; k++)\n        w -= A[k][j];\n"
                      "      A[i][j] = w;\n    }\n#pragma endscop\n  return w;\n}\n")
    scop = extract_program(str(source), new_context()).scops[0]
    assert scalar_webs(scop, _dependences(scop)) == ()


def test_the_model_picks_the_column_walks_not_the_row_walks():
    """ludcmp at LARGE: both parts of the factorisation walk `A[k][j]` down a column inside
    `j` (they pay); the substitutions walk rows of `A` already (they do not)."""
    from ppcg_py.schedule.cpu.cache_sizes import Caches
    from ppcg_py.schedule.cpu.scalar_copies import reorder_pays
    from ppcg_py.schedule.expansion import web_candidates

    scop = _scop("ludcmp")
    caches = Caches(32 * 1024, 1024 * 1024)
    groups = web_candidates(scop, _dependences(scop), lambda s, web, loop: reorder_pays(s, web, loop, caches))
    assert [[_lines(scop, w.statements) for w in group] for group in groups] == [[[64, 66, 67]], [[70, 72, 73]]]
    small = Caches(32 * 1024, 64 * 1024 * 1024)     # an L2 cache that holds A: nothing jumps
    assert web_candidates(scop, _dependences(scop), lambda s, web, loop: reorder_pays(s, web, loop, small)) == ()


# the caches these tests' choices were made for (32 KiB L1 data, 1 MiB L2 per core; a
# core with 48 KiB of L1 runs deriche's column sweeps untiled, a thread's share of a row
# to each thread)
CACHES = f"{32 * 1024},{1024 * 1024}"


def _ppcg(tmp_path: Path, source: Path, *args: str, dataset: str | None = None,
          caches: str = CACHES) -> subprocess.CompletedProcess:
    out = tmp_path / "out.c"
    defines = [f"-D{dataset}_DATASET"] if dataset else []
    return subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "-v", *args, *defines,
                           "-I", str(POLYBENCH / "utilities"), "-I", str(source.parent), "-o", str(out), str(source)],
                          capture_output=True, text=True, check=False, env={**os.environ, "PPCG_PY_CACHES": caches})


@pytest.mark.parametrize("tile", [True, False])
def test_ludcmp_updates_rows_with_the_vector_loop_innermost(tmp_path, tile):
    """The lower part becomes lu's row updates (`w_1[c2] -= A[c0][c1] * A[c1][c2]`);
    with tiles, the upper part's point loops run along rows too. Both webs are tried at
    once: untiled, the upper part keeps its copy `w_2` and its order."""
    proc = _ppcg(tmp_path, kernel_source("ludcmp"), *(["--tile"] if tile else []), dataset="LARGE")
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "out.c").read_text()
    assert "w_1[c2] -= A[c0][c1] * A[c1][c2];" in text
    assert proc.stderr.count(COPY) == 2
    upper = "w_2[c1] -= A[c0][c2] * A[c2][c1];"     # the column walk, untiled
    assert (upper in text) != tile
    assert "w -= A[c0][c1] * y[c1];" in text     # the substitutions keep their scalar


def test_copies_that_gain_nothing_are_dropped(tmp_path):
    """symm's `temp2` may have a copy per `j`, but isl's schedule with it jumps as much:
    the program keeps its scalar."""
    proc = _ppcg(tmp_path, kernel_source("symm"), "--tile", dataset="LARGE")
    assert proc.returncode == 0 and COPY not in proc.stderr, proc.stderr
    assert "temp2_1" not in (tmp_path / "out.c").read_text()


def test_no_expansion_keeps_the_scalar_and_sizes_given_keep_the_copies(tmp_path):
    """With sizes given (PPCG's 32, or what --autotune's sizes file says) the copies are
    chosen as without: the sizes file then gives the code that --autotune timed."""
    proc = _ppcg(tmp_path, kernel_source("ludcmp"), "--tile", "--no-expand-arrays", dataset="LARGE")
    assert proc.returncode == 0 and COPY not in proc.stderr, proc.stderr
    proc = _ppcg(tmp_path, kernel_source("ludcmp"), "--tile-size=32", dataset="LARGE")
    assert proc.returncode == 0 and proc.stderr.count(COPY) == 2, proc.stderr


def test_host_paths_of_gpu_targets_keep_their_scalars(tmp_path):
    """A GPU target's host path asks isl for no second schedule (compile time): ludcmp's
    CUDA output updates `w` itself where the C target gives it two copies."""
    source = kernel_source("ludcmp")
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "-DLARGE_DATASET", "-I", str(POLYBENCH / "utilities"),
                           "-d", str(tmp_path), str(source)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    host = (tmp_path / "ludcmp_host.cu").read_text()
    assert "w -= A[c0][c2] * A[c2][c1];" in host     # the host path's upper part, as written
    assert not any(copy in path.read_text() for path in tmp_path.iterdir() for copy in ("w_1", "w_2"))


@pytest.mark.parametrize("caches", [CACHES, f"{48 * 1024},{1024 * 1024}"])
def test_deriches_column_sweeps_walk_rows(tmp_path, caches):
    """deriche's last two sweeps run down the columns with seven scalars carried from
    row to row: with a copy of each per column, tiles run them along the rows, every
    sweep in parallel. With 48 KiB of L1 the sweeps run untiled, and the backward one's
    parallel loop counts its updates at `w - i`, not only its initialisations at 0
    (it stayed serial, and the copies were dropped)."""
    proc = _ppcg(tmp_path, kernel_source("deriche"), "--tile", dataset="LARGE", caches=caches)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count(COPY) == 7
    assert "stays serial" not in proc.stderr
    text = (tmp_path / "out.c").read_text()
    assert "ym1_1[c_1] = y1[c_0][c_1];" in text
    assert "6 OpenMP loop(s)" in text


# the copies kept whatever the model says: the rewrite checked where isl's schedule
# with them gains nothing (two_sums.c's `k` loops stay innermost)
FORCED = ("import sys, ppcg_py.schedule.cpu as cpu; cpu.keeps_copies = lambda *facts: True; "
          "from ppcg_py.cli import main; sys.exit(main(sys.argv[1:]))")


def _forced_copies(cfg: VerifyConfig, out_dir: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", FORCED, "--target=c", "--openmp", "--min-parallel-work=0", "-v",
               *cfg.ppcg_args, "--output-dir", str(out_dir), str(cfg.source)]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    assert proc.stderr.count(COPY) == 2, proc.stderr
    return proc


@pytest.mark.parametrize("tile", [True, False])
def test_two_webs_in_one_iteration_forced_verify(tmp_path, tile):
    """`w` holds two sums in each `(i, j)`, the second written under a condition: two
    copies, `w_1[j]` and `w_2[j]`."""
    cfg = VerifyConfig(source=HERE / "two_sums.c", ppcg_args=("--tile",) if tile else (), target="c")
    report = verify(cfg, tmp_path, compiler=_forced_copies)
    assert report.ok, report.summary()
    assert "w_2[" in next((tmp_path / "generated").glob("*.c")).read_text()


def _declared_in_each_body(tmp_path: Path) -> Path:
    """lu_rows.c with `w` declared in each loop body that uses it: four variables of the
    SCoP, each with its kills."""
    text = (HERE / "lu_rows.c").read_text().replace("  double w;\n#pragma scop", "#pragma scop")
    for first in ("      w = A[i][j];", "    w = b[i];", "    w = y[i];"):
        text = text.replace(first, first.replace("w =", "double w ="))
    source = tmp_path / "lu_rows_local.c"
    source.write_text(text)
    return source


@pytest.mark.parametrize("local", [False, True])
@pytest.mark.parametrize("tile", [True, False])
def test_lu_rows_with_copies_verify_with_1_2_4_threads(tmp_path, local, tile):
    """Sizes known only at run time count as larger than any cache; n = 77 is not a
    multiple of any tile size. `w` declared outside the SCoP or in each loop body."""
    source = _declared_in_each_body(tmp_path) if local else HERE / "lu_rows.c"
    assert not local or source.read_text().count("double w =") == 4
    args = ("--tile",) if tile else ()
    proc = _ppcg(tmp_path, source, *args)
    assert proc.returncode == 0 and COPY in proc.stderr, proc.stderr
    report = verify(VerifyConfig(source=source, ppcg_args=args, target="c"), tmp_path / "run")
    assert report.ok, report.summary()


@pytest.mark.parametrize("kernel", ["ludcmp", "deriche"])
def test_polybench_with_copies_verify_at_medium(tmp_path, kernel):
    """MEDIUM's arrays (400 x 400 doubles, 720 x 480 floats) are larger than 1 MB; where
    the L2 cache holds them, the plan has no copies and this runs the plain plan."""
    report = verify(kernel_config(kernel, dataset="MEDIUM", ppcg_args=("--tile",), target="c"), tmp_path)
    assert report.ok, report.summary()
