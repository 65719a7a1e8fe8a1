/*
 * covariance.c: covariance matrix of N data points with M attributes
 * (ppcg-py's own implementation of the PolyBench/C 4.2.1 kernel).
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include "polybench.h"
#include "covariance.h"

static void init_array(int m, int n,
                       DATA_TYPE *float_n,
                       DATA_TYPE POLYBENCH_2D(data, N, M, n, m))
{
  int i, j;

  *float_n = (DATA_TYPE) n;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] = (DATA_TYPE) ((i * (j + 1) + j) % m) / m
                   + (DATA_TYPE) (i % 7) / 10;
}

static void print_array(int m,
                        DATA_TYPE POLYBENCH_2D(cov, M, M, m, m))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("cov");
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++) {
      if ((i * m + j) % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, cov[i][j]);
    }
  POLYBENCH_DUMP_END("cov");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_covariance(int m, int n,
                              DATA_TYPE float_n,
                              DATA_TYPE POLYBENCH_2D(data, N, M, n, m),
                              DATA_TYPE POLYBENCH_2D(cov, M, M, m, m),
                              DATA_TYPE POLYBENCH_1D(mean, M, m))
{
  int i, j, k;

#pragma scop
  /* Mean of every attribute. */
  for (j = 0; j < _PB_M; j++) {
    mean[j] = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_N; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  /* Centre the data. */
  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_M; j++)
      data[i][j] -= mean[j];
  /* Symmetric covariance matrix (sample covariance). */
  for (i = 0; i < _PB_M; i++)
    for (j = i; j < _PB_M; j++) {
      cov[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_N; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= (float_n - SCALAR_VAL(1.0));
      cov[j][i] = cov[i][j];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;
  int m = M;

  DATA_TYPE float_n;
  POLYBENCH_2D_ARRAY_DECL(data, DATA_TYPE, N, M, n, m);
  POLYBENCH_2D_ARRAY_DECL(cov, DATA_TYPE, M, M, m, m);
  POLYBENCH_1D_ARRAY_DECL(mean, DATA_TYPE, M, m);

  init_array(m, n, &float_n, POLYBENCH_ARRAY(data));

  polybench_start_instruments;

  kernel_covariance(m, n, float_n, POLYBENCH_ARRAY(data),
                    POLYBENCH_ARRAY(cov), POLYBENCH_ARRAY(mean));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(m, POLYBENCH_ARRAY(cov)));

  POLYBENCH_FREE_ARRAY(data);
  POLYBENCH_FREE_ARRAY(cov);
  POLYBENCH_FREE_ARRAY(mean);

  return 0;
}
