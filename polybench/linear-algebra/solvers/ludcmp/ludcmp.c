/*
 * ludcmp.c: solves A * x = b by LU decomposition without pivoting
 * (in place), then forward (L * y = b) and backward (U * x = y) substitution
 * (ppcg-py's own implementation of the PolyBench/C 4.2.1 kernel).
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include "polybench.h"
#include "ludcmp.h"

/* A strictly diagonally dominant matrix (off-diagonal entries in [0, 1),
 * diagonal n), b of order n so that x is of order 1. */
static void init_array(int n,
                       DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                       DATA_TYPE POLYBENCH_1D(b, N, n),
                       DATA_TYPE POLYBENCH_1D(x, N, n),
                       DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i, j;
  DATA_TYPE fn = (DATA_TYPE) n;

  for (i = 0; i < n; i++) {
    x[i] = SCALAR_VAL(0.0);
    y[i] = SCALAR_VAL(0.0);
    b[i] = fn * (SCALAR_VAL(1.0) + (i + 1) / fn) / 2;
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE) ((2 * i + j * (i + 1) + 1) % n) / n;
    A[i][i] = fn;
  }
}

static void print_array(int n,
                        DATA_TYPE POLYBENCH_1D(x, N, n))
{
  int i;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("x");
  for (i = 0; i < n; i++) {
    if (i % 20 == 0)
      fprintf(POLYBENCH_DUMP_TARGET, "\n");
    fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, x[i]);
  }
  POLYBENCH_DUMP_END("x");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_ludcmp(int n,
                          DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                          DATA_TYPE POLYBENCH_1D(b, N, n),
                          DATA_TYPE POLYBENCH_1D(x, N, n),
                          DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i, j, k;
  DATA_TYPE w;

#pragma scop
  /* In-place LU decomposition. */
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < _PB_N; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  /* Forward substitution, L unit lower triangular. */
  for (i = 0; i < _PB_N; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  /* Backward substitution. */
  for (i = _PB_N - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < _PB_N; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;

  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);
  POLYBENCH_1D_ARRAY_DECL(b, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(x, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(y, DATA_TYPE, N, n);

  init_array(n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(b),
             POLYBENCH_ARRAY(x), POLYBENCH_ARRAY(y));

  polybench_start_instruments;

  kernel_ludcmp(n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(b),
                POLYBENCH_ARRAY(x), POLYBENCH_ARRAY(y));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(x)));

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(b);
  POLYBENCH_FREE_ARRAY(x);
  POLYBENCH_FREE_ARRAY(y);

  return 0;
}
