"""verify --stdout: a program that prints its results its own way, checked on its
standard output (numbers with the data type's tolerance, the words around them exactly),
with the real compiler on every target."""
from __future__ import annotations

import math

import pytest

from ppcg_py.verify.__main__ import main
from ppcg_py.verify.dump import compare_dumps, parse_output
from ppcg_py.verify.harness import VerifyConfig, verify
from ppcg_py.verify.opencl import opencl_unavailable

PROGRAM = """#include <stdio.h>
#include <unistd.h>
#define N 131
#define M 97
static double img[N][M], out[N][M];
int main(void) {
  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) img[i][j] = (i * 7 + j * 3) % 17 / 17.0;
#pragma scop
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < M - 1; j++)
      out[i][j] = 0.25 * (img[i - 1][j] + img[i + 1][j] + img[i][j - 1] + img[i][j + 1]);
#pragma endscop
  for (int i = 0; i < N; i += 13) {
    double row = 0;
    for (int j = 0; j < M; j++) row += out[i][j] * (j + 1);
    printf("row %d: sum=%.12f\\n", i, row);
  }
  EXTRA
  return 0;
}
"""


def test_the_output_is_read_as_numbers_and_words():
    read = parse_output("row 13: sum=41.5\nmax -1e-3, nan inf\n")
    assert read["numbers"][:3] == [13.0, 41.5, -0.001] and math.isnan(read["numbers"][3])
    assert read["numbers"][4:] == [math.inf]
    assert read["words"] == ["row", "#:", "sum=#", "max", "#,", "#", "#"]
    assert compare_dumps(read, parse_output("row 13: sum=41.50000000001\nmax -1e-3, nan inf\n"),
                         rtol=1e-9, atol=1e-9) == []
    assert compare_dumps(read, parse_output("row 13: sum=41.6\nmax -1e-3, nan inf\n"), rtol=1e-9, atol=1e-9) \
        == ["numbers[1]: expected 41.5, got 41.6"]
    assert compare_dumps(read, parse_output("row 13: sum=41.5\nmin -1e-3, nan inf\n"), rtol=1e-4, atol=1e-5) \
        == ["words[3]: expected 'max', got 'min'"]


@pytest.mark.parametrize("target", ["cuda", "c", "opencl"])
def test_a_program_printing_its_own_results_verifies(target, tmp_path):
    if target == "opencl" and (why := opencl_unavailable()) is not None:
        pytest.skip(why)
    source = tmp_path / "smooth.c"
    source.write_text(PROGRAM.replace("EXTRA", ""))
    report = verify(VerifyConfig(source, target=target, use_nvcc=False, output="stdout"), tmp_path / "work")
    assert report.ok, report.summary()


def test_a_difference_in_the_output_is_a_mismatch(tmp_path, capsys):
    source = tmp_path / "smooth.c"
    source.write_text(PROGRAM.replace("EXTRA", 'printf("pid %d\\n", (int) getpid());'))
    assert main(["--stdout", "--no-nvcc", "--target", "c", "--threads", "1", str(source)]) == 1
    verdict = capsys.readouterr().out
    assert verdict.startswith("FAIL") and "numbers[22]" in verdict


def test_without_stdout_a_program_without_a_dump_says_so(tmp_path, capsys):
    source = tmp_path / "smooth.c"
    source.write_text(PROGRAM.replace("EXTRA", ""))
    assert main(["--no-nvcc", "--target", "c", "--threads", "1", str(source)]) == 1
    assert "--stdout compares standard output instead" in capsys.readouterr().out
