/* A bundled example for ppcg-py: C = alpha * A * B + beta * C, then a row sum.
 * Sizes are deliberately not multiples of the default tile size (32). */
#include <stdio.h>
#include <stdlib.h>

#define NI 150
#define NJ 130
#define NK 90

static void init(double A[NI][NK], double B[NK][NJ], double C[NI][NJ])
{
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++)
      A[i][k] = (double) ((i * k + 1) % NI) / NI;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++)
      B[k][j] = (double) ((k * (j + 2)) % NJ) / NJ;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      C[i][j] = (double) ((i + j) % 7) / 7.0;
}

static void matmul(int ni, int nj, int nk, double alpha, double beta,
                   double A[NI][NK], double B[NK][NJ], double C[NI][NJ], double rowsum[NI])
{
#pragma scop
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (int i = 0; i < ni; i++) {
    rowsum[i] = 0.0;
    for (int j = 0; j < nj; j++)
      rowsum[i] += C[i][j];
  }
#pragma endscop
}

int main(void)
{
  static double A[NI][NK], B[NK][NJ], C[NI][NJ], rowsum[NI];
  init(A, B, C);
  matmul(NI, NJ, NK, 1.5, 1.2, A, B, C, rowsum);
  /* Results in PolyBench's dump format, which the verification harness compares. */
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: %s\n", "C");
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      fprintf(stderr, "%0.17g%s", C[i][j], (i * NJ + j) % 20 == 19 ? "\n" : " ");
  fprintf(stderr, "\nend   dump: %s\n", "C");
  fprintf(stderr, "begin dump: %s\n", "rowsum");
  for (int i = 0; i < NI; i++)
    fprintf(stderr, "%0.17g%s", rowsum[i], i % 20 == 19 ? "\n" : " ");
  fprintf(stderr, "\nend   dump: %s\n", "rowsum");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  printf("C[%d][%d] = %f, rowsum[0] = %f\n", NI - 1, NJ - 1, C[NI - 1][NJ - 1], rowsum[0]);
  return 0;
}
