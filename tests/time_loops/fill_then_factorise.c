/* A matrix filled, then factorised in place (LU without pivoting, PolyBench's lu) in the
 * same SCoP: the factorisation's `i` loop is a time loop among the SCoP's loops, but the
 * values it passes on travel the whole matrix, not a stencil's few neighbours. */
#include <stdio.h>
#define N 37

static void run(double A[N][N])
{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (i == j) ? N + 1.0 : (double) ((i * 3 + j * 5) % 7) / 7.0;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
    for (int j = i; j < N; j++)
      for (int k = 0; k < i; k++)
        A[i][j] -= A[i][k] * A[k][j];
  }
#pragma endscop
}

int main(void)
{
  static double A[N][N];
  run(A);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      fprintf(stderr, "%0.17g\n", A[i][j]);
  fprintf(stderr, "end   dump: A\n==END   DUMP_ARRAYS==\n");
  return 0;
}
