"""Front-end forms, each compiled and verified against gcc through the harness."""
from __future__ import annotations

import pytest

from ppcg_py.verify.harness import VerifyConfig, verify

PROLOGUE = """#include <stdio.h>
#include <math.h>
#define N 37
#define M 29
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
"""

EPILOGUE = """
static void dump(const char *name, double *v, int count)
{
  fprintf(stderr, "begin dump: %s\\n", name);
  for (int k = 0; k < count; k++)
    fprintf(stderr, "%0.17g%s", v[k], k % 20 == 19 ? "\\n" : " ");
  fprintf(stderr, "\\nend   dump: %s\\n", name);
}

int main(void)
{
  static double A[N][M], B[N][M], x[N], y[M];
  double s = 0.5;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      A[i][j] = (double) ((i * 7 + j * 3) % 11) / 11.0;
      B[i][j] = (double) ((i + 2 * j) % 13) / 13.0;
    }
  for (int i = 0; i < N; i++) x[i] = (double) (i % 5) / 5.0;
  for (int j = 0; j < M; j++) y[j] = (double) (j % 3) / 3.0;
  compute(N, M, 1.25, A, B, x, y, &s);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\n");
  dump("A", &A[0][0], N * M);
  dump("B", &B[0][0], N * M);
  dump("x", x, N);
  dump("y", y, M);
  dump("s", &s, 1);
  fprintf(stderr, "==END   DUMP_ARRAYS==\\n");
  return 0;
}
"""

SIGNATURE = "static void compute(int n, int m, double alpha, double A[N][M], double B[N][M], double *x, double y[M], double *sp)\n"

BODIES = {
    "decreasing_and_strided": """{
#pragma scop
  for (int i = n - 1; i >= 1; i--)
    for (int j = 0; j < m; j += 2)
      A[i][j] = A[i - 1][j] + alpha * B[i][j];
  for (int j = m - 1; j > 0; --j)
    y[j] = y[j - 1] * 0.5 + y[j];
#pragma endscop
}""",
    "min_max_bounds": """{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = MAX(0, i - 5); j < MIN(m, i + 3); j++)
      B[i][j] = A[i][j] * alpha + B[i][j];
  for (int i = 0; i <= n - 1; ++i)
    for (int j = 0; j < MIN(m, 2 * i + 1); j++)
      A[i][j] += 1.0;
#pragma endscop
}""",
    "conditions": """{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      if (i == j || i + j == 10)
        A[i][j] = 2.0 * B[i][j];
      else if (j > i && i % 3 != 0)
        A[i][j] = B[i][j] - 1.0;
      else
        B[i][j] = A[i][j] + x[i];
    }
#pragma endscop
}""",
    "scalars": """{
  double t;
#pragma scop
  for (int i = 0; i < n; i++) {
    t = 0.0;
    for (int j = 0; j < m; j++)
      t += A[i][j] * y[j];
    x[i] = alpha * t;
  }
  for (int i = 0; i < n; i++)
    sp[0] += x[i];
#pragma endscop
}""",
    "two_scops_and_math": """{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = sqrt(A[i][j] + 1.0) + (B[i][j] > 0.5 ? exp(-B[i][j]) : fabs(B[i][j] - 1.0));
#pragma endscop
  alpha = alpha * 2.0;
#pragma scop
  for (int i = 1; i < n - 1; i++)
    x[i] = (x[i - 1] + x[i] + x[i + 1]) / 3.0 + alpha;
#pragma endscop
}""",
}

OPTIONS = {"default": (), "small-tiles": ("--tile-sizes", "4,3"), "grid1": ("--sizes", "{ kernel[i] -> grid[1,1]; kernel[i] -> block[2,3] }")}

@pytest.mark.parametrize("options", list(OPTIONS))
@pytest.mark.parametrize("name", list(BODIES))
def test_form_verifies(name, options, tmp_path):
    src = tmp_path / f"{name.replace('_', '')}.c"
    src.write_text(PROLOGUE + SIGNATURE + BODIES[name] + EPILOGUE)
    report = verify(VerifyConfig(source=src, ppcg_args=OPTIONS[options], use_nvcc=options == "default"),
                    tmp_path / "work")
    assert report.ok, report.summary()
