"""Which scalars are dead once a SCoP ends (extract/liveness.py): a loop iterator
declared at the top of `main`, as Pluto's examples declare theirs, and also used by a
loop that fills the grid before the SCoP, has no final value to keep. Keeping one put a
statement inside the stencil's time loop (`i = N + 1` at its last step), and the C
target then found no band around every statement to tile along time."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ppcg_py.extract import extract_scops
from ppcg_py.isl_context import new_context
from ppcg_py.verify.harness import VerifyConfig, verify

# Pluto's heat-1d, smaller, with PolyBench's dump; AFTER and BEFORE are replaced
PROGRAM = r"""
#include <stdio.h>
#define N 3001L
#define T 200L
static double A[2][N + 2];
int main(void)
{
  long int t, i;
  long int *seen = 0;
  BEFORE
  for (i = 0; i < N + 2; i++)
    A[0][i] = A[1][i] = (double) (i % 7) / 7.0;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < N + 1; i++) {
      A[(t + 1) % 2][i] = 0.250 * (A[t % 2][i + 1] - 2.0 * A[t % 2][i] + A[t % 2][i - 1]);
    }
  }
#pragma endscop
  AFTER
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (long k = 0; k < N + 2; k++)
    fprintf(stderr, "%0.17g\n", A[T % 2][k]);
  fprintf(stderr, "end   dump: A\n==END   DUMP_ARRAYS==\n");
  return 0;
}
"""
CASES = {
    "dead": ("", ""),                                           # i used before the SCoP only
    "read_after": ("", 'fprintf(stdout, "%ld\\n", i);'),        # its final value printed
    "pointer_before": ("seen = &i;", 'fprintf(stdout, "%ld\\n", *seen);'),   # read through a pointer
}


def _program(tmp_path: Path, case: str) -> Path:
    before, after = CASES[case]
    path = tmp_path / f"{case}.c"
    path.write_text(PROGRAM.replace("BEFORE", before).replace("AFTER", after))
    return path


def _scalars_written(path: Path) -> set[str]:
    scop, = extract_scops(str(path), new_context())
    return {a.array for s in scop.statements for a in s.accesses if a.is_write and a.array in ("t", "i")}


@pytest.mark.parametrize("case, kept", [("dead", set()), ("read_after", {"i"}), ("pointer_before", {"i"})])
def test_an_iterator_is_kept_only_where_something_after_the_scop_may_read_it(case, kept, tmp_path):
    assert _scalars_written(_program(tmp_path, case)) == kept


def test_the_stencil_is_tiled_along_time(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ppcg_py", "--target=c", "--openmp", "--tile", "-v",
                           "--time-tiles=always", str(_program(tmp_path, "dead")), "-o", str(tmp_path / "out.c")],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "time tiles: the SCoP of 'main': kernel[0] tiles of" in proc.stderr, proc.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_verifies(case, tmp_path):
    report = verify(VerifyConfig(source=_program(tmp_path, case), target="c",
                                 ppcg_args=("--tile", "--time-tiles=always"), use_nvcc=False), tmp_path / "work")
    assert report.ok, report.summary()
