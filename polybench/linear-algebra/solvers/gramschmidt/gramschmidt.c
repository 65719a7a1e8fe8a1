/*
 * gramschmidt.c: QR decomposition by (modified) Gram-Schmidt
 * orthogonalisation, A = Q * R with Q orthonormal columns and R upper
 * triangular (ppcg-py's own implementation of the PolyBench/C 4.2.1 kernel).
 *
 * The suite's sizes have M < N. To keep the factorisation well defined
 * (full column rank, so that no column norm becomes zero) this
 * implementation orthogonalises the M columns of an N x M matrix A:
 * A and Q are N x M, R is M x M.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include "polybench.h"
#include "gramschmidt.h"

/* A has entries in [0, 0.5) plus (1 + m/4) on its diagonal: full column
 * rank and well conditioned (condition number about 2 at every size). */
static void init_array(int m, int n,
                       DATA_TYPE POLYBENCH_2D(A, N, M, n, m),
                       DATA_TYPE POLYBENCH_2D(R, M, M, m, m),
                       DATA_TYPE POLYBENCH_2D(Q, N, M, n, m))
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      A[i][j] = (DATA_TYPE) ((i * (j + 1) + 2 * j) % n) / (2 * n)
                + (i == j ? SCALAR_VAL(1.0) + (DATA_TYPE) m / 4 : SCALAR_VAL(0.0));
      Q[i][j] = SCALAR_VAL(0.0);
    }
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++)
      R[i][j] = SCALAR_VAL(0.0);
}

static void print_array(int m, int n,
                        DATA_TYPE POLYBENCH_2D(R, M, M, m, m),
                        DATA_TYPE POLYBENCH_2D(Q, N, M, n, m))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("R");
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++) {
      if ((i * m + j) % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, R[i][j]);
    }
  POLYBENCH_DUMP_END("R");
  POLYBENCH_DUMP_BEGIN("Q");
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      if ((i * m + j) % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, Q[i][j]);
    }
  POLYBENCH_DUMP_END("Q");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_gramschmidt(int m, int n,
                               DATA_TYPE POLYBENCH_2D(A, N, M, n, m),
                               DATA_TYPE POLYBENCH_2D(R, M, M, m, m),
                               DATA_TYPE POLYBENCH_2D(Q, N, M, n, m))
{
  int i, j, k;
  DATA_TYPE nrm;

#pragma scop
  for (k = 0; k < _PB_M; k++) {
    nrm = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_N; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = SQRT_FUN(nrm);
    for (i = 0; i < _PB_N; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < _PB_M; j++) {
      R[k][j] = SCALAR_VAL(0.0);
      for (i = 0; i < _PB_N; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < _PB_N; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int m = M;
  int n = N;

  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, M, n, m);
  POLYBENCH_2D_ARRAY_DECL(R, DATA_TYPE, M, M, m, m);
  POLYBENCH_2D_ARRAY_DECL(Q, DATA_TYPE, N, M, n, m);

  init_array(m, n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(R), POLYBENCH_ARRAY(Q));

  polybench_start_instruments;

  kernel_gramschmidt(m, n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(R),
                     POLYBENCH_ARRAY(Q));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(m, n, POLYBENCH_ARRAY(R),
                                    POLYBENCH_ARRAY(Q)));

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(R);
  POLYBENCH_FREE_ARRAY(Q);

  return 0;
}
