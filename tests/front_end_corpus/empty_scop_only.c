// covers: a file whose only SCoP is empty (a declaration and an empty block): the output is
// the input, with one warning
#include <stdio.h>
#define N 16
static void compute(int n, double A[N])
{
#pragma scop
  {
    int unused;
  }
#pragma endscop
  for (int i = 0; i < n; i++)
    A[i] = A[i] * 3.0 + i;
}

int main(void)
{
  static double A[N];
  for (int t = 0; t < N; t++) A[t] = t * 0.25;
  compute(10, A);
  compute(N, A);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: A\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%0.17g\n", A[t]);
  fprintf(stderr, "end   dump: A\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
