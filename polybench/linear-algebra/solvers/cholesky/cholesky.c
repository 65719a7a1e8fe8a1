/*
 * cholesky.c: Cholesky decomposition A = L*L^T of a symmetric positive
 * definite matrix, L computed in place in the lower triangle of A
 * (ppcg-py's own implementation of the PolyBench/C 4.2.1 kernel).
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include "polybench.h"
#include "cholesky.h"

/* A symmetric, strictly diagonally dominant matrix with a positive diagonal
 * (hence positive definite): off-diagonal entries in [0, 1), diagonal n. */
static void init_array(int n,
                       DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++) {
    for (j = 0; j < n; j++)
      A[i][j] = (DATA_TYPE) ((i * j + i + j + 1) % n) / n;
    A[i][i] = (DATA_TYPE) n;
  }
}

static void print_array(int n,
                        DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j, count = 0;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("A");
  /* The lower triangle (diagonal included) holds L. */
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      if (count % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, A[i][j]);
      count++;
    }
  POLYBENCH_DUMP_END("A");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_cholesky(int n,
                            DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    /* j < i */
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    /* i == j */
    for (k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = SQRT_FUN(A[i][i]);
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;

  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(A));

  polybench_start_instruments;

  kernel_cholesky(n, POLYBENCH_ARRAY(A));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(A)));

  POLYBENCH_FREE_ARRAY(A);

  return 0;
}
