/* --sizes with a size that depends on a parameter: PPCG requires fixed values.
   ppcg-py must reject it with one line, not crash (internal compiler error). */
#include <stdio.h>
#define N 40
static void scale(int n, double A[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] * 2.0;
#pragma endscop
}
int main(void)
{
  static double A[N];
  for (int i = 0; i < N; i++)
    A[i] = i;
  scale(N - 3, A);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int i = 0; i < N; i++)
    fprintf(stderr, "%0.17g\n", A[i]);
  fprintf(stderr, "end   dump: A\n==END   DUMP_ARRAYS==\n");
  return 0;
}
