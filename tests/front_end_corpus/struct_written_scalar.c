// covers: a struct scalar whose members are written (acc.sum, acc.max): a struct
// variable of no dimensions, read after the SCoP
#include <stdio.h>
#define N 60
struct stats { double sum; double max; int count; };
static struct stats compute(int n, double A[N])
{
  struct stats acc;
  acc.count = 42;
  acc.sum = 0.0;
  acc.max = -1e30;
#pragma scop
  for (int i = 0; i < n; i++) {
    acc.sum = acc.sum + A[i];
    acc.max = A[i] > acc.max ? A[i] : acc.max;
  }
#pragma endscop
  return acc;
}

int main(void)
{
  static double A[N];
  for (int t = 0; t < N; t++) A[t] = ((t * 13) % 17) - 8.5;
  struct stats r[3];
  r[0] = compute(50, A);
  r[1] = compute(0, A);
  r[2] = compute(N, A);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: r\n");
  for (int t = 0; t < 3; t++) fprintf(stderr, "%0.17g %0.17g %d\n", r[t].sum, r[t].max, r[t].count);
  fprintf(stderr, "end   dump: r\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
